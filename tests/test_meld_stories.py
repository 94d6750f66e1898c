"""Story tests: every meld rule of RULES.md (§1.6 KIROLO series, §2.1/§2.5 Rami FR, §4.5 CardVerse,
§5 Gin, §7 hand analysis) and the Decisions behind them, told through ``meldmind.analyze_hand``.

Every hand is drawn in a comment and every expected number is worked out by hand from RULES.md.
Deadwood values (§7): gin/cardverse A 1 (cardverse ``ace_high``: 11), 2-10 face, J/Q/K 10;
rami A 15, joker 20, 2-10 face, J/Q/K 10; KIROLO (unmelded cards, their value sum), element
value 1-12, joker 0 but still one card.
Rami opening values (§2.1): 2-10 face, J/Q/K 10, ace 1 lowest in a run / 11 highest in a run /
11 in a group, joker = the card it represents.
"""
import pickle
from collections import Counter

import pytest

import meldmind
from meldmind import Meld, analyze_hand

RAMI_JOKERS = ("JK1", "JK2")


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------

def _plain(meld: Meld):
    """A meld as (kind, cards, stands) with the two interchangeable Rami jokers named 'JK'."""
    cards = tuple("JK" if c in RAMI_JOKERS else c for c in meld.cards)
    return meld.kind, cards, meld.joker_stands_for


def assert_analysis(a, *, melds, deadwood, points, count=None):
    """Exact melds (as a multiset: the order of the melds is not part of the API), exact deadwood
    cards (multiset), points and count."""
    got = Counter(_plain(m) for m in a.melds)
    want = Counter((kind, tuple(cards), tuple(stands)) for kind, cards, stands in melds)
    assert got == want, a.melds
    assert Counter("JK" if c in RAMI_JOKERS else c for c in a.deadwood) == Counter(deadwood), a.deadwood
    assert a.deadwood_points == points
    assert a.deadwood_count == (len(deadwood) if count is None else count)
    assert a.deadwood_count == len(a.deadwood)


def run(*cards, stands=()):
    return ("run", cards, stands)


def group(*cards, stands=()):
    return ("group", cards, stands)


def group_alternatives(meld: Meld) -> list[set[str]]:
    """The 'missing suit/element' alternatives of each joker of a group, as sets."""
    return [set(s.split("/")) for s in meld.joker_stands_for]


# ---------------------------------------------------------------------------------------------
# Ace position in runs: gin ace low only (§5.2), CardVerse ace high only (§4.5, Decision 4.10.2),
# Rami FR ace low or high, never both, never in the middle (§2.5.2, Decision 2.12.7)
# ---------------------------------------------------------------------------------------------

# hand:  Q♥ K♥ A♥
def test_q_k_a_is_a_run_in_cardverse():
    # 2 3 ... Q K A: the ace is high -> one run, nothing left
    assert_analysis(analyze_hand("cardverse", "QH KH AH"),
                    melds=[run("QH", "KH", "AH")], deadwood=[], points=0)


def test_q_k_a_is_a_run_in_rami_and_opens_for_31():
    a = analyze_hand("rami", "QH KH AH")
    assert_analysis(a, melds=[run("QH", "KH", "AH")], deadwood=[], points=0)
    # opening: Q 10 + K 10 + A high 11 = 31 < 50
    assert a.opening_points == 31
    assert a.can_open is False


def test_q_k_a_is_no_run_in_gin():
    # gin: ace low only -> no meld; Q 10 + K 10 + A 1 = 21 over 3 cards
    assert_analysis(analyze_hand("gin", "QH KH AH"), melds=[], deadwood=["QH", "KH", "AH"], points=21)


# hand:  A♥ 2♥ 3♥
def test_a_2_3_is_no_run_in_cardverse():
    # cardverse run order 2..A: A-2-3 invalid -> A 1 + 2 + 3 = 6
    assert_analysis(analyze_hand("cardverse", "AH 2H 3H"), melds=[], deadwood=["AH", "2H", "3H"], points=6)


def test_a_2_3_is_a_run_in_gin():
    assert_analysis(analyze_hand("gin", "AH 2H 3H"), melds=[run("AH", "2H", "3H")], deadwood=[], points=0)


