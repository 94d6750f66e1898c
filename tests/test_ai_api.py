"""The hint engine and the arena through the public API: legal suggestions, reproducibility,
no information leak through suggest, the time budget, the CLI and the OpenSpiel adapter."""
import json
import os
import random
import subprocess
import sys
import time

import numpy as np
import pytest

import meldmind
from meldmind import MeldmindError, OptionError, new_game, suggest
from meldmind.ai import decide, level_name
from meldmind.game import game_module

LEVELS = ["beginner", "easy", "normal", "expert", "master"]
SEARCH_ITERATIONS = 24


def _positions(variant, count, seed=0):
    """Observations of the seat to move, at random points of random games."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        game = new_game(variant, seed=rng.randrange(1 << 30))
        for _ in range(rng.randrange(0, 60)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            found.append(game)
    return found


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
@pytest.mark.parametrize("level", LEVELS)
def test_suggestions_are_legal_and_reproducible(variant, level):
    for game in _positions(variant, 12, seed=hash(level) % 1000):
        obs = game.observation(game.to_move)
        hint = suggest(obs, level=level, iterations=SEARCH_ITERATIONS, seed=5)
        assert hint.move.id in {m["id"] for m in obs["legal_moves"]}
        assert hint.explanation and hint.explanation[0].isupper() and hint.explanation.endswith(".")
        again = suggest(json.dumps(obs), level=level, iterations=SEARCH_ITERATIONS, seed=5)
        assert again == hint
        if level in ("expert", "master"):
            assert hint.iterations == SEARCH_ITERATIONS and hint.value is not None
            assert hint.alternatives[0].value >= hint.alternatives[-1].value
        game.play(hint.move)   # the facade accepts it


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
@pytest.mark.parametrize("level", LEVELS)
def test_suggestion_ignores_cards_the_seat_cannot_see(variant, level):
    """Resample the hidden cards consistently with the observation: same observation, same
    suggestion at a fixed seed and iteration budget."""
    kernel = game_module(variant).KERNEL
    module = game_module(variant)
    for game in _positions(variant, 6, seed=7):
        seat = game.to_move
        obs = game.observation(seat)
        expected = suggest(obs, level=level, iterations=SEARCH_ITERATIONS, seed=3)
        for world_seed in range(3):
            world = kernel.determinize(module.observation_array(obs), np.int64(world_seed))
            out = np.zeros(kernel.OBS_SIZE, np.int64)
            kernel.observe(world, seat, out)
            buffer = np.empty(kernel.NUM_ACTIONS, np.int64)
            legal = buffer[:kernel.legal_actions(world, buffer)].tolist()
            resampled = module.observation_dict(out, legal)
            # the game's event log aside (it holds nothing hidden), the same observation
            assert resampled == {key: value for key, value in obs.items() if key != "events"}
            assert suggest(resampled, level=level, iterations=SEARCH_ITERATIONS, seed=3) == expected


def test_budget_is_respected():
    """The whole call, reading the observation and explaining the move included, at a draw and
    at a discard (which weighs every discard in its explanation)."""
    game = _positions("gin", 1, seed=2)[0]
    draw = game.observation(game.to_move)
    while game.observation(game.to_move)["phase"] != "discard":
        game.play(suggest(game.observation(game.to_move), level="normal", seed=0).move)
    discard = game.observation(game.to_move)
    suggest(draw, level="master", iterations=8, seed=1)          # compile / load the kernels
    for obs in (draw, discard):
        for budget in (20, 60):
            started = time.perf_counter()
            hint = suggest(obs, level="master", budget_ms=budget, seed=1)
            elapsed = (time.perf_counter() - started) * 1000
            assert hint.iterations >= 1
            assert elapsed <= budget * 1.25 + 15, (obs["phase"], budget, elapsed)


def test_bad_hint_input():
    game = _positions("gin", 1)[0]
    good = game.observation(game.to_move)
    with pytest.raises(OptionError, match="unknown level"):
        suggest(good, level="grandmaster")
    for text in ("{oops", b"\xff\xfe", "[" * 100_000 + "]" * 100_000):
        with pytest.raises(MeldmindError, match="malformed observation JSON"):
            suggest(text, level="easy")
    with pytest.raises(MeldmindError, match="chess"):
        suggest({**good, "variant": "chess"}, level="easy")
    with pytest.raises(MeldmindError, match="turn"):
        suggest(game.observation(1 - game.to_move), level="easy")
    rng = random.Random(2)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    with pytest.raises(MeldmindError, match="is over"):
        suggest(game.observation(0), level="easy")
    with pytest.raises(MeldmindError):
        suggest({**good, "hand": good["hand"][:-1]}, level="easy")
    for budget in ({"iterations": 0}, {"iterations": 2.5}, {"iterations": "8"},
                   {"budget_ms": -1}, {"budget_ms": float("nan")}, {"budget_ms": "5"}):
        with pytest.raises(OptionError, match="iterations|budget_ms"):
            suggest(good, level="normal", **budget)
    for listed in (5, None, "draw stock"):
        with pytest.raises(MeldmindError, match="must be a list of moves"):
            suggest({**good, "legal_moves": listed}, level="easy")
    with pytest.raises(MeldmindError, match="do not match"):
        suggest({**good, "legal_moves": good["legal_moves"][:-1]}, level="easy")
    for listed in ([{"id": "a"}], [m["id"] for m in good["legal_moves"]]):
        with pytest.raises(MeldmindError, match=r"^'legal_moves\[0\]'"):
            suggest({**good, "legal_moves": listed}, level="easy")
    assert level_name("Kolay") == "easy" and level_name("zor") == "expert"


JUNK = [None, -1, 0, 10**12, -(10**12), 3.5, float("nan"), True, "", "XX", "AS", "JK1", "draw",
        [], [None], ["AS", "AS"], ["99Z"], {}, {"a": 1}]


def _corrupt(obs, rng):
    """``obs`` with one to three random faults: a key removed, a value replaced by junk, an
    entry of a list replaced or repeated, a field of a mapping replaced, a number shifted."""
    bad = json.loads(json.dumps(obs))
    for _ in range(rng.randint(1, 3)):
        key = rng.choice(list(bad))
        value = bad[key]
        roll = rng.random()
        if roll < 0.2:
            del bad[key]
        elif roll < 0.55 or not isinstance(value, (list, dict, int)) or not value:
            bad[key] = rng.choice(JUNK)
        elif isinstance(value, list):
            i = rng.randrange(len(value))
            if rng.random() < 0.5:
                value[i] = rng.choice(JUNK)
            else:
                value.append(value[i])
        elif isinstance(value, dict):
            value[rng.choice(list(value))] = rng.choice(JUNK)
        else:
            bad[key] = value + rng.choice([-100, -1, 1, 100])
    return bad


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_corrupted_observations_get_a_meldmind_error_or_a_legal_move(variant):
    """A server may send anything: a corrupted observation either raises MeldmindError or, when
    it still reads as a position, gets one of that position's legal moves; nothing else escapes
    (no TypeError, KeyError, IndexError, no crash in a kernel)."""
    rng = random.Random(7)
    games = _positions(variant, 20, seed=11)
    refused = 0
    for _ in range(400):
        game = rng.choice(games)
        bad = _corrupt(game.observation(game.to_move), rng)
        try:
            hint = suggest(bad, level=rng.choice(["normal", "expert"]), iterations=4, seed=1)
        except MeldmindError:
            refused += 1
            continue
        position = game_module(variant).observation_array(bad)
        assert hint.move.id in decide(variant, "easy", position, seed=1).legal, (bad, hint.move)
    assert refused > 200


SEED_ENTRY_POINTS = {
    # the deal itself, which the seed makes (a game's JSON only repeats the seed)
    "new_game": lambda seed: new_game("gin", seed=seed).observation(0),
    "Game.from_json": lambda seed: meldmind.Game.from_json(
        {"format": "meldmind.game", "version": 1, "variant": "gin", "options": {}, "seed": seed,
         "moves": [52]}).observation(1),
    "suggest normal": lambda seed: suggest(new_game("gin", seed=1).observation(0), level="normal",
                                           seed=seed),
    "suggest expert": lambda seed: suggest(new_game("gin", seed=1).observation(0), level="expert",
                                           iterations=4, seed=seed),
    "arena": lambda seed: meldmind.arena("gin", "normal", "easy", deals=2, seed=seed,
                                         processes=1, progress=False).mean_score_diff,
}


@pytest.mark.parametrize("entry", SEED_ENTRY_POINTS)
def test_every_int64_seed_works_and_others_are_refused(entry):
    """Seeds are int64 in the kernels: every one of them, negative ones included, gives a
    reproducible result; anything else is an OptionError, not an OverflowError."""
    run = SEED_ENTRY_POINTS[entry]
    for seed in (-(2 ** 63), -1, 0, 2 ** 63 - 1):
        assert run(seed) == run(seed)
    for bad in (2 ** 63, -(2 ** 63) - 1, 2 ** 70, 1.5, True, "3"):
        with pytest.raises(OptionError, match="seed must be an integer"):
            run(bad)


def test_arena_rejects_bad_parameters_before_playing():
    for bad in ({"deals": 0}, {"deals": True}, {"processes": 0}, {"processes": "2"},
                {"iterations": 0}, {"budget_ms": -5}):
        with pytest.raises(OptionError):
            meldmind.arena("gin", "expert", "normal", **{"deals": 1, **bad}, progress=False)


def test_arena_smoke_and_mirroring():
    result = meldmind.arena("cardverse", "easy", "beginner", deals=6, seed=3, processes=1,
                            progress=False)
    assert result.games == 12 and result.wins_a + result.wins_b + result.draws == 12
    assert result.ci95[0] <= result.win_rate <= result.ci95[1]
    again = meldmind.arena("cardverse", "easy", "beginner", deals=6, seed=3, processes=1,
                           progress=False)
    assert (again.wins_a, again.wins_b, again.mean_score_diff) == \
        (result.wins_a, result.wins_b, result.mean_score_diff)
    # the same level on mirrored deals: every deal pair cancels out
    mirror = meldmind.arena("gin", "easy", "easy", deals=5, seed=1, processes=1, progress=False)
    assert mirror.mean_score_diff == 0 and mirror.wins_a == mirror.wins_b
    with pytest.raises(OptionError):
        meldmind.arena("gin", "easy", "nobody", deals=1, progress=False)


def test_arena_with_worker_processes_matches_one_process():
    one = meldmind.arena("gin", "normal", "easy", deals=16, seed=4, processes=1, progress=False)
    two = meldmind.arena("gin", "normal", "easy", deals=16, seed=4, processes=2, progress=False)
    assert (one.wins_a, one.wins_b, one.draws, one.mean_score_diff) == \
        (two.wins_a, two.wins_b, two.draws, two.mean_score_diff)


def test_cli_arena_and_hint():
    out = subprocess.run([sys.executable, "-m", "meldmind.cli", "arena", "gin", "easy", "beginner",
                          "--deals", "4", "--seed", "2", "--processes", "1", "--json"],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    assert data["games"] == 8 and data["level_a"] == "easy"
    game = _positions("gin", 1, seed=9)[0]
    hint = subprocess.run([sys.executable, "-m", "meldmind.cli", "hint", "--level", "expert",
                           "--iterations", "16", "--seed", "1"],
                          input=json.dumps(game.observation(game.to_move)),
                          capture_output=True, text=True, check=True).stdout
    assert json.loads(hint)["move"]["id"] in {m.id for m in game.legal_moves()}
    bad = subprocess.run([sys.executable, "-m", "meldmind.cli", "hint"], input="{]",
                         capture_output=True, text=True)
    assert bad.returncode == 3 and "malformed" in bad.stderr


CONCURRENT_HINTS = """
import json, threading, meldmind
games = [meldmind.new_game(v, seed=s) for v in ("gin", "cardverse") for s in range(3)]
obs = [g.observation(g.to_move) for g in games]
alone = [meldmind.suggest(o, level="master", iterations=64, seed=1).move.id for o in obs]
together = [[] for _ in obs]
def ask(i):
    for _ in range(3):
        together[i].append(meldmind.suggest(obs[i], level="master", iterations=64, seed=1).move.id)
threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(obs))]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps([alone, together]))
"""


def test_hints_from_many_threads_under_every_threading_layer():
    """A server may ask for hints from several threads at once. numba's workqueue layer (its
    fallback without OpenMP or TBB) kills the process on concurrent parallel kernels unless
    meldmind serializes them; the answers are those of the same hints asked one at a time."""
    for layer in ("workqueue", "default"):
        env = {**os.environ, "NUMBA_THREADING_LAYER": layer}
        result = subprocess.run([sys.executable, "-c", CONCURRENT_HINTS], env=env,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        alone, together = json.loads(result.stdout)
        assert together == [[move] * 3 for move in alone]


def test_cli_hint_lines_answers_every_line_and_survives_bad_ones():
    game = _positions("gin", 1, seed=9)[0]
    good = json.dumps(game.observation(game.to_move))
    too_deep = "[" * 100_000 + "]" * 100_000     # beyond the JSON parser's recursion limit
    lines = [good, "{]", "", json.dumps({"variant": "gin"}), too_deep, good]
    out = subprocess.run([sys.executable, "-m", "meldmind.cli", "hint", "--lines", "--level",
                          "expert", "--iterations", "16", "--seed", "1"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert len(out) == 5    # the blank line gets no answer
    first, malformed, incomplete, deep, again = (json.loads(line) for line in out)
    assert first["move"]["id"] in {m.id for m in game.legal_moves()} and again == first
    assert "malformed" in malformed["error"] and "missing field" in incomplete["error"]
    assert "malformed observation JSON" in deep["error"]


def test_openspiel_adapter_plays_gin():
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.integrations.openspiel import MeldmindBot
    game = pyspiel.load_game("gin_rummy")
    for seed in range(3):
        bots = [MeldmindBot(0, level="expert", iterations=8, seed=seed),
                pyspiel.make_uniform_random_bot(1, seed)]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert len(returns) == 2 and returns[0] == -returns[1]
    for bad in ({"player_id": 2}, {"player_id": 0.0}, {"player_id": True},
                {"player_id": 0, "level": "godlike"},
                {"player_id": 0, "iterations": 0}, {"player_id": 1, "budget_ms": -1},
                {"player_id": 0, "seed": 2 ** 64}):
        with pytest.raises(OptionError):
            MeldmindBot(**bad)


def test_a_stock_draw_waiting_for_its_card_is_refused_not_dealt_from_the_hidden_cards():
    """Player 1 draws from the stock; OpenSpiel has not dealt the card yet. The two deals differ
    only in player 0's hidden hand (the QS or the KS), so player 1 may not tell them apart. The
    adapter used to replay the draw with a card of the real stock, and its bot discarded the QS
    in one deal and the KS in the other; now both refuse, and once the same card is dealt both
    views agree again."""
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.integrations.openspiel import MeldmindBot, meldmind_state, observation_for
    game = pyspiel.load_game("gin_rummy")
    player_1 = [13, 15, 17, 19, 21, 23, 27, 29, 31, 33]     # OpenSpiel's card numbers
    states = []
    for player_0 in ([*range(9), 12], [*range(9), 11]):       # KS or QS; the other stays unseen
        state = game.new_initial_state()
        for action in [*player_0, *player_1, 26, 52, 0, 53]:   # upcard; take it, discard, draw
            state.apply_action(action)
        assert state.is_chance_node()
        states.append(state)
    assert states[0].information_state_string(1) == states[1].information_state_string(1)
    for state in states:
        for refused in (lambda: observation_for(state, 1), lambda: observation_for(state, 0),
                        lambda: meldmind_state(state),
                        lambda: MeldmindBot(1, level="easy", seed=0).step(state)):
            with pytest.raises(MeldmindError, match="waits for the stock card of a draw"):
                refused()
        state.apply_action(40)          # the same card dealt in both
    assert np.array_equal(observation_for(states[0], 1), observation_for(states[1], 1))
    bots = [MeldmindBot(1, level=level, iterations=16, seed=0) for level in ("easy", "expert")]
    assert [bot.step(states[0]) for bot in bots] == [bot.step(states[1]) for bot in bots]


def test_the_openspiel_bot_refuses_a_state_it_cannot_decide_in_with_a_meldmind_error():
    """Still being dealt, another player's turn, the game over: each a MeldmindError (the
    README's promise for every meldmind error), none a bare ValueError of the adapter."""
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.integrations.openspiel import MeldmindBot
    bot = MeldmindBot(1, level="easy")
    state = pyspiel.load_game("gin_rummy").new_initial_state()
    with pytest.raises(MeldmindError) as dealing:
        bot.step(state)
    assert str(dealing.value) == ("the OpenSpiel state is still being dealt: a bot decides once "
                                  "the deal is done")
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(MeldmindError, match="it is not seat 1's turn"):
        bot.step(state)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(MeldmindError, match="the game of this observation is over"):
        bot.step(state)

