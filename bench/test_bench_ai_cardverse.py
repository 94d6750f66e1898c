"""CardVerse AI levels: strength ladder and decision timings.

Strength (RULES.md §6): every deal is played twice with the seats swapped (mirrored pairs), two
players, default options, decided games only, 95% Wilson interval of the stronger level's win
rate. Every pair plays **full games** (to 100, what the arena measures), except two rows that
play the **first hand** of a game (``play_hand``; the winner is the hand winner): master vs
expert, beside its full games (``master>expert-games``: about 8 s a game per core at master's
budget), and expert vs normal. The number of deal pairs comes from
``MELDMIND_STRENGTH_PAIRS`` (default 4, a smoke run; the reported table uses 1,000). pytest's
``-k`` does not take ``>``: one row is run by its node id,
``"bench/test_bench_ai_cardverse.py::test_strength_ladder[master>expert-games]"``.
Iterations per search decision: ``MELDMIND_STRENGTH_EXPERT`` / ``MELDMIND_STRENGTH_MASTER``
(default: the levels' default budgets). Each test prints the win rate with its interval and
its wins and decided games, and asserts the ladder (lower bound > 50%; expert vs normal >= 60%,
master vs expert >= 55%) only from 100 pairs on. ``MELDMIND_STRENGTH_FIRST_PAIR=F`` starts at
pair ``F``: runs of pairs 0-199 and 200-599 play the same games as one run of 600 pairs, so a
long row can be measured in parts and its counts added. With ``-s`` a progress bar moves every
25 pairs.

At three and four seats (``test_strength_ladder_at_more_seats``) each level plays the one below
it in the arena, every deal once for every split of the seats (6 games a deal at three seats,
14 at four), on ``MELDMIND_STRENGTH_PAIRS`` deals of seed 1; the lower bound is asserted from
100 deals on. The README's rows: 3,000 and 2,000 deals for normal vs easy.

Timings (pytest-benchmark, one thread): a master and an expert decision at the default budget
on a mid-hand position, and playouts per second (determinizations x moves / time).
"""
import os

import numpy as np
import pytest

from meldmind.games import cardverse as CV
from meldmind.tournament import arena, progress_bar, wilson_interval
from meldmind.kernels import ai_cardverse as AI
from meldmind.kernels import cardverse as K
from meldmind.kernels.levels import BEGINNER, EASY, EXPERT, MASTER, NAMES, NORMAL

PAIRS = int(os.environ.get("MELDMIND_STRENGTH_PAIRS", "4"))
FIRST_PAIR = int(os.environ.get("MELDMIND_STRENGTH_FIRST_PAIR", "0"))
ITERATIONS = {
    EXPERT: int(os.environ.get("MELDMIND_STRENGTH_EXPERT", AI.default_iterations(EXPERT))),
    MASTER: int(os.environ.get("MELDMIND_STRENGTH_MASTER", AI.default_iterations(MASTER))),
}
ASSERT_FROM = 100
PART_PAIRS = 25         # deal pairs between two moves of the progress bar


