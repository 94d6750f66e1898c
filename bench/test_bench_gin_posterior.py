"""Gin: a search on determinizations drawn from the posterior over the opponent's deal, on the
deals of ``test_peeking_search`` (docs/gin-strength.md, "Metropolis chains over the posterior").
An experiment, not a level: the chains lift a search against normal only.

Normal is deterministic and deals are uniform, so the posterior over the hidden deal (the
opponent's first ten cards and the stock cards it drew, against the rest of what the searcher
has not seen) weighs a deal by how many of the opponent's moves normal would have made from it.
A Metropolis chain proposes swapping two of those cards and replays the game's moves; each move
normal would not have made costs ``beta`` (e^-beta a mismatch), and a move the swap makes
illegal costs ``MISMATCH_OF_ILLEGAL`` times the larger ``beta`` for every move left unreplayed.
The search plays ``SAMPLES`` of the chain's states, one every ``SPACING`` steps after a burn-in,
at each Draw and Discard decision; its other decisions are its level's as it plays.

The chain starts from a uniform deal, or, as a check, from the true deal (itself a posterior
draw, so every later state is one too).

``CASES``: expert's search against normal, and master's (its pick and easy replies) against
expert, easy and normal, with and without the chains. Against players other than normal, whose
moves normal's do not always match, the likelihood may be softer: a mismatch may cost less at a
draw (``beta_draw``) than at a discard (``beta_discard``), or a discard may be graded by how
close normal scores it to its own choice (``discard_lambda``).
``test_how_often_the_levels_move_as_normal`` counts how often each level's moves are normal's,
and ``test_hidden_cards_guessed_against`` how much of each opponent's hidden hand the chains
and the levels' samplers get right.

Command: ``MELDMIND_STRENGTH_PAIRS=300 pytest bench/test_bench_gin_posterior.py -s``.
"""
import numba
import numpy as np
import pytest

from meldmind.games import gin
from meldmind.kernels import ai_gin as A
from meldmind.kernels import levels as L
from meldmind.kernels.arrays import copy_into
from meldmind.kernels.bits import popcount
from meldmind.kernels.rng import below, seed_slot, shuffle, unit
from test_bench_ai_gin import PAIRS, _rate, peeking_deals

K = gin.KERNEL
PARAMS = gin.make_params({})
SAMPLES = A.EXPERT_ITERATIONS   # the determinizations of expert's own search
SPACING = 100
MISMATCH_OF_ILLEGAL = 3
HIDDEN_HAND = K.HAND_SIZE       # chain slots 0-9: the opponent's first ten cards
MAX_MOVES = 1024                # more than a game's moves


@numba.njit
def _graded_discard_cost(obs, a, discard_lambda, meld_cost):
    """-log P(discard ``a``) under a graded normal: ``meld_cost`` for a card the best partition
    melds, else a softmax at ``discard_lambda`` over normal's scores of the cards it may discard
    (``ai_gin.normal_discard_score``; the upcard just taken, which normal keeps, scores 0), so
    a discard normal scores close to its own costs little."""
    h = obs[K.O_HAND]
    l11 = A._left(h)
    if not (l11 & K.bit(a)):
        return meld_cost
    opp_known = obs[K.O_KNOWN + 1 - obs[K.O_SEAT]]
    candidates = l11 & ~A._upcard_kept(h, obs[K.O_PREV_UPCARD])
    if candidates == 0:
        candidates = l11
    live = A.ALL & ~(h | A._obs_pile(obs) | A._obs_table(obs) | opp_known)
    partial = A.partial_cards(l11, live)
    near = A._near(opp_known) if opp_known else np.int64(0)
    total = 0.0
    score_of_a = 0.0
    m = candidates
    while m:
        low = m & -m
        c = A.lowest_bit(low)
        score = A.normal_discard_score(c, partial, opp_known, near)
        total += np.exp(discard_lambda * score)
        if c == a:
            score_of_a = score
        m ^= low
    return np.log(total) - discard_lambda * score_of_a


