"""CardVerse Rami (v1.1.0): the rules kernel, the only copy of the rules.

Rules source: RULES.md §4 (seed ``004_89b9ff25141d9e1a.txt``) with Decisions 1-10 of §4.10,
and the engine requirements E1-E5 of §0.2. 52 cards, no jokers, no opening threshold.

Parameters (``params``, an int64 array; offsets ``P_*``; built by
``meldmind.games.cardverse.make_params``):

==========================  =======  ==============================================
``P_NUM_PLAYERS``           2        seats, 2..4 (deal 7 cards each with 2, else 10)
``P_DISCARD_TO_WIN``        0        1: going out needs the discard of the last card
``P_ACE_HIGH``              0        1: aces count 11 in hand values (never in runs)
``P_TARGET_SCORE``          100      the game ends when the hand winner's score >= it
``P_NO_REDISCARD``          1        the card taken from the discard cannot be
                                     discarded in the same turn unless it is the last
``P_MAX_TURNS``             300      safety cap per hand (E5): completed turns
==========================  =======  ==============================================

A game runs over several hands. The hand winner adds the sum of the other hands' values
(§4.6); when the winner's score reaches the target the game is over, else ``apply_action``
deals the next hand itself: hand k is started by seat ``(k - 1) mod N`` (seat 0 starts hand 1;
random seating is the caller's business). Every deal comes from the RNG slot of the state, so
the seed fixes the whole game (E1).

Card ids: ``suit * 13 + rank - 1`` with suits C D H S and ranks A=1 .. K=13. Runs use the
positions 0..12 = 2, 3, .., K, A (the ace is high only, §4.5).

Action ids (``NUM_ACTIONS`` = 3035), atomic, OpenSpiel-style:

==============  =============  ================================================================
0               DRAW_STOCK     legal in DRAW; on an empty stock it ends the hand (Decision 3)
1               TAKE_DISCARD   legal in DRAW when the discard pile is not empty
2 .. 53         DISCARD c      id = 2 + c
54 .. 382       LAY_MELD k     id = 54 + k, k indexes the meld catalog ``MELD_MASK``:
                               groups k = 0..64: k = rank_index * 5 + j, rank_index 0 (A) .. 12
                               (K); j = 0..3 the three-card group without suit j (C D H S),
                               j = 4 the four-card group.
                               runs k = 65..328: k = 65 + suit * 66 + RUN_START[lo] + length - 3,
                               lo = position of the lowest card (0 = "2" .. 10 = "Q"), length
                               3 .. 13 - lo; RUN_START[lo] = 11 lo - lo (lo - 1) / 2.
383 .. 3034     LAY_OFF        id = 383 + (t * 52 + c) * 3 + end: card c onto table meld slot t
                               (0..16, in the order the melds were laid this hand; 17 is the
                               most melds 52 cards allow) at end 0 = low end of a run, 1 = high
                               end of a run, 2 = into a group.
==============  =============  ================================================================

Phases: DRAW (0), PLAY (1), GAME_OVER (2). State: a flat int64 array (offsets ``S_*``), so a
copy is one array copy. Observation: ``OBS_SIZE`` int64s (offsets ``O_*``), RULES.md §4.8.
The permitted history of the hand (§4.8) is kept as three card masks per seat (discarded,
declined, taken from the discard) rather than an ordered log: the pile already orders the
cards still in it, and a constant-size summary keeps ``observe`` cheap inside playouts, where
it runs every turn.
``illegal_reason`` codes are the ``R_*`` constants (texts: ``REASONS`` of the Python module).
"""
import numpy as np

from . import bridge
from .bits import lowest_bit, popcount
from .calls import inlined, unowned
from .jit import njit
from .rng import below, seed_slot, shuffle

# --- parameters ---------------------------------------------------------------------------
P_NUM_PLAYERS = 0
P_DISCARD_TO_WIN = 1
P_ACE_HIGH = 2
P_TARGET_SCORE = 3
P_NO_REDISCARD = 4
P_MAX_TURNS = 5
PARAMS_SIZE = 6
DEFAULT_PARAMS = (2, 0, 0, 100, 1, 300)

# --- deck, phases, hand ends --------------------------------------------------------------
NUM_CARDS = 52
MAX_PLAYERS = 4
MAX_TABLE = 17              # at most 17 melds of >= 3 cards fit in 52 cards
PHASE_DRAW = 0
PHASE_PLAY = 1
PHASE_GAME_OVER = 2
END_NONE = 0                # no hand has ended yet
END_OUT = 1                 # the winner emptied his hand
END_EMPTY_STOCK = 2         # DRAW_STOCK on an empty stock: lowest hand value wins
END_MAX_TURNS = 3           # safety cap: lowest hand value wins
KIND_GROUP = 0
KIND_RUN = 1
LOW_END = 0
HIGH_END = 1
GROUP_END = 2
VARIANT_ID = 1              # the hand algebra's CardVerse variant

