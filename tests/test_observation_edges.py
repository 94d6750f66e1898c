"""The observation reader at its edges, from a mutation audit of games/gin.py, games/cardverse.py
and games/fields.py: each story below failed on a planted bug that the rest of the suite let
through. A server builds the observation it sends to ``meldmind.suggest``; a bad one is refused
with a ``MeldmindError`` naming the field (docs/json-protocol.md), and every valid one is read."""
import copy

import pytest

import meldmind
from meldmind import MeldmindError
from meldmind.games import cardverse as CV
from meldmind.games import gin
from test_bad_input import _observation
from test_gin_history_errors import _game, _observation as _history_observation
from test_cardverse_observation_checks import START, _edit, _find, _refused


def _gin_refusal(d):
    with pytest.raises(MeldmindError) as refused:
        gin.observation_array(d)
    return str(refused.value)


# ---- fields.py: lists of one entry per seat ------------------------------------------------

@pytest.mark.parametrize("field", ["hand_sizes", "known_cards", "passed_first_upcard", "deadwood",
                                   "melds"])
def test_a_gin_per_seat_field_with_a_third_entry_is_refused_naming_it(field):
    d = _observation("gin")
    d[field] = d[field] + [d[field][0]]
    assert f"'{field}' must be a list of 2 entries (one per seat)" in _gin_refusal(d)


@pytest.mark.parametrize("field", ["hand_sizes", "scores"])
def test_a_cardverse_per_seat_list_longer_than_num_players_is_refused_naming_it(field):
    d = _observation("cardverse")
    assert d["options"]["num_players"] == len(d[field]) == 2
    with pytest.raises(MeldmindError, match=f"'{field}' must be a list of 2 integers"):
        CV.observation_array(_edit(d, **{field: d[field] + [d[field][0]]}))


# ---- gin.py ----------------------------------------------------------------------------------

def test_a_gin_observation_whose_own_known_cards_leave_its_hand_is_refused_by_that_rule():
    """known_cards[seat] lists upcards the seat took and still holds: a card outside its hand is
    refused by that rule, not blamed on the history."""
    d = _observation("gin")
    seat = d["seat"]
    d["known_cards"][seat] = [next(c for c in ("2C", "3C") if c not in d["hand"])]
    assert _gin_refusal(d) == (f"gin observation: known_cards[{seat}] must be cards of the seat's "
                               "own hand")


def test_a_gin_history_entry_with_a_bad_seat_is_refused_naming_its_seat():
    d = _observation("gin")
    d["history"] = [{"seat": 2, "move": "pass"}]
    assert _gin_refusal(d) == ("gin observation: 'history[0].seat' must be an integer from 0 to 1, "
                               "not 2")


def _gin_after_both_passed(seat):
    """Seed 3 after both seats passed the first upcard and seat 0 drew from the stock."""
    game = meldmind.new_game("gin", seed=3)
    for move in ("pass", "pass", "draw stock"):
        game.play(move)
    d = game.observation(seat)
    d.pop("legal_moves", None)
    return d


def test_an_opponents_stock_draw_that_shows_a_card_is_refused_by_that_rule():
    d = _gin_after_both_passed(1)
    assert d["history"][2] == {"seat": 0, "move": "draw stock"}
    d["history"][2]["card"] = next(c for c in ("2C", "3C") if c not in d["hand"])
    assert _gin_refusal(d) == ("gin observation: 'history[2]': only the seat's own stock draws "
                               "show a card")


def test_a_gin_meld_sharing_a_card_with_another_is_refused_naming_the_meld_not_the_history():
    ends = (_history_observation(game, len(game.moves), 0) for game, _ in map(_game, range(20)))
    d = next(d for d in ends if any(d["melds"]))
    p = next(p for p in range(2) if d["melds"][p])
    i = len(d["melds"][p])
    d["melds"][p].append(list(d["melds"][p][0]))
    assert _gin_refusal(d) == (f"gin observation: 'melds[{p}][{i}]' repeats a card laid in another "
                               "meld")


# ---- cardverse.py ----------------------------------------------------------------------------

def test_a_cardverse_hand_on_at_turn_max_turns_is_refused_naming_turn():
    """The hand ends when its max_turns-th turn is complete, so a hand still on is at most at
    turn max_turns - 1; the same observation under a cap one higher is read."""
    mid = _find(lambda o: o["turn"] >= 3 and o["phase"] == "play")
    turn = mid["turn"]
    CV.observation_array(_edit(mid, options={**mid["options"], "max_turns": turn + 1}))
    with pytest.raises(MeldmindError, match=f"'turn' must be an integer from 0 to {turn - 1}, "
                                            f"not {turn}"):
        CV.observation_array(_edit(mid, options={**mid["options"], "max_turns": turn}))


