"""The kernels against the independent brute-force oracle (tests/oracle.py), on seeded random
hands: 20,000 per variant through the batch kernels, and a share through analyze_hand, whose
partition is also checked meld by meld."""
import random
from collections import Counter

import numpy as np
import pytest

from meldmind import analyze_batch, analyze_hand, encode_hands
from oracle import (oracle_analyze, oracle_meld_ok, oracle_rami_opening, random_dense_kirolo_hand,
                    random_hand)

HANDS_PER_VARIANT = 20_000
SINGLE_CALL_SHARE = 10  # one hand in ten also goes through analyze_hand


def _hands(variant, rng):
    """(hand, options) pairs covering the sizes the foundation issue names."""
    for i in range(HANDS_PER_VARIANT):
        if variant == "gin":
            yield random_hand("gin", 10 + i % 2, rng), {}
        elif variant == "cardverse":
            yield random_hand("cardverse", (7, 8, 10, 11)[i % 4], rng), {"ace_high": i % 8 >= 4}
        elif variant == "rami":
            yield random_hand("rami", 8 + i % 7, rng, jokers=i % 3), {}
        else:
            size, jokers = 10 + i % 4, (i // 4) % 3
            dense = i % 2 == 0
            hand = (random_dense_kirolo_hand(size, rng, jokers) if dense
                    else random_hand("kirolo", size, rng, jokers=jokers))
            yield hand, {"max_jokers_per_series": 2 if i % 10 == 0 else 1}


def _oracle_kwargs(options):
    return {k: v for k, v in options.items() if k in ("ace_high", "max_jokers_per_series")}


def _check_partition(variant, hand, options, analysis):
    """Disjoint, covering, every meld valid by the oracle's own rules."""
    used = [c for m in analysis.melds for c in m.cards] + list(analysis.deadwood)
    meldable = [c for c in hand if c not in ("EXCHANGE", "SEARCH")]
    assert Counter(used) == Counter(meldable)
    for meld in analysis.melds:
        assert oracle_meld_ok(variant, list(meld.cards),
                              max_jokers_per_series=options.get("max_jokers_per_series", 1)), meld


@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami", "kirolo"])
def test_kernels_agree_with_oracle(variant):
    rng = random.Random(f"crosscheck-{variant}")
    by_options = {}
    expected = {}
    for i, (hand, options) in enumerate(_hands(variant, rng)):
        key = tuple(sorted(options.items()))
        by_options.setdefault(key, []).append(hand)
        expected.setdefault(key, []).append(
            (oracle_analyze(variant, hand, **_oracle_kwargs(options)),
             oracle_rami_opening(hand) if variant == "rami" else None))
        if i % SINGLE_CALL_SHARE == 0:
            single = analyze_hand(variant, hand, options=options)
            got = ((single.deadwood_count, single.deadwood_points) if variant == "kirolo"
                   else (single.deadwood_points, single.deadwood_count))
            assert got == expected[key][-1][0], hand
            if variant == "rami":
                assert single.opening_points == expected[key][-1][1], hand
            _check_partition(variant, hand, options, single)
    checked = 0
    for key, hands in by_options.items():
        batch = analyze_batch(variant, encode_hands(variant, hands), options=dict(key))
        oracle = np.array([e[0] for e in expected[key]])
        if variant == "kirolo":
            got = np.stack([batch.deadwood_count, batch.deadwood_points], axis=1)
        else:
            got = np.stack([batch.deadwood_points, batch.deadwood_count], axis=1)
        mismatches = np.flatnonzero((got != oracle).any(axis=1))
        assert mismatches.size == 0, [hands[i] for i in mismatches[:5]]
        if variant == "rami":
            assert batch.opening_points.tolist() == [e[1] for e in expected[key]]
        checked += len(hands)
    assert checked == HANDS_PER_VARIANT
