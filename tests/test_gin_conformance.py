"""Conformance of the gin kernel with OpenSpiel's ``gin_rummy`` (RULES.md §5.3).

Both engines play the same deal: meldmind's deal is fed to OpenSpiel as chance outcomes (seat
0's ten cards, seat 1's ten, the upcard, then each stock card when it is drawn). At every
decision the legal action sets must be equal after mapping the card ids (meldmind suits C D H S,
OpenSpiel s c d h); at the end the returns must be equal.

That includes OpenSpiel's knock test, an 11-card count that can refuse a knock the exact deadwood
after a discard allows: the story below and the replayed ``KNOCK_TEST_SEEDS`` games pin it, and
``test_knock_count_matches_openspiel`` compares the count with OpenSpiel's on random hands.
"""
import collections
import random

import numpy as np
import pytest

from meldmind import format_card, parse_cards
from meldmind.games import gin
from meldmind.integrations import openspiel as adapter
from meldmind.integrations.openspiel import (from_openspiel_action, from_openspiel_card,
                                             to_openspiel_action, to_openspiel_card)

pyspiel = pytest.importorskip("pyspiel")

K = gin.KERNEL
GAME = pyspiel.load_game("gin_rummy")
UTILS = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
PARAMS = gin.make_params({})
GAMES_PER_POLICY = 250           # four policies: 1,000 games


# ---- id mapping: a card permutation (the adapter's, checked against OpenSpiel's own meld ids)
def test_meld_id_mapping_matches_openspiel():
    for mid in range(K.NUM_MELDS):
        cards = sorted(to_openspiel_card(c) for c in gin.meld_cards(mid))
        assert to_openspiel_action(K.MELD_BASE + mid) == K.MELD_BASE + UTILS.meld_to_int(cards)
        assert from_openspiel_action(K.MELD_BASE + UTILS.meld_to_int(cards)) == K.MELD_BASE + mid


def cards_of(mask):
    return [c for c in range(52) if int(mask) >> c & 1]


def deal_state(p0, p1, upcard, draws=()):
    """A state with the given deal (card texts); ``draws`` are the first stock cards, in draw order."""
    hand0, hand1, up, first = (parse_cards("gin", x) for x in (p0, p1, [upcard], list(draws)))
    return adapter.deal_state(hand0, hand1, up[0], first)


def openspiel_twin(state):
    """OpenSpiel's state after the same deal (seat 0 = player 0)."""
    st = GAME.new_initial_state()
    for card in cards_of(state[K.S_HAND]) + cards_of(state[K.S_HAND + 1]) + [int(state[K.S_UPCARD])]:
        st.apply_action(to_openspiel_card(card))
    return st


def legal(state):
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    n = K.legal_actions(state, buf)
    return buf[:n].tolist()


def exact_min_after_discard(hand_mask):
    return min(int(K.exact_deadwood(hand_mask ^ (1 << c))) for c in cards_of(hand_mask))


def exact_knock_allowed(state):
    """True iff some discard leaves the current seat's 11 cards (the upcard counted at the Wall)
    with an exact deadwood <= 10."""
    hand = int(state[K.S_HAND + int(state[K.S_CURRENT])])
    if int(state[K.S_PHASE]) == K.PH_WALL:
        hand |= 1 << int(state[K.S_UPCARD])
    return exact_min_after_discard(hand) <= 10


# ---- players -----------------------------------------------------------------------------------
def choose(state, actions, rng, p_greedy, gin_seek):
    """Uniform random, or (with probability p_greedy) a greedy move, as in the research fuzzer:
    knock when possible (gin_seek: only for gin or at the wall), take the upcard when it cuts
    deadwood by more than 3, discard the card leaving the least deadwood, lay melds and lay off
    eagerly."""
    phase = int(state[K.S_PHASE])
    hand = int(state[K.S_HAND + int(state[K.S_CURRENT])])
    if rng.random() >= p_greedy:
        return rng.choice(actions)
    if K.KNOCK in actions:
        if not gin_seek or phase == K.PH_WALL or exact_min_after_discard(hand) == 0:
            return K.KNOCK
    if phase in (K.PH_FIRST_UPCARD, K.PH_DRAW):
        up = int(state[K.S_UPCARD])
        if K.DRAW_UPCARD in actions and \
                exact_min_after_discard(hand | 1 << up) < int(K.exact_deadwood(hand)) - 3:
            return K.DRAW_UPCARD
        return K.DRAW_STOCK if K.DRAW_STOCK in actions else K.PASS
    cards = [a for a in actions if a < 52]
    if phase == K.PH_DISCARD or (phase == K.PH_KNOCK and len(cards_of(hand)) == 11):
        return min(cards, key=lambda c: (int(K.exact_deadwood(hand ^ (1 << c))), rng.random()))
    if phase in (K.PH_KNOCK, K.PH_LAYOFF):
        non_pass = [a for a in actions if a != K.PASS]
        if non_pass and rng.random() < 0.9:
            return rng.choice(non_pass)
    return rng.choice(actions)


