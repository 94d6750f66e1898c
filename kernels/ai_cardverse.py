"""CardVerse Rami AI levels (RULES.md §4.9, §6, Decision 11 of §4.10): numba kernels.

The contract is ``docs/ai-contract.md``. Every level decides from an observation array
(``cardverse.observe``) only; determinized states exist only inside ``search``.

Helpers (§4.9), all computed from the observation of the seat that decides:

* **best partition / leftover**: ``bridge.leftover`` (exact, the hand algebra); a meld ``m`` of
  the hand is "in a best partition" iff ``deadwood(hand - m) == deadwood(hand)``.
* **dead** cards: on the table, in the discard pile, or known to be held by another seat (taken
  from the discard: the rest of the discard history). **live** = neither dead nor in the hand.
* **partial meld**: two leftover cards of the same rank, or of the same suit at run distance 1-2
  (order 2..A, no wrap), with at least one live completing card.
* **single**: a card in no complete meld of the best partition and in no partial meld.
* **feed_risk(c)**: 1 if ``c`` can be laid off on a table meld or completes a meld with the cards
  the next seat is known to hold, else 0.5 if ``c`` is a partial-meld partner of such a card,
  else 0.
* Tie-breaks everywhere: the higher rank (A high), then the higher suit in the order C<D<H<S.

Levels (``policy``, levels 0-2):

* beginner: a uniform legal category (draw stock / take discard / lay meld / lay off /
  discard), then a uniform legal move in it.
* easy (Kolay): DRAW takes the discard iff it can be melded (it is in the best partition of the
  hand plus it) or laid off on the table, else stock. PLAY lays the biggest meld of a best
  partition while there is one, then every legal lay-off (highest card first); the legal list
  already enforces ``discard_to_win``. DISCARD the highest-value single (Decision 11), else the
  highest-value leftover card, else the highest-value legal card.
* normal: DRAW takes the discard iff it is melded in the best partition of the hand plus it, or
  can be laid off, or turns a single into a partial meld with >= 2 live completing cards; else
  stock. PLAY lays the meld of a best partition whose remaining leftover keeps the most partial
  melds (then the bigger meld), then *useful* lay-offs: those of cards outside the best
  partition (highest card first; a lay-off of a card of a complete meld in hand would break it).
  Laying off partial-meld cards too measured better than keeping them. A hand that is all one
  meld it may not lay (``discard_to_win``: laying it would empty the hand) goes out if it can,
  by laying all of the meld but one card it may discard; else it lays off any of its cards,
  highest first, since a discard would break the meld anyway and the lay-offs may take it out.
  DISCARD argmax of
  ``value(c) - 8 [c in a partial meld] - 6 feed_risk(c)`` over the legal leftover cards (all
  legal discards when no leftover card may be discarded).
  At a table of three or four seats that formula loses to easy (49 % of the games), so there
  normal weighs its cards by the draws it has left (``_keep2``): a partial-meld card is kept
  before any single while draws remain, and on its last draw (at most one stock card per seat)
  it plays for the hand's value, throwing its highest card and taking a low upcard. It then
  wins 52 % against easy (README, Strength). Two seats keep RULES' formula, except in a hand
  that decides the game (every seat within ``DECIDING_HAND_POINTS`` of the target): there points
  no longer count, RULES' normal won no more games than easy at a target of 1 to 10, and it
  holds its melds as master's ``_holder`` does (``_as_normal``).

Search (levels 3-4, ``search`` + ``pick``): determinized Monte Carlo. Determinization ``k`` is
seeded from ``(seed, k)`` alone. On it every legal atomic move (draw stock / take discard; lay
one meld / lay off one card / discard one card) is applied and the hand is played out to its
end, every seat (the searching one included, which completes its turn) playing as the normal
level does (``_as_normal``) from its own observation of the determinized state. (When normal
began to hold its melds in a hand that decides the game, playouts that still laid them left
expert no better than normal at a target of 1: 50.7 %, against 61.3 % with them holding.) All
moves of one determinization share the same sampled world (common random numbers). The return of
a hand for the observing seat is ``gain / target`` for the hand winner and
``-gain / (target (N - 1))`` for the others (``gain`` = the points the winner scores: the sum of
the other hands), replaced by the game's own returns (+1 / -1/(N-1)) when the hand ends the
game: that is ``values / visits``. No bonus is added for winning the hand: one of 25 points won
more first hands but, holding cards to win hands, lost more points when losing, and lost full
games. The memory of every open pickup and discard is the observation itself (``determinize``
keeps the cards each opponent is known to hold and never deals a dead card); the end game needs
nothing special: a playout that draws from the empty stock ends the hand and the rules kernel
scores it, the lowest hand value winning, so near the end of the stock the search weighs raw
hand values. ``pick``
plays the best mean; the rollout heuristic's own move gets ``PRIOR_POINTS`` of credit, each
point counted as at a target of ``CREDIT_TARGET`` or more. Below ``EXPERT_ITERATIONS``
determinizations the estimates are noisier, and the credit grows as ``EXPERT_ITERATIONS / n``:
against normal, expert won 27.8 % of full games at 40 determinizations and 50.7 % at 100 with a
fixed credit, and 50.0 % and 54.7 % with the growing one (200 deal pairs each).

Master adds (RULES.md §6):

* **perfect memory** of the permitted history: the observation's per-seat masks of the cards
  each seat discarded, declined and took from the discard this hand, which the model reads;
* an **opponent model**: each determinization is drawn by sampling-importance-resampling among
  ``MODEL_CANDIDATES`` ``determinize`` candidates, weighted by how well each opponent's sampled
  hand explains what the observation reveals: a card it took openly and still holds suggests it
  holds a partner of it (factor ``W_PICKUP_NO_PARTNER`` otherwise); every card it discarded
  or declined this hand (the observation's per-seat history) is one it did not want, so a
  sampled hand that would meld it or pair with it is less likely (``W_UNWANTED_*``). Expert's
  determinizations are uniform over the unseen cards.
* **anticipation**: the opponents' replies are played by the modelled normal policy, and the
  master's own later turns by ``_holder`` -- normal, except that it keeps its complete melds in
  hand until it can go out or an opponent is down to ``HOLD_UNTIL`` cards -- which is how its
  search tends to play (it often judges holding a meld better than laying it), so the playouts
  do not credit a postponed lay that the master would keep postponing. At three or four seats
  its own turns are normal's: at four, where the stock starts at 11 cards and four hands in five
  end on it, holding lost to expert (34.3 % of 140 games, against 52.9 % on the same deals
  without holding); at three it made no clear difference (51.6 % of 192 games holding, 53.6 %
  not).
* a larger budget (``MASTER_ITERATIONS``), and a **bluff** rule in ``pick`` (see there).

``play_game`` plays a whole game with the arena's levels; ``play_hand`` is the same but stops
after the first hand and writes each seat's score differential for that hand (the winner's
gain for the winner, ``-gain / (N - 1)`` for the others, in points). ``play_games`` runs many
such games in parallel (``prange``, each game single-threaded) for strength runs.
"""
import numpy as np
from numba import prange

