"""Hand-analysis throughput. The references, measured in the same run, are OpenSpiel's C++
``GinRummyUtils.min_deadwood`` and RLCard's Python ``get_best_meld_clusters`` on the same
10-card gin hands (both need the ``bench`` extra).

Per-hand figures: divide a batch benchmark's time by BATCH."""
import random

import numpy as np
import pytest

from meldmind import analyze_batch, analyze_hand, encode_hands
from meldmind.kernels import handalg
from oracle import random_hand

BATCH = 100_000
REFERENCE_HANDS = 10_000


def _gin_hands(n, size=10, seed=0):
    rng = np.random.default_rng(seed)
    ids = np.argsort(rng.random((n, 52)), axis=1)[:, :size].astype(np.uint64)
    return np.bitwise_or.reduce(np.uint64(1) << ids, axis=1)


def _hands(variant, n, seed=0, **kwargs):
    rng = random.Random(seed)
    return [random_hand(variant, rng=rng, **kwargs) for _ in range(n)]


@pytest.fixture(scope="module")
def gin10():
    return _gin_hands(BATCH)


@pytest.mark.benchmark(group="batch-100k")
def test_batch_gin_10(benchmark, gin10):
    benchmark(analyze_batch, "gin", gin10)


@pytest.mark.benchmark(group="batch-100k")
def test_batch_gin_11(benchmark):
    benchmark(analyze_batch, "gin", _gin_hands(BATCH, 11))


@pytest.mark.benchmark(group="batch-100k")
def test_batch_cardverse_7(benchmark):
    benchmark(analyze_batch, "cardverse", _gin_hands(BATCH, 7))


@pytest.mark.benchmark(group="batch-100k")
def test_batch_rami_14_jokers(benchmark):
    hands = np.tile(encode_hands("rami", _hands("rami", 5_000, size=14, jokers=2)), 20)
    benchmark(analyze_batch, "rami", hands)


@pytest.mark.benchmark(group="batch-100k")
def test_batch_kirolo_12_jokers(benchmark):
    hands = np.tile(encode_hands("kirolo", _hands("kirolo", 5_000, size=12, jokers=2)), (20, 1))
    benchmark(analyze_batch, "kirolo", hands)


@pytest.mark.benchmark(group="batch-100k")
def test_reference_openspiel_min_deadwood_gin_10(benchmark, gin10):
    """OpenSpiel's C++ exact 10-card deadwood, called per hand from Python (10,000 hands;
    scale by 10 to compare with the 100,000-hand rows)."""
    pyspiel = pytest.importorskip("pyspiel", reason="install the bench extra for the reference")
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    to_openspiel = [(("CDHS".index("CDHS"[b // 13]) + 1) % 4) * 13 + b % 13 for b in range(52)]
    hands = [[to_openspiel[b] for b in range(52) if int(h) >> b & 1] for h in gin10[:REFERENCE_HANDS]]
    expected = analyze_batch("gin", gin10[:REFERENCE_HANDS]).deadwood_points.tolist()
    assert [utils.min_deadwood(h) for h in hands[:1000]] == expected[:1000]

    def run():
        for h in hands:
            utils.min_deadwood(h)
    benchmark(run)


@pytest.mark.benchmark(group="batch-100k")
def test_reference_rlcard_min_deadwood_gin_10(benchmark, gin10):
    """RLCard's gin deadwood: its best meld clusters, then the cards they leave (10,000 hands;
    scale by 10 to compare with the 100,000-hand rows)."""
    pytest.importorskip("rlcard", reason="install the bench extra for the reference")
    from rlcard.games.gin_rummy.utils import melding, utils
    to_rlcard = ["SHDC".index("CDHS"[b // 13]) * 13 + b % 13 for b in range(52)]
    hands = [[utils.get_card(to_rlcard[b]) for b in range(52) if int(h) >> b & 1]
             for h in gin10[:REFERENCE_HANDS]]

    def deadwood(hand):
        clusters = melding.get_best_meld_clusters(hand)
        return utils.get_deadwood_count(hand, clusters[0] if clusters else [])

    expected = analyze_batch("gin", gin10[:REFERENCE_HANDS]).deadwood_points.tolist()
    assert [deadwood(h) for h in hands[:1000]] == expected[:1000]

    def run():
        for h in hands:
            deadwood(h)
    benchmark(run)


# rounds of >= 0.5 ms: at pytest-benchmark's default a round is one call, timed with its two clock
# reads (~90 ns here), which outweigh a kernel call
SINGLE_CALL = pytest.mark.benchmark(group="single-call", min_time=0.0005)


@SINGLE_CALL
def test_single_kernel_call_gin(benchmark):
    hand = int(_gin_hands(1)[0])
    benchmark(handalg.deadwood, 0, hand, False)


@SINGLE_CALL
def test_single_kernel_call_kirolo(benchmark):
    a1, a2, jokers = (int(x) for x in encode_hands("kirolo", _hands("kirolo", 1, size=12, jokers=2))[0])
    benchmark(handalg.kirolo_unmelded, a1, a2, jokers, 1)


@SINGLE_CALL
def test_single_analyze_hand_api(benchmark):
    benchmark(analyze_hand, "gin", "AS 2S 3S 7C 7D 7H KD 9C 4H 5H")
