"""Gin Rummy AI levels: decision latency, playout throughput and the strength ladder.

Timings (pytest-benchmark):

* ``test_decision[all-master]`` and ``[all-expert]``: one decision at the level's default
  budget on ONE thread, cycling through 300 decisions (n > 1) of 30 recorded games, in order
  (917 in all), so the median is the median decision; discard decisions alone (300 of 385) are
  in ``test_decision[discards-...]``.
* ``test_flat_discard_512``: the reference workload, a flat Monte Carlo discard decision over
  512 determinizations with greedy (easy) playouts, every legal move played out once per
  determinization (11 discards here: 5,632 playouts), on 2 threads (a Rust engine reports
  25.7 ms single-threaded).
* ``test_playouts_per_second``: serial expert search on the same position; playouts per second
  in ``extra_info``.

Strength (``test_strength[...]``): mirrored pairs (every deal played twice, seats swapped) through
``play_mirrored``; decided games only; 95 % Wilson interval in ``extra_info`` and printed.
``MELDMIND_STRENGTH_PAIRS`` deal pairs (default 4, a smoke run); search budgets
``MELDMIND_STRENGTH_ITERATIONS="expert,master"`` (default: ``default_iterations``). From 300
pairs up the test asserts RULES.md §6: the lower bound of the interval is above 50 %.

What information is worth (docs/gin-strength.md): ``test_peeking_search[f]`` plays expert
against normal on the same mirrored deals with a fraction ``f`` of the opponent's hidden cards
revealed to the search at every decision, and ``test_knock_oracle`` lets it knock only when the
true state says the knock wins; ``test_opponent_hand_inference[level]`` measures how
much of the hidden hand the search's own samples get right (``MELDMIND_STRENGTH_PAIRS / 5``
games, at least 20); ``test_outcomes_expert_vs_normal`` counts who knocks and how the knocks end;
``test_matches_to_100`` plays the close matches of the ladder as matches to 100 points.
"""
import os
import time

import numba
import numpy as np
import pytest

from meldmind.games import gin
from meldmind.tournament import wilson_interval
from meldmind.kernels import ai_gin as A
from meldmind.kernels import levels as L
from meldmind.kernels.bits import popcount
from meldmind.kernels.rng import seed_slot, unit

K = gin.KERNEL
PARAMS = gin.make_params({})
PAIRS = int(os.environ.get("MELDMIND_STRENGTH_PAIRS", "4"))
ASSERT_FROM = 300


def _budgets():
    text = os.environ.get("MELDMIND_STRENGTH_ITERATIONS")
    if not text:
        return int(A.default_iterations(L.EXPERT)), int(A.default_iterations(L.MASTER))
    expert, master = (int(x) for x in text.split(","))
    return expert, master


def _decisions(games=30, seed=300):
    """(obs, legal) of every decision with a choice in ``games`` normal-vs-normal games."""
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    obs = np.empty(K.OBS_SIZE, np.int64)
    rng = np.zeros(1, np.int64)
    found = []
    for g in range(games):
        state = K.new_state(PARAMS, np.int64(seed + g))
        while not K.is_terminal(state):
            K.observe(state, K.current_player(state), obs)
            n = K.legal_from_obs(obs, buf)
            if n > 1:
                found.append((obs.copy(), buf[:n].copy()))
            K.apply_action(state, A.policy(obs, buf, n, L.NORMAL, rng))
    return found


def _discard_position():
    """A mid-game discard decision without a legal knock (11 legal discards): the first one
    with at most 26 stock cards in fixed normal-vs-normal games."""
    for obs, legal in _decisions(games=10, seed=11):
        if obs[K.O_PHASE] == K.PH_DISCARD and K.KNOCK not in legal and obs[K.O_STOCK_SIZE] <= 26:
            return obs, legal
    raise AssertionError("no discard position")


@pytest.fixture(scope="module")
def decisions():
    return _decisions()


