"""What the refusal of a gin observation says (docs/json-protocol.md), for observations written by
hand as an integrator's server writes them: it names the bad history entry or the rule a field
breaks, and prints only what the observing seat may know, never a card meldmind guessed for the
replay of the history (the cards it cannot see are made up for that replay).
"""
import copy
import importlib.resources
import json
import random
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

import meldmind
from meldmind import MeldmindError
from meldmind.games import gin
from meldmind.kernels import gin as K
from test_gin_history_errors import _game, _observation

DOC = (Path(__file__).resolve().parents[1] / "docs" / "json-protocol.md").read_text()
# the gin observation of the doc: seat 1 in its discard phase
EXAMPLE = next(block for block in map(json.loads, re.findall(r"```json\n(.*?)\n```", DOC, re.S))
               if isinstance(block, dict) and block.get("variant") == "gin")
CARD = re.compile(r"\b(?:[2-9]|10|[AJQK])[CDHS]\b")


def _refusal(d):
    with pytest.raises(MeldmindError) as refused:
        gin.observation_array(d)
    return str(refused.value).removeprefix("gin observation: ")


def _edited(edit):
    d = copy.deepcopy(EXAMPLE)
    edit(d)
    return d


def _unseen(state, seat, d):
    """The cards ``seat`` cannot see in ``state`` (the stock, the opponent's hidden cards) that
    the observation ``d`` does not name either."""
    hidden = int(state[K.S_HAND + 1 - seat]) & ~int(state[K.S_KNOWN + 1 - seat])
    stock = {int(c) for c in state[K.S_STOCK:K.S_STOCK + state[K.S_STOCK_SIZE]]}
    return (set(gin.mask_cards("gin", hidden)) | {gin.action_text(c).split()[1] for c in stock}) \
        - set(CARD.findall(json.dumps(d)))


# ---- the hands shown after a knock -------------------------------------------------------------

def _shows(game, states):
    """(history index, seat) of each pass that shows a hand: the knocker's after its melds, the
    defender's at game over."""
    return [(i, int(states[i][K.S_CURRENT])) for i in range(len(game.moves))
            if states[i + 1][K.S_DEADWOOD + states[i][K.S_CURRENT]] >= 0
            and states[i][K.S_DEADWOOD + states[i][K.S_CURRENT]] < 0]


def test_a_hand_shown_after_a_knock_is_asked_for_by_its_rule_never_with_guessed_cards():
    """The server sends the shown hand in known_cards and its total in deadwood: the history
    cannot tell it. Left out (known_cards keeping only the upcards that seat took), the refusal
    says so, for the knocker's hand and the defender's, instead of printing the cards the replay
    made up for it (which the integrator copied, and which were then accepted)."""
    seen = {"after a knock": 0, "at game over": 0}
    for seed in range(40):
        game, states = _game(seed)
        for i, shower in _shows(game, states):
            d = _observation(game, i + 1, 1 - shower)
            shown, total = d["known_cards"][shower], d["deadwood"][shower]
            assert len(shown) == d["hand_sizes"][shower] and total is not None
            bad = copy.deepcopy(d)
            bad["deadwood"][shower] = None      # the cards given, their total is public
            assert _refusal(bad).endswith(f"which gives deadwood {json.dumps(d['deadwood'])}")
            taken = gin.mask_cards("gin", int(states[i][K.S_KNOWN + shower]))
            if len(taken) == len(shown):        # it only held upcards it took: nothing unseen
                continue
            bad["known_cards"][shower] = taken
            message = _refusal(bad)
            knocker = shower == d["knocker"]
            when = "after a knock" if knocker else "at game over"
            whose = "the knocker's cards not laid in melds" if knocker else \
                "the defender's cards not laid in melds or laid off"
            assert message == (f"{when} 'known_cards[{shower}]' must hold {whose}, which it shows "
                               f"({len(shown)}: hand_sizes[{shower}]), not {len(taken)}, and "
                               f"'deadwood[{shower}]' their total")
            seen[when] += 1
    assert min(seen.values()) >= 5, seen


