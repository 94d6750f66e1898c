"""Story tests for ``meldmind.layoff_targets``: which hand cards can extend which table meld, and
at which end (RULES.md §1.6.5, §2.5.4, §4.5.3, §5; run orders: gin A..K, CardVerse 2..A,
Rami FR A..K..A with the ace at one end only, KIROLO 1..12; max run 13 / KIROLO 12; groups max
4 / KIROLO 5).

Each table meld and hand is drawn in the comment; every expected answer is worked out by hand.
"""
import pytest

from meldmind import LayOff, Meld, MeldmindError, analyze_hand, layoff_targets


def targets(variant, hand, table, **options):
    result = layoff_targets(variant, hand, table, options=options or None)
    assert all(isinstance(t, LayOff) for t in result)
    as_tuples = [(t.card, t.meld, t.end) for t in result]
    assert len(as_tuples) == len(set(as_tuples)), "a lay-off is listed twice"
    return set(as_tuples)


# ---------------------------------------------------------------------------------------------
# run ends
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami"])
def test_run_low_and_high_end(variant):
    # table: 5♥ 6♥ 7♥        hand: 4♥ 8♥ 9♥ 5♣ 3♥
    # 4♥ extends low, 8♥ high; 9♥ / 3♥ are not adjacent, 5♣ is another suit
    assert targets(variant, "4H 8H 9H 5C 3H", ["5H 6H 7H"]) == {
        ("4H", 0, "low"), ("8H", 0, "high")}


def test_kirolo_run_low_and_high_end():
    # table: FI5 FI6 FI7     hand: FI4 FI8 FI9 WA5 FI6(second copy)
    assert targets("kirolo", "FI04a FI08a FI09a WA05a FI06b", ["FI05a FI06a FI07a"]) == {
        ("FI04a", 0, "low"), ("FI08a", 0, "high")}


def test_meld_given_as_list_string_or_meld_and_indexed():
    table = [["5H", "6H", "7H"], "9C 9D 9H", Meld(("JS", "QS", "KS"), "run")]
    # hand: 4♥ 9♠ 10♠ 8♥
    assert targets("gin", "4H 9S 10S 8H", table) == {
        ("4H", 0, "low"), ("8H", 0, "high"), ("9S", 1, "group"), ("10S", 2, "low")}


def test_no_hand_cards_no_targets():
    assert targets("gin", "", ["5H 6H 7H"]) == set()
    assert targets("gin", "AS KD", []) == set()


# ---------------------------------------------------------------------------------------------
# aces per variant
# ---------------------------------------------------------------------------------------------

def test_gin_ace_only_low():
    # J♥ Q♥ K♥ + A♥: nothing after the K (A-low only); 10♥ goes low
    assert targets("gin", "AH 10H", ["JH QH KH"]) == {("10H", 0, "low")}
    # 2♥ 3♥ 4♥ + A♥: the ace goes below 2
    assert targets("gin", "AH 5H", ["2H 3H 4H"]) == {("AH", 0, "low"), ("5H", 0, "high")}
    # A♥ 2♥ 3♥ + K♥ 4♥: nothing below the ace (no wrap)
    assert targets("gin", "KH 4H", ["AH 2H 3H"]) == {("4H", 0, "high")}


def test_cardverse_ace_only_high():
    # J♥ Q♥ K♥ + A♥ 10♥: A after the K
    assert targets("cardverse", "AH 10H", ["JH QH KH"]) == {("AH", 0, "high"), ("10H", 0, "low")}
    # 2♥ 3♥ 4♥ + A♥ 5♥: nothing below 2
    assert targets("cardverse", "AH 5H", ["2H 3H 4H"]) == {("5H", 0, "high")}
    # Q♥ K♥ A♥ + J♥ 2♥: nothing after the ace
    assert targets("cardverse", "JH 2H", ["QH KH AH"]) == {("JH", 0, "low")}


def test_cardverse_ace_high_option_keeps_positions():
    assert targets("cardverse", "AH 10H", ["JH QH KH"], ace_high=True) == {
        ("AH", 0, "high"), ("10H", 0, "low")}
    assert targets("cardverse", "AH 5H", ["2H 3H 4H"], ace_high=True) == {("5H", 0, "high")}


