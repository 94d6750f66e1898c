"""Gin Rummy: the rules kernel (numba).

Rules source: RULES.md §5 = OpenSpiel ``gin_rummy`` with its default parameters (open_spiel
2.0.2, ``gin_rummy.cc`` / ``gin_rummy_utils.cc``). That includes OpenSpiel's knock test
(``openspiel_knock_deadwood``): the first best meld arrangement of all 11 cards, minus the highest
unmelded card. It is never below the exact deadwood after the best discard, and in about one game
in 7,000 it is above the knock card where the exact one is not; such a knock is illegal here too.

Parameters (``params`` array from ``meldmind.games.gin.make_params``; defaults = OpenSpiel's):

=================  =======  ====================================================
index              default  meaning
=================  =======  ====================================================
P_KNOCK_CARD       10       the knocker's deadwood must be <= this
P_GIN_BONUS        25       added to the knocker's score for gin (deadwood 0)
P_UNDERCUT_BONUS   25       subtracted again when the knocker's score is < 0
=================  =======  ====================================================

Fixed: 2 players, 52 cards, 10 cards each, one upcard, the wall at 2 stock cards, the game
drawn at the 50th Draw-phase upcard take (OpenSpiel's ``kMaxNumDrawUpcardActions``), Oklahoma off.

Cards: id = ``suit * 13 + rank - 1`` with suits C D H S (meldmind's bit layout), ranks A..K;
values A = 1, 2..10 face, J/Q/K = 10. Aces are low only.

Action ids (OpenSpiel's numbering scheme, meldmind's suit index):

=========  ===========================================================================
0..51      a card: discard it (Discard, Knock phases) or lay it off (Layoff phase)
52         draw the upcard
53         draw from the stock
54         pass (first upcard, end of melds / layoffs, Wall)
55         knock
56..240    lay meld ``action - 56``. Meld ids (185):
           0..64    sets (OpenSpiel's word for groups): rank r = id // 5, k = id % 5; k < 4: the
                    three cards of rank r without suit k (C=0 D=1 H=2 S=3); k = 4: all four
           65..108  3-card runs: j = id - 65, suit = j // 11, lowest rank = j % 11
           109..148 4-card runs: j = id - 109, suit = j // 10, lowest rank = j % 10
           149..184 5-card runs: j = id - 149, suit = j // 9, lowest rank = j % 9
=========  ===========================================================================

Longer runs are laid as two melds, as in OpenSpiel.

Phases (OpenSpiel's enum): 0 Deal (never current: ``new_state`` deals), 1 FirstUpcard, 2 Draw,
3 Discard, 4 Knock, 5 Layoff, 6 Wall, 7 GameOver.

Randomness: ``kernels/rng.py`` (splitmix64) in state slot ``S_RNG``. ``new_state`` shuffles the
52 cards (Fisher-Yates): cards 0..9 to seat 0, 10..19 to seat 1, 20 the upcard, 21..51 the stock;
stock draws pop from the end of ``S_STOCK[:S_STOCK_SIZE]``. Seat 0 acts first.

Hands and other card sets are bit masks (< 2**52) kept in int64 slots, so copying a state is
one array copy.
"""
import numpy as np

from .bits import lowest_bit, popcount
from .bridge import POINTS_SHIFT, deadwood as _bridge_deadwood
from .calls import inlined, unowned
from .jit import njit
from .rng import below, next_u64, seed_slot, shuffle

NUM_PLAYERS = 2
NUM_CARDS = 52
HAND_SIZE = 10
INITIAL_STOCK = 31
WALL_STOCK = 2
MAX_DRAW_UPCARD = 50

# ---- actions ---------------------------------------------------------------------------------
DRAW_UPCARD = 52
DRAW_STOCK = 53
PASS = 54
KNOCK = 55
MELD_BASE = 56
NUM_MELDS = 185
NUM_ACTIONS = MELD_BASE + NUM_MELDS          # 241
NUM_SET_MELDS = 65

# ---- phases ----------------------------------------------------------------------------------
PH_FIRST_UPCARD = 1     # OpenSpiel's numbers: its 0, Deal, is never current (new_state deals)
PH_DRAW = 2
PH_DISCARD = 3
PH_KNOCK = 4
PH_LAYOFF = 5
PH_WALL = 6
PH_GAME_OVER = 7

# ---- how the game ended (S_END) ---------------------------------------------------------------
END_NONE = 0
END_KNOCK = 1          # knock, scored
END_WALL = 2           # pass at the wall: draw
END_UPCARD_LIMIT = 3   # 50th Draw-phase upcard take: draw
END_REPEATED = 4       # repeated-move draw

# ---- parameters ------------------------------------------------------------------------------
P_KNOCK_CARD = 0
P_GIN_BONUS = 1
P_UNDERCUT_BONUS = 2
DEFAULT_PARAMS = (10, 25, 25)

# ---- illegal_reason codes (REASONS in meldmind.games.gin, same order) ------------------------
R_LEGAL = 0
R_GAME_OVER = 1
R_NO_SUCH_ACTION = 2
R_FIRST_UPCARD = 3
R_MUST_DRAW_STOCK = 4
R_MUST_DRAW = 5
R_MUST_DISCARD = 6
R_NOT_IN_HAND = 7
R_KNOCK_DEADWOOD = 8
R_KNOCK_DISCARD = 9
R_KNOCKER_DISCARD_FIRST = 10
R_MELD_NOT_IN_HAND = 11
R_MELD_DEADWOOD = 12
R_KNOCKER_PASS = 13
R_KNOCKER_DISCARDED = 14
R_LAYOFF_NO_FIT = 15
R_LAYOFF_BEFORE_MELDS = 16
R_LAYOFFS_OVER = 17
R_WALL = 18
R_NOT_NOW = 19
NUM_REASONS = 20

