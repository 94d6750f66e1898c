"""Array helpers for the numba kernels."""
from numba import njit


@njit(cache=True, inline="always")
def copy_into(target, source):
    """``target[:] = source`` for arrays of one size. Numba compiles a slice assignment with the
    formatting of its shape-mismatch error, which took about 3 s of the first compilation of each
    game's search kernel."""
    for i in range(source.size):
        target[i] = source[i]
