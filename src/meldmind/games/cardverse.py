"""CardVerse Rami (RULES.md §4): option names, move texts and JSON over ``kernels/cardverse.py``.

The rules live only in the kernel; this module names its action ids and observation slots.

>>> action_text(0), action_text(2 + 8 + 13 * 3), action_text(KERNEL.A_MELD + 65 + 3 * 66 + 65)
('draw stock', 'discard 9S', 'lay meld QS KS AS')
>>> action_text(KERNEL.A_LAYOFF + (2 * 52 + 33) * 3 + KERNEL.HIGH_END)
'lay off 8H on meld 2 (high end)'
>>> meld_action(["as", "qs", "ks"]) == KERNEL.A_MELD + 65 + 3 * 66 + 65
True
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..cards import format_card, mask_cards
from ..variants import checked_options, int_range, is_bool, is_integer, is_json_integer, json_numbers
from . import meld_action_of
from .cardverse_history import HandSoFar, explained
from .fields import OBS_FORMAT, OBS_VERSION, FieldReader, unknown_field
from ..errors import MeldmindError, json_type, shown
from ..kernels import cardverse as KERNEL

VARIANT = "cardverse"


# option name -> (type, default, check); RULES.md §4.2
OPTIONS: dict[str, tuple[type, Any, Any]] = {
    "num_players": (int, 2, int_range(2, 4)),
    "discard_to_win": (bool, False, is_bool),
    "ace_high": (bool, False, is_bool),
    "target_score": (int, 100, int_range(1, 1_000_000)),
    "no_immediate_rediscard": (bool, True, is_bool),
    "max_turns": (int, 300, int_range(1, 1_000_000)),
}
_PARAM_ORDER = ("num_players", "discard_to_win", "ace_high", "target_score",
                "no_immediate_rediscard", "max_turns")       # the kernel's P_* order

# REASONS[code] explains KERNEL.illegal_reason; the order is the kernel's R_* codes.
REASONS: tuple[str, ...] = (
    "legal",
    "the game is over",
    "unknown action id",
    "draw first: a turn starts with 'draw stock' or 'take discard'",
    "you already drew this turn: lay melds, lay off or discard",
    "the discard pile is empty",
    "that card is not in your hand",
    "the card taken from the discard pile cannot be discarded in the same turn unless it is "
    "your last card",
    "not every card of that meld is in your hand",
    "with discard_to_win a lay may not empty your hand: the last card must be discarded",
    "there is no table meld in that slot",
    "wrong place for that meld: a group takes cards as 'group', a run at its low or high end",
    "that card does not extend that meld there (a group needs a missing suit of its rank, a "
    "run the next card of its suit at that end, in the order 2..A)",
)
assert len(REASONS) == KERNEL.NUM_REASONS

PHASES = ("draw", "play", "game_over")
ENDS = ("low end", "high end", "group")
END_NAMES = ("low", "high", "group")
HAND_ENDS = (None, "out", "empty_stock", "max_turns")
KINDS = ("group", "run")


def make_params(options: Mapping[str, Any] | None = None) -> np.ndarray:
    """The kernel's parameter array from (resolved) options; missing options take defaults."""
    options = checked_options(VARIANT, OPTIONS, options)
    return np.array([int(options[name]) for name in _PARAM_ORDER], dtype=np.int64)


def hand_number(state: np.ndarray) -> int:
    """1-based number of the hand being played (or the last one, once the game is over)."""
    return int(KERNEL.hand_number(state))


def scores(state: np.ndarray) -> list[int]:
    """Cumulative game scores, one per seat."""
    n = int(state[KERNEL.S_NUM_PLAYERS])
    return [int(v) for v in state[KERNEL.S_SCORES:KERNEL.S_SCORES + n]]


# ---------------------------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------------------------

def _card(card: int) -> str:
    return format_card(VARIANT, int(card))


def meld_cards(k: int) -> list[int]:
    """Card ids of catalog meld ``k``: groups in suit order, runs from low to high (2..A)."""
    mask = int(KERNEL.MELD_MASK[k])
    cards = [c for c in range(52) if mask >> c & 1]
    if KERNEL.MELD_KIND[k] == KERNEL.KIND_RUN:
        cards.sort(key=lambda c: (c % 13 - 1) % 13)   # rank 2 first, ace last
    return cards


def _decode(action: int) -> tuple[str, dict[str, Any]]:
    if not is_integer(action) or not 0 <= action < KERNEL.NUM_ACTIONS:
        raise MeldmindError(f"not a cardverse action id: {shown(action)} "
                            f"(expected 0..{KERNEL.NUM_ACTIONS - 1})")
    action = int(action)
    if action == KERNEL.DRAW_STOCK:
        return "draw_stock", {}
    if action == KERNEL.TAKE_DISCARD:
        return "take_discard", {}
    if action < KERNEL.A_MELD:
        return "discard", {"card": _card(action - KERNEL.A_DISCARD)}
    if action < KERNEL.A_LAYOFF:
        k = action - KERNEL.A_MELD
        return "lay_meld", {"meld": k, "kind": KINDS[KERNEL.MELD_KIND[k]],
                            "cards": [_card(c) for c in meld_cards(k)]}
    slot, rest = divmod(action - KERNEL.A_LAYOFF, 3 * 52)
    card, end = divmod(rest, 3)
    return "lay_off", {"card": _card(card), "slot": slot, "end": END_NAMES[end]}