def test_no_refusal_prints_a_card_the_seat_cannot_see():
    """Random edits of real observations, most near the end of knocked games: whatever the
    refusal, no card in it is one the seat cannot see, unless the observation itself names it."""
    rng = random.Random(5)
    refused = 0
    for seed in range(60):
        game, states = _game(seed)
        shows = _shows(game, states)
        for _ in range(4):
            moves = rng.randrange(max(1, len(game.moves) - 8), len(game.moves) + 1)
            seat = rng.randrange(2)
            d, opp = _observation(game, moves, seat), 1 - seat
            bad = copy.deepcopy(d)
            edit = rng.choice(["seat", "card", "cut", "deadwood", "known"])
            if d["deadwood"][opp] is not None and rng.random() < 0.6:
                edit = "unshow"
            if edit == "unshow":
                shown_at = next(i for i, p in shows if p == opp)
                bad["known_cards"][opp] = gin.mask_cards("gin", int(states[shown_at][K.S_KNOWN + opp]))
                bad["deadwood"][opp] = None
            elif edit == "seat":
                entry = rng.choice(bad["history"])
                entry["seat"] ^= 1
                entry.pop("card", None)
            elif edit == "card" and any("card" in entry for entry in bad["history"]):
                rng.choice([entry for entry in bad["history"] if "card" in entry]).pop("card")
            elif edit == "cut":
                del bad["history"][rng.randrange(len(bad["history"])):]
            elif edit == "deadwood":
                bad["deadwood"] = [rng.choice([None, 0, 12]) for _ in range(2)]
            elif edit == "known" and bad["known_cards"][opp]:
                bad["known_cards"][opp].pop()
            if bad == d:
                continue
            unseen = _unseen(states[moves], seat, bad)
            message = _refusal(bad)
            assert not set(CARD.findall(message)) & unseen, (seed, moves, seat, edit, message)
            refused += 1
    assert refused > 150


# ---- history entries ---------------------------------------------------------------------------

@pytest.mark.parametrize("k", range(len(EXAMPLE["history"])))
def test_a_wrong_seat_anywhere_in_the_history_is_named(k):
    """Whose turn it is follows from the moves before: the first entry whose seat is wrong is
    named, in the middle of the history too (it used to give 'a deal that is not 10 cards
    each')."""
    def flip(d):
        d["history"][k]["seat"] ^= 1
        d["history"][k].pop("card", None)
    bad = _edited(flip)
    assert _refusal(bad) == f"'history[{k}]': seat {bad['history'][k]['seat']} moves out of turn"


def test_a_wrong_seat_is_named_through_knocks_and_lay_offs():
    """Random seats made wrong in random games (half of them knocking, half reaching the Wall),
    from both seats' observations: the refusal names that entry."""
    rng = random.Random(11)
    for seed in range(40):
        game, _ = _game(seed, knock=bool(seed % 2))
        for _ in range(4):
            d = _observation(game, rng.randrange(1, len(game.moves) + 1), rng.randrange(2))
            k = rng.randrange(len(d["history"]))
            d["history"][k]["seat"] ^= 1
            d["history"][k].pop("card", None)
            assert _refusal(d) == f"'history[{k}]': seat {d['history'][k]['seat']} moves out of turn"


def test_a_history_cut_short_or_too_long_says_where_it_leads():
    """It names the face-up fields that differ and the values the history gives them (public);
    the doc quotes the first."""
    cut = _refusal(_edited(lambda d: d["history"].pop()))
    assert cut == ("'history' does not lead to the given upcard, discard pile and stock size but "
                   "to upcard \"KS\"; discard_pile [\"JD\", \"10C\", \"9C\", \"9H\"]; stock_size 27")
    assert " ".join(cut.split()) in " ".join(DOC.split())
    assert _refusal(_edited(lambda d: d["history"].append({"seat": 1, "move": "discard 4C"}))) == (
        "'history' does not lead to the given upcard, discard pile and stock size but to upcard \"4C\"")
    assert _refusal(_edited(lambda d: d["history"].clear())) == (
        "'history' does not lead to the given upcard, discard pile and stock size but to "
        "upcard \"JD\"; discard_pile []; stock_size 31")


def test_a_discard_of_a_card_face_up_is_named_whoever_puts_it_down():
    """The opponent's discard made 9C, which the seat itself discards later: the public replay
    would put 9C in the pile twice, and the refusal names the later move, not the pile. So for
    the first upcard, discarded by a seat that never took it, and for the opponent's repeat."""
    def opponent_discards(card):
        return lambda d: d["history"].__setitem__(3, {"seat": 0, "move": f"discard {card}"})
    assert _refusal(_edited(opponent_discards("9C"))) == (
        "'history[5]' (discard 9C) is illegal there for seat 1: 9C is already in the discard pile")
    assert _refusal(_edited(opponent_discards("JD"))) == (
        "'history[3]' (discard JD) is illegal there for seat 0: JD is already in the discard pile")
    repeat = _edited(lambda d: d["history"].__setitem__(7, {"seat": 0, "move": "discard 10C"}))
    assert _refusal(repeat) == ("'history[7]' (discard 10C) is illegal there for seat 0: 10C is "
                                "already in the discard pile")


