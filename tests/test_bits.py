"""The bit helpers against Python's own counts: compiled (CPU instructions) on random int64
masks of every sign, and as plain arithmetic under NUMBA_DISABLE_JIT=1."""
import os
import random
import subprocess
import sys

import numpy as np
from numba import njit

from meldmind.kernels.bits import lowest_bit, popcount


@njit
def _both(masks, counts, lowest):
    for i in range(masks.size):
        counts[i] = popcount(masks[i])
        lowest[i] = lowest_bit(masks[i])


def _random_masks(count):
    rng = random.Random(7)
    masks = [0, 1, -1, 1 << 62, -(1 << 63)]
    masks += [rng.getrandbits(rng.randint(1, 64)) - (1 << 63) * rng.randint(0, 1)
              for _ in range(count)]
    return np.array([m if m < 1 << 63 else m - (1 << 64) for m in masks], np.int64)


def test_compiled_counts_match_python_on_random_masks():
    masks = _random_masks(20_000)
    counts = np.empty_like(masks)
    lowest = np.empty_like(masks)
    _both(masks, counts, lowest)
    unsigned = [int(m) & ((1 << 64) - 1) for m in masks]
    assert counts.tolist() == [bin(u).count("1") for u in unsigned]
    assert lowest.tolist() == [(u & -u).bit_length() - 1 if u else 64 for u in unsigned]


def test_without_jit_the_arithmetic_gives_the_same_counts():
    code = ("import random; from meldmind.kernels.bits import lowest_bit, popcount;"
            "r = random.Random(3); ms = [r.getrandbits(63) | 1 << r.randrange(63) for _ in range(2000)];"
            "print(all(popcount(m) == bin(m).count('1') and"
            " lowest_bit(m) == (m & -m).bit_length() - 1 for m in ms))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}).stdout.split()
    assert out == ["True"]
