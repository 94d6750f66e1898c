"""Property tests of the hand analysis (RULES.md §7) on hypothesis-drawn hands of every variant.

For every hand:
* the partition is disjoint and covers the hand (melds' cards + deadwood == the hand, KIROLO
  Exchange/Search left out);
* every meld is valid, checked by the small independent checker below (written from RULES.md
  §1.6, §2.5, §4.5, §5.2 only; it shares nothing with the package);
* no valid meld hides in the deadwood (a necessary condition of optimality);
* deadwood_points is the sum of the deadwood cards' values, deadwood_count their number;
* ``analyze_batch(encode_hands(...))`` agrees with ``analyze_hand`` (points, counts, Rami opening);
* Rami: the opening is at least the value of the melds of the partition, 0 exactly when nothing
  melds, and ``can_open`` compares it with the threshold.
"""
from collections import Counter
from itertools import combinations

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from meldmind import analyze_batch, analyze_hand, encode_hands, melds_in

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ---------------------------------------------------------------------------------------------
# decks, written out from RULES.md §0.3 / §1.1 / §7
# ---------------------------------------------------------------------------------------------

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["C", "D", "H", "S"]
DECK52 = [r + s for s in SUITS for r in RANKS]
RAMI_JOKERS = ["JK1", "JK2"]
ELEMENTS = ["FI", "WA", "EA", "WO", "ME"]
KIROLO_ELEMENT_CARDS = [f"{e}{v:02d}{c}" for e in ELEMENTS for v in range(1, 13) for c in "ab"]
KIROLO_IGNORED = ("EXCHANGE", "SEARCH")


def parse52(card):
    """'10H' -> (10, 'H'), 'AS' -> (1, 'S')."""
    return RANKS.index(card[:-1]) + 1, card[-1]


def parse_kirolo(card):
    """'FI07a' or 'FI07' -> ('FI', 7)."""
    return card[:2], int(card[2:4])


def is_joker(variant, card):
    return card in RAMI_JOKERS if variant == "rami" else (variant == "kirolo" and card == "JOKER")


# ---------------------------------------------------------------------------------------------
# card values (§7 table)
# ---------------------------------------------------------------------------------------------

def card_value(variant, card, ace_high=False):
    if variant == "kirolo":
        return 0 if card == "JOKER" else parse_kirolo(card)[1]
    if variant == "rami" and card in RAMI_JOKERS:
        return 20
    rank = parse52(card)[0]
    if rank == 1:
        return {"gin": 1, "cardverse": 11 if ace_high else 1, "rami": 15}[variant]
    return min(rank, 10)


# ---------------------------------------------------------------------------------------------
# independent meld checker
# ---------------------------------------------------------------------------------------------

def ace_positions(variant):
    """Where an ace may sit in a run: gin low (1), CardVerse high (14), Rami either, one at a time."""
    return {"gin": (1,), "cardverse": (14,), "rami": (1, 14)}[variant]


def run_window_exists(positions, jokers, low, high, max_len):
    """Pairwise distinct positions that, with ``jokers`` more cards, fill a window [lo, hi] inside
    [low, high] of length len(positions) + jokers <= max_len."""
    if len(set(positions)) != len(positions):
        return False
    length = len(positions) + jokers
    if length > max_len:
        return False
    return any(all(lo <= p <= lo + length - 1 for p in positions)
               for lo in range(low, high - length + 2))


def std_meld_possible(variant, naturals, jokers):
    """Can these natural cards and ``jokers`` jokers form a valid meld (any joker reading)?"""
    max_jk = 1 if variant == "rami" else 0
    if jokers > max_jk or len(naturals) < 2 or len(naturals) + jokers < 3:
        return False
    parsed = [parse52(c) for c in naturals]
    ranks = {r for r, _ in parsed}
    suits = [s for _, s in parsed]
    size = len(naturals) + jokers
    if len(ranks) == 1 and len(set(suits)) == len(suits) and size <= 4:
        return True
    if len(set(suits)) == 1:
        for ace in ace_positions(variant):
            pos = [ace if r == 1 else r for r, _ in parsed]
            low, high = (1, 13) if ace == 1 else (2, 14)   # A..K or 2..A
            if run_window_exists(pos, jokers, low, high, 13):
                return True
    return False