@pytest.mark.parametrize("k", [4, 8, 12])
def test_the_seats_own_stock_draw_without_its_card_is_named(k):
    """Not the whole history, with a card guessed for the draw (it used to print both)."""
    assert _refusal(_edited(lambda d: d["history"][k].pop("card"))) == (
        f"'history[{k}]' (draw stock) lacks its 'card': the seat's own stock draws show the card drawn")


# ---- fields ------------------------------------------------------------------------------------

def test_a_card_in_two_zones_is_named_with_both():
    assert _refusal(_edited(lambda d: d["discard_pile"].__setitem__(1, "4C"))) == \
        "4C is in two zones, 'hand' and 'discard_pile'"
    assert _refusal(_edited(lambda d: d["known_cards"].__setitem__(0, ["8D", "KS"]))) == \
        "KS is in two zones, 'known_cards[0]' and 'discard_pile'"


def test_a_card_twice_in_one_zone_is_named_with_the_zone():
    def repeat_first(d, key):
        d[key].append(d[key][0])
    assert _refusal(_edited(lambda d: repeat_first(d, "discard_pile"))).startswith(
        "'discard_pile': duplicate card 'JD'")
    assert _refusal(_edited(lambda d: d.update(layoffs=["2C", "2C"]))).startswith(
        "'layoffs': duplicate card '2C'")


def test_end_says_what_it_must_be_in_the_phase_given():
    assert _refusal(_edited(lambda d: d.update(end="knock"))) == \
        "'end' must be null before the game is over (phase \"discard\"), not \"knock\""
    over = _edited(lambda d: d.update(phase="game_over", to_move=None))
    assert _refusal(over) == \
        "'end' must be one of knock, wall, upcard_limit, repeated_move at game over, not null"


# ---- the doc -----------------------------------------------------------------------------------

def test_the_docs_schema_example_validates_observations_with_legal_moves():
    """The doc's Python block: move.json registered under the name the $ref resolves to."""
    code = re.search(r"```python\n(.*?)```", DOC, re.S).group(1)
    for variant in ("gin", "cardverse"):
        game = meldmind.new_game(variant, seed=21)
        observation = game.observation(game.to_move)
        assert observation["legal_moves"]
        exec(code.replace("observation-gin", f"observation-{variant}"),
             {"json": json, "importlib": importlib, "Draft202012Validator": Draft202012Validator,
              "Registry": Registry, "Resource": Resource, "observation": observation})


def test_a_knock_phase_observation_with_a_wrong_upcard_or_a_repeated_draw_is_refused():
    """The history's replay once asked the kernel's knock count about a made-up hand of the
    wrong size, and its ValueError escaped: a wrong first upcard at a knock, or a draw written
    twice, is an observation to refuse with a MeldmindError."""
    refused = 0
    for seed in range(12):
        game = meldmind.new_game("gin", seed=seed)
        while not game.is_over:
            obs = game.observation(game.to_move)
            edits = [{**obs, "first_upcard": card} for card in ("2C", "KD")
                     if card != obs["first_upcard"]]
            for i, entry in enumerate(obs["history"]):
                if entry["move"] == "draw upcard":
                    edits.append({**obs, "history": obs["history"][:i + 1] + obs["history"][i:]})
            for edited in edits:
                edited.pop("legal_moves", None)
                try:
                    gin.observation_array(edited)
                except MeldmindError:
                    refused += 1
            game.play(meldmind.suggest(obs, level="normal", seed=0).move)
    assert refused > 0


def test_history_move_texts_are_read_as_game_play_reads_them():
    """Any run of whitespace between the words, and any case: the same observation."""
    game = meldmind.new_game("gin", seed=5)
    while len(game.observation(game.to_move)["history"]) < 6:
        game.play(meldmind.suggest(game.observation(game.to_move), level="normal", seed=0).move)
    obs = game.observation(game.to_move)
    spaced = copy.deepcopy(obs)
    for entry in spaced["history"]:
        entry["move"] = "\t" + entry["move"].upper().replace(" ", " \t ") + "  "
    assert any(" " in entry["move"] for entry in obs["history"])
    assert (gin.observation_array(spaced) == gin.observation_array(obs)).all()