def test_rami_ace_low_or_high():
    # 2♥ 3♥ 4♥ + A♥ 5♥: A below 2
    assert targets("rami", "AH 5H", ["2H 3H 4H"]) == {("AH", 0, "low"), ("5H", 0, "high")}
    # J♥ Q♥ K♥ + A♥ 10♥: A after K
    assert targets("rami", "AH 10H", ["JH QH KH"]) == {("AH", 0, "high"), ("10H", 0, "low")}
    # Q♥ K♥ A♥ + J♥ 2♥: nothing after the high ace (K-A-2 invalid)
    assert targets("rami", "JH 2H", ["QH KH AH"]) == {("JH", 0, "low")}
    # A♥ 2♥ 3♥ + K♥ 4♥: nothing below the low ace
    assert targets("rami", "KH 4H", ["AH 2H 3H"]) == {("4H", 0, "high")}


def test_rami_ace_completes_a_twelve_card_run_at_either_end():
    # 2♥ .. K♥ (12 cards) + A♥: A-2-..-K or 2-..-K-A, both 13 cards
    table = ["2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"]
    assert targets("rami", "AH", table) == {("AH", 0, "low"), ("AH", 0, "high")}
    assert targets("rami", "JK1", table) == {("JK1", 0, "low"), ("JK1", 0, "high")}


@pytest.mark.parametrize("variant, hand", [
    ("gin", "AC 2C"), ("cardverse", "AC 2C"), ("rami", "AC 2C JK1"),
])
def test_thirteen_card_run_takes_nothing(variant, hand):
    # A♠..K♠ is complete: no 14th card, not even a joker
    table = ["AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"]
    assert targets(variant, hand, table) == set()


def test_kirolo_runs_stop_at_1_and_12():
    # FI10 FI11 FI12 + FI9 FI1: nothing after 12 (no wrap)
    assert targets("kirolo", "FI09a FI01a", ["FI10a FI11a FI12a"]) == {("FI09a", 0, "low")}
    # FI1 FI2 FI3 + FI12 FI4: nothing below 1
    assert targets("kirolo", "FI12a FI04a", ["FI01a FI02a FI03a"]) == {("FI04a", 0, "high")}
    # FI1..FI12 complete: nothing, not even a joker
    full = " ".join(f"FI{v:02d}a" for v in range(1, 13))
    assert targets("kirolo", "JOKER FI01b", [full], max_jokers_per_series=2) == set()


# ---------------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami"])
def test_group_takes_only_the_missing_suit(variant):
    # 7♣ 7♦ 7♥ + 7♠ 8♥ 6♣: only 7♠
    assert targets(variant, "7S 8H 6C", ["7C 7D 7H"]) == {("7S", 0, "group")}


@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami"])
def test_full_group_takes_nothing(variant):
    # 7♣ 7♦ 7♥ 7♠ is full (4 suits)
    hand = "8S JK1" if variant == "rami" else "8S"
    assert targets(variant, hand, ["7C 7D 7H 7S"]) == set()


def test_kirolo_group_missing_element_only():
    # FI5 WA5 EA5 WO5 + ME5 FI5(second copy) WA6: ME5 only (FI already there)
    assert targets("kirolo", "ME05a FI05b WA06a", ["FI05a WA05a EA05a WO05a"]) == {
        ("ME05a", 0, "group")}
    # FI5 WA5 EA5 + WO5 ME5: either
    assert targets("kirolo", "WO05a ME05a", ["FI05a WA05a EA05a"]) == {
        ("WO05a", 0, "group"), ("ME05a", 0, "group")}


def test_kirolo_group_of_five_takes_nothing():
    full = ["FI05a WA05a EA05a WO05a ME05a"]
    assert targets("kirolo", "FI05b JOKER", full, max_jokers_per_series=2) == set()
    # four elements + a joker is also five cards
    assert targets("kirolo", "ME05a JOKER", ["FI05a WA05a EA05a WO05a JOKER"],
                   max_jokers_per_series=2) == set()


def test_rami_group_with_a_joker():
    # 9♣ 9♦ JK + 9♥ 9♠ JK2: either missing suit; no second joker
    assert targets("rami", "9H 9S JK2", ["9C 9D JK1"]) == {("9H", 0, "group"), ("9S", 0, "group")}
    # 9♣ 9♦ 9♥ JK is four cards: full
    assert targets("rami", "9S", ["9C 9D 9H JK1"]) == set()


