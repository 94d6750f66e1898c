"""Independent brute-force test oracle for meldmind hand analysis.

Derived only from /work/shared/RULES.md (§0.3, §1.6, §2.1, §2.5, §4.1, §4.5,
§5 item 2, §7).  Standard library only; shares no code with the engine.

Method
------
1. Every valid meld of the hand is found by brute force: the natural cards of
   any meld are all of one rank/value (group) or all of one suit/element
   (run), so every subset (of size >= 2) of every rank bucket and every suit
   bucket is tested with a literal transcription of the rules, once for each
   permitted number of jokers.
2. The best partition is found by an exhaustive memoised recursion over
   (set of natural cards still to place, number of jokers still to place):
   the lowest remaining natural card is either left unmelded or placed in one
   of the melds that contain it and fit in the remaining cards.  Jokers are
   interchangeable for rules purposes (§0.3 "identical for rules purposes";
   KIROLO jokers are all the same action card), so only their number matters.

Objectives are additive pairs compared lexicographically; they are encoded as
one integer ``primary * _K + secondary`` (secondary is always < _K).
"""

from __future__ import annotations

import random
import re
from itertools import combinations

__all__ = [
    "oracle_analyze",
    "oracle_rami_opening",
    "random_hand",
    "random_dense_kirolo_hand",
    "DECK52",
    "KIROLO_DECK",
]

VARIANTS = ("gin", "cardverse", "rami", "kirolo")

# ---------------------------------------------------------------------------
# Decks and parsing
# ---------------------------------------------------------------------------

RANK_TOKENS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
RANK_OF = {tok: i + 1 for i, tok in enumerate(RANK_TOKENS)}  # A=1 .. K=13
SUITS = ["C", "D", "H", "S"]
DECK52 = [r + s for s in SUITS for r in RANK_TOKENS]
RAMI_JOKERS = ["JK1", "JK2"]

ELEMENTS = ["FI", "WA", "EA", "WO", "ME"]
KIROLO_DECK = [f"{e}{v:02d}{c}" for e in ELEMENTS for v in range(1, 13) for c in "ab"]
KIROLO_JOKER = "JOKER"
KIROLO_IGNORED = ("EXCHANGE", "SEARCH")
_KIROLO_RE = re.compile(r"^(FI|WA|EA|WO|ME)(0[1-9]|1[0-2])([ab])$")

_K = 1 << 20  # lexicographic encoding base (secondary component always < _K)


def _parse_std(card: str) -> tuple[int, str]:
    """'10H' -> (10, 'H'); 'AS' -> (1, 'S')."""
    if len(card) < 2 or card[-1] not in SUITS or card[:-1] not in RANK_OF:
        raise ValueError(f"not a 52-card deck card: {card!r}")
    return RANK_OF[card[:-1]], card[-1]


def _parse_kirolo(card: str) -> tuple[str, int]:
    """'FI07a' -> ('FI', 7)."""
    m = _KIROLO_RE.match(card)
    if not m:
        raise ValueError(f"not a KIROLO element card: {card!r}")
    return m.group(1), int(m.group(2))


# ---------------------------------------------------------------------------
# Meld validity, literal transcriptions of the rules
# ---------------------------------------------------------------------------

def _consecutive(positions: list[int]) -> bool:
    """Pairwise distinct integers forming one contiguous block."""
    s = sorted(positions)
    return len(set(s)) == len(s) and s[-1] - s[0] == len(s) - 1


def _ace_positions(variant: str) -> tuple[int, ...]:
    """Run positions the Ace may take (A=1 before 2, A=14 after K)."""
    if variant == "gin":          # §5.2: ace low only
        return (1,)
    if variant == "cardverse":    # §4.5: ace high only, order 2..10 J Q K A
        return (14,)
    if variant == "rami":         # §2.5: ace low or high, never both, no wrap
        return (1, 14)
    raise ValueError(variant)


def _std_run_ok(variant: str, cards: list[tuple[int, str]]) -> bool:
    """>= 3 cards of one suit, consecutive with the variant's ace rule."""
    if len(cards) < 3 or len({s for _, s in cards}) != 1:
        return False
    for ace_pos in _ace_positions(variant):
        pos = [ace_pos if r == 1 else r for r, _ in cards]
        if _consecutive(pos):
            return True
    return False


def _std_group_ok(cards: list[tuple[int, str]]) -> bool:
    """3 or 4 cards of one rank, pairwise distinct suits."""
    return (3 <= len(cards) <= 4
            and len({r for r, _ in cards}) == 1
            and len({s for _, s in cards}) == len(cards))


def _std_meld_ok(variant: str, cards: list[tuple[int, str]]) -> bool:
    """Joker-free meld of gin / cardverse / rami."""
    return _std_run_ok(variant, cards) or _std_group_ok(cards)


_DECK52_PARSED = [_parse_std(c) for c in DECK52]