def _decision_bench(benchmark, items, level):
    it = int(A.default_iterations(level))
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    A.search(items[0][0], level, np.int64(1), 0, 2, values, visits)      # compile / load
    cursor = [0]

    def decide():
        obs, legal = items[cursor[0] % len(items)]
        cursor[0] += 1
        values[:] = 0
        visits[:] = 0
        A.search(obs, level, np.int64(cursor[0]), 0, it, values, visits)
        return A.pick(obs, values, visits, legal, len(legal), level, np.int64(cursor[0]))

    benchmark.pedantic(decide, rounds=min(len(items), 300), iterations=1, warmup_rounds=1)
    benchmark.extra_info["iterations"] = it
    benchmark.extra_info["threads"] = numba.get_num_threads()


@pytest.mark.benchmark(group="gin-ai-decision")
@pytest.mark.parametrize("level", [L.MASTER, L.EXPERT], ids=["master", "expert"])
@pytest.mark.parametrize("discards_only", [False, True], ids=["all", "discards"])
def test_decision(benchmark, decisions, one_thread, level, discards_only):
    items = [d for d in decisions if not discards_only or d[0][K.O_PHASE] == K.PH_DISCARD]
    _decision_bench(benchmark, items, level)


@pytest.mark.benchmark(group="gin-ai-flat")
def test_flat_discard_512(benchmark, two_threads):
    obs, legal = _discard_position()
    A.flat_discard_benchmark(obs, 8, np.int64(0))
    action = benchmark(A.flat_discard_benchmark, obs, 512, np.int64(1))
    assert action in legal
    benchmark.extra_info["playouts"] = 512 * len(legal)
    benchmark.extra_info["threads"] = numba.get_num_threads()


@pytest.mark.benchmark(group="gin-ai-flat")
def test_playouts_per_second(benchmark):
    obs, legal = _discard_position()
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    A.search_serial(obs, L.EXPERT, np.int64(0), 0, 2, values, visits)

    def run():
        values[:] = 0
        visits[:] = 0
        A.search_serial(obs, L.EXPERT, np.int64(2), 0, 256, values, visits)
        return int(visits.sum())

    playouts = benchmark(run)
    assert playouts == 256 * len(legal)
    if benchmark.stats is not None:
        benchmark.extra_info["playouts_per_s"] = playouts / benchmark.stats.stats.median


# ---- strength ------------------------------------------------------------------------------------
def _rate(wins, losses):
    """Win rate over decided games and its 95 % Wilson interval."""
    low, high = wilson_interval(wins, wins + losses)
    return wins / max(wins + losses, 1), low, high


def mirrored(level_a, level_b, pairs, seed):
    """Level A's win rate against level B over ``pairs`` mirrored deal pairs."""
    expert, master = _budgets()
    budget = {L.EXPERT: expert, L.MASTER: master}
    deals = np.arange(pairs, dtype=np.int64) * 7919 + seed * 1_000_003
    out = np.zeros((pairs, 2))
    A.play_mirrored(PARAMS, deals, level_a, level_b, budget.get(level_a, 0), budget.get(level_b, 0),
                    np.int64(seed), out)
    wins = int((out > 0).sum())
    losses = int((out < 0).sum())
    rate, low, high = _rate(wins, losses)
    return {"pairs": pairs, "wins": wins, "losses": losses, "draws": int(out.size - wins - losses),
            "rate": rate, "low": low, "high": high, "mean_points": float(out.mean()),
            "iterations": [budget.get(level_a, 0), budget.get(level_b, 0)]}


@pytest.mark.benchmark(group="gin-ai-strength")
@pytest.mark.parametrize("upper,lower", [(L.EASY, L.BEGINNER), (L.NORMAL, L.EASY),
                                         (L.EXPERT, L.NORMAL), (L.MASTER, L.EXPERT)],
                         ids=["easy>beginner", "normal>easy", "expert>normal", "master>expert"])
