"""The OpenSpiel adapter's moves, what the arena hands each game, where its batches go, what it
shows, and the seeds behind both, at the points a mutation audit of openspiel.py, tournament.py,
kernels/rng.py and ``derived_seed`` found unpinned: each story fails on one planted bug that the
rest of the suite let through."""
import collections
import random
import sys

import numpy as np
import pytest

import meldmind
from meldmind import tournament
from meldmind.ai import derived_seed
from meldmind.game import game_module
from meldmind.games import gin
from meldmind.kernels import levels
from meldmind.kernels.rng import seed_slot, shuffle
from meldmind.tournament import ArenaResult, ai_seed_of, deal_seed_of, format_table
from test_ai_api import _a_defender_laying_off
from test_arena_backends import _figures
from test_seeds import _Recording

GIN = gin.KERNEL


# -- the OpenSpiel bot ------------------------------------------------------------------------

def test_the_openspiel_bot_decides_at_its_level_with_its_iterations_and_a_seed_per_move(
        monkeypatch):
    """MeldmindBot's docstring: level and iterations are suggest's, and "seed seeds every move's
    search (each move from the seed and the length of the game's history)". Each bot decides
    from its own player's view; its answer is the OpenSpiel id of the level's move."""
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.integrations import openspiel as adapter
    asked = []
    real_decide = adapter.decide

    def recording(variant, level, obs, **settings):
        decision = real_decide(variant, level, obs, **settings)
        asked.append((level, obs.copy(), settings, decision))
        return decision

    monkeypatch.setattr(adapter, "decide", recording)
    bots = [adapter.MeldmindBot(0, level="beginner", seed=11),
            adapter.MeldmindBot(1, level="expert", iterations=3, seed=12)]
    expected = [("beginner", None, 11), ("expert", 3, 12)]
    seeds = collections.defaultdict(list)
    rng = random.Random(5)
    state = pyspiel.load_game("gin_rummy").new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        player = state.current_player()
        action = bots[player].step(state)
        level, obs, settings, decision = asked[-1]
        name, iterations, seed = expected[player]
        assert (level, settings["iterations"], settings["budget_ms"]) == (name, iterations, None)
        assert obs[GIN.O_SEAT] == player
        assert settings["seed"] == derived_seed(seed, "move", len(state.history()))
        assert action == adapter.to_openspiel_action(decision.action)
        assert action in state.legal_actions()
        seeds[player].append(settings["seed"])
        state.apply_action(action)
    assert all(len(set(s)) == len(s) > 3 for s in seeds.values())


def _taken_face_up(game, state, player):
    """The cards ``player`` took face up (upcards it drew, or knocked with at the Wall), worked
    out from OpenSpiel's history alone, as meldmind cards."""
    from meldmind.integrations import openspiel as adapter
    face_up = {adapter.to_openspiel_action(GIN.DRAW_UPCARD), adapter.to_openspiel_action(GIN.KNOCK)}
    taken, replay = 0, game.new_initial_state()
    for step in state.full_history():
        upcard = replay.upcard()
        if step.player == player and step.action in face_up and upcard is not None:
            taken |= 1 << adapter.from_openspiel_card(upcard)
        replay.apply_action(step.action)
    return taken


def test_while_the_defender_lays_off_it_sees_only_the_knockers_cards_taken_face_up():
    """OpenSpiel shows the defender the knocker's melds, not the cards kept out of them: of
    those, the adapter's observation shows only the ones the knocker took face up (the upcards
    it drew, or knocked with at the Wall), worked out here from OpenSpiel's history alone."""
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.integrations import openspiel as adapter
    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(8)
    checked = kept_hidden = 0
    for _ in range(100):
        state = _a_defender_laying_off(game, rng)
        if state is None:
            continue
        knocker = int(adapter.meldmind_state(state)[GIN.S_KNOCKER])
        obs = adapter.observation_for(state, 1 - knocker)
        shown = int(obs[GIN.O_KNOWN + knocker])
        assert shown & ~_taken_face_up(game, state, knocker) == 0
        checked += 1
        kept_hidden += int(obs[GIN.O_HAND_SIZES + knocker]) > bin(shown).count("1")
    assert checked >= 5 and kept_hidden >= 3