def kirolo_meld_possible(naturals, jokers, max_jokers):
    if jokers > max_jokers or len(naturals) < 2 or len(naturals) + jokers < 3:
        return False
    parsed = [parse_kirolo(c) for c in naturals]
    elements = [e for e, _ in parsed]
    values = [v for _, v in parsed]
    size = len(naturals) + jokers
    if len(set(values)) == 1 and len(set(elements)) == len(elements) and size <= 5:
        return True
    return len(set(elements)) == 1 and run_window_exists(values, jokers, 1, 12, 12)


def meld_possible(variant, cards, max_jokers=1):
    naturals = [c for c in cards if not is_joker(variant, c)]
    jokers = len(cards) - len(naturals)
    if variant == "kirolo":
        return kirolo_meld_possible(naturals, jokers, max_jokers)
    return std_meld_possible(variant, naturals, jokers)


def check_meld(variant, meld, max_jokers=1):
    """Validate one Meld of the analysis, its kind, the order of a run and each joker's card.
    Returns the meld's Rami FR opening value (§2.1) when ``variant`` is rami."""
    cards = list(meld.cards)
    assert meld_possible(variant, cards, max_jokers), meld
    jokers = [c for c in cards if is_joker(variant, c)]
    naturals = [c for c in cards if not is_joker(variant, c)]
    assert len(meld.joker_stands_for) == len(jokers), meld
    if variant == "kirolo":
        parsed = [parse_kirolo(c) for c in naturals]
        same_value = len({v for _, v in parsed}) == 1
    else:
        parsed = [parse52(c) for c in naturals]
        same_value = len({r for r, _ in parsed}) == 1
    if meld.kind == "group":
        assert same_value, meld
        # jokers last; each joker's alternatives are exactly the missing suits / elements
        assert cards[len(naturals):] == jokers, meld
        if variant == "kirolo":
            value = parsed[0][1]
            missing = {f"{e}{value:02d}" for e in ELEMENTS} - {e + f"{value:02d}" for e, _ in parsed}
        else:
            rank = RANKS[parsed[0][0] - 1]
            missing = {rank + s for s in SUITS} - set(naturals)
        for alternatives in meld.joker_stands_for:
            assert set(alternatives.split("/")) == missing, meld
        if variant == "rami":
            rank = parsed[0][0]
            return len(cards) * (11 if rank == 1 else min(rank, 10))
        return None
    assert meld.kind == "run", meld
    # a run: read the jokers as their declared cards; cards must be consecutive in the shown order
    stands = iter(meld.joker_stands_for)
    full = [next(stands) if is_joker(variant, c) else c for c in cards]
    if variant == "kirolo":
        fp = [parse_kirolo(c) for c in full]
        assert len({e for e, _ in fp}) == 1, meld
        positions = [v for _, v in fp]
        assert positions == list(range(positions[0], positions[0] + len(positions))), meld
        assert 1 <= positions[0] and positions[-1] <= 12, meld
        return None
    fp = [parse52(c) for c in full]
    assert len({s for _, s in fp}) == 1, meld
    assert len(set(full)) == len(full), meld          # a joker never doubles a natural card
    for ace in ace_positions(variant):
        positions = [ace if r == 1 else r for r, _ in fp]
        if positions == list(range(positions[0], positions[0] + len(positions))):
            break
    else:
        raise AssertionError(f"run out of order or not consecutive: {meld}")
    assert len(full) <= 13, meld
    if variant == "rami":
        return sum((1 if p == 1 else 11) if r == 1 else min(r, 10) for (r, _), p in zip(fp, positions))
    return None


