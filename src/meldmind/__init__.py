"""meldmind: an AI engine for rummy-family card games.

The hand algebra runs in Cython kernels (``meldmind.kernels``), which must be compiled before
use: ``pip install .`` (or ``make test``) builds them.
"""
from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

# Found, not loaded: loading the hand algebra loads numpy, which waits for the first name used.
if importlib.util.find_spec(".kernels.handalg", __name__) is None:
    raise ImportError(
        "meldmind's native kernels are not built. Install the package with `pip install .` "
        "(or `pip install -e .` for development), or run `make test`, which builds them.")

__version__ = "0.1.0"

if TYPE_CHECKING:   # type checkers see the lazy names' real signatures
    from .ai import Alternative, Suggestion, suggest, warm_up
    from .analysis import (BatchAnalysis, HandAnalysis, LayOff, Meld, analyze_batch,
                           analyze_hand, encode_hands, layoff_targets, meld_catalog, melds_in)
    from .cards import format_card, parse_cards
    from .errors import CardError, IllegalMove, MeldmindError, OptionError
    from .game import Event, Game, Move, MoveLike, new_game
    from .tournament import ArenaResult, arena
    from .variants import VARIANTS

# Every name loads its module on first use, not on `import meldmind`: the console script imports
# this package before the CLI's own code runs, and numpy, the kernels and numba take a tenth of a
# second or more to load, during which a Ctrl-C could only end in a traceback.
_LAZY = {
    **dict.fromkeys(["Alternative", "Suggestion", "suggest", "warm_up"], "ai"),
    **dict.fromkeys(["BatchAnalysis", "HandAnalysis", "LayOff", "Meld", "analyze_batch",
                     "analyze_hand", "encode_hands", "layoff_targets", "meld_catalog",
                     "melds_in"], "analysis"),
    **dict.fromkeys(["format_card", "parse_cards"], "cards"),
    **dict.fromkeys(["CardError", "IllegalMove", "MeldmindError", "OptionError"], "errors"),
    **dict.fromkeys(["Event", "Game", "Move", "MoveLike", "new_game"], "game"),
    **dict.fromkeys(["ArenaResult", "arena"], "tournament"),
    "VARIANTS": "variants",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'meldmind' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The lazy names too, for ``dir``, ``help`` and tab completion."""
    return sorted({*globals(), *_LAZY})


__all__ = sorted(_LAZY)