def play_both(state, rng, p_greedy=0.0, gin_seek=False, script=None):
    """Plays one game in both engines, which must offer the same moves at every decision; returns
    OpenSpiel's state and the number of knocks refused that the exact deadwood would allow."""
    os_state = openspiel_twin(state)
    refused = 0
    script = list(script or [])
    while not K.is_terminal(state):
        assert not os_state.is_terminal()
        assert int(K.current_player(state)) == os_state.current_player()
        mine = legal(state)
        theirs = sorted(from_openspiel_action(a) for a in os_state.legal_actions())
        assert mine == theirs
        phase = int(state[K.S_PHASE])
        if phase in (K.PH_DISCARD, K.PH_WALL) and K.KNOCK not in mine and exact_knock_allowed(state):
            refused += 1
        action = script.pop(0) if script else choose(state, mine, rng, p_greedy, gin_seek)
        assert action in mine
        assert K.illegal_reason(state, action) == 0
        drawn = int(K.apply_action(state, action))
        os_state.apply_action(to_openspiel_action(action))
        if drawn >= 0:
            assert os_state.is_chance_node()
            os_state.apply_action(to_openspiel_card(drawn))
        assert not os_state.is_chance_node()
        if not K.is_terminal(state):
            for p in range(2):
                assert sorted(from_openspiel_card(c) for c in os_state.hands()[p]) == \
                    cards_of(state[K.S_HAND + p])
            up = int(state[K.S_UPCARD])
            assert os_state.upcard() == (to_openspiel_card(up) if up >= 0 else None)
            assert os_state.stock_size() == int(state[K.S_STOCK_SIZE])
            pile = state[K.S_DISCARDS:K.S_DISCARDS + int(state[K.S_DISCARD_COUNT])]
            assert [from_openspiel_card(c) for c in os_state.discard_pile()] == pile.tolist()
    assert os_state.is_terminal()
    out = np.zeros(2)
    K.returns(state, out)
    assert out.tolist() == list(os_state.returns())
    return os_state, refused


def ending(state):
    end = int(state[K.S_END])
    if end != K.END_KNOCK:
        return {K.END_WALL: "wall", K.END_UPCARD_LIMIT: "50 upcard draws",
                K.END_REPEATED: "repeated move"}[end]
    out = np.zeros(2)
    K.returns(state, out)
    knocker = int(state[K.S_KNOCKER])
    if state[K.S_DEADWOOD + knocker] == 0:
        return "gin"
    return "undercut" if out[knocker] < 0 else "knock"


POLICIES = ((0.0, False), (0.7, False), (0.95, False), (0.97, True))   # (p_greedy, gin_seek)
# Games (policy, seed) in which OpenSpiel's knock count refuses a knock that the exact deadwood
# after a discard allows, found by running this file's play_both over 40,000 games (seeds
# 1,000..10,999 under each policy); replayed so that such positions occur in real play, not only
# in the story below.
KNOCK_TEST_SEEDS = ((1, 5997), (2, 3085), (2, 4955), (3, 7296), (3, 7569), (3, 9048))


def play_seeded(policy, seed):
    p_greedy, gin_seek = POLICIES[policy]
    state = K.new_state(PARAMS, np.int64(seed))
    _, refused = play_both(state, random.Random(1_000_003 * policy + seed), p_greedy, gin_seek)
    return state, refused


@pytest.fixture(scope="module")
def conformance_run():
    endings = collections.Counter()
    games = [(k, g) for k in range(len(POLICIES)) for g in range(GAMES_PER_POLICY)]
    for policy, seed in games + list(KNOCK_TEST_SEEDS):
        state, refused = play_seeded(policy, seed)
        if (policy, seed) in KNOCK_TEST_SEEDS:
            assert refused, (policy, seed)
        endings["knock refused by the count"] += refused
        endings[ending(state)] += 1
        endings["layoffs"] += int(state[K.S_LAYOFF_COUNT]) > 0
    return len(games) + len(KNOCK_TEST_SEEDS), endings


def test_random_games_match_openspiel(conformance_run):
    games, endings = conformance_run
    print(f"\n{games} games in both engines, endings {dict(endings)}")
    assert games >= 500