from . import bridge
from . import cardverse as K
from .arrays import copy_into, sorted_contains
from .bits import lowest_bit, popcount
from .calls import unowned
from .jit import njit
from .levels import BEGINNER, EASY, EXPERT, MASTER
from .rng import GOLDEN, PLASTIC, as_u64, below, mix64, seed_slot, uniform_by_category

# --- tuning constants ---------------------------------------------------------------------
EXPERT_ITERATIONS = 400         # determinizations per decision at the default budget
MASTER_ITERATIONS = 1000
MODEL_CANDIDATES = 16           # master: determinize() candidates per resampled determinization
PRIOR_POINTS = 1.0              # credit of the playout policy's own move in pick (points) from
#                                 EXPERT_ITERATIONS determinizations up, x EXPERT_ITERATIONS/n below
CREDIT_TARGET = 100             # pick: a point is worth 1 / max(target, this) of a game
HOLD_UNTIL = 2                  # _holder lays its melds once an opponent has this few cards
BLUFF_RATE = 0.75               # master: how often it bluffs when it may
BLUFF_MARGIN_POINTS = 0.5       # master: moves this close to the best (in points) count as ties
W_PICKUP_NO_PARTNER = 0.2       # likelihood factors of the opponent model
W_UNWANTED_MELD = 0.2
W_UNWANTED_PARTNER = 0.7
# normal at a table of 3 or 4 seats, where RULES' formula loses to easy (README, Strength): a
# partial meld is worth keeping while there are draws left to complete it
KEEP_POINTS_PER_DRAW = 4        # a partial meld's card: 4 points per draw the seat has left,
KEEP_POINTS_MAX = 16            # up to 16 (then kept before any single but a risky one)
POINTS_PER_COMPLETER = 2        # and 2 per live card completing its best partial meld;
POINTS_PER_PARTNER = 1          # a single: 1 per live card that would make it a partial meld
LOW_UPCARD = 3                  # on the last draw, it takes an upcard worth this or less
# a hand decides the game when every seat is within this many points of the target; normal at
# two seats then holds its melds as _holder does (README, Strength)
DECIDING_HAND_POINTS = 20

FULL_DECK = (1 << 52) - 1
CATEGORY_DRAW = 0
CATEGORY_TAKE = 1
CATEGORY_MELD = 2
CATEGORY_LAYOFF = 3
CATEGORY_DISCARD = 4
NUM_CATEGORIES = 5