def test_strength(benchmark, upper, lower):
    result = {}

    def run():
        started = time.perf_counter()
        result.update(mirrored(upper, lower, PAIRS, seed=upper * 10 + lower))
        result["seconds"] = time.perf_counter() - started

    benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(result)
    print(f"\n{L.NAMES[upper]} vs {L.NAMES[lower]}: {result}")
    assert result["wins"] + result["losses"] + result["draws"] == 2 * PAIRS
    if PAIRS >= ASSERT_FROM:
        assert result["low"] > 0.5, result


# ---- the value of information: a search that peeks ----------------------------------------------
@numba.njit
def _peeking_game(deal_seed, peeker, iterations, revealed, knock_oracle, ai_seed):
    """One game: seat ``peeker`` plays expert's search on an observation that marks a part of
    the opponent's hidden hand as known (at each decision every hidden card with probability
    ``revealed``; at 1 the whole hand, so every determinization holds the true hand and only
    the stock is sampled), the other seat plays normal. With ``knock_oracle`` the peeker knocks
    exactly when the true state says the knock wins (its end phases played as in a playout);
    otherwise it plays its search's best other move. Returns the peeker's return."""
    state = K.new_state(PARAMS, deal_seed)
    obs = np.empty(K.OBS_SIZE, dtype=np.int64)
    legal = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    rng = np.zeros(1, dtype=np.int64)
    reveal_rng = np.zeros(1, dtype=np.int64)
    cache = np.empty(6, dtype=np.int64)
    melds = np.empty(A.MAX_LOWEST_CARD_MELDS, dtype=np.int64)
    seed_slot(reveal_rng, 0, A.mix(ai_seed, 0x9EE))
    moves = 0
    while state[K.S_PHASE] != K.PH_GAME_OVER:
        p = state[K.S_CURRENT]
        K.observe(state, p, obs)
        n = K.legal_from_obs(obs, legal)
        level = L.NORMAL
        if p == peeker:
            hidden = state[K.S_HAND + 1 - p] & ~obs[K.O_KNOWN + 1 - p]
            while hidden:
                low = hidden & -hidden
                if unit(reveal_rng, 0) < revealed:
                    obs[K.O_KNOWN + 1 - p] |= low
                hidden ^= low
            level = L.EXPERT
            if knock_oracle and state[K.S_PHASE] == K.PH_DISCARD and (legal[:n] == K.KNOCK).any():
                world = state.copy()
                K.apply_action(world, K.KNOCK)
                cache[:] = -1
                if A.rollout(world, p, A.POL_EASY, A.POL_EASY, cache, A._pile_mask(world), melds) > 0:
                    legal[0] = K.KNOCK    # a winning knock is played whatever the search says
                    n = 1
                else:
                    n = _without(legal, n, K.KNOCK)
        a = A.decide(obs, legal, n, level, iterations, A.mix(ai_seed, moves), rng)
        K.apply_action(state, a)
        moves += 1
    r = np.empty(2, dtype=np.float64)
    K.returns(state, r)
    return r[peeker]


@numba.njit
def _without(legal, n, move):
    """Removes ``move`` from the first ``n`` entries of ``legal``; returns the new count."""
    m = 0
    for j in range(n):
        if legal[j] != move:
            legal[m] = legal[j]
            m += 1
    return m


@numba.njit(parallel=True)
def _peeking_games(deals, iterations, revealed, knock_oracle, out):
    """``_peeking_game`` on mirrored pairs: ``out[i, s]`` is the peeker's return on deal ``i``
    in seat ``s``."""
    for t in numba.prange(2 * deals.shape[0]):
        out[t // 2, t % 2] = _peeking_game(deals[t // 2], t % 2, iterations, revealed,
                                           knock_oracle, np.int64(t))


