"""The ``Game`` facade: a thin, typed view over a game's numba kernels.

The rules live only in ``kernels/<game>.py``; this module names moves, keeps the event log and
speaks JSON (docs/engine-contract.md lists what each game provides).

>>> game = new_game("gin", seed=7)
>>> game.to_move, game.is_over
(0, False)
>>> sorted(m.text for m in game.legal_moves())
['draw upcard', 'pass']
>>> game.play("pass")
Move(id=54, text='pass')
>>> Game.from_json(game.to_json()).observation(1) == game.observation(1)
True
"""
from __future__ import annotations

import copy
import functools
import importlib
import json
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any, Literal, Mapping, SupportsIndex, Union

import numpy as np

from .cards import fold_case, format_card, parse_cards
from .errors import (CardError, IllegalMove, MeldmindError, OptionError, check_version,
                     parse_json, refuse_arrays, shown)
from .games.fields import schema_fields, unknown_field
from .variants import (FLOAT_EXACT, SEED_LOW, checked_options, is_integer, is_json_integer,
                       is_positive_int, json_numbers, options_dict, seed_value)

GAME_MODULES = {"gin": "meldmind.games.gin", "cardverse": "meldmind.games.cardverse"}
GAME_FORMAT = "meldmind.game"
GAME_VERSION = 1


@dataclass(frozen=True)
class Move:
    """One atomic action: its id in the game's action layout and its short text."""

    id: int
    text: str


# What Game.play takes: a Move, an action id, a move dict ({"id": ...} or {"text": ...}), or a text
MoveLike = Union[Move, SupportsIndex, str, Mapping[str, Any]]


@dataclass(frozen=True)
class Event:
    """One entry of the event log (RULES.md E4)."""

    visibility: Literal["PUBLIC", "PRIVATE", "HIDDEN"]
    seat: int | None      # the seat that may see a PRIVATE event
    text: str
    move: int | None = None


def ai_module(variant: str) -> ModuleType:
    """The AI kernels of a playable ``variant``, imported on first use (they load numba)."""
    return importlib.import_module(f"meldmind.kernels.ai_{variant}")


def game_module(variant: str) -> ModuleType:
    try:
        return importlib.import_module(GAME_MODULES[variant])
    except (KeyError, TypeError):   # TypeError: an unhashable "variant", such as a list
        raise OptionError(
            f"no game engine for {shown(variant)}; playable: {', '.join(GAME_MODULES)}"
        ) from None


# A move text is a verb, then cards in any RULES.md §7 notation and order, then for some moves
# a place ("lay off 8H on meld 2 (high end)"). Texts are compared by this key, so the forms
# accepted are exactly those of each game's action_text.
MoveKey = tuple[str, tuple[int, ...], str]


def _move_key(variant: str, verb: str, cards: list[str], place: list[str]) -> MoveKey:
    return verb, tuple(sorted(parse_cards(variant, cards))), fold_case(" ".join(place), upper=False)


@functools.cache
def _action_ids(variant: str, phase: int) -> dict[MoveKey, int]:
    """Every action id of a phase by the key of its text, for reading moves given as text."""
    module = game_module(variant)
    deck = {format_card(variant, c) for c in range(module.KERNEL.NUM_CARDS)}
    ids = {}
    for action in range(module.KERNEL.NUM_ACTIONS):
        words = module.action_text(action, phase).split()
        first = next((i for i, w in enumerate(words) if w in deck), len(words))
        end = next((i for i in range(first, len(words)) if words[i] not in deck), len(words))
        ids[_move_key(variant, " ".join(words[:first]), words[first:end], words[end:])] = action
    return ids


@functools.cache
def _move_phases(variant: str) -> dict[MoveKey, int]:
    """Every move's key, with a phase that has that move."""
    return {key: phase for phase in range(len(game_module(variant).PHASES))
            for key in _action_ids(variant, phase)}