def _tables():
    # built at import, with the kernel's Python card_position_py and position_card_py
    rank_mask = np.zeros(13, dtype=np.int64)
    for r in range(13):
        for s in range(4):
            rank_mask[r] |= 1 << (s * 13 + r)

    pos = K.card_position_py
    comp = np.zeros((52, 52), dtype=np.int64)
    for a in range(52):
        for b in range(52):
            if a == b:
                continue
            if a % 13 == b % 13:
                comp[a, b] = rank_mask[a % 13] & ~(1 << a) & ~(1 << b)
            elif a // 13 == b // 13:
                s = a // 13
                lo, hi = sorted((pos(a), pos(b)))
                if hi - lo == 1:
                    m = 0
                    if lo >= 1:
                        m |= 1 << K.position_card_py(s, lo - 1)
                    if hi <= 11:
                        m |= 1 << K.position_card_py(s, hi + 1)
                    comp[a, b] = m
                elif hi - lo == 2:
                    comp[a, b] = 1 << K.position_card_py(s, lo + 1)
    neigh = np.zeros(52, dtype=np.int64)
    for a in range(52):
        for b in range(52):
            if comp[a, b]:
                neigh[a] |= 1 << b
    key = np.array([pos(c) * 4 + c // 13 for c in range(52)], dtype=np.int64)
    return rank_mask, comp, neigh, key


RANK_MASK, COMPLETERS, PARTNERS, TIE_KEY = _tables()


# ---------------------------------------------------------------------------------------------
# Card helpers
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _deadwood(hand, ace_high):
    return bridge.deadwood(K.VARIANT_ID, hand, ace_high) >> bridge.POINTS_SHIFT


@njit(cache=True)
def _leftover(hand, ace_high):
    return bridge.leftover(K.VARIANT_ID, hand, ace_high)


@njit(cache=True)
def _completes_meld(c, hand):
    """Whether card ``c`` forms a meld with two or more cards of ``hand``."""
    if popcount(RANK_MASK[c % 13] & hand & ~(1 << c)) >= 2:
        return True
    s = c // 13
    p = K.card_position(c)
    q = K.positions(hand, s) | (1 << p)
    r3 = q & (q >> 1) & (q >> 2)
    return (r3 & ((7 << p) >> 2)) != 0


# ---------------------------------------------------------------------------------------------
# What an observation tells
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _table_cards(obs):
    m = 0
    for t in range(obs[K.O_TABLE_N]):
        m |= obs[K.O_TABLE_MASK + t]
    return m


@njit(cache=True)
def _layable(obs):
    """Every card that can be laid off on some table meld now."""
    m = 0
    for t in range(obs[K.O_TABLE_N]):
        mask = obs[K.O_TABLE_MASK + t]
        low, high = K.layoff_ends(mask, obs[K.O_TABLE_KIND + t], K.FULL_DECK & ~mask)
        m |= low | high
    return m


@njit(cache=True)
def _pile_cards(obs):
    m = 0
    for i in range(obs[K.O_DISCARD_N]):
        m |= 1 << obs[K.O_DISCARD + i]
    return m


@njit(cache=True)
def _live(obs):
    """Cards not known to be dead: not in the hand, on the table, in the discard pile or known to
    be held by another seat."""
    seat = obs[K.O_SEAT]
    dead = obs[K.O_HAND] | _table_cards(obs) | _pile_cards(obs)
    for p in range(obs[K.O_PARAMS + K.P_NUM_PLAYERS]):
        if p != seat:
            dead |= obs[K.O_KNOWN + p]
    return FULL_DECK & ~dead


@njit(cache=True)
def _partials(cards, live):
    """(mask of the cards of ``cards`` in some partial meld, number of partial-meld pairs)."""
    inside = 0
    pairs = 0
    rest = cards
    while rest:
        a = lowest_bit(rest)
        rest &= rest - 1
        others = PARTNERS[a] & rest
        while others:
            b = lowest_bit(others)
            others &= others - 1
            if COMPLETERS[a, b] & live:
                inside |= (1 << a) | (1 << b)
                pairs += 1
    return inside, pairs


@njit(cache=True)
def _feed_risk2(obs, c, layable):
    """2 x feed_risk(c) for the seat of ``obs`` (integers: 2, 1 or 0)."""
    if (layable >> c) & 1:
        return 2
    n = obs[K.O_PARAMS + K.P_NUM_PLAYERS]
    known = obs[K.O_KNOWN + (obs[K.O_SEAT] + 1) % n]
    if known == 0:
        return 0
    if _completes_meld(c, known):
        return 2
    if PARTNERS[c] & known:
        return 1
    return 0


@njit(cache=True)
def _best_card(cards, ace_high):
    """The highest-value card of a non-empty mask (tie: higher rank, A high, then suit)."""
    best = -1
    best_v = -1
    best_k = -1
    rest = cards
    while rest:
        c = lowest_bit(rest)
        rest &= rest - 1
        v = K.card_value(c, ace_high)
        if v > best_v or (v == best_v and TIE_KEY[c] > best_k):
            best, best_v, best_k = c, v, TIE_KEY[c]
    return best


@njit(cache=True)
def _legal_discards(legal, n):
    m = 0
    for i in range(n):
        a = legal[i]
        if K.A_DISCARD <= a < K.A_MELD:
            m |= 1 << (a - K.A_DISCARD)
    return m


# ---------------------------------------------------------------------------------------------
# Beginner, easy, normal
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _category(a):
    if a == K.DRAW_STOCK:
        return CATEGORY_DRAW
    if a == K.TAKE_DISCARD:
        return CATEGORY_TAKE
    if a < K.A_MELD:
        return CATEGORY_DISCARD
    if a < K.A_LAYOFF:
        return CATEGORY_MELD
    return CATEGORY_LAYOFF


@njit(cache=True)
def _beginner(legal, n, rng):
    cats = np.empty(n, dtype=np.int64)
    for i in range(n):
        cats[i] = _category(legal[i])
    return uniform_by_category(legal, cats, n, NUM_CATEGORIES, rng, 0)


@njit(cache=True)
def _best_partition_meld(legal, n, hand, ace_high, live, by_partials):
    """The legal LAY_MELD of a best partition to lay now (-1 if none): the biggest one, or with
    ``by_partials`` the one whose remaining leftover keeps the most partial melds, then the
    biggest; then the first in id order."""
    dw = -1
    best = -1
    best_score = -1
    for i in range(n):
        a = legal[i]
        if a < K.A_MELD or a >= K.A_LAYOFF:
            continue
        if dw < 0:
            dw = _deadwood(hand, ace_high)
        m = K.MELD_MASK[a - K.A_MELD]
        if _deadwood(hand & ~m, ace_high) != dw:
            continue
        score = popcount(m)
        if by_partials:
            _, pairs = _partials(_leftover(hand & ~m, ace_high), live)
            score += 16 * pairs
        if score > best_score:
            best_score = score
            best = a
    return best


@njit(cache=True)
def _best_layoff(legal, n, allowed, ace_high):
    """The legal LAY_OFF of the highest-value card of ``allowed`` (first target), -1 if none."""
    best = -1
    best_v = -1
    best_k = -1
    for i in range(n):
        a = legal[i]
        if a < K.A_LAYOFF:
            continue
        c = ((a - K.A_LAYOFF) // 3) % K.NUM_CARDS
        if not (allowed >> c) & 1:
            continue
        v = K.card_value(c, ace_high)
        if v > best_v or (v == best_v and TIE_KEY[c] > best_k):
            best, best_v, best_k = a, v, TIE_KEY[c]
    return best


@njit(cache=True)
def _meld_leaving_a_discard(legal, n, hand):
    """The first legal LAY_MELD after which the hand holds one card, which a discard then takes
    out; -1 if none. The card is one the seat may discard now: the card just taken from the
    discard pile, which it could discard as its last card, is never needed, as a meld of four or
    more cards can leave out another."""
    discards = _legal_discards(legal, n)
    for i in range(n):
        a = legal[i]
        if a < K.A_MELD or a >= K.A_LAYOFF:
            continue
        rest = hand & ~K.MELD_MASK[a - K.A_MELD]
        if popcount(rest) == 1 and rest & discards:
            return a
    return -1


@njit(cache=True)
def _top_is_usable(obs, top, hand, ace_high):
    """The discard top can be melded (best partition of hand + top) or laid off."""
    if (_layable(obs) >> top) & 1:
        return True
    return not (_leftover(hand | (1 << top), ace_high) >> top) & 1


@njit(cache=True)
def _easy(obs, legal, n):
    ace_high = obs[K.O_PARAMS + K.P_ACE_HIGH]
    hand = obs[K.O_HAND]
    if obs[K.O_PHASE] == K.PHASE_DRAW:
        if sorted_contains(legal, n, K.TAKE_DISCARD):
            top = obs[K.O_DISCARD + obs[K.O_DISCARD_N] - 1]
            if _top_is_usable(obs, top, hand, ace_high):
                return K.TAKE_DISCARD
        return K.DRAW_STOCK
    a = _best_partition_meld(legal, n, hand, ace_high, 0, False)
    if a >= 0:
        return a
    a = _best_layoff(legal, n, FULL_DECK, ace_high)
    if a >= 0:
        return a
    discards = _legal_discards(legal, n)
    left = _leftover(hand, ace_high)
    inside, _ = _partials(left, _live(obs))
    singles = left & ~inside & discards
    if singles:
        return K.A_DISCARD + _best_card(singles, ace_high)
    if left & discards:
        return K.A_DISCARD + _best_card(left & discards, ace_high)
    return K.A_DISCARD + _best_card(discards, ace_high)


@njit(cache=True)
def _last_draw(obs):
    """At a table of 3 or 4, whether each seat has at most one stock draw left."""
    n = obs[K.O_PARAMS + K.P_NUM_PLAYERS]
    return n > 2 and obs[K.O_STOCK_N] <= n


@njit(cache=True)
def _keep2(obs, c, left, inside, live):
    """2 x the points normal's discard subtracts for keeping card ``c`` of the leftover
    ``left``. Two seats: 8 for a partial-meld card (RULES.md §4.9). Three or four, where hands
    end sooner (10 cards, a stock of 21 or 11): a partial-meld card is worth
    ``KEEP_POINTS_PER_DRAW`` a draw left, up to ``KEEP_POINTS_MAX``, plus
    ``POINTS_PER_COMPLETER`` a live card completing its best partial meld; a single
    ``POINTS_PER_PARTNER`` a live card that would pair it; on the last draw, nothing."""
    n = obs[K.O_PARAMS + K.P_NUM_PLAYERS]
    partial = (inside >> c) & 1
    if n == 2:
        return 16 if partial else 0
    if _last_draw(obs):
        return 0
    if not partial:
        return 2 * POINTS_PER_PARTNER * popcount(PARTNERS[c] & live)
    most = 0
    mates = PARTNERS[c] & left & ~(1 << c)
    while mates:
        m = lowest_bit(mates)
        mates &= mates - 1
        most = max(most, popcount(COMPLETERS[c, m] & live))
    draws = obs[K.O_STOCK_N] // n
    return 2 * (min(KEEP_POINTS_MAX, KEEP_POINTS_PER_DRAW * draws) + POINTS_PER_COMPLETER * most)


@njit(cache=True)
def _normal_discard(obs, legal, n, left, inside, live, ace_high):
    """Normal's DISCARD: argmax of value - keep - 6 feed_risk over the legal leftover cards (all
    legal discards if none); keep is ``_keep2`` / 2 (two seats: 8 for a partial-meld card)."""
    discards = _legal_discards(legal, n)
    cands = left & discards
    if cands == 0:
        cands = discards
    layable = _layable(obs)
    best = -1
    best_s = -(1 << 30)
    best_k = -1
    while cands:
        c = lowest_bit(cands)
        cands &= cands - 1
        # 2 x (value - keep - 6 feed_risk)
        s = (2 * K.card_value(c, ace_high) - 6 * _feed_risk2(obs, c, layable)
             - _keep2(obs, c, left, inside, live))
        if s > best_s or (s == best_s and TIE_KEY[c] > best_k):
            best, best_s, best_k = c, s, TIE_KEY[c]
    return K.A_DISCARD + best


@njit(cache=True)
def _holder(obs, legal, n):
    """Master's model of its own later turns in its playouts: the normal heuristic, except that
    it keeps its complete melds in hand (as its search often chooses to) until it can go out
    this turn or an opponent is down to ``HOLD_UNTIL`` cards. At three or four seats it holds
    nothing: more hands end on the stock there, where melds held count against it. The normal
    level plays it too in a hand that decides the game (``_as_normal``)."""
    if obs[K.O_PHASE] != K.PHASE_PLAY or obs[K.O_PARAMS + K.P_NUM_PLAYERS] > 2:
        return _normal(obs, legal, n)
    ace_high = obs[K.O_PARAMS + K.P_ACE_HIGH]
    hand = obs[K.O_HAND]
    left = _leftover(hand, ace_high)
    if popcount(left & ~_layable(obs)) <= 1:
        return _normal(obs, legal, n)
    seat = obs[K.O_SEAT]
    for p in range(obs[K.O_PARAMS + K.P_NUM_PLAYERS]):
        if p != seat and obs[K.O_HAND_N + p] <= HOLD_UNTIL:
            return _normal(obs, legal, n)
    a = _best_layoff(legal, n, left, ace_high)
    if a >= 0:
        return a
    if left & _legal_discards(legal, n) == 0:
        return _normal(obs, legal, n)
    live = _live(obs)
    inside, _ = _partials(left, live)
    return _normal_discard(obs, legal, n, left, inside, live, ace_high)


@njit(cache=True)
def _normal(obs, legal, n):
    ace_high = obs[K.O_PARAMS + K.P_ACE_HIGH]
    hand = obs[K.O_HAND]
    live = _live(obs)
    if obs[K.O_PHASE] == K.PHASE_DRAW:
        if sorted_contains(legal, n, K.TAKE_DISCARD):
            top = obs[K.O_DISCARD + obs[K.O_DISCARD_N] - 1]
            if _top_is_usable(obs, top, hand, ace_high):
                return K.TAKE_DISCARD
            left = _leftover(hand, ace_high)
            if _last_draw(obs):
                # the hand will be scored by its value: a low upcard for a higher card
                value = K.card_value(top, ace_high)
                if (left and value <= LOW_UPCARD
                        and value < K.card_value(_best_card(left, ace_high), ace_high)):
                    return K.TAKE_DISCARD
                return K.DRAW_STOCK
            inside, _ = _partials(left, live)
            singles = left & ~inside & PARTNERS[top]
            while singles:
                s = lowest_bit(singles)
                singles &= singles - 1
                if popcount(COMPLETERS[s, top] & live) >= 2:
                    return K.TAKE_DISCARD
        return K.DRAW_STOCK
    a = _best_partition_meld(legal, n, hand, ace_high, live, True)
    if a >= 0:
        return a
    left = _leftover(hand, ace_high)
    if left == 0:
        # a hand that is one meld it may not lay (discard_to_win) goes out if it can: it lays
        # all of the meld but one card it may discard
        a = _meld_leaving_a_discard(legal, n, hand)
        if a >= 0:
            return a
    # else it lays its cards off, which may take it out, rather than break the meld by a discard
    a = _best_layoff(legal, n, left if left else FULL_DECK, ace_high)
    if a >= 0:
        return a
    inside, _ = _partials(left, live)
    return _normal_discard(obs, legal, n, left, inside, live, ace_high)


@njit(cache=True)
def _deciding_hand(obs):
    """Whether every seat needs at most ``DECIDING_HAND_POINTS`` to reach the target, so that
    winning this hand most likely wins the game, whatever the points."""
    target = obs[K.O_PARAMS + K.P_TARGET_SCORE]
    for p in range(obs[K.O_PARAMS + K.P_NUM_PLAYERS]):
        if target - obs[K.O_SCORES + p] > DECIDING_HAND_POINTS:
            return False
    return True


@njit(cache=True)
def _as_normal(obs, legal, n):
    """The normal level's move: RULES.md §4.9's heuristic (``_normal``), which lays its melds at
    once, except in a hand that decides the game, where it holds them as master's ``_holder``
    does (at two seats only): points no longer count there, and RULES' heuristic won no more
    games than easy."""
    if _deciding_hand(obs):
        return _holder(obs, legal, n)
    return _normal(obs, legal, n)


@njit(cache=True)
def policy(obs, legal, n, level, rng):
    """The move of a heuristic level (0-2) among ``legal[:n]``; -1 when there is none.
    Search levels given here play as normal."""
    if n <= 0:
        return -1
    if n == 1:
        return legal[0]
    if level == BEGINNER:
        return _beginner(legal, n, rng)
    if level == EASY:
        return _easy(obs, legal, n)
    return _as_normal(obs, legal, n)


# ---------------------------------------------------------------------------------------------
# Playouts and the search
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _seed_of(seed, k, salt):
    z = as_u64(seed) ^ (as_u64(k) * GOLDEN) ^ (as_u64(salt) * PLASTIC)
    return np.int64(mix64(mix64(z)))


@njit(cache=True)
def _hand_return(state, seat):
    """The observing seat's return for the hand that just ended (see the module docstring)."""
    n = state[K.S_NUM_PLAYERS]
    w = state[K.S_LAST_WINNER]
    if state[K.S_PHASE] == K.PHASE_GAME_OVER:
        return 1.0 if w == seat else -1.0 / (n - 1)
    g = K.hand_gain(state) / state[K.S_TARGET_SCORE]
    return g if w == seat else -g / (n - 1)


@njit(cache=True)
def _rollout(state, hand_no, seat, obs, legal, hold):
    """Play hand ``hand_no`` out as the normal level for every seat, each from its own
    observation (with ``hold``, the observing seat plays ``_holder``); return the observing
    seat's return for that hand. The hand number is the one before the evaluated move, so a move
    that ends the hand is scored by that hand, not by a playout of the next one."""
    state = unowned(state)
    obs = unowned(obs)
    legal = unowned(legal)
    while state[K.S_PHASE] != K.PHASE_GAME_OVER and state[K.S_HAND_NO] == hand_no:
        p = state[K.S_CURRENT]
        n = K.legal_actions(state, legal)
        if n == 1:
            a = legal[0]
        else:
            K.observe(state, p, obs)
            if hold and p == seat:
                a = _holder(obs, legal, n)
            else:
                a = _as_normal(obs, legal, n)
        K.apply_action(state, a)
    return _hand_return(state, seat)


@njit(cache=True)
def _model_weight(state, obs):
    """Likelihood of the opponents' sampled hands under the opponent model (see the module
    docstring): a product of factors <= 1."""
    seat = obs[K.O_SEAT]
    w = 1.0
    for o in range(obs[K.O_PARAMS + K.P_NUM_PLAYERS]):
        if o == seat:
            continue
        h = state[K.S_HAND + o]
        known = obs[K.O_KNOWN + o]
        while known:
            k = lowest_bit(known)
            known &= known - 1
            if (PARTNERS[k] & h) == 0:
                w *= W_PICKUP_NO_PARTNER
        unwanted = (obs[K.O_DISCARDED + o] | obs[K.O_DECLINED + o]) & ~h
        while unwanted:
            d = lowest_bit(unwanted)
            unwanted &= unwanted - 1
            if _completes_meld(d, h):
                w *= W_UNWANTED_MELD
            elif PARTNERS[d] & h:
                w *= W_UNWANTED_PARTNER
    return w


@njit(cache=True)
def _determinization(obs, level, seed, k):
    """Determinization ``k``: expert = ``determinize`` from (seed, k); master = resampled among
    ``MODEL_CANDIDATES`` candidates by the opponent model's weights."""
    if level < MASTER:
        return K.determinize(obs, _seed_of(seed, k, 1))
    weights = np.empty(MODEL_CANDIDATES, dtype=np.float64)
    total = 0.0
    for r in range(MODEL_CANDIDATES):
        cand = K.determinize(obs, _seed_of(seed, k * MODEL_CANDIDATES + r, 2))
        weights[r] = _model_weight(cand, obs)
        total += weights[r]
    rng = np.empty(1, dtype=np.int64)
    seed_slot(rng, 0, _seed_of(seed, k, 3))
    u = (below(rng, 0, 1 << 30) + 0.5) / (1 << 30) * total
    chosen = MODEL_CANDIDATES - 1
    acc = 0.0
    for r in range(MODEL_CANDIDATES):
        acc += weights[r]
        if u < acc:
            chosen = r
            break
    return K.determinize(obs, _seed_of(seed, k * MODEL_CANDIDATES + chosen, 2))


@njit(cache=True)
def _evaluate(obs, level, seed, k, legal, n, row):
    """Returns of the ``n`` legal moves on determinization ``k`` into ``row``."""
    seat = obs[K.O_SEAT]
    base = _determinization(obs, level, seed, k)
    work = np.empty(K.STATE_SIZE, dtype=np.int64)
    ob = np.empty(K.OBS_SIZE, dtype=np.int64)
    buf = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    hand_no = base[K.S_HAND_NO]
    for j in range(n):
        copy_into(work, base)
        K.apply_action(work, legal[j])
        row[j] = _rollout(work, hand_no, seat, ob, buf, level >= MASTER)


@njit(cache=True, parallel=True)
def search(obs, level, seed, first, count, values, visits):
    """Evaluate every legal move on determinizations ``first .. first + count - 1`` (levels 3-4):
    add each move's summed return to ``values[action]`` and the evaluations to
    ``visits[action]``. Per-determinization rows, reduced serially in index order, so the sums
    do not depend on the threads or on how the work is split into calls."""
    legal = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    n = K.legal_from_obs(obs, legal)
    if n == 0 or count <= 0:
        return
    rows = np.empty((count, n), dtype=np.float64)
    for i in prange(count):
        _evaluate(obs, level, seed, first + i, legal, n, rows[i])
    for i in range(count):
        for j in range(n):
            values[legal[j]] += rows[i, j]
            visits[legal[j]] += 1


@njit(cache=True)
def search_serial(obs, level, seed, first, count, values, visits):
    """``search`` on one thread (same results), for games run in parallel."""
    legal = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    n = K.legal_from_obs(obs, legal)
    if n == 0 or count <= 0:
        return
    row = np.empty(n, dtype=np.float64)
    for i in range(count):
        _evaluate(obs, level, seed, first + i, legal, n, row)
        for j in range(n):
            values[legal[j]] += row[j]
            visits[legal[j]] += 1


@njit(cache=True)
def _reveal(a):
    """How much a move tells the opponents: taking the discard advertises a meld."""
    return 1 if a == K.TAKE_DISCARD else 0


@njit(cache=True)
def pick(obs, values, visits, legal, n, level, seed):
    """The move a search level plays from the accumulated statistics: the best mean, the move the
    playouts' own policy would play for the seat (normal; master: ``_holder``) getting
    ``PRIOR_POINTS`` of credit against the noise of the estimates (ties: the lowest id), a point
    worth 1 / max(target, ``CREDIT_TARGET``) of a game; below ``EXPERT_ITERATIONS``
    determinizations, ``EXPERT_ITERATIONS / n`` times as much.
    Master bluffs: when the best move reveals something (taking the discard) and a move that
    reveals less is within ``BLUFF_MARGIN_POINTS`` of it, it plays that one with probability
    ``BLUFF_RATE`` (seeded by ``seed``)."""
    if n <= 0:
        return -1
    plan = legal[0]
    if n > 1:
        if level >= MASTER:
            plan = _holder(obs, legal, n)
        else:
            plan = _as_normal(obs, legal, n)
    # A point is 1/target of a hand's return, but below the default target one hand decides
    # most games, where that share (a whole game at target 1) would outweigh the search
    point = 1.0 / max(obs[K.O_PARAMS + K.P_TARGET_SCORE], CREDIT_TARGET)
    prior = PRIOR_POINTS * point
    means = np.full(n, -np.inf)
    best = -1
    best_mean = -np.inf
    for i in range(n):
        a = legal[i]
        if visits[a] > 0:
            means[i] = values[a] / visits[a]
            if a == plan:
                means[i] += prior * max(1.0, EXPERT_ITERATIONS / visits[a])
            if means[i] > best_mean:
                best_mean = means[i]
                best = a
    if best < 0:
        return plan
    if level < MASTER:
        return best
    if _reveal(best) == 0:
        return best
    # bluff: a move that reveals less, within the margin of the best, is played instead with
    # probability BLUFF_RATE (seeded), the first such in id order
    margin = BLUFF_MARGIN_POINTS * point
    for i in range(n):
        if means[i] >= best_mean - margin and _reveal(legal[i]) < _reveal(best):
            rng = np.empty(1, dtype=np.int64)
            seed_slot(rng, 0, _seed_of(seed, 0, 4))
            if below(rng, 0, 1000) < BLUFF_RATE * 1000:
                return legal[i]
            break
    return best


@njit(cache=True)
def default_iterations(level):
    """Determinizations per decision at the default budget (0 for the heuristic levels)."""
    if level == EXPERT:
        return EXPERT_ITERATIONS
    if level >= MASTER:
        return MASTER_ITERATIONS
    return 0


# ---------------------------------------------------------------------------------------------
# Deciding and playing
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def choose(obs, level, iterations, seed, parallel):
    """The move of ``level`` for the observation (the seat must be the one to act): the policy,
    or ``search`` over ``iterations`` determinizations then ``pick``. Seeded by ``seed`` only."""
    legal = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    n = K.legal_from_obs(obs, legal)
    if n <= 1:
        return legal[0] if n == 1 else -1
    if level < EXPERT:
        rng = np.empty(1, dtype=np.int64)
        seed_slot(rng, 0, seed)
        return policy(obs, legal, n, level, rng)
    values = np.zeros(K.NUM_ACTIONS, dtype=np.float64)
    visits = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    if parallel:
        search(obs, level, seed, 0, iterations, values, visits)
    else:
        search_serial(obs, level, seed, 0, iterations, values, visits)
    return pick(obs, values, visits, legal, n, level, seed)


@njit(cache=True)
def decide(state, level, iterations, seed):
    """The move of the seat to act in ``state``, decided from its observation only (single
    thread): what ``play_game`` does at every decision."""
    obs = np.empty(K.OBS_SIZE, dtype=np.int64)
    K.observe(state, state[K.S_CURRENT], obs)
    return choose(obs, level, iterations, seed, False)


@njit(cache=True)
def new_progress(ai_seed):
    """``play_out``'s record of a game under way, as at its start: the moves played, from whose
    number each move's seed derives. ``ai_seed`` goes unused here; gin's record seeds a random
    stream from it, and the arena starts a game of either with the same call."""
    return np.zeros(1, dtype=np.int64)


@njit(cache=True)
def play_out(state, levels, iterations, ai_seed, progress, max_moves, one_hand=False):
    """``play_game``'s loop: plays ``state`` in place, at most ``max_moves`` moves (-1: to the
    end of the game; with ``one_hand``, of its first hand), so a caller can read the final
    scores; returns how many. ``progress`` (``new_progress``) carries the game from one call to
    the next, so a game played in several calls is the game played in one."""
    played = 0
    while state[K.S_PHASE] != K.PHASE_GAME_OVER and played != max_moves:
        if one_hand and state[K.S_HAND_NO] != 1:
            break
        p = state[K.S_CURRENT]
        seed = _seed_of(ai_seed, progress[0], 5)
        K.apply_action(state, decide(state, levels[p], iterations[p], seed))
        progress[0] += 1
        played += 1
    return played


@njit(cache=True)
def _play(params, deal_seed, levels, iterations, ai_seed, out_returns, one_hand):
    state = K.new_state(params, deal_seed)
    moves = play_out(state, levels, iterations, ai_seed, new_progress(ai_seed), -1, one_hand)
    n = state[K.S_NUM_PLAYERS]
    if one_hand:
        w = state[K.S_LAST_WINNER]
        gain = K.hand_gain(state)
        for p in range(n):
            out_returns[p] = gain if p == w else -gain / (n - 1)
    else:
        K.returns(state, out_returns)
    return moves


@njit(cache=True)
def play_game(params, deal_seed, levels, iterations, ai_seed, out_returns):
    """One full game, seat ``s`` played by ``levels[s]`` (search levels with ``iterations[s]``
    determinizations per decision), every decision from ``observe(state, seat)`` only; writes
    the game's returns and returns the number of moves."""
    return _play(params, deal_seed, levels, iterations, ai_seed, out_returns, False)


@njit(cache=True)
def play_hand(params, deal_seed, levels, iterations, ai_seed, out_returns):
    """``play_game`` stopped after the first hand: ``out_returns[s]`` = seat ``s``'s score
    differential for that hand in points (the winner's gain for the winner, ``-gain / (N - 1)``
    for the others). Returns the number of moves."""
    return _play(params, deal_seed, levels, iterations, ai_seed, out_returns, True)


@njit(cache=True, parallel=True)
def play_games(params, deal_seeds, levels, iterations, ai_seed, one_hand, out, first_game):
    """Games ``i`` dealt from ``deal_seeds[i]`` with ``levels[i]`` / ``iterations[i]`` per seat,
    in parallel (each game on one thread); ``out[i]`` = that game's returns (``play_game``) or
    first-hand differentials (``play_hand``). Game ``i``'s search seed comes from its number
    ``first_game + i``, so a long run split into parts plays the same games as in one piece."""
    for i in prange(deal_seeds.shape[0]):
        _play(params, deal_seeds[i], levels[i], iterations[i],
              _seed_of(ai_seed, np.int64(first_game + i), 6), out[i], one_hand)
