"""Array helpers for the numba kernels."""
from .jit import njit


@njit(cache=True, inline="always")
def copy_into(target, source):
    """``target[:] = source`` for arrays of one size. Numba compiles a slice assignment with the
    formatting of its shape-mismatch error, which took about 3 s of the first compilation of each
    game's search kernel."""
    for i in range(source.size):
        target[i] = source[i]


@njit(cache=True)
def sorted_contains(items, n, value):
    """Whether ``value`` is among ``items[:n]``, sorted ascending (the legal moves are)."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if items[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo < n and items[lo] == value