@numba.njit
def _replay_mismatches(deal, actions, n_actions, opp, obs, legal, beta_draw, beta_discard,
                       discard_lambda):
    """Replays ``actions[:n_actions]`` from ``deal``: the summed cost of the opponent's moves
    normal would not have made (a Discard-phase move ``beta_discard``, any other
    ``beta_draw``; an illegal one ends the replay at ``MISMATCH_OF_ILLEGAL`` times the larger
    for each move left), and the final state (empty after an illegal move). With a
    ``discard_lambda``, a discard where normal discards too costs ``_graded_discard_cost``
    instead, ``beta_discard`` for a melded card."""
    state = deal.copy()
    mismatches = 0.0
    for i in range(n_actions):
        a = actions[i]
        if state[K.S_CURRENT] == opp:
            n = K.legal_actions(state, legal)
            if not (legal[:n] == a).any():
                illegal = MISMATCH_OF_ILLEGAL * max(beta_draw, beta_discard)
                return mismatches + illegal * (n_actions - i), state[:0]
            K.observe(state, opp, obs)
            normal = A._heuristic(obs, legal, n, A.POL_NORMAL)
            if discard_lambda > 0 and a < K.NUM_CARDS and normal < K.NUM_CARDS:
                mismatches += _graded_discard_cost(obs, a, discard_lambda, beta_discard)
            elif normal != a:
                mismatches += beta_discard if state[K.S_PHASE] == K.PH_DISCARD else beta_draw
        K.apply_action(state, a)
    return mismatches, state


@numba.njit
def _posterior_worlds(deal, actions, n_actions, opp, drawn_by, rng, from_truth, burn_in, betas,
                      searcher_obs, out):
    """Fills ``out`` (SAMPLES rows) with the chain's states at the present decision, each with
    the rest of the stock reshuffled. ``drawn_by[p]``: the seat that drew stock position ``p``
    (-1: not drawn yet). ``deal`` is the true deal; without ``from_truth`` only the searcher's
    own cards and draws are read from it. ``betas``: (``beta_draw``, ``beta_discard``,
    ``discard_lambda``)."""
    obs = np.empty(K.OBS_SIZE, np.int64)
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    # slots: the opponent's first ten cards, the stock positions it drew, the undrawn ones
    positions = np.empty(K.NUM_CARDS, np.int64)
    n_opp_draws = 0
    for p in range(K.S_HISTORY - K.S_STOCK):
        if drawn_by[p] == opp:
            positions[n_opp_draws] = p
            n_opp_draws += 1
    n_slots = n_opp_draws
    for p in range(deal[K.S_STOCK_SIZE]):
        if drawn_by[p] == -1:
            positions[n_slots] = p
            n_slots += 1
    hand = np.empty(HIDDEN_HAND, np.int64)
    k = 0
    for c in range(K.NUM_CARDS):
        if deal[K.S_HAND + opp] & K.bit(c):
            hand[k] = c
            k += 1
    n_slots += HIDDEN_HAND
    current = deal.copy()
    if not from_truth:
        for q in range(n_slots - 1, 0, -1):      # a uniform deal of the same cards
            _swap(current, hand, positions, opp, q, below(rng, 0, q + 1))
    # the newest state under which every move replays legally: where the chain's worlds come from
    mismatches, world = _replay_mismatches(current, actions, n_actions, opp, obs, legal, *betas)
    legal_world = world if world.shape[0] > 0 else A._sample(
        searcher_obs, A.mix(np.int64(below(rng, 0, 1 << 30)), 1), A.improve_turns(searcher_obs))
    movable = HIDDEN_HAND + n_opp_draws     # the slots that bear on the history
    taken = 0
    step = 0
    while taken < out.shape[0]:
        if step >= burn_in and (step - burn_in) % SPACING == 0:
            sample = out[taken]
            copy_into(sample, legal_world)
            shuffle(rng, 0, sample[K.S_STOCK:], sample[K.S_STOCK_SIZE])
            taken += 1
        step += 1
        i = below(rng, 0, movable)
        j = below(rng, 0, n_slots - 1)
        if j >= i:
            j += 1
        if i < HIDDEN_HAND and j < HIDDEN_HAND:
            continue                            # two cards of the same hand: the same deal
        proposal = current.copy()
        proposed_hand = hand.copy()
        _swap(proposal, proposed_hand, positions, opp, i, j)
        proposed, replayed = _replay_mismatches(proposal, actions, n_actions, opp, obs, legal,
                                                *betas)
        warm = min(1.0, 0.2 + step / max(burn_in, 1))     # the penalty grows over the burn-in
        if proposed <= mismatches or unit(rng, 0) < np.exp(-warm * (proposed - mismatches)):
            current, hand, mismatches = proposal, proposed_hand, proposed
            if replayed.shape[0] > 0:
                legal_world = replayed


