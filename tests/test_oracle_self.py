"""Hand-worked story tests of the brute-force oracle (tests/oracle.py).

Every expected value is computed by hand in the comments from RULES.md.
Deadwood values: gin/cardverse A 1 (cardverse ace_high: 11), 2-10 face,
J/Q/K 10; rami A 15, joker 20, 2-10 face, J/Q/K 10.  KIROLO returns
(unmelded count, unmelded value), a joker counting 1 card of value 0.
"""

import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from oracle import (  # noqa: E402
    _kirolo_series_ok,
    oracle_analyze,
    oracle_rami_opening,
    random_dense_kirolo_hand,
    random_hand,
)


# ---------------------------------------------------------------------------
# Ace position in runs (§5.2 gin low only, §4.5 cardverse high only,
# §2.5 rami low or high, never both, no wrap)
# ---------------------------------------------------------------------------

def test_qka_valid_in_cardverse_and_rami_not_gin():
    hand = ["QH", "KH", "AH"]
    # gin: Q-K-A is not a run, no group -> Q10 + K10 + A1 = 21 over 3 cards
    assert oracle_analyze("gin", hand) == (21, 3)
    # cardverse: ace high -> one run, nothing left (with or without ace_high)
    assert oracle_analyze("cardverse", hand) == (0, 0)
    assert oracle_analyze("cardverse", hand, ace_high=True) == (0, 0)
    # rami: ace may end a run -> nothing left
    assert oracle_analyze("rami", hand) == (0, 0)


def test_a23_valid_in_gin_and_rami_not_cardverse():
    hand = ["AH", "2H", "3H"]
    assert oracle_analyze("gin", hand) == (0, 0)
    assert oracle_analyze("rami", hand) == (0, 0)
    # cardverse: A-2-3 invalid -> A1 + 2 + 3 = 6 ; with ace_high A11 -> 16
    assert oracle_analyze("cardverse", hand) == (6, 3)
    assert oracle_analyze("cardverse", hand, ace_high=True) == (16, 3)


def test_k_a_2_invalid_everywhere():
    hand = ["KH", "AH", "2H"]
    # gin: K10 + A1 + 2 = 13
    assert oracle_analyze("gin", hand) == (13, 3)
    # cardverse: 10 + 1 + 2 = 13 ; ace_high: 10 + 11 + 2 = 23
    assert oracle_analyze("cardverse", hand) == (13, 3)
    assert oracle_analyze("cardverse", hand, ace_high=True) == (23, 3)
    # rami: K10 + A15 + 2 = 27
    assert oracle_analyze("rami", hand) == (27, 3)


def test_q_k_a_2_ace_cannot_be_both_ends():
    hand = ["QH", "KH", "AH", "2H"]
    # gin: Q-K-A invalid and A-2 is too short -> 10 + 10 + 1 + 2 = 23, 4 cards
    assert oracle_analyze("gin", hand) == (23, 4)
    # cardverse / rami: Q-K-A melded, 2H left -> (2, 1)
    assert oracle_analyze("cardverse", hand) == (2, 1)
    assert oracle_analyze("rami", hand) == (2, 1)
    # rami: A-2-3 melded, KH left (ace used low) -> (10, 1)
    assert oracle_analyze("rami", ["AH", "2H", "3H", "KH"]) == (10, 1)
    # cardverse: neither A-2-3 nor K-A-2 -> 1 + 2 + 3 + 10 = 16
    assert oracle_analyze("cardverse", ["AH", "2H", "3H", "KH"]) == (16, 4)


def test_groups_three_or_four_distinct_suits():
    four = ["7C", "7D", "7H", "7S"]
    for v in ("gin", "cardverse", "rami"):
        assert oracle_analyze(v, four) == (0, 0)
        # a pair is no meld: 7 + 7 = 14
        assert oracle_analyze(v, ["7C", "7D"]) == (14, 2)
    # mixed: 7C 7D 7H group + 8H 9H need 7H too; best: group 7C7D7H,
    # 8H 9H left = 17 ; or run 7H8H9H, 7C 7D left = 14 -> (14, 2)
    assert oracle_analyze("gin", ["7C", "7D", "7H", "8H", "9H"]) == (14, 2)