def _rami_joker_completions(naturals: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """All cards X of the 52-card deck, not among the naturals, such that
    naturals + {X} is a valid joker-free rami meld (X = what the joker represents)."""
    if len(naturals) < 2:  # one joker per meld => at least 2 naturals
        return []
    nat = set(naturals)
    rank0, suit0 = naturals[0]
    # A valid meld is all one suit or all one rank, so X shares the suit or
    # the rank of naturals[0]; testing only those cards is exhaustive.
    return [x for x in _DECK52_PARSED
            if (x[0] == rank0 or x[1] == suit0)
            and x not in nat and _std_meld_ok("rami", naturals + [x])]


def _kirolo_series_ok(naturals: list[tuple[str, int]], jokers: int,
                      max_jokers_per_series: int) -> bool:
    """§1.6 items 1-3."""
    n = len(naturals)
    if n < 2 or jokers > max_jokers_per_series or n + jokers < 3:
        return False
    elems = [e for e, _ in naturals]
    vals = [v for _, v in naturals]
    # Group: same value, pairwise distinct elements, at most 5 cards.
    if (len(set(vals)) == 1 and len(set(elems)) == n and n + jokers <= 5):
        return True
    # Run: same element, pairwise distinct values, some interval [lo, hi] in
    # [1, 12] of length n + jokers contains every value (no wrap-around).
    if len(set(elems)) == 1 and len(set(vals)) == n:
        length = n + jokers
        for lo in range(1, 12 - length + 2):
            hi = lo + length - 1
            if all(lo <= v <= hi for v in vals):
                return True
    return False


# ---------------------------------------------------------------------------
# Card values
# ---------------------------------------------------------------------------

def _deadwood_value(variant: str, rank: int, ace_high: bool) -> int:
    if variant == "rami":
        if rank == 1:
            return 15
        return 10 if rank >= 11 else rank
    if rank == 1:
        return 11 if (variant == "cardverse" and ace_high) else 1
    return 10 if rank >= 11 else rank


def _opening_meld_value(cards: list[tuple[int, str]]) -> int:
    """§2.1 value of a valid joker-free rami meld.  Ace: 11 in a group, 1 as
    lowest card of a run, 11 as highest.  (Only a full 13-card suit can be
    read both ways; the larger reading is taken.)"""
    def face(r: int) -> int:
        return 10 if r >= 11 else r
    if _std_group_ok(cards):
        r = cards[0][0]
        return len(cards) * (11 if r == 1 else face(r))
    best = -1
    for ace_pos in (1, 14):
        pos = [ace_pos if r == 1 else r for r, _ in cards]
        if _consecutive(pos):
            best = max(best, sum((1 if ace_pos == 1 else 11) if r == 1 else face(r)
                                 for r, _ in cards))
    if best < 0:
        raise AssertionError("not a valid rami meld")
    return best


# ---------------------------------------------------------------------------
# Hand preparation and meld enumeration
# ---------------------------------------------------------------------------

def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}")


def _split_hand(variant: str, cards: list[str]):
    """Return (natural card strings, parsed naturals, number of jokers)."""
    _check_variant(variant)
    nat_str: list[str] = []
    jokers = 0
    seen: set[str] = set()
    for c in cards:
        if variant == "kirolo":
            if c == KIROLO_JOKER:
                jokers += 1
                continue
            if c in KIROLO_IGNORED:
                continue
            _parse_kirolo(c)
        else:
            if variant == "rami" and c in RAMI_JOKERS:
                if c in seen:
                    raise ValueError(f"duplicate card {c!r}")
                seen.add(c)
                jokers += 1
                continue
            _parse_std(c)
        if c in seen:
            raise ValueError(f"duplicate card {c!r}")
        seen.add(c)
        nat_str.append(c)
    if variant == "kirolo":
        parsed = [_parse_kirolo(c) for c in nat_str]
    else:
        parsed = [_parse_std(c) for c in nat_str]
    return nat_str, parsed, jokers


def _candidate_subsets(parsed):
    """Every index subset (size >= 2) whose cards share a rank/value or a
    suit/element.  The naturals of any meld form such a subset."""
    buckets: dict[tuple, list[int]] = {}
    for i, (a, b) in enumerate(parsed):
        # std: (rank, suit); kirolo: (element, value)
        buckets.setdefault(("A", a), []).append(i)
        buckets.setdefault(("B", b), []).append(i)
    out = set()
    for idxs in buckets.values():
        for size in range(2, len(idxs) + 1):
            out.update(combinations(idxs, size))
    return sorted(out)


def _enumerate_melds(variant, parsed, jokers, max_jokers_per_series, with_opening_value=False):
    """List of (natural index tuple, jokers used, opening value or None)."""
    melds = []
    for sub in _candidate_subsets(parsed):
        nat = [parsed[i] for i in sub]
        if variant == "kirolo":
            for k in range(0, min(jokers, max_jokers_per_series) + 1):
                if _kirolo_series_ok(nat, k, max_jokers_per_series):
                    melds.append((sub, k, None))
            continue
        if _std_meld_ok(variant, nat):
            val = _opening_meld_value(nat) if with_opening_value else None
            melds.append((sub, 0, val))
        if variant == "rami" and jokers >= 1:
            xs = _rami_joker_completions(nat)
            if xs:
                val = (max(_opening_meld_value(nat + [x]) for x in xs)
                       if with_opening_value else None)
                melds.append((sub, 1, val))
    return melds


