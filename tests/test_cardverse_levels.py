"""CardVerse (RULES.md §4.9, §6): stories of the levels' choices and of the search's samples,
each worked out by hand.

Positions are dealt with test_cardverse_rules.build; hands are drawn in comments. Normal's
discard score (§4.9) is worked out by hand in the comments as ``value - 8 [partial] - 6
feed_risk``; hand values (§4.1): A 1, 2-10 face, J Q K 10.
"""
import numpy as np
import pytest

from meldmind.games import cardverse as CV
from meldmind.kernels import ai_cardverse as AI
from meldmind.kernels import cardverse as K
from meldmind.kernels.levels import EASY, EXPERT, MASTER, NORMAL
from test_ai_cardverse import heuristic
from test_cardverse_rules import build, ids, legal, obs_of, play


def advice(state, level):
    """The move text ``level`` (a heuristic level) chooses for the seat to act."""
    return CV.action_text(int(heuristic(state, level)))


# ---------------------------------------------------------------------------------------------
# Normal's DISCARD: value(c) - 8 [c in a partial meld] - 6 feed_risk(c)
# ---------------------------------------------------------------------------------------------

# seat 0 after drawing 3C, no meld and no partial meld (ranks differ; same-suit cards are 3+
# apart): 9D 7C 2H 6H 4S AC 5D 3C
SEAT0 = "9D 7C 2H 6H 4S AC 5D 3C"


def test_normal_weighs_feeding_a_known_pickup_at_six_points_per_unit_of_risk():
    """§4.9 Normal: "DISCARD: argmax of value(c) − 8·[c in a partial meld] − 6·feed_risk(c)";
    feed_risk = 0.5 "if c is a partial-meld partner of a card the next player took from the
    discard"."""
    # hand 2: seat 1 plays first, takes the upcard 9H (and keeps it), discards KS
    state = build(["9D 7C 2H 6H 4S AC 5D", "KS QC QD JH 10S 8S 2C"], stock="3C", discard="9H",
                  hand_no=2)
    play(state, "take discard", "discard KS", "draw stock")
    assert K.current_player(state) == 0 and state[K.S_HAND] == sum(1 << c for c in ids(SEAT0))
    # 9D: 9 - 6 * 0.5 (9D 9H: a partner of seat 1's pickup) = 6
    # 7C: 7 - 0 = 7  <- the argmax;  6H: 6, 5D: 5, ...
    assert advice(state, NORMAL) == "discard 7C"
    # control: seat 1 draws from the stock instead, so it is known to hold nothing, and 9D (9)
    # is the argmax
    state = build(["9D 7C 2H 6H 4S AC 5D", "KS QC QD JH 10S 8S 2C"], stock="JD 3C",
                  discard="9H", hand_no=2)
    play(state, "draw stock", "discard JD", "draw stock")
    assert state[K.S_HAND] == sum(1 << c for c in ids(SEAT0))
    assert advice(state, NORMAL) == "discard 9D"


# seat 0 (three players) after drawing 6S: partial melds KC KD (KH KS live) and QH QS (QC QD
# live); singles 9D 8C 2S 3H 5C 4D 6S
SEAT0_OF_3 = "9D 8C KC KD QH QS 2S 3H 5C 4D"
SEAT1_OF_3 = "2C 3C 4C 6C 7C 2D 3D 5D 6D 7D"
SEAT2_OF_3 = "9C 10C JC 8D 10D JD 4H 5H 6H 7H"


def test_feed_risk_looks_at_the_next_player_not_the_previous_one():
    """§4.9: feed_risk(c) is 0.5 "if c is a partial-meld partner of a card the *next* player took
    from the discard". With three players the previous player's pickup is no risk."""
    # hand 3: seat 2 plays first and takes the upcard 9H; seat 0 plays next, and its next
    # player is seat 1, who has taken nothing
    state = build([SEAT0_OF_3, SEAT1_OF_3, SEAT2_OF_3], stock="6S", discard="9H", hand_no=3)
    play(state, "take discard", "discard JC", "draw stock")
    assert K.current_player(state) == 0
    # 9D: 9 - 0 = 9  <- the argmax;  8C: 8;  6S: 6;  KC KD QH QS: 10 - 8 = 2
    assert advice(state, NORMAL) == "discard 9D"
    # hand 2: seat 1 plays first and takes 9H, seat 2 draws AD and throws it; seat 0's next
    # player (seat 1) now holds 9H
    state = build([SEAT0_OF_3, SEAT1_OF_3, SEAT2_OF_3], stock="AD 6S", discard="9H", hand_no=2)
    play(state, "take discard", "discard 2C", "draw stock", "discard AD", "draw stock")
    assert K.current_player(state) == 0
    # 9D: 9 - 6 * 0.5 = 6;  8C: 8  <- the argmax
    assert advice(state, NORMAL) == "discard 8C"