def test_a_2_3_is_a_run_in_rami_and_the_low_ace_counts_1():
    a = analyze_hand("rami", "AH 2H 3H")
    assert_analysis(a, melds=[run("AH", "2H", "3H")], deadwood=[], points=0)
    # opening: A low 1 + 2 + 3 = 6
    assert a.opening_points == 6


# hand:  K♥ A♥ 2♥  (wrap-around)
@pytest.mark.parametrize("variant, points", [
    ("gin", 10 + 1 + 2),          # K 10, A 1, 2
    ("cardverse", 10 + 1 + 2),
    ("rami", 10 + 15 + 2),        # K 10, A 15 (penalty), 2
])
def test_k_a_2_is_no_run_anywhere(variant, points):
    a = analyze_hand(variant, "KH AH 2H")
    assert_analysis(a, melds=[], deadwood=["KH", "AH", "2H"], points=points)
    if variant == "rami":
        assert a.opening_points == 0 and a.can_open is False


# hand:  Q♥ K♥ A♥ 2♥ 3♥  (rami: the ace may end Q-K-A or start A-2-3, not both)
def test_rami_ace_cannot_serve_both_ends():
    # Q-K-A leaves 2+3 = 5; A-2-3 leaves Q+K = 20; Q-K-A-2-3 / K-A-2 are invalid -> 5 over 2 cards
    a = analyze_hand("rami", "QH KH AH 2H 3H")
    assert_analysis(a, melds=[run("QH", "KH", "AH")], deadwood=["2H", "3H"], points=5)
    # best opening: Q-K-A = 31 (A-2-3 would only give 6)
    assert a.opening_points == 31


def test_same_hand_in_gin_and_cardverse():
    # gin: only A-2-3 -> Q+K = 20 left; cardverse: only Q-K-A -> 2+3 = 5 left
    assert_analysis(analyze_hand("gin", "QH KH AH 2H 3H"),
                    melds=[run("AH", "2H", "3H")], deadwood=["QH", "KH"], points=20)
    assert_analysis(analyze_hand("cardverse", "QH KH AH 2H 3H"),
                    melds=[run("QH", "KH", "AH")], deadwood=["2H", "3H"], points=5)


# hand:  K♥ A♥ 2♥ JK  (the joker can make Q-K-A but never K-A-2-3)
def test_rami_joker_cannot_make_a_wrap_around_run():
    # [JK=Q♥] K♥ A♥ leaves 2♥ = 2;  A♥ 2♥ [JK=3♥] leaves K♥ = 10  -> 2 over one card
    a = analyze_hand("rami", "KH AH 2H JK1")
    assert_analysis(a, melds=[run("JK", "KH", "AH", stands=("QH",))], deadwood=["2H"], points=2)
    # opening: Q(joker) 10 + K 10 + A high 11 = 31
    assert a.opening_points == 31


# hand:  A♥ 2♥ 3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥ 10♥ J♥ Q♥ K♥  (full suit: a 13-card run, the maximum)
@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami"])
def test_full_suit_melds_completely(variant):
    hand = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    a = analyze_hand(variant, hand)
    assert a.deadwood == () and a.deadwood_points == 0
    assert all(m.kind == "run" for m in a.melds)
    assert sorted(c for m in a.melds for c in m.cards) == sorted(hand.split())
    if variant == "rami":
        # read 2..K-A: 2+...+10 = 54, J Q K = 30, A high = 11 -> 95 (the ace is high, never both)
        assert a.opening_points == 95 and a.can_open is True


def test_rami_twelve_cards_and_a_joker_reach_the_13_card_maximum():
    # 2♥..K♥ + JK: one run of 13 with JK = A♥ (high) or a split; nothing is left either way
    a = analyze_hand("rami", "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK2")
    assert a.deadwood == () and a.deadwood_points == 0
    assert len(a.melds) >= 1
    # opening: 2..10 = 54, J Q K 30, joker read as the high ace 11 -> 95
    assert a.opening_points == 95


