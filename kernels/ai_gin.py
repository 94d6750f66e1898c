"""Gin Rummy AI levels (RULES.md §5 game, §6 ladder; contract: docs/ai-contract.md).

Every decision is made from an observation array (``gin.observe``) only; the legal moves
too (``gin.legal_from_obs``). Full states exist only inside ``search``, built from the
observation by ``gin.determinize`` (then reworked as described under *expert*).

Words used below. *Best partition*: the exact deadwood-minimizing set of melds; its *deadwood
cards* are ``bridge.leftover`` of the hand, their total value the exact minimum deadwood.
*Dead* cards, for the seat deciding: the discard pile, the cards known to be in the opponent's
hand (upcards it took and still holds), melds and lay-offs on the table. *Live* cards: neither
dead nor in the deciding seat's hand. *Key* of a card (tie-breaks, E6): higher value, then
higher rank, then suit C < D < H < S.

beginner
    A uniform legal-move category (draw upcard, draw stock, pass, knock, discard, lay meld,
    lay off), then a uniform legal move of that category (``rng`` slot 0).

easy (greedy and memory-less: reads only its hand, the upcard and the legal moves)
    * Draw / first upcard: take the upcard iff the best deadwood after taking it and discarding
      the highest-key other deadwood card of the 11 is lower than the current best deadwood
      (when the upcard makes no meld with the hand this is "upcard value < the highest
      deadwood card's value", a swap-down, found without a hand-algebra call); otherwise draw
      from the stock (pass on the first upcard).
    * Discard: the highest-key card of ``bridge.leftover`` of the 11 cards, never the upcard
      just taken unless it is the only deadwood card; a hand with no deadwood card discards
      the card leaving the least deadwood.
    * Knock as soon as it is legal (Discard phase and Wall); otherwise pass at the Wall.
    * Knocker: the discard leaving the least deadwood (the top deadwood card, unless two
      partitions of the 11 cards tie and a melded card frees the other), then every meld of the
      best partition, then pass. Defender: lays off, one card at a time, the chain of lay-offs
      that leaves the least deadwood (a card laid off on a run lets the next one beyond it fit,
      so a melded card may start a chain that lowers it), a fitting deadwood card first
      (highest key); then pass; then every meld of the best partition; then pass.

normal (keeps partial melds, weighs the risk of feeding the opponent)
    * Partial meld: two deadwood cards of the same rank, or of one suit at rank distance 1
      (completed by the card below or above the pair) or 2 (completed by the card between),
      with at least one completing card live.
    * Feed risk of a card ``c``: 2 if ``c`` makes a meld with the opponent's known cards; else
      1 if ``c`` has the rank of a known card of the opponent or its suit within two ranks;
      else 0.
    * Discard: among the deadwood cards of the 11 (not the upcard just taken), the maximum of
      ``2 * value(c) - 2 * W_PARTIAL * [c in a partial meld] - W_FEED * feed_risk(c)``
      (``W_PARTIAL`` 8, ``W_FEED`` 12), ties by key.
    * Draw: take the upcard iff (a) it is melded in the best partition of the 11 cards and the
      best deadwood after discarding the highest-value other deadwood card is lower than now,
      or (b) it makes a partial meld with >= 2 live completing cards with a *single* (a
      deadwood card in no partial meld) and normal's discard afterwards is worth at least the
      upcard. Otherwise the stock (pass on the first upcard). Never a plain swap-down.
    * Knock when legal, except that it plays on for gin when the best deadwood after the
      discard is 1..``GIN_HOLD_DEADWOOD`` (6) while the stock still holds >=
      ``GIN_HOLD_STOCK`` (10) cards. At the Wall: knock iff legal. Knock, lay-off and meld
      phases as easy.

expert (``search`` + ``pick``: determinized Monte Carlo, flat)
    * Determinization ``k`` of a decision is seeded from ``mix(seed, k)`` alone. It is
      ``gin.determinize(obs)`` (the opponent's known cards kept, its other cards a uniform
      sample of the unseen cards, the rest the stock) followed by ``improve_opponent``: the
      sampled opponent hand replays ``improve_turns`` greedy turns (half the turns played so
      far + ``IMPROVE_EXTRA``): each draws a uniform stock card and swaps its highest deadwood
      card (never a known card) back into the stock, skipping swaps that would leave deadwood
      <= the knock card (the opponent has not knocked); the stock is then reshuffled. A uniform
      sample gives the opponent a freshly dealt hand (mean deadwood ~52 at mid-game against
      ~25 in real play); the replay matches the real deadwood distribution of easy and normal
      opponents at every stage, and the search with it wins ~3 % more games against normal.
    * Every legal move is applied to a copy of the determinization and played out to the end
      by ``rollout`` on the full sampled state, the observing seat playing easy and the
      opponent normal (per easy turn: one ``bridge.leftover`` call for the discard, plus one
      for the draw only when the upcard makes a meld with the hand; the end phases are played
      with the kernel's moves and scored directly); the observing seat's return (points) is added to
      ``values[move]`` and 1 to ``visits[move]``. Every decision is searched: first upcard, draw
      source, discard, knock or not, the knocker's discard and melds, lay-offs, the Wall.
      Which seat plays which policy was measured (expert vs normal, 2,000 pairs): easy for
      both 52.2 %, normal for the opponent 53.5 %, normal for both 50.8 %; normal without its
      gin hold for the seat itself, the opponent normal 52.4 %. The seat's own later turns race
      to the knock, as expert's ``pick`` does.
    * ``pick``: knock whenever the Discard phase allows it (one game is one hand: the first
      knock wins ~92 % of games, and playing on for gin, which the playouts favour in points,
      loses games), unless the knock's mean return is negative and ``KNOCK_MARGIN`` points
      below the best move's: then the search has found the undercut coming, and a hint does not
      advise a knock its own figures call a loss. The exception measured the same as always
      knocking (2,000 pairs each: expert vs normal 54.9 %, master vs expert 52.9 % against
      53.0 %). Otherwise the highest mean return, the normal policy's move getting
      ``PRIOR_POINTS`` of credit against the noise of the estimates (ties: the lower id),
      except in the defender's Layoff phase, where nothing is hidden and the playouts of a move
      all score the same: there normal's move wins exact ties only (a pass over a lay-off that
      changes nothing). The credit measured +1.4 and +2.2 points of win rate against normal on
      two sets of 2,000 deal pairs (search alone adds little over normal's draws and discards:
      the estimates are noisier than the differences between moves). Below
      ``EXPERT_ITERATIONS`` determinizations the credit grows as ``EXPERT_ITERATIONS / n``: the
      fewer the samples, the noisier the estimates. With a fixed credit, expert won only 36.0 %
      against normal at 8 determinizations and 43.0 % at 16; with a credit growing as
      ``1/sqrt(n)``, 44.5 % and 47.5 %; as ``1/n``, 52.9 % and 52.6 % (2,000 pairs each).

master (``search`` + ``pick``, RULES.md §6)
    1. Perfect memory: the permitted history of the observation (``O_HISTORY``: every move of
       both seats, the seat's own stock cards) besides the dead discard pile in order and the
       cards each seat took face up and still holds. ``_evidence`` reads from it every card
       the opponent discarded or declined, its last card and the upcard it declined in its
       last turn.
    2. Opponent model (the opponent is assumed to play normal): each determinization is drawn
       by rejection among up to ``MODEL_TRIES`` expert-style candidates (candidate ``j`` of
       determinization ``k`` seeded from ``mix(mix(seed, k), j)``), candidate kept with
       probability ``w(H)`` of its opponent hand ``H``, else the highest-weight candidate:
       ``w`` multiplies ``EPS_LAST`` if the card the opponent last discarded or declined would
       be melded in the best partition of ``H`` plus it, else ``EPS_CHOICE`` if it was a
       discard and normal's discard from ``H`` plus it is another card; ``EPS_LAST`` again if
       the upcard it declined in that turn would be melded with ``H``;
       ``f(age) = 1 - (1 - ALPHA) * GAMMA ** age`` for every card it discarded or declined
       (age 0 the newest) that makes a meld with ``H``; and ``BETA`` per known card of the
       opponent in no meld of ``H`` (normal takes an upcard to complete a meld).
    3. Anticipation: in the playouts the opponent plays easy: it races to the knock, as expert,
       OpenSpiel's simple bot and most players do, where normal plays on for gin at low
       deadwood. Measured on the same 1,000 deal pairs each: against expert 53.9 % with easy
       replies, 51.9 % with normal's; against normal 56.3 % and 56.1 %. (Half of each, 52.5 %
       and 56.9 %.) The model of 2. still filters the sampled hand by normal's discards and
       pickups, which an easy player's resemble.
    4. Bluff (``pick``, after the expert rule): when the best move takes the upcard (which
       shows a card) and drawing from the stock or passing is within ``BLUFF_MARGIN`` points of
       mean return, the less revealing move is played with probability ``BLUFF_PROB`` (seeded
       by ``mix(seed, 0x5EED)``).

Budgets: ``default_iterations`` (determinizations per decision). ``play_game``,
``play_games`` and ``play_mirrored`` use ``search_serial`` (the same results as ``search``);
``search`` runs ``prange`` over determinizations (``_search_replying``), one row of results per
determinization, reduced serially in index order, so results do not depend on the thread count
or on how the work is split into calls.

Measured strength: the README's Strength table (``bench/test_bench_ai_gin.py``, mirrored deal
pairs). One game is one hand and the first knock wins ~92 % of them, so competent policies sit
close together. What limits the search is information: told half of the opponent's hidden cards
at every decision it gains about six points against normal, told the whole hand over twenty
(``test_peeking_search``); docs/gin-strength.md has the measurements.
"""
import numpy as np
from numba import prange