# ---------------------------------------------------------------------------------------------
# jokers
# ---------------------------------------------------------------------------------------------

def test_rami_joker_onto_a_meld_without_joker():
    # 5♥ 6♥ 7♥ + JK: at either end;  7♣ 7♦ 7♠ + JK: as the missing suit
    assert targets("rami", "JK1", ["5H 6H 7H", "7C 7D 7S"]) == {
        ("JK1", 0, "low"), ("JK1", 0, "high"), ("JK1", 1, "group")}


def test_rami_joker_not_onto_a_meld_with_a_joker():
    # 5♥ [JK=6♥] 7♥ + JK2 4♥ 8♥: the naturals only
    assert targets("rami", "JK2 4H 8H", ["5H JK1 7H"]) == {("4H", 0, "low"), ("8H", 0, "high")}


def test_rami_joker_not_past_the_ace_ends():
    # A♥ 2♥ 3♥ + JK: only above;  Q♥ K♥ A♥ + JK: only below
    assert targets("rami", "JK2", ["AH 2H 3H", "QS KS AS"]) == {("JK2", 0, "high"), ("JK2", 1, "low")}


def test_kirolo_joker_onto_a_run_up_to_the_limit():
    table = ["WA04a JOKER WA06a"]     # WA4 [WA5] WA6
    hand = "WA03a WA07a JOKER"
    # max 1 joker per series: the meld already has one -> the naturals only
    assert targets("kirolo", hand, table) == {("WA03a", 0, "low"), ("WA07a", 0, "high")}
    assert targets("kirolo", hand, table, max_jokers_per_series=1) == {
        ("WA03a", 0, "low"), ("WA07a", 0, "high")}
    # max 2: a second joker may go at either end
    assert targets("kirolo", hand, table, max_jokers_per_series=2) == {
        ("WA03a", 0, "low"), ("WA07a", 0, "high"), ("JOKER", 0, "low"), ("JOKER", 0, "high")}


def test_kirolo_lone_joker_onto_a_joker_free_series():
    # FI5 FI6 FI7 + JOKER: either end ("poser seul");  FI9 WA9 EA9 + JOKER: group
    assert targets("kirolo", "JOKER", ["FI05a FI06a FI07a", "FI09a WA09a EA09a"]) == {
        ("JOKER", 0, "low"), ("JOKER", 0, "high"), ("JOKER", 1, "group")}


def test_kirolo_group_joker_limit():
    # FI5 WA5 JOKER JOKER (max 2) + JOKER ME5: the group is at the limit for jokers, not for size
    assert targets("kirolo", "JOKER ME05a", ["FI05a WA05a JOKER JOKER"], max_jokers_per_series=2) == {
        ("ME05a", 0, "group")}
    # FI5 WA5 JOKER (max 2) + JOKER: one more joker fits
    assert targets("kirolo", "JOKER", ["FI05a WA05a JOKER"], max_jokers_per_series=2) == {
        ("JOKER", 0, "group")}


def test_kirolo_hole_filled_by_a_joker_is_not_offered_again():
    # FI1 [FI2] FI3 (max 2) + FI2 JOKER: FI2 is the joker's place, not an end; the joker goes high
    assert targets("kirolo", "FI02b JOKER", ["FI01a FI03a JOKER"], max_jokers_per_series=2) == {
        ("JOKER", 0, "high")}


# ---------------------------------------------------------------------------------------------
# table melds given as Meld, with the joker's declared card
# ---------------------------------------------------------------------------------------------

def test_meld_from_analyze_hand_is_accepted():
    # the analysis of K♥ A♥ JK reads JK = Q♥ (the only choice); J♥ then extends it low
    (meld,) = analyze_hand("rami", "KH AH JK1").melds
    assert meld.joker_stands_for == ("QH",)
    assert targets("rami", "JH 10H 2H", [meld]) == {("JH", 0, "low")}


def test_meld_with_a_joker_declared_at_the_high_end():
    # 5♥ 6♥ [JK=7♥] + 4♥ 8♥ 7♥: 4♥ low, 8♥ high; 7♥ is the joker's place
    meld = Meld(("5H", "6H", "JK1"), "run", ("7H",))
    assert targets("rami", "4H 8H 7H", [meld]) == {("4H", 0, "low"), ("8H", 0, "high")}