# ---------------------------------------------------------------------------------------------
# Groups: 3-4 cards of one rank, pairwise distinct suits (§2.5.1, §4.5.2, §5.2)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami"])
def test_groups_of_three_and_four(variant):
    # 7♣ 7♦ 7♥ 7♠ -> one group of four
    assert_analysis(analyze_hand(variant, "7C 7D 7H 7S"),
                    melds=[group("7C", "7D", "7H", "7S")], deadwood=[], points=0)
    # 7♣ 7♦ 7♥ + K♠ -> group of three, K left (10)
    assert_analysis(analyze_hand(variant, "7H 7C 7D KS"),
                    melds=[group("7C", "7D", "7H")], deadwood=["KS"], points=10)
    # a pair is no meld: 7 + 7 = 14
    assert_analysis(analyze_hand(variant, "7C 7D"), melds=[], deadwood=["7C", "7D"], points=14)


@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami"])
def test_group_of_three_lets_the_fourth_card_join_a_run(variant):
    # 7♣ 7♦ 7♥ 7♠ 8♠ 9♠: four 7s would leave 8+9 = 17; 7♣7♦7♥ + 7♠8♠9♠ leaves nothing
    assert_analysis(analyze_hand(variant, "7C 7D 7H 7S 8S 9S"),
                    melds=[group("7C", "7D", "7H"), run("7S", "8S", "9S")], deadwood=[], points=0)


def test_face_cards_count_ten_in_gin_and_cardverse():
    # 10♠ J♣ Q♦ K♥: no meld, 10 + 10 + 10 + 10 = 40
    for variant in ("gin", "cardverse", "rami"):
        assert analyze_hand(variant, "10S JC QD KH").deadwood_points == 40


# ---------------------------------------------------------------------------------------------
# Rami FR jokers (§2.5.3, Decision 2.12.7): one joker per meld, so >= 2 natural cards per meld
# ---------------------------------------------------------------------------------------------

# hand:  5♥ JK JK
def test_rami_two_jokers_and_one_card_are_no_meld():
    # 5 + 20 + 20 = 45 over 3 cards; nothing can be opened
    a = analyze_hand("rami", "5H JK1 JK2")
    assert_analysis(a, melds=[], deadwood=["5H", "JK", "JK"], points=45)
    assert a.opening_points == 0 and a.can_open is False


# hand:  5♥ 6♥ JK JK
def test_rami_second_joker_cannot_join_the_same_meld():
    # 5♥ 6♥ JK is a run; the other joker cannot make it 5-6-7-8 -> JK left, 20 points
    a = analyze_hand("rami", "5H 6H JK1 JK2")
    assert len(a.melds) == 1
    meld = a.melds[0]
    assert meld.kind == "run" and sum(c in RAMI_JOKERS for c in meld.cards) == 1
    assert a.deadwood_count == 1 and a.deadwood[0] in RAMI_JOKERS and a.deadwood_points == 20
    # opening: 5 + 6 + joker as 7♥ = 18 (4♥ would give 15)
    assert a.opening_points == 18


# hand:  5♥ 6♥ JK   9♣ 9♦ JK
def test_rami_two_jokers_go_to_two_different_melds():
    a = analyze_hand("rami", "5H 6H JK1 9C 9D JK2")
    assert a.deadwood == () and a.deadwood_points == 0
    assert sorted(m.kind for m in a.melds) == ["group", "run"]
    for m in a.melds:
        assert sum(c in RAMI_JOKERS for c in m.cards) == 1
    by_kind = {m.kind: m for m in a.melds}
    assert {c for c in by_kind["group"].cards if c not in RAMI_JOKERS} == {"9C", "9D"}
    assert group_alternatives(by_kind["group"]) == [{"9H", "9S"}]
    # opening: run 5+6+7 = 18 (joker read 7♥), group 9×3 = 27 -> 45 < 50, >= 30 with 3 players
    assert a.opening_points == 45 and a.can_open is False
    assert analyze_hand("rami", "5H 6H JK1 9C 9D JK2", options={"num_players": 3}).can_open is True


