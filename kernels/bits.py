"""Bit helpers for card masks held in int64 slots. Plain arithmetic, no intrinsics, so the
kernels also run as Python under NUMBA_DISABLE_JIT=1."""
from numba import njit


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a non-negative int64."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@njit(cache=True, inline="always")
def lowest_bit(x):
    """Index of the lowest set bit of a non-zero int64 mask."""
    return popcount((x & -x) - 1)