def _emptied_hand(obs):
    """``obs`` (seat 0 to draw, two seats) with seat 1's hand emptied onto the table as one run of
    cards seat 0 cannot see, so that the cards still add up; None if no such run is left."""
    if obs["taken_from_discard"][1]:
        return None
    size, seen = obs["hand_sizes"][1], set(obs["hand"] + obs["discard_pile"])
    seen |= {card for meld in obs["table"] for card in meld["cards"]}
    ranks = "2 3 4 5 6 7 8 9 10 J Q K".split()
    for suit in "CDHS":
        for low in range(len(ranks) - size + 1):
            run = [rank + suit for rank in ranks[low:low + size]]
            if not set(run) & seen:
                table = obs["table"] + [{"slot": len(obs["table"]), "kind": "run", "cards": run}]
                return _edit(obs, hand_sizes=[obs["hand_sizes"][0], 0], table=table)
    return None


def test_a_cardverse_seat_with_no_card_while_the_hand_is_on_is_refused_naming_it():
    """A seat that empties its hand goes out and ends the hand: while it is on, a seat that has
    played holds at least one card, even when the cards add up (its last ones laid)."""
    obs = _find(lambda o: len(o["hand_sizes"]) == 2 and o["phase"] == "draw" and o["to_move"] == 0
                and o["turn"] >= 2 and 3 <= o["hand_sizes"][1] and _emptied_hand(o) is not None)
    _refused(_emptied_hand(obs), "hand_sizes[1]")


def test_a_cardverse_seat_that_has_not_played_holds_the_cards_dealt():
    """Cards reach the table only from the seat whose turn it is: at turn 0, in the draw
    phase, seat 1 has laid nothing, so it holds its 7 cards, even when a group on the table
    makes the cards add up."""
    group = ["5C", "5D", "5S"]
    assert not set(group) & set(START["hand"] + START["discard_pile"])
    _refused(_edit(START, hand_sizes=[7, 4], table=[{"slot": 0, "kind": "group", "cards": group}]),
             "hand_sizes[1]")


def test_a_cardverse_discard_more_than_the_turns_allow_is_refused_even_when_taken_at_once():
    """Each completed turn ends with one discard: after two turns seat 0 has discarded once. One
    more discard that seat 1 took at once (in its 'taken' and its hand) keeps the pile's count
    and every card in sight, and is still refused by the count of seat 0's discards."""
    obs = _find(lambda o: len(o["hand_sizes"]) == 2 and o["hand_number"] == 1 and o["turn"] == 2
                and o["phase"] == "draw" and o["seat"] == 0 and not any(o["hand_history"]["taken"]))
    extra = next(c for c in ("2C", "3C", "4C", "5C") if c not in obs["hand"] + obs["discard_pile"])
    history = copy.deepcopy(obs["hand_history"])
    history["discarded"][0].append(extra)
    history["taken"][1].append(extra)
    _refused(_edit(obs, hand_history=history, taken_from_discard=[[], [extra]]),
             "hand_history.discarded[0]")


def test_a_cardverse_table_meld_of_the_wrong_kind_is_refused_naming_it():
    """A group sent as a 'run', or a run as a 'group', is refused: the kind decides where a
    lay-off may go (RULES.md §4.5)."""
    for kind, other in (("group", "run"), ("run", "group")):
        obs = _find(lambda o: any(meld["kind"] == kind for meld in o["table"]))
        slot = next(meld["slot"] for meld in obs["table"] if meld["kind"] == kind)
        table = copy.deepcopy(obs["table"])
        table[slot]["kind"] = other
        _refused(_edit(obs, table=table), f"table[{slot}]")


def _thrown(obs):
    return {card for cards in obs["hand_history"]["discarded"] for card in cards}


def test_a_cardverse_pile_card_above_the_bottom_that_no_seat_discarded_is_refused_at_game_over():
    """Only the upcard, at the bottom, enters the pile without a discard: with the upcard moved
    up one place the pile is refused, even once the game is over (where the turns are not
    checked)."""
    over = _find(lambda o: len(o["discard_pile"]) >= 2 and o["discard_pile"][0] not in _thrown(o),
                 over=True)
    CV.observation_array(over)
    pile = over["discard_pile"]
    with pytest.raises(MeldmindError, match="every discard pile card above the bottom one must be "
                                            "in 'hand_history.discarded'"):
        CV.observation_array(_edit(over, discard_pile=[pile[1], pile[0]] + pile[2:]))


def test_a_cardverse_last_hand_without_its_end_is_refused_naming_last_hand():
    later = _find(lambda o: o["hand_number"] == 2 and len(o["hand_sizes"]) == 2)
    _refused(_edit(later, last_hand={**later["last_hand"], "end": None}), "last_hand")
