"""The AI ladder and the hint engine (RULES.md §6).

Every level decides from one observation — what its seat may know — and never from a game
state. ``suggest`` takes the observation JSON of ``Game.observation`` or the same JSON built
by an outside server.

>>> import meldmind
>>> game = meldmind.new_game("gin", seed=4)
>>> hint = meldmind.suggest(game.observation(0), level="expert", iterations=64, seed=1)
>>> hint.move.text in {"draw upcard", "pass"}
True
>>> meldmind.suggest(game.observation(0), level="expert", iterations=64, seed=1) == hint
True
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import numbers
import sys
import threading
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Mapping, SupportsIndex

import numba
import numpy as np

from .errors import MeldmindError, OptionError, json_type, parse_json, refuse_arrays, shown
from .explain import explain
from .game import (GAME_MODULES, Move, ai_module, check_move_fields, check_move_object,
                   game_module, move_id, new_game, text_action)
from .kernels import levels
from .variants import is_positive_int, seed_value

LEVEL_ALIASES = {
    "kolay": "easy", "zor": "expert", "hard": "expert",
    "debutant": "beginner", "débutant": "beginner", "maitre": "master", "maître": "master",
}
SEARCH_LEVELS = ("expert", "master")
ALTERNATIVES_SHOWN = 5
# The share of the remaining budget a search slice may plan to use: with half, a slice that runs
# twice as slow as the one it was planned from (a loaded machine) still ends by the deadline.
_BUDGET_FILL = 0.5
# A budget's first slice: enough determinizations to time the search by, and a floor on a hint
# whose budget the first call in a process (which loads the kernels) already spends.
_FIRST_SLICE = 16
_MAX_SLICE = 1 << 14  # determinizations per search call: its buffers grow with the count
MAX_ITERATIONS = 10_000_000   # per decision: seconds of search even in gin


def level_name(level: str) -> str:
    """The canonical level name of a level or one of the seeds' aliases."""
    if not isinstance(level, str):
        raise OptionError(f"a level is a name, not {shown(level)}")
    name = LEVEL_ALIASES.get(level.lower(), level.lower())
    if name not in levels.NAMES:
        raise OptionError(f"unknown level {shown(level)}; expected one of {', '.join(levels.NAMES)} "
                          f"(or an alias: {', '.join(LEVEL_ALIASES)})")
    return name


@dataclass(frozen=True)
class Alternative:
    """A move the search evaluated, with its value: one row of ``Suggestion.alternatives``."""

    move: Move
    value: float       # expected return of the move for the seat (the game's return units)
    visits: int        # determinizations that evaluated it