# ---- state layout (int64 array) ---------------------------------------------------------------
MAX_MELDS_LAID = 4      # per seat: 10 cards make at most 3 melds
MAX_LAYOFFS = 10
MAX_DISCARDS = 32       # at most 29 stock draws (31 -> 2) + the knocker's discard
# Public log: <= 80 draws (29 stock, 49 Draw-phase upcard takes + the 50th, which ends the game,
# one first-upcard draw), 79 discards, 2 first-upcard passes, the Wall, and <= 22 end-phase moves.
MAX_HISTORY = 192
# A history entry is ``2 * code + seat``; ``code`` is the action id, except for a lay-off
# (``H_LAYOFF + card``, as card ids are discards in other phases) and a stock draw whose card
# the entry's reader may know (``H_STOCK_CARD + card``: only in the drawer's own observation).
H_LAYOFF = NUM_ACTIONS
H_STOCK_CARD = H_LAYOFF + NUM_CARDS

# Public block: what both seats see, laid out alike in a state and in an observation, so that
# ``observe`` and ``determinize`` copy it whole. Offsets within the block.
PUB_PHASE = 0
PUB_KNOCK_CARD = 1      # PUB_KNOCK_CARD .. PUB_UNDERCUT_BONUS: the parameters
PUB_GIN_BONUS = 2
PUB_UNDERCUT_BONUS = 3
PUB_KNOWN = 4           # 2 slots: cards of each seat's hand the other seat has seen (taken
                        # upcards; the whole hand once it is shown at the end)
PUB_UPCARD = 6          # -1 when none
PUB_PREV_UPCARD = 7     # the upcard as it was when the current drawer drew (-1 none)
PUB_UPCARD_DRAWS = 8    # Draw-phase upcard takes so far (both seats)
PUB_REPEATED = 9        # repeated-move flag
PUB_PASSED = 10         # 2 slots: passed on the first upcard
PUB_KNOCKER = 12        # -1 before a knock
PUB_FINISHED_LAYOFFS = 13
PUB_DEADWOOD = 14       # 2 slots: final deadwood (unlaid total), set at each seat's last pass; -1
PUB_END = 16
PUB_STOCK_SIZE = 17
PUB_DISCARD_COUNT = 18
PUB_MELD_COUNT = 19     # 2 slots
PUB_LAYOFF_COUNT = 21
PUB_MELDS = 22          # 2 x MAX_MELDS_LAID meld ids, seat-major, in the order laid
PUB_LAYOFFS = PUB_MELDS + NUM_PLAYERS * MAX_MELDS_LAID      # cards laid off, in order
PUB_DISCARDS = PUB_LAYOFFS + MAX_LAYOFFS                    # dead discard pile, oldest first
PUB_FIRST_UPCARD = PUB_DISCARDS + MAX_DISCARDS              # the upcard turned at the deal
PUB_HISTORY_COUNT = PUB_FIRST_UPCARD + 1
PUBLIC_SIZE = PUB_HISTORY_COUNT + 1

S_CURRENT = 0           # seat to act (meaningless at GameOver)
S_RNG = 1
S_HAND = 2              # 2 slots: hand masks by seat
S_PUBLIC = 4
S_PHASE = S_PUBLIC + PUB_PHASE
S_KNOCK_CARD = S_PUBLIC + PUB_KNOCK_CARD
S_GIN_BONUS = S_PUBLIC + PUB_GIN_BONUS
S_UNDERCUT_BONUS = S_PUBLIC + PUB_UNDERCUT_BONUS
S_KNOWN = S_PUBLIC + PUB_KNOWN
S_UPCARD = S_PUBLIC + PUB_UPCARD
S_PREV_UPCARD = S_PUBLIC + PUB_PREV_UPCARD
S_UPCARD_DRAWS = S_PUBLIC + PUB_UPCARD_DRAWS
S_REPEATED = S_PUBLIC + PUB_REPEATED
S_PASSED = S_PUBLIC + PUB_PASSED
S_KNOCKER = S_PUBLIC + PUB_KNOCKER
S_FINISHED_LAYOFFS = S_PUBLIC + PUB_FINISHED_LAYOFFS
S_DEADWOOD = S_PUBLIC + PUB_DEADWOOD
S_END = S_PUBLIC + PUB_END
S_STOCK_SIZE = S_PUBLIC + PUB_STOCK_SIZE
S_DISCARD_COUNT = S_PUBLIC + PUB_DISCARD_COUNT
S_MELD_COUNT = S_PUBLIC + PUB_MELD_COUNT
S_LAYOFF_COUNT = S_PUBLIC + PUB_LAYOFF_COUNT
S_MELDS = S_PUBLIC + PUB_MELDS
S_LAYOFFS = S_PUBLIC + PUB_LAYOFFS
S_DISCARDS = S_PUBLIC + PUB_DISCARDS
S_FIRST_UPCARD = S_PUBLIC + PUB_FIRST_UPCARD
S_HISTORY_COUNT = S_PUBLIC + PUB_HISTORY_COUNT
S_STOCK = S_PUBLIC + PUBLIC_SIZE                            # stock; the next draw is the last
S_HISTORY = S_STOCK + 32                                    # every move, oldest first (H_*)
STATE_SIZE = S_HISTORY + MAX_HISTORY