def action_text(action: int, phase: int | None = None) -> str:
    """Short text of an action id, e.g. ``"discard 9S"``, ``"lay off 8H on meld 2 (high end)"``."""
    kind, info = _decode(action)
    if kind == "draw_stock":
        return "draw stock"
    if kind == "take_discard":
        return "take discard"
    if kind == "discard":
        return f"discard {info['card']}"
    if kind == "lay_meld":
        return "lay meld " + " ".join(info["cards"])
    return f"lay off {info['card']} on meld {info['slot']} ({ENDS[END_NAMES.index(info['end'])]})"


def action_json(action: int, phase: int | None = None) -> dict[str, Any]:
    """The move as JSON: ``{"id", "type", "text"}`` plus ``card`` (discard, lay_off),
    ``meld``/``kind``/``cards`` (lay_meld: catalog index, kind, cards) or ``slot``/``end``
    (lay_off: table meld slot, "low" / "high" / "group"). CardVerse's ids mean one move in
    every phase, so ``phase`` is not needed."""
    kind, info = _decode(action)
    return {"id": int(action), "type": kind, "text": action_text(action), **info}


# What a meld is (RULES.md §4.5), for the messages that refuse one.
MELD_RULE = ("a group is 3-4 cards of one rank in distinct suits; a run 3+ consecutive cards of "
             "one suit in 2..A")
# The forms of the move texts (``action_text``), for the messages that refuse an unknown one.
MOVE_FORMS = ("draw stock, take discard, discard <card>, lay meld <cards>, "
              "lay off <card> on meld <n> (low end | high end | group)")


def meld_action(cards: str | Iterable[str]) -> int:
    """The LAY_MELD action id of a meld given as cards in any order; a set that is not a valid
    CardVerse meld (§4.5) raises ``MeldmindError``."""
    return meld_action_of(VARIANT, KERNEL.MELD_MASK, KERNEL.A_MELD, MELD_RULE, cards)


# ---------------------------------------------------------------------------------------------
# Observations
# ---------------------------------------------------------------------------------------------

def _table_cards(mask: int, kind: int) -> list[str]:
    cards = [c for c in range(52) if int(mask) >> c & 1]
    if kind == KERNEL.KIND_RUN:
        cards.sort(key=lambda c: (c % 13 - 1) % 13)
    return [_card(c) for c in cards]


def observation_dict(obs: np.ndarray, legal: Sequence[int] | None) -> dict[str, Any]:
    """The observation JSON (format ``meldmind.observation``, version 1) of an observation
    array; ``legal`` lists the legal action ids when it is the seat's turn (else None)."""
    K = KERNEL
    o = [int(v) for v in obs]
    n = o[K.O_PARAMS + K.P_NUM_PLAYERS]
    options = {name: (bool(o[K.O_PARAMS + i]) if OPTIONS[name][0] is bool else o[K.O_PARAMS + i])
               for i, name in enumerate(_PARAM_ORDER)}
    last = None
    if o[K.O_LAST_WINNER] >= 0:
        last = {"winner": o[K.O_LAST_WINNER], "end": HAND_ENDS[o[K.O_LAST_END]],
                "hand_values": o[K.O_LAST_VALUES:K.O_LAST_VALUES + n]}
    d: dict[str, Any] = {
        "format": OBS_FORMAT,
        "version": OBS_VERSION,
        "variant": VARIANT,
        "seat": o[K.O_SEAT],
        "options": options,
        "phase": PHASES[o[K.O_PHASE]],
        "to_move": o[K.O_CURRENT] if o[K.O_CURRENT] >= 0 else None,
        "hand_number": o[K.O_HAND_NO],
        "turn": o[K.O_TURN],
        "hand": mask_cards(VARIANT, o[K.O_HAND]),
        "hand_sizes": o[K.O_HAND_N:K.O_HAND_N + n],
        "scores": o[K.O_SCORES:K.O_SCORES + n],
        "stock_size": o[K.O_STOCK_N],
        "discard_pile": [_card(c) for c in o[K.O_DISCARD:K.O_DISCARD + o[K.O_DISCARD_N]]],
        "table": [{"slot": t, "kind": KINDS[o[K.O_TABLE_KIND + t]],
                   "cards": _table_cards(o[K.O_TABLE_MASK + t], o[K.O_TABLE_KIND + t])}
                  for t in range(o[K.O_TABLE_N])],
        "taken_from_discard": [mask_cards(VARIANT, o[K.O_KNOWN + p]) for p in range(n)],
        "hand_history": {key: [mask_cards(VARIANT, o[offset + p]) for p in range(n)]
                         for key, offset in _HISTORY_FIELDS.items()},
        "taken_this_turn": _card(o[K.O_TAKEN]) if o[K.O_TAKEN] >= 0 else None,
        "game_winner": o[K.O_GAME_WINNER] if o[K.O_GAME_WINNER] >= 0 else None,
        "last_hand": last,
    }
    if legal is not None:
        d["legal_moves"] = [action_json(int(a)) for a in legal]
    return d


class _Reader(FieldReader):
    variant = VARIANT


# the per-seat history of the hand (RULES.md §4.8): JSON key -> observation offset
_HISTORY_FIELDS = {"discarded": KERNEL.O_DISCARDED, "declined": KERNEL.O_DECLINED,
                   "taken": KERNEL.O_PICKED}