def mirrored(low, high, pairs, full_games, seed0=1_000):
    params = CV.make_params({})
    first = seed0 + FIRST_PAIR
    seeds = np.repeat(np.arange(first, first + pairs, dtype=np.int64), 2)
    levels = np.empty((2 * pairs, 2), np.int64)
    its = np.empty((2 * pairs, 2), np.int64)
    levels[0::2] = (high, low)
    levels[1::2] = (low, high)
    i_low, i_high = ITERATIONS.get(low, 0), ITERATIONS.get(high, 0)
    its[0::2] = (i_high, i_low)
    its[1::2] = (i_low, i_high)
    out = np.zeros((2 * pairs, 4))
    # in parts, for the progress bar: game i's seed comes from its number, so the parts play
    # the games of one call
    bar = progress_bar(pairs, f"{NAMES[high]} vs {NAMES[low]}", unit="pair")
    try:
        for start in range(0, 2 * pairs, 2 * PART_PAIRS):
            part = slice(start, min(start + 2 * PART_PAIRS, 2 * pairs))
            AI.play_games(params, seeds[part], levels[part], its[part], 99, not full_games,
                          out[part], 2 * FIRST_PAIR + start)
            bar.update((part.stop - part.start) // 2)
    finally:
        bar.close()
    high_result = np.concatenate([out[0::2, 0], out[1::2, 1]])
    wins = int((high_result > 0).sum())
    decided = wins + int((high_result < 0).sum())
    lo, hi = wilson_interval(wins, decided)
    p = wins / decided if decided else 0.0
    what = "games" if full_games else "first hands"
    print(f"\n{NAMES[high]}({i_high}) vs {NAMES[low]}({i_low}): {p:.3f} "
          f"[{lo:.3f}, {hi:.3f}], {wins} won of {decided} decided {what} "
          f"(deal pairs {FIRST_PAIR} to {FIRST_PAIR + pairs - 1})"
          + ("" if full_games else f", {high_result.mean():+.2f} points per hand"))
    return p, lo, decided


# the last row: expert vs normal on first hands only, the search's edge in one hand without the
# compounding of a game to 100 points (only the ladder's lower bound is asserted)
@pytest.mark.parametrize("low, high, minimum, full_games", [
    (BEGINNER, EASY, 0.5, True), (EASY, NORMAL, 0.5, True),
    (NORMAL, EXPERT, 0.6, True), (EXPERT, MASTER, 0.55, False), (EXPERT, MASTER, 0.55, True),
    (NORMAL, EXPERT, 0.5, False)],
    ids=["easy>beginner", "normal>easy", "expert>normal", "master>expert-first-hands",
         "master>expert-games", "expert>normal-first-hands"])
def test_strength_ladder(low, high, minimum, full_games):
    p, lo, decided = mirrored(low, high, PAIRS, full_games)
    assert decided > 0
    if PAIRS >= ASSERT_FROM:
        assert lo > 0.5 and p >= minimum


@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("low, high", [("beginner", "easy"), ("easy", "normal"),
                                       ("normal", "expert")],
                         ids=["easy>beginner", "normal>easy", "expert>normal"])
def test_strength_ladder_at_more_seats(low, high, seats):
    result = arena("cardverse", high, low, deals=PAIRS, seed=1, processes=1, progress=False,
                   options={"num_players": seats})
    assert result.games == PAIRS * (2 ** seats - 2) and result.draws == 0
    low_ci, high_ci = result.ci95
    print(f"\n{high} vs {low}, {seats} seats: {result.win_rate:.3f} [{low_ci:.3f}, "
          f"{high_ci:.3f}] over {result.games} games ({PAIRS} deals)")
    if PAIRS >= ASSERT_FROM:
        assert low_ci > 0.5


# ---------------------------------------------------------------------------------------------
# Timings
# ---------------------------------------------------------------------------------------------

def mid_hand_position():
    """A PLAY decision a few turns into a hand (normal vs normal), with several legal moves."""
    st = K.new_state(CV.make_params({}), 77)
    step = 0
    while True:
        K.apply_action(st, AI.decide(st, NORMAL, 0, step))
        step += 1
        buf = np.empty(K.NUM_ACTIONS, np.int64)
        if step >= 8 and st[K.S_PHASE] == K.PHASE_PLAY and K.legal_actions(st, buf) >= 7:
            break
    ob = np.empty(K.OBS_SIZE, np.int64)
    K.observe(st, K.current_player(st), ob)
    return ob


@pytest.mark.benchmark(group="cardverse-ai-decision")
@pytest.mark.parametrize("level", (EXPERT, MASTER))
def test_decision_time_default_budget(benchmark, one_thread, level):
    """One early PLAY decision with many moves: a hard case (long playouts)."""
    ob = mid_hand_position()
    its = AI.default_iterations(level)
    AI.choose(ob, level, 2, 1, True)        # compile or load from cache
    move = benchmark(AI.choose, ob, level, its, 3, True)
    assert move >= 0


def master_positions(hands=6):
    """Every master decision of the first hands of master-vs-expert games (cheap budgets)."""
    params = CV.make_params({})
    out = []
    for g in range(hands):
        st = K.new_state(params, 300 + g)
        levels = (MASTER, EXPERT) if g % 2 == 0 else (EXPERT, MASTER)
        step = 0
        while st[K.S_HAND_NO] == 1 and not K.is_terminal(st):
            p = K.current_player(st)
            if levels[p] == MASTER:
                ob = np.empty(K.OBS_SIZE, np.int64)
                K.observe(st, p, ob)
                out.append(ob)
            K.apply_action(st, AI.decide(st, levels[p], 50, step))
            step += 1
    return out


@pytest.mark.benchmark(group="cardverse-ai-decision")
@pytest.mark.parametrize("level", (EXPERT, MASTER))
def test_decision_time_over_real_decisions(benchmark, one_thread, level):
    """Every decision the master faces in a few first hands, at the level's default budget:
    the per-decision median and 90th percentile are printed and stored in extra_info (the
    benchmark's own time is the whole set)."""
    import time
    positions = master_positions()
    its = AI.default_iterations(level)
    AI.choose(positions[0], level, 2, 1, True)
    times = []
    for ob in positions:
        t = time.perf_counter()
        AI.choose(ob, level, its, 5, True)
        times.append(time.perf_counter() - t)
    ms = np.array(times) * 1e3
    benchmark.extra_info.update(decisions=len(ms), median_ms=float(np.median(ms)),
                                p90_ms=float(np.percentile(ms, 90)))
    print(f"\n{NAMES[level]}({its}) over {len(ms)} decisions: median {np.median(ms):.1f} ms, "
          f"mean {ms.mean():.1f} ms, p90 {np.percentile(ms, 90):.1f} ms")
    benchmark.pedantic(lambda: [AI.choose(ob, level, its, 5, True) for ob in positions[:20]],
                       rounds=1, iterations=1)


@pytest.mark.benchmark(group="cardverse-ai-playouts")
def test_playouts_per_second(benchmark, one_thread):
    """Playouts of the master's search (each: one move applied, then the hand played out, the
    observing seat by ``_holder`` and the others by the normal heuristic). Playouts/s = DETS x
    moves / the benchmark's time."""
    ob = mid_hand_position()
    dets = 200
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    moves = K.legal_actions(K.determinize(ob, 0), buf)
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    AI.search(ob, MASTER, 1, 0, 2, values, visits)
    benchmark(AI.search, ob, MASTER, 1, 0, dets, values, visits)
    benchmark.extra_info["playouts"] = dets * moves
    if benchmark.stats:
        print(f"\n{dets * moves / benchmark.stats.stats.median:,.0f} playouts/s "
              f"({dets} determinizations x {moves} moves)")