@functools.cache
def _move_forms(variant: str) -> tuple[list[list[str]], dict[str, int], set[str]]:
    """The verbs of a game's moves (as words, longest first), the most cards each verb names
    (0 for a verb naming none), and the words that start a place."""
    keys = _move_phases(variant)
    verbs = sorted({verb for verb, _, _ in keys}, key=len, reverse=True)
    most_cards: dict[str, int] = {}
    for verb, cards, _ in keys:
        most_cards[verb] = max(most_cards.get(verb, 0), len(cards))
    return ([verb.split() for verb in verbs], most_cards,
            {place.split()[0] for _, _, place in keys if place})


def _is_card(variant: str, token: str) -> bool:
    try:
        parse_cards(variant, [token])
    except CardError:
        return False
    return True


# The longest text the cache of move texts keeps: every move's text, in any spelling, is far
# shorter; a longer one, which a client may send on every request, would be kept there.
CACHED_MOVE_TEXT = 200


def _read_move(variant: str, text: str) -> MoveKey | None:
    """The key of a move text; None when no verb of the game's moves begins it, or when words
    that are no cards follow the most cards its verb names ("draw stock now"; in gin, which
    has no places, "lay off 8H on meld 2"). A malformed card raises the card parser's
    ``CardError`` naming it."""
    if len(text) > CACHED_MOVE_TEXT:
        return _move_text_key(variant, text)
    return _cached_move_text_key(variant, text)


def _move_text_key(variant: str, text: str) -> MoveKey | None:
    words = text.split()
    verbs, most_cards, place_words = _move_forms(variant)
    verb = next((v for v in verbs if [fold_case(w, upper=False) for w in words[:len(v)]] == v), None)
    if verb is None:
        return None
    rest = words[len(verb):]
    end = next((i for i, w in enumerate(rest) if fold_case(w, upper=False) in place_words), len(rest))
    if not all(_is_card(variant, w) for w in rest[most_cards[" ".join(verb)]:end]):
        return None
    return _move_key(variant, " ".join(verb), rest[:end], rest[end:])


def _slot_beyond_the_table(variant: str, key: MoveKey | None) -> str | None:
    """The slot a well-formed move names when the table has no such slot ("on meld 17"). A slot
    with no meld yet is refused by the rules, so this one is too, not called an unknown move."""
    if key is None:
        return None
    verb, cards, place = key
    words = place.split()
    numbers = [i for i, word in enumerate(words)
               if word.removeprefix("-").isdigit() and str(int(word)) == word]
    if len(numbers) != 1:
        return None
    slot = words[numbers[0]]
    words[numbers[0]] = "0"
    return slot if (verb, cards, " ".join(words)) in _move_phases(variant) else None


# a server's hints list the same few hundred moves
_cached_move_text_key = functools.lru_cache(maxsize=4096)(_move_text_key)


def text_action(variant: str, phase: int, text: str) -> int | None:
    """The action id a move text names in ``phase``; None when it names no move of that phase."""
    key = _read_move(variant, text)
    return None if key is None else _action_ids(variant, phase).get(key)


def check_same_move(variant: str, action: int, action_text: str, given_text: str) -> None:
    """Refuses a move object whose id (``action``, whose text is ``action_text``) and text
    (``given_text``) disagree: the client has a bug, and either one may be the wrong move."""
    if _read_move(variant, given_text) != _read_move(variant, action_text):
        raise MeldmindError(f"the move's id {action} is {shown(action_text)} but its text is "
                            f"{shown(given_text)}: they name different moves")


def check_move_fields(move: Any) -> None:
    """Refuses anything but a move object: a mapping with an ``id`` or a ``text`` (a string),
    and no field move.json does not name (a misspelt ``Id`` or ``card`` would otherwise go
    unchecked)."""
    unknown = unknown_field(move, schema_fields("move")) if isinstance(move, Mapping) else None
    if unknown is not None:     # first: a misspelt 'Id' is the likely reason for a missing id
        raise MeldmindError(f"{unknown}: a move object holds only the fields of move.json "
                            f"({', '.join(sorted(schema_fields('move')))})")
    if not isinstance(move, Mapping) or not {"id", "text"} & move.keys():
        raise MeldmindError(f"a move is an object with an 'id' or a 'text', not {shown(move)}")
    if "text" in move and not isinstance(move["text"], str):
        raise MeldmindError(f"a move's 'text' is a string, not {shown(move['text'])}")