# ---- observation layout (int64 array) ---------------------------------------------------------
O_SEAT = 0
O_CURRENT = 1           # -1 at GameOver
O_HAND = 2              # own hand mask
O_HAND_SIZES = 3        # 2 slots, by seat
O_PUBLIC = 5
O_PHASE = O_PUBLIC + PUB_PHASE
O_KNOCK_CARD = O_PUBLIC + PUB_KNOCK_CARD
O_GIN_BONUS = O_PUBLIC + PUB_GIN_BONUS
O_UNDERCUT_BONUS = O_PUBLIC + PUB_UNDERCUT_BONUS
O_KNOWN = O_PUBLIC + PUB_KNOWN      # 2 slots, by seat: cards known to be in that seat's hand
O_UPCARD = O_PUBLIC + PUB_UPCARD
O_PREV_UPCARD = O_PUBLIC + PUB_PREV_UPCARD
O_UPCARD_DRAWS = O_PUBLIC + PUB_UPCARD_DRAWS
O_REPEATED = O_PUBLIC + PUB_REPEATED
O_PASSED = O_PUBLIC + PUB_PASSED
O_KNOCKER = O_PUBLIC + PUB_KNOCKER
O_FINISHED_LAYOFFS = O_PUBLIC + PUB_FINISHED_LAYOFFS
O_DEADWOOD = O_PUBLIC + PUB_DEADWOOD
O_END = O_PUBLIC + PUB_END
O_STOCK_SIZE = O_PUBLIC + PUB_STOCK_SIZE
O_DISCARD_COUNT = O_PUBLIC + PUB_DISCARD_COUNT
O_MELD_COUNT = O_PUBLIC + PUB_MELD_COUNT
O_LAYOFF_COUNT = O_PUBLIC + PUB_LAYOFF_COUNT
O_MELDS = O_PUBLIC + PUB_MELDS
O_LAYOFFS = O_PUBLIC + PUB_LAYOFFS
O_DISCARDS = O_PUBLIC + PUB_DISCARDS
O_FIRST_UPCARD = O_PUBLIC + PUB_FIRST_UPCARD
O_HISTORY_COUNT = O_PUBLIC + PUB_HISTORY_COUNT
O_HISTORY = O_PUBLIC + PUBLIC_SIZE  # the permitted history (RULES.md E4): every move, oldest first
OBS_SIZE = O_HISTORY + MAX_HISTORY

# ---- tables ----------------------------------------------------------------------------------
ALL_CARDS = (1 << NUM_CARDS) - 1
LANE = (1 << 13) - 1
RUN_STARTS = sum(((1 << 11) - 1) << (13 * s) for s in range(4))   # ranks A..J of every suit


def _meld_table():
    """Meld masks in id order: sets by rank, then missing suit (4: none), then runs by length,
    suit and lowest rank, the order ``set_meld_id`` and ``run_meld_id`` number them in."""
    sets = [sum(1 << (s * 13 + rank) for s in range(4) if s != missing)
            for rank in range(13) for missing in range(5)]
    runs = [((1 << length) - 1) << (suit * 13 + start)
            for length in range(3, 6) for suit in range(4) for start in range(14 - length)]
    return np.array(sets + runs, dtype=np.int64)


CARD_VALUE = np.array([min(10, c % 13 + 1) for c in range(NUM_CARDS)], dtype=np.int64)
MELD_MASK = _meld_table()


@njit(cache=True, inline="always")
def set_meld_id(rank, missing):
    """Meld id of the set of ``rank`` without suit ``missing`` (4: all four suits)."""
    return rank * 5 + missing


@njit(cache=True)
def run_meld_id(suit, start, length):
    """Meld id of the run of ``length`` (3..5) cards of ``suit`` from rank ``start``."""
    if length == 3:
        return 65 + suit * 11 + start
    if length == 4:
        return 109 + suit * 10 + start
    return 149 + suit * 9 + start


@njit(cache=True, inline="always")
def bit(card):
    return np.int64(1) << card


@njit(cache=True, inline="always")
def value_and_highest(mask):
    """Total card value of a mask and its highest card value (0 and 0 for an empty one), in one
    pass: the knock test asks both of every hand."""
    total = 0
    top = 0
    m = mask
    while m:
        low = m & -m
        v = CARD_VALUE[popcount(low - 1)]
        total += v
        top = max(top, v)
        m ^= low
    return total, top


@njit(cache=True)
def hand_value(mask):
    """Total card value of a mask (deadwood of cards left unmelded)."""
    return value_and_highest(mask)[0]


@njit(cache=True)
def highest_value(mask):
    """The highest card value in a mask (0 for an empty one)."""
    return value_and_highest(mask)[1]


@njit(cache=True, inline="always")
def exact_deadwood(mask):
    """Exact minimum deadwood of a hand (Cython hand algebra, variant gin)."""
    return _bridge_deadwood(0, np.uint64(mask), 0) >> POINTS_SHIFT


@njit(cache=True, inline="always")
def meldable(h):
    """Cards of ``h`` that belong to at least one meld formable from ``h``."""
    s = h & (h >> 1) & (h >> 2) & RUN_STARTS
    runs = s | (s << 1) | (s << 2)
    a = h & LANE
    b = (h >> 13) & LANE
    c = (h >> 26) & LANE
    d = (h >> 39) & LANE
    r3 = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)
    return runs | (h & (r3 | (r3 << 13) | (r3 << 26) | (r3 << 39)))


# OpenSpiel's suits s c d h are meldmind's S C D H: the order OpenSpiel sorts cards of one rank in
OPENSPIEL_SUITS = (3, 0, 1, 2)
# the lowest ranks a run of 3, 4, 5 cards can start from, in every suit
RUN_STARTS_BY_LENGTH = (RUN_STARTS,
                        sum(((1 << 10) - 1) << (13 * s) for s in range(4)),
                        sum(((1 << 9) - 1) << (13 * s) for s in range(4)))
MAX_HAND_MELDS = 32     # an 11-card hand has at most 24 melds (eleven cards of one suit in a row)
MAX_DEPTH = 3           # and at most 3 disjoint melds