from . import gin as G
from .arrays import copy_into, sorted_contains
from .bits import lowest_bit, popcount
from .bridge import leftover as _bridge_leftover
from .calls import unowned
from .jit import njit
from .levels import BEGINNER, EASY, EXPERT, MASTER, NORMAL
from .rng import (GOLDEN, PLASTIC, as_u64, below, mix64, seed_slot, shuffle, uniform_by_category,
                  unit)

# ---- tuning constants (measured: see the module docstring) ----------------------------------------
W_PARTIAL = 8            # normal: points a partial-meld card is worth keeping
W_FEED = 12              # normal: points per unit of feed risk
GIN_HOLD_DEADWOOD = 6    # normal: plays on for gin at deadwood 1..this ...
GIN_HOLD_STOCK = 10      # ... while the stock holds at least this many cards
IMPROVE_EXTRA = 2        # search: greedy turns replayed on the sampled opponent hand, beyond half
ALPHA = 0.25             # master model: weight of a hand melding the newest discarded card
GAMMA = 0.85             # master model: how fast older discard evidence fades
BETA = 0.4               # master model: weight per taken upcard that is in no meld of the hand
EPS_LAST = 0.1           # master model: weight of a hand melding the card last discarded/declined
EPS_CHOICE = 0.3         # master model: weight of a hand whose normal discard is not the last one
MODEL_TRIES = 8          # master model: candidate determinizations per determinization
BLUFF_MARGIN = 1.0       # master pick: points of mean return a bluff may cost at most
BLUFF_PROB = 0.75        # master pick: probability of playing the less revealing move
KNOCK_MARGIN = 3.0       # search pick: a losing knock this far below the best move is not played
TIE_EPS = 1e-9           # search pick: mean returns this close count as a tie
PRIOR_POINTS = 1.0       # search pick: credit of the normal policy's move (points of mean return)
#                          from EXPERT_ITERATIONS determinizations up, x EXPERT_ITERATIONS / n below

EXPERT_ITERATIONS = 128
MASTER_ITERATIONS = 512

# rollout / policy kinds
POL_EASY = 0
POL_NORMAL = 1

# beginner categories
CAT_UPCARD = 0
CAT_STOCK = 1
CAT_PASS = 2
CAT_KNOCK = 3
CAT_DISCARD = 4
CAT_MELD = 5
CAT_LAYOFF = 6
NUM_CATEGORIES = 7