def check_move_object(variant: str, action: int, phase: int, move: Mapping[str, Any]) -> None:
    """Refuses a move object (move.json, its fields checked by ``check_move_fields``) naming
    ``action`` by its id or text whose other fields say something else of the move than its full
    form, ``action_json``: the client has a bug, and either one may be the wrong move."""
    full = game_module(variant).action_json(action, phase)
    if "text" in move:
        check_same_move(variant, action, full["text"], move["text"])
    for field, given in move.items():
        if field in ("id", "text"):
            continue
        meant = full.get(field)
        if field == "card" and isinstance(given, str):
            same = meant is not None and parse_cards(variant, [given]) == parse_cards(variant, [meant])
        elif field == "cards" and isinstance(given, list) and all(isinstance(c, str) for c in given):
            same = meant is not None and sorted(parse_cards(variant, given)) == sorted(
                parse_cards(variant, meant))
        elif field in ("meld", "slot"):
            same = is_json_integer(given) and given == meant
        else:
            same = isinstance(given, str) and given == meant
        if not same:
            told = f"{field!r} {shown(meant)}" if meant is not None else f"no {field!r}"
            raise MeldmindError(f"the move {shown(full['text'])} has {told}, not {shown(given)}: "
                                f"the move object names two different moves")


def game_scores(module: ModuleType, state: np.ndarray, players: int) -> list[int]:
    """Cumulative scores where the game keeps them (its optional ``scores``, docs/engine-
    contract.md), else the points each seat won: in gin the hand's winner scores its points
    and the loser nothing, where the returns are zero-sum (``[25, -25]`` scores ``[25, 0]``)."""
    if hasattr(module, "scores"):
        return module.scores(state)
    out = np.zeros(players, np.float64)
    module.KERNEL.returns(state, out)
    return [max(int(r), 0) for r in out]


def resolve_game_options(module: ModuleType, variant: str, options: Mapping[str, Any] | None
                         ) -> dict[str, Any]:
    return checked_options(variant, module.OPTIONS, options)


