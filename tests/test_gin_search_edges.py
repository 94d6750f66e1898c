"""The gin search levels at their edges (kernels/ai_gin.py: the module docstring's *expert* and
*master*, RULES.md §6): stories from a mutation audit of the search, its determinizations, the
opponent model, ``pick`` and the game loops, each pinning a behaviour the suite did not check.

Hands are written as card lists (``parse_cards`` notation); card values A 1, 2-10 face, J Q K 10.
"""
import numpy as np
import pytest

from meldmind import new_game
from meldmind.games import gin
from test_ai_gin import (A, K, L, PARAMS, card, discard_obs, draw_obs, legal_of, mask,
                         observation, play, random_positions)


def legal_moves(obs):
    """The legal moves of an observation array: (buffer, how many)."""
    legal = np.empty(K.NUM_ACTIONS, np.int64)
    return legal, int(K.legal_from_obs(obs, legal))


def statistics(means, visits=A.EXPERT_ITERATIONS):
    """``pick``'s inputs for the mean returns ``means`` ({action: mean}), ``visits`` playouts
    each (means that are multiples of 1/8 stay exact; from ``EXPERT_ITERATIONS`` visits up, the
    credit of normal's move is ``PRIOR_POINTS``)."""
    values = np.zeros(K.NUM_ACTIONS)
    counts = np.zeros(K.NUM_ACTIONS, np.int64)
    for a, m in means.items():
        values[a] = m * visits
        counts[a] = visits
    return values, counts


# ---------------------------------------------------------------------------------------------
# pick
# ---------------------------------------------------------------------------------------------