# ---------------------------------------------------------------------------------------------
# Lay-offs of a meld that may not be laid (discard_to_win)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("level", [EASY, NORMAL])
def test_a_run_it_may_not_lay_whole_is_laid_off_and_goes_out(level):
    """§4.9 Easy: "PLAY: immediately lays every complete meld of the best partition and every
    possible lay-off (respecting discard_to_win)"; Normal: "useful lay-offs". With
    discard_to_win a lay that empties the hand is illegal (§4.2), so 5H 6H 7H cannot be laid as
    a meld -- but 7H and then 6H can be laid off on 8H 9H 10H, and 5H discarded to go out.
    Normal, which otherwise lays off only cards outside its melds, would break the run by a
    discard anyway, so it lays off too."""
    state = build(["5H 6H", "8H 9H 10H 2D 3D 4D KS"], stock="QC JC 7H", discard="AC",
                  discard_to_win=True)
    play(state, "draw stock", "discard QC",                          # seat 0
         "draw stock", "lay meld 8H 9H 10H", "discard JC",           # seat 1
         "draw stock")                                               # seat 0 draws 7H
    assert "lay meld 5H 6H 7H" not in [CV.action_text(a) for a in legal(state)]
    for move in ("lay off 7H on meld 0 (low end)", "lay off 6H on meld 0 (low end)",
                 "discard 5H"):
        assert advice(state, level) == move
        play(state, move)
    # seat 0 went out: it scores seat 1's 2D 3D 4D KS = 2 + 3 + 4 + 10 = 19
    assert (state[K.S_LAST_WINNER], state[K.S_LAST_END]) == (0, K.END_OUT)
    assert CV.scores(state) == [19, 0] and state[K.S_HAND_NO] == 2


def test_normal_splits_a_run_it_may_not_lay_whole_to_go_out():
    """From a ladder audit (helper-79). With discard_to_win seat 0 holds 3D-7D after drawing
    7D: the run may not be laid whole (that would empty the hand, §4.2), and no table meld takes
    a card. Laying 3D-6D and then discarding 7D goes out; normal used to discard 7D, which breaks
    nothing but does not go out. Easy lays only the melds of a best partition, and the whole run
    is the best partition, so it discards (§4.9)."""
    state = build(["3D 4D 5D 6D", "2C 5C 8S JH KS QH 9C"], stock="7D", discard="AC",
                  discard_to_win=True)
    play(state, "draw stock")
    assert "lay meld 3D 4D 5D 6D 7D" not in [CV.action_text(a) for a in legal(state)]
    assert advice(state, EASY) == "discard 7D"
    for move in ("lay meld 3D 4D 5D 6D", "discard 7D"):
        assert advice(state, NORMAL) == move
        play(state, move)
    # seat 0 went out: it scores seat 1's 2 + 5 + 8 + 10 + 10 + 10 + 9 = 54
    assert (state[K.S_LAST_WINNER], state[K.S_LAST_END]) == (0, K.END_OUT)
    assert CV.scores(state) == [54, 0]


# ---------------------------------------------------------------------------------------------
# determinize: the hidden cards are a uniform sample of the unseen cards
# ---------------------------------------------------------------------------------------------

def test_determinize_deals_the_opponent_a_uniform_sample_of_the_unseen_cards():
    """§6 expert: "sample hidden cards consistent with the observation"; kernels/cardverse.py:
    every opponent "gets a uniform sample of the unseen cards". Seat 0, at the start of a
    two-player hand, sees its 7 cards and the upcard: 44 cards are unseen, of which the opponent
    holds 7, so each unseen card (KS, the highest card id, included) is dealt to it with
    probability 7/44, about 32 times in 200 determinizations."""
    state = build(["2C 5D 9C 4S 4H 7S JD", "3C 3D 8S 8D QS QH AS"], discard="10H")
    ob = obs_of(state, 0)
    unseen = [c for c in range(52) if not (ob[K.O_HAND] >> c) & 1 and c != ids("10H")[0]]
    assert len(unseen) == 44 and ids("KS")[0] in unseen
    counts = dict.fromkeys(unseen, 0)
    for seed in range(200):
        d = K.determinize(ob, np.int64(seed))
        hand = int(d[K.S_HAND + 1])
        assert bin(hand).count("1") == 7 and d[K.S_STOCK_N] == 44 - 7
        for c in unseen:
            counts[c] += (hand >> c) & 1
    assert sum(counts.values()) == 200 * 7
    # binomial(200, 7/44): mean 31.8, sd 5.2; every card within 4 sd of it
    assert all(10 <= n <= 54 for n in counts.values()), counts


