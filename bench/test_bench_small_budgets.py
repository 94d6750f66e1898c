"""The search levels on small budgets against normal, the README's "small budget" rows.

Below expert's default number of determinizations the search's estimates are noisy, and pick's
credit to the heuristic of its playouts grows as the budget shrinks (``ai_gin.pick``,
``ai_cardverse.pick``), so that a small budget plays about as well as normal, not worse. Each row
is ``meldmind.arena(variant, level, "normal", deals=PAIRS, iterations=N, seed=3)``: mirrored deal
pairs, decided games only, CardVerse in full games. ``MELDMIND_STRENGTH_PAIRS`` sets the pairs
(default 4, a smoke run; the README's rows use 2,000 for gin, 200 and 150 for CardVerse). From
100 pairs up each row asserts that the level is not measurably weaker than normal: the upper
bound of its 95 % interval is above 50 %.

    MELDMIND_STRENGTH_PAIRS=2000 NUMBA_NUM_THREADS=1 pytest bench/test_bench_small_budgets.py -k gin -s
"""
import os
import time

import pytest

import meldmind

PAIRS = int(os.environ.get("MELDMIND_STRENGTH_PAIRS", "4"))
ASSERT_FROM = 100
ROWS = [("gin", "expert", 8), ("gin", "expert", 16), ("gin", "expert", 32), ("gin", "expert", 64),
        ("gin", "master", 8), ("gin", "master", 32), ("cardverse", "expert", 40),
        ("cardverse", "expert", 100), ("cardverse", "master", 40), ("cardverse", "master", 100)]


@pytest.mark.benchmark(group="small-budgets")
@pytest.mark.parametrize("variant, level, iterations", ROWS,
                         ids=[f"{v}-{level}-{n}" for v, level, n in ROWS])
def test_small_budget_against_normal(benchmark, variant, level, iterations):
    result = {}

    def run():
        started = time.perf_counter()
        result["arena"] = meldmind.arena(variant, level, "normal", deals=PAIRS,
                                         iterations=iterations, seed=3, processes=1,
                                         progress=False)
        result["seconds"] = time.perf_counter() - started

    benchmark.pedantic(run, rounds=1, iterations=1)
    arena = result["arena"]
    low, high = arena.ci95
    benchmark.extra_info.update(win_rate=arena.win_rate, low=low, high=high, games=arena.games)
    print(f"\n{variant} {level}({iterations}) vs normal: {arena.win_rate:.3f} [{low:.3f}, "
          f"{high:.3f}] over {arena.games - arena.draws} decided games ({PAIRS} deal pairs, "
          f"{result['seconds']:.0f} s)")
    assert arena.games == 2 * PAIRS
    if PAIRS >= ASSERT_FROM:
        assert high > 0.5, (variant, level, iterations, arena.win_rate, arena.ci95)