@numba.njit
def _swap(deal, hand, positions, opp, i, j):
    """Swaps the cards of chain slots ``i`` and ``j`` of ``deal`` (slots below ``HIDDEN_HAND``:
    ``hand``, the opponent's first cards; the others: stock ``positions``)."""
    ci = hand[i] if i < HIDDEN_HAND else deal[K.S_STOCK + positions[i - HIDDEN_HAND]]
    cj = hand[j] if j < HIDDEN_HAND else deal[K.S_STOCK + positions[j - HIDDEN_HAND]]
    for slot, card in ((i, cj), (j, ci)):
        if slot < HIDDEN_HAND:
            hand[slot] = card
        else:
            deal[K.S_STOCK + positions[slot - HIDDEN_HAND]] = card
    mask = 0
    for k in range(HIDDEN_HAND):
        mask |= K.bit(hand[k])
    deal[K.S_HAND + opp] = mask


@numba.njit
def _game(deal_seed, searcher, ai_seed, case):
    """One game of ``case`` (``CASES``: opponent, level, chains?, from_truth, burn_in,
    and the three of betas), the searcher in seat ``searcher``; returns its return."""
    opponent, level, chains, from_truth, burn_in, beta_draw, beta_discard, discard_lambda = case
    betas = (beta_draw, beta_discard, discard_lambda)
    state = K.new_state(PARAMS, deal_seed)
    deal = state.copy()
    obs = np.empty(K.OBS_SIZE, dtype=np.int64)
    legal = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    rng = np.zeros(1, dtype=np.int64)
    chain_rng = np.zeros(1, dtype=np.int64)
    seed_slot(chain_rng, 0, A.mix(ai_seed, 0xC4A))
    opponent_seed = A.mix(ai_seed, 0x0FF)
    actions = np.empty(MAX_MOVES, np.int64)
    drawn_by = np.full(K.S_HISTORY - K.S_STOCK, -1, np.int64)
    worlds = np.empty((SAMPLES, state.shape[0]), np.int64)
    values = np.zeros(K.NUM_ACTIONS, dtype=np.float64)
    visits = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    moves = 0
    while state[K.S_PHASE] != K.PH_GAME_OVER:
        p = state[K.S_CURRENT]
        K.observe(state, p, obs)
        n = K.legal_from_obs(obs, legal)
        phase = state[K.S_PHASE]
        if p != searcher:
            a = A.decide(obs, legal, n, opponent, A.default_iterations(opponent),
                         A.mix(opponent_seed, moves), rng)
        elif chains and n > 1 and moves > 0 and (phase == K.PH_DRAW or phase == K.PH_DISCARD):
            _posterior_worlds(deal, actions, moves, 1 - p, drawn_by, chain_rng, from_truth,
                              burn_in, betas, obs, worlds)
            moves_of, n_moves, own_l, _cards, _factors, _n_ev, _model = A._prepare(obs)
            sums = np.zeros(n_moves, dtype=np.float64)
            counts = np.zeros(n_moves, dtype=np.int64)
            for k in range(SAMPLES):
                A.evaluate_world(worlds[k], p, moves_of, n_moves, own_l, sums, counts,
                                 A._reply_policy(level))
            values[:] = 0.0
            visits[:] = 0
            for j in range(n_moves):
                values[moves_of[j]] = sums[j]
                visits[moves_of[j]] = counts[j]
            a = A.pick(obs, values, visits, legal, n, level, A.mix(ai_seed, moves))
        else:
            a = A.decide(obs, legal, n, level, A.default_iterations(level), A.mix(ai_seed, moves),
                         rng)
        if a == K.DRAW_STOCK:
            drawn_by[state[K.S_STOCK_SIZE] - 1] = p
        actions[moves] = a
        K.apply_action(state, a)
        moves += 1
    r = np.empty(2, dtype=np.float64)
    K.returns(state, r)
    return r[searcher]