def test_run_of_whole_suit():
    hearts = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]
    for v in ("gin", "cardverse", "rami"):
        assert oracle_analyze(v, hearts) == (0, 0)


# ---------------------------------------------------------------------------
# Rami jokers (§2.5.3): at most one per meld, so >= 2 natural cards
# ---------------------------------------------------------------------------

def test_rami_one_joker_per_meld():
    # one natural + two jokers: no meld -> 5 + 20 + 20 = 45
    assert oracle_analyze("rami", ["5H", "JK1", "JK2"]) == (45, 3)
    # 5H 6H + one joker is a run; the second joker stays -> (20, 1)
    assert oracle_analyze("rami", ["5H", "6H", "JK1", "JK2"]) == (20, 1)
    # joker fills a gap: 5H JK(6H) 7H -> (0, 0)
    assert oracle_analyze("rami", ["5H", "7H", "JK1"]) == (0, 0)
    # gap of two cannot be filled by one joker: 5 + 8 + 20 = 33
    assert oracle_analyze("rami", ["5H", "8H", "JK1"]) == (33, 3)


def test_rami_joker_follows_ace_rule():
    # KH JK 2H would need the joker to be AH in K-A-2: invalid -> 10+2+20 = 32
    assert oracle_analyze("rami", ["KH", "2H", "JK1"]) == (32, 3)
    # QH JK AH: joker = KH, Q-K-A valid -> (0, 0)
    assert oracle_analyze("rami", ["QH", "AH", "JK1"]) == (0, 0)
    # AH 2H JK: joker = 3H -> (0, 0)
    assert oracle_analyze("rami", ["AH", "2H", "JK1"]) == (0, 0)


def test_rami_joker_in_group_max_four():
    # 4 sevens + joker cannot be one meld (5 cards).  Options:
    #   carre 7C7D7H7S, joker left -> 20 ; 7C7D7H+JK (=7S), 7S left -> 7 ;
    #   7C7D+JK, 7H 7S left -> 14.  Best (7, 1).
    assert oracle_analyze("rami", ["7C", "7D", "7H", "7S", "JK1"]) == (7, 1)


def test_rami_count_tiebreak():
    # 4D 5D JK(6D) 7D run, 9D KS left -> 9 + 10 = 19 over 2 cards
    # 7D JK(8D) 9D run, 4D 5D KS left -> 4 + 5 + 10 = 19 over 3 cards
    # other options are worse (e.g. 4D5D+JK leaves 7+9+10 = 26) -> (19, 2)
    assert oracle_analyze("rami", ["4D", "5D", "7D", "9D", "JK1", "KS"]) == (19, 2)


# ---------------------------------------------------------------------------
# KIROLO series (§1.6)
# ---------------------------------------------------------------------------

def test_kirolo_group_up_to_five_distinct_elements():
    five = ["FI05a", "WA05a", "EA05a", "WO05a", "ME05a"]
    assert oracle_analyze("kirolo", five) == (0, 0)
    # adding a joker: a 6-card group is invalid, but the hand splits into
    # FI05 WA05 JK + EA05 WO05 ME05 -> (0, 0)
    assert oracle_analyze("kirolo", five + ["JOKER"]) == (0, 0)
    # the size cap itself (checked on the validity predicate, since any
    # over-sized group can be split as above): 5 + JK and 4 + 2 JK invalid
    nat = [("FI", 5), ("WA", 5), ("EA", 5), ("WO", 5), ("ME", 5)]
    assert _kirolo_series_ok(nat, 0, 1)
    assert not _kirolo_series_ok(nat, 1, 1)
    assert _kirolo_series_ok(nat[:4], 1, 1)
    assert not _kirolo_series_ok(nat[:4], 2, 2)
    assert _kirolo_series_ok(nat[:3], 2, 2)
    assert not _kirolo_series_ok(nat[:3], 2, 1)  # over max_jokers_per_series
    # 4 fives + 1 ten: group of 4, the ten is left -> (1, 10)
    assert oracle_analyze("kirolo", five[:4] + ["FI10a"]) == (1, 10)
    # 2 elements + joker is a group of 3
    assert oracle_analyze("kirolo", ["FI05a", "WA05b", "JOKER"]) == (0, 0)