# the rule behind the counts of cards laid (RULES.md §4.10, Decision 8: lay-offs are free)
_LAID_WHOLE = "each meld was laid whole, at least 3 cards, by one seat"


def _read_hand_history(r: FieldReader, obs: np.ndarray, n: int) -> None:
    """``hand_history`` into ``obs``: per key, one card list per seat (``cards`` rejects a
    repeated card)."""
    history = r.get("hand_history")
    shape = ("'hand_history' must be an object with 'discarded', 'declined' and 'taken', each a "
             "list of card lists, one per seat")
    if not isinstance(history, Mapping):
        raise _Reader.fail(f"{shape}, not {json_type(history)}")
    unknown = unknown_field(history, frozenset(_HISTORY_FIELDS))
    if unknown is not None:
        raise _Reader.fail(f"'hand_history': {unknown}")
    missing = [key for key in _HISTORY_FIELDS if key not in history]
    if missing:
        raise _Reader.fail(f"'hand_history.{missing[0]}' is missing: {shape}")
    for key, offset in _HISTORY_FIELDS.items():
        per_seat = history[key]
        if not isinstance(per_seat, list) or len(per_seat) != n:
            raise _Reader.fail(f"'hand_history.{key}' must be a list of {n} card lists")
        for p, cards in enumerate(per_seat):
            ids = r.cards(f"hand_history.{key}[{p}]", cards)
            obs[offset + p] = sum(1 << c for c in ids)


def _meld_mask_of(key: str, cards: list[int], kind: int) -> int:
    mask = sum(1 << c for c in cards)
    ok = [int(k) for k in np.flatnonzero(KERNEL.MELD_MASK == mask)]
    if not ok or KERNEL.MELD_KIND[ok[0]] != kind:
        raise _Reader.fail(f"{key!r} is not a valid {KINDS[kind]}: "
                            f"{' '.join(_card(c) for c in cards)}")
    return mask


def _table_mask_of(key: str, cards: list[int], kind: int) -> int:
    """A table meld is always a catalog meld: lay-offs grow groups to 4 and runs up to 2..A."""
    if len(cards) < 3:
        raise _Reader.fail(f"{key!r} needs at least 3 cards")
    return _meld_mask_of(key, cards, kind)


def _check_count(key: str, have: int, expected: int, repeats: bool, why: str) -> None:
    """``have`` cards in ``key`` where ``expected`` events put one each. Fewer are possible only
    when ``repeats``: a seat took back a card it had discarded, so one card may have been
    discarded, passed over or taken twice, and a history list names it once."""
    if have > expected or (have < expected and not repeats):
        bound = "at most " if repeats else ""
        raise _Reader.fail(f"{key} has {have} cards and should have {bound}{expected}: {why}")


def _turns_completed(turn: int, seat: int, first: int, n: int) -> int:
    """How many of the hand's first ``turn`` turns were ``seat``'s (``first`` played turn 0)."""
    return (turn - (seat - first) % n + n - 1) // n