def test_rami_joker_in_a_run_stands_for_the_missing_card():
    # 5♥ [JK=6♥] 7♥: the joker fills the hole, shown where it stands
    assert_analysis(analyze_hand("rami", "7H JK1 5H"),
                    melds=[run("5H", "JK", "7H", stands=("6H",))], deadwood=[], points=0)
    # A♥ 2♥ [JK]: nothing below a low ace -> the joker can only be 3♥
    assert_analysis(analyze_hand("rami", "AH 2H JK2"),
                    melds=[run("AH", "2H", "JK", stands=("3H",))], deadwood=[], points=0)
    # [JK] K♥ A♥: nothing above a high ace -> the joker can only be Q♥
    assert_analysis(analyze_hand("rami", "KH AH JK2"),
                    melds=[run("JK", "KH", "AH", stands=("QH",))], deadwood=[], points=0)


def test_rami_joker_at_an_open_end_stands_for_one_end_shown_in_place():
    # 5♥ 6♥ JK: JK = 4♥ (shown first) or 7♥ (shown last), §2.5.3
    (meld,) = analyze_hand("rami", "5H 6H JK1").melds
    assert meld.kind == "run"
    assert (meld.cards, meld.joker_stands_for) in {(("JK1", "5H", "6H"), ("4H",)),
                                                    (("5H", "6H", "JK1"), ("7H",))}


def test_rami_joker_in_a_group_stands_for_a_missing_suit():
    # 9♣ 9♦ 9♥ JK: the joker can only be 9♠ -> group of four
    (meld,) = analyze_hand("rami", "9C 9H JK1 9D").melds
    assert meld.kind == "group" and meld.cards == ("9C", "9D", "9H", "JK1")
    assert group_alternatives(meld) == [{"9S"}]
    # 9♣ 9♦ JK: any of 9♥ 9♠
    (meld,) = analyze_hand("rami", "9C 9D JK1").melds
    assert meld.cards == ("9C", "9D", "JK1") and group_alternatives(meld) == [{"9H", "9S"}]


def test_rami_jokers_count_20_and_aces_15_in_hand():
    # A♠ JK 7♣: no meld (a joker needs two natural cards) -> 15 + 20 + 7 = 42
    assert_analysis(analyze_hand("rami", "AS JK1 7C"), melds=[], deadwood=["AS", "JK", "7C"], points=42)
    # A♠ A♦: 15 + 15 = 30 (the same pair counts 2 in gin)
    assert analyze_hand("rami", "AS AD").deadwood_points == 30
    assert analyze_hand("gin", "AS AD").deadwood_points == 2


def test_rami_penalty_prefers_melding_the_aces():
    # A♥ 2♥ 3♥ A♣ A♦: A-2-3 leaves A♣ A♦ = 30; A♣ A♦ A♥ leaves 2♥ 3♥ = 5
    assert_analysis(analyze_hand("rami", "AH 2H 3H AC AD"),
                    melds=[group("AC", "AD", "AH")], deadwood=["2H", "3H"], points=5)
    # gin on the same hand: A-2-3 leaves 1+1 = 2, the aces' group leaves 2+3 = 5
    assert_analysis(analyze_hand("gin", "AH 2H 3H AC AD"),
                    melds=[run("AH", "2H", "3H")], deadwood=["AC", "AD"], points=2)


def test_rami_joker_kept_when_it_lowers_the_penalty_most():
    # K♣ K♦ JK 2♠ 3♠: [K♣ K♦ JK] leaves 2+3 = 5; [2♠ 3♠ JK] leaves 10+10 = 20
    a = analyze_hand("rami", "KC KD JK1 2S 3S")
    assert a.deadwood_points == 5 and sorted(a.deadwood) == ["2S", "3S"]
    (meld,) = a.melds
    assert meld.kind == "group" and group_alternatives(meld) == [{"KH", "KS"}]


# ---------------------------------------------------------------------------------------------
# CardVerse ace_high (Decision 4.10.10): changes hand values only, never run positions
# ---------------------------------------------------------------------------------------------

