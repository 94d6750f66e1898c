"""Hand analysis at its edges: the order of the deadwood, the second Rami joker in the lay-off
kernel, a declared joker that stands for a card of its own run, a KIROLO hand of 16 jokers
(each section names the bug it catches).

Every hand is drawn in a comment and every expected answer is worked out by hand from RULES.md
(§0.2 E6 suit order, §2.5.4 lay-off, §7 hand analysis) or from the API's documented contract.
"""
import subprocess
import sys

import pytest
from numba import njit

from meldmind import (Meld, MeldmindError, analyze_batch, analyze_hand, encode_hands,
                      layoff_targets, melds_in)
from meldmind.cli import main
from meldmind.kernels import bridge

RUN = 1          # meld_catalog's kind: 0 group, 1 run
HIGH_END = 1     # layoff_cards' end: 0 low, 1 high
RAMI_ID = 2      # kernel id of rami (bit layout: suit * 13 + rank - 1, jokers at 52 and 53)


# ---------------------------------------------------------------------------------------------
# Deadwood is listed by rank, then suit (E6: C < D < H < S), jokers last — not in card-id order
# (mutants: analysis._leftover_order putting jokers first; sorting by card bit, i.e. suit first,
# which the analysis doctest also catches for gin)
# ---------------------------------------------------------------------------------------------

def test_same_rank_deadwood_follows_the_suit_order():
    # nothing melds: 9♠ 2♥ 9♣ K♣ 2♦ — ranks 2 2 9 9 K, ties by suit C < D < H < S
    a = analyze_hand("cardverse", "9S 2H 9C KC 2D")
    assert a.deadwood == ("2D", "2H", "9C", "9S", "KC")
    assert a.deadwood_points == 2 + 2 + 9 + 9 + 10


def test_rami_deadwood_by_rank_with_the_jokers_last():
    # Q♣ 3♠ A♥ 8♦ + JK: four ranks, four suits, no two naturals a joker could join -> no meld;
    # by rank A♥ 3♠ 8♦ Q♣, then the joker; penalties A 15, joker 20
    a = analyze_hand("rami", "QC 3S JK1 AH 8D")
    assert a.melds == ()
    assert a.deadwood == ("AH", "3S", "8D", "QC", "JK1")
    assert a.deadwood_points == 15 + 3 + 8 + 10 + 20
    # two jokers and one natural are no meld either (§2.5.3): K♦ 4♣ 9♥ JK JK
    a = analyze_hand("rami", "JK2 KD 4C JK1 9H")
    assert a.deadwood == ("4C", "9H", "KD", "JK1", "JK2")
    assert a.deadwood_points == 4 + 9 + 10 + 20 + 20


def test_kirolo_deadwood_by_value_then_element():
    # no series: ME02 FI09 WA02 EA11 — values 2 2 9 11, ties by element FI < WA < EA < WO < ME
    a = analyze_hand("kirolo", "ME02a FI09a WA02a EA11a")
    assert a.deadwood == ("WA02a", "ME02a", "FI09a", "EA11a")
    assert (a.deadwood_count, a.deadwood_points) == (4, 2 + 2 + 9 + 11)


def test_kirolo_deadwood_of_one_value_by_element_then_copy():
    # two 4s of Earth and one of Fire, no series: Fire before Earth (E6), then copy a before b
    assert analyze_hand("kirolo", "EA04a FI04b EA04b WA09a").deadwood == (
        "FI04b", "EA04a", "EA04b", "WA09a")


@pytest.mark.parametrize("hand", ["AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
                                  "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH JK1",
                                  "AH 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK1"])
def test_a_whole_suit_is_one_run_in_the_rami_melds(hand):
    """A...K and 2...A are the same thirteen cards (RULES.md §2.5.2): ``melds_in`` lists that run
    once, with its joker if it has one."""
    melds = melds_in("rami", hand)
    assert len(melds) == len(set(melds))
    assert sum(len(m.cards) == 13 for m in melds) == 1