# --- action ids ---------------------------------------------------------------------------
DRAW_STOCK = 0
TAKE_DISCARD = 1
A_DISCARD = 2
NUM_GROUPS = 65
NUM_RUNS_PER_SUIT = 66
NUM_MELDS = NUM_GROUPS + 4 * NUM_RUNS_PER_SUIT          # 329
A_MELD = A_DISCARD + NUM_CARDS                           # 54
A_LAYOFF = A_MELD + NUM_MELDS                            # 383
NUM_ACTIONS = A_LAYOFF + MAX_TABLE * NUM_CARDS * 3       # 3035

# --- public block: what every seat sees, laid out alike in a state and in an observation, so
# that observe and determinize copy it whole. Offsets within the block; the parameters lead it,
# at their P_* offsets.
PUB_PARAMS = 0              # 6 parameters, in P_* order
PUB_PHASE = 6
PUB_CURRENT = 7             # seat to act, -1 when the game is over
PUB_TURN = 8                # completed turns in this hand
PUB_HAND_NO = 9             # 1-based hand number
PUB_TAKEN = 10              # card taken from the discard this turn, -1
PUB_GAME_WINNER = 11        # -1 until the game is over
PUB_LAST_WINNER = 12        # winner of the last finished hand, -1
PUB_LAST_END = 13           # END_* of the last finished hand
PUB_LAST_VALUES = 14        # 4 hand values at the end of the last finished hand
PUB_STOCK_N = 18
PUB_DISCARD_N = 19
PUB_TABLE_N = 20
PUB_HAND_N = 21             # 4 hand sizes
PUB_KNOWN = 25              # 4 masks: cards a seat took from the discard and still holds
PUB_SCORES = 29             # 4 scores
PUB_DISCARD = 33            # 52 card ids, bottom .. top, -1 unused
PUB_TABLE_MASK = 85         # 17 meld masks
PUB_TABLE_KIND = 102        # 17 meld kinds (KIND_*), -1 unused
PUB_DISCARDED = 119         # 4 masks: cards each seat discarded this hand
PUB_DECLINED = 123          # 4 masks: discard tops each seat left when it drew from the stock
PUB_PICKED = 127            # 4 masks: cards each seat took from the discard this hand
PUBLIC_SIZE = 131

# --- state layout -------------------------------------------------------------------------
S_PUBLIC = 0
S_NUM_PLAYERS = S_PUBLIC + PUB_PARAMS + P_NUM_PLAYERS
S_DISCARD_TO_WIN = S_PUBLIC + PUB_PARAMS + P_DISCARD_TO_WIN
S_ACE_HIGH = S_PUBLIC + PUB_PARAMS + P_ACE_HIGH
S_TARGET_SCORE = S_PUBLIC + PUB_PARAMS + P_TARGET_SCORE
S_NO_REDISCARD = S_PUBLIC + PUB_PARAMS + P_NO_REDISCARD
S_MAX_TURNS = S_PUBLIC + PUB_PARAMS + P_MAX_TURNS
S_PHASE = S_PUBLIC + PUB_PHASE
S_CURRENT = S_PUBLIC + PUB_CURRENT
S_TURN = S_PUBLIC + PUB_TURN
S_HAND_NO = S_PUBLIC + PUB_HAND_NO
S_TAKEN = S_PUBLIC + PUB_TAKEN
S_GAME_WINNER = S_PUBLIC + PUB_GAME_WINNER
S_LAST_WINNER = S_PUBLIC + PUB_LAST_WINNER
S_LAST_END = S_PUBLIC + PUB_LAST_END
S_LAST_VALUES = S_PUBLIC + PUB_LAST_VALUES
S_STOCK_N = S_PUBLIC + PUB_STOCK_N
S_DISCARD_N = S_PUBLIC + PUB_DISCARD_N
S_TABLE_N = S_PUBLIC + PUB_TABLE_N
S_HAND_N = S_PUBLIC + PUB_HAND_N
S_KNOWN = S_PUBLIC + PUB_KNOWN
S_SCORES = S_PUBLIC + PUB_SCORES
S_DISCARD = S_PUBLIC + PUB_DISCARD
S_TABLE_MASK = S_PUBLIC + PUB_TABLE_MASK
S_TABLE_KIND = S_PUBLIC + PUB_TABLE_KIND
S_DISCARDED = S_PUBLIC + PUB_DISCARDED
S_DECLINED = S_PUBLIC + PUB_DECLINED
S_PICKED = S_PUBLIC + PUB_PICKED
S_HAND = S_PUBLIC + PUBLIC_SIZE         # 4 hand masks
S_STOCK = S_HAND + MAX_PLAYERS          # 52 card ids, bottom .. top (S_STOCK + stock_n - 1),
                                        # -1 unused
