"""Gin Rummy (RULES.md §5, OpenSpiel ``gin_rummy`` defaults): move texts and JSON over
``kernels/gin.py``.

The rules live only in the kernel; this module names its action ids and observation slots.
Gin has no options: ``knock_card`` 10, ``gin_bonus`` 25 and ``undercut_bonus`` 25 are fixed
(``PARAMETERS``).

A card id (0..51) is a discard in the Discard and Knock phases and a lay-off in the Layoff
phase; give ``phase`` to get the matching text.

>>> action_text(52), action_text(55), action_text(8 + 13 * 3)
('draw upcard', 'knock', 'discard 9S')
>>> action_text(8 + 13 * 3, phase=KERNEL.PH_LAYOFF)
'lay off 9S'
>>> action_text(KERNEL.MELD_BASE + 30)   # rank 7 (30 // 5 = 6), without suit 0 (C)
'lay meld 7D 7H 7S'
>>> meld_action("7h 7s 7d") == KERNEL.MELD_BASE + 30
True
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..cards import fold_case, format_card, mask_cards
from . import meld_action_of
from .fields import OBS_FORMAT, OBS_VERSION, FieldReader, unknown_field
from ..errors import MeldmindError, shown
from ..kernels import gin as KERNEL
from ..variants import checked_options, is_integer

VARIANT = "gin"

# Gin has no configurable options (RULES.md §5: OpenSpiel's default parameters).
OPTIONS: dict[str, tuple[type, Any, Any]] = {}
PARAMETERS = {"knock_card": 10, "gin_bonus": 25, "undercut_bonus": 25}   # read-only

# REASONS[code] explains KERNEL.illegal_reason; the order is the kernel's R_* codes.
REASONS: tuple[str, ...] = (
    "legal",
    "the game is over",
    "unknown action id (gin actions are 0..240)",
    "first upcard: take the upcard or pass",
    "both players passed the first upcard: draw from the stock",
    "draw first: take the upcard or draw from the stock",
    "discard a card (or knock)",
    "that card is not in your hand",
    ("knocking needs deadwood <= the knock card (10), counted as OpenSpiel counts it: the first "
     "best arrangement of all 11 cards its search finds (groups before runs), less the highest "
     "card left over"),
    "after knocking, the discard must leave deadwood <= the knock card (10)",
    "after knocking, discard first",
    "not every card of that meld is in your hand",
    "laying that meld leaves no way to reach deadwood <= the knock card (10)",
    "the knocker may pass only when the cards not laid total <= the knock card (10)",
    "the knocker has discarded already: lay melds, then pass",
    "that card does not fit any of the knocker's melds",
    "lay off first, then pass to lay your own melds",
    "lay-offs are over (the knocker went gin, or you passed): lay melds or pass",
    "two stock cards left (the wall): knock or pass",
    # the knock and layoff phases refuse draws and knocks with this one
    "after a knock no one draws or knocks: lay melds, lay off, or pass",
)
assert len(REASONS) == KERNEL.NUM_REASONS

PHASES = ("deal", "first_upcard", "draw", "discard", "knock", "layoff", "wall", "game_over")
ENDS = (None, "knock", "wall", "upcard_limit", "repeated_move")


def make_params(options: Mapping[str, Any] | None = None) -> np.ndarray:
    """The kernel's parameter array; gin takes no options (``checked_options`` refuses any)."""
    checked_options(VARIANT, OPTIONS, options)
    return np.array(KERNEL.DEFAULT_PARAMS, dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------------------------

def _card(card: int) -> str:
    return format_card(VARIANT, int(card))


def _card_ids(mask: int) -> list[int]:
    return [c for c in range(KERNEL.NUM_CARDS) if mask >> c & 1]


def meld_cards(meld: int) -> list[int]:
    """Card ids of meld id ``meld`` (0..184), ascending (groups in suit order C D H S)."""
    return _card_ids(int(KERNEL.MELD_MASK[meld]))


def meld_kind(meld: int) -> str:
    return "group" if meld < KERNEL.NUM_SET_MELDS else "run"


def _check_id(action: Any) -> int:
    if not is_integer(action) or not 0 <= action < KERNEL.NUM_ACTIONS:
        raise MeldmindError(f"not a gin action id: {shown(action)} (expected 0..{KERNEL.NUM_ACTIONS - 1})")
    return int(action)


def _decode(action: Any, phase: int | None) -> tuple[str, dict[str, Any]]:
    action = _check_id(action)
    if action < KERNEL.NUM_CARDS:
        return ("lay_off" if phase == KERNEL.PH_LAYOFF else "discard"), {"card": _card(action)}
    if action == KERNEL.DRAW_UPCARD:
        return "draw_upcard", {}
    if action == KERNEL.DRAW_STOCK:
        return "draw_stock", {}
    if action == KERNEL.PASS:
        return "pass", {}
    if action == KERNEL.KNOCK:
        return "knock", {}
    meld = action - KERNEL.MELD_BASE
    return "lay_meld", {"meld": meld, "kind": meld_kind(meld),
                        "cards": [_card(c) for c in meld_cards(meld)]}


_TEXT = {"draw_upcard": "draw upcard", "draw_stock": "draw stock", "pass": "pass", "knock": "knock"}


def action_text(action: int, phase: int | None = None) -> str:
    """Short text of an action id: ``"draw upcard"``, ``"draw stock"``, ``"pass"``,
    ``"knock"``, ``"discard 9S"``, ``"lay meld 7C 7D 7H"``, and ``"lay off 8H"`` for a card id
    when ``phase`` is the Layoff phase (``KERNEL.PH_LAYOFF``)."""
    kind, info = _decode(action, phase)
    if kind == "discard":
        return f"discard {info['card']}"
    if kind == "lay_off":
        return f"lay off {info['card']}"
    if kind == "lay_meld":
        return "lay meld " + " ".join(info["cards"])
    return _TEXT[kind]


def action_json(action: int, phase: int | None = None) -> dict[str, Any]:
    """The move as JSON: ``{"id", "type", "text"}`` plus ``card`` (discard, lay_off) or
    ``meld``/``kind``/``cards`` (lay_meld: meld id 0..184, "group"/"run", cards)."""
    kind, info = _decode(action, phase)
    return {"id": int(action), "type": kind, "text": action_text(action, phase), **info}


# What a meld is (RULES.md §5.2, OpenSpiel's meld ids), for the messages that refuse one.
MELD_RULE = ("a group is 3-4 cards of one rank; a run 3-5 consecutive cards of one suit, ace low; "
             "longer runs are laid in parts")
# The forms of the move texts (``action_text``), for the messages that refuse an unknown one.
MOVE_FORMS = ("draw upcard, draw stock, pass, knock, discard <card>, lay meld <cards>, "
              "lay off <card>")


def meld_action(cards: str | Iterable[str]) -> int:
    """The lay-meld action id of a meld given as cards in any order (3-4 of a rank, or a run of
    3-5 of a suit, ace low); anything else raises ``MeldmindError``."""
    return meld_action_of(VARIANT, KERNEL.MELD_MASK, KERNEL.MELD_BASE, MELD_RULE, cards)


# ---------------------------------------------------------------------------------------------
# Observations
# ---------------------------------------------------------------------------------------------

def _optional_card(card: int) -> str | None:
    return _card(card) if card >= 0 else None


def history_entry(entry: int) -> dict[str, Any]:
    """One entry of the permitted history as JSON: ``{"seat", "move"}`` with the move's text,
    plus ``"card"`` for a stock draw whose card the observing seat saw (its own draws)."""
    K = KERNEL
    seat, code = entry % 2, entry // 2
    if code >= K.H_STOCK_CARD:
        return {"seat": seat, "move": "draw stock", "card": _card(code - K.H_STOCK_CARD)}
    if code >= K.H_LAYOFF:
        return {"seat": seat, "move": action_text(code - K.H_LAYOFF, K.PH_LAYOFF)}
    return {"seat": seat, "move": action_text(code)}


_PLAIN_CODES = {action_text(a): a for a in (KERNEL.DRAW_UPCARD, KERNEL.DRAW_STOCK, KERNEL.PASS,
                                             KERNEL.KNOCK)}


def _history_code(key: str, item: Any, seat: int) -> tuple[int, int]:
    """(seat, code) of a history entry JSON; the inverse of ``history_entry``."""
    K = KERNEL
    if not isinstance(item, Mapping) or not isinstance(item.get("move"), str) \
            or set(item) - {"seat", "move", "card"}:
        raise _Reader.fail(f"{key!r} must be an object {{\"seat\", \"move\"[, \"card\"]}}, not {shown(item)}")
    who = _Reader.int_in(f"{key}.seat", item.get("seat"), 0, 1)
    move = " ".join(fold_case(item["move"], upper=False).split())    # as Game.play reads it
    if "card" in item:
        if move != "draw stock" or who != seat:
            raise _Reader.fail(f"{key!r}: only the seat's own stock draws show a card")
        return who, K.H_STOCK_CARD + _Reader.cards(f"{key}.card", [item["card"]])[0]
    for prefix, base in (("discard ", 0), ("lay off ", K.H_LAYOFF)):
        if move.startswith(prefix):
            return who, base + _Reader.cards(f"{key}.move", [move[len(prefix):]])[0]
    try:
        if move.startswith("lay meld "):
            return who, meld_action(move[len("lay meld "):])
    except MeldmindError as error:
        raise _Reader.fail(f"{key!r}: {error}") from None
    if move not in _PLAIN_CODES:
        raise _Reader.fail(f"{key!r}: unknown move {shown(item['move'])} ({MOVE_FORMS})")
    return who, _PLAIN_CODES[move]


def observation_dict(obs: np.ndarray, legal: Sequence[int] | None) -> dict[str, Any]:
    """The observation JSON (format ``meldmind.observation``, version 1) of an observation
    array; ``legal`` lists the legal action ids when it is the seat's turn (else None)."""
    K = KERNEL
    o = [int(v) for v in obs]
    melds = []
    for p in range(2):
        base = K.O_MELDS + p * K.MAX_MELDS_LAID
        melds.append([[_card(c) for c in meld_cards(m)] for m in o[base:base + o[K.O_MELD_COUNT + p]]])
    d: dict[str, Any] = {
        "format": OBS_FORMAT,
        "version": OBS_VERSION,
        "variant": VARIANT,
        "seat": o[K.O_SEAT],
        "parameters": {"knock_card": o[K.O_KNOCK_CARD], "gin_bonus": o[K.O_GIN_BONUS],
                       "undercut_bonus": o[K.O_UNDERCUT_BONUS]},
        "phase": PHASES[o[K.O_PHASE]],
        "to_move": o[K.O_CURRENT] if o[K.O_CURRENT] >= 0 else None,
        "hand": mask_cards(VARIANT, o[K.O_HAND]),
        "hand_sizes": o[K.O_HAND_SIZES:K.O_HAND_SIZES + 2],
        "known_cards": [mask_cards(VARIANT, o[K.O_KNOWN + p]) for p in range(2)],
        "upcard": _optional_card(o[K.O_UPCARD]),
        "prev_upcard": _optional_card(o[K.O_PREV_UPCARD]),
        "discard_pile": [_card(c) for c in o[K.O_DISCARDS:K.O_DISCARDS + o[K.O_DISCARD_COUNT]]],
        "stock_size": o[K.O_STOCK_SIZE],
        "upcard_draws": o[K.O_UPCARD_DRAWS],
        "repeated_move": bool(o[K.O_REPEATED]),
        "passed_first_upcard": [bool(o[K.O_PASSED + p]) for p in range(2)],
        "knocker": o[K.O_KNOCKER] if o[K.O_KNOCKER] >= 0 else None,
        "finished_layoffs": bool(o[K.O_FINISHED_LAYOFFS]),
        "melds": melds,
        "layoffs": [_card(c) for c in o[K.O_LAYOFFS:K.O_LAYOFFS + o[K.O_LAYOFF_COUNT]]],
        "deadwood": [v if v >= 0 else None for v in o[K.O_DEADWOOD:K.O_DEADWOOD + 2]],
        "end": ENDS[o[K.O_END]],
        "first_upcard": _card(o[K.O_FIRST_UPCARD]),
        "history": [history_entry(e) for e in o[K.O_HISTORY:K.O_HISTORY + o[K.O_HISTORY_COUNT]]],
    }
    if legal is not None:
        d["legal_moves"] = [action_json(int(a), o[K.O_PHASE]) for a in legal]
    return d


class _Reader(FieldReader):
    variant = VARIANT


def _mask(cards: Iterable[int]) -> int:
    return sum(1 << c for c in cards)


def observation_array(d: Mapping[str, Any]) -> np.ndarray:
    """The observation array of an observation JSON (the inverse of ``observation_dict``).

    Checks every field's type and range and that the cards are consistent (no card in two
    places, the hidden cards fill the opponent's hand and the stock exactly); a bad JSON raises
    ``MeldmindError`` naming the field.
    """
    K = KERNEL
    r = _Reader.open(d)
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    params = r.get("parameters")
    unknown = unknown_field(params, frozenset(PARAMETERS)) if isinstance(params, Mapping) else None
    if unknown is not None:
        raise _Reader.fail(f"'parameters': {unknown}")
    if params != PARAMETERS:
        raise _Reader.fail(f"'parameters' must be {shown(PARAMETERS)} (gin has no options), "
                           f"not {shown(params)}")
    obs[K.O_KNOCK_CARD] = PARAMETERS["knock_card"]
    obs[K.O_GIN_BONUS] = PARAMETERS["gin_bonus"]
    obs[K.O_UNDERCUT_BONUS] = PARAMETERS["undercut_bonus"]
    obs[K.O_SEAT] = seat = r.integer("seat", 0, 1)
    phase = r.get("phase")
    if phase not in PHASES[1:]:
        raise _Reader.fail(f"'phase' must be one of {', '.join(PHASES[1:])}, not {shown(phase)}")
    obs[K.O_PHASE] = phase_id = PHASES.index(phase)
    over = phase_id == K.PH_GAME_OVER
    to_move = r.optional_int("to_move", 0, 1)
    if (to_move < 0) != over:
        raise _Reader.fail("'to_move' must be null exactly when the game is over")
    obs[K.O_CURRENT] = to_move

    hand = r.cards("hand", r.get("hand"))
    obs[K.O_HAND] = hand_mask = _mask(hand)
    sizes = [r.int_in(f"hand_sizes[{p}]", v, 0, 11)
             for p, v in enumerate(r.pair("hand_sizes", r.get("hand_sizes")))]
    if sizes[seat] != len(hand):
        raise _Reader.fail(f"hand_sizes[{seat}] = {sizes[seat]} but the hand holds {len(hand)} cards")
    obs[K.O_HAND_SIZES:K.O_HAND_SIZES + 2] = sizes
    known = [_mask(r.cards(f"known_cards[{p}]", v))
             for p, v in enumerate(r.pair("known_cards", r.get("known_cards")))]
    if known[seat] & ~hand_mask:
        raise _Reader.fail(f"known_cards[{seat}] must be cards of the seat's own hand")
    if bin(known[1 - seat]).count("1") > sizes[1 - seat]:
        raise _Reader.fail(f"known_cards[{1 - seat}] holds more cards than that hand")
    obs[K.O_KNOWN:K.O_KNOWN + 2] = known

    obs[K.O_UPCARD] = upcard = r.optional_card("upcard")
    obs[K.O_PREV_UPCARD] = r.optional_card("prev_upcard")
    pile = r.cards("discard_pile", r.get("discard_pile"))
    if len(pile) > K.MAX_DISCARDS:
        raise _Reader.fail(f"'discard_pile' holds at most {K.MAX_DISCARDS} cards")
    obs[K.O_DISCARD_COUNT] = len(pile)
    obs[K.O_DISCARDS:K.O_DISCARDS + len(pile)] = pile
    obs[K.O_STOCK_SIZE] = stock = r.integer("stock_size", 0, K.INITIAL_STOCK)
    obs[K.O_UPCARD_DRAWS] = r.integer("upcard_draws", 0, K.MAX_DRAW_UPCARD)
    obs[K.O_REPEATED] = r.flag("repeated_move")
    obs[K.O_PASSED:K.O_PASSED + 2] = [
        _Reader.bool_in(f"passed_first_upcard[{p}]", v)
        for p, v in enumerate(r.pair("passed_first_upcard", r.get("passed_first_upcard")))]
    obs[K.O_KNOCKER] = r.optional_int("knocker", 0, 1)
    obs[K.O_FINISHED_LAYOFFS] = r.flag("finished_layoffs")

    laid = 0
    melds = r.pair("melds", r.get("melds"))
    for p in range(2):
        if not isinstance(melds[p], list) or len(melds[p]) > K.MAX_MELDS_LAID:
            raise _Reader.fail(f"'melds[{p}]' must be a list of at most {K.MAX_MELDS_LAID} melds")
        obs[K.O_MELD_COUNT + p] = len(melds[p])
        for i, meld in enumerate(melds[p]):
            key = f"melds[{p}][{i}]"
            mask = _mask(r.cards(key, meld))
            hits = np.flatnonzero(K.MELD_MASK == mask)
            if not len(hits):
                raise _Reader.fail(f"{key!r} is not a gin meld: {shown(meld)}")
            if mask & laid:
                raise _Reader.fail(f"{key!r} repeats a card laid in another meld")
            laid |= mask
            obs[K.O_MELDS + p * K.MAX_MELDS_LAID + i] = int(hits[0])
    layoffs = r.cards("layoffs", r.get("layoffs"))
    if len(layoffs) > K.MAX_LAYOFFS:
        raise _Reader.fail(f"'layoffs' holds at most {K.MAX_LAYOFFS} cards")
    obs[K.O_LAYOFF_COUNT] = len(layoffs)
    obs[K.O_LAYOFFS:K.O_LAYOFFS + len(layoffs)] = layoffs
    deadwood = r.pair("deadwood", r.get("deadwood"))
    obs[K.O_DEADWOOD:K.O_DEADWOOD + 2] = [
        -1 if v is None else _Reader.int_in(f"deadwood[{p}]", v, 0, 100) for p, v in enumerate(deadwood)]
    end = r.get("end")
    if over and end not in ENDS[1:]:
        raise _Reader.fail(f"'end' must be one of {', '.join(ENDS[1:])} at game over, not {shown(end)}")
    if not over and end is not None:
        raise _Reader.fail(f"'end' must be null before the game is over (phase {shown(phase)}), "
                           f"not {shown(end)}")
    obs[K.O_END] = ENDS.index(end)

    # the cards: every zone disjoint; the hidden cards fill the opponent's hand and the stock
    zones = (("hand", hand_mask), (f"known_cards[{1 - seat}]", known[1 - seat]),
             ("upcard", 0 if upcard < 0 else 1 << upcard), ("discard_pile", _mask(pile)),
             ("melds", laid), ("layoffs", _mask(layoffs)))
    count = 0
    for z, (name, mask) in enumerate(zones):
        for other, held in zones[:z]:
            if held & mask:
                raise _Reader.fail(f"{_card(_card_ids(held & mask)[0])} is in two zones, {other!r} and "
                                   f"{name!r}")
        count += bin(mask).count("1")
    hidden = sizes[1 - seat] - bin(known[1 - seat]).count("1")
    if count + hidden + stock != 52:
        raise _Reader.fail(f"the cards do not add up: {count} placed + {hidden} hidden in the opponent's "
                    f"hand + {stock} in the stock != 52")

    obs[K.O_FIRST_UPCARD] = r.cards("first_upcard", [r.get("first_upcard")])[0]
    history = r.get("history")
    if not isinstance(history, list) or len(history) > K.MAX_HISTORY:
        raise _Reader.fail(f"'history' must be a list of at most {K.MAX_HISTORY} moves")
    entries = [_history_code(f"history[{i}]", item, seat) for i, item in enumerate(history)]
    obs[K.O_HISTORY_COUNT] = len(entries)
    obs[K.O_HISTORY:K.O_HISTORY + len(entries)] = [2 * code + who for who, code in entries]
    try:
        _check_history(obs)
    except MeldmindError:
        # a contradiction is mostly the work of a move that cannot be played or is out of turn:
        # then name that. The opponent's moves are judged on its hand walked back from the end,
        # which a later move out of turn garbles: they give way to it.
        illegal, late = _first_illegal_move(obs), _first_out_of_turn(obs)
        if illegal and (late is None or illegal[0] < late and obs[K.O_HISTORY + illegal[0]] % 2 == seat):
            raise _Reader.fail(_unplayable(obs, *illegal)) from None
        if late is not None:
            raise _Reader.fail(_unplayable(obs, late, None)) from None
        raise
    return obs


# ---- the observation against its history --------------------------------------------------------
# The fields of an observation must be the ones its history produces: the search trusts them, and
# contradictory ones (a Layoff phase without a knocker, a history of 192 passes) would send the
# kernels out of their arrays. So the history is replayed on the kernel from a deal that leads to
# the observation, and the result must be the observation itself. When it is not, the refusal
# names the first move that cannot be played, if the observing seat can tell one
# (``_first_illegal_move``), else the first out of turn (``_first_out_of_turn``), else the
# contradiction, with the values the history gives when they are public.

_UNKNOWN = -1      # a card drawn that the observing seat did not see
_REASONS_OF_HIDDEN_CARDS = {KERNEL.R_KNOCK_DEADWOOD, KERNEL.R_KNOCK_DISCARD, KERNEL.R_MELD_DEADWOOD,
                            KERNEL.R_KNOCKER_PASS}


def _faces(obs: np.ndarray) -> tuple[np.ndarray, str]:
    """The upcard each history move faced, and where the face-up cards end (the upcard, the dead
    pile, the stock size) if the fields show them otherwise (else '')."""
    K = KERNEL
    faced, dead = np.empty(K.MAX_HISTORY, np.int64), np.empty(K.MAX_HISTORY, np.int64)
    upcard, count, draws = K.replay_history(obs, faced, dead)
    given = obs[K.O_UPCARD], obs[K.O_DISCARDS:K.O_DISCARDS + obs[K.O_DISCARD_COUNT]], obs[K.O_STOCK_SIZE]
    return faced, _differences(_face_up(*given), _face_up(upcard, dead[:count], K.INITIAL_STOCK - draws))


def _face_up(upcard: int, pile: Iterable[int], stock_size: int) -> dict[str, Any]:
    """The fields of an observation JSON that the face-up cards fix."""
    return {"upcard": _optional_card(upcard), "discard_pile": [_card(c) for c in pile],
            "stock_size": int(stock_size)}


def _check_history(obs: np.ndarray) -> None:
    """Refuses ``obs`` unless its history leads to it, naming the first contradiction."""
    faced, wrong = _faces(obs)
    if wrong:
        raise _Reader.fail(_discard_of_a_face_up_card(obs, faced) or
                           f"'history' does not lead to the given upcard, discard pile and stock "
                           f"size but to {wrong}")
    _check_against_history(obs, faced)


def _discard_of_a_face_up_card(obs: np.ndarray, faced: np.ndarray) -> str | None:
    """The refusal of the first history move that discards a card lying face up, which the
    history alone shows (None if there is none): the replay of the face-up cards then puts it
    in the pile twice, and the move, not the pile, is what to name."""
    K = KERNEL
    face_up = {int(faced[0])} - {-1}
    for i, (_, action, leaving, joining) in enumerate(_history_moves(obs, faced)):
        if action in (K.DRAW_UPCARD, K.KNOCK) and joining is not None:
            face_up.discard(joining)
        elif action < K.NUM_CARDS and obs[K.O_HISTORY + i] < 2 * K.H_LAYOFF:
            if action in face_up:
                return _unplayable(obs, i, f"{_card(action)} is already in the discard pile")
            face_up.add(action)
    return None


def _differences(given: Mapping[str, Any], replayed: Mapping[str, Any]) -> str:
    """The fields of ``replayed`` that the observation JSON ``given`` has otherwise, with their
    values in ``replayed`` (printed: public values only), or ''."""
    return "; ".join(f"{key} {shown(value)}" for key, value in replayed.items()
                     if given[key] != value)


def _history_moves(obs: np.ndarray, faced: np.ndarray) -> list[tuple[int, int, list[int], int | None]]:
    """Per history entry: (seat, action id, cards leaving its hand, card joining it: a card,
    ``_UNKNOWN`` or None)."""
    K = KERNEL
    count = int(obs[K.O_HISTORY_COUNT])
    moves = []
    for i in range(count):
        who, code = int(obs[K.O_HISTORY + i]) % 2, int(obs[K.O_HISTORY + i]) // 2
        leaving: list[int] = []
        joining: int | None = None
        action = code
        if code >= K.H_STOCK_CARD:
            action, joining = K.DRAW_STOCK, code - K.H_STOCK_CARD
        elif code >= K.H_LAYOFF:
            action = code - K.H_LAYOFF
            leaving = [action]
        elif code == K.DRAW_STOCK:
            joining = _UNKNOWN
        elif code in (K.DRAW_UPCARD, K.KNOCK):
            # a Wall knock takes the upcard too; the 50th upcard take ends the game untaken
            limit = i == count - 1 and obs[K.O_END] == ENDS.index("upcard_limit")
            joining = int(faced[i]) if faced[i] >= 0 and not limit else None
            if code == K.DRAW_UPCARD and faced[i] < 0 and not limit:
                joining = _UNKNOWN      # a take of nothing (an illegal history): some card
        elif code < K.NUM_CARDS:
            leaving = [code]
        elif code >= K.MELD_BASE:
            leaving = meld_cards(code - K.MELD_BASE)
        moves.append((who, action, leaving, joining))
    return moves


class _Walk(NamedTuple):
    """Both hands walked back from the observation through its history (``_walk_back``)."""
    hands: list[set[int]]               # at the deal: the cards the walk can name
    hidden: list[int]                   # and how many more it cannot (the opponent's hidden ones)
    drawn: dict[int, int | None]        # per stock draw, its card (None: a hidden one)
    taken: dict[int, int | None]        # per take of a face-up card, that card (None: not found)
    seen: set[int]                      # the cards the history shows
    around: list[tuple[frozenset[int], frozenset[int], int]]  # per move, its mover's named cards
    #                                     before it and after it, and how many unnamed before it


def _walk_back(obs: np.ndarray, moves: list[tuple[int, int, list[int], int | None]],
               refuse: Callable[[str], None]) -> _Walk:
    """Walks each hand back from its end: cards that left it return, cards that joined it leave;
    a hidden stock draw is a hidden card or a card the history shows nowhere earlier. A step the
    cards do not allow goes to ``refuse`` (a message); if that returns, the walk goes on without
    the step, and a face-up card that its taker does not hold afterwards counts as unseen."""
    K = KERNEL
    seat, opp = int(obs[K.O_SEAT]), 1 - int(obs[K.O_SEAT])
    first_seen = {int(obs[K.O_FIRST_UPCARD]): -1}
    for i, (_, _, leaving, joining) in enumerate(moves):
        for c in leaving + ([joining] if joining is not None and joining >= 0 else []):
            first_seen.setdefault(c, i)
    hands: list[set[int]] = [set(), set()]
    hands[seat] = set(_card_ids(int(obs[K.O_HAND])))
    hands[opp] = set(_card_ids(int(obs[K.O_KNOWN + opp])))
    hidden = [0, 0]
    hidden[opp] = int(obs[K.O_HAND_SIZES + opp]) - len(hands[opp])
    drawn: dict[int, int | None] = {}
    taken: dict[int, int | None] = {}
    around = []
    for i in reversed(range(len(moves))):
        who, action, leaving, joining = moves[i]
        hand = hands[who]
        after = frozenset(hand)
        for c in leaving:
            if c in hand:
                refuse(f"seat {who} would hold {_card(c)} twice before history[{i}]")
            hand.add(c)
        if joining is not None and joining >= 0 and joining not in hand:
            refuse(f"seat {who} takes {_card(joining)} in history[{i}] but does not hold it afterwards")
            joining = _UNKNOWN
        card = joining
        if joining == _UNKNOWN:
            card = None
            if hidden[who] and action == K.DRAW_STOCK:
                hidden[who] -= 1
            else:
                fresh = sorted(c for c in hand if first_seen.get(c, len(moves)) > i)
                if fresh:
                    card = fresh[0]
                    hand.remove(card)
                else:
                    drew = "stock draw" if action == K.DRAW_STOCK else "take"
                    refuse(f"no card seat {who} holds later can be its {drew} history[{i}]")
        elif joining is not None:
            hand.remove(joining)
        if action == K.DRAW_STOCK:
            drawn[i] = card
        elif joining is not None:
            taken[i] = card
        around.append((frozenset(hand), after, hidden[who]))
    return _Walk(hands, hidden, drawn, taken, set(first_seen), around[::-1])


def _unfit(message: str) -> None:
    raise _Reader.fail(f"'history' does not fit the cards: {message}")


def _deal_behind(obs: np.ndarray, moves: list[tuple[int, int, list[int], int | None]]
                 ) -> tuple[list[list[int]], list[int], list[int]]:
    """A deal (both hands, the stock top first) from which ``moves`` lead to ``obs``, and the
    cards it had to guess (the opponent's hidden ones)."""
    K = KERNEL
    opp = 1 - int(obs[K.O_SEAT])
    walk = _walk_back(obs, moves, _unfit)
    hands, hidden = walk.hands, walk.hidden
    if any(len(hands[p]) + hidden[p] != K.HAND_SIZE for p in range(2)):
        _unfit(f"it leads back to a deal that is not {K.HAND_SIZE} cards each")
    placed = walk.seen | hands[0] | hands[1] | {c for c in walk.drawn.values() if c is not None} \
        | set(_card_ids(int(obs[K.O_HAND]))) | set(_card_ids(int(obs[K.O_KNOWN + opp])))
    free = [c for c in range(K.NUM_CARDS) if c not in placed]
    guessed = free[:hidden[opp]]
    hands[opp] |= set(guessed)
    rest = free[hidden[opp]:]
    stock = []
    for i in sorted(walk.drawn):
        card = walk.drawn[i]
        if card is None:
            card = rest.pop(0) if rest else -1
            guessed.append(card)
        stock.append(card)
    stock += rest
    if len(stock) != K.INITIAL_STOCK or -1 in stock:
        _unfit(f"the deal behind it has no stock of {K.INITIAL_STOCK} cards")
    return [sorted(hands[0]), sorted(hands[1])], stock, guessed


def _table(obs: np.ndarray) -> np.ndarray:
    """A kernel state at the start of ``obs``'s game, whose hands and stock are still anyone's."""
    K = KERNEL
    state = K.new_state(make_params(), 0)
    state[K.S_UPCARD] = state[K.S_FIRST_UPCARD] = obs[K.O_FIRST_UPCARD]
    return state


def _play_history(obs: np.ndarray, moves: list[tuple[int, int, list[int], int | None]],
                  state: np.ndarray, hands: Callable[[int], tuple[int, int]] | None = None,
                  guessed: int = 0, start: int = 0) -> tuple[int, str | None] | None:
    """Plays ``moves`` from ``start`` on ``state`` up to the first that cannot be played there:
    its index and why (None: out of turn); None if all can. ``guessed`` are cards put in a hand
    that the observing seat cannot see there (the opponent's hidden ones); ``hands(i)``, if
    given, sets them and the mover's hand before move ``i`` (its cards, then the guessed ones)."""
    K = KERNEL
    for i, (who, action, _, _) in enumerate(moves[start:], start):
        if K.current_player(state) not in (who, -1):       # after the end illegal_reason says so
            return i, None
        if hands is not None:
            state[K.S_HAND + who], guessed = hands(i)
        why = _why_illegal(obs, i, action, state, guessed)
        if why:
            return i, why
        K.apply_action(state, action)
    return None


def _why_illegal(obs: np.ndarray, i: int, action: int, state: np.ndarray,
                 guessed: int = 0) -> str | None:
    """Why history move ``i``, ``action``, cannot be played from ``state`` (None if it can);
    ``guessed`` as for ``_play_history``."""
    K = KERNEL
    phase = state[K.S_PHASE]
    # a card is a lay-off in the Layoff phase and a discard in the others (no stock card here)
    if action < K.NUM_CARDS and phase != K.PH_GAME_OVER \
            and (obs[K.O_HISTORY + i] >= 2 * K.H_LAYOFF) != (phase == K.PH_LAYOFF):
        return f"not a move of the {PHASES[phase]} phase"      # Game.play's words
    reason = int(K.illegal_reason(state, action))
    who = int(obs[K.O_HISTORY + i]) % 2
    # a knock or meld is legal or not by the hand's cards, which may be guessed
    if reason and not (state[K.S_HAND + who] & guessed and reason in _REASONS_OF_HIDDEN_CARDS):
        return REASONS[reason]
    # the replay may have to put a card in the opponent's hand that the history had already
    # shown elsewhere: a card face up cannot leave a hand
    leaving = [action] if action < K.NUM_CARDS else \
        meld_cards(action - K.MELD_BASE) if action >= K.MELD_BASE else []
    if not leaving:
        return None
    pile, table = _face_up_cards(state)
    for card in leaving:
        if (pile | table) >> card & 1:
            where = "in the discard pile" if pile >> card & 1 else "on the table"
            return f"{_card(card)} is already {where}"
    return None


def _face_up_cards(state: np.ndarray) -> tuple[int, int]:
    """The cards of ``state``'s discard pile with its upcard, and those laid on the table."""
    K = KERNEL
    pile = _mask(int(c) for c in state[K.S_DISCARDS:K.S_DISCARDS + state[K.S_DISCARD_COUNT]])
    if state[K.S_UPCARD] >= 0:
        pile |= 1 << int(state[K.S_UPCARD])
    table = _mask(int(c) for c in state[K.S_LAYOFFS:K.S_LAYOFFS + state[K.S_LAYOFF_COUNT]])
    for p in range(2):
        base = K.S_MELDS + p * K.MAX_MELDS_LAID
        for meld in state[base:base + state[K.S_MELD_COUNT + p]]:
            table |= int(K.MELD_MASK[meld])
    return pile, table


def _unplayable(obs: np.ndarray, i: int, why: str | None) -> str:
    """The refusal of history move ``i``, which cannot be played because of ``why`` (None: it
    is out of turn)."""
    entry = int(obs[KERNEL.O_HISTORY + i])
    text, seat = history_entry(entry)["move"], entry % 2
    if why is None:
        return f"'history[{i}]': seat {seat} moves out of turn"
    return f"'history[{i}]' ({text}) is illegal there for seat {seat}: {why}"


def _in_view(state: np.ndarray, seat: int) -> int:
    """The cards ``seat`` sees outside its hand: face up, laid, or known in the other hand."""
    K = KERNEL
    view = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(state, seat, view)
    view[K.O_HAND] = 0
    return int(K.ALL_CARDS & ~K.unseen_cards(view))


def _hand_from_knock(obs: np.ndarray, moves: list[tuple[int, int, list[int], int | None]],
                     state: np.ndarray, i: int) -> tuple[int, int] | None:
    """The hand of move ``i``'s mover (from ``state``) when it knocks there or a seat has knocked,
    else None: from a knock on, a hand only puts cards down (the knocker's discard, dead at once,
    the defender's lay-offs, melds), so it is the final hand and all those still to come, as the
    fields show them, whatever the moves' texts say. The cards, and how many more the observing
    seat cannot name."""
    K = KERNEL
    who, phase, dead = moves[i][0], int(state[K.S_PHASE]), int(state[K.S_DISCARD_COUNT])
    then = moves[i + 1] if i + 1 < len(moves) else None
    # only a knock keeps the turn in these phases
    knocks = then is not None and then[0] == who and phase in (K.PH_DISCARD, K.PH_WALL)
    if not knocks and phase not in (K.PH_KNOCK, K.PH_LAYOFF):
        return None
    base = K.O_MELDS + who * K.MAX_MELDS_LAID
    cards = [c for m in obs[base + state[K.S_MELD_COUNT + who]:base + obs[K.O_MELD_COUNT + who]]
             for c in meld_cards(m)]
    if knocks or (phase == K.PH_KNOCK and moves[i - 1][1] == K.KNOCK):
        cards += obs[K.O_DISCARDS:K.O_DISCARDS + obs[K.O_DISCARD_COUNT]][dead:dead + 1].tolist()
    if state[K.S_KNOCKER] == 1 - who:
        layoffs = obs[K.O_LAYOFFS:K.O_LAYOFFS + obs[K.O_LAYOFF_COUNT]]
        cards += layoffs[state[K.S_LAYOFF_COUNT]:].tolist()
    final = int(obs[K.O_HAND] if who == obs[K.O_SEAT] else obs[K.O_KNOWN + who])
    hand = final | _mask(cards)
    if phase == K.PH_WALL and state[K.S_UPCARD] >= 0:     # the knock takes it
        hand &= ~_mask([state[K.S_UPCARD]])
    unnamed = int(obs[K.O_HAND_SIZES + who]) - bin(final).count("1")
    if unnamed:     # the opponent's hidden cards may be those the move plays, if not seen elsewhere
        seat = int(obs[K.O_SEAT])
        plays = _mask(moves[i][2]) & ~hand & ~_in_view(state, seat) & ~int(state[K.S_HAND + seat])
        hand |= plays
        unnamed = max(unnamed - bin(plays).count("1"), 0)
    return hand, unnamed


def _own_hand(obs: np.ndarray, moves: list[tuple[int, int, list[int], int | None]], walk: _Walk,
              state: np.ndarray, i: int, drawn: int) -> int:
    """The observing seat's hand before its move ``i`` (from ``state``), before any knock, as the
    other moves and the fields show it; ``drawn`` are the cards its moves before ``i`` drew and
    did not put down. Not as the move's own text does: a bad discard lies about its card, and so
    does a hand walked back through it."""
    K = KERNEL
    seat, dead = int(obs[K.O_SEAT]), int(state[K.S_DISCARD_COUNT])
    before, after, _ = walk.around[i]
    then = moves[i + 1] if i + 1 < len(moves) else None
    upcard = [int(obs[K.O_UPCARD])] if obs[K.O_UPCARD] >= 0 else []
    # A discard: the fields show its card where the opponent's draw buried it in the pile or it
    # is face up at the end; else a card the seat drew and does not keep is the one it put down;
    # else the opponent's take of it, which its later moves may contradict; where nothing shows
    # it, the move's text stands.
    if state[K.S_PHASE] != K.PH_DISCARD:
        return _mask(before) | drawn
    if then is None:
        put_down = upcard
    elif then[1] == K.DRAW_STOCK:
        put_down = obs[K.O_DISCARDS:K.O_DISCARDS + obs[K.O_DISCARD_COUNT]][dead:dead + 1].tolist()
    elif drawn & ~_mask(after):
        put_down = []
    elif i + 1 in walk.taken:
        taken = walk.taken[i + 1]
        put_down = [taken] if taken is not None else []
    elif i + 2 == len(moves) and then[1] in (K.PASS, K.DRAW_UPCARD):   # the Wall's pass, 50th take
        put_down = upcard
    else:
        return _mask(before) | drawn
    return (_mask(after) | _mask(put_down) | drawn) & ~_in_view(state, seat)


def _first_illegal_move(obs: np.ndarray) -> tuple[int, str] | None:
    """The first move of the history that cannot be played (index, why), or None if there is none
    the observing seat can tell. The history is played with each hand as the walk back from the
    observation shows it before the move (keeping the face-up cards it took), but from a knock
    on as ``_hand_from_knock`` and the seat's own before as ``_own_hand`` show it."""
    K = KERNEL
    seat, count = int(obs[K.O_SEAT]), int(obs[K.O_HISTORY_COUNT])
    # After a knock replay_history puts each discard straight into the pile, so a bad knock
    # that hands the turn on would hide every later upcard: the faces are read as if it passed.
    passed = obs.copy()
    for i in range(K.O_HISTORY, K.O_HISTORY + count - 1):
        if obs[i] // 2 == K.KNOCK and (obs[i] - obs[i + 1]) % 2:
            passed[i] += 2 * (K.PASS - K.KNOCK)
    moves = _history_moves(obs, _faces(passed)[0])
    walk = _walk_back(obs, moves, lambda message: None)
    state = _table(obs)
    drawn, held = [], 0         # per move, the cards the seat drew before it and still holds
    for who, _, leaving, joining in moves:
        drawn.append(held)
        if who == seat and joining is not None and joining >= 0:
            held |= _mask([joining])
        if who == seat:
            held &= ~_mask(leaving)

    def hands(i: int) -> tuple[int, int]:
        who = moves[i][0]
        late = _hand_from_knock(obs, moves, state, i)
        if late is None and who == seat:
            return _own_hand(obs, moves, walk, state, i, drawn[i]), 0
        before, _, unnamed = walk.around[i]
        named, unnamed = late or (_mask(before) | int(state[K.S_KNOWN + who]), unnamed)
        guessed = _mask([c for c in range(K.NUM_CARDS) if not named >> c & 1][:unnamed])
        return named | guessed, guessed

    start = 0
    while found := _play_history(obs, moves, state, hands, start=start):
        i, why = found
        if why is None:     # out of turn: nothing later can be judged; the replay's checks say so
            return None
        if moves[i][0] != seat \
                or state[K.S_PHASE] not in (K.PH_DISCARD, K.PH_KNOCK, K.PH_LAYOFF, K.PH_WALL):
            return i, why
        why = _why_illegal_if_alone(obs, moves, walk, state, i)
        if why:
            return i, why
        # the fault is elsewhere: this move goes as its text has it
        state[K.S_HAND + seat] = _mask(walk.around[i][0]) | drawn[i]
        if _why_illegal(obs, i, moves[i][1], state):
            return None
        K.apply_action(state, moves[i][1])
        start = i + 1
    return None


def _first_out_of_turn(obs: np.ndarray) -> int | None:
    """The first history move whose seat is not the one to move (None if there is none before the
    end or a move the rules refuse). Whose turn it is follows from the moves and the sizes of the
    hands, all public: the moves are played on made-up hands of the right size holding the cards
    they put down, whose knocks and melds are not judged."""
    K = KERNEL
    faced, wrong = _faces(obs)
    if wrong:       # a wrong seat moves no face-up card: moves are missing or extra
        return None
    state = _table(obs)
    for i, (who, action, leaving, _) in enumerate(_history_moves(obs, faced)):
        if K.current_player(state) != who:
            return i if K.current_player(state) >= 0 else None
        cards, size = _mask(leaving), bin(int(state[K.S_HAND + who])).count("1")
        if bin(cards).count("1") > size:
            return None
        # not the upcard or the stock's next card, which a draw adds to the hand
        drawable = (state[K.S_UPCARD], state[K.S_STOCK + state[K.S_STOCK_SIZE] - 1])
        made_up = _mask([c for c in range(K.NUM_CARDS) if not cards >> c & 1 and c not in drawable]
                        [:size - bin(cards).count("1")])
        state[K.S_HAND + who] = cards | made_up
        if _why_illegal(obs, i, action, state, made_up):
            return None
        K.apply_action(state, action)
    return None


def _why_illegal_if_alone(obs: np.ndarray, moves: list[tuple[int, int, list[int], int | None]],
                          walk: _Walk, state: np.ndarray, i: int) -> str | None:
    """Why the observing seat's move ``i`` cannot be played from ``state``, judged on the hand
    of a history that differs from the given one in that move only and fits the rest of the
    observation (None if there is no such history, or the move is legal there). The hand in
    ``state`` came from the fields and the next move, and the next move may be the bad one."""
    K = KERNEL
    seat, phase = int(obs[K.O_SEAT]), int(state[K.S_PHASE])
    buffer = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    hand = int(state[K.S_HAND + seat])
    tries = [(int(a), hand) for a in buffer[:K.legal_actions(state, buffer)]]
    if phase == K.PH_DISCARD:       # or a discard of a card that no field shows
        kept = _mask(walk.around[i][1])
        unseen = K.ALL_CARDS & ~kept & ~_in_view(state, seat) & ~hand
        tries += [(c, kept | 1 << c) for c in _card_ids(unseen)]
    for action, hand in tries:
        other = obs.copy()
        code = K.H_LAYOFF + action if action < K.NUM_CARDS and phase == K.PH_LAYOFF else action
        other[K.O_HISTORY + i] = 2 * code + seat
        try:
            _check_history(other)
        except MeldmindError:
            continue
        state[K.S_HAND + seat] = hand
        return _why_illegal(obs, i, moves[i][1], state)
    return None


def _check_against_history(obs: np.ndarray, faced: np.ndarray) -> None:
    """Replays the history from a deal behind it; the observation must be the replay's."""
    K = KERNEL
    seat = int(obs[K.O_SEAT])
    # The deal makes up the cards the history does not tell, so the replay's are no answer where
    # only the observation can give them: the seat's own stock draws and the hands shown after a
    # knock are asked for by their rule instead.
    for i, entry in enumerate(obs[K.O_HISTORY:K.O_HISTORY + obs[K.O_HISTORY_COUNT]]):
        if entry == 2 * K.DRAW_STOCK + seat:
            raise _Reader.fail(f"'history[{i}]' (draw stock) lacks its 'card': the seat's own stock "
                               "draws show the card drawn")
    moves = _history_moves(obs, faced)
    hands, stock, guessed = _deal_behind(obs, moves)
    state = _table(obs)
    state[K.S_HAND] = _mask(hands[0])
    state[K.S_HAND + 1] = _mask(hands[1])
    state[K.S_STOCK:K.S_STOCK + K.INITIAL_STOCK] = stock[::-1]      # the next draw is the last
    unplayable = _play_history(obs, moves, state, guessed=_mask(guessed))
    if unplayable:
        raise _Reader.fail(_unplayable(obs, *unplayable))
    replayed = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(state, seat, replayed)
    if np.array_equal(replayed, obs):
        return
    for p in range(2):
        held, size = bin(int(obs[K.O_KNOWN + p])).count("1"), int(obs[K.O_HAND_SIZES + p])
        if replayed[K.O_DEADWOOD + p] >= 0 and held != size:      # a hand shown, not given
            when, cards = (("after a knock", "the knocker's cards not laid in melds")
                           if replayed[K.O_KNOCKER] == p else
                           ("at game over", "the defender's cards not laid in melds or laid off"))
            raise _Reader.fail(f"{when} 'known_cards[{p}]' must hold {cards}, which it shows ({size}: "
                               f"hand_sizes[{p}]), not {held}, and 'deadwood[{p}]' their total")
    wrong = _differences(observation_dict(obs, None), observation_dict(replayed, None))
    if wrong:
        raise _Reader.fail(f"the observation does not match its 'history', which gives {wrong}")