# AC-3C, 5D-7D, then KC 9H QH JS 4S: no knock; normal throws KC (the top card, no partial meld)
NO_KNOCK = ["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "QH", "JS", "4S"]
# AC-3C, 5D-7D, 9H-JH, then KC 2S: knocking (KC out, deadwood 2) is legal
KNOCKABLE = ["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "10H", "JH", "2S"]


def test_two_moves_of_equal_mean_return_tie_to_the_lower_id():
    """``pick``: "otherwise the highest mean return ... (ties: the lower id)". Normal would throw
    KC, but the search rates it 10 points below QH and JS, which tie at +3 (JS's mean only
    ahead by less than TIE_EPS): QH, the lower id, is played."""
    obs = discard_obs(NO_KNOCK)
    legal, n = legal_moves(obs)
    assert play(obs, L.NORMAL) == card("KC")
    means = {a: -20.0 for a in legal[:n]}
    means[card("KC")] = -7.0
    means[card("QH")] = 3.0
    means[card("JS")] = 3.0
    assert card("QH") < card("JS")
    for level in (L.EXPERT, L.MASTER):
        assert A.pick(obs, *statistics(means), legal, n, level, np.int64(1)) == card("QH")
        values, visits = statistics(means)
        values[card("JS")] += visits[card("JS")] * A.TIE_EPS / 4
        assert A.pick(obs, values, visits, legal, n, level, np.int64(1)) == card("QH")


def test_with_no_playouts_at_all_every_move_ties_and_the_first_legal_move_is_played():
    """A search level given no determinization (``decide`` with ``iterations`` 0, as a game
    loop may be) has no mean return for any move: all tie, and the tie goes to the lower id,
    the first legal move; where the Discard phase allows a knock it knocks."""
    for obs in (discard_obs(NO_KNOCK), draw_obs(NO_KNOCK[:10], "8C")):
        legal, n = legal_moves(obs)
        for level in (L.EXPERT, L.MASTER):
            assert A.decide(obs, legal, n, level, 0, np.int64(4), np.zeros(1, np.int64)) == legal[0]
    obs = discard_obs(KNOCKABLE)
    legal, n = legal_moves(obs)
    assert K.KNOCK in legal[:n]
    for level in (L.EXPERT, L.MASTER):
        assert A.decide(obs, legal, n, level, 0, np.int64(4), np.zeros(1, np.int64)) == K.KNOCK


def test_a_knock_that_breaks_even_is_played_however_much_better_another_move_looks():
    """``pick`` knocks "unless the knock's mean return is negative and KNOCK_MARGIN below the
    best": a knock worth exactly 0 on average is not negative, so it is played although
    discarding 2S and playing on averages 12 points."""
    obs = discard_obs(KNOCKABLE)
    legal, n = legal_moves(obs)
    means = {a: -5.0 for a in legal[:n]}
    means[K.KNOCK] = 0.0
    means[card("2S")] = 12.0
    for level in (L.EXPERT, L.MASTER):
        assert A.pick(obs, *statistics(means), legal, n, level, np.int64(2)) == K.KNOCK
    means[K.KNOCK] = -0.125           # now negative, and 12.125 points below the best
    for level in (L.EXPERT, L.MASTER):
        assert A.pick(obs, *statistics(means), legal, n, level, np.int64(2)) == card("2S")


def test_the_normal_move_keeps_its_credit_at_exactly_prior_points_behind():
    """The normal policy's move gets PRIOR_POINTS of credit: QH ahead of normal's KC by exactly
    PRIOR_POINTS still leaves KC played; a hair more and QH is played."""
    obs = discard_obs(NO_KNOCK)
    legal, n = legal_moves(obs)
    means = {a: -20.0 for a in legal[:n]}
    means[card("KC")] = 2.0
    means[card("QH")] = 2.0 + A.PRIOR_POINTS
    for level in (L.EXPERT, L.MASTER):
        assert A.pick(obs, *statistics(means), legal, n, level, np.int64(3)) == card("KC")
    means[card("QH")] = 2.125 + A.PRIOR_POINTS
    for level in (L.EXPERT, L.MASTER):
        assert A.pick(obs, *statistics(means), legal, n, level, np.int64(3)) == card("QH")


def test_the_credit_goes_to_normals_move_not_easys():
    """Deadwood QC QH 9H 9C 2S; the opponent holds JH and KH, QD and QS are dead. Easy throws QH
    (the top card); normal keeps QH from the opponent's run and throws QC. The search rates QH
    0.5 points above QC: within the credit of the normal move, so QC is played."""
    hand = ["AC", "2C", "3C", "QC", "5D", "6D", "7D", "9H", "QH", "2S", "9C"]
    obs = discard_obs(hand, opp_known=["JH", "KH"], pile=["QD", "QS"])
    legal, n = legal_moves(obs)
    assert play(obs, L.EASY) == card("QH")
    assert play(obs, L.NORMAL) == card("QC")
    means = {a: -20.0 for a in legal[:n]}
    means[card("QH")] = 4.5
    means[card("QC")] = 4.0
    for level in (L.EXPERT, L.MASTER):
        assert A.pick(obs, *statistics(means), legal, n, level, np.int64(3)) == card("QC")


def test_master_bluffs_with_a_stock_draw_exactly_bluff_margin_behind():
    """Master's bluff: drawing from the stock "within BLUFF_MARGIN points of mean return" of
    taking the upcard is played with probability BLUFF_PROB; exactly BLUFF_MARGIN behind is
    within."""
    obs = draw_obs(["AC", "2C", "3C", "KC", "5D", "6D", "7D", "9H", "QH", "2S"], "4C")
    legal = np.array([K.DRAW_UPCARD, K.DRAW_STOCK], np.int64)
    values, visits = statistics({K.DRAW_UPCARD: 5.0, K.DRAW_STOCK: 5.0 - A.BLUFF_MARGIN})
    picks = [A.pick(obs, values, visits, legal, 2, L.MASTER, np.int64(s)) for s in range(200)]
    assert 0.6 < picks.count(K.DRAW_STOCK) / len(picks) < 0.9


# ---------------------------------------------------------------------------------------------
# master's evidence and opponent model
# ---------------------------------------------------------------------------------------------

def evidence_arrays(obs):
    """``_evidence`` of an observation array, as the search reads it: (cards, factors, how
    many, model)."""
    cards, factors = np.empty(K.MAX_HISTORY, np.int64), np.empty(K.MAX_HISTORY)
    model = np.empty(A.MODEL_SIZE, np.int64)
    return cards, factors, A._evidence(obs, cards, factors, model), model


def evidence_of(obs):
    """``_evidence`` of an observation array: (cards, factors, last, discarded?, declined)."""
    cards, factors, n, model = evidence_arrays(obs)
    return (cards[:n].tolist(), factors[:n].tolist(), int(model[A.M_LAST]),
            int(model[A.M_LAST_DISCARDED]), int(model[A.M_DECLINED]))


def game_evidence(game, seat):
    return evidence_of(gin.observation_array(game.observation(seat)))


def test_an_upcard_taken_on_a_later_turn_clears_an_old_decline():
    """Seat 0 passes on the first upcard; seat 1 takes it and throws a card, which seat 0 takes
    before discarding. Seat 0's last turn declined nothing: the first upcard it passed on
    earlier is evidence (a card it did not want) but not "the upcard it declined in its last
    turn"."""
    game = new_game("gin", seed=9)
    up = game.observation(0)["first_upcard"]
    game.play("pass")
    game.play("draw upcard")
    y = next(c for c in game.observation(1)["hand"] if c != up)
    game.play(f"discard {y}")
    game.play("draw upcard")
    z = next(c for c in game.observation(0)["hand"] if c != y)
    game.play(f"discard {z}")
    cards, _factors, last, discarded, declined = game_evidence(game, 1)
    assert cards == [card(up), card(z)]
    assert (last, discarded, declined) == (card(z), 1, -1)


def test_evidence_fades_by_gamma_per_newer_card():
    """f(age) = 1 - (1 - ALPHA) * GAMMA ** age for every card the opponent discarded or
    declined, age 0 the newest: three cards weigh 1 - 0.75 * 0.85 ** 2, 1 - 0.75 * 0.85 and
    ALPHA."""
    game = new_game("gin", seed=9)
    game.play("pass")
    game.play("pass")
    game.play("draw stock")
    game.play(f"discard {game.observation(0)['hand'][0]}")
    cards, factors, *_ = game_evidence(game, 1)
    assert len(cards) == 3
    expected = [1 - (1 - A.ALPHA) * A.GAMMA ** age for age in (2, 1, 0)]
    assert factors == pytest.approx(expected, abs=1e-12)


def policy_game(deal, level, until):
    """A game of two ``level`` seats (a policy level) from ``deal``, up to the first state for
    which ``until(state)`` holds."""
    state = K.new_state(PARAMS, np.int64(deal))
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    rng = np.zeros(1, np.int64)
    A.seed_slot(rng, 0, np.int64(deal))
    while not until(state):
        assert not K.is_terminal(state)
        n = K.legal_actions(state, buf)
        K.apply_action(state, A.policy(observation(state), buf, n, level, rng))
    return state


def test_the_knockers_discard_after_its_knock_is_no_evidence():
    """``_evidence``: "the end phases show hands, not preferences". The opponent knocks and, in
    the Knock phase, sheds a card to get down to ten: the defender's evidence stops at the
    knock, its last card is the one it discarded the turn before."""
    state = policy_game(1, L.EASY, lambda st: st[K.S_PHASE] == K.PH_LAYOFF)
    obs = observation(state)
    seat = int(obs[K.O_SEAT])
    history = [int(e) for e in obs[K.O_HISTORY:K.O_HISTORY + obs[K.O_HISTORY_COUNT]]]
    at = next(i for i, e in enumerate(history) if e // 2 == K.KNOCK)
    assert history[at] % 2 == 1 - seat
    shed = next(e // 2 for e in history[at + 1:] if e // 2 < K.NUM_CARDS)
    before = [e // 2 for e in history[:at] if e % 2 == 1 - seat and e // 2 < K.NUM_CARDS]
    assert shed not in before
    cards, _factors, last, discarded, _declined = evidence_of(obs)
    assert shed not in cards
    assert (last, discarded) == (before[-1], 1)


def weight(hand, known=(), cards=(), factors=(), last=None, discarded=False, declined=None):
    """``_model_weight`` of the opponent hand ``hand`` (nothing dead, no known card of ours)."""
    c = np.zeros(K.MAX_HISTORY, np.int64)
    f = np.ones(K.MAX_HISTORY)
    for i, (x, fx) in enumerate(zip(cards, factors)):
        c[i], f[i] = card(x), fx
    return A._model_weight(np.int64(mask(hand)), np.int64(mask(known)), c, f, len(cards),
                           np.int64(card(last) if last else -1), np.int64(discarded),
                           np.int64(card(declined) if declined else -1), np.int64(0),
                           np.int64(0))


def test_a_hand_from_which_normal_would_not_have_thrown_the_last_discard_weighs_eps_choice():
    """The opponent's last move was to discard 9S. With 2S besides its melds, normal would throw
    9S (18 against 4): weight 1. With KS instead, normal would have thrown KS (20 against 18),
    so that hand weighs EPS_CHOICE."""
    melds = ["AC", "2C", "3C", "5D", "6D", "7D", "4H", "5H", "6H"]
    assert weight(melds + ["2S"], last="9S", discarded=True) == 1.0
    assert weight(melds + ["KS"], last="9S", discarded=True) == pytest.approx(A.EPS_CHOICE)


def test_a_declined_upcard_it_could_meld_only_by_breaking_a_better_meld_says_nothing():
    """The opponent declined 2D. Holding 2C and the run 2H 3H 4H, it could meld 2D in the group
    2C 2D 2H, but that leaves 3H 4H (7 points) where keeping the run leaves 2C 2D (4): 2D would
    not be melded in its best partition, so normal declines it and the hand keeps weight 1.
    Holding 2S as well, 2C 2D 2S would be melded: EPS_LAST."""
    rest = ["6D", "7D", "8D", "JS", "QS", "KC"]
    assert weight(rest + ["2H", "3H", "4H", "2C"], declined="2D") == 1.0
    rest[-1] = "2S"
    assert weight(rest + ["2H", "3H", "4H", "2C"], declined="2D") == pytest.approx(A.EPS_LAST)


def test_the_ace_of_clubs_counts_as_a_last_card_and_as_a_declined_upcard():
    """AC is card 0. A hand holding 2C 3C would meld it: as the last card the opponent declined
    it weighs EPS_LAST, and so it does as the upcard declined before a discard."""
    hand = ["2C", "3C", "5D", "6D", "7D", "9H", "10H", "JH", "KS", "QS"]
    assert card("AC") == 0
    assert weight(hand, last="AC") == pytest.approx(A.EPS_LAST)
    assert weight(hand, declined="AC") == pytest.approx(A.EPS_LAST)


def test_every_discarded_card_the_hand_would_meld_multiplies_its_factor_the_newest_too():
    """The opponent threw QS, then 7H (the newest, f = ALPHA). A hand melding 7H (with 5H 6H)
    weighs ALPHA, one melding QS (with QC QD) f(1), one melding both their product."""
    older, newest = 1 - (1 - A.ALPHA) * A.GAMMA, A.ALPHA
    evidence = dict(cards=["QS", "7H"], factors=[older, newest])
    base = ["AC", "2C", "3C", "9D", "KD"]
    assert weight(base + ["5H", "6H", "2S", "4S", "8S"], **evidence) == pytest.approx(newest)
    assert weight(base + ["QC", "QD", "2S", "4S", "8S"], **evidence) == pytest.approx(older)
    assert weight(base + ["5H", "6H", "QC", "QD", "8S"], **evidence) == pytest.approx(
        older * newest)


# ---------------------------------------------------------------------------------------------
# the search: determinizations and playouts
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def search_positions():
    """Draw, first-upcard and Discard positions of mixed-level games."""
    found = random_positions(3, seed=3)
    return found[K.PH_FIRST_UPCARD] + found[K.PH_DRAW] + found[K.PH_DISCARD]


def playouts(obs, level, seed, first, count, reply):
    """The search as the module docstring tells it: determinization ``k`` is
    ``_determinization`` seeded ``mix(seed, k)``; every legal move is applied to a copy and
    played out by ``rollout``, the observing seat easy and its opponent ``reply``."""
    seat = int(obs[K.O_SEAT])
    cards, factors, n_ev, model = evidence_arrays(obs)
    legal, n = legal_moves(obs)
    pols = [A.POL_EASY, A.POL_EASY]
    pols[1 - seat] = reply
    values, visits = np.zeros(K.NUM_ACTIONS), np.zeros(K.NUM_ACTIONS, np.int64)
    for k in range(first, first + count):
        world = A._determinization(obs, level, A.mix(seed, k), cards, factors, n_ev, model)
        for a in legal[:n]:
            played = world.copy()
            K.apply_action(played, a)
            values[a] += A.rollout(played, seat, pols[0], pols[1], np.full(6, -1, np.int64),
                                   A._pile_mask(played),
                                   np.empty(A.MAX_LOWEST_CARD_MELDS, np.int64))
            visits[a] += 1
    return values, visits


def test_the_search_plays_every_move_out_with_the_seat_easy_and_the_opponent_by_level(
        search_positions):
    """Expert's playouts play the opponent by normal, master's by easy (master 3.,
    anticipation), the observing seat easy in both; determinizations ``first .. first + count
    - 1`` of a call are the ones numbered so. ``search_serial`` over determinizations 3..8 adds
    exactly those playouts up (its caches of the hands' deadwood change nothing)."""
    differs = {L.EXPERT: 0, L.MASTER: 0}
    for state in search_positions:
        obs = observation(state)
        for level, reply, other in ((L.EXPERT, A.POL_NORMAL, A.POL_EASY),
                                    (L.MASTER, A.POL_EASY, A.POL_NORMAL)):
            values, visits = np.zeros(K.NUM_ACTIONS), np.zeros(K.NUM_ACTIONS, np.int64)
            A.search_serial(obs, level, np.int64(7), 3, 6, values, visits)
            expected = playouts(obs, level, 7, 3, 6, reply)
            assert np.array_equal(values, expected[0]) and np.array_equal(visits, expected[1])
            differs[level] += not np.array_equal(values, playouts(obs, level, 7, 3, 6, other)[0])
    assert differs[L.EXPERT] and differs[L.MASTER]   # the opponent's policy shows in the sums


def stock_draw_playouts(obs, k):
    """Expert's playout of drawing from the stock on determinization ``k`` (seed 7), with the
    upcard that the draw buries dead (as ``_pile_mask`` then has it) and with it live."""
    seat = int(obs[K.O_SEAT])
    cards, factors, n_ev, model = evidence_arrays(obs)
    world = A._determinization(obs, L.EXPERT, A.mix(7, k), cards, factors, n_ev, model)
    pols = [A.POL_EASY, A.POL_EASY]
    pols[1 - seat] = A.POL_NORMAL
    returns = []
    for dead in (True, False):
        played = world.copy()
        upcard = int(played[K.S_UPCARD])
        K.apply_action(played, K.DRAW_STOCK)
        pile = int(A._pile_mask(played)) & ~(0 if dead else 1 << upcard)
        returns.append(A.rollout(played, seat, pols[0], pols[1], np.full(6, -1, np.int64),
                                 np.int64(pile), np.empty(A.MAX_LOWEST_CARD_MELDS, np.int64)))
    return returns


def test_the_upcard_a_stock_draw_declines_is_dead_in_the_playouts(search_positions):
    """Drawing from the stock buries the upcard in the discard pile: in the playouts it is dead,
    no card normal's opponent may hope to complete a partial meld with. In this position's
    first determinization that changes how the playout ends."""
    obs = observation(search_positions[3])
    assert obs[K.O_PHASE] == K.PH_DRAW
    dead, live = stock_draw_playouts(obs, 0)
    assert dead != live
    values, visits = np.zeros(K.NUM_ACTIONS), np.zeros(K.NUM_ACTIONS, np.int64)
    A.search_serial(obs, L.EXPERT, np.int64(7), 0, 1, values, visits)
    assert values[K.DRAW_STOCK] == dead


def test_the_first_upcard_both_seats_passed_is_dead_in_the_playouts_of_the_forced_draw():
    """Both seats pass on the first upcard; the non-dealer must draw from the stock, which
    buries that upcard in the discard pile, as a stock draw in the Draw phase does. The search
    of that forced move (a hint searches it, and shows its value) plays it out with the upcard
    dead: in determinization 1 of deal 3 the playout ends 40 points apart the other way."""
    state = K.new_state(PARAMS, np.int64(3))
    K.apply_action(state, K.PASS)
    K.apply_action(state, K.PASS)
    obs = observation(state)
    assert obs[K.O_PHASE] == K.PH_FIRST_UPCARD and legal_of(state).tolist() == [K.DRAW_STOCK]
    dead, live = stock_draw_playouts(obs, 1)
    assert dead != live
    values, visits = np.zeros(K.NUM_ACTIONS), np.zeros(K.NUM_ACTIONS, np.int64)
    A.search_serial(obs, L.EXPERT, np.int64(7), 1, 1, values, visits)
    assert values[K.DRAW_STOCK] == dead


def modelled_world(obs, dseed):
    """Master's determinization as the module docstring tells it (master 2.): candidates
    ``j = 0 .. MODEL_TRIES - 1`` seeded ``mix(dseed, j)``, each expert-style (``_sample``), the
    first kept with probability ``w(H)`` of its opponent hand (one uniform draw of a stream
    seeded ``dseed`` per candidate), else the first of the highest weight. ``w`` reads the
    opponent's evidence, the dead cards (less the last card, which is in the hand tried) and
    the cards of the observing seat that the opponent knows (its feed risk)."""
    seat = int(obs[K.O_SEAT])
    opp = 1 - seat
    cards, factors, n, model = evidence_arrays(obs)
    last, discarded, declined = model
    dead = A._obs_pile(obs) | A._obs_table(obs)
    if last >= 0:
        dead &= ~(1 << int(last))
    turns = A.improve_turns(obs)
    stream = np.empty(1, np.int64)
    A.seed_slot(stream, 0, np.int64(dseed))
    best, best_weight = None, -1.0
    for j in range(A.MODEL_TRIES):
        world = A._sample(obs, A.mix(dseed, j), turns)
        w = A._model_weight(world[K.S_HAND + opp], obs[K.O_KNOWN + opp], cards, factors, n, last,
                            discarded, declined, np.int64(dead), obs[K.O_KNOWN + seat])
        if A.unit(stream, 0) < w:
            return world
        if w > best_weight:
            best, best_weight = world, w
    return best


def test_master_draws_each_world_by_rejection_among_expert_style_candidates():
    """Positions where both seats took upcards and the opponent's last discard is evidence: each
    of 20 master determinizations is the one ``modelled_world`` draws."""
    found = random_positions(40, seed=5)
    for state in (found[K.PH_DRAW][33], found[K.PH_DRAW][30], found[K.PH_DISCARD][11]):
        obs = observation(state)
        cards, factors, n, model = evidence_arrays(obs)
        assert model[A.M_LAST] >= 0 and model[A.M_LAST_DISCARDED] == 1
        for k in range(20):
            dseed = A.mix(11, k)
            world = A._determinization(obs, L.MASTER, dseed, cards, factors, n, model)
            assert np.array_equal(world, modelled_world(obs, dseed))


def test_when_every_candidate_is_rejected_master_keeps_the_likeliest():
    """Evidence that makes every hand unlikely (each of the 30 unseen cards the opponent might
    hold "discarded", weighing 1e-6 for a hand melding it): all candidates are rejected, and the
    determinization is the candidate of the highest weight, the first of them on a tie."""
    found = random_positions(3, seed=3)
    obs = observation(found[K.PH_DRAW][1])
    opp = 1 - int(obs[K.O_SEAT])
    unseen = [c for c in range(52) if int(K.unseen_cards(obs)) >> c & 1]
    cards = np.array(unseen + [0] * (K.MAX_HISTORY - len(unseen)), np.int64)
    factors = np.full(K.MAX_HISTORY, 1e-6)
    model = np.array([-1, 0, -1], np.int64)
    turns = A.improve_turns(obs)
    for k in range(6):
        dseed = A.mix(2, k)
        candidates = [A._sample(obs, A.mix(dseed, j), turns) for j in range(A.MODEL_TRIES)]
        weights = [A._model_weight(c[K.S_HAND + opp], obs[K.O_KNOWN + opp], cards, factors,
                                   len(unseen), -1, 0, -1, 0, 0) for c in candidates]
        assert max(weights) < 1e-6 and min(weights) < max(weights)
        world = A._determinization(obs, L.MASTER, dseed, cards, factors, len(unseen), model)
        assert np.array_equal(world, candidates[int(np.argmax(weights))])


def test_a_sampled_opponent_that_has_not_knocked_never_holds_a_knocking_hand():
    """Late in a game (stock 10, 22 replayed greedy turns) most sampled opponent hands would
    improve to deadwood 10 or less; the replay skips those swaps, the opponent not having
    knocked: no expert or master determinization gives it deadwood <= the knock card. (Two
    beginners, who never knock, played the game so far.)"""
    obs = observation(policy_game(
        6, L.BEGINNER, lambda st: st[K.S_PHASE] == K.PH_DRAW and st[K.S_STOCK_SIZE] <= 10))
    assert A.improve_turns(obs) >= 20
    opp = 1 - int(obs[K.O_SEAT])
    cards, factors, n, model = evidence_arrays(obs)
    for level in (L.EXPERT, L.MASTER):
        for k in range(30):
            world = A._determinization(obs, level, A.mix(1, k), cards, factors, n, model)
            assert K.exact_deadwood(world[K.S_HAND + opp]) > obs[K.O_KNOCK_CARD]


# ---------------------------------------------------------------------------------------------
# decisions and games
# ---------------------------------------------------------------------------------------------

def test_decide_searches_exactly_its_budget(search_positions):
    """``decide`` with ``iterations`` k plays ``pick`` over determinizations 0 .. k - 1; with
    one fewer the move would differ in some of these positions."""
    differs = 0
    for state in search_positions:
        obs = observation(state)
        legal, n = legal_moves(obs)
        for budget in (1, 2, 3):
            moves = []
            for count in (budget, budget - 1):
                values, visits = np.zeros(K.NUM_ACTIONS), np.zeros(K.NUM_ACTIONS, np.int64)
                A.search_serial(obs, L.EXPERT, np.int64(8), 0, count, values, visits)
                moves.append(A.pick(obs, values, visits, legal, n, L.EXPERT, np.int64(8)))
            chosen = A.decide(obs, legal, n, L.EXPERT, budget, np.int64(8), np.zeros(1, np.int64))
            assert chosen == moves[0]
            differs += moves[0] != moves[1]
    assert differs


def test_a_seats_search_budget_is_its_own():
    """Normal in seat 0, expert in seat 1 at 4 determinizations: the budget given to seat 0,
    which does not search, changes nothing; expert's own budget does."""
    levels = np.array([L.NORMAL, L.EXPERT], np.int64)
    changed = 0
    for deal in range(3):
        results = []
        for budgets in ((0, 4), (40, 4), (0, 0)):
            out = np.zeros(2)
            moves = A.play_game(PARAMS, np.int64(deal), levels, np.array(budgets, np.int64),
                                np.int64(5), out)
            results.append((moves, out.tolist()))
        assert results[0] == results[1]
        changed += results[0] != results[2]
    assert changed


def test_mirrored_pairs_give_each_level_its_own_budget():
    """``play_mirrored`` with expert (4 determinizations) as level A against normal: game ``j``
    of pair ``i`` is ``play_game`` with A in seat ``j`` at A's budget, seeded
    ``mix(ai_seed, 2 i + j)``."""
    seeds = np.array([3, 4], np.int64)
    out = np.zeros((2, 2))
    A.play_mirrored(PARAMS, seeds, L.EXPERT, L.NORMAL, 4, 0, np.int64(6), out)
    for i, deal in enumerate(seeds):
        for j in range(2):
            levels = np.array([L.EXPERT, L.NORMAL][::1 if j == 0 else -1], np.int64)
            budgets = np.array([4, 0][::1 if j == 0 else -1], np.int64)
            r = np.zeros(2)
            A.play_game(PARAMS, deal, levels, budgets, A.mix(6, 2 * i + j), r)
            assert out[i, j] == r[j]


# ---------------------------------------------------------------------------------------------
# the policies the playouts share: easy and normal on masks
# ---------------------------------------------------------------------------------------------

def test_easy_takes_an_upcard_that_melds_outside_its_best_partition_when_that_lowers_deadwood():
    """Easy takes the upcard iff the best deadwood after taking it and throwing the highest other
    deadwood card is lower than now. Deadwood 2C KS (12) beside 2H-4H: 2D would meld only in
    2C 2D 2H, which breaks the better run, so the best 11 cards leave 2C 2D KS; without KS
    that is 4 < 12, and easy takes 2D. Normal takes an upcard only to meld it, or to pair a
    single (2C's pair 2D would have one live completer, 2S): it draws from the stock."""
    hand = ["2H", "3H", "4H", "2C", "KS", "5D", "6D", "7D", "8D", "9D"]
    assert play(draw_obs(hand, "2D"), L.EASY) == K.DRAW_UPCARD
    assert play(draw_obs(hand, "2D"), L.NORMAL) == K.DRAW_STOCK


def test_easy_leaves_an_upcard_that_would_leave_its_deadwood_as_it_is():
    """Deadwood 2C AS (3) beside 2H-4H: with 2D the best 11 cards leave 2C 2D AS, 3 again
    once 2C is thrown. Not lower: easy draws from the stock."""
    hand = ["2H", "3H", "4H", "2C", "AS", "5D", "6D", "7D", "8D", "9D"]
    assert play(draw_obs(hand, "2D"), L.EASY) == K.DRAW_STOCK


def test_normal_takes_an_upcard_to_pair_a_single_not_a_card_already_in_a_partial_meld():
    """Normal's draw rule (b): the upcard must make a partial meld with a *single*, a deadwood
    card in no partial meld. 10C would go with 9C (8C and JC live), but 9C is already in the
    live pair 9C 9D: normal draws from the stock. With 9C a single (4D for 9D), it takes 10C:
    its discard afterwards, KC, is worth as much as 10C."""
    hand = ["AC", "2C", "3C", "5D", "6D", "7D", "9C", "9D", "KC", "4H"]
    assert play(draw_obs(hand, "10C"), L.NORMAL) == K.DRAW_STOCK
    hand[7] = "4S"
    assert play(draw_obs(hand, "10C"), L.NORMAL) == K.DRAW_UPCARD


def test_normal_knocks_with_gin_at_once_whatever_the_stock():
    """Normal plays on for gin at deadwood 1..GIN_HOLD_DEADWOOD: at 0, gin, it knocks, even
    with 25 cards in the stock."""
    hand = ["AC", "2C", "3C", "5D", "6D", "7D", "9H", "10H", "JH", "QH", "KC"]
    assert play(discard_obs(hand, stock_size=25), L.NORMAL) == K.KNOCK


def test_normal_plays_on_for_gin_at_exactly_gin_hold_deadwood():
    """Deadwood 6S after throwing KC: 6 = GIN_HOLD_DEADWOOD, so normal throws KC and plays on;
    with 7S instead (7) it knocks."""
    hand = ["AC", "2C", "3C", "5D", "6D", "7D", "9H", "10H", "JH", "KC", "6S"]
    assert A.GIN_HOLD_DEADWOOD == 6
    assert play(discard_obs(hand, stock_size=20), L.NORMAL) == card("KC")
    hand[-1] = "7S"
    assert play(discard_obs(hand, stock_size=20), L.NORMAL) == K.KNOCK


def test_normal_keeps_the_card_that_pairs_the_upcard_it_just_took():
    """Normal took QH to pair it with QS (QC and QD live). It may not throw QH back, and QS is
    in the partial meld QS QH: QS scores 20 - 16, JC 20, 8S 16, 4H 8, so it throws JC (which
    ties QS on value alone and would lose to it on the key)."""
    hand = ["AC", "2C", "3C", "5D", "6D", "7D", "QS", "QH", "JC", "8S", "4H"]
    assert play(discard_obs(hand, prev_upcard="QH"), L.NORMAL) == card("JC")


def test_normal_never_throws_back_the_upcard_it_just_took():
    """Normal took KD; its deadwood KD KC 10H 8S 4H (no pair: KH and KS dead). KD and KC score
    the same and KD would win on the key, but the upcard just taken is not thrown: KC goes."""
    hand = ["AC", "2C", "3C", "5D", "6D", "7D", "KD", "KC", "8S", "4H", "10H"]
    obs = discard_obs(hand, prev_upcard="KD", pile=["KH", "KS"])
    assert play(obs, L.NORMAL) == card("KC")


# ---------------------------------------------------------------------------------------------
# the end phases in the playouts
# ---------------------------------------------------------------------------------------------

def test_the_defenders_last_pass_is_valued_at_the_games_return():
    """Easy against easy until the defender has finished its lay-offs and may lay its melds or
    pass. The knocker's cards are all on the table or shown, so every determinization is the
    game itself: the search values passing at what the game returns to the defender then, which
    reads the defender's deadwood, not the knocker's."""
    state = policy_game(2, L.EASY, lambda st: st[K.S_PHASE] == K.PH_LAYOFF
                        and st[K.S_FINISHED_LAYOFFS] and st[K.S_CURRENT] != st[K.S_KNOCKER])
    seat = K.current_player(state)
    obs = observation(state)
    assert K.PASS in legal_of(state)
    ended = state.copy()
    K.apply_action(ended, K.PASS)
    returns = np.zeros(2)
    K.returns(ended, returns)
    assert ended[K.S_DEADWOOD + seat] != ended[K.S_DEADWOOD + 1 - seat]
    for level in (L.EXPERT, L.MASTER):
        values, visits = np.zeros(K.NUM_ACTIONS), np.zeros(K.NUM_ACTIONS, np.int64)
        A.search_serial(obs, level, np.int64(1), 0, 3, values, visits)
        assert values[K.PASS] / visits[K.PASS] == returns[seat]


def test_the_knockers_playout_sheds_its_top_deadwood_card_even_at_exactly_the_knock_card():
    """The knocker holds 5C-KC, JD and JS. Its best partition leaves JD JS; shedding the top
    card JS leaves JD, exactly the knock card (10), which the rules allow, and easy sheds it.
    (Shedding KC would leave 10 too, with JC JD JS a group and QC loose.) The playout sheds JS
    like easy, so the defender's JH finds no group of jacks to join: the playout ends as the
    policies played move by move end."""
    knocker = mask("5C 6C 7C 8C 9C 10C JC QC KC JD JS".split())
    defender = mask("JH 2D 3D 4D 6H 7H 8H KH QH 9S".split())
    state = K.new_state(PARAMS, np.int64(0))
    state[K.S_HAND], state[K.S_HAND + 1] = knocker, defender
    state[K.S_KNOWN], state[K.S_KNOWN + 1] = 0, 0
    state[K.S_PHASE], state[K.S_CURRENT], state[K.S_KNOCKER] = K.PH_KNOCK, 0, 0
    played = state.copy()
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    while not K.is_terminal(played):
        n = K.legal_actions(played, buf)
        K.apply_action(played, A.policy(observation(played), buf, n, L.EASY, np.zeros(1, np.int64)))
    returns = np.zeros(2)
    K.returns(played, returns)
    fast = state.copy()
    value = A.rollout(fast, 0, A.POL_EASY, A.POL_EASY, np.full(6, -1, np.int64),
                      A._pile_mask(fast), np.empty(A.MAX_LOWEST_CARD_MELDS, np.int64))
    assert value == returns[0]
    assert int(fast[K.S_DISCARDS + fast[K.S_DISCARD_COUNT] - 1]) == card("JS")