@njit(cache=True)
def _openspiel_melds(h, out):
    """Writes the melds of ``h`` (masks) to ``out`` in the order of OpenSpiel's ``AllMelds``; returns
    their count. That order decides which of several best arrangements OpenSpiel's knock uses:
    sets before runs; sets of four (the four, then without the 3rd, then without the 2nd suit of
    the rank, suits in OpenSpiel's order S C D H) before sets of three (consecutive suits of the
    rank); runs by length 5, 4, 3, then suit, then lowest rank."""
    clubs = h & LANE
    diamonds = (h >> 13) & LANE
    hearts = (h >> 26) & LANE
    spades = (h >> 39) & LANE
    fours = clubs & diamonds & hearts & spades
    threes = (clubs & diamonds & hearts) | (clubs & diamonds & spades) | \
        (clubs & hearts & spades) | (diamonds & hearts & spades)
    n = 0
    m = fours
    while m:
        rank = lowest_bit(m)
        m &= m - 1
        c, d, he, sp = bit(rank), bit(13 + rank), bit(26 + rank), bit(39 + rank)
        out[n] = sp | c | d | he
        out[n + 1] = sp | c | he
        out[n + 2] = sp | d | he
        n += 3
    m = threes
    while m:
        rank = lowest_bit(m)
        m &= m - 1
        c, d, he, sp = bit(rank), bit(13 + rank), bit(26 + rank), bit(39 + rank)
        if fours & bit(rank):
            out[n] = sp | c | d
            out[n + 1] = c | d | he
            n += 2
        else:
            out[n] = h & (sp | c | d | he)
            n += 1
    starts = h & (h >> 1) & (h >> 2)
    for length in (5, 4, 3):
        of_length = starts
        for k in range(3, length):
            of_length &= h >> k
        of_length &= RUN_STARTS_BY_LENGTH[length - 3]
        for s in OPENSPIEL_SUITS:
            m = of_length & (LANE << (13 * s))
            while m:
                low = m & -m
                m ^= low
                out[n] = low * ((np.int64(1) << length) - 1)
                n += 1
    return n


@njit(cache=True)
def openspiel_knock_deadwood(h):
    """OpenSpiel's ``MinDeadwood`` of an 11-card hand, which decides whether a knock is legal: the
    melds of the first arrangement with the most melded value, in the order OpenSpiel's
    depth-first search (``AllMeldGroups``) lists them, then the unmelded cards' value less the
    highest one. Where several arrangements tie, their unmelded cards differ, and so may this."""
    if popcount(h) != HAND_SIZE + 1:     # the scratch array is sized for eleven cards
        raise ValueError("OpenSpiel's knock count takes an 11-card hand")
    # one allocation: the melds, then per depth of the search the melds it may still add
    # (``open``), those not yet tried there (``untried``) and the cards melded so far
    scratch = np.empty(MAX_HAND_MELDS + 3 * MAX_DEPTH, np.int64)
    n = _openspiel_melds(h, scratch)
    open_ = MAX_HAND_MELDS
    untried = open_ + MAX_DEPTH
    melded = untried + MAX_DEPTH
    scratch[open_] = (np.int64(1) << n) - 1
    scratch[untried] = scratch[open_]
    scratch[melded] = 0
    best_value = 0
    best_melded = np.int64(0)
    d = 0
    while d >= 0:
        left = scratch[untried + d]
        if left == 0:
            d -= 1
            continue
        i = lowest_bit(left)
        scratch[untried + d] = left & (left - 1)
        cards = scratch[melded + d] | scratch[i]
        after = _disjoint(scratch, scratch[open_ + d], scratch[i])
        if after == 0:             # the search lists an arrangement when no meld can be added
            best_value, best_melded = _keep_first_best(cards, best_value, best_melded)
        else:
            d += 1
            scratch[open_ + d] = after
            scratch[untried + d] = after
            scratch[melded + d] = cards
    rest = h & ~best_melded
    total, top = value_and_highest(rest)
    return total - top


@njit(cache=True, inline="always")
def _disjoint(melds, among, meld):
    """The melds of the index mask ``among`` that share no card with ``meld``."""
    out = np.int64(0)
    m = among
    while m:
        i = lowest_bit(m)
        m &= m - 1
        if melds[i] & meld == 0:
            out |= np.int64(1) << i
    return out


@njit(cache=True, inline="always")
def _keep_first_best(melded, best_value, best_melded):
    """An arrangement listed by the search replaces the best only with more melded value."""
    value = hand_value(melded)
    if value > best_value:
        return value, melded
    return best_value, best_melded


@njit(cache=True, inline="always")
def _isolated_total_and_max(h):
    """Total and highest value of the cards of ``h`` in no meld: deadwood in every arrangement."""
    return value_and_highest(h & ~meldable(h))


@njit(cache=True)
def knock_allowed(h, deadwood11, knock_card):
    """``can_knock_with`` for 11 cards whose exact deadwood ``deadwood11`` is known."""
    return _count_allowed(h, deadwood11, _isolated_total_and_max(h)[1], knock_card)


@njit(cache=True, inline="always")
def _count_allowed(h, deadwood11, isolated_top, knock_card):
    """OpenSpiel's count is ``deadwood11`` less one unmelded card, which is worth at most 10 and
    at least the highest isolated card: that settles most hands without its search."""
    if deadwood11 - 10 > knock_card:
        return False
    if deadwood11 - isolated_top <= knock_card:
        return True
    return openspiel_knock_deadwood(h) <= knock_card


@njit(cache=True)
def can_knock_with(h, knock_card):
    """True iff OpenSpiel allows a knock with the 11 cards ``h``:
    ``openspiel_knock_deadwood(h) <= knock_card``. False for a hand of any other size, which
    no game reaches but the replay of a malformed observation's history may build."""
    if popcount(h) != HAND_SIZE + 1:
        return False
    isolated_total, isolated_top = _isolated_total_and_max(h)
    if isolated_total - isolated_top > knock_card:      # a cheap lower bound of the count
        return False
    return _count_allowed(h, exact_deadwood(h), isolated_top, knock_card)


@njit(cache=True)
def layoff_targets(state):
    """OpenSpiel's AllLayoffs: cards that fit the knocker's laid melds given the layoffs so far
    (a set of three takes its fourth card; a run takes one card beyond each end as laid, and one
    more beyond a card already laid off there)."""
    return targets_after_layoffs(state, S_PUBLIC, laid_off_cards(state, S_PUBLIC))