class Game:
    """A game in progress. Create one with :func:`new_game` or :meth:`Game.from_json`.

    ``copy.copy`` and ``copy.deepcopy`` give an independent game (a search can play on from a
    position), and a game pickles, so it can be sent to a worker process. Its variant, options
    and seed are read-only: the deal and the rules were fixed when it started."""

    def __init__(self, variant: str, *, options: Mapping[str, Any], seed: SupportsIndex | None):
        self._variant = variant
        self._module = game_module(variant)
        self._kernel = self._module.KERNEL
        self._options = resolve_game_options(self._module, variant, options)
        self._seed = seed_value(seed)
        self._params = self._module.make_params(self._options)
        self._state = self._kernel.new_state(self._params, np.int64(self._seed))
        self._buffer = np.empty(self._kernel.NUM_ACTIONS, dtype=np.int64)
        self._moves: list[int] = []
        self.history: list[Event] = [Event("HIDDEN", None, f"deal from seed {self.seed}")]
        self._log_deal()

    # the game modules are not picklable: a pickled game names its variant instead
    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_module", "_kernel")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._module = game_module(self._variant)
        self._kernel = self._module.KERNEL

    def __copy__(self) -> "Game":
        # a shallow copy would share the state array: playing on it would move this game too
        return copy.deepcopy(self)

    @property
    def variant(self) -> str:
        """The game's name: "gin" or "cardverse"."""
        return self._variant

    @property
    def options(self) -> Mapping[str, Any]:
        """Every option of the variant, with its value in this game (a read-only view)."""
        return MappingProxyType(self._options)

    @property
    def seed(self) -> int:
        """The seed the cards were dealt from."""
        return self._seed

    def __repr__(self) -> str:
        # the options that differ from the game's defaults: all of them make a long line
        changed = "".join(f" {name}={value!r}" for name, value in self.options.items()
                          if value != self._module.OPTIONS[name][1])
        where = "over" if self.is_over else f"seat {self.to_move} to move"
        played = len(self._moves)
        return (f"<Game {self.variant} seed={self.seed}{changed}: {played} "
                f"move{'' if played == 1 else 's'} played, {where}>")

    # -- state -------------------------------------------------------------------------------
    @property
    def players(self) -> int:
        """The number of seats, numbered from 0."""
        return int(self.options.get("num_players", 2))

    @property
    def to_move(self) -> int | None:
        """The seat to play, or None once the game is over."""
        player = int(self._kernel.current_player(self._state))
        return None if player < 0 else player

    @property
    def is_over(self) -> bool:
        """True once the game has ended (gin: the hand; CardVerse: the target score)."""
        return bool(self._kernel.is_terminal(self._state))

    @property
    def returns(self) -> list[float]:
        """Each seat's return, 0 until the game is over (and for a drawn gin hand): gin, the
        hand's points for the winner and their opposite for the loser; CardVerse, 1 for the
        winner of the game and -1/(N-1) for each other seat (the points are in ``scores``)."""
        out = np.zeros(self.players, dtype=np.float64)
        self._kernel.returns(self._state, out)
        return out.tolist()

    @property
    def scores(self) -> list[int]:
        """Cumulative scores where the game keeps them (CardVerse), else the points each seat
        won (gin: the hand's points for its winner, 0 for the loser)."""
        return game_scores(self._module, self._state, self.players)

    @property
    def moves(self) -> list[int]:
        """The action ids played so far."""
        return list(self._moves)

    def _legal_ids(self) -> list[int]:
        n = self._kernel.legal_actions(self._state, self._buffer)
        return self._buffer[:n].tolist()

    def _phase(self) -> int:
        return int(self._state[self._kernel.S_PHASE])

    def legal_moves(self) -> list[Move]:
        """The moves the seat to play may make, by action id; empty once the game is over."""
        phase = self._phase()
        return [Move(a, self._module.action_text(a, phase)) for a in self._legal_ids()]

    def _check_seat(self, seat: int) -> None:
        if not is_integer(seat) or not 0 <= seat < self.players:
            raise MeldmindError(f"seat must be 0..{self.players - 1}, not {shown(seat)}")

    def _observation_array(self, seat: int) -> np.ndarray:
        self._check_seat(seat)
        out = np.zeros(self._kernel.OBS_SIZE, dtype=np.int64)
        self._kernel.observe(self._state, seat, out)
        return out

    def observation(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know (RULES.md E4), as JSON-able data: the game's public
        state and the seat's own, its legal moves when it is its turn, and ``events``, the texts
        of the event log as the seat sees it."""
        legal = self._legal_ids() if self.to_move == seat else None
        observation = self._module.observation_dict(self._observation_array(seat), legal)
        observation["events"] = [event.text for event in self.events(seat)]
        return observation

    def events(self, seat: int) -> list[Event]:
        """The event log as ``seat`` sees it (RULES.md E4): the public events and its own
        private ones, oldest first; for example who laid each meld, and every stock draw, with
        the card only for the drawer."""
        self._check_seat(seat)
        return [event for event in self.history if event.visibility == "PUBLIC"
                or (event.visibility == "PRIVATE" and event.seat == seat)]

    # -- moves -------------------------------------------------------------------------------
    def _resolve(self, move: Any) -> int:
        if isinstance(move, Move):
            if not isinstance(move.text, str):    # play compares it with the id's text
                raise MeldmindError(f"a move's 'text' is a string, not {shown(move.text)}")
            return move_id(move.id)
        if is_json_integer(move):     # 54.0 too, as JSON writes it
            return int(move)
        if isinstance(move, Mapping):
            check_move_fields(move)
            if "id" in move:    # play checks that a text beside it names the same move
                return move_id(move["id"])
            return self._resolve(move["text"])
        if isinstance(move, str):
            key = _read_move(self.variant, move)
            if key and key[0] == "lay meld" and key[1] and key not in _move_phases(self.variant):
                cards = " ".join(format_card(self.variant, c) for c in key[1])
                raise IllegalMove(f"lay meld {cards}: not a valid meld ({self._module.MELD_RULE})")
            if key not in _move_phases(self.variant):
                slot = _slot_beyond_the_table(self.variant, key)
                if key is not None and slot is not None:
                    verb, named_cards, place = key
                    named = " ".join([verb, *(format_card(self.variant, c) for c in named_cards),
                                      place])
                    raise IllegalMove(f"{named}: there is no table meld in slot {slot}")
                raise MeldmindError(f"unknown move {shown(move)} for {self.variant}; its moves: "
                                    f"{self._module.MOVE_FORMS}")
            phase = self._phase()
            action = _action_ids(self.variant, phase).get(key)
            if action is not None:
                return action
            # a move of another phase is illegal here, not unknown
            other = _move_phases(self.variant)[key]
            why = (self._module.REASONS[self._kernel.R_GAME_OVER] if self.is_over
                   else f"not a move of the {self._module.PHASES[phase]} phase")
            text = self._module.action_text(_action_ids(self.variant, other)[key], other)
            raise IllegalMove(f"{text}: {why}")
        raise MeldmindError(f"a move is a Move, an action id, a move dict or a text, not {shown(move)}")

    def play(self, move: MoveLike) -> Move:
        """Play one move for the seat to act. An illegal move raises ``IllegalMove`` naming
        the reason, and the game is unchanged."""
        action = self._resolve(move)
        if not 0 <= action < self._kernel.NUM_ACTIONS:
            # no move of the game at all, as a misspelt text: malformed, not refused by the rules
            raise MeldmindError(f"action id {shown(action)} is no move of {self.variant}: ids run "
                                f"0..{self._kernel.NUM_ACTIONS - 1}")
        phase = self._phase()
        text = self._module.action_text(action, phase)
        if isinstance(move, Move):
            check_same_move(self.variant, action, text, move.text)
        elif isinstance(move, Mapping):
            check_move_object(self.variant, action, phase, move)
        reason = int(self._kernel.illegal_reason(self._state, action))
        if reason:
            raise IllegalMove(f"{text}: {self._module.REASONS[reason]}")
        seat = self.to_move
        hand_before, scores_before = self._hand_number(), self.scores
        revealed = int(self._kernel.apply_action(self._state, action))
        self._moves.append(action)
        self.history.append(Event("PUBLIC", None, f"seat {seat}: {text}", action))
        if revealed >= 0:
            self.history.append(Event("PRIVATE", seat, f"seat {seat} draws "
                                      f"{format_card(self.variant, revealed)}", action))
        if self._hand_number() != hand_before or self.is_over:
            self._log_end(hand_before, scores_before)
        if self._hand_number() != hand_before and not self.is_over:
            self._log_deal()
        return Move(action, text)

    def _hand_number(self) -> int:
        return self._module.hand_number(self._state) if hasattr(self._module, "hand_number") else 0

    def _log_deal(self) -> None:
        for seat in range(self.players):
            obs = self._module.observation_dict(self._observation_array(seat), None)
            self.history.append(Event("PRIVATE", seat, f"seat {seat} is dealt {' '.join(obs['hand'])}"))
        upcard = obs.get("upcard") or (obs.get("discard_pile") or [None])[-1]
        if upcard:
            self.history.append(Event("PUBLIC", None, f"upcard {upcard}"))

    def _log_end(self, hand: int, scores_before: list[int]) -> None:
        """The public events of a hand's end and of the game's end (E4), from the public part of
        an observation: a game of several hands reports each hand in ``last_hand``; gin's one
        hand is reported at game over by its ``end`` and ``deadwood``."""
        obs = self._module.observation_dict(self._observation_array(0), None)
        last = obs.get("last_hand")
        if last:
            winner, scores = last["winner"], self.scores
            gain = scores[winner] - scores_before[winner]
            self.history.append(Event("PUBLIC", None, f"hand {hand} ends ({last['end']}): seat "
                                      f"{winner} wins, hand values {last['hand_values']}, seat "
                                      f"{winner} scores {gain}, scores {scores}"))
        if self.is_over:
            returns = self.returns
            best = max(returns)
            result = f"seat {returns.index(best)} wins" if returns.count(best) == 1 else "a draw"
            how = f" ({obs['end']})" if obs.get("end") else ""
            deadwood = obs.get("deadwood")
            deadwood_note = f", deadwood {deadwood}" if deadwood and None not in deadwood else ""
            self.history.append(Event("PUBLIC", None, f"game over{how}: {result}{deadwood_note}, "
                                      f"returns {returns}"))

    # -- JSON --------------------------------------------------------------------------------
    def to_json(self) -> str:
        """The game as JSON: variant, options, seed and moves (a replay, so it is exact)."""
        return json.dumps({"format": GAME_FORMAT, "version": GAME_VERSION, "variant": self.variant,
                           "options": self._options, "seed": self.seed, "moves": self._moves})

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any]) -> "Game":
        """Rebuild a game from :meth:`to_json`; malformed JSON raises ``MeldmindError``."""
        if not isinstance(text, (str, bytes, Mapping)):
            raise MeldmindError(f"a game record is JSON text or a mapping, not {shown(text)}")
        if isinstance(text, Mapping):
            refuse_arrays(text, "game record")
        data = parse_json(text, "game JSON") if isinstance(text, (str, bytes)) else dict(text)
        if not isinstance(data, dict) or data.get("format") != GAME_FORMAT:
            raise MeldmindError(f"not a meldmind game: expected \"format\": \"{GAME_FORMAT}\"")
        check_version(data.get("version"), GAME_VERSION, "game")
        unknown = unknown_field(data, schema_fields("game"))
        if unknown is not None:
            raise MeldmindError(f"{unknown}: a game record holds only the fields of game.json")
        for key, kind, word in (("variant", str, "a string"), ("moves", list, "a list"),
                                ("options", dict, "an object")):
            if not isinstance(data.get(key), kind):
                raise MeldmindError(f"game JSON field {key!r} must be {word}")
        if "seed" not in data:     # the seed itself is checked like any other
            raise MeldmindError("game JSON field 'seed' is missing")
        if data["seed"] is None:   # new_game's None draws a seed: a record must name its deal
            raise MeldmindError("game JSON field 'seed' must be an integer, not null")
        seed = data["seed"]
        if isinstance(seed, float) and FLOAT_EXACT < abs(seed) <= -SEED_LOW:
            raise MeldmindError(f"game JSON field 'seed' {shown(seed)} is written as a float, "
                                "which may have rounded it (beyond 2**53): write it as an integer")
        game = cls(data["variant"], options=json_numbers(game_module(data["variant"]).OPTIONS,
                                                         data["options"]),
                   seed=int(seed) if is_json_integer(seed) else seed)
        for i, move in enumerate(data["moves"]):
            if not is_json_integer(move):
                raise MeldmindError(f"game JSON move {i} must be an action id, not {shown(move)}")
            try:
                game.play(int(move))
            except IllegalMove as error:
                raise MeldmindError(f"game JSON move {i} is illegal: {error}") from None
            except MeldmindError as error:
                raise MeldmindError(f"game JSON move {i}: {error}") from None
        return game


def move_id(value: Any) -> int:
    """The id of a Move or a move dict, checked: a text there would be played as a move. A JSON
    integer may be written ``5.0`` (move.json)."""
    if not is_json_integer(value):
        raise MeldmindError(f"a move's 'id' is an action id, not {shown(value)}")
    return int(value)


def new_game(variant: str, *, players: SupportsIndex | None = None,
             seed: SupportsIndex | None = None,
             options: Mapping[str, Any] | None = None) -> Game:
    """Start a game of ``variant`` ("gin" or "cardverse") dealt from ``seed`` (random if None).

    ``players`` sets ``num_players`` where the game has it (gin is always two-player); with
    neither, two players. Both given must agree.
    """
    module = game_module(variant)
    options = options_dict(options)
    if players is not None:
        if not is_positive_int(players):
            raise OptionError(f"players must be a positive integer, not {shown(players)}")
        players = int(players)      # numpy's too: compared with an option's list, it broadcasts
        if "num_players" not in module.OPTIONS:
            if players != 2:
                raise OptionError(f"{variant} is a two-player game, not {players}-player")
        elif options.setdefault("num_players", players) != players:
            raise OptionError(f"players={players} but options num_players="
                              f"{shown(options['num_players'])}: give one, or the same number")
    return Game(variant, options=options, seed=seed)