def _by_lowest_index(n, melds):
    """Bucket melds (as bitmasks) by their lowest card index."""
    table: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
    for sub, k, val in melds:
        mask = 0
        for i in sub:
            mask |= 1 << i
        table[min(sub)].append((mask, k, val if val is not None else 0))
    return table


# ---------------------------------------------------------------------------
# Exhaustive partition search
# ---------------------------------------------------------------------------

def _best_partition(n, jokers, table, card_left, joker_left, meld_score):
    """The highest score over all sets of disjoint melds of the hand: each card left out scores
    ``card_left[i]``, ``j`` jokers left out score ``joker_left * j``, and a meld of ``table``
    scores ``meld_score`` times its value."""
    memo: dict[int, int] = {}
    stride = jokers + 1

    def f(mask: int, j: int) -> int:
        if mask == 0:
            return j * joker_left
        key = mask * stride + j
        r = memo.get(key)
        if r is not None:
            return r
        low = mask & -mask
        i = low.bit_length() - 1
        best = card_left[i] + f(mask ^ low, j)          # card i left out
        for m, k, val in table[i]:                      # card i in meld m
            if k <= j and m & mask == m:
                best = max(best, meld_score * val + f(mask ^ m, j - k))
        memo[key] = best
        return best

    return f((1 << n) - 1, jokers)


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

def oracle_analyze(variant: str, cards: list[str], *, ace_high: bool = False,
                   max_jokers_per_series: int = 1) -> tuple[int, int]:
    """Exact §7 optimum.

    gin / cardverse / rami: (deadwood_points, deadwood_count), points
    minimised, then count minimised among point-optimal partitions.
    kirolo: (unmelded_count, unmelded_value) minimised lexicographically.
    """
    nat_str, parsed, jokers = _split_hand(variant, cards)
    n = len(parsed)
    melds = _enumerate_melds(variant, parsed, jokers, max_jokers_per_series)
    table = _by_lowest_index(n, melds)
    if variant == "kirolo":
        card_cost = [1 * _K + v for _, v in parsed]  # (count, value)
        joker_cost = 1 * _K + 0
    else:
        card_cost = [_deadwood_value(variant, r, ace_high) * _K + 1 for r, _ in parsed]
        joker_cost = 20 * _K + 1  # only rami has jokers
    # the least cost of the cards left out is the best score when each costs its negative
    total = -_best_partition(n, jokers, table, [-cost for cost in card_cost], -joker_cost, 0)
    a, b = divmod(total, _K)
    return a, b


def oracle_rami_opening(cards: list[str]) -> int:
    """Largest total §2.1 meld value of disjoint valid rami melds (0 if none)."""
    nat_str, parsed, jokers = _split_hand("rami", cards)
    n = len(parsed)
    melds = _enumerate_melds("rami", parsed, jokers, 1, with_opening_value=True)
    table = _by_lowest_index(n, melds)
    return _best_partition(n, jokers, table, [0] * n, 0, 1)


# ---------------------------------------------------------------------------
# Random hands
# ---------------------------------------------------------------------------

def random_hand(variant: str, size: int, rng: random.Random, *,
                jokers: int = 0) -> list[str]:
    """Uniformly random `size` natural cards of the variant's deck plus
    `jokers` joker cards, in random order."""
    _check_variant(variant)
    if variant == "kirolo":
        hand = rng.sample(KIROLO_DECK, size) + [KIROLO_JOKER] * jokers
    else:
        if variant == "rami":
            if not 0 <= jokers <= 2:
                raise ValueError("rami has 2 jokers")
            extra = RAMI_JOKERS[:jokers]
        elif jokers:
            raise ValueError(f"{variant} has no jokers")
        else:
            extra = []
        hand = rng.sample(DECK52, size) + extra
    rng.shuffle(hand)
    return hand


def random_dense_kirolo_hand(size: int, rng: random.Random,
                             jokers: int = 0) -> list[str]:
    """KIROLO hand drawn from a small window: 3 random elements x 6 values x
    2 copies (36 cards).  The 6 values are cyclically consecutive from a random
    start, so windows such as 10,11,12,1,2,3 occur and exercise the no-wrap rule."""
    elems = rng.sample(ELEMENTS, 3)
    start = rng.randrange(12)
    values = [(start + d) % 12 + 1 for d in range(6)]
    window = [f"{e}{v:02d}{c}" for e in elems for v in values for c in "ab"]
    hand = rng.sample(window, size) + [KIROLO_JOKER] * jokers
    rng.shuffle(hand)
    return hand


def oracle_meld_ok(variant: str, cards: list[str], *, max_jokers_per_series: int = 1) -> bool:
    """Is this set of cards (jokers included) one valid meld of the variant?"""
    _, parsed, jokers = _split_hand(variant, cards)
    if variant == "kirolo":
        return _kirolo_series_ok(parsed, jokers, max_jokers_per_series)
    if jokers == 0:
        return _std_meld_ok(variant, parsed)
    return variant == "rami" and jokers == 1 and bool(_rami_joker_completions(parsed))
