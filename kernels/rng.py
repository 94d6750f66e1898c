"""Explicit-state random numbers for the numba kernels (RULES.md E1).

The generator is splitmix64; its 64-bit state lives in a slot of the caller's int64 state
array, so a state copy carries its own stream and a seed reproduces a game exactly.
"""
import numpy as np
from .jit import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)   # 2**64 / the golden ratio: splitmix64's increment
PLASTIC = np.uint64(0xD1B54A32D192ED03)  # 2**64 / the plastic number: an odd multiplier unlike it
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def mix64(z):
    """splitmix64's output function: a bijective scramble of one uint64."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def as_u64(x):
    """The 64 bits of int64 ``x`` as unsigned. Compiled, ``np.uint64(x)`` wraps already; as
    Python (NUMBA_DISABLE_JIT=1) it refuses a negative int, which ``np.int64`` first makes wrap."""
    return np.uint64(np.int64(x))


@njit(cache=True, inline="always")
def next_u64(state, slot):
    """Advance the generator stored at ``state[slot]`` and return 64 random bits."""
    s = np.uint64(state[slot]) + GOLDEN
    state[slot] = np.int64(s)
    return mix64(s)


@njit(cache=True, inline="always")
def below(state, slot, n):
    """A uniform integer in [0, n) (Lemire's multiply-shift; n < 2**32)."""
    return np.int64((next_u64(state, slot) >> np.uint64(32)) * np.uint64(n) >> np.uint64(32))


@njit(cache=True, inline="always")
def unit(state, slot):
    """A uniform float in [0, 1), from the top 53 random bits."""
    return (next_u64(state, slot) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def shuffle(state, slot, items, count):
    """Fisher-Yates shuffle of ``items[:count]`` in place."""
    for i in range(count - 1, 0, -1):
        j = below(state, slot, i + 1)
        items[i], items[j] = items[j], items[i]


@njit(cache=True)
def seed_slot(state, slot, seed):
    """Start the stream at ``state[slot]`` from a user seed (any int64)."""
    state[slot] = np.int64(mix64(as_u64(seed) ^ GOLDEN))


@njit(cache=True)
def uniform_by_category(items, category, n, num_categories, state, slot):
    """A uniform category among those of ``items[:n]`` (``category[i]`` is item i's), then a
    uniform item of that category: two draws from ``state[slot]``."""
    counts = np.zeros(num_categories, dtype=np.int64)
    for i in range(n):
        counts[category[i]] += 1
    present = 0
    for c in range(num_categories):
        if counts[c]:
            present += 1
    k = below(state, slot, present)
    chosen = 0
    for c in range(num_categories):
        if counts[c]:
            if k == 0:
                chosen = c
                break
            k -= 1
    j = below(state, slot, counts[chosen])
    for i in range(n):
        if category[i] == chosen:
            if j == 0:
                return items[i]
            j -= 1
    return items[0]