def test_cardverse_ace_high_changes_only_values():
    opts = {"ace_high": True}
    # A♥ 2♥ 3♥: still no run; A counts 11 -> 11 + 2 + 3 = 16 (6 without the option)
    assert_analysis(analyze_hand("cardverse", "AH 2H 3H", options=opts),
                    melds=[], deadwood=["AH", "2H", "3H"], points=16)
    # Q♥ K♥ A♥ 5♣: Q-K-A is still the run -> 5 left
    assert_analysis(analyze_hand("cardverse", "QH KH AH 5C", options=opts),
                    melds=[run("QH", "KH", "AH")], deadwood=["5C"], points=5)
    # A♣ 9♦: 11 + 9 = 20 with the option, 1 + 9 = 10 without
    assert analyze_hand("cardverse", "AC 9D", options=opts).deadwood_points == 20
    assert analyze_hand("cardverse", "AC 9D").deadwood_points == 10
    # A♣ A♦ A♥: a group either way
    assert analyze_hand("cardverse", "AC AD AH", options=opts).deadwood_points == 0


def test_cardverse_ace_high_can_change_the_best_partition():
    # A♣ A♦ A♥ Q♥ K♥ (ace high only in runs):
    #   aces' group leaves Q+K = 20;  Q-K-A♥ leaves A♣ A♦ = 2 (ace 1) or 22 (ace 11)
    assert_analysis(analyze_hand("cardverse", "AC AD AH QH KH"),
                    melds=[run("QH", "KH", "AH")], deadwood=["AC", "AD"], points=2)
    assert_analysis(analyze_hand("cardverse", "AC AD AH QH KH", options={"ace_high": True}),
                    melds=[group("AC", "AD", "AH")], deadwood=["QH", "KH"], points=20)


# ---------------------------------------------------------------------------------------------
# Rami FR opening (§2.1 values, §2.2 threshold, Decisions 2.12.4 / 2.12.6)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("hand, value", [
    ("AC AD AH", 33),            # aces in a group: 11 each
    ("AC AD AH AS", 44),
    ("AH 2H 3H", 6),             # ace lowest in a run: 1
    ("QH KH AH", 31),            # ace highest: 11
    ("10H JH QH KH", 40),        # 10 + 10 + 10 + 10
    ("5H 7H JK1", 18),           # joker = 6♥: 5 + 6 + 7
    ("AC AD JK2", 33),           # joker = a missing ace in a group: 11
    ("AH 2H JK1", 6),            # joker = 3♥: 1 + 2 + 3
    ("KH AH JK1", 31),           # joker = Q♥: 10 + 10 + 11
    ("JK1 2H 3H", 9),            # joker = 4♥ (4) rather than A♥ (1): 2 + 3 + 4
    ("QH KH JK1", 31),           # joker = A♥ high (11) rather than J♥ (10)
    ("2C 9D KS", 0),             # nothing to lay
])
def test_rami_opening_values(hand, value):
    assert analyze_hand("rami", hand).opening_points == value


def test_rami_opening_counts_every_meld_laid_together():
    # 10♣ 10♦ 10♥ 10♠ (40) + A♣ 2♣ 3♣ 4♣ (1+2+3+4 = 10) = exactly 50
    hand = "10C 10D 10H 10S AC 2C 3C 4C"
    a = analyze_hand("rami", hand)
    assert a.opening_points == 50
    assert a.can_open is True                               # 2 players: >= 50
    assert analyze_hand("rami", hand, options={"opening_threshold": 51}).can_open is False
    assert analyze_hand("rami", hand, options={"opening_threshold": 50}).can_open is True


def test_rami_opening_threshold_by_number_of_players():
    # 10♥ J♥ Q♥ K♥ = 40
    hand = "10H JH QH KH"
    assert analyze_hand("rami", hand).opening_points == 40
    assert analyze_hand("rami", hand).can_open is False                              # default 50
    assert analyze_hand("rami", hand, options={"num_players": 2}).can_open is False
    assert analyze_hand("rami", hand, options={"num_players": 3}).can_open is True   # 30
    assert analyze_hand("rami", hand, options={"num_players": 4}).can_open is True
    # an explicit threshold wins over the player count
    assert analyze_hand("rami", hand, options={"opening_threshold": 40}).can_open is True
    assert analyze_hand("rami", hand, options={"opening_threshold": 41}).can_open is False
    assert analyze_hand("rami", hand, options={"num_players": 3, "opening_threshold": 45}).can_open is False
    assert analyze_hand("rami", hand, options={"num_players": 2, "opening_threshold": 30}).can_open is True


