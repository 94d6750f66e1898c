"""The numba -> Cython bridge: numba kernels call the hand algebra by symbol name.

Each exported Cython function's address (from the module's ``__pyx_capi__``) is registered
with LLVM under a stable symbol, and declared as a ``numba.types.ExternalFunction``. Unlike a
ctypes pointer this keeps ``@njit(cache=True)`` working: the cached object code refers to the
symbol by name, and importing this module registers the name again in a new process.

With ``NUMBA_DISABLE_JIT=1`` the same names are plain Python functions over the Cython
wrappers, so the numba kernels still run as Python for debugging.

>>> from numba import njit
>>> @njit
... def gin_deadwood(hand):
...     return deadwood(0, hand, 0) >> POINTS_SHIFT
>>> gin_deadwood((7 << 39) | (1 << 4))   # AS 2S 3S + 5C
5
"""
import llvmlite.binding as llvm
from numba import config, types
from numba.extending import get_cython_function_address

from . import handalg

_MODULE = "meldmind.kernels.handalg"
# deadwood() packs (points << POINTS_SHIFT) | card count for the 52-card decks
POINTS_SHIFT = handalg.COUNT_SHIFT["52"]
_SIGNATURES = {
    "mm_deadwood": types.int64(types.intc, types.uint64, types.intc),
    "mm_leftover": types.int64(types.intc, types.uint64, types.intc),
    "mm_rami_opening": types.int64(types.uint64),
    "mm_kirolo_unmelded": types.int64(types.uint64, types.uint64, types.intc, types.intc),
    "mm_layoff_cards": types.int64(types.intc, types.intc, types.uint64, types.uint64, types.intc,
                                   types.uint64, types.intc, types.intc),
}


def _external(name: str):
    symbol = f"meldmind_{name}"
    llvm.add_symbol(symbol, get_cython_function_address(_MODULE, name))
    return types.ExternalFunction(symbol, _SIGNATURES[name])


if config.DISABLE_JIT:  # type: ignore[attr-defined]  # numba sets its config at import
    deadwood = handalg.deadwood
    leftover = handalg.leftover
    rami_opening = handalg.rami_opening
    kirolo_unmelded = handalg.kirolo_unmelded
    layoff_cards = handalg.layoff_cards
else:
    deadwood = _external("mm_deadwood")
    leftover = _external("mm_leftover")
    rami_opening = _external("mm_rami_opening")
    kirolo_unmelded = _external("mm_kirolo_unmelded")
    layoff_cards = _external("mm_layoff_cards")