def test_at_the_end_of_a_knocked_hand_each_player_sees_only_the_others_cards_taken_face_up():
    """OpenSpiel never shows a player the cards the other kept out of its melds, not even once
    the hand is scored, where meldmind shows both hands: the adapter's observation at game over
    shows of the other player only the cards it took face up, and not its deadwood."""
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.integrations import openspiel as adapter
    game = pyspiel.load_game("gin_rummy")
    knock = adapter.to_openspiel_action(GIN.KNOCK)
    rng = random.Random(9)
    checked = kept_hidden = 0
    for _ in range(100):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                legal = state.legal_actions()
                state.apply_action(knock if knock in legal else rng.choice(legal))
        ours = adapter.meldmind_state(state)
        if ours[GIN.S_END] != GIN.END_KNOCK:
            continue
        for player in (0, 1):
            other = 1 - player
            obs = adapter.observation_for(state, player)
            shown = int(obs[GIN.O_KNOWN + other])
            assert shown & ~_taken_face_up(game, state, other) == 0
            assert obs[GIN.O_DEADWOOD + other] == -1 and obs[GIN.O_DEADWOOD + player] >= 0
            assert obs[GIN.O_HAND] == ours[GIN.S_HAND + player]
            checked += 1
            kept_hidden += int(ours[GIN.S_HAND + other]) != shown
    assert checked >= 20 and kept_hidden >= 10


# -- what the arena hands each game -------------------------------------------------------------

def test_the_arena_plays_every_deal_under_its_options_with_its_iterations_and_a_seed_per_seat(
        monkeypatch):
    """Cardverse with a target score of 20, expert against normal at 2 iterations, 10 deals (two
    batches): every game starts from its deal under those options, in the order deal by deal, A
    in seat 0 then seat 1, each search gets the iterations asked for, and the two games of a
    deal get different AI seeds, ``ai_seed_of(seed, deal, A's seat)``."""
    handed = []
    real_module = tournament.ai_module

    def note(state, levels, counts, seed, progress, per_call):
        return (state.copy(), levels.tolist(), counts.tolist(), int(seed), int(progress[0]),
                per_call)

    monkeypatch.setattr(tournament, "ai_module",
                        lambda v: _Recording(real_module(v), "play_out", note, handed))
    options = {"target_score": 20}
    result = meldmind.arena("cardverse", "expert", "normal", deals=10, seed=4, processes=1,
                            iterations=2, options=options, progress=False)
    # a search's games go one move a call (Ctrl-C is seen between calls): each game's first
    # call is the one with no move played yet
    assert all(per_call == 1 for *_, per_call in handed)
    handed = [call[:4] for call in handed if call[4] == 0]
    assert result.games == 20 and len(handed) == 20
    module = game_module("cardverse")
    params = module.make_params(options)
    expert, normal = (levels.NAMES.index(n) for n in ("expert", "normal"))
    for game, (state, seat_levels, counts, ai_seed) in enumerate(handed):
        deal, a = divmod(game, 2)
        dealt = module.KERNEL.new_state(params, np.int64(deal_seed_of(4, deal)))
        assert np.array_equal(state, dealt), (deal, a)
        assert seat_levels == ([expert, normal] if a == 0 else [normal, expert])
        assert counts == [2, 2]
        assert ai_seed == ai_seed_of(4, deal, a)
    assert len({seed for *_, seed in handed}) == 20


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_a_game_played_a_move_a_call_is_the_game_played_in_one_call(variant):
    """The arena plays a search's games one move per kernel call, so that Ctrl-C stops it within
    a move: beginner (which draws from the game's random stream) against expert, over five deals,
    each game ends exactly as ``play_out`` to the end plays it, and its moves add up."""
    module = game_module(variant)
    kernel, ai = module.KERNEL, tournament.ai_module(variant)
    params = module.make_params({})
    seat_levels = np.array([levels.NAMES.index("beginner"), levels.NAMES.index("expert")])
    counts = np.array([4, 4])
    for deal in range(5):
        ai_seed = np.int64(100 + deal)
        whole = kernel.new_state(params, np.int64(deal))
        moves = ai.play_out(whole, seat_levels, counts, ai_seed, ai.new_progress(ai_seed), -1)
        stepped = kernel.new_state(params, np.int64(deal))
        progress, calls = ai.new_progress(ai_seed), 0
        while not kernel.is_terminal(stepped):
            assert ai.play_out(stepped, seat_levels, counts, ai_seed, progress, 1) == 1
            calls += 1
        assert kernel.is_terminal(whole) and np.array_equal(stepped, whole), deal
        assert calls == moves > 10