def test_rami_opening_is_the_largest_total_not_the_deadwood_partition():
    # 2♠ 3♠ 4♠ 4♣ 4♦ 4♥: run 2-3-4♠ (9) + 4♣4♦4♥ (12) = 21 — both together, disjoint
    assert analyze_hand("rami", "2S 3S 4S 4C 4D 4H").opening_points == 21
    # A♥ K♥ Q♥ 2♥ 3♥ (the ace used once): Q-K-A = 31 beats A-2-3 = 6
    assert analyze_hand("rami", "AH KH QH 2H 3H").opening_points == 31


def test_gin_and_cardverse_report_no_opening():
    for variant in ("gin", "cardverse"):
        a = analyze_hand(variant, "10H JH QH KH")
        assert a.opening_points is None and a.can_open is None


# ---------------------------------------------------------------------------------------------
# KIROLO series (§1.6, Decisions 1.12.8 / 1.12.10) and objective (§7)
# ---------------------------------------------------------------------------------------------

def test_kirolo_groups_of_three_to_five_distinct_elements():
    # FI5 WA5 EA5 -> group
    assert_analysis(analyze_hand("kirolo", "FI05a WA05a EA05a"),
                    melds=[group("FI05a", "WA05a", "EA05a")], deadwood=[], points=0)
    # all five elements: one group of 5 is the only way to meld all five cards
    assert_analysis(analyze_hand("kirolo", "ME05a FI05a WO05a WA05a EA05a"),
                    melds=[group("FI05a", "WA05a", "EA05a", "WO05a", "ME05a")], deadwood=[], points=0)


def test_kirolo_group_never_holds_two_copies():
    # FI5a FI5b WA5: only two distinct elements -> no group; 3 cards, 5+5+5 = 15
    assert_analysis(analyze_hand("kirolo", "FI05a FI05b WA05a"),
                    melds=[], deadwood=["FI05a", "FI05b", "WA05a"], points=15)


def test_kirolo_two_copies_plus_joker_is_no_series():
    # FI5 FI5 JOKER (§1.6 example ❌): neither a group (same element twice) nor a run (same value
    # twice) -> 3 unmelded cards, 5 + 5 + 0 = 10
    assert_analysis(analyze_hand("kirolo", "FI05a FI05b JOKER"),
                    melds=[], deadwood=["FI05a", "FI05b", "JOKER"], points=10)


def test_kirolo_runs_do_not_wrap():
    # FI12 FI1 FI2 (§1.6 example ❌): 12 + 1 + 2 = 15 over 3 cards
    assert_analysis(analyze_hand("kirolo", "FI12a FI01a FI02a"),
                    melds=[], deadwood=["FI01a", "FI02a", "FI12a"], points=15)
    # FI11 FI12 FI1: 11 + 12 + 1 = 24
    assert_analysis(analyze_hand("kirolo", "FI11a FI12a FI01a"),
                    melds=[], deadwood=["FI01a", "FI11a", "FI12a"], points=24)
    # FI7 FI8 FI9 (§1.6 example ✅)
    assert_analysis(analyze_hand("kirolo", "FI08a FI07a FI09a"),
                    melds=[run("FI07a", "FI08a", "FI09a")], deadwood=[], points=0)


def test_kirolo_full_run_one_to_twelve():
    hand = " ".join(f"WO{v:02d}a" for v in range(12, 0, -1))
    a = analyze_hand("kirolo", hand)
    assert a.deadwood_count == 0 and a.deadwood_points == 0
    assert all(m.kind == "run" for m in a.melds)
    assert sorted(c for m in a.melds for c in m.cards) == sorted(hand.split())


def test_kirolo_joker_fills_a_run_hole():
    # WA4 JOKER WA6 (§1.6 example ✅): the joker is WA5
    assert_analysis(analyze_hand("kirolo", "WA04a JOKER WA06a"),
                    melds=[run("WA04a", "JOKER", "WA06a", stands=("WA05",))], deadwood=[], points=0)