NUM_CARDS = G.NUM_CARDS
ALL = G.ALL_CARDS
LANE = G.LANE
RANK_A = sum(1 << (13 * s) for s in range(4))
RANK_K = RANK_A << 12
NOT_A = ALL & ~RANK_A
NOT_K = ALL & ~RANK_K
VALUE = G.CARD_VALUE
# tie-break key: value, then rank, then suit (E6), 0..(10*64+63)
KEY = np.array([min(10, c % 13 + 1) * 64 + (c % 13) * 4 + c // 13 for c in range(NUM_CARDS)],
               dtype=np.int64)
TIE = np.array([(c % 13) * 4 + c // 13 for c in range(NUM_CARDS)], dtype=np.int64)
MELD_MASK = G.MELD_MASK
MAX_LOWEST_CARD_MELDS = 7   # one_meld: 3 runs and 4 sets can hold a mask's lowest card



# ---- small helpers ---------------------------------------------------------------------------
@njit(cache=True)
def mix(a, b):
    """A seed derived from two integers (determinization ``b`` of search seed ``a``)."""
    z = mix64(as_u64(a) + GOLDEN) ^ (as_u64(b) * PLASTIC)
    return np.int64(mix64(z + GOLDEN))


@njit(cache=True, inline="always")
def _left(h):
    """Deadwood cards of the best partition of ``h`` (gin)."""
    return _bridge_leftover(0, np.uint64(h), 0)


@njit(cache=True, inline="always")
def _shl1(x):   # card c -> c + 1 within its suit
    return (x << 1) & NOT_A


@njit(cache=True, inline="always")
def _shr1(x):   # card c -> c - 1 within its suit
    return (x >> 1) & NOT_K


@njit(cache=True, inline="always")
def _rank_lanes(x):
    return x & LANE, (x >> 13) & LANE, (x >> 26) & LANE, (x >> 39) & LANE


@njit(cache=True, inline="always")
def _spread(r):
    return r | (r << 13) | (r << 26) | (r << 39)


@njit(cache=True)
def _top(m):
    """Highest-key card of the mask ``m``; -1 if ``m`` is empty."""
    best = -1
    bk = -1
    while m:
        low = m & -m
        c = lowest_bit(low)
        if KEY[c] > bk:
            bk = KEY[c]
            best = c
        m ^= low
    return best


@njit(cache=True)
def partial_cards(s, live):
    """Cards of ``s`` in a partial meld within ``s`` with at least one live completing card."""
    a, b, c, d = _rank_lanes(s)
    two = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
    la, lb, lc, ld = _rank_lanes(live & ~s)
    pairs = s & _spread(two & (la | lb | lc | ld))
    adj = s & _shr1(s)                                   # c with c + 1 in s
    pa = adj & (_shl1(live) | _shr1(_shr1(live)))        # c - 1 or c + 2 live
    gap = s & _shr1(_shr1(s)) & _shr1(live)              # c, c + 2 in s, c + 1 live
    return pairs | pa | _shl1(pa) | gap | _shl1(_shl1(gap))


@njit(cache=True)
def _near(k):
    """Cards of the same rank as a card of ``k`` or of its suit within two ranks."""
    a, b, c, d = _rank_lanes(k)
    s1 = _shl1(k) | _shr1(k)
    return (_spread(a | b | c | d) | s1 | _shl1(_shl1(k)) | _shr1(_shr1(k))) & ~k


@njit(cache=True, inline="always")
def feed_risk(b, opp_known, near):
    """RULES.md §4.9's feed_risk of the card ``b`` (a one-bit mask) in halves: 2 when it melds
    with the opponent's known cards ``opp_known``, 1 when it is in ``near`` (``_near`` of them,
    computed once per discard), else 0."""
    if opp_known == 0:
        return 0
    if G.meldable(opp_known | b) & b:
        return 2
    if near & b:
        return 1
    return 0


@njit(cache=True)
def _min_dw_discard(h):
    """(card, deadwood) of the discard of ``h`` leaving the least exact deadwood (ties: key)."""
    best = -1
    bd = 1 << 30
    m = h
    while m:
        low = m & -m
        c = lowest_bit(low)
        d = G.exact_deadwood(h ^ low)
        if d < bd or (d == bd and KEY[c] > KEY[best]):
            bd = d
            best = c
        m ^= low
    return best, bd


@njit(cache=True)
def one_meld(m, cands):
    """A meld id of a decomposition of the fully melded mask ``m`` into catalog melds: a meld
    holding the lowest card of ``m`` whose removal leaves a fully melded rest. ``cands``:
    scratch int64[MAX_LOWEST_CARD_MELDS], passed in so that laying a hand's melds allocates it
    once, not once per meld."""
    c = lowest_bit(m)
    r = c % 13
    s = c // 13
    n = 0
    for length in range(3, 6):
        if r + length - 1 > 12:
            break
        run = ((np.int64(1) << length) - 1) << c
        if (m & run) != run:
            break
        cands[n] = G.run_meld_id(s, r, length)
        n += 1
    rank = m & (RANK_A << r)
    cnt = popcount(rank)
    if cnt == 3:
        missing = 0
        for k in range(4):
            if not rank & G.bit(k * 13 + r):
                missing = k
        cands[n] = G.set_meld_id(r, missing)
        n += 1
    elif cnt == 4:
        cands[n] = G.set_meld_id(r, 4)
        n += 1
        for k in range(4):
            if k != s:
                cands[n] = G.set_meld_id(r, k)
                n += 1
    if n == 1:
        return cands[0]
    for i in range(n):
        if G.exact_deadwood(m ^ MELD_MASK[cands[i]]) == 0:
            return cands[i]
    return cands[0]


@njit(cache=True)
def _meld_of_partition(h):
    """A meld id of the best partition of ``h``, -1 when it has none."""
    melded = h & ~_left(h)
    if melded == 0:
        return -1
    return one_meld(melded, np.empty(MAX_LOWEST_CARD_MELDS, dtype=np.int64))


@njit(cache=True)
def layoff_choice(h, arr, public):
    """The lay-off the easy and normal defenders play with the hand ``h``, in a state or
    observation whose public block starts at ``public``: the first card of a chain of lay-offs
    that leaves the least deadwood, a deadwood card before a melded one, then the highest key;
    -1 when no chain lowers the deadwood. A chain matters because a card laid off on a run
    opens the next card beyond it, which alone may not fit."""
    laid = G.laid_off_cards(arr, public)
    now = h & G.targets_after_layoffs(arr, public, laid)
    if now == 0:
        return -1
    reach = 0                     # the cards of the hand some chain can lay off
    fit = now
    while fit & ~reach:
        reach |= fit
        fit = h & G.targets_after_layoffs(arr, public, laid | reach)
    lo = _left(h)
    if reach & ~lo == 0:          # deadwood cards only: laying them all leaves the least
        return _top(now)
    now_deadwood = G.hand_value(lo)
    best_deadwood = now_deadwood
    best = -1
    best_rank = -1
    chain = reach
    while chain:                  # every non-empty subset of reach
        if _layable(chain, arr, public, laid):
            first = chain & now
            first = _top(first & lo) if first & lo else _top(first)
            rank = KEY[first] + (1 << 20 if lo & G.bit(first) else 0)
            # without deadwood cards alone, the best partition stays as it is
            deadwood = now_deadwood - G.hand_value(chain) if chain & ~lo == 0 \
                else G.exact_deadwood(h ^ chain)
            if deadwood < best_deadwood or (deadwood == best_deadwood and best >= 0
                                            and rank > best_rank):
                best_deadwood = deadwood
                best = first
                best_rank = rank
        chain = (chain - 1) & reach
    return best


@njit(cache=True)
def _layable(chain, arr, public, laid):
    """True iff the cards ``chain`` can all be laid off, in some order, after ``laid``: laying a
    card off only adds targets, so laying every fitting card at once decides it."""
    while chain:
        fit = chain & G.targets_after_layoffs(arr, public, laid)
        if fit == 0:
            return False
        laid |= fit
        chain ^= fit
    return True


# ---- the easy and normal decisions on masks (shared by policy and rollouts) --------------------
@njit(cache=True, inline="always")
def normal_discard_score(c, part, opp_known, near):
    """Normal's score of discarding deadwood card ``c`` (module docstring, in half points):
    ``part``: the hand's cards in a partial meld; ``near``: ``_near(opp_known)``."""
    low = G.bit(c)
    sc = 2 * VALUE[c]
    if part & low:
        sc -= 2 * W_PARTIAL
    return sc - W_FEED * feed_risk(low, opp_known, near)


@njit(cache=True)
def _normal_discard(l11, avoid, live, opp_known):
    """Normal's discard among the deadwood cards ``l11`` (not ``avoid`` unless it is the only
    one); -1 when ``l11`` is empty. ``live``: cards not dead and not in the hand."""
    cand = l11 & ~avoid
    if cand == 0:
        cand = l11
    if cand == 0:
        return -1
    part = partial_cards(l11, live)
    near = _near(opp_known) if opp_known else np.int64(0)
    best = -1
    bk = -(1 << 40)
    m = cand
    while m:
        low = m & -m
        c = lowest_bit(low)
        sc = normal_discard_score(c, part, opp_known, near)
        k = sc * 64 + TIE[c]
        if k > bk:
            bk = k
            best = c
        m ^= low
    return best


@njit(cache=True, inline="always")
def _upcard_kept(h, prev_upcard):
    """The bit of the upcard just taken while ``h`` still holds it, else 0: the discards avoid
    it, for thrown straight back it undoes the take, and after the opponent did the same it
    ends the hand as a draw (OpenSpiel's repeated move)."""
    if prev_upcard >= 0 and (h & G.bit(prev_upcard)):
        return G.bit(prev_upcard)
    return 0


@njit(cache=True)
def _knocker_discard(h, l11):
    """The knocker's discard from its 11 cards ``h`` (deadwood cards ``l11``): the card leaving
    the least deadwood, the highest deadwood card unless another leaves less. Discarding a card
    worth ``v`` leaves at least the 11 cards' deadwood less ``v`` (with the card back as a loose
    one the 10 cards' melds partition the 11), so only melded cards worth more than the highest
    deadwood card can: when two partitions of the 11 tie, such a discard may free the other.
    And only if a deadwood card then joins a meld, which most knocking hands rule out at once."""
    if l11 == 0:
        return _min_dw_discard(h)[0]
    best = _top(l11)
    if G.meldable(h) & l11 == 0:
        return best
    top_value = VALUE[best]
    least = G.hand_value(l11) - top_value
    m = h & ~l11
    while m:
        low = m & -m
        c = lowest_bit(low)
        m ^= low
        if VALUE[c] > top_value and G.meldable(h ^ low) & l11:
            d = G.exact_deadwood(h ^ low)
            if d < least:
                least = d
                best = c
    return best


@njit(cache=True)
def _easy_discard(l11, avoid):
    cand = l11 & ~avoid
    if cand == 0:
        cand = l11
    return _top(cand)


@njit(cache=True)
def _live_partner(u, singles, live):
    """True iff ``u`` and a card of ``singles`` make a partial meld with >= 2 live completers."""
    ru = u % 13
    su = u // 13
    m = singles
    while m:
        low = m & -m
        c = lowest_bit(low)
        m ^= low
        r = c % 13
        s = c // 13
        if r == ru:
            if popcount(live & (RANK_A << r) & ~(G.bit(u) | low)) >= 2:
                return True
        elif s == su and (r - ru == 1 or ru - r == 1):
            lo = min(r, ru)
            cnt = 0
            if lo > 0 and live & G.bit(s * 13 + lo - 1):
                cnt += 1
            if lo + 2 <= 12 and live & G.bit(s * 13 + lo + 2):
                cnt += 1
            if cnt >= 2:
                return True
    return False


@njit(cache=True)
def _take(pol, h, l10, dw10, u, live, opp_known):
    """(take the upcard?, deadwood cards of h + u)."""
    ub = G.bit(u)
    h11 = h | ub
    if G.meldable(h11) & ub:
        l11 = _left(h11)
        if pol == POL_EASY or not (l11 & ub):
            rest = l11 & ~ub
            after = G.hand_value(l11) - G.highest_value(rest)
            if after < dw10:
                return True, l11
    else:
        l11 = l10 | ub
        if pol == POL_EASY:
            if VALUE[u] < G.highest_value(l10):
                return True, l11
    if pol == POL_NORMAL and (l11 & ub):
        singles = l10 & ~partial_cards(l10, live)
        if _live_partner(u, singles, live):
            c = _normal_discard(l11, ub, live, opp_known)
            if c >= 0 and VALUE[c] >= VALUE[u]:
                return True, l11
    return False, l11


@njit(cache=True)
def _want_knock(pol, dw_after, stock):
    if pol == POL_NORMAL and 0 < dw_after <= GIN_HOLD_DEADWOOD and stock >= GIN_HOLD_STOCK:
        return False
    return True


# ---- rollouts ----------------------------------------------------------------------------------
@njit(cache=True)
def _knock_return(state, root, dw_defender):
    k = state[G.S_KNOCKER]
    r = G.showdown_score(state[G.S_DEADWOOD + k], dw_defender, state[G.S_GIN_BONUS],
                         state[G.S_UNDERCUT_BONUS])
    return float(r) if root == k else float(-r)


@njit(cache=True)
def _final_return(state, root):
    if state[G.S_END] != G.END_KNOCK:
        return 0.0
    k = state[G.S_KNOCKER]
    return _knock_return(state, root, state[G.S_DEADWOOD + 1 - k])


@njit(cache=True)
def _cards_mask(arr, count_slot, first_slot):
    """Mask of the cards listed in ``arr[first_slot:first_slot + arr[count_slot]]``."""
    m = 0
    for i in range(arr[count_slot]):
        m |= G.bit(arr[first_slot + i])
    return m


@njit(cache=True)
def _pile_mask(state):
    return _cards_mask(state, G.S_DISCARD_COUNT, G.S_DISCARDS)


@njit(cache=True)
def rollout(state, root, pol0, pol1, cache, pile, melds):
    """Plays ``state`` to the end in place, seat ``s`` with policy ``pol<s>`` on the full state
    (a sampled world), and returns seat ``root``'s return. ``cache`` (int64[6], -1 = unknown):
    deadwood cards and deadwood of each seat's 10-card hand, then the deadwood cards of a
    pending 11-card hand; ``pile``: the dead discard pile mask; ``melds``: ``one_meld``'s
    scratch (int64[MAX_LOWEST_CARD_MELDS]), allocated once by the caller."""
    state = unowned(state)
    cache = unowned(cache)
    melds = unowned(melds)
    kc = state[G.S_KNOCK_CARD]
    while True:
        ph = state[G.S_PHASE]
        if ph == G.PH_GAME_OVER:
            return _final_return(state, root)
        p = state[G.S_CURRENT]
        pol = pol0 if p == 0 else pol1
        h = state[G.S_HAND + p]
        if ph == G.PH_DRAW or ph == G.PH_FIRST_UPCARD:
            u = state[G.S_UPCARD]
            if ph == G.PH_FIRST_UPCARD and state[G.S_PASSED] and state[G.S_PASSED + 1]:
                pile |= G.bit(u)
                G.apply_action(state, G.DRAW_STOCK)
                cache[4 + p] = -1
                continue
            if cache[2 + p] < 0:
                lo = _left(h)
                cache[p] = lo
                cache[2 + p] = G.hand_value(lo)
            opp_known = state[G.S_KNOWN + 1 - p]
            live = ALL & ~(h | pile | opp_known | G.bit(u))
            take, l11 = _take(pol, h, cache[p], cache[2 + p], u, live, opp_known)
            if take:
                cache[4 + p] = l11
                G.apply_action(state, G.DRAW_UPCARD)
            elif ph == G.PH_FIRST_UPCARD:
                G.apply_action(state, G.PASS)
            else:
                pile |= G.bit(u)
                cache[4 + p] = -1
                G.apply_action(state, G.DRAW_STOCK)
        elif ph == G.PH_DISCARD:
            l11 = cache[4 + p]
            if l11 < 0:
                l11 = _left(h)
            cache[4 + p] = -1
            avoid = _upcard_kept(h, state[G.S_PREV_UPCARD])
            if l11 == 0:
                # 11 cards melded: knock (a meld of 4+ cards gives a discard keeping gin)
                G.apply_action(state, G.KNOCK)
                continue
            dw11 = G.hand_value(l11)
            top = _easy_discard(l11, avoid)
            best_after = dw11 - VALUE[top]
            # the playout sees the knock its own discard allows, and checks OpenSpiel's count last
            if best_after <= kc and _want_knock(pol, best_after, state[G.S_STOCK_SIZE]) and \
                    G.knock_allowed(h, dw11, kc):
                cache[4 + p] = l11
                G.apply_action(state, G.KNOCK)
                continue
            if pol == POL_NORMAL:
                live = ALL & ~(h | pile | state[G.S_KNOWN + 1 - p])
                c = _normal_discard(l11, avoid, live, state[G.S_KNOWN + 1 - p])
            else:
                c = top
            cache[p] = l11 ^ G.bit(c)
            cache[2 + p] = dw11 - VALUE[c]
            G.apply_action(state, c)
        elif ph == G.PH_WALL:
            u = state[G.S_UPCARD]
            h11 = h | G.bit(u)
            if G.can_knock_with(h11, kc):
                cache[4 + p] = _left(h11)
                G.apply_action(state, G.KNOCK)
            else:
                G.apply_action(state, G.PASS)
        elif ph == G.PH_KNOCK:
            if popcount(h) == G.HAND_SIZE + 1:
                l11 = cache[4 + p]
                if l11 < 0:
                    l11 = _left(h)
                cache[4 + p] = -1
                G.apply_action(state, _knocker_discard(h, l11))
            else:
                melded = h & ~_left(h)
                while melded:
                    mid = one_meld(melded, melds)
                    G.apply_action(state, G.MELD_BASE + mid)
                    melded ^= MELD_MASK[mid]
                G.apply_action(state, G.PASS)
        elif ph == G.PH_LAYOFF:
            if not state[G.S_FINISHED_LAYOFFS]:
                c = layoff_choice(h, state, G.S_PUBLIC)
                if c >= 0:
                    G.apply_action(state, c)
                    continue
                G.apply_action(state, G.PASS)
            else:
                return _knock_return(state, root, G.hand_value(_left(h)))
        else:   # the Deal phase, which no dealt state is in: a return on every path for numba
            return 0.0


# ---- observation helpers -------------------------------------------------------------------------
@njit(cache=True)
def _obs_pile(obs):
    return _cards_mask(obs, G.O_DISCARD_COUNT, G.O_DISCARDS)


@njit(cache=True)
def _obs_table(obs):
    m = 0
    for s in range(G.NUM_PLAYERS):
        for i in range(obs[G.O_MELD_COUNT + s]):
            m |= MELD_MASK[obs[G.O_MELDS + s * G.MAX_MELDS_LAID + i]]
    return m | G.laid_off_cards(obs, G.O_PUBLIC)


@njit(cache=True)
def _beginner(obs, legal, n, rng):
    phase = obs[G.O_PHASE]
    cats = np.empty(n, dtype=np.int64)
    for i in range(n):
        cats[i] = _category(legal[i], phase)
    return uniform_by_category(legal, cats, n, NUM_CATEGORIES, rng, 0)


@njit(cache=True)
def _category(a, phase):
    if a < NUM_CARDS:
        return CAT_LAYOFF if phase == G.PH_LAYOFF else CAT_DISCARD
    if a == G.DRAW_UPCARD:
        return CAT_UPCARD
    if a == G.DRAW_STOCK:
        return CAT_STOCK
    if a == G.PASS:
        return CAT_PASS
    if a == G.KNOCK:
        return CAT_KNOCK
    return CAT_MELD


@njit(cache=True)
def _heuristic(obs, legal, n, pol):
    """Easy (pol 0) and normal (pol 1) from the observation."""
    if n == 1:
        return legal[0]
    seat = obs[G.O_SEAT]
    opp = 1 - seat
    phase = obs[G.O_PHASE]
    h = obs[G.O_HAND]
    kc = obs[G.O_KNOCK_CARD]
    opp_known = obs[G.O_KNOWN + opp]
    if phase == G.PH_FIRST_UPCARD or phase == G.PH_DRAW:
        lo = _left(h)
        u = obs[G.O_UPCARD]
        live = ALL & ~(h | _obs_pile(obs) | _obs_table(obs) | opp_known | G.bit(u))
        take, _l11 = _take(pol, h, lo, G.hand_value(lo), u, live, opp_known)
        if take:
            return G.DRAW_UPCARD
        return G.PASS if phase == G.PH_FIRST_UPCARD else G.DRAW_STOCK
    if phase == G.PH_DISCARD:
        if sorted_contains(legal, n, G.KNOCK):
            if pol == POL_EASY:
                return G.KNOCK
            l11 = _left(h)
            best_after = 0
            if l11 != 0:
                best_after = G.hand_value(l11) - G.highest_value(l11)
                if best_after > kc:
                    best_after = kc     # legal: OpenSpiel's count uses another best arrangement
            if _want_knock(pol, best_after, obs[G.O_STOCK_SIZE]):
                return G.KNOCK
        else:
            l11 = _left(h)
        avoid = _upcard_kept(h, obs[G.O_PREV_UPCARD])
        if l11 == 0:
            c, _d = _min_dw_discard(h)
            return c
        if pol == POL_NORMAL:
            live = ALL & ~(h | _obs_pile(obs) | _obs_table(obs) | opp_known)
            return _normal_discard(l11, avoid, live, opp_known)
        return _easy_discard(l11, avoid)
    if phase == G.PH_WALL:
        return G.KNOCK if sorted_contains(legal, n, G.KNOCK) else G.PASS
    if phase == G.PH_KNOCK:
        if popcount(h) == G.HAND_SIZE + 1:
            return _knocker_discard(h, _left(h))
        mid = _meld_of_partition(h)
        if mid >= 0 and sorted_contains(legal, n, G.MELD_BASE + mid):
            return G.MELD_BASE + mid
        return G.PASS if sorted_contains(legal, n, G.PASS) else legal[n - 1]
    if phase == G.PH_LAYOFF:
        if not obs[G.O_FINISHED_LAYOFFS]:
            c = layoff_choice(h, obs, G.O_PUBLIC)
            return c if c >= 0 else G.PASS
        mid = _meld_of_partition(h)
        if mid >= 0:
            return G.MELD_BASE + mid
        return G.PASS
    return legal[0]


@njit(cache=True)
def policy(obs, legal, n, level, rng):
    """Levels 0-2: the move chosen among ``legal[:n]`` (see the module docstring)."""
    if level == BEGINNER:
        return _beginner(obs, legal, n, rng)
    return _heuristic(obs, legal, n, POL_EASY if level == EASY else POL_NORMAL)


# ---- determinizations ----------------------------------------------------------------------------
@njit(cache=True)
def improve_opponent(st, opp, known, turns, floor):
    """Replays ``turns`` turns of a greedy opponent on a determinization, in place: each turn
    draws a uniform card of the stock and swaps the highest-key deadwood card of the 11 (never
    a known card) back into the stock. The opponent's hand then has the quality of a hand
    improved for that long instead of a random one. A swap that would leave deadwood <= ``floor``
    is not made (an opponent that has not knocked; -1: no floor). The stock is reshuffled
    afterwards."""
    h = st[G.S_HAND + opp]
    n = st[G.S_STOCK_SIZE]
    if n == 0:
        return
    for _ in range(turns):
        i = below(st, G.S_RNG, n)
        x = st[G.S_STOCK + i]
        h11 = h | G.bit(x)
        left = _left(h11)
        lo = left & ~known
        if lo == 0:
            continue
        d = _top(lo)
        if d == x:
            continue
        if floor >= 0 and G.hand_value(left) - VALUE[d] <= floor:   # known deadwood counts too
            continue
        h = h11 ^ G.bit(d)
        st[G.S_STOCK + i] = d
    st[G.S_HAND + opp] = h
    shuffle(st, G.S_RNG, st[G.S_STOCK:G.S_STOCK + n], n)


# ---- master's opponent model ---------------------------------------------------------------------
M_LAST = 0           # model slots: the card the opponent discarded or declined last (-1 none)
M_LAST_DISCARDED = 1  # 1 if that was a discard, 0 if a declined upcard
M_DECLINED = 2       # the upcard it declined in its last turn before discarding (-1 none)
MODEL_SIZE = 3


@njit(cache=True)
def _evidence(obs, cards, factors, model):
    """Reads the opponent's moves from the permitted history: fills ``cards`` with every card
    it discarded or declined (oldest first) and ``factors`` with the weight ``f(age)`` of a
    hand melding each (age 0 the newest), and ``model`` (M_*) with its last turn; returns how
    many cards."""
    seat = obs[G.O_SEAT]
    opp = 1 - seat
    faced = np.empty(G.MAX_HISTORY, dtype=np.int64)
    dead = np.empty(G.MAX_HISTORY, dtype=np.int64)
    G.replay_history(obs, faced, dead)
    pending = -1
    n = 0
    model[M_LAST] = -1
    model[M_LAST_DISCARDED] = 0
    model[M_DECLINED] = -1
    for i in range(obs[G.O_HISTORY_COUNT]):
        e = obs[G.O_HISTORY + i]
        code = e // 2
        if code == G.KNOCK:
            break                           # the end phases show hands, not preferences
        if e % 2 != opp:
            continue
        up = faced[i]
        if (code == G.DRAW_STOCK or code >= G.H_STOCK_CARD or code == G.PASS) and up >= 0:
            cards[n] = up
            n += 1
            pending = up
            if code == G.PASS:
                model[M_LAST] = up
                model[M_LAST_DISCARDED] = 0
                model[M_DECLINED] = -1
        elif code == G.DRAW_UPCARD:
            pending = -1
        elif code < NUM_CARDS:
            cards[n] = code
            n += 1
            model[M_LAST] = code
            model[M_LAST_DISCARDED] = 1
            model[M_DECLINED] = pending
            pending = -1
    g = 1.0
    for i in range(n - 1, -1, -1):
        factors[i] = 1.0 - (1.0 - ALPHA) * g
        g *= GAMMA
    if obs[G.O_CURRENT] != seat:
        model[M_LAST] = -1
        model[M_DECLINED] = -1
    return n


@njit(cache=True)
def _model_weight(hand, known, cards, factors, n, last, last_discarded, declined, pile, mine):
    """Weight of an opponent hand under the normal-policy model (module docstring)."""
    w = 1.0
    if last >= 0:
        b = G.bit(last)
        h11 = hand | b
        lo = _left(h11)
        if not (lo & b):
            w *= EPS_LAST
        elif last_discarded:
            live = ALL & ~(h11 | pile | mine)
            if _normal_discard(lo, 0, live, mine) != last:
                w *= EPS_CHOICE
    if declined >= 0:
        b = G.bit(declined)
        if G.meldable(hand | b) & b and not (_left(hand | b) & b):
            w *= EPS_LAST
    for i in range(n):
        b = G.bit(cards[i])
        if G.meldable(hand | b) & b:
            w *= factors[i]
    if known:
        loose = known & ~G.meldable(hand)
        while loose:
            w *= BETA
            loose &= loose - 1
    return w


@njit(cache=True)
def improve_turns(obs):
    """Greedy turns replayed on the opponent's sampled hand: about half of the turns played so
    far, plus ``IMPROVE_EXTRA``; 0 before any Draw phase."""
    if obs[G.O_PHASE] == G.PH_FIRST_UPCARD:
        return 0
    return (G.INITIAL_STOCK - obs[G.O_STOCK_SIZE] + obs[G.O_UPCARD_DRAWS]) // 2 + IMPROVE_EXTRA


@njit(cache=True)
def _sample(obs, dseed, turns):
    st = G.determinize(obs, dseed)
    if turns > 0 and not G.hides_knockers_cards(obs):     # a knocker's hand is final
        opp = 1 - obs[G.O_SEAT]
        improve_opponent(st, opp, obs[G.O_KNOWN + opp], turns, obs[G.O_KNOCK_CARD])
    return st


@njit(cache=True)
def _determinization(obs, level, dseed, cards, factors, n_ev, model):
    turns = improve_turns(obs)
    if level != MASTER:
        return _sample(obs, dseed, turns)
    seat = obs[G.O_SEAT]
    opp = 1 - seat
    known = obs[G.O_KNOWN + opp]
    last = model[M_LAST]
    last_discarded = model[M_LAST_DISCARDED]
    declined = model[M_DECLINED]
    pile = _obs_pile(obs) | _obs_table(obs)
    if last >= 0:
        pile &= ~G.bit(last)
    mine = obs[G.O_KNOWN + seat]
    rs = np.empty(1, dtype=np.int64)
    seed_slot(rs, 0, dseed)
    best = _sample(obs, mix(dseed, 0), turns)
    bw = _model_weight(best[G.S_HAND + opp], known, cards, factors, n_ev, last, last_discarded,
                       declined, pile, mine)
    if unit(rs, 0) < bw:
        return best
    for j in range(1, MODEL_TRIES):
        st = _sample(obs, mix(dseed, j), turns)
        w = _model_weight(st[G.S_HAND + opp], known, cards, factors, n_ev, last, last_discarded,
                          declined, pile, mine)
        if unit(rs, 0) < w:
            return st
        if w > bw:
            bw = w
            best = st
    return best


# ---- search ----------------------------------------------------------------------------------------
@njit(cache=True)
def _evaluate(obs, level, seed, k, legal, n, own_l, out_v, out_c, cards, factors, n_ev, model,
              opp_pol):
    """Determinization ``k``: every legal move, one playout each (``evaluate_world``)."""
    det = _determinization(obs, level, mix(seed, k), cards, factors, n_ev, model)
    evaluate_world(det, obs[G.O_SEAT], legal, n, own_l, out_v, out_c, opp_pol)


@njit(cache=True)
def evaluate_world(det, seat, legal, n, own_l, out_v, out_c, opp_pol):
    """Every legal move of ``seat`` on one sampled world ``det``, one playout each, the seat
    playing easy and the opponent ``opp_pol``: adds move ``legal[j]``'s return to ``out_v[j]``
    and 1 to ``out_c[j]``. ``own_l``: the deadwood cards of the seat's 10-card hand (``_prepare``),
    or -1."""
    work = np.empty_like(det)
    base = np.full(6, -1, dtype=np.int64)
    cache = np.empty(6, dtype=np.int64)
    melds = np.empty(MAX_LOWEST_CARD_MELDS, dtype=np.int64)
    pile = _pile_mask(det)
    opp = 1 - seat
    oh = det[G.S_HAND + opp]
    if popcount(oh) == G.HAND_SIZE and det[G.S_PHASE] != G.PH_KNOCK and det[G.S_PHASE] != G.PH_LAYOFF:
        lo = _left(oh)
        base[opp] = lo
        base[2 + opp] = G.hand_value(lo)
    phase = det[G.S_PHASE]
    if (phase == G.PH_DRAW or phase == G.PH_FIRST_UPCARD) and own_l >= 0:
        base[seat] = own_l
        base[2 + seat] = G.hand_value(own_l)
    p0 = POL_EASY if seat == 0 else opp_pol
    p1 = opp_pol if seat == 0 else POL_EASY
    for j in range(n):
        a = legal[j]
        copy_into(work, det)
        copy_into(cache, base)
        pl = pile
        if a == G.DRAW_STOCK and det[G.S_UPCARD] >= 0:   # the upcard passed over is dead
            pl |= G.bit(det[G.S_UPCARD])
        if phase == G.PH_DISCARD and a < NUM_CARDS and own_l >= 0:
            b = G.bit(a)
            if own_l & b:
                cache[seat] = own_l ^ b
                cache[2 + seat] = G.hand_value(own_l) - VALUE[a]
        G.apply_action(work, a)
        out_v[j] += rollout(work, seat, p0, p1, cache, pl, melds)
        out_c[j] += 1


@njit(cache=True)
def _prepare(obs):
    """What every determinization of one decision shares: the legal moves, the seat's own
    deadwood cards (-1 when it does not hold a full hand) and master's evidence."""
    legal = np.empty(G.NUM_ACTIONS, dtype=np.int64)
    cards = np.empty(G.MAX_HISTORY, dtype=np.int64)
    factors = np.empty(G.MAX_HISTORY, dtype=np.float64)
    model = np.empty(MODEL_SIZE, dtype=np.int64)
    n = G.legal_from_obs(obs, legal)
    own_l = np.int64(-1)
    ph = obs[G.O_PHASE]
    size = popcount(obs[G.O_HAND])
    if (ph == G.PH_DISCARD and size == G.HAND_SIZE + 1) or (
            (ph == G.PH_DRAW or ph == G.PH_FIRST_UPCARD) and size == G.HAND_SIZE):
        own_l = _left(obs[G.O_HAND])
    n_ev = _evidence(obs, cards, factors, model)
    return legal, n, own_l, cards, factors, n_ev, model


@njit(cache=True)
def _reply_policy(level):
    """The opponent's policy in the level's playouts (module docstring: expert, master 3.)."""
    return POL_EASY if level == MASTER else POL_NORMAL


@njit(cache=True, parallel=True)
def _search_replying(obs, level, reply, seed, first, count, values, visits):
    """``search`` with the opponent's replies in the playouts played by policy ``reply``."""
    legal, n, own_l, cards, factors, n_ev, model = _prepare(obs)
    if n == 0 or count <= 0:
        return
    acc = np.zeros((count, n), dtype=np.float64)
    cnt = np.zeros((count, n), dtype=np.int64)
    for i in prange(count):
        _evaluate(obs, level, seed, first + i, legal, n, own_l, acc[i], cnt[i],
                  cards, factors, n_ev, model, reply)
    for i in range(count):
        for j in range(n):
            values[legal[j]] += acc[i, j]
            visits[legal[j]] += cnt[i, j]


@njit(cache=True)
def search(obs, level, seed, first, count, values, visits):
    """Levels 3-4: adds, for every legal move, the summed return of the observing seat over
    determinizations ``first .. first + count - 1`` to ``values[move]`` and the number of
    playouts to ``visits[move]``."""
    _search_replying(obs, level, _reply_policy(level), seed, first, count, values, visits)


@njit(cache=True)
def search_serial(obs, level, seed, first, count, values, visits):
    """The serial twin of ``search`` (same results), for game loops run in parallel."""
    legal, n, own_l, cards, factors, n_ev, model = _prepare(obs)
    if n == 0 or count <= 0:
        return
    acc = np.zeros(n, dtype=np.float64)
    cnt = np.zeros(n, dtype=np.int64)
    reply = _reply_policy(level)
    for i in range(count):
        _evaluate(obs, level, seed, first + i, legal, n, own_l, acc, cnt, cards, factors, n_ev,
                  model, reply)
    for j in range(n):
        values[legal[j]] += acc[j]
        visits[legal[j]] += cnt[j]


@njit(cache=True)
def _reveal(a):
    return 1 if a == G.DRAW_UPCARD else 0


@njit(cache=True)
def pick(obs, values, visits, legal, n, level, seed):
    """The move a search level plays from the accumulated statistics: knock whenever the Discard
    phase allows it, unless the knock's mean return is negative and ``KNOCK_MARGIN`` below the
    best; otherwise the highest mean return, the normal policy's move getting
    ``PRIOR_POINTS`` of credit, more below ``EXPERT_ITERATIONS`` determinizations (in the Layoff
    phase, only ties; other ties: the lower id); master
    bluffs (module docstring)."""
    best = -1
    bm = -1e300
    for i in range(n):
        a = legal[i]
        if visits[a] > 0:
            m = values[a] / visits[a]
            if m > bm + TIE_EPS:
                bm = m
                best = a
    if obs[G.O_PHASE] == G.PH_DISCARD and sorted_contains(legal, n, G.KNOCK):
        if visits[G.KNOCK] == 0:
            return G.KNOCK
        km = values[G.KNOCK] / visits[G.KNOCK]
        if km >= 0.0 or km >= bm - KNOCK_MARGIN:
            return G.KNOCK
    if best < 0:
        return legal[0]
    ah = _heuristic(obs, legal, n, POL_NORMAL)
    # the defender's Layoff phase hides nothing (meldmind shows the knocker's cards), so every
    # playout of a move scores the same: no noise for the credit to guard against, and a credit
    # would give away points that the search has counted exactly. Only an exact tie goes to
    # normal's move there: a pass, not a lay-off that leaves the deadwood as it was. (OpenSpiel's
    # adapter samples the knocker's unmelded cards; they change the moves' differences only
    # across an undercut.)
    credit = TIE_EPS if obs[G.O_PHASE] == G.PH_LAYOFF else \
        PRIOR_POINTS * max(1.0, EXPERT_ITERATIONS / max(visits[ah], 1))
    if (ah != best and sorted_contains(legal, n, ah)
            and visits[ah] > 0 and values[ah] / visits[ah] >= bm - credit):
        best = ah
    if level != MASTER:
        return best
    # bluff: the best-valued near-best move that reveals less than ``best``
    rb = _reveal(best)
    alt = -1
    am = -1e300
    for i in range(n):
        a = legal[i]
        if visits[a] > 0 and _reveal(a) < rb:
            m = values[a] / visits[a]
            if m >= bm - BLUFF_MARGIN and m > am:
                am = m
                alt = a
    if alt < 0:
        return best
    rs = np.empty(1, dtype=np.int64)
    seed_slot(rs, 0, mix(seed, 0x5EED))
    if unit(rs, 0) < BLUFF_PROB:
        return alt
    return best


@njit(cache=True)
def default_iterations(level):
    """Determinizations per decision at the default budget (0 for the policy levels)."""
    if level == EXPERT:
        return EXPERT_ITERATIONS
    if level == MASTER:
        return MASTER_ITERATIONS
    return 0


# ---- games -------------------------------------------------------------------------------------------
@njit(cache=True)
def decide(obs, legal, n, level, iterations, seed, rng):
    """One decision of ``level`` from an observation (search levels: ``iterations``
    determinizations, serial)."""
    if n == 1:
        return legal[0]
    if level <= NORMAL:
        return policy(obs, legal, n, level, rng)
    values = np.zeros(G.NUM_ACTIONS, dtype=np.float64)
    visits = np.zeros(G.NUM_ACTIONS, dtype=np.int64)
    search_serial(obs, level, seed, 0, iterations, values, visits)
    return pick(obs, values, visits, legal, n, level, seed)


@njit(cache=True)
def play_game(params, deal_seed, levels, iterations, ai_seed, out_returns):
    """One full game, seat ``s`` played by ``levels[s]`` (search levels: ``iterations[s]``
    determinizations per decision, serial search), every decision made from
    ``observe(state, seat)`` only. Writes the returns; returns the number of moves."""
    state = G.new_state(params, deal_seed)
    moves = play_out(state, levels, iterations, ai_seed, new_progress(ai_seed), -1)
    G.returns(state, out_returns)
    return moves


@njit(cache=True)
def new_progress(ai_seed):
    """``play_out``'s record of a game under way, as at its start: the moves played, then the
    random stream of the levels that draw at random."""
    progress = np.zeros(2, dtype=np.int64)
    seed_slot(progress, 1, mix(ai_seed, 0x0B5E))
    return progress


@njit(cache=True)
def play_out(state, levels, iterations, ai_seed, progress, max_moves):
    """``play_game``'s loop: plays ``state`` in place, at most ``max_moves`` moves (-1: to the
    end), and returns how many. ``progress`` (``new_progress``) carries the game from one call
    to the next, so a game played in several calls is the game played in one."""
    obs = np.empty(G.OBS_SIZE, dtype=np.int64)
    legal = np.empty(G.NUM_ACTIONS, dtype=np.int64)
    rng = progress[1:]
    played = 0
    while state[G.S_PHASE] != G.PH_GAME_OVER and played != max_moves:
        p = state[G.S_CURRENT]
        G.observe(state, p, obs)
        n = G.legal_from_obs(obs, legal)
        seed = mix(mix(ai_seed, progress[0]), p)
        G.apply_action(state, decide(obs, legal, n, levels[p], iterations[p], seed, rng))
        progress[0] += 1
        played += 1
    return played


@njit(cache=True, parallel=True)
def play_games(params, deal_seeds, levels, iterations, ai_seed, out_returns):
    """``play_game`` for every deal seed in parallel (game ``i``: ``ai_seed`` mixed with ``i``);
    ``out_returns[i]`` gets game ``i``'s returns. Returns the total number of moves."""
    total = np.zeros(deal_seeds.shape[0], dtype=np.int64)
    for i in prange(deal_seeds.shape[0]):
        total[i] = play_game(params, deal_seeds[i], levels, iterations, mix(ai_seed, np.int64(i)),
                             out_returns[i])
    return total.sum()


@njit(cache=True, parallel=True)
def play_mirrored(params, deal_seeds, level_a, level_b, iterations_a, iterations_b, ai_seed,
                  out_returns):
    """Mirrored pairs: deal ``i`` is played twice, level A in seat 0 then in seat 1.
    ``out_returns[i, j]`` is level A's return in game ``j`` of pair ``i``."""
    m = deal_seeds.shape[0]
    for t in prange(2 * m):
        i = t // 2
        j = t % 2
        levels = np.empty(2, dtype=np.int64)
        iters = np.empty(2, dtype=np.int64)
        r = np.empty(2, dtype=np.float64)
        levels[j] = level_a
        levels[1 - j] = level_b
        iters[j] = iterations_a
        iters[1 - j] = iterations_b
        play_game(params, deal_seeds[i], levels, iters, mix(ai_seed, np.int64(t)), r)
        out_returns[i, j] = r[j]


@njit(cache=True, parallel=True)
def flat_discard_benchmark(obs, n_det, seed):
    """The reference workload: a flat Monte Carlo discard decision over ``n_det``
    determinizations with greedy (easy) playouts, every legal move (discards and knock) played
    out once per determinization. Returns the chosen move."""
    values = np.zeros(G.NUM_ACTIONS, dtype=np.float64)
    visits = np.zeros(G.NUM_ACTIONS, dtype=np.int64)
    _search_replying(obs, EXPERT, POL_EASY, seed, 0, n_det, values, visits)
    legal = np.empty(G.NUM_ACTIONS, dtype=np.int64)
    n = G.legal_from_obs(obs, legal)
    if n == 0:
        return -1
    return pick(obs, values, visits, legal, n, EXPERT, seed)