def test_kirolo_action_cards_are_listed_apart_and_counted_nowhere(capsys):
    """EXCHANGE and SEARCH make no meld and are no deadwood; the analysis names them rather
    than drop them, in Python and on the command line."""
    a = analyze_hand("kirolo", "FI07a EXCHANGE SEARCH JOKER FI08a FI09a")
    assert a.action_cards == ("EXCHANGE", "SEARCH")
    assert [(m.cards, m.joker_stands_for) for m in a.melds] == \
        [(("FI07a", "FI08a", "FI09a", "JOKER"), ("FI10",))]
    assert (a.deadwood, a.deadwood_count, a.deadwood_points) == ((), 0, 0)
    assert analyze_hand("gin", "AS 2S 3S").action_cards == ()
    assert main(["analyze", "kirolo", "FI07a", "EXCHANGE", "SEARCH"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].strip() == \
        "action cards EXCHANGE SEARCH: in no meld, counted in no deadwood"


# ---------------------------------------------------------------------------------------------
# The lay-off kernel reports a Rami joker "as its own bit" (handalg.mm_layoff_cards), for either
# joker: a hand holding only JK2 (bit 53) may lay it at a run end (§2.5.4: a joker may be laid off
# onto a meld without a joker)
# (mutant: the kernel reading only bit 52 as "the hand holds a joker")
# ---------------------------------------------------------------------------------------------

def test_rami_layoff_kernel_offers_the_second_joker():
    layoff = njit(lambda meld, hand: bridge.layoff_cards(RAMI_ID, RUN, meld, 0, 0, hand, 1,
                                                         HIGH_END))
    run_5_6_7_hearts = int(encode_hands("rami", ["5H 6H 7H"])[0])
    jk2 = 1 << 53
    eight_hearts = 1 << (2 * 13 + 7)
    # 5♥ 6♥ 7♥ + JK2 alone: the joker goes above (as 8♥)
    assert layoff(run_5_6_7_hearts, jk2) == jk2
    # + JK2 8♥: both fit the high end
    assert layoff(run_5_6_7_hearts, jk2 | eight_hearts) == jk2 | eight_hearts
    # + both jokers: each is reported as its own bit
    assert layoff(run_5_6_7_hearts, jk2 | 1 << 52) == jk2 | 1 << 52


# ---------------------------------------------------------------------------------------------
# A run's joker stands for a card *missing* from the run (§2.5.3, §1.6.3): a Meld declaring its
# joker as one of its own natural cards is no valid table meld
# (mutant: _table_meld checking only that naturals + declared cards form a run)
# ---------------------------------------------------------------------------------------------

def test_rami_declared_joker_cannot_stand_for_a_card_of_the_run():
    # 5♥ 6♥ 7♥ JK declared as 6♥: 6♥ is already there, so the joker stands for nothing
    with pytest.raises(MeldmindError, match="cannot stand for 6H"):
        layoff_targets("rami", "4H 8H", [Meld(("5H", "6H", "7H", "JK1"), "run", ("6H",))])
    # declared as 8♥ (missing, at the high end) it is 5♥..8♥: 4♥ goes low, 9♥ high, 8♥ nowhere
    meld = Meld(("5H", "6H", "7H", "JK1"), "run", ("8H",))
    assert {(t.card, t.end) for t in layoff_targets("rami", "4H 8H 9H", [meld])} == {
        ("4H", "low"), ("9H", "high")}


def test_kirolo_declared_joker_cannot_stand_for_a_card_of_the_run():
    # WA4 WA5 WA6 JOKER declared as WA5: WA5 is a natural card of the run
    with pytest.raises(MeldmindError, match="cannot stand for"):
        layoff_targets("kirolo", "WA03a", [Meld(("WA04a", "WA05a", "WA06a", "JOKER"), "run",
                                               ("WA05",))])


# ---------------------------------------------------------------------------------------------
# A KIROLO deck may hold up to 16 jokers (§1.2 ``jokers`` 0-16), so one hand may hold all 16:
# analyze_batch accepts the row and agrees with analyze_hand
# (mutant: analyze_batch refusing rows with ``jokers >= 16``)
# ---------------------------------------------------------------------------------------------

def test_kirolo_batch_accepts_a_hand_with_all_sixteen_jokers():
    # FI5 WA5 + one joker make a group (max 1 joker per series); 15 jokers stay: 15 cards worth 0
    hand = "FI05a WA05a " + " ".join(["JOKER"] * 16)
    a = analyze_hand("kirolo", hand)
    assert (a.deadwood_count, a.deadwood_points) == (15, 0)
    batch = analyze_batch("kirolo", encode_hands("kirolo", [hand, "FI05a WA05a EA05a"]))
    assert batch.deadwood_count.tolist() == [15, 0]
    assert batch.deadwood_points.tolist() == [0, 0]
    # with up to 2 jokers per series one more joker joins the group: 14 left
    batch = analyze_batch("kirolo", encode_hands("kirolo", [hand]),
                          options={"max_jokers_per_series": 2})
    assert batch.deadwood_count.tolist() == [14]


# ---------------------------------------------------------------------------------------------
# The kernel's own entry points refuse a joker count its fixed buffers are not sized for (mutant:
# no check, when 45 jokers fill the 48-meld search path and more overrun it)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("jokers", [-1, 17, 45])
def test_kernel_entry_points_refuse_more_jokers_than_a_hand_holds(jokers):
    from meldmind.kernels import handalg
    kirolo = 3
    for entry in (handalg.best_partition_of, handalg.melds_in_hand):
        with pytest.raises(ValueError, match=f"0 to 16 jokers, not {jokers}"):
            entry(kirolo, 1, 0, jokers)
    # sixteen is the most a KIROLO hand holds, and the kernel takes it
    assert handalg.best_partition_of(kirolo, 1, 0, 16)[1].size == 0


# ---------------------------------------------------------------------------------------------
# A hand with too many ways to meld is refused once the exact search has tried MAX_SEARCH_STEPS
# partitions (found by a fuzzer: this 60-card KIROLO hand, far beyond any game's, forms only 629
# melds, under the meld limit, and the search ran for 552 s). Run in a subprocess, so that a
# search without the limit fails the test by its timeout instead of holding the suite.
# ---------------------------------------------------------------------------------------------

_SIXTY_CARDS = ("WO06b ME07a WA05b EA03a WA11b WO07a WA03b FI05b EA06a ME04b WA03a WO05a WA06b "
                "WO05b FI01b ME08b EA09b WO03a ME08a WA09a WA01a WO01b WO08a WA08a WA12b WO09b "
                "WA01b WA11a WA09b EA12a ME01b WA06a FI07a FI06b EA01a EA05b ME06a ME03b WA02b "
                "ME02a EA07b EA05a FI01a FI04a ME05a FI09a ME09a EA01b JOKER WA07b ME01a WO02a "
                "ME11b ME05b WO01a WO04a EA07a")
_REFUSALS = f"""
import meldmind
hand = {_SIXTY_CARDS!r}
for analyse in (lambda: meldmind.analyze_hand("kirolo", hand),
                lambda: meldmind.analyze_batch("kirolo", meldmind.encode_hands("kirolo", [hand]))):
    try:
        analyse()
    except meldmind.MeldmindError as error:
        print(error)
"""


def test_a_hand_with_too_many_ways_to_meld_is_refused_not_searched_for_minutes():
    run = subprocess.run([sys.executable, "-c", _REFUSALS], capture_output=True, text=True,
                         timeout=120, check=True)
    assert run.stdout.splitlines() == [
        "the hand has more ways to meld than the exact search tries (20,000,000 steps)",
        "hand 0 is too meld-dense to analyse exactly: more than 2048 melds, or more than "
        "20,000,000 search steps"]