S_RNG = S_STOCK + NUM_CARDS             # splitmix64 state: the deals of this and later hands
STATE_SIZE = S_RNG + 1

# --- observation layout -------------------------------------------------------------------
O_SEAT = 0
O_HAND = 1                  # the seat's own hand mask
O_PUBLIC = 2
O_PARAMS = O_PUBLIC + PUB_PARAMS            # O_PARAMS + P_*
O_PHASE = O_PUBLIC + PUB_PHASE
O_CURRENT = O_PUBLIC + PUB_CURRENT
O_TURN = O_PUBLIC + PUB_TURN
O_HAND_NO = O_PUBLIC + PUB_HAND_NO
O_TAKEN = O_PUBLIC + PUB_TAKEN
O_GAME_WINNER = O_PUBLIC + PUB_GAME_WINNER
O_LAST_WINNER = O_PUBLIC + PUB_LAST_WINNER
O_LAST_END = O_PUBLIC + PUB_LAST_END
O_LAST_VALUES = O_PUBLIC + PUB_LAST_VALUES
O_STOCK_N = O_PUBLIC + PUB_STOCK_N
O_DISCARD_N = O_PUBLIC + PUB_DISCARD_N
O_TABLE_N = O_PUBLIC + PUB_TABLE_N
O_HAND_N = O_PUBLIC + PUB_HAND_N
O_KNOWN = O_PUBLIC + PUB_KNOWN
O_SCORES = O_PUBLIC + PUB_SCORES
O_DISCARD = O_PUBLIC + PUB_DISCARD          # the whole discard pile
O_TABLE_MASK = O_PUBLIC + PUB_TABLE_MASK
O_TABLE_KIND = O_PUBLIC + PUB_TABLE_KIND
O_DISCARDED = O_PUBLIC + PUB_DISCARDED      # the per-seat history of this hand
O_DECLINED = O_PUBLIC + PUB_DECLINED
O_PICKED = O_PUBLIC + PUB_PICKED
OBS_SIZE = O_PUBLIC + PUBLIC_SIZE

# --- illegal_reason codes (REASONS in meldmind.games.cardverse, same order) ---------------
R_LEGAL = 0
R_GAME_OVER = 1
R_BAD_ID = 2
R_DRAW_FIRST = 3
R_ALREADY_DREW = 4
R_DISCARD_EMPTY = 5
R_NOT_IN_HAND = 6
R_REDISCARD = 7
R_MELD_NOT_IN_HAND = 8
R_WOULD_EMPTY = 9
R_NO_SUCH_MELD = 10
R_WRONG_PLACE = 11
R_DOES_NOT_FIT = 12
NUM_REASONS = 13

FULL_DECK = (1 << NUM_CARDS) - 1
LANE = 0x1FFF