# ---------------------------------------------------------------------------------------------
# hand strategies: uniform hands and "dense" hands drawn from a small window of the deck
# ---------------------------------------------------------------------------------------------

@st.composite
def hands_52(draw, variant):
    max_size = 14 if variant == "rami" else 11
    if draw(st.booleans()):
        pool = DECK52
    else:
        lo = draw(st.integers(1, 13))
        width = draw(st.integers(3, 6))
        suits = draw(st.lists(st.sampled_from(SUITS), min_size=1, max_size=4, unique=True))
        ranks = [((lo - 1 + i) % 13) + 1 for i in range(width)]
        pool = [RANKS[r - 1] + s for r in ranks for s in suits]
        pool += draw(st.lists(st.sampled_from(DECK52), max_size=4, unique=True))
        pool = sorted(set(pool), key=DECK52.index)
    naturals = draw(st.lists(st.sampled_from(pool), max_size=min(max_size, len(pool)), unique=True))
    jokers = draw(st.sampled_from(([], ["JK1"], ["JK2"], RAMI_JOKERS))) if variant == "rami" else []
    hand = naturals + jokers
    return draw(st.permutations(hand))


@st.composite
def hands_kirolo(draw):
    if draw(st.booleans()):
        pool = KIROLO_ELEMENT_CARDS
    else:
        elements = draw(st.lists(st.sampled_from(ELEMENTS), min_size=1, max_size=3, unique=True))
        lo = draw(st.integers(1, 12))
        width = draw(st.integers(3, 6))
        pool = [f"{e}{v:02d}{c}" for e in elements for v in range(lo, min(12, lo + width - 1) + 1)
                for c in "ab"]
    naturals = draw(st.lists(st.sampled_from(pool), max_size=min(14, len(pool)), unique=True))
    actions = draw(st.lists(st.sampled_from(["JOKER", "JOKER", "EXCHANGE", "SEARCH"]), max_size=3))
    return draw(st.permutations(naturals + actions))


def hand_strategy(variant):
    return hands_kirolo() if variant == "kirolo" else hands_52(variant)


# ---------------------------------------------------------------------------------------------
# the checks
# ---------------------------------------------------------------------------------------------

def check_analysis(variant, hand, options):
    options = options or {}
    max_jokers = options.get("max_jokers_per_series", 1)
    ace_high = options.get("ace_high", False)
    a = analyze_hand(variant, hand, options=options)

    # partition: disjoint and covering
    meldable = [c for c in hand if c not in KIROLO_IGNORED]
    used = [c for m in a.melds for c in m.cards] + list(a.deadwood)
    assert Counter(used) == Counter(meldable), (hand, a)

    # every meld valid; Rami opening value of the partition
    partition_value = 0
    for meld in a.melds:
        value = check_meld(variant, meld, max_jokers)
        partition_value += value or 0

    # the deadwood
    assert a.deadwood_count == len(a.deadwood)
    assert a.deadwood_points == sum(card_value(variant, c, ace_high) for c in a.deadwood)
    # optimality, necessary condition: no meld of 3 to 5 cards left inside the deadwood
    # (every valid meld contains a valid meld of at most 5 cards)
    for size in (3, 4, 5):
        for combo in combinations(a.deadwood, size):
            assert not meld_possible(variant, list(combo), max_jokers), (combo, a)

    if variant == "rami":
        threshold = options.get("opening_threshold") or (50 if options.get("num_players", 2) == 2 else 30)
        assert a.opening_points >= partition_value
        assert (a.opening_points == 0) == (len(a.melds) == 0)
        assert a.can_open == (a.opening_points >= threshold)
    else:
        assert a.opening_points is None and a.can_open is None
    return a


def check_batch(variant, hands, options, singles):
    batch = analyze_batch(variant, encode_hands(variant, hands), options=options)
    assert batch.deadwood_points.tolist() == [a.deadwood_points for a in singles]
    assert batch.deadwood_count.tolist() == [a.deadwood_count for a in singles]
    if variant == "rami":
        assert batch.opening_points.tolist() == [a.opening_points for a in singles]
    else:
        assert batch.opening_points is None


