"""Gin Rummy AI levels (``kernels/ai_gin.py``, docs/ai-contract.md): legal moves at every phase,
decisions that ignore the cards a seat cannot see, reproducibility and thread independence of
the search, short games, the heuristics' stories and the numba hygiene of the kernels.

Hands are written as card lists (``parse_cards`` notation)."""
import copy
import io
import random

import numba
import numpy as np
import pytest

from meldmind import format_card, new_game, parse_cards, suggest
from meldmind.games import gin
from meldmind.kernels import ai_gin as A
from meldmind.kernels import levels as L
from oracle import oracle_analyze

K = gin.KERNEL
PARAMS = gin.make_params({})
LEVELS = (L.BEGINNER, L.EASY, L.NORMAL, L.EXPERT, L.MASTER)
SEARCH_ITERATIONS = 8
PHASES = (K.PH_FIRST_UPCARD, K.PH_DRAW, K.PH_DISCARD, K.PH_KNOCK, K.PH_LAYOFF, K.PH_WALL)


# ---- helpers ------------------------------------------------------------------------------------
def mask(cards):
    return sum(1 << c for c in parse_cards("gin", cards))


def card(text):
    return parse_cards("gin", [text])[0]


def observation(state, seat=None):
    obs = np.zeros(K.OBS_SIZE, np.int64)
    K.observe(state, K.current_player(state) if seat is None else seat, obs)
    return obs


def legal_of(state):
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    return buf[:K.legal_actions(state, buf)].copy()


def choose(obs, level, seed=11, iterations=SEARCH_ITERATIONS):
    """One decision of ``level`` from an observation, as ``play_game`` makes it."""
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    n = K.legal_from_obs(obs, legal)
    rng = np.zeros(1, np.int64)
    A.seed_slot(rng, 0, np.int64(seed))
    return int(A.decide(obs, legal, n, level, iterations, np.int64(seed), rng))


def random_positions(count_per_phase, seed=0):
    """States at every phase, from games of mixed levels (beginner games reach the Wall,
    easy and normal games knock)."""
    rng = random.Random(seed)
    found = {ph: [] for ph in PHASES}
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    pol_rng = np.zeros(1, np.int64)
    games = 0
    while min(len(v) for v in found.values()) < count_per_phase and games < 5000:
        games += 1
        state = K.new_state(PARAMS, np.int64(rng.randrange(1 << 40)))
        levels = (rng.choice((0, 0, 1, 2)), rng.choice((0, 1, 2)))
        while not K.is_terminal(state):
            ph = int(state[K.S_PHASE])
            n = K.legal_actions(state, buf)
            if len(found[ph]) < count_per_phase and (n > 1 or rng.random() < 0.2):
                found[ph].append(state.copy())
            obs = observation(state)
            pol_rng[0] = rng.randrange(1 << 62)
            K.apply_action(state, A.policy(obs, buf, n, levels[int(state[K.S_CURRENT])], pol_rng))
    return found


@pytest.fixture(scope="module")
def positions():
    return random_positions(60)


def resampled_worlds(state, seat, count, seed):
    """Full states with the observation of ``seat`` unchanged: the opponent's hidden cards and
    the stock are dealt again (hidden cards swapped between them, stock order shuffled)."""
    rng = random.Random(seed)
    opp = 1 - seat
    known = int(state[K.S_KNOWN + opp])
    hidden = [c for c in range(52) if (int(state[K.S_HAND + opp]) >> c) & 1 and not (known >> c) & 1]
    size = int(state[K.S_STOCK_SIZE])
    stock = [int(x) for x in state[K.S_STOCK:K.S_STOCK + size]]
    worlds = []
    for _ in range(count):
        pool = hidden + stock
        rng.shuffle(pool)
        world = state.copy()
        world[K.S_HAND + opp] = known | sum(1 << c for c in pool[:len(hidden)])
        world[K.S_STOCK:K.S_STOCK + size] = pool[len(hidden):]
        world[K.S_RNG] = rng.randrange(1 << 62)
        worlds.append(world)
    return worlds


# ---- legality -------------------------------------------------------------------------------------
def test_every_phase_is_reached(positions):
    for ph in PHASES:
        assert len(positions[ph]) >= 60, ph


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_legal_moves_at_every_phase(positions, level):
    checked = 0
    for ph in PHASES:
        for i, state in enumerate(positions[ph]):
            obs = observation(state)
            a = choose(obs, level, seed=i)
            assert K.illegal_reason(state, a) == 0, (ph, a)
            assert a in legal_of(state)
            checked += 1
    assert checked >= 300


def test_legal_moves_come_from_the_observation_alone(positions):
    out = np.empty(K.NUM_ACTIONS, np.int64)
    for ph in PHASES:
        for state in positions[ph]:
            n = K.legal_from_obs(observation(state), out)
            assert out[:n].tolist() == legal_of(state).tolist()
            other = observation(state, 1 - K.current_player(state))
            assert K.legal_from_obs(other, out) == 0


# ---- information hygiene --------------------------------------------------------------------------
@pytest.mark.parametrize("level", LEVELS)
def test_choice_ignores_the_cards_the_seat_cannot_see(positions, level):
    """Resample what the seat to move cannot see (the opponent's hidden cards and the stock):
    the observation is identical and so is the chosen move (fixed seed and budget)."""
    tried = 0
    for ph in (K.PH_FIRST_UPCARD, K.PH_DRAW, K.PH_DISCARD, K.PH_KNOCK, K.PH_LAYOFF, K.PH_WALL):
        for i, state in enumerate(positions[ph][:8]):
            seat = K.current_player(state)
            obs = observation(state)
            expected = choose(obs, level, seed=100 + i)
            for world in resampled_worlds(state, seat, 3, seed=i):
                if ph != K.PH_LAYOFF:
                    assert not np.array_equal(world, state) or int(state[K.S_STOCK_SIZE]) == 0
                world_obs = observation(world, seat)
                assert np.array_equal(world_obs, obs)
                assert choose(world_obs, level, seed=100 + i) == expected
                tried += 1
    assert tried >= 100


