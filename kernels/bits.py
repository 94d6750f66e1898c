"""Bit helpers for card masks held in int64 slots. Compiled, they are single CPU instructions
(LLVM's ctpop and cttz); with NUMBA_DISABLE_JIT=1 they are plain arithmetic, so the kernels
also run as Python."""
from llvmlite import ir
from numba import config, types
from numba.extending import intrinsic

from .jit import njit

_DEFINED_AT_ZERO = ir.Constant(ir.IntType(1), 0)     # cttz(0) is 64, as the arithmetic gives


@intrinsic
def _ctpop(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.int64), codegen


@intrinsic
def _cttz(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], _DEFINED_AT_ZERO)
    return types.int64(types.int64), codegen


def _ctpop_python(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


def _cttz_python(x):
    return _ctpop_python((x & -x) - 1)


# numba sets DISABLE_JIT at import; an intrinsic is typed as its codegen, not as what it computes
_count_ones = _ctpop_python if config.DISABLE_JIT else _ctpop  # type: ignore[attr-defined]
_count_trailing_zeros = _cttz_python if config.DISABLE_JIT else _cttz  # type: ignore[attr-defined]


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a non-negative int64."""
    return _count_ones(x)


@njit(cache=True, inline="always")
def lowest_bit(x):
    """Index of the lowest set bit of a non-zero int64 mask."""
    return _count_trailing_zeros(x)