def _run_start():
    return np.array([11 * lo - lo * (lo - 1) // 2 for lo in range(11)], dtype=np.int64)


@njit(cache=True, inline="always")
def position_card(suit, position):
    """The card of ``suit`` at run position ``position`` (0 = 2 .. 12 = A)."""
    return suit * 13 + (position + 1) % 13


@njit(cache=True, inline="always")
def card_position(card):
    """The run position of ``card`` (0 = 2 .. 12 = A): ``position_card``'s inverse."""
    return (card % 13 + 12) % 13


# the Python functions, for the tables built at import: calling the jitted ones would compile
# them then (with NUMBA_DISABLE_JIT they are those functions already)
position_card_py = getattr(position_card, "py_func", position_card)
card_position_py = getattr(card_position, "py_func", card_position)


def _catalog():
    masks = np.zeros(NUM_MELDS, dtype=np.int64)
    kinds = np.zeros(NUM_MELDS, dtype=np.int64)
    k = 0
    for rank in range(13):
        for without in range(5):
            masks[k] = sum(1 << (s * 13 + rank) for s in range(4) if s != without)
            kinds[k] = KIND_GROUP
            k += 1
    for suit in range(4):
        for lo in range(11):
            for length in range(3, 14 - lo):
                masks[k] = sum(1 << position_card_py(suit, p) for p in range(lo, lo + length))
                kinds[k] = KIND_RUN
                k += 1
    assert k == NUM_MELDS
    return masks, kinds


RUN_START = _run_start()
MELD_MASK, MELD_KIND = _catalog()
CARD_VALUE = np.array([min(c % 13 + 1, 10) for c in range(NUM_CARDS)], dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# Bit helpers
# ---------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def positions(hand, suit):
    """One suit's cards of ``hand`` as run positions (bit 0 = 2 .. bit 12 = A)."""
    lane = (hand >> (suit * 13)) & LANE
    return ((lane >> 1) & 0xFFF) | ((lane & 1) << 12)


@njit(cache=True, inline="always")
def card_value(c, ace_high):
    """§4.1 card value: A 1 (11 with ace_high), 2-10 face, J Q K 10."""
    if ace_high and c % 13 == 0:
        return 11
    return CARD_VALUE[c]


@njit(cache=True)
def hand_value(state, seat):
    """§4.1 hand value: the sum of the card values of ``seat``'s hand."""
    hand = state[S_HAND + seat]
    total = 0
    while hand:
        c = lowest_bit(hand)
        total += card_value(c, state[S_ACE_HIGH])
        hand &= hand - 1
    return total


@njit(cache=True)
def hand_gain(state):
    """The points the winner of the last finished hand scored (§4.6): the other seats' hand
    values at its end."""
    winner = state[S_LAST_WINNER]
    gain = 0
    for p in range(state[S_NUM_PLAYERS]):
        if p != winner:
            gain += state[S_LAST_VALUES + p]
    return gain


# ---------------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _clear_hand(state):
    for p in range(MAX_PLAYERS):
        state[S_HAND + p] = 0
        state[S_HAND_N + p] = 0
        state[S_KNOWN + p] = 0
        state[S_DISCARDED + p] = 0
        state[S_DECLINED + p] = 0
        state[S_PICKED + p] = 0
    for i in range(NUM_CARDS):
        state[S_STOCK + i] = -1
        state[S_DISCARD + i] = -1
    for t in range(MAX_TABLE):
        state[S_TABLE_MASK + t] = 0
        state[S_TABLE_KIND + t] = -1
    state[S_STOCK_N] = 0
    state[S_DISCARD_N] = 0
    state[S_TABLE_N] = 0
    state[S_PHASE] = PHASE_DRAW
    state[S_CURRENT] = (state[S_HAND_NO] - 1) % state[S_NUM_PLAYERS]
    state[S_TURN] = 0
    state[S_TAKEN] = -1


@njit(cache=True, inline="always")
def deal_size(players):
    """Cards dealt to each seat (§4.3): 7 with 2 players, 10 with 3 or 4."""
    return 7 if players == 2 else 10


@njit(cache=True)
def _deal(state):
    """Deal hand ``state[S_HAND_NO]`` from the state's RNG (§4.3)."""
    _clear_hand(state)
    n = state[S_NUM_PLAYERS]
    size = deal_size(n)
    for i in range(NUM_CARDS):
        state[S_STOCK + i] = i
    shuffle(state, S_RNG, state[S_STOCK:S_STOCK + NUM_CARDS], NUM_CARDS)
    top = NUM_CARDS
    for p in range(n):
        mask = 0
        for _ in range(size):
            top -= 1
            mask |= 1 << state[S_STOCK + top]
            state[S_STOCK + top] = -1
        state[S_HAND + p] = mask
        state[S_HAND_N + p] = size
    top -= 1
    state[S_DISCARD] = state[S_STOCK + top]
    state[S_STOCK + top] = -1
    state[S_DISCARD_N] = 1
    state[S_STOCK_N] = top


@njit(cache=True)
def _init_header(state, params):
    for i in range(PARAMS_SIZE):
        state[S_NUM_PLAYERS + i] = params[i]
    state[S_HAND_NO] = 1
    state[S_GAME_WINNER] = -1
    state[S_LAST_WINNER] = -1
    state[S_LAST_END] = END_NONE
    for p in range(MAX_PLAYERS):
        state[S_LAST_VALUES + p] = 0
        state[S_SCORES + p] = 0


@njit(cache=True)
def reset(state, params, seed):
    """Start a fresh game in ``state`` (in place), dealt from ``seed``."""
    _init_header(state, params)
    seed_slot(state, S_RNG, seed)
    _deal(state)


@njit(cache=True)
def new_state(params, seed):
    """A fresh game dealt from ``seed`` (hand 1, seat 0 to draw)."""
    state = np.empty(STATE_SIZE, dtype=np.int64)
    reset(state, params, seed)
    return state


@njit(cache=True)
def state_from_deal(params, hands, discard, stock, seed, hand_no, scores):
    """A state at the start of hand ``hand_no`` with a given deal, for stories and tests.

    ``hands``: one card mask per seat; ``discard``: the discard pile, bottom .. top (a normal
    deal has one upcard); ``stock``: the stock, **top first** (``stock[0]`` is drawn first);
    ``scores``: one score per seat. Together the cards must be the 52 cards exactly once.
    Seat ``(hand_no - 1) mod N`` draws first; later hands are dealt from ``seed``.
    """
    n = params[P_NUM_PLAYERS]
    if hands.shape[0] != n or scores.shape[0] != n:
        raise ValueError("state_from_deal: one hand and one score per seat")
    state = np.empty(STATE_SIZE, dtype=np.int64)
    _init_header(state, params)
    state[S_HAND_NO] = hand_no
    seed_slot(state, S_RNG, seed)
    _clear_hand(state)
    seen = 0
    for p in range(n):
        if seen & hands[p]:
            raise ValueError("state_from_deal: a card is dealt twice")
        seen |= hands[p]
        state[S_HAND + p] = hands[p]
        state[S_HAND_N + p] = popcount(hands[p])
        state[S_SCORES + p] = scores[p]
    for i in range(discard.shape[0]):
        if (seen >> discard[i]) & 1:
            raise ValueError("state_from_deal: a card is dealt twice")
        seen |= 1 << discard[i]
        state[S_DISCARD + i] = discard[i]
    state[S_DISCARD_N] = discard.shape[0]
    m = stock.shape[0]
    for i in range(m):
        if (seen >> stock[i]) & 1:
            raise ValueError("state_from_deal: a card is dealt twice")
        seen |= 1 << stock[i]
        state[S_STOCK + m - 1 - i] = stock[i]
    state[S_STOCK_N] = m
    if seen != FULL_DECK:
        raise ValueError("state_from_deal: the deal must hold the 52 cards")
    return state


# ---------------------------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def current_player(state):
    return state[S_CURRENT]


@njit(cache=True)
def is_terminal(state):
    return state[S_PHASE] == PHASE_GAME_OVER


@njit(cache=True)
def hand_number(state):
    return state[S_HAND_NO]


@njit(cache=True)
def returns(state, out):
    """+1 for the game winner and -1/(N-1) for every other seat once the game is over
    (zero-sum), 0 for everyone before."""
    n = state[S_NUM_PLAYERS]
    winner = state[S_GAME_WINNER]
    for p in range(n):
        if state[S_PHASE] != PHASE_GAME_OVER:
            out[p] = 0.0
        elif p == winner:
            out[p] = 1.0
        else:
            out[p] = -1.0 / (n - 1)


@njit(cache=True)
def layoff_ends(mask, kind, hand):
    """Cards of ``hand`` that extend the table meld ``mask`` of ``kind`` by one card: (low end,
    high end) for a run, (group, 0)."""
    if kind == KIND_GROUP:
        return bridge.layoff_cards(VARIANT_ID, KIND_GROUP, mask, 0, 0, hand, 1, 0), 0
    low = bridge.layoff_cards(VARIANT_ID, KIND_RUN, mask, 0, 0, hand, 1, LOW_END)
    high = bridge.layoff_cards(VARIANT_ID, KIND_RUN, mask, 0, 0, hand, 1, HIGH_END)
    return low, high


@njit(cache=True)
def legal_actions(state, out):
    """Write the legal action ids, ascending, into ``out``; return their number."""
    phase = state[S_PHASE]
    if phase == PHASE_GAME_OVER:
        return 0
    if phase == PHASE_DRAW:
        out[0] = DRAW_STOCK
        if state[S_DISCARD_N] > 0:
            out[1] = TAKE_DISCARD
            return 2
        return 1
    p = state[S_CURRENT]
    hand = state[S_HAND + p]
    size = state[S_HAND_N + p]
    n = 0
    # DISCARD
    blocked = -1
    if state[S_NO_REDISCARD] and size > 1:
        blocked = state[S_TAKEN]
    rest = hand
    while rest:
        c = lowest_bit(rest)
        rest &= rest - 1
        if c != blocked:
            out[n] = A_DISCARD + c
            n += 1
    keep = 1 if state[S_DISCARD_TO_WIN] else 0
    # LAY_MELD: groups
    if size - 3 >= keep:
        l0 = hand & LANE
        l1 = (hand >> 13) & LANE
        l2 = (hand >> 26) & LANE
        l3 = (hand >> 39) & LANE
        three = (l0 & l1 & (l2 | l3)) | ((l0 | l1) & l2 & l3)
        while three:
            r = lowest_bit(three)
            three &= three - 1
            suits = ((l0 >> r) & 1) | (((l1 >> r) & 1) << 1) | (((l2 >> r) & 1) << 2) \
                | (((l3 >> r) & 1) << 3)
            for j in range(4):
                if (suits | (1 << j)) == 15:
                    out[n] = A_MELD + r * 5 + j
                    n += 1
            if suits == 15 and size - 4 >= keep:
                out[n] = A_MELD + r * 5 + 4
                n += 1
        # LAY_MELD: runs
        for s in range(4):
            pos = positions(hand, s)
            if (pos & (pos >> 1) & (pos >> 2)) == 0:
                continue
            for lo in range(11):
                if ((pos >> lo) & 7) != 7:
                    continue
                length = 3
                while True:
                    if size - length < keep:
                        break
                    out[n] = A_MELD + NUM_GROUPS + s * NUM_RUNS_PER_SUIT + RUN_START[lo] + length - 3
                    n += 1
                    if lo + length > 12 or not (pos >> (lo + length)) & 1:
                        break
                    length += 1
    # LAY_OFF
    if size - 1 >= keep:
        for t in range(state[S_TABLE_N]):
            base = A_LAYOFF + t * NUM_CARDS * 3
            first, second = layoff_ends(state[S_TABLE_MASK + t], state[S_TABLE_KIND + t], hand)
            if state[S_TABLE_KIND + t] == KIND_GROUP:
                while first:
                    c = lowest_bit(first)
                    first &= first - 1
                    out[n] = base + c * 3 + GROUP_END
                    n += 1
            else:
                low_card = lowest_bit(first) if first else -1
                high_card = lowest_bit(second) if second else -1
                if high_card >= 0 and high_card < low_card:
                    out[n] = base + high_card * 3 + HIGH_END
                    n += 1
                    high_card = -1
                if low_card >= 0:
                    out[n] = base + low_card * 3 + LOW_END
                    n += 1
                if high_card >= 0:
                    out[n] = base + high_card * 3 + HIGH_END
                    n += 1
    return n


@njit(cache=True)
def illegal_reason(state, action):
    """0 when ``action`` is legal, else the first R_* code that forbids it."""
    phase = state[S_PHASE]
    if phase == PHASE_GAME_OVER:
        return R_GAME_OVER
    if action < 0 or action >= NUM_ACTIONS:
        return R_BAD_ID
    if action <= TAKE_DISCARD:
        if phase != PHASE_DRAW:
            return R_ALREADY_DREW
        if action == TAKE_DISCARD and state[S_DISCARD_N] == 0:
            return R_DISCARD_EMPTY
        return R_LEGAL
    if phase != PHASE_PLAY:
        return R_DRAW_FIRST
    p = state[S_CURRENT]
    hand = state[S_HAND + p]
    size = state[S_HAND_N + p]
    keep = 1 if state[S_DISCARD_TO_WIN] else 0
    if action < A_MELD:
        c = action - A_DISCARD
        if not (hand >> c) & 1:
            return R_NOT_IN_HAND
        if state[S_NO_REDISCARD] and c == state[S_TAKEN] and size > 1:
            return R_REDISCARD
        return R_LEGAL
    if action < A_LAYOFF:
        mask = MELD_MASK[action - A_MELD]
        if (mask & hand) != mask:
            return R_MELD_NOT_IN_HAND
        if size - popcount(mask) < keep:
            return R_WOULD_EMPTY
        return R_LEGAL
    code = action - A_LAYOFF
    end = code % 3
    c = (code // 3) % NUM_CARDS
    t = code // (3 * NUM_CARDS)
    if t >= state[S_TABLE_N]:
        return R_NO_SUCH_MELD
    if not (hand >> c) & 1:
        return R_NOT_IN_HAND
    if (state[S_TABLE_KIND + t] == KIND_GROUP) != (end == GROUP_END):
        return R_WRONG_PLACE
    first, second = layoff_ends(state[S_TABLE_MASK + t], state[S_TABLE_KIND + t], 1 << c)
    if not ((second if end == HIGH_END else first) >> c) & 1:
        return R_DOES_NOT_FIT
    if size - 1 < keep:
        return R_WOULD_EMPTY
    return R_LEGAL


# ---------------------------------------------------------------------------------------------
# Transitions
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _end_hand(state, winner, how):
    """Score the hand (§4.6), then end the game (§4.7) or deal the next hand (§4.3)."""
    n = state[S_NUM_PLAYERS]
    if winner < 0:                       # blocked hand: lowest value, then lowest seat
        best = 1 << 30
        for p in range(n):
            v = hand_value(state, p)
            if v < best:
                best = v
                winner = p
    for p in range(n):
        state[S_LAST_VALUES + p] = hand_value(state, p)
    state[S_LAST_WINNER] = winner
    state[S_LAST_END] = how
    state[S_SCORES + winner] += hand_gain(state)
    if state[S_SCORES + winner] >= state[S_TARGET_SCORE]:
        state[S_PHASE] = PHASE_GAME_OVER
        state[S_CURRENT] = -1
        state[S_GAME_WINNER] = winner
        state[S_TAKEN] = -1
    else:
        state[S_HAND_NO] += 1
        _deal(state)


@njit(cache=True)
def _remove(state, p, cards, count):
    state[S_HAND + p] &= ~cards
    state[S_HAND_N + p] -= count
    state[S_KNOWN + p] &= state[S_HAND + p]


@njit(cache=True)
def apply_action(state, action):
    """Apply a legal action in place. Returns the card drawn from the stock (known to the actor
    only), else -1."""
    p = state[S_CURRENT]
    if action == DRAW_STOCK:
        m = state[S_STOCK_N]
        if m == 0:
            _end_hand(state, -1, END_EMPTY_STOCK)
            return -1
        if state[S_DISCARD_N] > 0:
            state[S_DECLINED + p] |= 1 << state[S_DISCARD + state[S_DISCARD_N] - 1]
        m -= 1
        c = state[S_STOCK + m]
        state[S_STOCK + m] = -1
        state[S_STOCK_N] = m
        state[S_HAND + p] |= 1 << c
        state[S_HAND_N + p] += 1
        state[S_PHASE] = PHASE_PLAY
        return c
    if action == TAKE_DISCARD:
        m = state[S_DISCARD_N] - 1
        c = state[S_DISCARD + m]
        state[S_DISCARD + m] = -1
        state[S_DISCARD_N] = m
        state[S_HAND + p] |= 1 << c
        state[S_HAND_N + p] += 1
        state[S_KNOWN + p] |= 1 << c
        state[S_PICKED + p] |= 1 << c
        state[S_TAKEN] = c
        state[S_PHASE] = PHASE_PLAY
        return -1
    if action < A_MELD:
        c = action - A_DISCARD
        _remove(state, p, 1 << c, 1)
        state[S_DISCARDED + p] |= 1 << c
        state[S_DISCARD + state[S_DISCARD_N]] = c
        state[S_DISCARD_N] += 1
        state[S_TURN] += 1   # the turn is complete, whether or not it takes the seat out
        if state[S_HAND_N + p] == 0:
            _end_hand(state, p, END_OUT)
            return -1
        if state[S_TURN] >= state[S_MAX_TURNS]:
            _end_hand(state, -1, END_MAX_TURNS)
            return -1
        state[S_CURRENT] = (p + 1) % state[S_NUM_PLAYERS]
        state[S_PHASE] = PHASE_DRAW
        state[S_TAKEN] = -1
        return -1
    if action < A_LAYOFF:
        k = action - A_MELD
        mask = MELD_MASK[k]
        _remove(state, p, mask, popcount(mask))
        t = state[S_TABLE_N]
        state[S_TABLE_MASK + t] = mask
        state[S_TABLE_KIND + t] = MELD_KIND[k]
        state[S_TABLE_N] = t + 1
    else:
        code = action - A_LAYOFF
        c = (code // 3) % NUM_CARDS
        t = code // (3 * NUM_CARDS)
        _remove(state, p, 1 << c, 1)
        state[S_TABLE_MASK + t] |= 1 << c
    if state[S_HAND_N + p] == 0:     # out by laying its last card: the turn ends here
        state[S_TURN] += 1
        _end_hand(state, p, END_OUT)
    return -1


# ---------------------------------------------------------------------------------------------
# Information sets
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def observe(state, seat, out):
    """``seat``'s information set (RULES.md §4.8) into ``out`` (``OBS_SIZE`` int64s).

    Public: parameters, phase, seat to act, turn and hand numbers, the card taken from the
    discard this turn, last hand's result, scores, hand sizes, stock size, the whole discard
    pile in order, the table melds, the cards each seat took from the discard and still
    holds, and this hand's per-seat history: the cards each seat discarded, declined (left on
    top of the pile when drawing from the stock) and took from the discard. Private: the seat's own hand. Left out: the stock order, the other hands' other
    cards, and the RNG (the later deals).
    """
    out[O_SEAT] = seat
    for i in range(PUBLIC_SIZE):
        out[O_PUBLIC + i] = state[S_PUBLIC + i]
    out[O_HAND] = state[S_HAND + seat]


@njit(cache=True)
def determinize(obs, seed):
    """A full state consistent with ``obs``: every opponent keeps the cards it is known to hold
    and gets a uniform sample of the unseen cards; the rest, shuffled, is the stock. Later hands
    are dealt from ``seed``."""
    state = np.empty(STATE_SIZE, dtype=np.int64)
    seat = obs[O_SEAT]
    for i in range(PUBLIC_SIZE):
        state[S_PUBLIC + i] = obs[O_PUBLIC + i]
    seen = obs[O_HAND]
    for p in range(MAX_PLAYERS):
        state[S_HAND + p] = obs[O_KNOWN + p]
        seen |= obs[O_KNOWN + p]
    state[S_HAND + seat] = obs[O_HAND]
    for i in range(NUM_CARDS):
        c = obs[O_DISCARD + i]
        if c >= 0:
            seen |= 1 << c
        state[S_STOCK + i] = -1
    for t in range(MAX_TABLE):
        seen |= obs[O_TABLE_MASK + t]
    seed_slot(state, S_RNG, seed)
    # the unseen cards, in a scratch area (the stock slots), shuffled
    unseen = FULL_DECK & ~seen
    m = 0
    while unseen:
        state[S_STOCK + m] = lowest_bit(unseen)
        unseen &= unseen - 1
        m += 1
    shuffle(state, S_RNG, state[S_STOCK:S_STOCK + NUM_CARDS], m)
    # deal the hidden part of each opponent's hand from the top of the shuffled cards
    top = m
    for p in range(state[S_NUM_PLAYERS]):
        if p == seat:
            continue
        for _ in range(state[S_HAND_N + p] - popcount(state[S_HAND + p])):
            top -= 1
            state[S_HAND + p] |= 1 << state[S_STOCK + top]
            state[S_STOCK + top] = -1
    if top != state[S_STOCK_N]:
        raise ValueError("determinize: the observation's card counts are inconsistent")
    return state


@njit(cache=True)
def legal_from_obs(obs, out):
    """The observing seat's legal moves from its observation alone, written as ``legal_actions``
    writes them; 0 when it is not that seat's turn or the game is over. They depend on public
    data and the seat's own hand only (RULES.md E3), so any determinization gives them."""
    if obs[O_PHASE] == PHASE_GAME_OVER or obs[O_CURRENT] != obs[O_SEAT]:
        return 0
    return legal_actions(determinize(obs, np.int64(0)), out)


# ---------------------------------------------------------------------------------------------
# Playouts
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def random_playout(state, seed):
    """Play uniformly random legal actions in place until the game is over; return the number
    of actions played. The choices use their own stream from ``seed``, the deals stay the
    state's."""
    rng = np.empty(1, dtype=np.int64)
    seed_slot(rng, 0, seed)
    return _play_randomly(state, np.empty(NUM_ACTIONS, dtype=np.int64), rng, -1)


_legal_actions_inlined = inlined(legal_actions)
_apply_action_inlined = inlined(apply_action)


@njit(cache=True)
def _play_randomly(state, buf, rng, hand_no):
    """Plays uniformly random legal actions (choices from ``rng``) until the game is over or,
    for ``hand_no`` >= 1, until that hand ends; returns how many."""
    state = unowned(state)
    buf = unowned(buf)
    rng = unowned(rng)
    count = 0
    while state[S_PHASE] != PHASE_GAME_OVER and (hand_no < 1 or state[S_HAND_NO] == hand_no):
        n = _legal_actions_inlined(state, buf)
        _apply_action_inlined(state, buf[below(rng, 0, n)])
        count += 1
    return count


@njit(cache=True)
def random_hands(params, seed, n):
    """Play ``n`` uniformly random hands (each the first hand of a game dealt from a seed
    derived from ``seed``, stopped when that hand ends); return the number of actions."""
    rng = np.empty(1, dtype=np.int64)
    seed_slot(rng, 0, seed)
    buf = np.empty(NUM_ACTIONS, dtype=np.int64)
    state = np.empty(STATE_SIZE, dtype=np.int64)
    count = 0
    for _ in range(n):
        reset(state, params, (below(rng, 0, 1 << 31) << 31) | below(rng, 0, 1 << 31))
        count += _play_randomly(state, buf, rng, 1)
    return count