def test_kirolo_copies_never_in_same_series():
    # same element twice: not a group (elements must differ) -> 5+5+5
    assert oracle_analyze("kirolo", ["FI05a", "FI05b", "WA05a"]) == (3, 15)
    # FI5 FI5 JK invalid (RULES §1.6 example) -> 5 + 5 + 0
    assert oracle_analyze("kirolo", ["FI05a", "FI05b", "JOKER"]) == (3, 10)
    # not a run either (values must differ) -> 7 + 7 + 8 = 22
    assert oracle_analyze("kirolo", ["FI07a", "FI07b", "FI08a"]) == (3, 22)


def test_kirolo_copies_in_two_different_series():
    # run FI07a FI08a FI09a + group FI07b WA07a EA07a -> everything melded
    hand = ["FI07a", "FI07b", "FI08a", "FI09a", "WA07a", "EA07a"]
    assert oracle_analyze("kirolo", hand) == (0, 0)


def test_kirolo_joker_series():
    # FI05 FI06 JK (JK = 4 or 7) valid
    assert oracle_analyze("kirolo", ["FI05a", "FI06a", "JOKER"]) == (0, 0)
    # WA4 JK WA6 valid (RULES example)
    assert oracle_analyze("kirolo", ["WA04a", "JOKER", "WA06b"]) == (0, 0)
    # two jokers, default max 1 per series: one joker left -> (1, 0)
    hand = ["FI05a", "FI06a", "JOKER", "JOKER"]
    assert oracle_analyze("kirolo", hand) == (1, 0)
    # with max_jokers_per_series=2: run 4 cards -> (0, 0)
    assert oracle_analyze("kirolo", hand, max_jokers_per_series=2) == (0, 0)
    # one element card + 2 jokers: |N| = 1 < 2 -> 3 cards, value 5
    assert oracle_analyze("kirolo", ["FI05a", "JOKER", "JOKER"],
                          max_jokers_per_series=2) == (3, 5)


def test_kirolo_runs_no_wrap():
    # 12-1-2 invalid -> 12 + 1 + 2 = 15
    assert oracle_analyze("kirolo", ["FI12a", "FI01a", "FI02a"]) == (3, 15)
    # 11-12-1 invalid -> 11 + 12 + 1 = 24
    assert oracle_analyze("kirolo", ["FI11a", "FI12a", "FI01a"]) == (3, 24)
    assert oracle_analyze("kirolo", ["FI10a", "FI11a", "FI12a"]) == (0, 0)
    # 12 JK 1: no interval of length 3 in [1, 12] holds both 12 and 1 -> 12 + 1 + 0
    assert oracle_analyze("kirolo", ["FI12a", "FI01b", "JOKER"]) == (3, 13)
    # ends: JK = 10 and JK = 3 respectively
    assert oracle_analyze("kirolo", ["FI11a", "FI12a", "JOKER"]) == (0, 0)
    assert oracle_analyze("kirolo", ["FI01a", "FI02a", "JOKER"]) == (0, 0)
    # whole element 1..12 is one run
    assert oracle_analyze("kirolo", [f"ME{v:02d}b" for v in range(1, 13)]) == (0, 0)


def test_kirolo_count_before_value_and_action_cards_ignored():
    # Options: FI01 FI02 JK(=3) FI04 run, WA04 left -> (1, 4)
    #          FI04 WA04 JK group, FI01 FI02 left -> (2, 3)  (lower value, more cards)
    # count first -> (1, 4)
    hand = ["FI01a", "FI02a", "FI04a", "WA04a", "JOKER"]
    assert oracle_analyze("kirolo", hand) == (1, 4)
    # EXCHANGE / SEARCH are not counted at all
    assert oracle_analyze("kirolo", hand + ["EXCHANGE", "SEARCH"]) == (1, 4)
    assert oracle_analyze("kirolo", ["EXCHANGE", "SEARCH", "WA03a"]) == (1, 3)


