"""meldmind: an AI engine for rummy-family card games.

The hand algebra runs in Cython kernels (``meldmind.kernels``), which must be compiled before
use: ``pip install .`` (or ``make test``) builds them.
"""
from __future__ import annotations

try:
    from .kernels import handalg as _handalg  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        "meldmind's native kernels are not built. Install the package with `pip install .` "
        "(or `pip install -e .` for development), or run `make test`, which builds them. "
        f"(import failed: {error})"
    ) from None

from .analysis import (BatchAnalysis, HandAnalysis, LayOff, Meld, analyze_batch, analyze_hand,
                       encode_hands, layoff_targets, meld_catalog)
from .cards import format_card, parse_cards
from .errors import CardError, IllegalMove, MeldmindError, OptionError
from .game import Event, Game, Move, new_game
from .variants import VARIANTS

__version__ = "0.1.0"

__all__ = [
    "BatchAnalysis", "CardError", "Event", "Game", "HandAnalysis", "Move", "new_game", "IllegalMove", "LayOff", "Meld",
    "MeldmindError", "OptionError", "VARIANTS", "analyze_batch", "analyze_hand",
    "encode_hands", "format_card", "layoff_targets", "meld_catalog", "parse_cards",
]