def test_normal_keeps_partial_melds_at_eight_points_off():
    """§4.9 Normal: a card in a partial meld scores 8 less. Seat 0 after drawing 5C holds the
    partial melds KC KD and QH QS (KH KS QC QD all live) and the singles 4D 3H 2S 5C."""
    state = build(["KC KD QH QS 4D 3H 2S", "JC JD 9S 8D 8S 7H 6C"], stock="5C", discard="10H")
    play(state, "draw stock")
    # KC KD QH QS: 10 - 8 = 2;  5C: 5  <- the argmax;  4D: 4, 3H: 3, 2S: 2
    assert advice(state, NORMAL) == "discard 5C"


# ---------------------------------------------------------------------------------------------
# Easy's DRAW: "takes the discard iff it can be melded or laid off this turn"
# ---------------------------------------------------------------------------------------------

def test_easy_takes_a_discard_it_can_lay_off_on_the_table():
    """§4.9 Easy: "DRAW: takes the discard iff it can be melded or laid off this turn". 8H makes
    no meld with seat 0's 2C 9D QC 4C but goes on the table run 5H 6H 7H."""
    state = build(["5H 6H 7H 2C 9D KS QC", "8H 3D 4S 10C JD 2S AH"], stock="4C 6D",
                  discard="9S")
    play(state, "draw stock", "lay meld 5H 6H 7H", "discard KS",    # seat 0
         "draw stock", "discard 8H")                                # seat 1
    assert advice(state, EASY) == "take discard"
    play(state, "take discard")
    assert advice(state, EASY) == "lay off 8H on meld 0 (high end)"
    # with 8H gone from the pile top (seat 1 throws 6D instead), easy draws from the stock
    state = build(["5H 6H 7H 2C 9D KS QC", "8H 3D 4S 10C JD 2S AH"], stock="4C 6D",
                  discard="9S")
    play(state, "draw stock", "lay meld 5H 6H 7H", "discard KS", "draw stock", "discard 6D")
    assert advice(state, EASY) == "draw stock"


# ---------------------------------------------------------------------------------------------
# Search levels: pick's ties, master's self-model
# ---------------------------------------------------------------------------------------------

def test_pick_breaks_a_tie_of_means_by_the_lowest_action_id():
    """ai_cardverse.pick: "the best mean ... (ties: the lowest id)". Seat 0 after drawing 2H:
    the playouts' own move (normal's discard 9C, which gets PRIOR_POINTS of credit) is scored
    far below; discard 3D (id 17) and discard KD (id 27) tie for the best mean."""
    state = build(["KC KD 7S 3D 9C AS 4D", "QC QD 5S 8D 8S QH JS"], stock="2H", discard="10H")
    play(state, "draw stock")
    assert advice(state, NORMAL) == "discard 9C"
    moves = np.array(legal(state), dtype=np.int64)
    ids_of = {CV.action_text(int(a)): int(a) for a in moves}
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    visits[moves] = 10
    values[ids_of["discard 9C"]] = -5.0
    values[ids_of["discard 3D"]] = values[ids_of["discard KD"]] = 3.0
    assert ids_of["discard 3D"] < ids_of["discard KD"]
    for level in (EXPERT, MASTER):
        a = AI.pick(obs_of(state, 0), values, visits, moves, len(moves), level, 1)
        assert CV.action_text(int(a)) == "discard 3D"


@pytest.mark.parametrize("opponent, move", [
    ("3C 3D", "lay meld 5H 6H 7H"),            # down to HOLD_UNTIL = 2 cards: lay now
    ("3C 3D 4S", "discard KD"),                # 3 cards: keep the run in hand
])
def test_masters_self_model_lays_its_melds_once_an_opponent_is_down_to_two_cards(opponent,
                                                                                 move):
    """ai_cardverse._holder keeps its complete melds in hand "until it can go out this turn or
    an opponent is down to HOLD_UNTIL cards" (HOLD_UNTIL = 2)."""
    assert AI.HOLD_UNTIL == 2
    state = build(["5H 6H 7H 9C KD 4C", opponent], stock="2S", discard="10C")
    play(state, "draw stock")
    moves = np.array(legal(state), dtype=np.int64)
    # outside the run: 9C KD 4C 2S, none of which goes on a table meld
    assert CV.action_text(int(AI._holder(obs_of(state, 0), moves, len(moves)))) == move