@dataclass(frozen=True)
class Suggestion:
    """What ``suggest`` returns: the move to play, its estimated value, the best moves the search
    compared it with (best first, the move itself always among them, last when it ranks below
    the five best) and a plain explanation for the player."""

    move: Move
    # the chosen move's expected return for the seat, None for the levels without a search: gin
    # hand points; CardVerse the hand's points as a share of the target score, or +1 / -1/(N-1)
    # for a playout that ends the game won / lost (docs/json-protocol.md)
    value: float | None
    alternatives: tuple[Alternative, ...]
    explanation: str
    level: str
    iterations: int                    # determinizations searched (0 for heuristic levels)
    seed: int                          # the one given, or the one drawn for seed=None
    seed_drawn: bool = field(default=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The suggestion as ``meldmind hint`` prints it (docs/json-protocol.md). It tells the
        seed only when meldmind drew it: a seed the caller chose (maybe its game's) is never
        repeated into an answer a server may pass on to a player."""
        return {"move": _move_json(self.move), "value": self.value, "level": self.level,
                "iterations": self.iterations,
                **({"seed": self.seed} if self.seed_drawn else {}),
                "explanation": self.explanation,
                "alternatives": [{"move": _move_json(a.move), "value": a.value, "visits": a.visits}
                                 for a in self.alternatives]}


def _move_json(move: Move) -> dict[str, Any]:
    return {"id": move.id, "text": move.text}


def derived_seed(seed: int, *path: int | str) -> int:
    """A non-negative seed named by ``path`` under ``seed`` (a checked seed, any sign), such as
    ``derived_seed(seed, "deal", 7)``. It is one-way (BLAKE2b): an AI handed a seed derived
    from the one its deal came from cannot compute the deal back, which it could from an
    invertible scramble. The path is read as text, its parts joined by ':' (so ``2`` and
    ``"2"`` name the same seed, and a part holds no ':'); distinct texts give unrelated seeds.

    >>> derived_seed(0, "deal", 2) == derived_seed(2, "deal", 0)
    False
    """
    text = ":".join(str(part) for part in (seed, *path)).encode()
    digest = hashlib.blake2b(text, digest_size=8, person=b"meldmind.seed").digest()
    return int.from_bytes(digest, "little") >> 1


def _read_observation(observation: Any) -> tuple[str, ModuleType, dict[str, Any], np.ndarray]:
    if isinstance(observation, (str, bytes)):
        observation = parse_json(observation, "observation JSON")
    elif isinstance(observation, Mapping):      # a caller's own: parsed JSON holds no array
        refuse_arrays(observation, "observation")
    if not isinstance(observation, Mapping):
        raise MeldmindError(f"an observation is a JSON object, not {json_type(observation)}")
    if "variant" not in observation:
        raise MeldmindError(f"observation: missing field 'variant' ({', '.join(GAME_MODULES)})")
    variant = observation["variant"]
    try:
        module = game_module(variant)
    except OptionError as error:
        raise OptionError(f"observation field 'variant': {error}") from None
    return variant, module, dict(observation), module.observation_array(observation)


@dataclass
class Decision:
    """What a level decided, with the search statistics behind it."""

    action: int
    legal: list[int]
    values: np.ndarray | None      # summed returns per action id (search levels)
    visits: np.ndarray | None
    iterations: int


def _is_budget(value: Any) -> bool:
    """A finite positive number: NaN fails both comparisons, and infinity and integers beyond
    the largest float would overflow the deadline's arithmetic. A numpy float32 is compared as
    a float (numpy warns when it meets the largest float)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return 0 < int(value) <= sys.float_info.max
    return 0 < float(value) < math.inf


def check_budget(iterations: Any, budget_ms: Any) -> None:
    """Raises ``OptionError`` unless ``iterations`` is None or an integer from 1 to
    ``MAX_ITERATIONS`` and ``budget_ms`` is None or a finite positive number."""
    if iterations is not None and not (is_positive_int(iterations)
                                       and iterations <= MAX_ITERATIONS):
        raise OptionError(f"iterations must be an integer from 1 to {MAX_ITERATIONS:,}, not "
                          f"{shown(iterations)}")
    if budget_ms is not None and not _is_budget(budget_ms):
        raise OptionError(f"budget_ms must be a finite positive number, not {shown(budget_ms)}")


_WORKQUEUE_LOCK = threading.Lock()


def _search(ai: ModuleType, obs: np.ndarray, number: int, seed: int, first: int, count: int,
            values: np.ndarray, visits: np.ndarray) -> None:
    """``ai.search``, a parallel kernel. numba's workqueue threading layer, its fallback when
    neither OpenMP nor TBB is installed, aborts the process when two threads run parallel
    kernels at once, so there the searches of concurrent callers (a server's threads) take
    turns; the other layers are threadsafe."""
    try:
        unsafe = numba.threading_layer() == "workqueue"
    except ValueError:      # no parallel kernel has run yet, so no layer is chosen
        unsafe = True
    with _WORKQUEUE_LOCK if unsafe else contextlib.nullcontext():
        ai.search(obs, number, np.int64(seed), first, count, values, visits)


def _legal_buffer(kernel: ModuleType, obs: np.ndarray) -> tuple[np.ndarray, int]:
    """The legal action ids of the seat of the observation array ``obs``, at the front of a
    buffer of ``kernel.NUM_ACTIONS``, and their count; a ``MeldmindError`` when the game is over
    or it is not that seat's turn."""
    buffer = np.empty(kernel.NUM_ACTIONS, np.int64)
    n = int(kernel.legal_from_obs(obs, buffer))
    if n == 0:
        if kernel.is_terminal(kernel.determinize(obs, np.int64(0))):
            raise MeldmindError("the game of this observation is over: there is no move to make")
        raise MeldmindError(f"it is not seat {int(obs[kernel.O_SEAT])}'s turn in this observation")
    return buffer, n


def _listed_action(variant: str, module: ModuleType, phase: int, entry: Any) -> int:
    """The action id of an entry of an observation's ``legal_moves``, read as ``Game.play``
    reads a move object, in the observation's ``phase``: by its id, its text, or both when
    they name the same move."""
    check_move_fields(entry)
    if "id" in entry:
        action = move_id(entry["id"])
        module.action_text(action, phase)     # checks the id
    else:
        found = text_action(variant, phase, entry["text"])
        if found is None:
            raise MeldmindError(f"{shown(entry['text'])} is not a move of the "
                                f"{module.PHASES[phase]} phase")
        action = found
    check_move_object(variant, action, phase, entry)
    return action


def _check_legal_moves(variant: str, module: ModuleType, phase: int, listed: Any,
                       legal: list[int]) -> None:
    """Raises ``MeldmindError`` unless ``listed``, an observation's ``legal_moves``, names each
    action id of ``legal`` once and nothing else; the message names a bad entry by its index,
    and a wrong list by the moves it lacks and the moves it has in excess."""
    if not isinstance(listed, list):
        raise MeldmindError(f"'legal_moves' must be a list of moves, not {shown(listed)}")
    index: dict[int, int] = {}      # the entry of each listed action
    for i, entry in enumerate(listed):
        try:
            action = _listed_action(variant, module, phase, entry)
        except MeldmindError as error:
            raise MeldmindError(f"'legal_moves[{i}]': {error}") from None
        if action in index:
            raise MeldmindError(f"'legal_moves[{i}]' repeats 'legal_moves[{index[action]}]' "
                                f"({module.action_text(action, phase)})")
        index[action] = i
    missing = [a for a in legal if a not in index]
    extra = [a for a in index if a not in legal]
    if missing or extra:
        def texts(actions: list[int]) -> str:
            return ", ".join(shown(module.action_text(a, phase)) for a in actions)

        named = "; ".join(f"{word} {texts(actions)}"
                          for word, actions in (("missing", missing), ("extra", extra)) if actions)
        raise MeldmindError(f"the observation's legal_moves do not match its state: {named}")


def decide(variant: str, level: str, obs: np.ndarray, *, seed: SupportsIndex | None,
           iterations: SupportsIndex | None = None, budget_ms: float | None = None,
           started: float | None = None) -> Decision:
    """The move of ``level`` for the seat of the observation array ``obs``; ``budget_ms`` runs
    from ``started``, a ``time.perf_counter()`` reading (default: now). The kernels get a seed
    derived from ``seed``, never ``seed`` itself, which a caller may have dealt the game from."""
    name = level_name(level)
    check_budget(iterations, budget_ms)
    iterations = None if iterations is None else int(iterations)   # numpy's too, for JSON
    kernel_seed = derived_seed(seed_value(seed), "ai")
    number = levels.NAMES.index(name)
    kernel = game_module(variant).KERNEL
    ai = ai_module(variant)
    buffer, n = _legal_buffer(kernel, obs)
    legal = buffer[:n].tolist()
    if name not in SEARCH_LEVELS:
        rng = np.zeros(1, np.int64)
        rng[0] = kernel_seed
        return Decision(int(ai.policy(obs, buffer, n, number, rng)), legal, None, None, 0)
    values = np.zeros(kernel.NUM_ACTIONS, np.float64)
    visits = np.zeros(kernel.NUM_ACTIONS, np.int64)
    # Slices add their determinizations in order, so any slicing gives the same sums.
    done = 0
    if budget_ms is None:
        total = iterations if iterations is not None else int(ai.default_iterations(number))
        while done < total:
            count = min(_MAX_SLICE, total - done)
            _search(ai, obs, number, kernel_seed, done, count, values, visits)
            done += count
    else:
        deadline = (time.perf_counter() if started is None else started) + budget_ms / 1000
        limit = iterations if iterations is not None else MAX_ITERATIONS
        count = min(_FIRST_SLICE, limit)
        while count >= 1:
            slice_started = time.perf_counter()
            _search(ai, obs, number, kernel_seed, done, count, values, visits)
            done += count
            finished = time.perf_counter()
            per_determinization = max(finished - slice_started, 1e-9) / count
            # the float comes down to a slice before int() (a huge budget makes it infinite)
            count = int(min(limit - done, _MAX_SLICE,
                            (deadline - finished) / per_determinization * _BUDGET_FILL))
    action = int(ai.pick(obs, values, visits, buffer, n, number, np.int64(kernel_seed)))
    return Decision(action, legal, values, visits, done)


def warm_up(level: str = "master") -> None:
    """Loads every kernel a hint of ``level`` runs, in every game, into this process: from
    numba's cache in about 0.4 s a game, or compiled after an install. A first hint otherwise
    spends that time from its budget and gets the budget's minimum search; a server calls this
    once as it starts (``meldmind hint --lines`` does). It plays a hand of each game with hints
    of ``level``: the explanations of the knock and the lay-offs call kernels of their own."""
    for variant in GAME_MODULES:
        game = new_game(variant, seed=0)
        while (seat := game.to_move) is not None:
            observation = game.observation(seat)
            if observation.get("hand_number", 1) > 1:   # CardVerse: one hand has every phase
                break
            game.play(suggest(observation, level=level, iterations=1, seed=0).move)


def suggest(observation: Mapping[str, Any] | str | bytes, *, level: str = "master",
            budget_ms: float | None = None, iterations: SupportsIndex | None = None,
            seed: SupportsIndex | None = None) -> Suggestion:
    """The best move for the seat of ``observation`` and why.

    ``level`` is one of beginner, easy, normal, expert, master (or a seed alias such as
    ``kolay`` or ``zor``). Search levels stop after ``iterations`` determinizations or when
    ``budget_ms`` is spent, whichever comes first, though a budget always runs its first 16;
    with neither, the level's default budget.
    With a seed and ``iterations`` (no ``budget_ms``) the suggestion is reproducible; with
    ``seed=None`` a fresh seed is drawn, and ``Suggestion.seed`` tells it, so that
    ``iterations=hint.iterations, seed=hint.seed`` gives the same suggestion again.
    The observation's ``legal_moves``, if it has them, must name every legal move once, each
    as ``Game.play`` takes a move object: by id, by text, or by both naming the same move.
    """
    started = time.perf_counter()      # reading and checking the observation is on the budget
    seed_drawn = seed is None
    seed = seed_value(seed)
    variant, module, data, obs = _read_observation(observation)
    phase = int(obs[module.KERNEL.O_PHASE])
    if "legal_moves" in data:   # before the search: a refused observation gets no search
        buffer, n = _legal_buffer(module.KERNEL, obs)
        _check_legal_moves(variant, module, phase, data["legal_moves"], buffer[:n].tolist())
    decision = decide(variant, level, obs, seed=seed, iterations=iterations, budget_ms=budget_ms,
                      started=started)

    def move(action: int) -> Move:
        return Move(action, module.action_text(action, phase))

    alternatives: tuple[Alternative, ...] = ()
    value = None
    values, visits = decision.values, decision.visits
    if values is not None and visits is not None:
        ranked = sorted((a for a in decision.legal if visits[a] > 0),
                        key=lambda a: -values[a] / visits[a])
        top_moves = ranked[:ALTERNATIVES_SHOWN]
        if decision.action in ranked and decision.action not in top_moves:
            top_moves.append(decision.action)   # a gin knock or a bluff can rank lower
        alternatives = tuple(Alternative(move(a), float(values[a] / visits[a]), int(visits[a]))
                             for a in top_moves)
        if visits[decision.action]:
            value = float(values[decision.action] / visits[decision.action])
    chosen = move(decision.action)
    # explained from the array's own dict, whose cards are spelt as the engine spells them
    text = explain(variant, module.observation_dict(obs, None), chosen, value, alternatives, obs)
    return Suggestion(chosen, value, alternatives, text, level_name(level), decision.iterations,
                      seed, seed_drawn)
