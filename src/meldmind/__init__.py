"""meldmind: an AI engine for rummy-family card games.

The hand algebra runs in Cython kernels (``meldmind.kernels``), which must be compiled before
use: ``pip install .`` (or ``make test``) builds them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

try:
    from .kernels import handalg as _handalg  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        "meldmind's native kernels are not built. Install the package with `pip install .` "
        "(or `pip install -e .` for development), or run `make test`, which builds them. "
        f"(import failed: {error})"
    ) from None

from .analysis import (BatchAnalysis, HandAnalysis, LayOff, Meld, analyze_batch, analyze_hand,
                       encode_hands, layoff_targets, meld_catalog, melds_in)
from .cards import format_card, parse_cards
from .errors import CardError, IllegalMove, MeldmindError, OptionError
from .game import Event, Game, Move, MoveLike, new_game
from .variants import VARIANTS

__version__ = "0.1.0"

if TYPE_CHECKING:   # type checkers see the lazy names' real signatures
    from .ai import Alternative, Suggestion, suggest, warm_up
    from .tournament import ArenaResult, arena

# The AI and the arena load numba on first use, not on `import meldmind`.
_LAZY = {"Alternative": "ai", "Suggestion": "ai", "suggest": "ai", "warm_up": "ai",
         "ArenaResult": "tournament", "arena": "tournament"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'meldmind' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The lazy names too, for ``dir``, ``help`` and tab completion."""
    return sorted({*globals(), *_LAZY})

__all__ = [
    "Alternative", "ArenaResult", "Suggestion", "arena", "suggest", "warm_up",
    "BatchAnalysis", "CardError", "Event", "Game", "HandAnalysis", "IllegalMove", "LayOff", "Meld",
    "MeldmindError", "Move", "MoveLike", "OptionError", "VARIANTS", "analyze_batch", "analyze_hand",
    "encode_hands", "format_card", "layoff_targets", "meld_catalog", "melds_in", "new_game",
    "parse_cards",
]