def test_meld_with_a_joker_in_the_middle():
    meld = Meld(("5H", "JK1", "7H"), "run", ("6H",))
    assert targets("rami", "4H 8H 6H", [meld]) == {("4H", 0, "low"), ("8H", 0, "high")}


def test_regression_meld_with_a_joker_declared_at_the_low_end():
    # BUG (package): layoff_targets ignores Meld.joker_stands_for when the joker sits at the low
    # end of a run. Table [JK=4♥] 5♥ 6♥ (declared, RULES.md §2.5.3 / §2.5.4 "joker keeps its
    # position"): the ends are 3♥ and 7♥. The package reads the joker as 7♥ and answers 4♥ low,
    # 8♥ high.
    meld = Meld(("JK1", "5H", "6H"), "run", ("4H",))
    assert targets("rami", "3H 4H 7H 8H", [meld]) == {("3H", 0, "low"), ("7H", 0, "high")}


def test_regression_meld_with_a_joker_declared_below_a_high_ace_run():
    # BUG (package), same cause: [JK=J♠] Q♠ K♠ takes 10♠ low and A♠ high; the package reads the
    # joker as A♠ and offers J♠ low, nothing high.
    meld = Meld(("JK1", "QS", "KS"), "run", ("JS",))
    assert targets("rami", "10S AS JS", [meld]) == {("10S", 0, "low"), ("AS", 0, "high")}


def test_regression_kirolo_meld_with_a_joker_declared_at_the_low_end():
    # BUG (package), same cause in KIROLO (§1.6.4: "Assignments are permanent"):
    # [JOKER=FI4] FI5 FI6 takes FI3 low and FI7 high.
    meld = Meld(("JOKER", "FI05a", "FI06a"), "run", ("FI04",))
    assert targets("kirolo", "FI03a FI07a FI04b", [meld]) == {("FI03a", 0, "low"), ("FI07a", 0, "high")}


@pytest.mark.parametrize("variant, written, hand, expected", [
    # [JK=4♥] 5♥ 6♥ written with the joker low, either way round: 3♥ low, 7♥ high
    ("rami", "JK1 5H 6H", "3H 4H 7H 8H", {("3H", 0, "low"), ("7H", 0, "high")}),
    ("rami", "6H 5H JK1", "3H 4H 7H 8H", {("3H", 0, "low"), ("7H", 0, "high")}),
    # 5♥ 6♥ [JK=7♥]: 4♥ low, 8♥ high
    ("rami", "5H 6H JK1", "3H 4H 7H 8H", {("4H", 0, "low"), ("8H", 0, "high")}),
    # [JK=J♥] Q♥ K♥ takes 10♥ low and A♥ high; Q♥ K♥ [JK=A♥] takes neither
    ("rami", "JK1 QH KH", "10H AH", {("10H", 0, "low"), ("AH", 0, "high")}),
    ("rami", "QH KH JK1", "10H AH", set()),
    ("kirolo", "JOKER FI05a FI06a", "FI03a FI07a", {("FI03a", 0, "low"), ("FI07a", 0, "high")}),
])
def test_a_run_written_as_text_declares_its_joker_by_where_it_stands(variant, written, hand,
                                                                       expected):
    """RULES.md §2.5: a run's joker stands for a declared card; written as text or a list of
    cards, its place in the run says which (a Meld says it in joker_stands_for)."""
    assert targets(variant, hand, [written]) == expected


def test_a_run_whose_joker_could_stand_at_either_end_and_is_written_out_of_place_is_refused():
    with pytest.raises(MeldmindError, match="the jokers can stand for different cards: write the "
                                            "run in order"):
        layoff_targets("rami", "10H", ["QH JK1 KH"])


def test_regression_meld_with_an_impossible_joker_declaration_is_rejected():
    # BUG (package): a declared card the joker cannot stand for (9♥ next to Q♠ K♠) is silently
    # replaced by another reading instead of being rejected like any invalid table meld.
    with pytest.raises(MeldmindError):
        layoff_targets("rami", "10S", [Meld(("JK1", "QS", "KS"), "run", ("9H",))])