@SETTINGS
@given(st.lists(hands_52("gin"), min_size=1, max_size=3))
def test_gin(hands):
    singles = [check_analysis("gin", h, None) for h in hands]
    check_batch("gin", hands, None, singles)


@SETTINGS
@given(st.lists(hands_52("cardverse"), min_size=1, max_size=3), st.booleans())
def test_cardverse(hands, ace_high):
    options = {"ace_high": ace_high}
    singles = [check_analysis("cardverse", h, options) for h in hands]
    check_batch("cardverse", hands, options, singles)


@SETTINGS
@given(st.lists(hands_52("rami"), min_size=1, max_size=3),
       st.sampled_from([None, {"num_players": 3}, {"num_players": 4}, {"opening_threshold": 20}]))
def test_rami(hands, options):
    singles = [check_analysis("rami", h, options) for h in hands]
    check_batch("rami", hands, options, singles)


@SETTINGS
@given(st.lists(hand_strategy("kirolo"), min_size=1, max_size=3), st.sampled_from([1, 2]))
def test_kirolo(hands, max_jokers):
    options = {"max_jokers_per_series": max_jokers}
    singles = [check_analysis("kirolo", h, options) for h in hands]
    check_batch("kirolo", hands, options, singles)


@SETTINGS
@given(hands_52("cardverse"))
def test_cardverse_ace_high_changes_only_values(hand):
    # the same melds exist either way, so the ace_high optimum lies between the low-ace optimum
    # and that optimum plus 10 for each ace of the hand
    low = analyze_hand("cardverse", hand)
    high = analyze_hand("cardverse", hand, options={"ace_high": True})
    aces = sum(c.startswith("A") for c in hand)
    assert low.deadwood_points <= high.deadwood_points <= low.deadwood_points + 10 * aces
    # the ace_high partition, valued with low aces, cannot beat the low-ace optimum
    assert sum(card_value("cardverse", c) for c in high.deadwood) >= low.deadwood_points


@SETTINGS
@given(hands_kirolo())
def test_kirolo_second_joker_per_series_never_hurts(hand):
    one = analyze_hand("kirolo", hand)
    two = analyze_hand("kirolo", hand, options={"max_jokers_per_series": 2})
    assert (two.deadwood_count, two.deadwood_points) <= (one.deadwood_count, one.deadwood_points)


@SETTINGS
@given(hands_52("rami"))
def test_rami_hand_order_does_not_matter(hand):
    a = analyze_hand("rami", hand)
    b = analyze_hand("rami", list(reversed(hand)))
    assert (a.deadwood_points, a.deadwood_count, a.opening_points) == (
        b.deadwood_points, b.deadwood_count, b.opening_points)


@settings(SETTINGS, max_examples=100)
@given(st.sampled_from(["gin", "cardverse", "rami"]).flatmap(
    lambda variant: st.tuples(st.just(variant), hands_52(variant))))
def test_melds_in_lists_every_meld_of_the_hand_once(variant_and_hand):
    """``melds_in`` against every subset of the hand that the independent checker accepts: the
    same card sets, each valid, none listed twice but for a joker read as another card. Rami's
    two jokers are alike, so a meld with a joker is listed once, with either."""
    variant, hand = variant_and_hand
    melds = melds_in(variant, hand)
    for meld in melds:
        check_meld(variant, meld)
    readings = Counter((frozenset(m.cards), m.joker_stands_for) for m in melds)
    assert max(readings.values(), default=1) == 1, melds

    def alike(cards):
        return frozenset("JK" if is_joker(variant, c) else c for c in cards)
    subsets = {alike(s) for size in range(3, len(hand) + 1) for s in combinations(hand, size)
               if meld_possible(variant, s)}
    assert {alike(m.cards) for m in melds} == subsets
