"""The bit helpers against Python's own counts: compiled (CPU instructions) on random int64
masks of every sign, and as plain arithmetic under NUMBA_DISABLE_JIT=1."""
import os
import random
import subprocess
import sys

import numpy as np
from numba import njit

from meldmind.kernels.bits import lowest_bit, popcount

TESTS = os.path.dirname(os.path.abspath(__file__))


def printed_without_jit(code):
    """What ``code`` prints, split into words, run as Python with NUMBA_DISABLE_JIT=1 in a
    fresh interpreter (this folder importable, as it is to pytest)."""
    code = f"import sys; sys.path.insert(0, {TESTS!r})\n{code}"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "NUMBA_DISABLE_JIT": "1"}).stdout.split()


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
    out = printed_without_jit(code)
    assert out == ["True"]


def test_without_jit_the_seed_mixers_take_negative_seeds_as_compiled():
    """Seeds are int64 and may be negative; as Python, np.uint64(-1) raises, so the mixers
    must wrap the way the compiled code does."""
    from meldmind.kernels.ai_cardverse import _seed_of
    from meldmind.kernels.ai_gin import mix
    from meldmind.kernels.rng import seed_slot
    seeds = [-1, -2 ** 63, 0, 7, 2 ** 63 - 1]

    def values():
        state = np.zeros(1, dtype=np.int64)
        out = []
        for s in seeds:
            seed_slot(state, 0, np.int64(s))
            out += [int(state[0]), int(mix(np.int64(s), np.int64(3))),
                    int(_seed_of(np.int64(s), np.int64(-2), np.int64(5)))]
        return out
    code = ("import numpy as np, warnings; warnings.simplefilter('ignore');"
            "from meldmind.kernels.ai_cardverse import _seed_of;"
            "from meldmind.kernels.ai_gin import mix; from meldmind.kernels.rng import seed_slot;"
            f"seeds = {seeds}; state = np.zeros(1, dtype=np.int64); out = []\n"
            "for s in seeds:\n"
            "    seed_slot(state, 0, s)\n"
            "    out += [int(state[0]), int(mix(s, 3)), int(_seed_of(s, -2, 5))]\n"
            "print(*out)")
    out = printed_without_jit(code)
    assert [int(v) for v in out] == values()