def _recorded_decisions(monkeypatch):
    """``tournament.decide`` and ``tournament._play`` recorded: ("game", its AI seed, its seats)
    as each game starts, then (level, observation, settings) for each decision."""
    calls = []
    real_decide, real_play = tournament.decide, tournament._play

    def decide(variant, level, obs, **settings):
        calls.append((level, obs.copy(), settings))
        return real_decide(variant, level, obs, **settings)

    def play(variant, options, deal_seed, seat_levels, iterations, budget_ms, ai_seed):
        calls.append(("game", ai_seed, tuple(seat_levels)))
        return real_play(variant, options, deal_seed, seat_levels, iterations, budget_ms, ai_seed)

    monkeypatch.setattr(tournament, "decide", decide)
    monkeypatch.setattr(tournament, "_play", play)
    return calls


def test_under_a_budget_each_move_is_searched_on_time_from_the_movers_view(monkeypatch):
    """With ``budget_ms`` and a search level, the games go move by move: every decision, the
    search level's and the other's, gets the budget, the observation of the seat to move, that
    seat's level, and a seed of its own (the game's AI seed and the move's number)."""
    calls = _recorded_decisions(monkeypatch)
    result = meldmind.arena("gin", "expert", "beginner", deals=1, seed=6, processes=1,
                            budget_ms=1, progress=False)
    assert result.games == 2 and result.budget_ms == 1.0
    games = [i for i, call in enumerate(calls) if call[0] == "game"]
    assert len(games) == 2
    for start, end, a in ((games[0], games[1], 0), (games[1], len(calls), 1)):
        _, ai_seed, seats = calls[start]
        assert ai_seed == ai_seed_of(6, 0, a)
        moves = calls[start + 1:end]
        for step, (level, obs, settings) in enumerate(moves):
            seat = int(obs[GIN.O_SEAT])
            assert obs[GIN.O_CURRENT] == seat and level == seats[seat]
            assert settings == {"seed": derived_seed(ai_seed, "move", step), "iterations": None,
                                "budget_ms": 1.0}
        # the game's length depends on what each 1 ms search reached; both seats moved in it
        assert {level for level, _, _ in moves} == {"expert", "beginner"}


def test_every_deal_across_the_batch_boundaries_is_played_once_from_each_seat(monkeypatch):
    """17 deals are three batches (8, 8, 1): the games are those of deals 0..16, each twice,
    A in seat 0 then seat 1, none dropped or repeated; and the progress bar counts deals."""
    calls = _recorded_decisions(monkeypatch)
    bars = []

    class Bar:
        def __init__(self, total, label, enabled):
            self.total, self.updates, self.closed = total, [], False
            bars.append(self)

        def update(self, n):
            self.updates.append(n)

        def close(self):
            self.closed = True

    monkeypatch.setattr(tournament, "progress_bar", Bar)
    result = meldmind.arena("gin", "beginner", "easy", deals=17, seed=2, processes=1,
                            progress=False)
    assert result.games == 34
    played = [(seed, seats) for kind, seed, seats in calls if kind == "game"]
    assert played == [(ai_seed_of(2, d, a), seats) for d in range(17)
                      for a, seats in ((0, ("beginner", "easy")), (1, ("easy", "beginner")))]
    [bar] = bars
    assert (bar.total, sum(bar.updates), sorted(bar.updates), bar.closed) == (17, 17, [1, 8, 8],
                                                                              True)