def _check_turns(o: list[int], n: int, pile: list[int]) -> None:
    """A hand in progress after ``turn`` completed turns (RULES.md §4.3-4.4, 4.8): turns go
    round from the hand's first seat, each one draw then one discard, and a seat meets on the
    pile the card the seat before it has just discarded (the first seat of the hand: the
    upcard)."""
    K = KERNEL
    turn, mover, hand_no = o[K.O_TURN], o[K.O_CURRENT], o[K.O_HAND_NO]
    play = int(o[K.O_PHASE] == K.PHASE_PLAY)
    first = (hand_no - 1) % n
    if mover != (first + turn) % n:
        raise _Reader.fail(f"'to_move' is seat {mover}, but seat {first} starts hand {hand_no} "
                           f"('hand_number') and after {turn} turns ('turn') seat "
                           f"{(first + turn) % n} is to move")
    deal, sizes = int(K.deal_size(n)), o[K.O_HAND_N:K.O_HAND_N + n]
    table = sum(o[K.O_TABLE_MASK + t].bit_count() for t in range(o[K.O_TABLE_N]))
    drawn = " and the card the seat to move drew" if play else ""
    if sum(sizes) + table != n * deal + play:
        raise _Reader.fail(f"'hand_sizes' and 'table' hold {sum(sizes) + table} cards, but in "
                           f"phase {PHASES[play]!r} they hold the {n} x {deal} cards dealt"
                           f"{drawn}: {n * deal + play}")
    for p, size in enumerate(sizes):
        most = deal + (play and p == mover)
        # cards leave a hand for the table only on its seat's turn
        played = _turns_completed(turn, p, first, n) > 0 or (play and p == mover)
        if not played and size != deal:
            raise _Reader.fail(f"'hand_sizes[{p}]' is {size}, but seat {p} has not played yet in "
                               f"hand {hand_no} ('turn' {turn}) and holds the {deal} cards dealt: "
                               "cards reach the table only on their seat's turn")
        if not 1 <= size <= most:
            extra = drawn if most > deal else ""
            raise _Reader.fail(f"'hand_sizes[{p}]' is {size}: while the hand is on, seat {p} "
                               f"holds 1 to {most} cards (the {deal} dealt{extra}, less those "
                               "laid)")
    # every meld on the table was laid whole, at least 3 cards, by one seat; lay-offs are free
    lays, melds = _cards_laid(o, n), o[K.O_TABLE_N]
    if sum(laid // 3 for laid in lays) < melds:
        raise _Reader.fail(f"'hand_sizes' {sizes} leave the seats {list(lays)} cards laid, too "
                           f"few for the {melds} meld{'s' * (melds > 1)} of 'table': "
                           f"{_LAID_WHOLE}")
    discarded, declined, took = (o[offset:offset + n] for offset in _HISTORY_FIELDS.values())
    again = [bool(took[p] & discarded[p]) for p in range(n)]
    # the pile's bottom card is the upcard unless a seat discarded it (after taking the upcard)
    thrown = 0
    for mask in discarded:
        thrown |= mask
    upcard = pile[0] if pile and not thrown >> pile[0] & 1 else -1
    for p in range(n):
        turns = _turns_completed(turn, p, first, n)
        prev = (p - 1) % n
        _check_count(f"'hand_history.discarded[{p}]'", discarded[p].bit_count(), turns, again[p],
                     f"seat {p} has completed {turns} turns ('turn' {turn}), each ending with a "
                     "discard")
        draws = turns + (play and p == mover)
        _check_count(f"'hand_history.declined[{p}]' with 'hand_history.taken[{p}]'",
                     declined[p].bit_count() + took[p].bit_count(), draws,
                     again[p] or again[prev], f"seat {p} has drawn {draws} times, each passing "
                     "over the top of the discard pile (stock) or taking it")
        met = (declined[p] | took[p]) & ~discarded[prev]
        if p == first:      # besides, the upcard: the known one, else any one card
            met &= ~(1 << upcard if upcard >= 0 else met & -met)
        if met:
            raise _Reader.fail(
                f"'hand_history.declined[{p}]' or 'hand_history.taken[{p}]' names "
                f"{_card(met.bit_length() - 1)}, missing from 'hand_history.discarded[{prev}]': "
                f"seat {p} draws when seat {prev} has just discarded"
                + (" (or, on the first turn, from the upcard)" if p == first else ""))
    # a discard leaves the pile only when the next seat takes it, and a card taken goes back
    # to the pile only as a discard of the seat that took it
    in_pile = sum(1 << c for c in pile)
    for p in range(n):
        gone = discarded[p] & ~in_pile & ~took[(p + 1) % n]
        if gone:
            raise _Reader.fail(
                f"'hand_history.discarded[{p}]' names {_card(gone.bit_length() - 1)}, which is no "
                f"longer in 'discard_pile': only seat {(p + 1) % n}, the next, could take it, so "
                f"it must be in 'hand_history.taken[{(p + 1) % n}]'")
        back = took[p] & in_pile & ~discarded[p]
        if back:
            raise _Reader.fail(
                f"'hand_history.taken[{p}]' names {_card(back.bit_length() - 1)}, which is in "
                f"'discard_pile': a card seat {p} took goes back there only as its discard, and "
                f"'hand_history.discarded[{p}]' lacks it")
    if upcard >= 0 and (turn or play) and not declined[first] >> upcard & 1:
        raise _Reader.fail(f"'hand_history.declined[{first}]' lacks the upcard "
                           f"{_card(upcard)} (the bottom of 'discard_pile'): seat {first} drew "
                           "first in this hand and left it there")
    takes = sum(mask.bit_count() for mask in took)
    _check_count("'discard_pile'", len(pile), 1 + turn - takes, any(again),
                 f"the upcard and {turn} discards ('turn'), less {takes} taken "
                 "('hand_history.taken')")
    taken_now = o[K.O_TAKEN]
    before = (mover - 1) % n
    if taken_now >= 0 and turn and not discarded[before] >> taken_now & 1:
        raise _Reader.fail(f"'taken_this_turn' is {_card(taken_now)}, which is not in "
                           f"'hand_history.discarded[{before}]': after the hand's first turn a "
                           f"seat can take only the card seat {before}, the one before it, has "
                           "just discarded")
    if taken_now < 0:
        # no card taken this turn: the pile is as the turn found it, topped by the last discard
        # (or the upcard), and a stock draw passed over that top
        if not pile or (turn and not discarded[before] >> pile[-1] & 1):
            raise _Reader.fail(f"the top of 'discard_pile' must be a card of "
                               f"'hand_history.discarded[{before}]': seat {before} ended the "
                               "last turn with a discard and no card was taken this turn")
        if play and not declined[mover] >> pile[-1] & 1:
            raise _Reader.fail(f"'taken_this_turn' is null, so seat {mover} drew from the stock "
                               f"and passed over {_card(pile[-1])}, the top of 'discard_pile': "
                               f"it must be in 'hand_history.declined[{mover}]'")
    _check_pile_order(o, n, pile, upcard)
    _check_passed_over(declined, pile, in_pile, play)
    _check_history_exists(o, n, pile)


def _cards_laid(o: list[int], n: int) -> tuple[int, ...]:
    """Each seat's cards laid this hand: dealt + draws - discards - held, where draws - discards
    is 1 for the seat that has drawn this turn, else 0."""
    K = KERNEL
    drawn = int(o[K.O_PHASE] == K.PHASE_PLAY)
    return tuple(int(K.deal_size(n)) + (drawn and p == o[K.O_CURRENT]) - o[K.O_HAND_N + p]
                 for p in range(n))


def _check_history_exists(o: list[int], n: int, pile: list[int]) -> None:
    """The exact check behind the bounds above: some order of draws and discards, turn by
    turn, gives these sets, this pile and these held cards (``cardverse_history``). When none
    does, the error names the rule that the nearest history breaks."""
    K = KERNEL
    turn, play = o[K.O_TURN], o[K.O_PHASE] == K.PHASE_PLAY
    first, deal = (o[K.O_HAND_NO] - 1) % n, int(K.deal_size(n))
    hand = HandSoFar(
        players=n, first=first, turns=turn, drawn=play, taken_now=o[K.O_TAKEN], pile=tuple(pile),
        discarded=tuple(o[K.O_DISCARDED:K.O_DISCARDED + n]),
        declined=tuple(o[K.O_DECLINED:K.O_DECLINED + n]),
        taken=tuple(o[K.O_PICKED:K.O_PICKED + n]), held=tuple(o[K.O_KNOWN:K.O_KNOWN + n]),
        lays=_cards_laid(o, n), melds=tuple(o[K.O_TABLE_MASK:K.O_TABLE_MASK + o[K.O_TABLE_N]]),
        dealt=deal,
        no_immediate_rediscard=bool(o[K.O_PARAMS + K.P_NO_REDISCARD]))
    if explained(hand) is not False:
        return
    reason = ("no order of the hand's turns fits 'turn', 'discard_pile', 'hand_history' and "
              "'taken_from_discard': each turn meets on the pile the card the turn before "
              "discarded, takes it or passes over it for good, and ends with a discard of a card "
              "its seat holds")
    if hand.no_immediate_rediscard and explained(hand, rediscard_rule=False):
        raise _Reader.fail(f"{reason}; they fit only if a seat discarded the card it had just "
                           "taken, which 'options.no_immediate_rediscard' forbids")
    laid_by = "a card a seat took and no longer holds or discarded was laid by it"
    if explained(hand, lay_rule=False):
        raise _Reader.fail(f"{reason}; they fit only if a seat laid more cards than its "
                           f"'hand_sizes' leave it: {laid_by}, and {_LAID_WHOLE}")
    if explained(hand, base_rule=False):
        raise _Reader.fail(f"{reason}; they fit only if two seats laid the base of one meld "
                           f"of 'table': {laid_by}, and each meld was laid whole by one seat, "
                           "at least 3 cards in a row or of a rank; only the cards beyond those "
                           "may be lay-offs from other seats")
    raise _Reader.fail(reason)


def _check_passed_over(declined: list[int], pile: list[int], in_pile: int, play: int) -> None:
    """A card passed over (a stock draw while it topped the pile) is covered by that seat's
    discard and stays covered: only the top can be taken, and whoever takes the card above it
    covers it again before the next draw. So each card under the top was passed over exactly
    once, by one seat, and so was the top once the seat to move has drawn ('play'). The counts
    of ``_check_turns`` cannot see this once a card was taken and discarded again."""
    seen = 0
    for p, mask in enumerate(declined):
        if seen & mask:
            card = (seen & mask).bit_length() - 1
            other = next(q for q in range(p) if declined[q] >> card & 1)
            raise _Reader.fail(f"'hand_history.declined[{other}]' and "
                               f"'hand_history.declined[{p}]' both name {_card(card)}: a card "
                               "passed over stays covered in 'discard_pile', so only one seat "
                               "can pass over it")
        seen |= mask
    if seen & ~in_pile:
        raise _Reader.fail(f"'hand_history.declined' names "
                           f"{_card((seen & ~in_pile).bit_length() - 1)}, which is not in "
                           "'discard_pile': a card passed over stays covered there")
    covered = in_pile
    if pile and not play:
        if seen >> pile[-1] & 1:
            raise _Reader.fail(f"'hand_history.declined' names {_card(pile[-1])}, the top of "
                               "'discard_pile', which the seat to move has not drawn over yet")
        covered &= ~(1 << pile[-1])
    if covered & ~seen:
        index = next(i for i, c in enumerate(pile) if (covered & ~seen) >> c & 1)
        raise _Reader.fail(f"'discard_pile[{index}]' ({_card(pile[index])}) is in no seat's "
                           "'hand_history.declined', but "
                           + ("the seat to move has drawn, so every pile card, the top too, was "
                              if play else "every card under the top was ")
                           + "passed over by the seat that drew while it topped the pile")


def _check_pile_order(o: list[int], n: int, pile: list[int], upcard: int) -> None:
    """The order of ``discard_pile`` (RULES.md §4.3-4.4), which tells who threw each card: turn
    ``t`` of the hand is seat ``(first + t) % n``'s and ends with its discard, and a discard
    leaves the pile only when the next seat takes it at once. So the pile holds, above the
    upcard (if still there), discards of strictly later and later turns, each one of a seat
    that discarded it, the top one by the last turn (the one before if a card was taken this
    turn). Each card gets its earliest such turn counting up from the bottom and its latest
    counting down from the top; the lowest card whose earliest is past its latest is out of
    order."""
    K = KERNEL
    turn, hand_no = o[K.O_TURN], o[K.O_HAND_NO]
    first, taken_now = (hand_no - 1) % n, int(o[K.O_TAKEN] >= 0)
    bottom = int(upcard >= 0)
    discarded = o[K.O_DISCARDED:K.O_DISCARDED + n]
    # per pile card above the upcard: the seats that discarded it (more than one when a seat
    # took it and discarded it again), as their turn offsets from the hand's first seat
    offsets = [[(p - first) % n for p in range(n) if discarded[p] >> c & 1] for c in pile[bottom:]]
    earliest, t = [], -1
    for seats in offsets:
        t = min(t + 1 + (s - t - 1) % n for s in seats)
        earliest.append(t)
    latest, t = [], turn - taken_now
    for seats in reversed(offsets):
        t = max(t - 1 - (t - 1 - s) % n for s in seats)
        latest.append(t)
    for i, (soonest, last) in enumerate(zip(earliest, reversed(latest))):
        if soonest > last:
            card, seat = pile[bottom + i], (first + soonest) % n
            top = (f"the one before the last ('turn' {turn}), whose discard was taken this turn "
                   "('taken_this_turn')" if taken_now else f"the last one played ('turn' {turn})")
            raise _Reader.fail(
                f"'discard_pile[{bottom + i}]' ({_card(card)}) is out of order: the pile holds "
                "its cards in the order they were discarded, one discard ending each turn and "
                "taken off only by the next seat at once, and turns go round from seat "
                f"{first}, which starts hand {hand_no} ('hand_number'); so with the cards under "
                f"it, {_card(card)}, a discard of seat {seat} ('hand_history.discarded[{seat}]'), "
                f"comes on turn {soonest + 1} of the hand at the earliest, and the pile from it "
                f"up puts its top card on turn {earliest[-1] + 1}, past turn {turn - taken_now}: "
                f"{top}")


def _check_scores(o: list[int], n: int) -> None:
    """Scores and the last hand's result (RULES.md §4.6-4.7): only a hand's winner scores, the
    other hands' values, at least 1 point and at most a full deal's worth from each; the game
    ends at the first hand that takes a score to the target."""
    K = KERNEL
    target, winner = o[K.O_PARAMS + K.P_TARGET_SCORE], o[K.O_GAME_WINNER]
    scores, over = o[K.O_SCORES:K.O_SCORES + n], winner >= 0
    for p, score in enumerate(scores):
        if (score >= target) != (p == winner):
            why = (f"seat {p} won the game ('game_winner')" if p == winner else
                   "only the game winner reaches it" if over else
                   "the game is not over ('game_winner' is null): it ends when a score reaches it")
            side = "below" if p == winner else "at or above"
            raise _Reader.fail(f"'scores[{p}]' is {score}, {side} 'options.target_score' "
                               f"({target}), but {why}")
    last = o[K.O_LAST_WINNER]
    first_hand = o[K.O_HAND_NO] == 1 and not over
    if (last < 0) != first_hand:
        raise _Reader.fail("'last_hand' must be null exactly during the first hand "
                           "('hand_number' 1) of a game not over")
    if first_hand:
        if any(scores):
            raise _Reader.fail("'scores' must all be 0 during the first hand ('hand_number' 1): "
                               "points come only at a hand's end")
        return
    if over and last != winner:
        raise _Reader.fail("'last_hand.winner' must be 'game_winner': the game ends with the "
                           "hand its winner won")
    values = o[K.O_LAST_VALUES:K.O_LAST_VALUES + n]
    others = [v for p, v in enumerate(values) if p != last]
    # going out leaves the winner no card; a blocked hand goes to the lowest value (the lowest
    # seat on ties); every other hand, and a blocked hand's winner, holds cards
    out = o[K.O_LAST_END] == K.END_OUT
    best = 0 if out else min(values)
    if values[last] != best or values.index(best) != last or min(others if out else values) < 1:
        raise _Reader.fail(f"'last_hand.hand_values' {values} do not fit a hand won by seat "
                           f"{last} ('last_hand.winner') that ended "
                           f"{HAND_ENDS[o[K.O_LAST_END]]!r}: going out leaves the winner 0 "
                           "points, a blocked hand goes to the lowest value (the lowest seat on "
                           "ties), and every other hand holds cards")
    deal = int(K.deal_size(n))
    ace_high = bool(o[K.O_PARAMS + K.P_ACE_HIGH])
    most = sum(sorted((int(K.card_value(c, ace_high)) for c in range(52)), reverse=True)[:deal])
    if max(values) > most:
        raise _Reader.fail(f"'last_hand.hand_values' {values} do not fit a hand that ended: each "
                           f"seat held at most the {deal} cards dealt, worth at most {most} "
                           "points")
    if scores[last] < sum(others):
        raise _Reader.fail(f"'scores[{last}]' is {scores[last]}, less than the {sum(others)} "
                           f"points seat {last} won in 'last_hand'")
    # each ended hand gave points (at least 1: the others hold cards) to its winner alone
    ended = o[K.O_HAND_NO] - (0 if over else 1)
    for p, score in enumerate(scores):
        if ended == 1 and score != (sum(others) if p == last else 0):
            raise _Reader.fail(f"'scores[{p}]' is {score}, but only one hand has ended, in which "
                               f"seat {last} won {sum(others)} points ('last_hand')")
    scoring = sum(score > 0 for score in scores)
    if scoring > ended:
        raise _Reader.fail(f"'scores' give points to {scoring} seats, but {ended} hands have "
                           "ended ('hand_number'), and only a hand's winner scores")
    # each hand before the last gave its winner at least 1 and at most `most` points a loser
    before = sum(scores) - sum(others)
    least, largest = (ended - 1) * (n - 1), (ended - 1) * (n - 1) * most
    if not least <= before <= largest:
        raise _Reader.fail(f"'scores' add up to {sum(scores)}, {before} of them from the "
                           f"{ended - 1} hands before 'last_hand', but each of those gave its "
                           f"winner 1 to {most} points from each seat that lost it: {least} to "
                           f"{largest} in all")
    if over and scores[last] - sum(others) >= target:
        raise _Reader.fail(f"'scores[{last}]' is {scores[last]}, so seat {last} had "
                           f"{scores[last] - sum(others)} before winning 'last_hand': the game "
                           f"would have ended a hand earlier, at 'options.target_score' "
                           f"({target})")


def observation_array(d: Mapping[str, Any]) -> np.ndarray:
    """The observation array of an observation JSON (the inverse of ``observation_dict``).

    Checks that there is no unknown field, at the top or nested, every field's type and range,
    that the cards are consistent (no card twice, the counts add up to 52) and that the fields
    tell a possible game: the turn order, the hand sizes, the hand's history, the discard
    pile's order, the scores and the last hand's result (``_check_turns``,
    ``_check_pile_order``, ``_check_scores``); a bad JSON raises ``MeldmindError`` naming the
    field.
    """
    K = KERNEL
    r = _Reader.open(d)
    given = r.get("options")
    if not isinstance(given, Mapping):
        raise MeldmindError("cardverse observation: 'options' must be an object")
    # first: a misspelt option is the likely reason for a missing one
    unknown = unknown_field(given, frozenset(OPTIONS))
    if unknown is not None:
        raise _Reader.fail(f"'options': {unknown}")
    options = json_numbers(OPTIONS, given)
    for name, (_, _, check) in OPTIONS.items():
        if name not in given:
            raise _Reader.fail(f"missing option {name!r}")
        if not check(options[name]):
            raise _Reader.fail(f"option {name!r} must be {check.__doc__}, not {shown(given[name])}")
    n = options["num_players"]
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    obs[K.O_PARAMS:K.O_PARAMS + K.PARAMS_SIZE] = make_params(options)
    obs[K.O_SEAT] = seat = r.integer("seat", 0, n - 1)
    phase = r.get("phase")
    if phase not in PHASES:
        raise _Reader.fail(f"'phase' must be one of {PHASES}, not {shown(phase)}")
    obs[K.O_PHASE] = PHASES.index(phase)
    over = phase == "game_over"
    to_move = r.optional_int("to_move", 0, n - 1)
    if (to_move < 0) != over:
        raise MeldmindError("cardverse observation: 'to_move' must be null exactly when the game "
                            "is over")
    obs[K.O_CURRENT] = to_move
    obs[K.O_HAND_NO] = r.integer("hand_number", 1, 10**9)
    # the hand ends when its max_turns-th turn is complete; a finished game keeps that count
    obs[K.O_TURN] = r.integer("turn", 0, options["max_turns"] - (not over))
    hand = r.cards("hand", r.get("hand"))
    obs[K.O_HAND] = hand_mask = sum(1 << c for c in hand)
    sizes = r.int_list("hand_sizes", r.get("hand_sizes"), n, 0, 52)
    if sizes[seat] != len(hand):
        raise _Reader.fail(f"hand_sizes[{seat}] = {sizes[seat]} but the "
                            f"hand holds {len(hand)} cards")
    obs[K.O_HAND_N:K.O_HAND_N + n] = sizes
    obs[K.O_SCORES:K.O_SCORES + n] = r.int_list("scores", r.get("scores"), n, 0, 10**12)
    obs[K.O_STOCK_N] = stock = r.integer("stock_size", 0, 52)
    pile = r.cards("discard_pile", r.get("discard_pile"))
    pile_mask = sum(1 << c for c in pile)
    obs[K.O_DISCARD_N] = len(pile)
    obs[K.O_DISCARD:K.O_DISCARD + 52] = -1
    obs[K.O_DISCARD:K.O_DISCARD + len(pile)] = pile
    table = r.get("table")
    if not isinstance(table, list) or len(table) > K.MAX_TABLE:
        raise _Reader.fail(f"'table' must be a list of at most "
                            f"{K.MAX_TABLE} melds")
    obs[K.O_TABLE_N] = len(table)
    obs[K.O_TABLE_KIND:K.O_TABLE_KIND + K.MAX_TABLE] = -1
    table_cards = 0
    for t, meld in enumerate(table):
        key = f"table[{t}]"
        if not isinstance(meld, Mapping) or set(meld) != {"slot", "kind", "cards"} \
                or meld["kind"] not in KINDS or not isinstance(meld["cards"], list):
            raise _Reader.fail(f"{key!r} must be an object with just 'slot', 'kind' ('group' or "
                               f"'run') and 'cards', not {shown(meld)}")
        slot = meld["slot"]
        if not is_json_integer(slot) or slot != t:
            raise _Reader.fail(f"'{key}.slot' is {shown(slot)}, but a table meld's slot is its "
                               f"index in 'table', which lists the melds in the order they were "
                               f"laid from slot 0 (lay-offs name a meld by it): {t} here")
        kind = KINDS.index(meld["kind"])
        mask = _table_mask_of(key, r.cards(key, meld["cards"]), kind)
        if mask & table_cards:
            raise _Reader.fail(f"{key!r} repeats a table card")
        table_cards |= mask
        obs[K.O_TABLE_MASK + t] = mask
        obs[K.O_TABLE_KIND + t] = kind
    taken = r.get("taken_from_discard")
    if not isinstance(taken, list) or len(taken) != n:
        raise _Reader.fail(f"'taken_from_discard' must be a list of {n} "
                            "card lists")
    known_all = 0
    for p, cards in enumerate(taken):
        key = f"taken_from_discard[{p}]"
        ids = r.cards(key, cards)
        mask = sum(1 << c for c in ids)
        if len(ids) > sizes[p] or (p == seat and mask & ~hand_mask) or (p != seat and mask & hand_mask):
            raise _Reader.fail(f"{key!r} does not fit that seat's hand")
        if mask & known_all:
            raise _Reader.fail(f"{key!r} repeats a card")
        known_all |= mask
        obs[K.O_KNOWN + p] = mask
    _read_hand_history(r, obs, n)
    discarded_all = 0
    for p in range(n):
        discarded_all |= int(obs[K.O_DISCARDED + p])
        if int(obs[K.O_KNOWN + p]) & ~int(obs[K.O_PICKED + p]):
            raise _Reader.fail(f"'taken_from_discard[{p}]' holds a card missing from "
                                f"'hand_history.taken[{p}]'")
    if any(not (discarded_all >> c) & 1 for c in pile[1:]):
        raise _Reader.fail("every discard pile card above the bottom one must be in "
                            "'hand_history.discarded'")
    # a card on the discard pile this hand stays in sight: on the pile, on the table, or held
    # by a seat that took it
    history = 0
    for offset in _HISTORY_FIELDS.values():
        for p in range(n):
            history |= int(obs[offset + p])
    lost = history & ~(pile_mask | table_cards | known_all)
    if lost:
        raise _Reader.fail(f"'hand_history' names {_card(lost.bit_length() - 1)}, which is "
                           "neither on 'discard_pile' or 'table' nor in 'taken_from_discard': "
                           "a card discarded, passed over or taken this hand stays in sight")
    taken_now = r.get("taken_this_turn")
    if taken_now is None:
        obs[K.O_TAKEN] = -1
    else:
        (card,) = r.cards("taken_this_turn", [taken_now])
        if phase != "play" or not ((int(obs[K.O_PICKED + to_move]) & (int(obs[K.O_KNOWN + to_move])
                                                                       | table_cards)) >> card) & 1:
            raise MeldmindError("cardverse observation: 'taken_this_turn' must be a card the seat "
                                "to move took from the discard this turn (held or laid)")
        obs[K.O_TAKEN] = card
    obs[K.O_GAME_WINNER] = winner = r.optional_int("game_winner", 0, n - 1)
    if (winner >= 0) != over:
        raise MeldmindError("cardverse observation: 'game_winner' must be set exactly when the "
                            "game is over")
    last = r.get("last_hand")
    if last is None:
        obs[K.O_LAST_WINNER] = -1
        obs[K.O_LAST_END] = 0
    else:
        if not isinstance(last, Mapping) or set(last) != {"winner", "end", "hand_values"} \
                or last["end"] not in HAND_ENDS[1:]:
            raise _Reader.fail("'last_hand' must be null or an object with just 'winner', 'end' "
                               f"(out, empty_stock, max_turns) and 'hand_values', not {shown(last)}")
        obs[K.O_LAST_WINNER] = _Reader.int_in("last_hand.winner", last["winner"], 0, n - 1)
        obs[K.O_LAST_END] = HAND_ENDS.index(last["end"])
        obs[K.O_LAST_VALUES:K.O_LAST_VALUES + n] = _Reader.int_list(
            "last_hand.hand_values", last["hand_values"], n, 0, 52 * 11)
    # the cards: pairwise disjoint, and the counts add up to the deck
    zones = [("hand", hand_mask), ("discard_pile", pile_mask), ("table", table_cards)]
    zones += [(f"taken_from_discard[{p}]", int(obs[K.O_KNOWN + p])) for p in range(n) if p != seat]
    for i, (name, mask) in enumerate(zones):
        for other, before in zones[:i]:
            if mask & before:
                raise _Reader.fail(f"{_card((mask & before).bit_length() - 1)} is in both "
                                   f"{other!r} and {name!r}: a card is in one place only, the "
                                   "hand, the discard pile, the table or another seat's hand")
    table_size = table_cards.bit_count()
    total = sum(sizes) + stock + len(pile) + table_size
    if total != 52:
        raise _Reader.fail(f"the cards do not add up: {sum(sizes)} in the hands ('hand_sizes') + "
                           f"{stock} in the stock + {len(pile)} on the discard pile + "
                           f"{table_size} on the table = {total}, not 52")
    # each field can be in range while together they tell no game (RULES.md §4.3-4.8)
    o = [int(v) for v in obs]
    _check_scores(o, n)
    if not over:
        _check_turns(o, n, pile)
    # the kernels trust a position to act from; fields can contradict each other without any
    # single one being out of range (the play phase with an empty hand)
    if not over and to_move == seat and not K.legal_actions(K.determinize(obs, 0),
                                                             np.empty(K.NUM_ACTIONS, np.int64)):
        raise _Reader.fail(f"the fields leave the seat to move no legal move (phase {phase!r} with "
                           f"{len(hand)} cards in hand)")
    return obs