# ---------------------------------------------------------------------------
# Rami opening values (§2.1)
# ---------------------------------------------------------------------------

def test_rami_opening_natural_melds():
    # A low = 1: 1 + 2 + 3
    assert oracle_rami_opening(["AH", "2H", "3H"]) == 6
    # A high = 11: 10 + 10 + 11
    assert oracle_rami_opening(["QH", "KH", "AH"]) == 31
    # A in a group = 11: 3 x 11
    assert oracle_rami_opening(["AH", "AS", "AD"]) == 33
    # 10 J Q K A: 10 + 10 + 10 + 10 + 11
    assert oracle_rami_opening(["10H", "JH", "QH", "KH", "AH"]) == 51
    # no meld at all
    assert oracle_rami_opening(["AH", "5S", "9D", "KC"]) == 0


def test_rami_opening_jokers_take_best_value():
    # 5H 6H JK: JK = 4H (15) or 7H (18) -> 18
    assert oracle_rami_opening(["5H", "6H", "JK1"]) == 18
    # JK QS KS: JK = JS (30) or AS high (31) -> 31
    assert oracle_rami_opening(["JK1", "QS", "KS"]) == 31
    # 2H 3H JK: JK = AH low (1+2+3 = 6) or 4H (2+3+4 = 9) -> 9
    assert oracle_rami_opening(["2H", "3H", "JK1"]) == 9
    # group: joker counts the group's rank: 7 x 3 = 21 ; aces 11 x 3 = 33
    assert oracle_rami_opening(["7C", "7D", "JK1"]) == 21
    assert oracle_rami_opening(["AH", "AS", "JK2"]) == 33
    # one joker per meld: 5H 6H + 2 jokers still only one 3-card meld -> 18
    assert oracle_rami_opening(["5H", "6H", "JK1", "JK2"]) == 18


def test_rami_opening_chooses_best_disjoint_melds():
    # AAA group (33) vs Q-K-A run (31) share AH -> 33
    assert oracle_rami_opening(["AH", "AS", "AD", "QH", "KH"]) == 33
    # with a joker both fit: AH AS AD group 33 + QH KH JK(=AH) run 31 = 64
    # (equivalently AS AD JK group 33 + QH KH AH run 31)
    assert oracle_rami_opening(["AH", "AS", "AD", "QH", "KH", "JK1"]) == 64
    # two melds: 33 + 18 = 51
    assert oracle_rami_opening(["AH", "AS", "AD", "5H", "6H", "JK1"]) == 51


# ---------------------------------------------------------------------------
# Random hands and input checking
# ---------------------------------------------------------------------------

def test_random_hands_shape_and_determinism():
    rng = random.Random(42)
    h = random_hand("rami", 14, rng, jokers=2)
    assert len(h) == 16 and len(set(h)) == 16 and {"JK1", "JK2"} <= set(h)
    k = random_hand("kirolo", 13, rng, jokers=2)
    assert len(k) == 15 and k.count("JOKER") == 2 and len(set(k)) == 14
    g = random_hand("gin", 11, rng)
    assert len(set(g)) == 11 and not any(c.startswith("JK") for c in g)
    d = random_dense_kirolo_hand(13, rng, 2)
    naturals = [c for c in d if c != "JOKER"]
    assert len(naturals) == 13 and len(set(naturals)) == 13
    assert len({c[:2] for c in naturals}) <= 3 and len({c[2:4] for c in naturals}) <= 6
    assert random_hand("cardverse", 7, random.Random(1)) == random_hand("cardverse", 7, random.Random(1))
    for hand, v in ((h, "rami"), (k, "kirolo"), (g, "gin"), (d, "kirolo")):
        oracle_analyze(v, hand)  # runs without error


def test_bad_input_rejected():
    with pytest.raises(ValueError):
        oracle_analyze("gin", ["AS", "AS", "2S"])
    with pytest.raises(ValueError):
        oracle_analyze("gin", ["JK1", "AS"])
    with pytest.raises(ValueError):
        oracle_analyze("kirolo", ["FI13a"])
    with pytest.raises(ValueError):
        oracle_analyze("poker", ["AS"])