class _Ref:
    def __init__(self, function, args):
        self.function, self.args = function, args


class _FakeRay:
    """Enough of Ray for the arena: tasks run when their result is fetched; it tracks how many
    were under way at once."""

    def __init__(self):
        self.under_way, self.most = set(), 0

    def is_initialized(self):
        return True

    def remote(self, num_cpus):
        fake = self

        class Task:
            def __init__(self, function):
                self.function = function

            def remote(self, *args):
                ref = _Ref(self.function, args)
                fake.under_way.add(ref)
                fake.most = max(fake.most, len(fake.under_way))
                return ref
        return Task

    def wait(self, refs, num_returns):
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref):
        self.under_way.discard(ref)
        return ref.function(*ref.args)


def test_the_ray_backend_keeps_at_most_processes_tasks_under_way(monkeypatch):
    """``backend="ray"``: "at most ``processes`` tasks at a time"; the result is the local one,
    and says it ran on Ray."""
    fake = _FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setattr(tournament, "_single_thread_worker", lambda: None)   # this process
    on_ray = meldmind.arena("gin", "normal", "easy", deals=20, seed=3, processes=2,
                            progress=False, backend="ray")
    here = meldmind.arena("gin", "normal", "easy", deals=20, seed=3, processes=1,
                          progress=False, backend="processes")
    assert fake.most == 2 and not fake.under_way
    assert (on_ray.backend, here.backend) == ("ray", "processes")
    assert _figures(on_ray) == _figures(here) and on_ray.games == 40


# -- the results table --------------------------------------------------------------------------

def test_the_table_shows_each_figure_in_its_own_column():
    result = ArenaResult("gin", "expert", "normal", deals=4, seed=0, options={}, iterations=None,
                         budget_ms=None, backend="processes", games=8, wins_a=5, wins_b=1,
                         draws=2, win_rate=5 / 6, ci95=(0.436497, 0.969947),
                         mean_score_diff=42.5, elo_diff=279.588, seconds=1.5)
    header, rule, row = format_table([result]).splitlines()
    assert row.split() == ["gin", "expert", "normal", "4", "8", "5", "1", "2", "83.3%", "43.6%",
                           "–", "97.0%", "+42.50", "+280", "1.5s"]
    for title in ("A wins", "B wins", "draws", "Elo"):       # each figure under its title
        start = header.index(title)
        assert row[start] != " " and (start == 0 or row[start - 1] == " ")
    assert set(rule) == {"-", " "} and len(rule) >= len(row.rstrip()) - 1


# -- seeds ------------------------------------------------------------------------------------

def test_every_part_of_a_seeds_path_names_it():
    """derived_seed: "the path is read as text, its parts joined by ':' ... distinct texts give
    unrelated seeds": the words of a path count (a deal's seed is no AI's), and where one part
    ends does too."""
    assert deal_seed_of(5, 3) != derived_seed(5, "ai", 3) != derived_seed(5, "move", 3)
    assert derived_seed(5, "deal", 3) == deal_seed_of(5, 3) == derived_seed(5, "deal", "3")
    assert derived_seed(1, 23) != derived_seed(12, 3)
    assert derived_seed(0, "ab", "c") != derived_seed(0, "a", "bc")
    assert ai_seed_of(0, 1, 1) != ai_seed_of(0, 11, 0) != ai_seed_of(0, 1, 10)