@pytest.mark.parametrize("variant, group, hand, expected", [
    # 9♦ 9♥ 9♠ [JK = 9♣, the one missing suit]: a group of four, which takes nothing
    ("rami", "9D 9H 9S JK1", "9C JK2", set()),
    # 9♦ 9♥ [JK = 9♣/9♠]: 9♣ or 9♠ joins it
    ("rami", "9D 9H JK1", "9C 9S 4H", {("9C", 0, "group"), ("9S", 0, "group")}),
    # KIROLO FI5 WA5 EA5 WO5 [JOKER = ME5]: a group of five, which takes nothing
    ("kirolo", "FI05a WA05a EA05a WO05a JOKER", "ME05a", set()),
])
def test_a_group_from_analyze_hand_is_accepted_as_it_is_written(variant, group, hand, expected):
    """The analysis declares a group's joker as the missing suits (one, or "9C/9S"); given back
    as a table meld it answers as the group written as cards does."""
    (meld,) = analyze_hand(variant, group).melds
    assert meld.kind == "group" and len(meld.joker_stands_for) == 1
    assert targets(variant, hand, [meld]) == targets(variant, hand, [group]) == expected


@pytest.mark.parametrize("meld, message", [
    # one joker cannot stand for two cards (it offered 5♠ as if A♠ 2♠ 3♠ 4♠ were on the table)
    (Meld(("AS", "2S", "JK1"), "run", ("3S", "4S")), "names 2 cards, but the meld has 1 joker"),
    (Meld(("AS", "2S", "3S"), "run", ("4S",)), "names 1 card, but the meld has 0 jokers"),
    (Meld(("AS", "2S", "JK1"), "run", (5,)), "a tuple of card texts, one per joker"),
    (Meld(("AS", "2S", "JK1"), "run", None), "a tuple of card texts, one per joker"),
    (Meld(("AS", "2S", "JK1"), "run", "3S"), "a tuple of card texts, one per joker"),
    # 9♥ is in the group: the joker stands for a missing suit
    (Meld(("9D", "9H", "9S", "JK1"), "group", ("9H",)), "a joker cannot stand for 9H"),
    (Meld(("9D", "9H", "9S"), "run"), "9D 9H 9S is not a valid rami run"),
    (Meld(("5S", "6S", "7S"), "group"), "5S 6S 7S is not a valid rami group"),
    (Meld(("5S", "6S", "7S"), "sequence"), "kind is 'group' or 'run', not 'sequence'"),
])
def test_a_meld_that_declares_what_it_cannot_be_is_refused(meld, message):
    with pytest.raises(MeldmindError, match=message):
        layoff_targets("rami", "4S 8S 9C", [meld])


def test_a_kirolo_series_cannot_hold_an_action_card():
    """RULES.md §1.6: a series is Element cards and Jokers; EXCHANGE and SEARCH are in none."""
    for meld in ("FI01a FI02a FI03a EXCHANGE", "FI05a WA05a EA05a SEARCH"):
        with pytest.raises(MeldmindError, match="is not a valid kirolo meld: .* is in no meld"):
            layoff_targets("kirolo", "FI04a", [meld])


# ---------------------------------------------------------------------------------------------
# invalid table melds
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant, meld", [
    ("gin", "KH AH 2H"),
    ("gin", "QH KH AH"),
    ("cardverse", "AH 2H 3H"),
    ("gin", "5H 6H"),
    ("gin", "7C 7D 8H"),
    ("rami", "5H JK1 JK2"),
    ("rami", "5H 6H JK1 JK2"),
    ("kirolo", "FI12a FI01a FI02a"),
    ("kirolo", "FI05a FI05b JOKER"),
    ("kirolo", "FI05a JOKER JOKER"),
])
def test_invalid_table_meld_is_rejected(variant, meld):
    hand = "FI04a" if variant == "kirolo" else "4H"
    with pytest.raises(MeldmindError, match="not a valid"):
        layoff_targets(variant, hand, [meld])


def test_two_jokers_in_a_kirolo_series_need_the_option():
    table = ["FI05a JOKER JOKER FI08a"]
    with pytest.raises(MeldmindError, match="not a valid"):
        layoff_targets("kirolo", "FI04a", table)
    assert targets("kirolo", "FI04a FI09a", table, max_jokers_per_series=2) == {
        ("FI04a", 0, "low"), ("FI09a", 0, "high")}
