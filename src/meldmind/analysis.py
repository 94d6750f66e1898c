"""Hand analysis: the exact best partition of a hand into melds (RULES.md §7), in one call or
over numpy batches, and the lay-off targets of a hand against table melds.

>>> a = analyze_hand("gin", "AS 2S 3S 7C 7D 7H KD 9C 4H 5H")
>>> [m.cards for m in a.melds]
[('7C', '7D', '7H'), ('AS', '2S', '3S')]
>>> a.deadwood, a.deadwood_points, a.deadwood_count
(('4H', '5H', '9C', 'KD'), 28, 4)
>>> r = analyze_hand("rami", "5H 6H JK1 QS KS AS 2C")
>>> [(m.cards, m.joker_stands_for) for m in r.melds]
[(('5H', '6H', 'JK1'), ('7H',)), (('QS', 'KS', 'AS'), ())]
>>> r.deadwood_points, r.opening_points, r.can_open
(2, 49, False)
>>> encoded = encode_hands("cardverse", ["QS KS AS 2C 3C 4C 9D", "2H 3H 4H 5H 6H 7H 8H"])
>>> analyze_batch("cardverse", encoded).deadwood_points
array([9, 0], dtype=int32)
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .cards import card_bit, card_tokens, format_card, hand_mask, is_joker, parse_cards
from .errors import CardError, MeldmindError
from .kernels import handalg
from .variants import Variant, resolve_options, variant_named

KINDS = ("group", "run")
_COUNT_SHIFT_52 = handalg.COUNT_SHIFT["52"]
_COUNT_SHIFT_KIROLO = handalg.COUNT_SHIFT["kirolo"]


@dataclass(frozen=True)
class Meld:
    """One meld: its cards in run order (jokers where they stand) or suit order (jokers last)."""

    cards: tuple[str, ...]
    kind: str
    # One entry per joker: the card it stands for in a run, or "7C/7D"-style alternatives
    # (any missing suit or element) in a group.
    joker_stands_for: tuple[str, ...] = ()


@dataclass(frozen=True)
class HandAnalysis:
    melds: tuple[Meld, ...]
    deadwood: tuple[str, ...]
    deadwood_points: int
    deadwood_count: int
    opening_points: int | None = None   # Rami FR only: the largest opening (§2.1 values)
    can_open: bool | None = None        # Rami FR only: opening_points >= the threshold
    # KIROLO only: its action cards other than jokers (EXCHANGE, SEARCH), in no meld or deadwood
    action_cards: tuple[str, ...] = ()


class BatchAnalysis(NamedTuple):
    deadwood_points: np.ndarray
    deadwood_count: np.ndarray
    opening_points: np.ndarray | None = None


def _rank_text(variant: Variant, bit: int) -> str:
    """A card without its copy letter (KIROLO) — what a joker can stand for."""
    text = format_card(variant, bit)
    return text[:-1] if variant.deck == "kirolo" else text


def _run_position(variant: Variant, bit: int, ace_high: bool) -> int:
    if variant.deck == "kirolo":
        return bit % 12
    rank = bit % 13
    if rank == 0 and (variant.name == "cardverse" or ace_high):
        return 13
    return rank


def _ace_high(variant: Variant, bits: Iterable[int]) -> bool:
    """Whether a run of these cards puts its ace above the king (Rami FR's Q-K-A)."""
    ranks = {b % 13 for b in bits}
    return variant.name == "rami" and 12 in ranks and 1 not in ranks


def _meld_from_row(variant: Variant, row: np.void, free: dict[int, list[int]],
                   jokers: list[int]) -> Meld:
    """Turn a kernel meld row into a Meld, taking the hand's actual card ids from ``free``."""
    mask, joker_for, n_jokers, kind = int(row["mask"]), int(row["joker_for"]), int(row["jokers"]), int(row["kind"])
    bits = [b for b in range(64) if mask >> b & 1]
    placed: list[tuple[int, str]] = []
    for b in bits:
        placed.append((b, format_card(variant, free[b].pop(0))))
    used_jokers = [format_card(variant, jokers.pop(0)) for _ in range(n_jokers)]
    if KINDS[kind] == "run":
        stands = [b for b in range(64) if joker_for >> b & 1]
        ace_high = _ace_high(variant, bits + stands)
        order = sorted(
            [(_run_position(variant, b, ace_high), text) for b, text in placed]
            + [(_run_position(variant, b, ace_high), j) for b, j in zip(stands, used_jokers)]
        )
        return Meld(tuple(t for _, t in order), "run", tuple(_rank_text(variant, b) for b in stands))
    alternatives = "/".join(_rank_text(variant, b) for b in range(64) if joker_for >> b & 1)
    return Meld(tuple(t for _, t in placed) + tuple(used_jokers), "group",
                tuple(alternatives for _ in used_jokers))


def _naturals(variant: Variant, a1: int) -> int:
    """A hand mask without the Rami FR joker bits, which the kernels count separately."""
    return a1 if variant.deck == "kirolo" else a1 & ((1 << 52) - 1)


def _kernel_args(opts: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "max_jokers_per_series": opts.get("max_jokers_per_series", 1),
        "ace_high": opts.get("ace_high", False),
    }


def _partition(variant: Variant, ids: list[int], opts: Mapping[str, Any], *, opening: bool
               ) -> tuple[int, list[Meld], list[int]]:
    """(objective, melds, leftover card ids) of the best partition."""
    a1, a2, jokers = hand_mask(variant, ids)
    naturals = _naturals(variant, a1)
    score, rows = handalg.best_partition_of(
        variant.kernel_id, naturals, a2, jokers, opening=opening, **_kernel_args(opts)
    )
    free, joker_ids = _card_slots(variant, ids)
    melds = [_meld_from_row(variant, row, free, joker_ids) for row in rows]
    leftover = sorted([c for cards in free.values() for c in cards] + joker_ids)
    return score, melds, leftover


def _card_slots(variant: Variant, ids: list[int]) -> tuple[dict[int, list[int]], list[int]]:
    """The hand's card ids by kernel bit, and its jokers: what ``_meld_from_row`` takes the
    cards of a meld from."""
    free: dict[int, list[int]] = {}
    joker_ids: list[int] = []
    for card in sorted(ids):
        if is_joker(variant, card):
            joker_ids.append(card)
        elif card_bit(variant, card) >= 0:
            free.setdefault(card_bit(variant, card), []).append(card)
    return free, joker_ids


def _unmeldable(variant: Variant, ids: list[int]) -> list[int]:
    """KIROLO's action cards but jokers (the other decks have none): no meld takes them."""
    if variant.deck != "kirolo":
        return []
    return [c for c in ids if card_bit(variant, c) < 0 and not is_joker(variant, c)]


def _leftover_order(variant: Variant, card: int) -> tuple[int, int, int]:
    """Deadwood is shown by rank (KIROLO: value), then suit (element; RULES.md E6), then
    copy."""
    if is_joker(variant, card):
        return (99, 0, card)
    bit = card_bit(variant, card)
    width = 12 if variant.deck == "kirolo" else 13
    return (bit % width, bit // width, card)


def analyze_hand(variant: str, cards: str | Iterable[str], *,
                 options: Mapping[str, Any] | None = None) -> HandAnalysis:
    """The exact best partition of a hand under the variant's objective (RULES.md §7).

    ``cards`` is a list of card strings or one space-separated string. For ``rami`` the result
    also carries the best opening and whether it reaches the threshold (``opening_threshold``,
    by default 50 with two players and 30 otherwise). KIROLO action cards other than jokers
    are not meldable: they are left out of the partition and listed in ``action_cards``.
    """
    v = variant_named(variant)
    opts = resolve_options(v, options)
    ids = parse_cards(v, cards)
    unmeldable = _unmeldable(v, ids)
    if unmeldable:
        ids = [c for c in ids if c not in unmeldable]
    _, melds, leftover = _partition(v, ids, opts, opening=False)
    leftover.sort(key=lambda c: _leftover_order(v, c))
    a1, a2, jokers = hand_mask(v, leftover)
    total = handalg.objective_key(v.kernel_id, _naturals(v, a1), a2, jokers, opts.get("ace_high", False))
    if v.deck == "kirolo":
        points = total & ((1 << _COUNT_SHIFT_KIROLO) - 1)
    else:
        points = total >> _COUNT_SHIFT_52
    opening_points = can_open = None
    if v.name == "rami":
        opening, _, _ = _partition(v, ids, opts, opening=True)
        opening_points, can_open = int(opening), opening >= opts["opening_threshold"]
    return HandAnalysis(melds=tuple(melds), deadwood=tuple(format_card(v, c) for c in leftover),
                        deadwood_points=int(points), deadwood_count=len(leftover),
                        opening_points=opening_points, can_open=can_open,
                        action_cards=tuple(format_card(v, c) for c in unmeldable))


def melds_in(variant: str, cards: str | Iterable[str], *,
             options: Mapping[str, Any] | None = None) -> tuple[Meld, ...]:
    """Every meld that ``cards`` can form, overlapping ones included, each listed once: runs of
    every length, groups of three and of four (a best partition uses some of them, see
    ``analyze_hand``). Jokers are alike: a meld with one is listed once, with the hand's first.

    >>> [m.cards for m in melds_in("gin", "3S 4S 5S 4D 4H KC")]
    [('3S', '4S', '5S'), ('4D', '4H', '4S')]
    """
    v = variant_named(variant)
    opts = resolve_options(v, options)
    ids = parse_cards(v, cards)
    unmeldable = _unmeldable(v, ids)
    ids = [c for c in ids if c not in unmeldable]
    a1, a2, jokers = hand_mask(v, ids)
    rows = handalg.melds_in_hand(v.kernel_id, _naturals(v, a1), a2, jokers, **_kernel_args(opts))
    # a whole suit is one run read ace low and ace high (Rami FR's two opening values): once here
    return tuple(dict.fromkeys(_meld_from_row(v, row, *_card_slots(v, ids)) for row in rows))


def encode_hands(variant: str, hands: Sequence[str | Iterable[str]]) -> np.ndarray:
    """Encode hands for ``analyze_batch``: a ``uint64`` array of hand masks for 52-card
    variants (Rami FR jokers at bits 52-53), an ``(n, 3)`` array of ``(a1, a2, jokers)`` for
    KIROLO."""
    v = variant_named(variant)
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Iterable):
        raise MeldmindError(f"hands is a list of hands (each a string or a list of cards), not "
                            f"{hands!r}")
    rows = []
    for i, hand in enumerate(hands):
        try:
            rows.append(hand_mask(v, parse_cards(v, hand)))
        except CardError as error:
            raise CardError(f"hand {i}: {error}") from None
    if v.deck == "kirolo":
        return np.array(rows, dtype=np.uint64).reshape(len(rows), 3)
    return np.array([a1 for a1, _, _ in rows], dtype=np.uint64)


def _hand_masks(variant: Variant, encoded: Any) -> np.ndarray:
    """``encoded`` as a contiguous uint64 array, if it holds non-negative integers only."""
    try:
        array = np.asarray(encoded)
        masks = array.size == 0 or array.dtype.kind == "u" or (
            array.dtype.kind == "i" and not np.any(array < 0))
    except (TypeError, ValueError):     # ragged or foreign objects
        masks = False
    if not masks:
        raise MeldmindError(f"{variant.name} hands for analyze_batch are non-negative integer "
                            f"masks (use encode_hands), not {encoded!r:.80}")
    return np.ascontiguousarray(array, dtype=np.uint64)


def analyze_batch(variant: str, encoded: np.ndarray, *,
                  options: Mapping[str, Any] | None = None) -> BatchAnalysis:
    """Deadwood points and counts (KIROLO: unmelded value and count) of every encoded hand,
    and for ``rami`` the opening points, as int32 arrays. The loop runs without the GIL."""
    v = variant_named(variant)
    opts = resolve_options(v, options)
    encoded = _hand_masks(v, encoded)
    if v.deck == "kirolo":
        if encoded.ndim != 2 or encoded.shape[1] != 3:
            raise MeldmindError("KIROLO hands are encoded as an (n, 3) array; use encode_hands")
        a1, a2, jokers = encoded[:, 0], encoded[:, 1], encoded[:, 2]
        if np.any(a1 >> np.uint64(60)) or np.any(a2 & ~a1) or np.any(jokers > 16):
            raise CardError("KIROLO rows are (a1, a2, jokers): cards below bit 60, a2 within a1, "
                            "at most 16 jokers")
        counts, values = handalg.kirolo_batch(encoded, opts["max_jokers_per_series"])
        return BatchAnalysis(values, counts)
    if encoded.ndim != 1:
        raise MeldmindError(f"{v.name} hands are encoded as a 1-d uint64 array; use encode_hands")
    top_bit = 54 if v.deck == "52+jokers" else 52
    if np.any(encoded >> np.uint64(top_bit)):
        extra = " (no joker bits)" if v.deck == "52" else " (cards, then the jokers at 52-53)"
        raise CardError(f"{v.name} hands use bits 0..{top_bit - 1} only{extra}")
    points, counts = handalg.deadwood_batch(v.kernel_id, encoded, opts.get("ace_high", False))
    if v.name == "rami":
        return BatchAnalysis(points, counts, handalg.rami_opening_batch(encoded))
    return BatchAnalysis(points, counts)


@functools.cache
def _catalog(name: str, max_jokers_per_series: int) -> np.ndarray:
    variant = variant_named(name)
    width, lanes = (12, 5) if variant.deck == "kirolo" else (13, 4)
    jokers = {"52": 0, "52+jokers": 1, "kirolo": max_jokers_per_series}[variant.deck]
    parts = []
    for lane in range(lanes):  # the runs of one suit (element)
        rows = handalg.melds_in_hand(variant.kernel_id, ((1 << width) - 1) << (lane * width), 0,
                                     jokers, max_jokers_per_series)
        parts.append(rows[rows["kind"] == KINDS.index("run")])
    for rank in range(width):  # the groups of one rank (value)
        rows = handalg.melds_in_hand(variant.kernel_id, sum(1 << (e * width + rank) for e in range(lanes)),
                                     0, jokers, max_jokers_per_series)
        parts.append(rows[rows["kind"] == KINDS.index("group")])
    catalog = np.concatenate(parts)
    catalog.flags.writeable = False
    return catalog


def meld_catalog(variant: str, *, options: Mapping[str, Any] | None = None) -> np.ndarray:
    """Every meld of the variant, as a read-only structured array (fields ``mask``,
    ``joker_for``, ``jokers``, ``kind`` 0 group / 1 run, ``opening``): runs suit by suit, then
    groups rank by rank. A meld with jokers is listed by its natural cards; ``joker_for`` holds
    the cards its jokers stand for (a run) or may stand for (a group).

    These indices number the hand algebra's melds. A game's lay-meld moves number melds in the
    game's own action layout (gin: OpenSpiel's 185 melds, runs of 3-5 cards; CardVerse: groups
    first): ``meld_action`` of ``meldmind.games.<game>`` gives a meld's action id.

    >>> gin = meld_catalog("gin")
    >>> len(gin), int((gin["kind"] == 1).sum()), int((gin["kind"] == 0).sum())
    (329, 264, 65)
    """
    v = variant_named(variant)
    opts = resolve_options(v, options)
    return _catalog(v.name, opts.get("max_jokers_per_series", 1))


@dataclass(frozen=True)
class LayOff:
    card: str        # the hand card (a joker included)
    meld: int        # index of the table meld
    end: str         # "low" or "high" end of a run, or "group"


def _table_meld(variant: Variant, meld: Meld | Sequence[str] | str, max_jokers_per_series: int
                ) -> tuple[int, int, int, int]:
    """(kind, natural mask, joker_for mask, jokers) of a table meld."""
    declared = meld if isinstance(meld, Meld) else None     # its kind and jokers declared
    ids = parse_cards(variant, meld.cards if isinstance(meld, Meld) else meld)
    cards = " ".join(format_card(variant, c) for c in ids)
    action_cards = _unmeldable(variant, ids)
    if action_cards:
        raise MeldmindError(f"{cards} is not a valid {variant.name} meld: "
                            f"{format_card(variant, action_cards[0])} is in no meld")
    a1, _, jokers = hand_mask(variant, ids)
    naturals = _naturals(variant, a1)
    stands = _declared_stands(cards, declared, jokers) if declared else ()
    if declared and stands and declared.kind == "run":
        # the declared jokers: the naturals plus what they stand for must form a natural run
        joker_for = hand_mask(variant, parse_cards(variant, stands))[0]
        if joker_for & naturals or not _is_run(variant, naturals | joker_for):
            raise MeldmindError(f"in {cards} the jokers cannot stand for {' '.join(stands)}")
        return KINDS.index("run"), naturals, joker_for, jokers
    rows = handalg.melds_in_hand(variant.kernel_id, naturals, 0, jokers, max_jokers_per_series)
    fits = [r for r in rows if int(r["mask"]) == naturals and int(r["jokers"]) == jokers
            and not (declared and KINDS[int(r["kind"])] != declared.kind)]
    if not fits:
        raise MeldmindError(f"{cards} is not a valid {variant.name} "
                            f"{declared.kind if declared else 'meld'}")
    kind, joker_for = int(fits[0]["kind"]), int(fits[0]["joker_for"])
    if KINDS[kind] == "group":
        # a group's joker stands for any missing suit (element): a declared one must be missing
        for text in stands:
            if hand_mask(variant, parse_cards(variant, text.split("/")))[0] & ~joker_for:
                raise MeldmindError(f"in {cards} a joker cannot stand for {text}")
        return kind, naturals, joker_for, jokers
    if not jokers:
        return kind, naturals, joker_for, jokers
    # A run's jokers may stand at either end; the kernel names one reading. Where the jokers
    # stand as written says which (RULES.md §2.5: the player declares them).
    readings = _run_readings(variant, naturals, jokers)
    if len(readings) > 1:
        readings = [joker_for for joker_for in readings
                    if _written_in_run_order(variant, ids, joker_for)]
        if len(readings) != 1:
            raise MeldmindError(f"in {cards} the jokers can stand for different cards: "
                                f"write the run in order, each joker in its place, or give a Meld "
                                f"with joker_stands_for")
    return kind, naturals, readings[0], jokers


def _declared_stands(cards: str, meld: Meld, jokers: int) -> tuple[str, ...]:
    """A ``Meld``'s kind and ``joker_stands_for``, checked for form: one text per joker."""
    if meld.kind not in KINDS:
        raise MeldmindError(f"a Meld's kind is 'group' or 'run', not {meld.kind!r}")
    stands = meld.joker_stands_for
    if not isinstance(stands, (tuple, list)) or not all(isinstance(t, str) for t in stands):
        raise MeldmindError(f"the joker_stands_for of {cards} is a tuple of card texts, one per "
                            f"joker, not {stands!r}")
    if stands and len(stands) != jokers:
        raise MeldmindError(f"the joker_stands_for of {cards} names {len(stands)} "
                            f"card{'s' * (len(stands) != 1)}, but "
                            f"the meld has {jokers} joker{'s' * (jokers != 1)}: one card per joker")
    return tuple(stands)


def _is_run(variant: Variant, whole: int) -> bool:
    """Whether the natural cards of mask ``whole`` make one run of the variant."""
    rows = handalg.melds_in_hand(variant.kernel_id, whole, 0, 0, 0)
    return any(int(r["mask"]) == whole and KINDS[int(r["kind"])] == "run" for r in rows)


def _run_readings(variant: Variant, naturals: int, jokers: int) -> list[int]:
    """Every set of ``jokers`` cards (as a mask) that the jokers can stand for in a run with the
    natural cards ``naturals``: they share the naturals' suit (or element)."""
    lane_size = 12 if variant.deck == "kirolo" else 13
    lane = (naturals & -naturals).bit_length() - 1
    lane_start = lane - lane % lane_size
    free = [b for b in range(lane_start, lane_start + lane_size) if not naturals >> b & 1]
    return [sum(1 << b for b in chosen) for chosen in itertools.combinations(free, jokers)
            if _is_run(variant, naturals | sum(1 << b for b in chosen))]


def _written_in_run_order(variant: Variant, ids: list[int], joker_for: int) -> bool:
    """Whether the cards ``ids``, as written, are the run whose jokers stand for ``joker_for``
    in order, from either end, each joker in the place of the card it stands for."""
    written = [None if is_joker(variant, c) else card_bit(variant, c) for c in ids]
    bits = [b for b in written if b is not None] + [b for b in range(64) if joker_for >> b & 1]
    ace_high = _ace_high(variant, bits)
    ordered = [None if joker_for >> b & 1 else b
               for b in sorted(bits, key=lambda b: _run_position(variant, b, ace_high))]
    return written in (ordered, ordered[::-1])


def layoff_targets(variant: str, hand: str | Iterable[str],
                   table_melds: Sequence[Meld | Sequence[str] | str], *,
                   options: Mapping[str, Any] | None = None) -> list[LayOff]:
    """Which hand cards can extend which table meld, and at which end.

    A table meld is a ``Meld`` or its cards as a text or list. A run's joker stands for the card
    its ``Meld.joker_stands_for`` declares, or, written as cards, for the card of its place in
    the run (``JK1 5H 6H``: 4H); a joker that could stand at either end, written elsewhere, is
    refused.

    >>> layoff_targets("rami", "4H 8H 9C JK2", [["5H", "6H", "7H"], "9S 9D 9H"])
    [LayOff(card='4H', meld=0, end='low'), LayOff(card='JK2', meld=0, end='low'), LayOff(card='8H', meld=0, end='high'), LayOff(card='JK2', meld=0, end='high'), LayOff(card='9C', meld=1, end='group'), LayOff(card='JK2', meld=1, end='group')]
    """
    v = variant_named(variant)
    opts = resolve_options(v, options)
    jokers_per_series = opts.get("max_jokers_per_series", 1)
    hand = card_tokens(hand)
    parse_cards(v, hand)     # a bad hand card is named before the table is read
    if isinstance(table_melds, (str, bytes, Meld)) or not isinstance(table_melds, Iterable):
        raise MeldmindError(f"table_melds is a list of melds (each a Meld, a string or a list of "
                            f"cards), not {table_melds!r}")
    table_melds = list(table_melds)
    tables = [_table_meld(v, meld, jokers_per_series) for meld in table_melds]
    # The hand and the table share one deck (RULES.md §7): a card both held and on the table,
    # or on two melds, is a copy too many. Parsed together, hand cards named without a copy
    # (JK, FI7) also take a copy the table leaves free.
    on_table = [card for meld in table_melds
                for card in card_tokens(meld.cards if isinstance(meld, Meld) else meld)]
    try:
        ids = parse_cards(v, hand + on_table)[:len(hand)]
    except CardError as error:
        raise CardError(f"the hand and the table melds together: {error}") from None
    a1, _, jokers = hand_mask(v, ids)
    # one joker bit stands for "the hand holds a joker": 52 for Rami FR, 63 for KIROLO
    joker_flag = 63 if v.deck == "kirolo" else 52
    query = _naturals(v, a1) | ((1 << joker_flag) if jokers else 0)
    by_bit: dict[int, int] = {}
    joker_id = next((c for c in ids if is_joker(v, c)), -1)   # the joker bit is set only with one
    for card in sorted(ids):
        if not is_joker(v, card) and card_bit(v, card) >= 0:
            by_bit.setdefault(card_bit(v, card), card)
    targets = []
    for index, (kind, natural, joker_for, meld_jokers) in enumerate(tables):
        ends = ("group",) if KINDS[kind] == "group" else ("low", "high")
        for end_index, end in enumerate(ends):
            found = handalg.layoff_cards(v.kernel_id, kind, natural, joker_for, meld_jokers, query,
                                         jokers_per_series, end_index)
            for b in range(64):
                if not found >> b & 1:
                    continue
                card = joker_id if b == joker_flag else by_bit[b]
                targets.append(LayOff(format_card(v, card), index, end))
    return targets


__all__ = ["Meld", "HandAnalysis", "BatchAnalysis", "LayOff", "analyze_hand", "encode_hands",
           "analyze_batch", "layoff_targets", "meld_catalog"]