def test_conformance_games_exercise_every_ending(conformance_run):
    _, endings = conformance_run
    for kind in ("knock", "gin", "undercut", "layoffs", "wall", "50 upcard draws", "repeated move",
                 "knock refused by the count"):
        assert endings[kind] >= 1, (kind, dict(endings))


def test_openspiel_knock_count_story():
    """The brief's hand: ``AS 4S 5S 6S 3C 5D 6D 3H 4H 5H 6H``.

    Seat 0 holds ten of them and takes the upcard 6D::

        S: A . . 4 5 6      D: . . . . 5 6      C: . . 3      H: . . 3 4 5 6

    Two arrangements meld 33 points: the sets 5S5D5H, 6S6D6H and the runs 4S5S6S, 3H4H5H6H.
    OpenSpiel's count takes the first it lists, the sets, and drops the highest loose card:
    AS 4S 3C 3H 4H less 4 = 11, so no knock, in both engines, although discarding 6D and keeping
    the runs would leave 9.
    """
    eleven = "AS 4S 5S 6S 3C 5D 6D 3H 4H 5H 6H".split()
    mask = sum(1 << c for c in parse_cards("gin", eleven))
    assert UTILS.min_deadwood([to_openspiel_card(c) for c in cards_of(mask)]) == 11
    assert K.openspiel_knock_deadwood(mask) == 11
    assert exact_min_after_discard(mask) == 9
    state = deal_state([c for c in eleven if c != "6D"], "KC QC JD 9D 7C 2H 8H KH QS 10S", "6D")
    os_state = openspiel_twin(state)
    K.apply_action(state, K.DRAW_UPCARD)
    os_state.apply_action(52)
    assert exact_knock_allowed(state)
    mine = legal(state)
    assert mine == sorted(from_openspiel_action(a) for a in os_state.legal_actions())
    assert K.KNOCK not in mine
    before = state.copy()
    assert K.illegal_reason(state, K.KNOCK) == K.R_KNOCK_DEADWOOD
    assert (state == before).all()
    # easy knocks whenever it may: through the adapter it discards, a move OpenSpiel accepts
    move = adapter.MeldmindBot(0, level="easy").step(os_state)
    assert move in os_state.legal_actions() and move < 52


def test_knock_count_matches_openspiel():
    """``openspiel_knock_deadwood`` and ``can_knock_with`` against OpenSpiel's own ``MinDeadwood``
    on 20,000 random 11-card hands. Half are dealt from blocks of 3 suits x 6 ranks or 4 suits
    x 4-5 ranks, where arrangements tie often and the order of OpenSpiel's search decides."""
    rng = random.Random(11)
    refused = 0          # knocks the count refuses although a discard would leave <= 10
    for trial in range(20_000):
        if trial % 2:
            cards = rng.sample(range(52), 11)
        else:
            suits = rng.sample(range(4), rng.choice((3, 4)))
            width = 6 if len(suits) == 3 else rng.choice((4, 5))
            low = rng.randrange(14 - width)
            cards = rng.sample([s * 13 + r for s in suits for r in range(low, low + width)], 11)
        mask = sum(1 << c for c in cards)
        theirs = UTILS.min_deadwood([to_openspiel_card(c) for c in cards])
        assert K.openspiel_knock_deadwood(mask) == theirs, [format_card("gin", c) for c in cards]
        assert K.can_knock_with(mask, 10) == (theirs <= 10)
        assert K.knock_allowed(mask, K.exact_deadwood(mask), 10) == (theirs <= 10)
        refused += theirs > 10 >= exact_min_after_discard(mask)
    assert refused >= 1          # four with this seed


def test_knock_count_takes_eleven_cards():
    with pytest.raises(ValueError, match="11-card"):
        K.openspiel_knock_deadwood(sum(1 << c for c in range(12)))


def test_action_mapping_is_a_bijection():
    mapped = {to_openspiel_action(a) for a in range(K.NUM_ACTIONS)}
    assert mapped == set(range(K.NUM_ACTIONS))
    assert all(from_openspiel_action(to_openspiel_action(a)) == a for a in range(K.NUM_ACTIONS))
    assert UTILS.card_string(to_openspiel_card(parse_cards("gin", ["9S"])[0])) == "9s"
    # meld 0 = aces without clubs here, without spades in OpenSpiel
    assert sorted(UTILS.card_ints_to_card_strings(
        UTILS.int_to_meld[to_openspiel_action(K.MELD_BASE) - K.MELD_BASE])) == ["Ad", "Ah", "As"]