def peeking_deals(pairs):
    """The deal seeds of the peeking runs."""
    return np.arange(pairs, dtype=np.int64) * 7919 + 99 * 1_000_003


def _peeking_run(benchmark, revealed, knock_oracle):
    """Expert (peeking as asked) against normal on the peeking deals; prints and records the
    win rate."""
    expert, _ = _budgets()
    deals = peeking_deals(PAIRS)
    out = np.zeros((PAIRS, 2))
    benchmark.pedantic(_peeking_games, args=(deals, expert, revealed, knock_oracle, out),
                       rounds=1, iterations=1)
    wins, losses = int((out > 0).sum()), int((out < 0).sum())
    rate, low, high = _rate(wins, losses)
    benchmark.extra_info.update(pairs=PAIRS, revealed=revealed, knock_oracle=knock_oracle,
                                rate=rate, low=low, high=high)
    print(f"\nexpert({expert}) seeing {revealed:.0%} of the opponent's hidden cards"
          f"{', knocking by the true outcome' if knock_oracle else ''} vs normal: "
          f"{rate:.3f} [{low:.3f}, {high:.3f}] over {wins + losses} decided games "
          f"({PAIRS} deal pairs)")
    assert wins + losses > 0


@pytest.mark.benchmark(group="gin-ai-strength")
@pytest.mark.parametrize("revealed", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_peeking_search(benchmark, revealed):
    """What knowing the opponent's cards is worth to expert's search against normal, from
    nothing revealed (expert itself, on these deals) to the whole hand (the ceiling the strength
    targets are read against: one game is one hand and the first knock wins ~92 %)."""
    _peeking_run(benchmark, revealed, False)


@pytest.mark.benchmark(group="gin-ai-strength")
def test_knock_oracle(benchmark):
    """What the knock decision is worth: expert, seeing nothing, knocks only when knocking
    now wins in the true state (no undercut, no loss), on the peeking deals. An upper bound on
    any knock rule, since continuing is not checked."""
    _peeking_run(benchmark, 0.0, True)


@numba.njit
def _hidden_cards_guessed(games, level, determinizations):
    """Over every Draw decision of seat 0 in ``games`` normal-vs-normal games: the fraction of
    the opponent's hidden cards that ``level``'s determinizations put in its hand, overall and
    with fewer than 20 cards left in the stock, and what a uniform guess gets overall."""
    obs = np.empty(K.OBS_SIZE, np.int64)
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    rng = np.zeros(1, np.int64)
    right = np.zeros(2)
    hidden = np.zeros(2)
    chance = 0.0
    for g in range(games):
        state = K.new_state(PARAMS, np.int64(g * 7919 + 5))
        moves = 0
        while state[K.S_PHASE] != K.PH_GAME_OVER:
            p = state[K.S_CURRENT]
            K.observe(state, p, obs)
            if p == 0 and state[K.S_PHASE] == K.PH_DRAW:
                _legal, _n, _own, cards, factors, n_ev, model = A._prepare(obs)
                true = state[K.S_HAND + 1] & ~state[K.S_KNOWN + 1]
                n_true = popcount(true)
                late = 1 if state[K.S_STOCK_SIZE] < 20 else 0
                chance += determinizations * n_true * n_true / popcount(K.unseen_cards(obs))
                for k in range(determinizations):
                    det = A._determinization(obs, level, A.mix(g * 1000 + moves, k), cards,
                                             factors, n_ev, model)
                    hit = popcount(det[K.S_HAND + 1] & true)
                    right[0] += hit
                    hidden[0] += n_true
                    right[1] += hit * late
                    hidden[1] += n_true * late
            n = K.legal_from_obs(obs, legal)
            K.apply_action(state, A.policy(obs, legal, n, L.NORMAL, rng))
            moves += 1
    return right[0] / hidden[0], right[1] / max(hidden[1], 1.0), chance / hidden[0]


@pytest.mark.benchmark(group="gin-ai-strength")
@pytest.mark.parametrize("level", [L.EXPERT, L.MASTER], ids=["expert", "master"])
def test_opponent_hand_inference(benchmark, level):
    """How much of the opponent's hidden hand the search's samples get right (the opponent plays
    normal, the policy master's model assumes): the information the search actually uses, to
    read against ``test_peeking_search``."""
    games = max(PAIRS // 5, 20)
    overall, late, chance = benchmark.pedantic(_hidden_cards_guessed, args=(games, level, 64),
                                               rounds=1, iterations=1)
    benchmark.extra_info.update(games=games, overall=overall, late=late, chance=chance)
    print(f"\n{L.NAMES[level]}: {overall:.3f} of the opponent's hidden cards guessed right "
          f"({late:.3f} with < 20 stock cards left; a uniform guess {chance:.3f}) over {games} "
          f"games")
    assert chance < overall < 1.0


# outcome categories of ``_outcomes``: who knocked (A = the first level) and how it ended
OUTCOMES = ("A gin", "A knock won", "A knock tied", "A undercut", "B gin", "B knock won",
            "B knock tied", "B undercut", "no knock")


@numba.njit(parallel=True)
def _outcomes(deals, level_a, level_b, iterations_a, iterations_b, ai_seed, counts):
    """Mirrored pairs of ``level_a`` against ``level_b``, the games of ``play_mirrored`` with
    the same arguments; ``counts[t]`` gets game ``t``'s category in ``OUTCOMES``."""
    for t in numba.prange(2 * deals.shape[0]):
        seat_a = t % 2
        levels = np.empty(2, dtype=np.int64)
        iterations = np.empty(2, dtype=np.int64)
        levels[seat_a], levels[1 - seat_a] = level_a, level_b
        iterations[seat_a], iterations[1 - seat_a] = iterations_a, iterations_b
        state = K.new_state(PARAMS, deals[t // 2])
        game_seed = A.mix(ai_seed, t)
        A.play_out(state, levels, iterations, game_seed, A.new_progress(game_seed), -1)
        if state[K.S_END] != K.END_KNOCK:
            counts[t] = 8
            continue
        knocker = state[K.S_KNOCKER]
        r = np.empty(2, dtype=np.float64)
        K.returns(state, r)
        kind = 0 if state[K.S_DEADWOOD + knocker] == 0 else (
            1 if r[knocker] > 0 else (2 if r[knocker] == 0 else 3))
        counts[t] = kind + (0 if knocker == seat_a else 4)


@pytest.mark.benchmark(group="gin-ai-strength")
def test_outcomes_expert_vs_normal(benchmark):
    """How expert's games against normal end: who knocks first, how often a knock is undercut
    or tied, how often it is gin (docs/gin-strength.md)."""
    expert, _ = _budgets()
    seed = L.EXPERT * 10 + L.NORMAL     # the deals and AI seeds of test_strength[expert>normal]
    deals = np.arange(PAIRS, dtype=np.int64) * 7919 + seed * 1_000_003
    counts = np.zeros(2 * PAIRS, dtype=np.int64)
    benchmark.pedantic(_outcomes, args=(deals, L.EXPERT, L.NORMAL, expert, 0, np.int64(seed),
                                        counts), rounds=1, iterations=1)
    table = {name: int((counts == i).sum()) for i, name in enumerate(OUTCOMES)}
    benchmark.extra_info.update(pairs=PAIRS, **table)
    games = 2 * PAIRS
    endings = ("gin", "knock won", "knock tied", "undercut")
    knocks = {seat: sum(table[f"{seat} {kind}"] for kind in endings) for seat in "AB"}

    def share(seat, kind):
        return f"{table[f'{seat} {kind}'] / max(knocks[seat], 1):.1%}"

    print(f"\nexpert({expert}) vs normal, {games} games: expert knocks in "
          f"{knocks['A'] / games:.1%}, normal in {knocks['B'] / games:.1%}; expert's knocks "
          f"{share('A', 'gin')} gin, {share('A', 'undercut')} undercut, "
          f"{share('A', 'knock tied')} tied; normal's {share('B', 'gin')} gin, "
          f"{share('B', 'undercut')} undercut; {table}")
    assert sum(table.values()) == games


# ---- how a hand's edge compounds over a match ---------------------------------------------------
MATCH_TARGET = 100
MATCH_MAX_HANDS = 200    # a match of only drawn hands cannot run forever


@numba.njit
def _match(deal_seed, a_first_seat, level_a, level_b, iterations_a, iterations_b, ai_seed):
    """One match to ``MATCH_TARGET`` points: hands of OpenSpiel's gin (hand ``k`` dealt from
    ``mix(deal_seed, k)``), level A in seat ``a_first_seat`` of the first hand and the seats
    swapped every hand; a hand's winner adds its points, a drawn hand scores nothing. Returns 1
    if A wins, -1 if B wins, 0 if no one reached the target."""
    levels = np.empty(2, dtype=np.int64)
    iters = np.empty(2, dtype=np.int64)
    r = np.empty(2, dtype=np.float64)
    score_a = 0.0
    score_b = 0.0
    for k in range(MATCH_MAX_HANDS):
        a = (a_first_seat + k) % 2
        levels[a] = level_a
        levels[1 - a] = level_b
        iters[a] = iterations_a
        iters[1 - a] = iterations_b
        A.play_game(PARAMS, A.mix(deal_seed, k), levels, iters, A.mix(ai_seed, k), r)
        score_a += max(r[a], 0.0)
        score_b += max(r[1 - a], 0.0)
        if score_a >= MATCH_TARGET:
            return 1
        if score_b >= MATCH_TARGET:
            return -1
    return 0


@numba.njit(parallel=True)
def _matches(deals, level_a, level_b, iterations_a, iterations_b, ai_seed, out):
    """Mirrored matches: the hands of match pair ``i`` are dealt alike, A starting in seat 0 and
    then in seat 1; ``out[i, j]`` is ``_match``'s result."""
    for t in numba.prange(2 * deals.shape[0]):
        out[t // 2, t % 2] = _match(deals[t // 2], t % 2, level_a, level_b, iterations_a,
                                    iterations_b, A.mix(ai_seed, t))


@pytest.mark.benchmark(group="gin-ai-strength")
@pytest.mark.parametrize("upper,lower", [(L.EXPERT, L.NORMAL), (L.MASTER, L.EXPERT)],
                         ids=["expert>normal", "master>expert"])
def test_matches_to_100(benchmark, upper, lower):
    """The ladder's close matches played as matches to 100 points (mirrored pairs of matches):
    how the edge per hand compounds (docs/gin-strength.md)."""
    expert, master = _budgets()
    budget = {L.EXPERT: expert, L.MASTER: master}
    seed = upper * 10 + lower
    deals = np.arange(PAIRS, dtype=np.int64) * 7919 + seed * 1_000_003
    out = np.zeros((PAIRS, 2), dtype=np.int64)
    benchmark.pedantic(_matches, args=(deals, upper, lower, budget.get(upper, 0),
                                       budget.get(lower, 0), np.int64(seed), out),
                       rounds=1, iterations=1)
    wins, losses = int((out > 0).sum()), int((out < 0).sum())
    rate, low, high = _rate(wins, losses)
    benchmark.extra_info.update(pairs=PAIRS, wins=wins, losses=losses, rate=rate, low=low,
                                high=high)
    print(f"\n{L.NAMES[upper]} vs {L.NAMES[lower]}, matches to {MATCH_TARGET}: {rate:.3f} "
          f"[{low:.3f}, {high:.3f}] over {wins + losses} decided matches ({PAIRS} pairs)")
    assert wins + losses + int((out == 0).sum()) == 2 * PAIRS