def test_openspiel_adapter_observation_is_a_valid_meldmind_observation():
    """At every decision of an OpenSpiel game, the adapter's observation carries the dealt
    upcard and the whole move history, and passes meldmind's JSON checks unchanged, but the
    defender's after a knock: it lacks the cards the knocker kept out of its melds, which
    OpenSpiel does not show and meldmind's JSON must."""
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.games import gin
    from meldmind.integrations.openspiel import (from_openspiel_card, observation_for,
                                                 to_openspiel_action)
    K = gin.KERNEL
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(3)
    hidden_knocks = 0
    for _ in range(20):       # random play knocks in a few of them
        state = game.new_initial_state()
        checked = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(int(rng.choice(outcomes)))
                continue
            player = state.current_player()
            dealt_upcard = from_openspiel_card(state.full_history()[20].action)
            for seat in (0, 1):
                obs = observation_for(state, seat)
                assert obs[K.O_FIRST_UPCARD] == dealt_upcard
                moves = sum(1 for step in state.full_history() if step.player >= 0)
                assert obs[K.O_HISTORY_COUNT] == moves
                if K.hides_knockers_cards(obs):
                    hidden_knocks += 1
                    continue
                assert np.array_equal(gin.observation_array(gin.observation_dict(obs, None)), obs)
            checked += 1
            legal = state.legal_actions(player)
            knock = to_openspiel_action(K.KNOCK)
            state.apply_action(knock if knock in legal else int(rng.choice(legal)))
        assert checked > 10
    assert hidden_knocks > 0