def test_determinizations_are_consistent_with_the_observation(positions):
    """``gin.determinize`` followed by the replayed opponent turns keeps the observation."""
    for ph in (K.PH_DRAW, K.PH_DISCARD, K.PH_WALL):
        for i, state in enumerate(positions[ph][:30]):
            seat = K.current_player(state)
            obs = observation(state)
            for k in range(3):
                for level in (L.EXPERT, L.MASTER):
                    cards = np.empty(K.MAX_HISTORY, np.int64)
                    factors = np.empty(K.MAX_HISTORY)
                    model = np.empty(A.MODEL_SIZE, np.int64)
                    n_ev = A._evidence(obs, cards, factors, model)
                    world = A._determinization(obs, level, A.mix(i, k), cards, factors, n_ev, model)
                    assert np.array_equal(observation(world, seat), obs)
                    size = int(world[K.S_STOCK_SIZE])
                    stock = sum(1 << int(c) for c in world[K.S_STOCK:K.S_STOCK + size])
                    assert bin(stock).count("1") == size
                    assert stock & int(world[K.S_HAND]) == 0 and stock & int(world[K.S_HAND + 1]) == 0
                    assert stock | (int(world[K.S_HAND + 1 - seat]) & ~int(obs[K.O_KNOWN + 1 - seat])) \
                        == K.unseen_cards(obs)


def test_replayed_opponent_respects_the_no_knock_floor():
    state = K.new_state(PARAMS, np.int64(3))
    for a in (K.PASS, K.PASS, K.DRAW_STOCK):
        K.apply_action(state, a)
    opp = 1
    hand = int(state[K.S_HAND + opp])
    loose = int(A._left(hand))
    for known in (0, loose & -loose, loose):   # known cards stay, and their deadwood counts
        for seed in range(20):
            world = state.copy()
            world[K.S_RNG] = seed
            A.improve_opponent(world, opp, np.int64(known), 40, 10)
            improved = int(world[K.S_HAND + opp])
            assert K.exact_deadwood(improved) > 10 and improved & known == known
            assert bin(improved).count("1") == 10
    # a known loose card counts: drawing 9H and dropping 9C leaves 3D-6D, 7H-9H and AS 2C KS,
    # 13 above the floor with the known KS (3 without it), so the swap is made
    world = state.copy()
    world[K.S_HAND + opp] = mask("4D 5D 6D 7H 8H KS AS 2C 3D 9C".split())
    world[K.S_STOCK_SIZE] = 1
    world[K.S_STOCK] = card("9H")
    A.improve_opponent(world, opp, np.int64(mask(["KS"])), 1, 10)
    assert int(world[K.S_HAND + opp]) == mask("4D 5D 6D 7H 8H 9H KS AS 2C 3D".split())


# ---- reproducibility and threads -------------------------------------------------------------------
@pytest.mark.parametrize("level", (L.EXPERT, L.MASTER))
def test_search_is_independent_of_threads_and_of_splitting(positions, level):
    original = numba.get_num_threads()
    try:
        for ph in (K.PH_DRAW, K.PH_DISCARD):
            for i, state in enumerate(positions[ph][:6]):
                obs = observation(state)
                results = []
                for threads, splits in ((1, (0, 40)), (2, (0, 40)), (2, (0, 7, 19, 40)),
                                        (1, (0, 1, 2, 30, 40))):
                    numba.set_num_threads(min(threads, original))
                    values = np.zeros(K.NUM_ACTIONS)
                    visits = np.zeros(K.NUM_ACTIONS, np.int64)
                    for a, b in zip(splits, splits[1:]):
                        A.search(obs, level, np.int64(i), a, b - a, values, visits)
                    results.append((values, visits))
                serial_v = np.zeros(K.NUM_ACTIONS)
                serial_c = np.zeros(K.NUM_ACTIONS, np.int64)
                A.search_serial(obs, level, np.int64(i), 0, 40, serial_v, serial_c)
                results.append((serial_v, serial_c))
                for values, visits in results[1:]:
                    assert np.array_equal(values, results[0][0])
                    assert np.array_equal(visits, results[0][1])
                legal = legal_of(state)
                assert all(results[0][1][a] == 40 for a in legal)
                assert results[0][1].sum() == 40 * len(legal)
    finally:
        numba.set_num_threads(original)


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_and_budget_same_move(positions, level):
    for state in positions[K.PH_DISCARD][:10] + positions[K.PH_DRAW][:10]:
        obs = observation(state)
        assert choose(obs, level, seed=5) == choose(obs, level, seed=5)


def test_default_budgets():
    # the budgets README.md documents and its strength figures were measured at
    assert A.default_iterations(L.EXPERT) == 128
    assert A.default_iterations(L.MASTER) == 512
    for level in (L.BEGINNER, L.EASY, L.NORMAL):
        assert A.default_iterations(level) == 0


# ---- games ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pair", [(0, 0), (1, 0), (2, 1), (3, 2), (4, 3), (4, 4), (0, 4)])
def test_play_game_smoke(pair):
    out = np.zeros(2)
    for deal in range(3):
        moves = A.play_game(PARAMS, np.int64(deal), np.array(pair, np.int64),
                            np.array([6, 6], np.int64), np.int64(deal + 9), out)
        assert moves > 0
        assert out.sum() == 0
        again = np.zeros(2)
        assert A.play_game(PARAMS, np.int64(deal), np.array(pair, np.int64),
                           np.array([6, 6], np.int64), np.int64(deal + 9), again) == moves
        assert np.array_equal(out, again)


def test_parallel_games_match_single_games():
    seeds = np.arange(6, dtype=np.int64) + 40
    levels = np.array([L.NORMAL, L.EXPERT], np.int64)
    iters = np.array([0, 6], np.int64)
    out = np.zeros((6, 2))
    total = A.play_games(PARAMS, seeds, levels, iters, np.int64(3), out)
    moves = 0
    for i, s in enumerate(seeds):
        r = np.zeros(2)
        moves += A.play_game(PARAMS, s, levels, iters, A.mix(3, i), r)
        assert np.array_equal(r, out[i])
    assert total == moves
    assert np.all(out.sum(axis=1) == 0)


def test_mirrored_pairs_swap_seats():
    seeds = np.array([7, 8, 9], np.int64)
    out = np.zeros((3, 2))
    A.play_mirrored(PARAMS, seeds, L.EASY, L.BEGINNER, 0, 0, np.int64(1), out)
    for i, s in enumerate(seeds):
        for j in range(2):
            r = np.zeros(2)
            levels = np.array([L.EASY, L.BEGINNER] if j == 0 else [L.BEGINNER, L.EASY], np.int64)
            A.play_game(PARAMS, s, levels, np.zeros(2, np.int64), A.mix(1, 2 * i + j), r)
            assert out[i, j] == r[j]