def test_kirolo_joker_at_a_run_end_without_wrap():
    # FI11 FI12 JOKER: nothing after 12 -> JOKER = FI10
    assert_analysis(analyze_hand("kirolo", "FI11a FI12a JOKER"),
                    melds=[run("JOKER", "FI11a", "FI12a", stands=("FI10",))], deadwood=[], points=0)
    # FI1 FI2 JOKER: nothing before 1 -> JOKER = FI03
    assert_analysis(analyze_hand("kirolo", "FI01a FI02a JOKER"),
                    melds=[run("FI01a", "FI02a", "JOKER", stands=("FI03",))], deadwood=[], points=0)


def test_kirolo_joker_in_a_group_stands_for_a_missing_element():
    (meld,) = analyze_hand("kirolo", "FI09a WA09a JOKER").melds
    assert meld.kind == "group" and meld.cards == ("FI09a", "WA09a", "JOKER")
    assert group_alternatives(meld) == [{"EA09", "WO09", "ME09"}]


def test_kirolo_two_copies_in_two_different_melds():
    # FI5 WA5 EA5 (group) + FI4 FI5 FI6 (run), one copy of FI5 in each -> everything melded
    a = analyze_hand("kirolo", "FI05a FI05b WA05a EA05a FI04a FI06a")
    assert a.deadwood == () and a.deadwood_points == 0
    # which copy goes where is immaterial: compare without the copy letter
    assert Counter((m.kind, tuple(c[:4] for c in m.cards)) for m in a.melds) == Counter({
        ("group", ("FI05", "WA05", "EA05")): 1, ("run", ("FI04", "FI05", "FI06")): 1})
    assert sorted(c for m in a.melds for c in m.cards if c.startswith("FI05")) == ["FI05a", "FI05b"]
    # FI7 FI8 FI9 twice -> two runs FI7-FI8-FI9 (copies in any combination)
    a = analyze_hand("kirolo", "FI07a FI07b FI08a FI08b FI09a FI09b")
    assert a.deadwood == () and a.deadwood_points == 0
    assert [(m.kind, tuple(c[:4] for c in m.cards)) for m in a.melds] == [
        ("run", ("FI07", "FI08", "FI09"))] * 2
    assert sorted(c for m in a.melds for c in m.cards) == sorted(
        "FI07a FI07b FI08a FI08b FI09a FI09b".split())


def test_kirolo_max_jokers_per_series_in_a_run():
    hand = "FI05a FI08a JOKER JOKER"
    # 1 joker per series: FI5 and FI8 each lack a second natural card -> 4 cards, 5 + 8 = 13
    assert_analysis(analyze_hand("kirolo", hand),
                    melds=[], deadwood=["FI05a", "FI08a", "JOKER", "JOKER"], points=13)
    assert_analysis(analyze_hand("kirolo", hand, options={"max_jokers_per_series": 1}),
                    melds=[], deadwood=["FI05a", "FI08a", "JOKER", "JOKER"], points=13)
    # 2 jokers per series: FI5 [FI6] [FI7] FI8
    assert_analysis(analyze_hand("kirolo", hand, options={"max_jokers_per_series": 2}),
                    melds=[run("FI05a", "JOKER", "JOKER", "FI08a", stands=("FI06", "FI07"))],
                    deadwood=[], points=0)


def test_kirolo_max_jokers_per_series_in_a_group():
    hand = "FI05a WA05a JOKER JOKER"
    # 1 per series: FI5 WA5 JOKER, the other joker left (1 card, value 0)
    assert_analysis(analyze_hand("kirolo", hand), melds=[group("FI05a", "WA05a", "JOKER",
                                                              stands=("EA05/WO05/ME05",))],
                    deadwood=["JOKER"], points=0)
    # 2 per series: a group of four
    a = analyze_hand("kirolo", hand, options={"max_jokers_per_series": 2})
    assert a.deadwood_count == 0
    (meld,) = a.melds
    assert meld.kind == "group" and meld.cards == ("FI05a", "WA05a", "JOKER", "JOKER")


def test_kirolo_series_needs_two_element_cards_even_with_two_jokers():
    # FI5 JOKER JOKER: |N| = 1 < 2 -> no series; 3 cards, value 5
    assert_analysis(analyze_hand("kirolo", "FI05a JOKER JOKER", options={"max_jokers_per_series": 2}),
                    melds=[], deadwood=["FI05a", "JOKER", "JOKER"], points=5)