def _a_defender_laying_off(game, rng):
    """An OpenSpiel ``gin_rummy`` game of random moves, knocking whenever it may, played up to
    the defender's first decision after a knock; None if it ends without one."""
    from meldmind.integrations import openspiel as adapter
    K = adapter.K
    knock = adapter.to_openspiel_action(K.KNOCK)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        ours = adapter.meldmind_state(state)
        if ours[K.S_PHASE] == K.PH_LAYOFF and ours[K.S_CURRENT] != ours[K.S_KNOCKER]:
            return state
        legal = state.legal_actions()
        state.apply_action(knock if knock in legal else rng.choice(legal))
    return None


def test_openspiel_adapter_hides_the_knockers_cards_as_openspiel_does():
    """After a knock OpenSpiel shows the defender the knocker's melds, not the cards it kept out
    of them (meldmind shows those, as players do). Dealt otherwise among themselves and the
    stock's, with everything OpenSpiel shows the defender unchanged, those cards change nothing
    in the adapter's observation, so nothing in any level's choice."""
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.integrations import openspiel as adapter
    K = adapter.K
    game = pyspiel.load_game("gin_rummy")

    def play(history):
        state = game.new_initial_state()
        for action in history:
            state.apply_action(action)
        return state

    rng = random.Random(4)
    checked = 0
    for _ in range(60):
        state = _a_defender_laying_off(game, rng)
        if state is None:
            continue
        ours, known_before_showing = adapter._replay(state)
        defender, knocker = int(ours[K.S_CURRENT]), int(ours[K.S_KNOCKER])
        known = known_before_showing[knocker]
        stock = ours[K.S_STOCK:K.S_STOCK + ours[K.S_STOCK_SIZE]].tolist()
        unseen = [c for c in range(K.NUM_CARDS) if (ours[K.S_HAND + knocker] & ~known) >> c & 1]
        hidden = [adapter.to_openspiel_card(c) for c in unseen + stock]
        dealt = hidden[:]
        rng.shuffle(dealt)
        swap = dict(zip(hidden, dealt))
        other = [swap.get(step.action, step.action) if step.player == pyspiel.PlayerId.CHANCE
                 else step.action for step in state.full_history()]
        try:
            twin = play(other)
        except pyspiel.SpielError:      # the knock is illegal with the cards dealt otherwise
            continue
        if twin.information_state_string(defender) != state.information_state_string(defender):
            continue
        assert (adapter.meldmind_state(twin)[K.S_HAND + knocker]
                != ours[K.S_HAND + knocker]) or not unseen
        assert np.array_equal(adapter.observation_for(twin, defender),
                              adapter.observation_for(state, defender))
        checked += 1
    assert checked >= 5