@numba.njit(parallel=True)
def _games(deals, case, out):
    """``out[i, s]``: the searcher's return on deal ``i`` in seat ``s``."""
    for t in numba.prange(2 * deals.shape[0]):
        out[t // 2, t % 2] = _game(deals[t // 2], t % 2, np.int64(t), case)


# the chains' likelihoods (beta_draw, beta_discard, discard_lambda)
EXACT = (5.0, 5.0, 0.0)
SOFT = (2.5, 1.5, 0.0)
GRADED = (2.5, 6.0, 1.0)
NONE = (0.0, 0.0, 0.0)
# id: (opponent, searcher's level, chains?, chains from the true deal?, burn-in, *betas), flat:
# a parallel kernel takes no tuple within a tuple
CASES = {
    "uniform-3000": (L.NORMAL, L.EXPERT, True, False, 3000, *EXACT),
    "uniform-10000": (L.NORMAL, L.EXPERT, True, False, 10000, *EXACT),
    "truth-2000": (L.NORMAL, L.EXPERT, True, True, 2000, 50.0, 50.0, 0.0),
    "master-vs-expert-without": (L.EXPERT, L.MASTER, False, False, 0, *NONE),
    "master-vs-expert": (L.EXPERT, L.MASTER, True, False, 3000, *EXACT),
    "master-vs-expert-soft": (L.EXPERT, L.MASTER, True, False, 3000, *SOFT),
    "master-vs-expert-graded": (L.EXPERT, L.MASTER, True, False, 3000, *GRADED),
    "master-vs-easy-without": (L.EASY, L.MASTER, False, False, 0, *NONE),
    "master-vs-easy": (L.EASY, L.MASTER, True, False, 3000, *EXACT),
    "master-vs-normal-without": (L.NORMAL, L.MASTER, False, False, 0, *NONE),
    "master-vs-normal": (L.NORMAL, L.MASTER, True, False, 3000, *EXACT),
}


def _likelihood_text(betas):
    beta_draw, beta_discard, discard_lambda = betas
    if discard_lambda:
        return (f"e^-{beta_draw:g} a draw mismatch, a graded discard at lambda {discard_lambda:g}, "
                f"e^-{beta_discard:g} a melded card discarded")
    return f"e^-{beta_draw:g} a draw mismatch, e^-{beta_discard:g} a discard mismatch"


@pytest.mark.benchmark(group="gin-ai-strength")
@pytest.mark.parametrize("case_id", list(CASES))
def test_search_on_posterior_chains(benchmark, case_id):
    case = CASES[case_id]
    opponent, level, chains, from_truth, burn_in, *betas = case
    deals = peeking_deals(PAIRS)
    out = np.zeros((PAIRS, 2))
    benchmark.pedantic(_games, args=(deals, case, out), rounds=1, iterations=1)
    wins, losses = int((out > 0).sum()), int((out < 0).sum())
    rate, low, high = _rate(wins, losses)
    benchmark.extra_info.update(pairs=PAIRS, rate=rate, low=low, high=high)
    chain = (f"on a posterior chain ({'true' if from_truth else 'uniform'} start, burn-in "
             f"{burn_in}, {_likelihood_text(betas)})" if chains else "as it plays")
    print(f"\n{L.NAMES[level]} {chain} vs {L.NAMES[opponent]}: {rate:.3f} [{low:.3f}, "
          f"{high:.3f}], {wins}-{losses}-{2 * PAIRS - wins - losses} ({PAIRS} deal pairs)")
    assert wins + losses > 0


@numba.njit
def _agreement(deal_seeds, level, out):
    """Self-play games of ``level``: ``out[phase]`` gets, over its decisions with a choice in
    the FirstUpcard, Draw and Discard phases, (the decisions, those where normal's move is
    the same)."""
    obs = np.empty(K.OBS_SIZE, np.int64)
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    rng = np.zeros(1, np.int64)
    for g in range(deal_seeds.shape[0]):
        state = K.new_state(PARAMS, deal_seeds[g])
        moves = 0
        while state[K.S_PHASE] != K.PH_GAME_OVER:
            K.observe(state, state[K.S_CURRENT], obs)
            n = K.legal_from_obs(obs, legal)
            a = A.decide(obs, legal, n, level, A.default_iterations(level), A.mix(g, moves), rng)
            phase = state[K.S_PHASE]
            if n > 1 and phase <= K.PH_DISCARD:
                out[phase, 0] += 1
                if A._heuristic(obs, legal, n, A.POL_NORMAL) == a:
                    out[phase, 1] += 1
            K.apply_action(state, a)
            moves += 1


@pytest.mark.benchmark(group="gin-ai-strength")
def test_how_often_the_levels_move_as_normal(benchmark):
    """Why the chains help only against normal: the other levels make normal's move at most
    draws but at only about two discards in three, and a chain must explain the rest by hands
    under which normal would have made them. One self-play game per deal pair."""
    deals = peeking_deals(PAIRS)
    rows = {}

    def measure():
        for level in (L.EASY, L.EXPERT, L.MASTER):
            out = np.zeros((K.PH_DISCARD + 1, 2), np.int64)
            _agreement(deals, level, out)
            rows[L.NAMES[level]] = out

    benchmark.pedantic(measure, rounds=1, iterations=1)
    print(f"\nmoves that are normal's, self-play, {PAIRS} games:")
    for name, out in rows.items():
        shares = ", ".join(f"{gin.PHASES[phase]} {out[phase, 1] / out[phase, 0]:.1%} of "
                           f"{out[phase, 0]}" for phase in range(K.PH_DISCARD + 1)
                           if out[phase, 0])
        print(f"  {name}: {shares}")
        benchmark.extra_info[name] = {gin.PHASES[p]: out[p].tolist() for p in range(len(out))}
    assert all(out[K.PH_DISCARD, 0] > 0 for out in rows.values())


@numba.njit
def _hidden_cards_guessed_by_samplers(deal_seeds, opponent, betas, out):
    """Expert in seat 0 against ``opponent``: at each of seat 0's Draw decisions after the
    first move, ``out[r]`` gets (the opponent's hidden cards that sample ``r`` puts in its hand,
    the hidden cards), summed over ``SAMPLES`` samples of master's sampler (r 0), expert's (1)
    and a chain from a uniform deal at ``betas`` (2)."""
    obs = np.empty(K.OBS_SIZE, np.int64)
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    rng = np.zeros(1, np.int64)
    chain_rng = np.zeros(1, np.int64)
    worlds = np.empty((SAMPLES, K.STATE_SIZE), np.int64)
    actions = np.empty(MAX_MOVES, np.int64)
    for g in range(deal_seeds.shape[0]):
        seed_slot(chain_rng, 0, A.mix(g, 0xC4A))
        state = K.new_state(PARAMS, deal_seeds[g])
        deal = state.copy()
        drawn_by = np.full(K.S_HISTORY - K.S_STOCK, -1, np.int64)
        moves = 0
        while state[K.S_PHASE] != K.PH_GAME_OVER:
            p = state[K.S_CURRENT]
            K.observe(state, p, obs)
            n = K.legal_from_obs(obs, legal)
            if p == 0 and state[K.S_PHASE] == K.PH_DRAW and moves > 0:
                hidden = state[K.S_HAND + 1] & ~state[K.S_KNOWN + 1]
                _moves_of, _n, _own_l, cards, factors, n_ev, model = A._prepare(obs)
                for k in range(SAMPLES):
                    for r, level in ((0, L.MASTER), (1, L.EXPERT)):
                        det = A._determinization(obs, level, A.mix(A.mix(g, moves), k), cards,
                                                 factors, n_ev, model)
                        out[r, 0] += popcount(det[K.S_HAND + 1] & hidden)
                        out[r, 1] += popcount(hidden)
                _posterior_worlds(deal, actions, moves, 1, drawn_by, chain_rng, False, 3000,
                                  betas, obs, worlds)
                for k in range(SAMPLES):
                    out[2, 0] += popcount(worlds[k, K.S_HAND + 1] & hidden)
                    out[2, 1] += popcount(hidden)
            level = L.EXPERT if p == 0 else opponent
            a = A.decide(obs, legal, n, level, A.default_iterations(level),
                         A.mix(A.mix(g, p), moves), rng)
            if a == K.DRAW_STOCK:
                drawn_by[state[K.S_STOCK_SIZE] - 1] = p
            actions[moves] = a
            K.apply_action(state, a)
            moves += 1


@pytest.mark.benchmark(group="gin-ai-strength")
@pytest.mark.parametrize("opponent", [L.NORMAL, L.EXPERT, L.EASY], ids=["normal", "expert", "easy"])
@pytest.mark.parametrize("betas", [EXACT, SOFT, GRADED], ids=["exact", "soft", "graded"])
def test_hidden_cards_guessed_against(benchmark, opponent, betas):
    """How much of the opponent's hidden hand the chains and the levels' samplers get right,
    against each opponent: the chains read normal best, and expert and easy little better than
    master's sampler does. ``MELDMIND_STRENGTH_PAIRS / 25`` games, at least 2."""
    games = max(PAIRS // 25, 2)
    out = np.zeros((3, 2))
    benchmark.pedantic(_hidden_cards_guessed_by_samplers,
                       args=(peeking_deals(games), opponent, betas, out), rounds=1, iterations=1)
    master, expert, chain = out[:, 0] / out[:, 1]
    benchmark.extra_info.update(games=games, master=master, expert=expert, chain=chain)
    print(f"\nagainst {L.NAMES[opponent]}, {games} games: hidden cards guessed right by master's "
          f"sampler {master:.3f}, expert's {expert:.3f}, a chain ({_likelihood_text(betas)}) "
          f"{chain:.3f}")
    assert 0.0 < min(master, expert, chain) and max(master, expert, chain) < 1.0