def test_kirolo_fewest_cards_beats_lowest_value():
    # FI1 WA1 EA1 EA3 JOKER:
    #   FI1 WA1 EA1 JOKER (group of 4)  -> EA3 left: 1 card, value 3
    #   EA1 [EA2] EA3 (run)             -> FI1 WA1 left: 2 cards, value 2   (lower value, more cards)
    #   FI1 WA1 EA1 (group)             -> EA3 JOKER left: 2 cards, value 3
    assert_analysis(analyze_hand("kirolo", "FI01a WA01a EA01a EA03a JOKER"),
                    melds=[group("FI01a", "WA01a", "EA01a", "JOKER", stands=("WO01/ME01",))],
                    deadwood=["EA03a"], points=3, count=1)


def test_kirolo_equal_card_counts_then_lowest_value():
    # FI12 WA12 FI1 WA1 JOKER: the joker melds either pair, leaving 2 cards either way
    #   FI12 WA12 JOKER -> FI1 WA1 left, value 2;  FI1 WA1 JOKER -> FI12 WA12 left, value 24
    a = analyze_hand("kirolo", "FI12a WA12a FI01a WA01a JOKER")
    assert_analysis(a, melds=[group("FI12a", "WA12a", "JOKER", stands=("EA12/WO12/ME12",))],
                    deadwood=["FI01a", "WA01a"], points=2)


def test_kirolo_unmelded_joker_is_a_card_worth_zero():
    # FI1 WO9 JOKER: no series -> 3 cards, 1 + 9 + 0 = 10
    assert_analysis(analyze_hand("kirolo", "FI01a WO09a JOKER"),
                    melds=[], deadwood=["FI01a", "WO09a", "JOKER"], points=10)


def test_kirolo_exchange_and_search_are_left_out():
    # FI5 WA5 EA5 + Exchange, Search (English and French names): the action cards are no part of
    # the analysis -> nothing left
    a = analyze_hand("kirolo", "FI05a EXCHANGE WA05a SEARCH EA05a ECHANGE FOUILLE")
    assert_analysis(a, melds=[group("FI05a", "WA05a", "EA05a")], deadwood=[], points=0)
    # FI5 + Exchange: one card left, worth 5
    assert_analysis(analyze_hand("kirolo", "FI05a EXCHANGE"), melds=[], deadwood=["FI05a"], points=5)
    # only action cards: nothing at all
    assert_analysis(analyze_hand("kirolo", "SEARCH EXCHANGE"), melds=[], deadwood=[], points=0)


def test_kirolo_reports_no_opening():
    a = analyze_hand("kirolo", "FI05a WA05a EA05a")
    assert a.opening_points is None and a.can_open is None


def test_empty_hand_everywhere():
    for variant in meldmind.VARIANTS:
        a = analyze_hand(variant, "")
        assert a.melds == () and a.deadwood == () and a.deadwood_points == 0 and a.deadwood_count == 0


def test_kirolo_whole_deck_is_forty_runs():
    """The largest KIROLO hand: every element card, both copies, melds in 40 runs of three (more
    melds than the partition search once had room for: it wrote past its path and crashed)."""
    hand = [f"{e}{v:02d}{copy}" for e in ("FI", "WA", "EA", "WO", "ME") for v in range(1, 13)
            for copy in "ab"]
    result = analyze_hand("kirolo", hand)
    assert (result.deadwood_count, result.deadwood_points) == (0, 0)
    assert len(result.melds) >= 40
    assert Counter(c for m in result.melds for c in m.cards) == Counter(hand)


def test_kirolo_hand_past_the_kernels_capacity_is_an_input_error():
    hand = [f"{e}{v:02d}{copy}" for e in ("FI", "WA", "EA", "WO", "ME") for v in range(1, 13)
            for copy in "ab"] + ["JOKER"] * 16
    with pytest.raises(meldmind.MeldmindError, match="forms more than 2048 melds") as refused:
        analyze_hand("kirolo", hand)
    # a worker process hands its errors back pickled
    again = pickle.loads(pickle.dumps(refused.value))
    assert isinstance(again, meldmind.MeldmindError) and str(again) == str(refused.value)