def _orders(count, seeds):
    seen = collections.Counter()
    for seed in range(seeds):
        state = np.zeros(1, np.int64)
        seed_slot(state, 0, np.int64(seed))
        items = np.arange(count, dtype=np.int64)
        shuffle(state, 0, items, count)
        seen[tuple(items.tolist())] += 1
    return seen


def test_the_shuffle_reaches_every_order_about_equally_often():
    """Fisher-Yates down to the first two items: two cards come out in both orders, three in all
    six (600 seeds: each order 100 times expected, at least 60 seen)."""
    assert set(_orders(2, 100)) == {(0, 1), (1, 0)}
    three = _orders(3, 600)
    assert len(three) == 6 and min(three.values()) >= 60


def test_seat_splits_pair_every_split_with_its_mirror():
    """With 2, 3 and 4 seats: every way of giving A some seats and B the rest, A and B each
    holding at least one, once each, and each split's mirror (the seats swapped) among them."""
    for num_players, count in ((2, 2), (3, 6), (4, 14)):
        splits = tournament.seat_splits(num_players)
        assert len(splits) == len(set(splits)) == count
        seats = set(range(num_players))
        for a_seats in splits:
            assert 0 < len(a_seats) < num_players and set(a_seats) <= seats
            assert tuple(sorted(seats - set(a_seats))) in splits


@pytest.mark.parametrize("num_players", [3, 4])
def test_with_more_seats_every_deal_is_played_under_every_split(monkeypatch, num_players):
    """CardVerse with 3 or 4 seats, over 3 deals: the games are those of every deal under every
    split of the seats (A's levels in A's seats), each seeded by its deal and A's seats; a game
    is A's when one of A's seats wins it; the score difference is the mean score of A's seats
    minus that of B's."""
    calls = _recorded_decisions(monkeypatch)
    outcomes = []
    real_play = tournament._play

    def play(*args):
        returns, scores = real_play(*args)
        outcomes.append((args[3], returns, scores))
        return returns, scores

    monkeypatch.setattr(tournament, "_play", play)
    options = {"num_players": num_players, "target_score": 30}
    result = meldmind.arena("cardverse", "easy", "normal", deals=3, seed=8, processes=1,
                            options=options, progress=False)
    splits = tournament.seat_splits(num_players)
    assert result.games == 3 * len(splits) == len(outcomes)
    played = [(seed, seats) for kind, seed, seats in calls if kind == "game"]
    assert played == [(ai_seed_of(8, d, *a_seats),
                       tuple("easy" if s in a_seats else "normal" for s in range(num_players)))
                      for d in range(3) for a_seats in splits]
    winners = [returns.index(1.0) for _, returns, _ in outcomes]
    wins_a = sum(seats[w] == "easy" for w, (seats, _, _) in zip(winners, outcomes))
    assert 0 < wins_a < result.games
    assert (result.wins_a, result.wins_b, result.draws) == (wins_a, result.games - wins_a, 0)
    score_diffs = [np.mean([sc for s, sc in enumerate(scores) if seats[s] == "easy"])
                   - np.mean([sc for s, sc in enumerate(scores) if seats[s] == "normal"])
                   for seats, _, scores in outcomes]
    assert result.mean_score_diff == pytest.approx(np.mean(score_diffs))
    assert len({seed for seed, _ in played}) == len(played)


@pytest.mark.parametrize("num_players", [3, 4])
def test_with_more_seats_equal_levels_win_alike(num_players):
    """Normal against itself: normal plays no random move, so every game and its mirror end
    alike, and each side wins exactly half the games with no score difference."""
    result = meldmind.arena("cardverse", "normal", "normal", deals=5, seed=1, processes=1,
                            options={"num_players": num_players}, progress=False)
    assert result.wins_a == result.wins_b == result.games // 2 > 0
    assert result.win_rate == 0.5 and result.mean_score_diff == pytest.approx(0.0, abs=1e-9)