def test_rollout_plays_the_policies_of_the_kernel():
    """The fast in-kernel playout reaches the same end as the easy and normal policies played
    move by move through the kernel (ties between equal partitions aside)."""
    rng = np.zeros(1, np.int64)
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    same = total = 0
    for seed in range(150):
        state = K.new_state(PARAMS, np.int64(seed))
        for _ in range(seed % 17):
            if K.is_terminal(state):
                break
            n = K.legal_actions(state, buf)
            K.apply_action(state, A.policy(observation(state), buf, n, L.EASY, rng))
        if K.is_terminal(state):
            continue
        for pol, level in ((A.POL_EASY, L.EASY), (A.POL_NORMAL, L.NORMAL)):
            played = state.copy()
            while not K.is_terminal(played):
                n = K.legal_actions(played, buf)
                K.apply_action(played, A.policy(observation(played), buf, n, level, rng))
            r = np.zeros(2)
            K.returns(played, r)
            fast = state.copy()
            cache = np.full(6, -1, np.int64)
            value = A.rollout(fast, 0, pol, pol, cache, A._pile_mask(fast),
                              np.empty(A.MAX_LOWEST_CARD_MELDS, np.int64))
            same += value == r[0]
            total += 1
    assert same >= 0.97 * total


def test_flat_discard_benchmark_plays_a_legal_discard(positions):
    state = positions[K.PH_DISCARD][0]
    a = A.flat_discard_benchmark(observation(state), 32, np.int64(1))
    assert a in legal_of(state)


# ---- heuristics: short stories --------------------------------------------------------------------------
def discard_obs(hand, opp_known=(), pile=(), prev_upcard=None, stock_size=None):
    """A Discard-phase observation of seat 0 holding ``hand`` (11 cards)."""
    obs = np.zeros(K.OBS_SIZE, np.int64)
    obs[K.O_SEAT] = 0
    obs[K.O_PHASE] = K.PH_DISCARD
    obs[K.O_CURRENT] = 0
    obs[K.O_KNOCK_CARD:K.O_UNDERCUT_BONUS + 1] = PARAMS
    obs[K.O_HAND] = mask(hand)
    obs[K.O_HAND_SIZES] = 11
    obs[K.O_HAND_SIZES + 1] = 10
    obs[K.O_KNOWN + 1] = mask(opp_known)
    obs[K.O_UPCARD] = -1
    obs[K.O_PREV_UPCARD] = card(prev_upcard) if prev_upcard else -1
    obs[K.O_KNOCKER] = -1
    obs[K.O_DEADWOOD:K.O_DEADWOOD + 2] = -1
    obs[K.O_STOCK_SIZE] = 31 - 1 - len(pile) // 2 if stock_size is None else stock_size
    obs[K.O_DISCARD_COUNT] = len(pile)
    for i, c in enumerate(pile):
        obs[K.O_DISCARDS + i] = card(c)
    return obs


def draw_obs(hand, upcard, opp_known=()):
    """A Draw-phase observation of seat 0 holding ``hand`` (10 cards) facing ``upcard``."""
    obs = discard_obs(hand, opp_known)
    obs[K.O_PHASE] = K.PH_DRAW
    obs[K.O_HAND_SIZES] = 10
    obs[K.O_UPCARD] = card(upcard)
    return obs


def play(obs, level):
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    n = K.legal_from_obs(obs, legal)
    return int(A.policy(obs, legal, n, level, np.zeros(1, np.int64)))


