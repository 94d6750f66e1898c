"""OpenSpiel adapter: any meldmind level as a ``pyspiel.Bot`` for OpenSpiel's ``gin_rummy``.

meldmind does not depend on open_spiel: ``pyspiel`` is imported when ``MeldmindBot`` is first
used (without it, an ``ImportError`` says to ``pip install open_spiel``). The bot rebuilds the position by replaying OpenSpiel's history into meldmind's gin
engine, whose ``observe`` keeps only what the bot's player may know; the level decides from
that observation alone and answers with an OpenSpiel action id. meldmind's engine plays
``gin_rummy`` with its default parameters; on another game or parameters the bot raises
``OptionError``.

Ids: both engines number a card ``suit * 13 + rank``, with suits C D H S in meldmind and
s c d h in OpenSpiel, and share the other action ids (52 draw upcard, 53 draw stock, 54 pass,
55 knock, 56 + meld id with the same meld formulas), so the mapping is a suit permutation.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np

from ..ai import check_budget, decide, derived_seed, level_name
from ..errors import MeldmindError, OptionError
from ..games import gin
from ..variants import is_integer, seed_value

K = gin.KERNEL
CHANCE_PLAYER = -1
_DEAL = 21   # chance outcomes of the deal: 10 + 10 cards and the upcard
# the gin_rummy parameters of the rules meldmind's gin engine plays (RULES.md §5)
OPENSPIEL_PARAMETERS = {**gin.PARAMETERS, "hand_size": 10, "num_ranks": 13, "num_suits": 4,
                        "oklahoma": False}


def to_openspiel_card(card: int) -> int:
    suit, rank = divmod(int(card), 13)
    return ((suit + 1) % 4) * 13 + rank


def from_openspiel_card(card: int) -> int:
    suit, rank = divmod(int(card), 13)
    return ((suit + 3) % 4) * 13 + rank


@functools.cache
def _meld_maps() -> tuple[dict[int, int], dict[int, int]]:
    # OpenSpiel's meld id of OpenSpiel card ids is meldmind's of the same ids (same formulas)
    by_mask = {int(mask): m for m, mask in enumerate(K.MELD_MASK)}
    to_os = {m: by_mask[sum(1 << to_openspiel_card(c) for c in gin.meld_cards(m))]
             for m in range(K.NUM_MELDS)}
    return to_os, {v: k for k, v in to_os.items()}


def to_openspiel_action(action: int) -> int:
    if action < K.NUM_CARDS:
        return to_openspiel_card(action)
    if action < K.MELD_BASE:
        return int(action)
    return K.MELD_BASE + _meld_maps()[0][action - K.MELD_BASE]


def from_openspiel_action(action: int) -> int:
    if action < K.NUM_CARDS:
        return from_openspiel_card(action)
    if action < K.MELD_BASE:
        return int(action)
    return K.MELD_BASE + _meld_maps()[1][action - K.MELD_BASE]


def deal_state(hand0: list[int], hand1: list[int], upcard: int, draws: list[int]) -> np.ndarray:
    """A meldmind gin state with this deal; ``draws`` are the first stock cards in draw order
    (meldmind cards). The rest of the stock is in an arbitrary order."""
    state = K.new_state(gin.make_params({}), np.int64(0))
    used = set(hand0) | set(hand1) | {upcard} | set(draws)
    state[K.S_HAND] = sum(1 << c for c in hand0)
    state[K.S_HAND + 1] = sum(1 << c for c in hand1)
    state[K.S_UPCARD] = state[K.S_FIRST_UPCARD] = upcard
    stock = [c for c in range(K.NUM_CARDS) if c not in used] + list(draws)[::-1]  # pops from the end
    state[K.S_STOCK:K.S_STOCK + len(stock)] = stock
    return state


def check_parameters(openspiel_game: Any) -> None:
    """Raises ``OptionError`` unless an OpenSpiel game is ``gin_rummy`` with the parameters
    meldmind's engine plays: under others, the bot would follow the wrong rules."""
    game_name = openspiel_game.get_type().short_name
    if game_name != "gin_rummy":
        raise OptionError(f"meldmind plays only OpenSpiel's gin_rummy, not {game_name}")
    for name, value in sorted(openspiel_game.get_parameters().items()):
        if OPENSPIEL_PARAMETERS.get(name) != value:
            raise OptionError(f"meldmind plays gin_rummy with its default parameters only: "
                              f"{name} is {value!r}")


