"""numba kernels call the Cython hand algebra by symbol, and stay cacheable."""
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
from numba import njit

from meldmind import analyze_hand, encode_hands
from meldmind.kernels import bridge
from oracle import random_hand
from test_bits import printed_without_jit


@njit
def _deadwood_all(variant, hands):
    out = np.empty(hands.shape[0], np.int64)
    for i in range(hands.shape[0]):
        out[i] = bridge.deadwood(variant, hands[i], 0) >> 8
    return out


@njit
def _kirolo_all(hands, max_jokers):
    out = np.empty(hands.shape[0], np.int64)
    for i in range(hands.shape[0]):
        out[i] = bridge.kirolo_unmelded(hands[i, 0], hands[i, 1], hands[i, 2], max_jokers)
    return out


def test_njit_best_partition_equals_analyze_hand():
    rng = random.Random(7)
    for variant, kernel_id in (("gin", 0), ("cardverse", 1), ("rami", 2)):
        hands = [random_hand(variant, 10, rng, jokers=1 if variant == "rami" else 0) for _ in range(300)]
        got = _deadwood_all(kernel_id, encode_hands(variant, hands))
        assert got.tolist() == [analyze_hand(variant, h).deadwood_points for h in hands]
    hands = [random_hand("kirolo", 12, rng, jokers=2) for _ in range(300)]
    got = _kirolo_all(encode_hands("kirolo", hands), 1)
    expected = [analyze_hand("kirolo", h) for h in hands]
    assert (got >> 12).tolist() == [a.deadwood_count for a in expected]
    assert (got & 4095).tolist() == [a.deadwood_points for a in expected]


def test_njit_rami_opening_and_layoff():
    opening = njit(lambda hand: bridge.rami_opening(hand))
    hand = encode_hands("rami", ["QH KH AH 5S 6S JK1"])[0]
    assert opening(hand) == analyze_hand("rami", "QH KH AH 5S 6S JK1").opening_points == 31 + 18
    layoff = njit(lambda v, kind, meld, hand: bridge.layoff_cards(v, kind, meld, 0, 0, hand, 1, 1))
    run_5_6_7_hearts = int(encode_hands("gin", ["5H 6H 7H"])[0])
    assert layoff(0, 1, run_5_6_7_hearts, int(encode_hands("gin", ["8H 9H"])[0])) == 1 << (2 * 13 + 7)


_CACHED_SCRIPT = textwrap.dedent('''
    import warnings, sys
    warnings.simplefilter("always")
    import numpy as np
    from numba import njit
    from meldmind.kernels import bridge

    @njit(cache=True)
    def gin_deadwood(hand):
        return bridge.deadwood(0, hand, 0) >> 8

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = gin_deadwood(np.uint64((7 << 39) | (1 << 4)))
    problems = [str(w.message) for w in caught if "cache" in str(w.message).lower()]
    print(value, len(gin_deadwood.stats.cache_hits), problems)
''')


def test_kernel_loads_from_numba_cache_in_a_new_process(tmp_path):
    script = tmp_path / "cached_kernel.py"
    script.write_text(_CACHED_SCRIPT)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                           check=True).stdout.split(maxsplit=2) for _ in range(2)]
    assert runs[0] == ["5", "0", "[]\n"]          # compiled, then written to the cache
    assert runs[1] == ["5", "1", "[]\n"]          # loaded from the cache, no warning


def test_disable_jit_runs_the_kernels_as_python():
    code = ("from meldmind.kernels import bridge; import numba;"
            "print(numba.config.DISABLE_JIT, bridge.deadwood(0, (7 << 39) | (1 << 4), 0) >> 8)")
    out = printed_without_jit(code)
    assert out == ["1", "5"]


def test_leftover_is_the_deadwood_of_the_best_partition():
    leftover = njit(lambda variant, hand: bridge.leftover(variant, hand, 0))
    rng = random.Random(3)
    for variant, kernel_id in (("gin", 0), ("cardverse", 1)):
        for _ in range(200):
            hand = random_hand(variant, 10, rng)
            mask = leftover(kernel_id, int(encode_hands(variant, [hand])[0]))
            expected = analyze_hand(variant, hand)
            assert sorted(meldmind_cards(variant, mask)) == sorted(expected.deadwood)


def meldmind_cards(variant, mask):
    from meldmind.cards import mask_cards
    return mask_cards(variant, mask)