@njit(cache=True)
def laid_off_cards(arr, public):
    """The cards laid off so far, in a state or observation whose public block starts at
    ``public`` (``S_PUBLIC`` or ``O_PUBLIC``)."""
    laid_off = 0
    for i in range(arr[public + PUB_LAYOFF_COUNT]):
        laid_off |= bit(arr[public + PUB_LAYOFFS + i])
    return laid_off


@njit(cache=True)
def targets_after_layoffs(arr, public, laid_off):
    """``layoff_targets`` as it would be once the cards ``laid_off`` are laid off, in a state or
    observation whose public block starts at ``public``: the lay-off planner asks it ahead of
    the moves."""
    k = arr[public + PUB_KNOCKER]
    out = 0
    for i in range(arr[public + PUB_MELD_COUNT + k]):
        mid = arr[public + PUB_MELDS + k * MAX_MELDS_LAID + i]
        m = MELD_MASK[mid]
        if mid < NUM_SET_MELDS:
            if mid % 5 < 4:
                out |= bit((mid % 5) * 13 + mid // 5)
        else:
            ends = _run_ends(m)
            ext = m | (laid_off & ends)
            out |= _run_ends(ext)
    return out


@njit(cache=True, inline="always")
def _run_ends(m):
    lo = lowest_bit(m)
    hi = lo + popcount(m) - 1
    e = 0
    if lo % 13 > 0:
        e |= bit(lo - 1)
    if hi % 13 < 12:
        e |= bit(hi + 1)
    return e


# ---- state ------------------------------------------------------------------------------------
@njit(cache=True)
def _deal(state, params, seed, deck):
    state[:S_HISTORY] = 0         # the history beyond its count is never read
    state[S_KNOCK_CARD] = params[P_KNOCK_CARD]
    state[S_GIN_BONUS] = params[P_GIN_BONUS]
    state[S_UNDERCUT_BONUS] = params[P_UNDERCUT_BONUS]
    seed_slot(state, S_RNG, seed)
    for c in range(NUM_CARDS):
        deck[c] = c
    shuffle(state, S_RNG, deck, NUM_CARDS)
    h0 = 0
    h1 = 0
    for i in range(HAND_SIZE):
        h0 |= bit(deck[i])
        h1 |= bit(deck[HAND_SIZE + i])
    state[S_HAND] = h0
    state[S_HAND + 1] = h1
    state[S_UPCARD] = deck[2 * HAND_SIZE]
    state[S_FIRST_UPCARD] = deck[2 * HAND_SIZE]
    for i in range(INITIAL_STOCK):
        state[S_STOCK + i] = deck[2 * HAND_SIZE + 1 + i]
    state[S_STOCK_SIZE] = INITIAL_STOCK
    state[S_PREV_UPCARD] = -1
    state[S_KNOCKER] = -1
    state[S_DEADWOOD] = -1
    state[S_DEADWOOD + 1] = -1
    state[S_PHASE] = PH_FIRST_UPCARD
    state[S_CURRENT] = 0


@njit(cache=True)
def new_state(params, seed):
    """A fresh game dealt from ``seed``; seat 0 decides first on the upcard."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    deck = np.empty(NUM_CARDS, dtype=np.int64)
    _deal(state, params, seed, deck)
    return state


@njit(cache=True)
def current_player(state):
    if state[S_PHASE] == PH_GAME_OVER:
        return -1
    return state[S_CURRENT]


@njit(cache=True)
def is_terminal(state):
    return state[S_PHASE] == PH_GAME_OVER


@njit(cache=True)
def showdown_score(knocker_deadwood, defender_deadwood, gin_bonus, undercut_bonus):
    """OpenSpiel's scoring of a knock, as the knocker's score (the defender scores its
    negation): r = defender_deadwood - knocker_deadwood (+ gin bonus at 0); if r < 0 the
    undercut bonus is subtracted."""
    r = defender_deadwood - knocker_deadwood
    if knocker_deadwood == 0:
        r += gin_bonus
    if r < 0:
        r -= undercut_bonus
    return r


@njit(cache=True)
def returns(state, out):
    """``showdown_score`` for the knocker, its negation for the defender; draws and unfinished
    games score 0."""
    out[0] = 0.0
    out[1] = 0.0
    if state[S_PHASE] != PH_GAME_OVER or state[S_END] != END_KNOCK:
        return
    k = state[S_KNOCKER]
    r = showdown_score(state[S_DEADWOOD + k], state[S_DEADWOOD + 1 - k], state[S_GIN_BONUS],
                       state[S_UNDERCUT_BONUS])
    out[k] = r
    out[1 - k] = -r


@njit(cache=True)
def legal_actions(state, out):
    """Writes the legal action ids in ascending order into ``out``; returns how many."""
    phase = state[S_PHASE]
    p = state[S_CURRENT]
    h = state[S_HAND + p]
    kc = state[S_KNOCK_CARD]
    n = 0
    if phase == PH_FIRST_UPCARD:
        if state[S_PASSED] and state[S_PASSED + 1]:
            out[0] = DRAW_STOCK
            return 1
        out[0] = DRAW_UPCARD
        out[1] = PASS
        return 2
    if phase == PH_DRAW:
        out[0] = DRAW_UPCARD
        out[1] = DRAW_STOCK
        return 2
    if phase == PH_DISCARD:
        m = h
        while m:
            low = m & -m
            out[n] = popcount(low - 1)
            n += 1
            m ^= low
        if can_knock_with(h, kc):
            out[n] = KNOCK
            n += 1
        return n
    if phase == PH_KNOCK:
        if popcount(h) == HAND_SIZE + 1:
            m = h
            while m:
                low = m & -m
                if exact_deadwood(h ^ low) <= kc:
                    out[n] = popcount(low - 1)
                    n += 1
                m ^= low
            return n
        if hand_value(h) <= kc:
            out[n] = PASS
            n += 1
        for mid in range(NUM_MELDS):
            mm = MELD_MASK[mid]
            if (h & mm) == mm and exact_deadwood(h ^ mm) <= kc:
                out[n] = MELD_BASE + mid
                n += 1
        return n
    if phase == PH_LAYOFF:
        if not state[S_FINISHED_LAYOFFS]:
            m = h & layoff_targets(state)
            while m:
                low = m & -m
                out[n] = popcount(low - 1)
                n += 1
                m ^= low
            out[n] = PASS
            return n + 1
        out[0] = PASS
        n = 1
        for mid in range(NUM_MELDS):
            mm = MELD_MASK[mid]
            if (h & mm) == mm:
                out[n] = MELD_BASE + mid
                n += 1
        return n
    if phase == PH_WALL:
        out[0] = PASS
        if can_knock_with(h | bit(state[S_UPCARD]), kc):
            out[1] = KNOCK
            return 2
        return 1
    return 0


@njit(cache=True)
def illegal_reason(state, action):
    """0 if ``action`` is legal, else a code indexing ``REASONS`` (R_* constants above)."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_NO_SUCH_ACTION
    phase = state[S_PHASE]
    if phase == PH_GAME_OVER:
        return R_GAME_OVER
    p = state[S_CURRENT]
    h = state[S_HAND + p]
    kc = state[S_KNOCK_CARD]
    is_card = action < NUM_CARDS
    is_meld = action >= MELD_BASE
    if phase == PH_FIRST_UPCARD:
        if state[S_PASSED] and state[S_PASSED + 1]:
            return R_LEGAL if action == DRAW_STOCK else R_MUST_DRAW_STOCK
        return R_LEGAL if action == DRAW_UPCARD or action == PASS else R_FIRST_UPCARD
    if phase == PH_DRAW:
        return R_LEGAL if action == DRAW_UPCARD or action == DRAW_STOCK else R_MUST_DRAW
    if phase == PH_DISCARD:
        if is_card:
            return R_LEGAL if h & bit(action) else R_NOT_IN_HAND
        if action == KNOCK:
            return R_LEGAL if can_knock_with(h, kc) else R_KNOCK_DEADWOOD
        return R_MUST_DISCARD
    if phase == PH_KNOCK:
        if popcount(h) == HAND_SIZE + 1:
            if not is_card:
                return R_KNOCKER_DISCARD_FIRST
            if not h & bit(action):
                return R_NOT_IN_HAND
            return R_LEGAL if exact_deadwood(h ^ bit(action)) <= kc else R_KNOCK_DISCARD
        if is_meld:
            mm = MELD_MASK[action - MELD_BASE]
            if (h & mm) != mm:
                return R_MELD_NOT_IN_HAND
            return R_LEGAL if exact_deadwood(h ^ mm) <= kc else R_MELD_DEADWOOD
        if action == PASS:
            return R_LEGAL if hand_value(h) <= kc else R_KNOCKER_PASS
        if is_card:
            return R_KNOCKER_DISCARDED
        return R_NOT_NOW
    if phase == PH_LAYOFF:
        if action == PASS:
            return R_LEGAL
        if not state[S_FINISHED_LAYOFFS]:
            if is_card:
                if not h & bit(action):
                    return R_NOT_IN_HAND
                return R_LEGAL if layoff_targets(state) & bit(action) else R_LAYOFF_NO_FIT
            if is_meld:     # a meld not held gets that reason first: waiting would not help
                mm = MELD_MASK[action - MELD_BASE]
                return R_LAYOFF_BEFORE_MELDS if (h & mm) == mm else R_MELD_NOT_IN_HAND
            return R_NOT_NOW
        if is_meld:
            mm = MELD_MASK[action - MELD_BASE]
            return R_LEGAL if (h & mm) == mm else R_MELD_NOT_IN_HAND
        if is_card:
            return R_LAYOFFS_OVER
        return R_NOT_NOW
    # PH_WALL
    if action == PASS:
        return R_LEGAL
    if action == KNOCK:
        return R_LEGAL if can_knock_with(h | bit(state[S_UPCARD]), kc) else R_KNOCK_DEADWOOD
    return R_WALL


@njit(cache=True)
def _take_upcard(state, p):
    up = state[S_UPCARD]
    state[S_PREV_UPCARD] = up
    state[S_HAND + p] |= bit(up)
    state[S_KNOWN + p] |= bit(up)
    state[S_UPCARD] = -1
    state[S_PHASE] = PH_DISCARD


@njit(cache=True)
def _draw_stock(state, p):
    up = state[S_UPCARD]
    state[S_PREV_UPCARD] = up
    if up >= 0:
        state[S_DISCARDS + state[S_DISCARD_COUNT]] = up
        state[S_DISCARD_COUNT] += 1
    state[S_UPCARD] = -1
    n = state[S_STOCK_SIZE] - 1
    card = state[S_STOCK + n]
    state[S_STOCK_SIZE] = n
    state[S_HAND + p] |= bit(card)
    state[S_PHASE] = PH_DISCARD
    return card


@njit(cache=True)
def _lay_meld(state, p, mid):
    state[S_MELDS + p * MAX_MELDS_LAID + state[S_MELD_COUNT + p]] = mid
    state[S_MELD_COUNT + p] += 1
    state[S_HAND + p] &= ~MELD_MASK[mid]
    state[S_KNOWN + p] &= state[S_HAND + p]


@njit(cache=True)
def _game_over(state, end):
    state[S_PHASE] = PH_GAME_OVER
    state[S_END] = end


@njit(cache=True)
def _draw_stock_logged(state, p, entry):
    """A stock draw, logged with its card (observe hides the card from the other seat)."""
    card = _draw_stock(state, p)
    state[S_HISTORY + entry] = 2 * (H_STOCK_CARD + card) + p
    return card


@njit(cache=True)
def apply_action(state, action):
    """Applies a legal action in place and logs it. Returns the card drawn from the stock (known
    only to the drawer), else -1."""
    phase = state[S_PHASE]
    p = state[S_CURRENT]
    entry = state[S_HISTORY_COUNT]
    state[S_HISTORY_COUNT] = entry + 1
    code = H_LAYOFF + action if action < NUM_CARDS and phase == PH_LAYOFF else action
    state[S_HISTORY + entry] = 2 * code + p
    if phase == PH_FIRST_UPCARD:
        if action == PASS:
            state[S_PASSED + p] = 1
            state[S_CURRENT] = 1 - p
        elif action == DRAW_UPCARD:
            _take_upcard(state, p)          # not counted toward the 50-take limit
        else:
            return _draw_stock_logged(state, p, entry)
    elif phase == PH_DRAW:
        if action == DRAW_UPCARD:
            state[S_UPCARD_DRAWS] += 1
            if state[S_UPCARD_DRAWS] == MAX_DRAW_UPCARD:
                _game_over(state, END_UPCARD_LIMIT)
                return -1
            _take_upcard(state, p)
        else:
            return _draw_stock_logged(state, p, entry)
    elif phase == PH_DISCARD:
        if action == KNOCK:
            state[S_KNOCKER] = p
            state[S_PHASE] = PH_KNOCK
        else:
            state[S_HAND + p] ^= bit(action)
            state[S_KNOWN + p] &= state[S_HAND + p]
            state[S_UPCARD] = action
            state[S_CURRENT] = 1 - p
            if action == state[S_PREV_UPCARD]:
                if state[S_REPEATED]:
                    _game_over(state, END_REPEATED)
                    return -1
                state[S_REPEATED] = 1
            else:
                state[S_REPEATED] = 0
            state[S_PHASE] = PH_WALL if state[S_STOCK_SIZE] == WALL_STOCK else PH_DRAW
    elif phase == PH_KNOCK:
        h = state[S_HAND + p]
        if popcount(h) == HAND_SIZE + 1:
            state[S_HAND + p] = h ^ bit(action)
            state[S_KNOWN + p] &= state[S_HAND + p]
            state[S_DISCARDS + state[S_DISCARD_COUNT]] = action
            state[S_DISCARD_COUNT] += 1
        elif action == PASS:
            dw = hand_value(h)
            state[S_DEADWOOD + p] = dw
            state[S_KNOWN + p] = h          # the knocker shows the unmelded cards
            if dw == 0:
                state[S_FINISHED_LAYOFFS] = 1   # gin: no layoffs
            state[S_CURRENT] = 1 - p
            state[S_PHASE] = PH_LAYOFF
        else:
            _lay_meld(state, p, action - MELD_BASE)
    elif phase == PH_LAYOFF:
        if not state[S_FINISHED_LAYOFFS]:
            if action == PASS:
                state[S_FINISHED_LAYOFFS] = 1
            else:
                state[S_LAYOFFS + state[S_LAYOFF_COUNT]] = action
                state[S_LAYOFF_COUNT] += 1
                state[S_HAND + p] ^= bit(action)
                state[S_KNOWN + p] &= state[S_HAND + p]
        elif action == PASS:
            h = state[S_HAND + p]
            state[S_DEADWOOD + p] = hand_value(h)
            state[S_KNOWN + p] = h          # showdown
            _game_over(state, END_KNOCK)
        else:
            _lay_meld(state, p, action - MELD_BASE)
    elif phase == PH_WALL:
        if action == KNOCK:
            up = state[S_UPCARD]
            state[S_HAND + p] |= bit(up)    # the upcard joins the knocker's hand, face up
            state[S_KNOWN + p] |= bit(up)
            state[S_UPCARD] = -1
            state[S_KNOCKER] = p
            state[S_PHASE] = PH_KNOCK
        else:
            _game_over(state, END_WALL)
    return -1


# ---- information sets ---------------------------------------------------------------------------
@njit(cache=True)
def observe(state, seat, out):
    """Seat's information set: own hand, everything public, and nothing hidden (not the stock
    order, not the opponent's cards other than those it took face up or showed)."""
    out[:] = 0
    out[O_SEAT] = seat
    for i in range(PUBLIC_SIZE):
        out[O_PUBLIC + i] = state[S_PUBLIC + i]
    out[O_CURRENT] = current_player(state)
    out[O_HAND] = state[S_HAND + seat]
    for s in range(NUM_PLAYERS):
        out[O_HAND_SIZES + s] = popcount(state[S_HAND + s])
    for i in range(state[S_HISTORY_COUNT]):
        e = state[S_HISTORY + i]
        if e % 2 != seat and e // 2 >= H_STOCK_CARD:
            e = 2 * DRAW_STOCK + e % 2         # the opponent's stock card stays hidden
        out[O_HISTORY + i] = e


@njit(cache=True)
def replay_history(obs, faced, pile):
    """Follows the face-up cards through the observation's history: ``faced[i]`` gets the
    upcard that move ``i`` faced (-1 none) and ``pile`` the dead discard pile it builds.
    Returns (the upcard left, the pile's size, the stock draws)."""
    up = obs[O_FIRST_UPCARD]
    knocked = False
    takes = -1              # Draw-phase upcard takes, counted from the first discard on
    n = 0
    draws = 0
    for i in range(obs[O_HISTORY_COUNT]):
        code = obs[O_HISTORY + i] // 2
        faced[i] = up
        if code == DRAW_STOCK or code >= H_STOCK_CARD:
            if up >= 0:
                pile[n] = up
                n += 1
            up = -1
            draws += 1
        elif code == DRAW_UPCARD:
            if takes >= 0:
                takes += 1
            if takes < MAX_DRAW_UPCARD:     # the take that reaches the limit ends the game
                up = -1
        elif code == KNOCK:                 # at the Wall the knocker takes the upcard
            up = -1
            knocked = True
        elif code < NUM_CARDS:
            if knocked:
                pile[n] = code
                n += 1
            else:
                up = code
                if takes < 0:
                    takes = 0
    return up, n, draws


@njit(cache=True)
def unseen_cards(obs):
    """Cards the observing seat cannot place: the stock plus the opponent's hidden cards."""
    seat = obs[O_SEAT]
    seen = obs[O_HAND] | obs[O_KNOWN + 1 - seat]
    if obs[O_UPCARD] >= 0:
        seen |= bit(obs[O_UPCARD])
    for i in range(obs[O_DISCARD_COUNT]):
        seen |= bit(obs[O_DISCARDS + i])
    for s in range(NUM_PLAYERS):
        for i in range(obs[O_MELD_COUNT + s]):
            seen |= MELD_MASK[obs[O_MELDS + s * MAX_MELDS_LAID + i]]
    for i in range(obs[O_LAYOFF_COUNT]):
        seen |= bit(obs[O_LAYOFFS + i])
    return ALL_CARDS & ~seen


HIDDEN_KNOCK_TRIES = 1000


@njit(cache=True)
def hides_knockers_cards(obs):
    """Whether ``obs``, the defender's in the Layoff phase, hides the cards the knocker kept out
    of its melds: meldmind shows them, as players do, but OpenSpiel's defender sees only the
    melds, and the OpenSpiel adapter hides them."""
    knocker = obs[O_KNOCKER]
    return (obs[O_PHASE] == PH_LAYOFF and knocker == 1 - obs[O_SEAT]
            and obs[O_DEADWOOD + knocker] < 0)


@njit(cache=True)
def _lowest_first(pool, n):
    """Sorts ``pool[:n]``, card ids, by card value (insertion sort: n <= 52)."""
    for i in range(1, n):
        c = pool[i]
        j = i - 1
        while j >= 0 and CARD_VALUE[pool[j]] > CARD_VALUE[c]:
            pool[j + 1] = pool[j]
            j -= 1
        pool[j + 1] = c


@njit(cache=True)
def determinize(obs, seed):
    """A full state consistent with ``obs``: the opponent keeps its known cards and gets a
    uniform sample of the unseen cards; the rest is the stock, shuffled."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    seat = obs[O_SEAT]
    opp = 1 - seat
    for i in range(PUBLIC_SIZE):
        state[S_PUBLIC + i] = obs[O_PUBLIC + i]
    state[S_CURRENT] = obs[O_CURRENT] if obs[O_CURRENT] >= 0 else 0
    for i in range(obs[O_HISTORY_COUNT]):
        state[S_HISTORY + i] = obs[O_HISTORY + i]
    seed_slot(state, S_RNG, seed)
    # Hidden cards: a uniform draw of the opponent's unknown cards, the rest in random order.
    pool = np.empty(NUM_CARDS, dtype=np.int64)
    n = 0
    m = unseen_cards(obs)
    while m:
        low = m & -m
        pool[n] = popcount(low - 1)
        n += 1
        m ^= low
    shuffle(state, S_RNG, pool, n)
    need = obs[O_HAND_SIZES + opp] - popcount(obs[O_KNOWN + opp])
    # cards a knocker kept out of its melds, if the observation hides them (OpenSpiel's), are
    # drawn among the hands within the knock limit
    hidden_knock = hides_knockers_cards(obs)
    h = obs[O_KNOWN + opp]
    for tries in range(HIDDEN_KNOCK_TRIES + 1):
        if tries == HIDDEN_KNOCK_TRIES:
            _lowest_first(pool, n)      # no luck: the lowest cards fit if any do
        elif tries:
            shuffle(state, S_RNG, pool, n)
        h = obs[O_KNOWN + opp]
        for i in range(need):
            h |= bit(pool[i])
        if not hidden_knock or hand_value(h) <= obs[O_KNOCK_CARD]:
            break
    if hidden_knock:
        state[S_DEADWOOD + opp] = hand_value(h)
    state[S_HAND + seat] = obs[O_HAND]
    state[S_HAND + opp] = h
    stock = n - need
    for i in range(stock):
        state[S_STOCK + i] = pool[need + i]
    state[S_STOCK_SIZE] = stock
    return state


@njit(cache=True)
def legal_from_obs(obs, out):
    """The observing seat's legal moves from its observation alone, written as ``legal_actions``
    writes them; 0 when it is not that seat's turn or the game is over. They depend on public
    data and the seat's own hand only (RULES.md E3), so any determinization gives them."""
    if obs[O_PHASE] == PH_GAME_OVER or obs[O_CURRENT] != obs[O_SEAT]:
        return 0
    return legal_actions(determinize(obs, np.int64(0)), out)


# ---- playouts ------------------------------------------------------------------------------------
_legal_actions_inlined = inlined(legal_actions)
_apply_action_inlined = inlined(apply_action)


@njit(cache=True)
def _playout(state, buffer):
    state = unowned(state)
    buffer = unowned(buffer)
    count = 0
    while state[S_PHASE] != PH_GAME_OVER:
        n = _legal_actions_inlined(state, buffer)
        _apply_action_inlined(state, buffer[below(state, S_RNG, n)])
        count += 1
    return count


@njit(cache=True)
def random_playout(state, seed):
    """Plays uniformly random legal actions in place until the game ends; returns how many."""
    seed_slot(state, S_RNG, seed)
    buffer = np.empty(NUM_ACTIONS, dtype=np.int64)
    return _playout(state, buffer)


@njit(cache=True)
def random_games(params, seed, n):
    """Plays ``n`` uniformly random games from seeds derived from ``seed``; returns the total
    number of actions (a throughput benchmark)."""
    seeds = np.empty(1, dtype=np.int64)
    seed_slot(seeds, 0, seed)
    state = np.empty(STATE_SIZE, dtype=np.int64)
    deck = np.empty(NUM_CARDS, dtype=np.int64)
    buffer = np.empty(NUM_ACTIONS, dtype=np.int64)
    total = 0
    for _ in range(n):
        _deal(state, params, np.int64(next_u64(seeds, 0)), deck)
        total += _playout(state, buffer)
    return total