def _replay(openspiel_state: Any) -> tuple[np.ndarray, list[int]]:
    """The meldmind gin state of an OpenSpiel ``gin_rummy`` state, by replaying its history, and
    for each player the cards of its hand that its opponent knew of (taken face up) when it
    showed its unmelded cards at the end of its melds (-1 until it shows them)."""
    check_parameters(openspiel_state.get_game())
    history = openspiel_state.full_history()
    chance = [from_openspiel_card(step.action) for step in history if step.player == CHANCE_PLAYER]
    if len(chance) < _DEAL:
        raise MeldmindError("the OpenSpiel state is still being dealt: a bot decides once the deal is done")
    if openspiel_state.is_chance_node():
        # meldmind deals a draw with the move; its engine would hand the drawer a card of the
        # real stock, which OpenSpiel has not dealt and the drawer may not know
        raise MeldmindError("the OpenSpiel state waits for the stock card of a draw: a bot "
                            "decides once it is dealt")
    state = deal_state(chance[:10], chance[10:20], chance[20], chance[_DEAL:])
    known_before_showing = [-1, -1]
    for step in history:
        if step.player != CHANCE_PLAYER:
            action = from_openspiel_action(step.action)
            if action == K.PASS and _shows_unmelded_cards(state):
                player = int(state[K.S_CURRENT])
                known_before_showing[player] = int(state[K.S_KNOWN + player])
            K.apply_action(state, action)
    return state, known_before_showing


def _shows_unmelded_cards(state: np.ndarray) -> bool:
    """Whether a pass now ends the current player's melds, which shows its unmelded cards: the
    knocker's (a pass in the Knock phase always follows its discard), or the defender's after
    its lay-offs."""
    phase = state[K.S_PHASE]
    return bool(phase == K.PH_KNOCK or (phase == K.PH_LAYOFF and state[K.S_FINISHED_LAYOFFS]))


def meldmind_state(openspiel_state: Any) -> np.ndarray:
    """The meldmind gin state of an OpenSpiel ``gin_rummy`` state, by replaying its history."""
    return _replay(openspiel_state)[0]


def observation_for(openspiel_state: Any, player: int) -> np.ndarray:
    """What ``player`` may know, as a meldmind gin observation array: what OpenSpiel shows it.
    OpenSpiel shows the other player's melds but never the cards it kept out of them, which
    meldmind shows once its melds are done (as players do), so those stay hidden here, to the
    end of the game."""
    state, known_before_showing = _replay(openspiel_state)
    obs = np.zeros(K.OBS_SIZE, np.int64)
    K.observe(state, player, obs)
    other = 1 - player
    if known_before_showing[other] >= 0:
        obs[K.O_KNOWN + other] = known_before_showing[other] & state[K.S_HAND + other]
        obs[K.O_DEADWOOD + other] = -1
    return obs


class _MeldmindBotMethods:
    """A meldmind level playing OpenSpiel's ``gin_rummy`` as ``player_id`` (0 or 1).

    ``level``, ``budget_ms`` and ``iterations`` are ``meldmind.suggest``'s. ``seed`` seeds
    every move's search (each move from the seed and the length of the game's history), so
    the same seed replays the same game; None draws a fresh seed for this bot."""

    def __init__(self, player_id: int, *, level: str = "master",
                 budget_ms: float | None = None, iterations: SupportsIndex | None = None,
                 seed: SupportsIndex | None = None):
        super().__init__()      # pyspiel.Bot's, which a pybind11 subclass must call
        if not is_integer(player_id) or player_id not in (0, 1):
            raise OptionError(f"gin_rummy's players are 0 and 1, not {player_id!r}")
        check_budget(iterations, budget_ms)
        self.player_id = int(player_id)
        self.level = level_name(level)
        self.budget_ms = budget_ms
        self.iterations = iterations
        self.seed = seed_value(seed)

    def restart_at(self, state: Any) -> None:
        pass

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass

    def observation(self, state: Any) -> np.ndarray:
        """What the bot decides from: ``observation_for`` its player (a measurement may
        override it, never a level)."""
        return observation_for(state, self.player_id)

    def step(self, state: Any) -> int:
        obs = self.observation(state)
        seed = derived_seed(self.seed, "move", len(state.history()))
        decision = decide("gin", self.level, obs, seed=seed, iterations=self.iterations,
                          budget_ms=self.budget_ms)
        return to_openspiel_action(decision.action)


if TYPE_CHECKING:       # type checkers see the methods; pyspiel.Bot joins as a base when used
    MeldmindBot = _MeldmindBotMethods


@functools.cache
def _bot_class() -> type[_MeldmindBotMethods]:
    try:
        import pyspiel
    except ImportError as error:
        raise ImportError(f"MeldmindBot needs OpenSpiel, which is not installed: pip install "
                          f"open_spiel ({error})", name="pyspiel") from None

    class MeldmindBot(_MeldmindBotMethods, pyspiel.Bot):
        __doc__ = _MeldmindBotMethods.__doc__

    return MeldmindBot


def __getattr__(name: str) -> Any:
    if name == "MeldmindBot":
        return _bot_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