def test_easy_discards_the_highest_deadwood_card():
    #  C: A 2 3 . . . . . . . . . K     D: . . . . 5 6 7 . . . . . .
    #  H: . . . . . . . . 9 . . Q .     S: 2 (and 9C)
    hand = ["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "QH", "2S", "9C"]
    assert play(discard_obs(hand), L.EASY) == card("KC")


def test_normal_keeps_a_partial_meld_and_avoids_feeding():
    hand = ["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "QH", "2S", "9C"]
    # deadwood KC QH 9H 9C 2S; 9H-9C is a live pair. Scores 2 * value - 16 * partial - 12 * feed:
    # KC 20, QH 20, 9H 2, 9C 2, 2S 4: KC by key
    assert play(discard_obs(hand), L.NORMAL) == card("KC")
    # the opponent took JH and KH: QH would complete its run (feed 2: -4), KC has its rank (8)
    assert play(discard_obs(hand, opp_known=["JH", "KH"]), L.NORMAL) == card("KC")
    hand2 = ["AC", "2C", "3C", "QC", "5D", "6D", "7D", "9H", "QH", "2S", "9C"]
    # QC-QH is a live pair: QC 4, QH 4 - 24 (feeds JH KH), 9H 2 - 12, 9C 2, 2S 4: QC by key
    assert play(discard_obs(hand2, opp_known=["JH", "KH"]), L.NORMAL) == card("QC")
    # QD and QS dead: no partial meld; easy throws the top card QH, normal keeps it from the
    # opponent and throws QC
    assert play(discard_obs(hand2, opp_known=["JH", "KH"], pile=["QD", "QS"]), L.NORMAL) == card("QC")
    assert play(discard_obs(hand2, pile=["QD", "QS"]), L.EASY) == card("QH")


def test_upcard_rules():
    hand = ["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "QH", "2S"]
    # 4C extends the run: both take it
    assert play(draw_obs(hand, "4C"), L.EASY) == K.DRAW_UPCARD
    assert play(draw_obs(hand, "4C"), L.NORMAL) == K.DRAW_UPCARD
    # AH melds nothing: easy swaps it for KC (a swap-down), normal draws from the stock
    assert play(draw_obs(hand, "AH"), L.EASY) == K.DRAW_UPCARD
    assert play(draw_obs(hand, "AH"), L.NORMAL) == K.DRAW_STOCK
    # JS melds nothing and is worth as much as the top deadwood card: both draw from the stock
    assert play(draw_obs(hand, "JS"), L.EASY) == K.DRAW_STOCK


def test_knock_rules():
    # deadwood after discarding KC: 2S + 3H = 5: knock is legal
    hand = ["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "10H", "JH", "2S"]
    obs = discard_obs(hand)
    assert play(obs, L.EASY) == K.KNOCK
    # normal plays on for gin at deadwood 2 with a large stock, knocks when it runs low
    assert play(obs, L.NORMAL) == card("KC")
    obs[K.O_STOCK_SIZE] = A.GIN_HOLD_STOCK - 1
    assert play(obs, L.NORMAL) == K.KNOCK
    # search levels knock as soon as they may
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    obs[K.O_STOCK_SIZE] = 25
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    n = K.legal_from_obs(obs, legal)
    A.search(obs, L.EXPERT, np.int64(1), 0, 16, values, visits)
    assert A.pick(obs, values, visits, legal, n, L.EXPERT, np.int64(1)) == K.KNOCK


def test_knocker_discards_the_card_leaving_least_deadwood_when_partitions_tie():
    """2C 4C 5C 6C 5H 5S 9D-KD: 4C-6C or 5C 5H 5S, 12 deadwood either way. Shedding the top
    deadwood card 5S leaves 7; shedding the melded 6C frees the group of fives and leaves 6."""
    obs = discard_obs(["2C", "4C", "5C", "6C", "9D", "10D", "JD", "QD", "KD", "5H", "5S"])
    obs[K.O_PHASE] = K.PH_KNOCK
    obs[K.O_KNOCKER] = 0
    for level in (L.EASY, L.NORMAL):
        assert play(obs, level) == card("6C")


def test_knocker_discard_leaves_the_oracles_least_deadwood():
    """On 11-card hands built from overlapping melds (where partitions tie), the knocker's
    discard leaves what the brute-force oracle finds the least deadwood after any discard."""
    rng = random.Random(5)
    deck = [format_card("gin", c) for c in range(52)]
    improved = 0
    for _ in range(400):
        cards = set()
        while len(cards) < 11:
            c = rng.randrange(52)
            if rng.random() < 0.5:   # a run from c, or a group of c's rank
                block = [c // 13 * 13 + min(c % 13 + i, 12) for i in range(3)]
            else:
                block = [c % 13 + 13 * s for s in rng.sample(range(4), 3)]
            cards.update(block[:11 - len(cards)])
        hand = [deck[c] for c in cards]
        h = mask(hand)
        least = min(oracle_analyze("gin", [c for c in hand if c != d])[0] for d in hand)
        left = A._left(h)
        shed = deck[A._knocker_discard(h, left)]
        assert oracle_analyze("gin", [c for c in hand if c != shed])[0] == least
        if left and K.hand_value(left) - A.VALUE[A._top(left)] > least:
            improved += 1
    assert improved > 0   # the sample holds hands where the top deadwood card is not the best


@pytest.mark.parametrize("knock, best, knocks", [
    (2.0, 12.0, True),                          # a winning knock, however much better another move
    (-1.0, -1.0 + A.KNOCK_MARGIN, True),        # a losing knock within the margin of the best
    (-9.0, -9.0 + A.KNOCK_MARGIN + 0.5, False),  # a knock the search calls a clear loss
])
def test_search_levels_knock_unless_their_search_calls_it_a_clear_loss(knock, best, knocks):
    hand = ["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "10H", "JH", "2S"]
    obs = discard_obs(hand)
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    n = K.legal_from_obs(obs, legal)
    assert K.KNOCK in legal[:n]
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    runs = A.EXPERT_ITERATIONS      # the credit of normal's move is PRIOR_POINTS
    visits[legal[:n]] = runs
    values = np.full(K.NUM_ACTIONS, -50.0 * runs)
    values[K.KNOCK] = knock * runs
    values[card("2S")] = best * runs
    for level in (L.EXPERT, L.MASTER):
        chosen = A.pick(obs, values, visits, legal, n, level, np.int64(3))
        assert (chosen == K.KNOCK) == knocks and chosen in (K.KNOCK, card("2S"))


@pytest.mark.parametrize("runs", [A.EXPERT_ITERATIONS, 4 * A.EXPERT_ITERATIONS,
                                  A.EXPERT_ITERATIONS // 4, 8])
def test_search_pick_credits_the_normal_move_against_noise(runs):
    """PRIOR_POINTS of credit from EXPERT_ITERATIONS determinizations up; fewer are noisier, and
    the credit grows as EXPERT_ITERATIONS / runs."""
    credit = A.PRIOR_POINTS * max(1, A.EXPERT_ITERATIONS / runs)
    hand = ["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "QH", "JS", "4S"]
    obs = discard_obs(hand)
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    n = K.legal_from_obs(obs, legal)
    assert K.KNOCK not in legal[:n]
    normal = play(obs, L.NORMAL)
    other = next(a for a in legal[:n] if a != normal)
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    visits[legal[:n]] = runs
    values[legal[:n]] = runs * -10.0
    values[normal] = runs * 3.0
    for level in (L.EXPERT, L.MASTER):
        # another move ahead by less than the credit: normal's move stands
        values[other] = runs * (3.0 + 0.9 * credit)
        assert A.pick(obs, values, visits, legal, n, level, np.int64(5)) == normal
        # ahead by more than the credit: the search overrules the heuristic
        values[other] = runs * (3.0 + 1.1 * credit)
        assert A.pick(obs, values, visits, legal, n, level, np.int64(5)) == other


def test_master_bluff_prefers_the_stock_when_nearly_as_good():
    obs = draw_obs(["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "QH", "2S"], "4C")
    legal = np.array([K.DRAW_UPCARD, K.DRAW_STOCK], np.int64)
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    runs = A.EXPERT_ITERATIONS
    visits[legal] = runs
    values[K.DRAW_UPCARD] = runs * 5.0
    values[K.DRAW_STOCK] = runs * (5.0 - A.BLUFF_MARGIN / 2)
    picks = [A.pick(obs, values, visits, legal, 2, L.MASTER, np.int64(s)) for s in range(400)]
    share = picks.count(K.DRAW_STOCK) / len(picks)
    assert abs(share - A.BLUFF_PROB) < 0.08
    assert all(A.pick(obs, values, visits, legal, 2, L.EXPERT, np.int64(s)) == K.DRAW_UPCARD
               for s in range(20))
    values[K.DRAW_STOCK] = 100 * (5.0 - 2 * A.BLUFF_MARGIN)
    assert all(A.pick(obs, values, visits, legal, 2, L.MASTER, np.int64(s)) == K.DRAW_UPCARD
               for s in range(50))


def test_beginner_picks_a_category_first():
    """In the Knock phase the knocker may pass or lay one of six melds: a beginner passes about
    half of the time."""
    state = K.new_state(PARAMS, np.int64(0))
    state[K.S_HAND] = mask(["AC", "2C", "3C", "AD", "AH", "AS"])   # melds left to lay
    state[K.S_PHASE] = K.PH_KNOCK
    state[K.S_CURRENT] = 0
    state[K.S_KNOCKER] = 0
    legal = legal_of(state)
    assert K.PASS in legal and len(legal) >= 4
    obs = observation(state)
    rng = np.zeros(1, np.int64)
    A.seed_slot(rng, 0, np.int64(4))
    picks = [A.policy(obs, legal, len(legal), L.BEGINNER, rng) for _ in range(2000)]
    assert abs(picks.count(K.PASS) / 2000 - 0.5) < 0.05


def test_partial_melds_and_feed_risk():
    live = A.ALL
    assert A.partial_cards(mask(["9H", "9C"]), live) == mask(["9H", "9C"])
    assert A.partial_cards(mask(["9H", "9C"]), live & ~mask(["9D", "9S"])) == 0
    assert A.partial_cards(mask(["5D", "6D"]), live) == mask(["5D", "6D"])
    assert A.partial_cards(mask(["5D", "7D"]), live) == mask(["5D", "7D"])
    assert A.partial_cards(mask(["5D", "7D"]), live & ~mask(["6D"])) == 0
    assert A.partial_cards(mask(["KC", "AD"]), live) == 0        # no wrap between suits
    assert A.partial_cards(mask(["KC", "5D"]), live) == 0
    known = mask(["JH", "KH"])
    near = A._near(known)
    assert A.feed_risk(K.bit(card("QH")), known, near) == 2
    assert A.feed_risk(K.bit(card("KC")), known, near) == 1      # the rank of KH
    assert A.feed_risk(K.bit(card("9H")), known, near) == 1      # two below JH
    assert A.feed_risk(K.bit(card("QC")), known, near) == 0
    assert A.feed_risk(K.bit(card("8H")), known, near) == 0


def test_meld_id_functions_number_the_meld_table():
    # one_meld names melds through these, the rules kernel through MELD_MASK
    for rank in range(13):
        for missing in range(5):
            cards = [s * 13 + rank for s in range(4) if s != missing]
            assert K.MELD_MASK[K.set_meld_id(rank, missing)] == sum(1 << c for c in cards)
    for length in (3, 4, 5):
        for suit in range(4):
            for start in range(14 - length):
                mask = ((1 << length) - 1) << (suit * 13 + start)
                assert K.MELD_MASK[K.run_meld_id(suit, start, length)] == mask


def test_one_meld_decomposes_melded_masks():
    rng = random.Random(1)
    cands = np.empty(A.MAX_LOWEST_CARD_MELDS, dtype=np.int64)
    for _ in range(3000):
        hand = sum(1 << c for c in rng.sample(range(52), rng.choice((10, 11))))
        melded = hand & ~A._left(hand)
        rest = melded
        while rest:
            mid = A.one_meld(rest, cands)
            m = int(A.MELD_MASK[mid])
            assert rest & m == m
            rest ^= m
            assert K.exact_deadwood(rest) == 0


# ---- numba hygiene -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["policy", "search", "search_serial", "pick", "rollout", "play_game",
                                  "decide", "improve_opponent"])
def test_kernels_have_no_python_objects(positions, name):
    state = positions[K.PH_DISCARD][0]
    obs = observation(state)
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    n = K.legal_from_obs(obs, legal)
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    A.search(obs, L.EXPERT, np.int64(1), 0, 2, values, visits)   # every signature compiled
    A.search_serial(obs, L.EXPERT, np.int64(1), 0, 2, values, visits)
    A.pick(obs, values, visits, legal, n, L.EXPERT, np.int64(1))
    choose(obs, L.MASTER)
    A.play_game(PARAMS, np.int64(1), np.array([L.EXPERT, L.NORMAL], np.int64),
                np.array([2, 2], np.int64), np.int64(1), np.zeros(2))
    fn = getattr(A, name)
    assert fn.signatures
    buf = io.StringIO()
    fn.inspect_types(file=buf)
    assert "pyobject" not in buf.getvalue()


def test_master_reads_the_opponents_discards_and_declines_from_the_history():
    """The opponent model's evidence comes from the permitted history: every card the
    opponent discarded or declined (oldest first, the newest weighted most), its last card and
    the upcard it declined in its last turn; never a card the observing seat let go."""
    def evidence(game, seat):
        obs = gin.observation_array(game.observation(seat))
        cards, factors = np.empty(K.MAX_HISTORY, np.int64), np.empty(K.MAX_HISTORY)
        model = np.empty(A.MODEL_SIZE, np.int64)
        n = A._evidence(obs, cards, factors, model)
        names = [format_card("gin", int(c)) for c in cards[:n]]
        last = [format_card("gin", int(c)) if c >= 0 else None
                for c in (model[A.M_LAST], model[A.M_DECLINED])]
        return names, factors[:n].tolist(), last, int(model[A.M_LAST_DISCARDED])

    game = new_game("gin", seed=9)
    up = game.observation(0)["first_upcard"]
    game.play("pass")                     # seat 0 declines the first upcard
    assert evidence(game, 1) == ([up], [A.ALPHA], [up, None], 0)
    game.play("pass")                     # seat 1 declines it too
    game.play("draw stock")               # seat 0 declines it again
    x = game.observation(0)["hand"][0]
    game.play(f"discard {x}")
    cards, factors, last, discarded = evidence(game, 1)
    assert cards == [up, up, x] and last == [x, up] and discarded == 1
    assert 1 > factors[0] > factors[1] > factors[2] == A.ALPHA   # a lower factor weighs more
    game.play("draw stock")               # seat 1 declines x
    y = game.observation(1)["hand"][0]
    game.play(f"discard {y}")
    assert evidence(game, 0)[0] == [up, x, y] and evidence(game, 0)[2] == [y, x]
    assert evidence(game, 1)[2] == [None, None]   # not seat 1's turn: no last card



# ---- thresholds: each rule and weight at the value where it turns ------------------------------

def test_normal_feed_weight_outweighs_a_higher_card():
    """Deadwood KC 6S 3S 2H AD, no partial meld. Scores ``2 * value - 12 * feed_risk``: KC 20,
    6S 12 with nothing known of the opponent, so normal throws KC. Once the opponent has taken
    KH, KC has its rank (feed risk 1): 20 - 12 = 8 < 12, and normal keeps KC and throws 6S. (A
    feed weight of 8 points or less per unit would still throw KC.)"""
    hand = ["AC", "2C", "3C", "5D", "6D", "7D", "KC", "6S", "3S", "2H", "AD"]
    obs = discard_obs(hand)
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    assert K.KNOCK not in legal[:K.legal_from_obs(obs, legal)]   # deadwood 22, 12 after KC
    assert play(obs, L.NORMAL) == card("KC")
    assert play(discard_obs(hand, opp_known=["KH"]), L.NORMAL) == card("6S")
    assert play(discard_obs(hand, opp_known=["KH"]), L.EASY) == card("KC")   # easy ignores it


def test_partial_meld_of_adjacent_cards_is_completed_from_below_too():
    """Two adjacent cards of a suit are a partial meld if the card below *or* the card above is
    live (RULES.md §4.9): QD KD can only be completed by JD, and 5D 6D with 7D dead still by
    4D."""
    live = A.ALL
    assert A.partial_cards(mask(["QD", "KD"]), live) == mask(["QD", "KD"])
    assert A.partial_cards(mask(["QD", "KD"]), live & ~mask(["JD"])) == 0
    assert A.partial_cards(mask(["5D", "6D"]), live & ~mask(["7D"])) == mask(["5D", "6D"])
    assert A.partial_cards(mask(["5D", "6D"]), live & ~mask(["4D"])) == mask(["5D", "6D"])
    assert A.partial_cards(mask(["5D", "6D"]), live & ~mask(["4D", "7D"])) == 0
    assert A.partial_cards(mask(["AC", "2C"]), live & ~mask(["3C"])) == 0   # nothing below A


def test_normal_plays_on_for_gin_with_exactly_gin_hold_stock_cards():
    """Deadwood 2S + 3H = 5 after discarding KC: normal plays on for gin while the stock holds
    at least GIN_HOLD_STOCK (10) cards, so at 10 it still discards KC, and knocks at 9."""
    hand = ["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "10H", "JH", "2S"]
    assert A.GIN_HOLD_STOCK == 10
    assert play(discard_obs(hand, stock_size=11), L.NORMAL) == card("KC")
    assert play(discard_obs(hand, stock_size=10), L.NORMAL) == card("KC")
    assert play(discard_obs(hand, stock_size=9), L.NORMAL) == K.KNOCK
    assert play(discard_obs(hand, stock_size=10), L.EASY) == K.KNOCK


def test_normal_takes_an_upcard_pairing_a_single_when_its_discard_is_worth_as_much():
    """Deadwood JS KC 8S 4H, all singles. JH melds nothing yet, but pairs JS with JC and JD
    both live; normal's discard afterwards (JS and JH a live pair: JS 20 - 16 = 4, KC 20, 8S 16,
    4H 8) is KC, worth 10, at least JH's 10: normal takes the upcard (RULES.md §4.9, draw rule
    (b)). Easy only swaps down, and JH is worth no less than KC: it draws from the stock. Once
    JD is dead, JH's pair has one live completer and normal draws from the stock too."""
    hand = ["AC", "2C", "3C", "5D", "6D", "7D", "JS", "KC", "8S", "4H"]
    assert play(draw_obs(hand, "JH"), L.NORMAL) == K.DRAW_UPCARD
    assert play(draw_obs(hand, "JH"), L.EASY) == K.DRAW_STOCK
    assert play(draw_obs(hand, "JH", opp_known=["JD"]), L.NORMAL) == K.DRAW_STOCK


def layoff_obs(hand, knocker_melds, laid_off=()):
    """A Layoff-phase observation of the defender, seat 0, holding ``hand`` against seat 1's
    laid ``knocker_melds`` (card lists) and the cards ``laid_off`` so far."""
    obs = discard_obs(hand)
    obs[K.O_PHASE] = K.PH_LAYOFF
    obs[K.O_HAND_SIZES] = len(hand)
    obs[K.O_KNOCKER] = 1
    obs[K.O_MELD_COUNT + 1] = len(knocker_melds)
    for i, meld in enumerate(knocker_melds):
        obs[K.O_MELDS + K.MAX_MELDS_LAID + i] = list(A.MELD_MASK).index(mask(meld))
    obs[K.O_LAYOFF_COUNT] = len(laid_off)
    for i, c in enumerate(laid_off):
        obs[K.O_LAYOFFS + i] = card(c)
    return obs


def test_defender_lays_off_a_melded_card_only_when_a_chain_from_it_lowers_its_deadwood():
    """The knocker laid 7S 8S 9S. The defender's 6S fits, but 3S-6S less 6S is still a run:
    deadwood stays KC = 10 and 6S stays in hand. With 5C 5D 5S 6S 7S (best: 5S-7S, deadwood
    5C 5D = 10) and 8S-10S laid, 7S fits and its lay-off leaves 5C 5D 5S and 6S: deadwood 6,
    and 6S then fits too: deadwood 0. Once 7S and then 6S are laid off on 8S-10S, the deadwood
    card 5S does not fit (a run takes one card beyond a laid-off card, no more): a pass."""
    for level in (L.EASY, L.NORMAL):
        assert play(layoff_obs(["3S", "4S", "5S", "6S", "KC"], [["7S", "8S", "9S"]]),
                    level) == K.PASS
        obs = layoff_obs(["5C", "5D", "5S", "6S", "7S"], [["8S", "9S", "10S"]])
        assert play(obs, level) == card("7S")
        obs = layoff_obs(["5C", "5D", "5S", "6S"], [["8S", "9S", "10S"]], laid_off=["7S"])
        assert play(obs, level) == card("6S")
        obs = layoff_obs(["5S", "KD", "QC"], [["8S", "9S", "10S"]], laid_off=["7S", "6S"])
        assert play(obs, level) == K.PASS


def test_search_scores_a_gin_knock_at_least_the_gin_bonus():
    """AC-4C, 5D-7D, 9H-QH: knocking (and discarding AC, 4C, 9H or QH) is gin, which no lay-off
    answers, so every playout of the knock returns the defender's deadwood + 25 >= 25 to the
    searching seat (RULES.md §5 scoring); the search levels then knock."""
    hand = ["AC", "2C", "3C", "4C", "5D", "6D", "7D", "9H", "10H", "JH", "QH"]
    obs = discard_obs(hand)
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    n = K.legal_from_obs(obs, legal)
    assert K.KNOCK in legal[:n]
    for level in (L.EXPERT, L.MASTER):
        values = np.zeros(K.NUM_ACTIONS)
        visits = np.zeros(K.NUM_ACTIONS, np.int64)
        A.search_serial(obs, level, np.int64(2), 0, 12, values, visits)
        assert visits[K.KNOCK] == 12
        assert values[K.KNOCK] / visits[K.KNOCK] >= PARAMS[1]
        assert A.pick(obs, values, visits, legal, n, level, np.int64(2)) == K.KNOCK


def test_master_model_weighs_down_a_hand_that_would_meld_the_declined_card():
    """The opponent last declined 7H. A sampled hand holding 5H 6H would have melded it: its
    weight is multiplied by EPS_LAST; a hand in which 7H melds nothing keeps weight 1."""
    cards = np.zeros(K.MAX_HISTORY, np.int64)
    factors = np.ones(K.MAX_HISTORY)
    last = card("7H")

    def weight(hand):
        return A._model_weight(np.int64(mask(hand)), np.int64(0), cards, factors, 0,
                               np.int64(last), np.int64(0), np.int64(-1), np.int64(0),
                               np.int64(0))

    melding = ["AC", "2C", "3C", "5D", "6D", "7D", "5H", "6H", "KS", "QC"]
    loose = ["AC", "2C", "3C", "5D", "6D", "7D", "2S", "9S", "KS", "QC"]
    assert abs(weight(melding) - A.EPS_LAST) < 1e-12
    assert weight(loose) == 1.0


def test_master_model_weighs_down_a_taken_upcard_in_no_meld():
    """Normal takes an upcard to complete a meld: a sampled hand in which the opponent's taken
    KH melds (KC KD KH) keeps weight 1, one in which KH and 4S lie loose weighs BETA ** 2."""
    cards = np.zeros(K.MAX_HISTORY, np.int64)
    factors = np.ones(K.MAX_HISTORY)

    def weight(hand, known):
        return A._model_weight(np.int64(mask(hand)), np.int64(mask(known)), cards, factors, 0,
                               np.int64(-1), np.int64(0), np.int64(-1), np.int64(0), np.int64(0))

    assert weight(["AC", "2C", "3C", "5D", "6D", "7D", "KC", "KD", "KH", "QC"], ["KH"]) == 1.0
    loose = ["AC", "2C", "3C", "5D", "6D", "7D", "4S", "9D", "KH", "QC"]
    assert abs(weight(loose, ["KH"]) - A.BETA) < 1e-12
    assert abs(weight(loose, ["KH", "4S"]) - A.BETA ** 2) < 1e-12
    assert weight(loose, []) == 1.0


def test_replayed_turns_are_half_the_turns_played_plus_extra():
    """Six stock draws and four upcard takes are ten turns: the sampled opponent hand replays
    10 // 2 + IMPROVE_EXTRA greedy turns; none before the first Draw phase."""
    obs = discard_obs(["AC", "2C", "3C", "4C", "5D", "6D", "7D", "9H", "10H", "JH", "QH"])
    obs[K.O_STOCK_SIZE] = K.INITIAL_STOCK - 6
    obs[K.O_UPCARD_DRAWS] = 4
    assert A.IMPROVE_EXTRA > 0
    assert A.improve_turns(obs) == 5 + A.IMPROVE_EXTRA
    obs[K.O_PHASE] = K.PH_FIRST_UPCARD
    assert A.improve_turns(obs) == 0


def test_replayed_opponent_stops_at_exactly_the_knock_card():
    """The opponent draws 9H (3D-6D, 7H-9H melded): its top deadwood card 9C would leave AS 2C
    7S = 10, exactly the knock card, a hand it would have knocked with: the swap is not made.
    With a floor of 9 the same swap leaves 10 > 9 and is made."""
    hand = mask("3D 4D 5D 6D 7H 8H 9C AS 2C 7S".split())
    for floor, expected, stock_card in ((10, hand, "9H"),
                                        (9, mask("3D 4D 5D 6D 7H 8H 9H AS 2C 7S".split()), "9C")):
        world = K.new_state(PARAMS, np.int64(3))
        world[K.S_HAND + 1] = hand
        world[K.S_STOCK_SIZE] = 1
        world[K.S_STOCK] = card("9H")
        A.improve_opponent(world, 1, np.int64(0), 1, floor)
        assert int(world[K.S_HAND + 1]) == expected
        assert int(world[K.S_STOCK]) == card(stock_card)


def test_normal_lays_off_a_chain_whose_first_card_alone_lowers_nothing():
    """From a ladder audit (helper-79): the defender 4C JC 4D 7H 9H 2S 3S 4S 5S 6S (deadwood 34,
    2S-6S melded) faces the knocker's 7S-8S-9S (deadwood 8). Laying off 6S alone leaves 34, but
    then 5S fits, and 4S melds with 4C 4D: deadwood 31, -23 where the pass scores -26. Easy and
    normal used to lay off only a card that lowered the deadwood on its own, and passed."""
    g = new_game("gin", seed=5455)
    for m in [54, 54, 53, 2, 52, 12, 53, 25, 53, 37, 53, 11, 53, 49, 53, 45, 52, 9, 53, 47, 52,
              17, 53, 19, 53, 55, 4, 183, 160, 54]:
        g.play(m)
    assert g.observation(0)["phase"] == "layoff" and g.to_move == 0
    for level in ("easy", "normal"):
        h = copy.deepcopy(g)
        while not h.is_over:
            h.play(suggest(h.observation(h.to_move), level=level).move.id)
        assert h.returns[0] == -23.0, level


def _layoff_states(count, seed):
    """Layoff-phase states with the defender's hand redealt from the cards near the knocker's
    melds, so that chains of lay-offs are common."""
    rng = random.Random(seed)
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    out = []
    while len(out) < count:
        state = K.new_state(PARAMS, np.int64(rng.randrange(1 << 40)))
        while not K.is_terminal(state) and not (state[K.S_PHASE] == K.PH_LAYOFF
                                                and not state[K.S_FINISHED_LAYOFFS]):
            n = K.legal_actions(state, buf)
            K.apply_action(state, A.policy(observation(state), buf, n, L.EASY,
                                           np.zeros(1, np.int64)))
        if K.is_terminal(state):
            continue
        defender = 1 - int(state[K.S_KNOCKER])
        table = int(A._obs_table(observation(state)))
        free = [c for c in range(K.NUM_CARDS)
                if not (table | int(state[K.S_HAND + 1 - defender])) >> c & 1]
        near = [c for c in free if any(table >> t & 1 and (t % 13 == c % 13 or (
            t // 13 == c // 13 and abs(t % 13 - c % 13) <= 3)) for t in range(K.NUM_CARDS))]
        hand = set(rng.sample(near, min(len(near), rng.randrange(4, 9))))
        hand |= set(rng.sample([c for c in free if c not in hand], K.HAND_SIZE - len(hand)))
        state[K.S_HAND + defender] = sum(1 << c for c in hand)
        out.append(state)
    return out


def _deadwood(hand_mask):
    return oracle_analyze("gin", [format_card("gin", c) for c in range(K.NUM_CARDS)
                                  if hand_mask >> c & 1])[0]


def best_layoff_deadwood(state, memo, allowed=~0):
    """The least deadwood any sequence of legal lay-offs of the cards ``allowed`` leaves, by
    the engine's own moves."""
    seat = int(state[K.S_CURRENT])
    h = int(state[K.S_HAND + seat])
    if h not in memo:
        best = _deadwood(h)
        for a in legal_of(state):
            if a < K.NUM_CARDS and allowed >> a & 1:
                after = state.copy()
                K.apply_action(after, a)
                best = min(best, best_layoff_deadwood(after, memo, allowed))
        memo[h] = best
    return memo[h]


def test_easy_and_normal_lay_off_down_to_the_least_deadwood_any_chain_leaves():
    """Against a brute force over the engine's legal lay-offs, with an independent deadwood
    oracle: the lay-offs easy and normal play, one at a time, end at the least deadwood."""
    chains = 0
    for state in _layoff_states(300, seed=4):
        best = best_layoff_deadwood(state, {})
        fitting_now = sum(1 << int(a) for a in legal_of(state) if a < K.NUM_CARDS)
        chains += best < best_layoff_deadwood(state, {}, fitting_now)
        seat = int(state[K.S_CURRENT])
        for level in (L.EASY, L.NORMAL):
            s = state.copy()
            while not s[K.S_FINISHED_LAYOFFS]:
                move = play(observation(s), level)
                assert move in legal_of(s)
                K.apply_action(s, move)
                if move == K.PASS:
                    break
            assert _deadwood(int(s[K.S_HAND + seat])) == best
    assert chains >= 10, chains         # the positions do exercise chains


def test_search_takes_a_lay_off_chain_worth_one_point_over_normals_pass():
    """From a hint audit (helper-79): the defender 5C 2D 3D 7D 5H 6H 4S 5S 7S against the
    knocker's 6C-7C-8C and 2H-3H-4H (deadwood 9). Passing melds 5C 5H 5S: deadwood 29, -20.
    Laying off 5C (then 5H and 6H) leaves 28: -19. Normal then laid off a card only when that
    card alone lowered its deadwood, so it passed; the search counted -19 against -20 exactly
    (the Layoff phase hides nothing) but credited normal's pass a point and played it. The
    search must find the chain without the credit, whatever normal plays."""
    g = new_game("gin", seed=5908)
    for m in [54, 52, 38, 53, 37, 53, 25, 53, 10, 53, 12, 53, 19, 52, 9, 53, 47, 53, 48, 53, 46,
              52, 34, 53, 35, 53, 36, 53, 31, 52, 46, 53, 55, 44, 126, 144, 54, 26]:
        g.play(m)
    assert g.observation(1)["phase"] == "layoff"
    for level in ("expert", "master"):
        for iterations in (None, 64):
            h = copy.deepcopy(g)
            while not h.is_over:
                h.play(suggest(h.observation(h.to_move), level=level, iterations=iterations,
                               seed=1).move.id)
            assert h.returns[1] == -19.0, (level, iterations)


def layoff_observation(hand, knocker_melds, layoffs=()):
    """The defender's (seat 1's) observation in the Layoff phase, as a server would send it: seat
    0 took the first upcard 2H, knocked, discarded 3D and laid ``knocker_melds``, keeping AC AD
    2H (deadwood 4); seat 1 holds ``hand`` and has laid off ``layoffs``."""
    history = [{"seat": 0, "move": "draw upcard"}, {"seat": 0, "move": "knock"},
               {"seat": 0, "move": "discard 3D"}]
    history += [{"seat": 0, "move": "lay meld " + " ".join(meld)} for meld in knocker_melds]
    history += [{"seat": 0, "move": "pass"}]
    history += [{"seat": 1, "move": f"lay off {card}"} for card in layoffs]
    return {"format": "meldmind.observation", "version": 1, "variant": "gin", "seat": 1,
            "parameters": {"knock_card": 10, "gin_bonus": 25, "undercut_bonus": 25},
            "phase": "layoff", "to_move": 1, "hand": list(hand), "hand_sizes": [3, len(hand)],
            "known_cards": [["AC", "AD", "2H"], []], "upcard": None, "prev_upcard": "2H",
            "discard_pile": ["3D"], "stock_size": 31, "upcard_draws": 0, "repeated_move": False,
            "passed_first_upcard": [False, False], "knocker": 0, "finished_layoffs": False,
            "melds": [[list(meld) for meld in knocker_melds], []], "layoffs": list(layoffs),
            "deadwood": [4, None], "end": None, "first_upcard": "2H", "history": history}


def test_search_passes_rather_than_lay_off_a_card_that_changes_nothing():
    """The defender 2C 3C 9C KD 5H 6H 7H 8H 3S 7S (deadwood 34) against 9H-QH and 4C 4D 4S: 8H
    can go below 9H and leaves 5H-7H melded, so the deadwood stays 34 (laying 7H after it would
    raise it). The Layoff phase hides nothing, so the search scores the lay-off and the pass
    alike, -30; on that exact tie it plays normal's pass, not the lower id, whose hint would
    advise a lay-off that changes nothing."""
    obs = layoff_observation(["2C", "3C", "9C", "KD", "5H", "6H", "7H", "8H", "3S", "7S"],
                             [["9H", "10H", "JH", "QH"], ["4C", "4D", "4S"]])
    assert suggest(obs, level="normal").move.text == "pass"
    for level in ("expert", "master"):
        hint = suggest(obs, level=level, iterations=64, seed=3)
        values = {alt.move.text: alt.value for alt in hint.alternatives}
        assert values == {"pass": -30.0, "lay off 8H": -30.0}, values
        assert hint.move.text == "pass", (level, hint.move.text)
