# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Hand algebra on bitmasks: meld enumeration, exact best partition, Rami FR opening, lay-offs.

Rules: RULES.md §1.6 (KIROLO series), §2.5 (Rami FR), §4.5 (CardVerse), §5 (Gin), §7 (objectives).

Card bits: 52-card decks use ``suit * 13 + rank - 1`` (suits C D H S, rank A=1 .. K=13) with the
Rami FR jokers at bits 52 and 53; KIROLO uses ``element * 12 + value - 1``. A KIROLO hand is a
two-layer multiset (``a1`` held at least once, ``a2`` held twice) plus a joker count.

Runs are found per lane in *position* space, where consecutive positions are consecutive in the
variant's run order: gin A..K (13 positions), CardVerse 2..A (13), Rami FR A..K,A (14, the ace
sits at both ends), KIROLO 1..12 (12).
"""
import numpy as np
cimport numpy as cnp
from meldmind.errors import MeldmindError
from libc.stdint cimport uint64_t, int32_t, int64_t, uint8_t, uint16_t
from libc.string cimport memset
from cpython.mem cimport PyMem_Malloc, PyMem_Free

cnp.import_array()

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil
    int __builtin_popcountll(unsigned long long) nogil

# Value tables, indexed [table][card bit]: tables 0..3 are the variants, TABLE_ACE_HIGH is
# CardVerse with ``ace_high``.
cdef enum:
    TABLE_ACE_HIGH = 4
    N_TABLES = 5
    JOKER_BIT = 52          # Rami FR jokers: bits 52 and 53
    SEARCH_JOKER_FLAG = 63  # lay-off answer bit meaning "a joker from hand may go here" (KIROLO)

cdef int32_t CARD_VALUE[N_TABLES][64]    # deadwood / penalty / element value of one card
cdef int32_t CARD_KEY[N_TABLES][64]      # the card's weight in the search objective
cdef int32_t JOKER_KEY[N_TABLES]
cdef int32_t OPENING_BOUND[64]           # highest Rami FR meld value a card can take
cdef int32_t RAMI_POSITION_VALUE[14]     # Rami FR meld value of a run position (A low 1 .. A high 11)

# Objective encodings, so that one integer maximisation serves every variant:
#   52-card decks: melded (points << 8) + melded card count  -> fewest deadwood points, then cards;
#   KIROLO:        melded (cards << 12) + melded value        -> fewest unmelded cards, then value.
cdef enum:
    COUNT_SHIFT_52 = 8
    COUNT_SHIFT_KIROLO = 12
    RAMI_JOKER_PENALTY = 20
    RAMI_ACE_PENALTY = 15


cdef inline int32_t _rami_rank_value(int r) noexcept nogil:
    """Rami's meld value of rank index ``r`` (0 = ace, worth 11 in a group or atop a run)."""
    return 11 if r == 0 else (r + 1 if r < 10 else 10)


cdef void _init_tables():
    cdef int t, b, rank, value
    memset(CARD_VALUE, 0, sizeof(CARD_VALUE))
    memset(CARD_KEY, 0, sizeof(CARD_KEY))
    memset(OPENING_BOUND, 0, sizeof(OPENING_BOUND))
    for b in range(52):
        rank = b % 13 + 1
        value = rank if rank < 10 else 10
        CARD_VALUE[VARIANT_GIN][b] = value
        CARD_VALUE[VARIANT_CARDVERSE][b] = value
        CARD_VALUE[TABLE_ACE_HIGH][b] = 11 if rank == 1 else value
        CARD_VALUE[VARIANT_RAMI][b] = RAMI_ACE_PENALTY if rank == 1 else value
        OPENING_BOUND[b] = _rami_rank_value(b % 13)
    for b in range(JOKER_BIT, JOKER_BIT + 2):
        CARD_VALUE[VARIANT_RAMI][b] = RAMI_JOKER_PENALTY
        OPENING_BOUND[b] = 11
    for b in range(60):
        CARD_VALUE[VARIANT_KIROLO][b] = b % 12 + 1
    for t in range(N_TABLES):
        for b in range(64):
            if t == VARIANT_KIROLO:
                CARD_KEY[t][b] = (1 << COUNT_SHIFT_KIROLO) + CARD_VALUE[t][b] if b < 60 else 0
            else:
                CARD_KEY[t][b] = (CARD_VALUE[t][b] << COUNT_SHIFT_52) + 1 if CARD_VALUE[t][b] else 0
        JOKER_KEY[t] = 0
    JOKER_KEY[VARIANT_RAMI] = (RAMI_JOKER_PENALTY << COUNT_SHIFT_52) + 1
    JOKER_KEY[VARIANT_KIROLO] = 1 << COUNT_SHIFT_KIROLO
    for b in range(14):
        RAMI_POSITION_VALUE[b] = 1 if b == 0 else _rami_rank_value(b % 13)   # 13: ace high


_init_tables()


# ---------------------------------------------------------------------------------------------
# Lane geometry
# ---------------------------------------------------------------------------------------------

cdef inline int _lane_width(int variant) noexcept nogil:
    """Ranks per suit (element): also the longest run."""
    return 12 if variant == VARIANT_KIROLO else 13


cdef inline int _lane_count(int variant) noexcept nogil:
    """Suits (elements): also the largest group, one card of each."""
    return 5 if variant == VARIANT_KIROLO else 4


cdef inline int _positions(int variant) noexcept nogil:
    if variant == VARIANT_RAMI:
        return 14
    return 12 if variant == VARIANT_KIROLO else 13


cdef inline uint64_t _bits_to_positions(int variant, uint64_t bits) noexcept nogil:
    """One lane's rank bits (A = bit 0) to run positions."""
    if variant == VARIANT_CARDVERSE:
        return ((bits >> 1) & 0xFFF) | ((bits & 1) << 12)
    if variant == VARIANT_RAMI:
        return bits | ((bits & 1) << 13)
    return bits


cdef inline uint64_t _positions_to_bits(int variant, uint64_t pos) noexcept nogil:
    if variant == VARIANT_CARDVERSE:
        return ((pos & 0xFFF) << 1) | ((pos >> 12) & 1)
    if variant == VARIANT_RAMI:
        return (pos & 0x1FFF) | ((pos >> 13) & 1)
    return pos


cdef inline int _table(int variant, int ace_high) noexcept nogil:
    return TABLE_ACE_HIGH if (variant == VARIANT_CARDVERSE and ace_high) else variant


# ---------------------------------------------------------------------------------------------
# Enumeration
# ---------------------------------------------------------------------------------------------

cdef inline int32_t _weight(const int32_t* key, uint64_t bits) noexcept nogil:
    cdef int32_t total = 0
    while bits:
        total += key[__builtin_ctzll(bits)]
        bits &= bits - 1
    return total


cdef inline int _emit(MeldList* ml, int table, uint64_t mask, uint64_t joker_for, int jokers,
                      int kind, int32_t opening) noexcept nogil:
    cdef int k = ml.n
    if k >= MAX_MELDS:
        return -1
    ml.mask[k] = mask
    ml.joker_for[k] = joker_for
    ml.jokers[k] = jokers
    ml.kind[k] = kind
    ml.gain[k] = jokers * JOKER_KEY[table] + _weight(CARD_KEY[table], mask)
    ml.opening[k] = opening
    ml.low[k] = __builtin_ctzll(mask)
    ml.n = k + 1
    return 0


cdef inline int32_t _run_opening(int variant, uint64_t positions) noexcept nogil:
    cdef int32_t total = 0
    if variant != VARIANT_RAMI:
        return 0
    while positions:
        total += RAMI_POSITION_VALUE[__builtin_ctzll(positions)]
        positions &= positions - 1
    return total


cdef int _emit_run(MeldList* ml, int variant, int table, int lane, uint64_t natural_pos,
                   uint64_t hole_pos, int holes, int jokers, int lo, int hi) noexcept nogil:
    """Emit a run of natural positions plus ``jokers`` jokers: they fill the ``holes``
    positions of ``hole_pos`` first, then extend the run upward, then downward (the
    highest-value reading)."""
    cdef int npos = _positions(variant)
    cdef uint64_t joker_pos = hole_pos
    cdef int extra = jokers - holes
    cdef int shift = lane * _lane_width(variant)
    while extra > 0 and hi + 1 < npos:
        hi += 1
        joker_pos |= (<uint64_t>1) << hi
        extra -= 1
    while extra > 0 and lo > 0:
        lo -= 1
        joker_pos |= (<uint64_t>1) << lo
        extra -= 1
    if extra > 0:
        return 0
    return _emit(ml, table, _positions_to_bits(variant, natural_pos) << shift,
                 _positions_to_bits(variant, joker_pos) << shift, jokers, KIND_RUN,
                 _run_opening(variant, natural_pos | joker_pos))


cdef int _emit_run_joker_counts(MeldList* ml, int variant, int table, int lane,
                                uint64_t natural_pos, int n, uint64_t hole_pos, int holes,
                                int max_jk, int lo, int hi) noexcept nogil:
    """Every joker count that makes ``natural_pos`` (``n`` positions, with its ``holes``
    filled) a valid run. The caller counts both as it walks the lane: without a popcount
    instruction in the build, each popcount is a library call."""
    cdef int j, j_min = holes, j_max = max_jk
    cdef int max_len = _lane_width(variant)
    if n < 2:
        return 0
    if j_min < 3 - n:
        j_min = 3 - n
    if j_max > max_len - n:
        j_max = max_len - n
    for j in range(j_min, j_max + 1):
        if _emit_run(ml, variant, table, lane, natural_pos, hole_pos, holes, j, lo, hi) < 0:
            return -1
    return 0


cdef int _enumerate_lane_runs(MeldList* ml, int variant, int table, int lane, uint64_t pos,
                              int max_jk) noexcept nogil:
    """Runs of one lane whose natural cards are ``pos`` minus at most ``max_jk`` holes."""
    cdef int max_len = _lane_width(variant)
    cdef int lo, hi, held, gaps, a, b
    cdef uint64_t span, inner, absent, a_rest, b_rest, rest, above
    if max_jk == 0 and (pos & (pos >> 1) & (pos >> 2)) == 0:
        return 0
    rest = pos
    while rest:
        lo = __builtin_ctzll(rest)
        rest &= rest - 1
        above = rest
        held = 1
        while above:
            hi = __builtin_ctzll(above)
            above &= above - 1
            held += 1
            if hi - lo + 1 > max_len:
                break
            gaps = hi - lo + 1 - held
            if gaps > max_jk:
                break
            span = ((((<uint64_t>1) << (hi - lo + 1)) - 1) << lo)
            inner = pos & span & ~((<uint64_t>1) << lo) & ~((<uint64_t>1) << hi)
            absent = span & ~pos
            # natural cards = span minus the absent positions minus up to (max_jk - gaps)
            # present inner cards left out on purpose (they may serve in another meld)
            if _emit_run_joker_counts(ml, variant, table, lane, span & pos, held, absent, gaps,
                                      max_jk, lo, hi) < 0:
                return -1
            if gaps < max_jk:
                a_rest = inner
                while a_rest:
                    a = __builtin_ctzll(a_rest)
                    a_rest &= a_rest - 1
                    if _emit_run_joker_counts(ml, variant, table, lane,
                                              span & pos & ~((<uint64_t>1) << a), held - 1,
                                              absent | ((<uint64_t>1) << a), gaps + 1,
                                              max_jk, lo, hi) < 0:
                        return -1
                    if gaps + 1 < max_jk:
                        b_rest = a_rest
                        while b_rest:
                            b = __builtin_ctzll(b_rest)
                            b_rest &= b_rest - 1
                            if _emit_run_joker_counts(
                                    ml, variant, table, lane,
                                    span & pos & ~((<uint64_t>1) << a) & ~((<uint64_t>1) << b),
                                    held - 2,
                                    absent | ((<uint64_t>1) << a) | ((<uint64_t>1) << b),
                                    gaps + 2, max_jk, lo, hi) < 0:
                                return -1
    return 0


cdef int _enumerate_groups(MeldList* ml, int variant, int table, uint64_t a1,
                           int max_jk) noexcept nogil:
    cdef int width = _lane_width(variant)
    cdef int lanes = _lane_count(variant)
    cdef int need = 3 if max_jk == 0 else 2
    cdef int r, e, n, j, j_min, j_max
    cdef unsigned suits, sub
    cdef uint64_t mask, lane_mask = ((<uint64_t>1) << width) - 1, missing
    cdef int32_t rank_value
    cdef uint64_t lane_bits, ones = 0, twos = 0, fours = 0, carry, candidates
    # bit-sliced count of the suits (elements) holding each rank: ones/twos/fours are its bits
    for e in range(lanes):
        lane_bits = (a1 >> (e * width)) & lane_mask
        carry = ones & lane_bits
        ones ^= lane_bits
        fours |= twos & carry
        twos ^= carry
    candidates = (twos | fours) if need == 2 else ((ones & twos) | fours)
    while candidates:
        r = __builtin_ctzll(candidates)
        candidates &= candidates - 1
        suits = 0
        for e in range(lanes):
            suits |= ((a1 >> (e * width + r)) & 1) << e
        rank_value = _rami_rank_value(r)
        sub = suits
        while sub:
            mask = 0
            missing = 0
            n = 0
            for e in range(lanes):
                if (sub >> e) & 1:
                    mask |= (<uint64_t>1) << (e * width + r)
                    n += 1
                else:
                    missing |= (<uint64_t>1) << (e * width + r)
            if n >= 2:
                j_min = 3 - n if n < 3 else 0
                j_max = max_jk if max_jk < lanes - n else lanes - n   # one card per suit
                for j in range(j_min, j_max + 1):
                    if _emit(ml, table, mask, missing if j else 0, j, KIND_GROUP,
                             rank_value * (n + j) if variant == VARIANT_RAMI else 0) < 0:
                        return -1
            sub = (sub - 1) & suits
    return 0


cdef int enumerate_melds(MeldList* ml, int variant, Hand hand, int max_jokers_per_series,
                         int ace_high) noexcept nogil:
    """Fill ``ml`` with every meld formable from ``hand`` and index it by lowest card.
    Returns -1 when the hand has more melds than MAX_MELDS."""
    cdef int table = _table(variant, ace_high)
    cdef int width = _lane_width(variant)
    cdef int lane, k, b, start
    cdef uint64_t leads
    cdef int max_jk = hand.jokers
    cdef uint64_t lane_mask = ((<uint64_t>1) << width) - 1
    cdef uint16_t count[65]
    if variant == VARIANT_GIN or variant == VARIANT_CARDVERSE:
        max_jk = 0
    elif variant == VARIANT_RAMI:
        max_jk = 1 if max_jk > 1 else max_jk
    elif max_jk > max_jokers_per_series:
        max_jk = max_jokers_per_series
    ml.n = 0
    ml.table = table
    for lane in range(_lane_count(variant)):
        if _enumerate_lane_runs(ml, variant, table, lane,
                                _bits_to_positions(variant, (hand.a1 >> (lane * width)) & lane_mask),
                                max_jk) < 0:
            return -1
    if _enumerate_groups(ml, variant, table, hand.a1, max_jk) < 0:
        return -1
    ml.leads_any = 0
    ml.leads_natural = 0
    for k in range(ml.n):
        count[ml.low[k]] = 0
        ml.leads_any |= (<uint64_t>1) << ml.low[k]
        if ml.jokers[k] == 0:
            ml.leads_natural |= (<uint64_t>1) << ml.low[k]
    for k in range(ml.n):
        count[ml.low[k]] += 1
    # Buckets of the leading cards only, since the search reads first[b] and first[b + 1] for
    # a leading card b alone: a pass over all 64 card bits cost about 8 % of a KIROLO hand.
    # count[b] then becomes bucket b's fill cursor.
    start = 0
    leads = ml.leads_any
    while leads:
        b = __builtin_ctzll(leads)
        leads &= leads - 1
        ml.first[b] = start
        start += count[b]
        count[b] = ml.first[b]
        ml.first[b + 1] = start
    for k in range(ml.n):
        ml.order[count[ml.low[k]]] = k
        count[ml.low[k]] += 1
    return 0


# ---------------------------------------------------------------------------------------------
# Exact best partition: branch on the lowest undecided card (leftover, or the lowest card of
# one of its melds), pruned by an optimistic bound (every remaining card melded).
# ---------------------------------------------------------------------------------------------

ctypedef struct Search:
    const MeldList* ml
    const int32_t* meld_gain
    const int32_t* card_key
    int32_t joker_key
    bint opening
    int depth
    int64_t steps_left
    uint16_t path[MAX_PATH]
    Partition* out


cdef inline int32_t _meld_bound(Search* s, int k) noexcept nogil:
    """What meld k takes from the optimistic bound: its cards' (and jokers') keys."""
    if not s.opening:
        return s.ml.gain[k]
    return s.ml.jokers[k] * s.joker_key + _weight(s.card_key, s.ml.mask[k])


cdef void _dfs(Search* s, uint64_t a1, uint64_t a2, int jokers, int32_t score,
               int32_t potential, int start) noexcept nogil:
    cdef int b, i, k, lo
    cdef uint64_t bit, m, na1, below
    cdef Partition* out = s.out
    cdef const MeldList* ml = s.ml
    if s.steps_left == 0:
        return
    s.steps_left -= 1
    # Cards that lead no usable meld are left over: every meld through them starts lower,
    # at a card already decided.
    cdef uint64_t leading = a1 & (ml.leads_any if jokers else ml.leads_natural)
    below = a1 & ~leading
    if leading:
        below &= ((<uint64_t>1) << __builtin_ctzll(leading)) - 1
    if below:
        potential -= _weight(s.card_key, below) + _weight(s.card_key, a2 & below)
        a1 &= ~below
        a2 &= ~below
    if leading == 0:
        if score > out.score:
            out.score = score
            out.n = s.depth
            for i in range(s.depth):
                out.melds[i] = s.path[i]
        return
    if score + potential <= out.score:
        return
    b = __builtin_ctzll(a1)
    bit = (<uint64_t>1) << b
    lo = ml.first[b]
    if start > lo:
        lo = start
    for i in range(lo, ml.first[b + 1]):
        k = ml.order[i]
        m = ml.mask[k]
        if (m & ~a1) == 0 and ml.jokers[k] <= jokers:
            na1 = (a1 & ~m) | (a2 & m)
            s.path[s.depth] = k
            s.depth += 1
            # a second copy of card b only joins a meld at index >= i (no mirrored pairs)
            _dfs(s, na1, a2 & ~m, jokers - ml.jokers[k], score + s.meld_gain[k],
                 potential - _meld_bound(s, k), i if (na1 & bit) else 0)
            s.depth -= 1
    # card b is left over; so is its second copy (the mirrored case is covered above)
    if a2 & bit:
        _dfs(s, a1 & ~bit, a2 & ~bit, jokers, score, potential - 2 * s.card_key[b], 0)
    else:
        _dfs(s, a1 & ~bit, a2, jokers, score, potential - s.card_key[b], 0)


cdef int best_partition(MeldList* ml, Hand hand, bint opening, Partition* out) noexcept nogil:
    """Best disjoint set of melds of ``ml`` within ``hand``; ``out.score`` is the melded key
    (the variant objective), or the Rami FR opening value when ``opening`` is set. -1 when the
    search gave up after MAX_SEARCH_STEPS (``out`` then holds the best partition found)."""
    cdef Search s
    cdef int k
    cdef uint64_t covered = 0
    out.score = 0
    out.n = 0
    if ml.n == 0:
        return 0
    for k in range(ml.n):
        covered |= ml.mask[k]
    s.ml = ml
    s.opening = opening
    s.depth = 0
    s.steps_left = MAX_SEARCH_STEPS
    s.out = out
    if opening:
        s.meld_gain = ml.opening
        s.card_key = OPENING_BOUND
        s.joker_key = 11
    else:
        s.meld_gain = ml.gain
        s.card_key = CARD_KEY[ml.table]
        s.joker_key = JOKER_KEY[ml.table]
    hand.a1 &= covered
    hand.a2 &= covered
    out.score = -1
    _dfs(&s, hand.a1, hand.a2, hand.jokers, 0,
         _weight(s.card_key, hand.a1) + _weight(s.card_key, hand.a2) + hand.jokers * s.joker_key, 0)
    return -1 if s.steps_left == 0 else 0


# ---------------------------------------------------------------------------------------------
# Exported scalar kernels (numba reaches these through the bridge)
# ---------------------------------------------------------------------------------------------

cdef inline Hand _hand52(uint64_t cards) noexcept nogil:
    cdef Hand h
    h.a1 = cards & ((<uint64_t>1 << JOKER_BIT) - 1)
    h.a2 = 0
    # two joker bits, added: cheaper than a popcount, which this build makes a library call
    h.jokers = ((cards >> JOKER_BIT) & 1) + ((cards >> (JOKER_BIT + 1)) & 1)
    return h


cdef int64_t mm_deadwood(int variant, uint64_t hand, int ace_high) noexcept nogil:
    """Fewest deadwood points of a 52-card hand (Rami FR: penalty points, jokers at bits 52-53),
    packed as ``points << 8 | leftover cards``; -1 if the hand is too meld-dense to analyse."""
    cdef MeldList ml
    cdef Partition part
    cdef Hand h = _hand52(hand)
    cdef int table = _table(variant, ace_high)
    cdef int32_t total = _weight(CARD_KEY[table], h.a1) + h.jokers * JOKER_KEY[table]
    if enumerate_melds(&ml, variant, h, 1, ace_high) < 0:
        return -1
    if best_partition(&ml, h, False, &part) < 0:
        return -1
    return total - part.score


cdef int64_t mm_leftover(int variant, uint64_t hand, int ace_high) noexcept nogil:
    """The cards left out of the best partition of a 52-card hand (jokers not included), as a
    mask; -1 if the hand is too meld-dense to analyse. AI policies discard from it."""
    cdef MeldList ml
    cdef Partition part
    cdef Hand h = _hand52(hand)
    cdef uint64_t melded = 0
    cdef int i
    if enumerate_melds(&ml, variant, h, 1, ace_high) < 0:
        return -1
    if best_partition(&ml, h, False, &part) < 0:
        return -1
    for i in range(part.n):
        melded |= ml.mask[part.melds[i]]
    return <int64_t>(h.a1 & ~melded)


cdef int64_t mm_rami_opening(uint64_t hand) noexcept nogil:
    """Largest Rami FR opening (§2.1 meld values) formable from the hand; -1 if too dense."""
    cdef MeldList ml
    cdef Partition part
    cdef Hand h = _hand52(hand)
    if enumerate_melds(&ml, VARIANT_RAMI, h, 1, 0) < 0:
        return -1
    if best_partition(&ml, h, True, &part) < 0:
        return -1
    return part.score


cdef int64_t mm_kirolo_unmelded(uint64_t a1, uint64_t a2, int jokers,
                                int max_jokers_per_series) noexcept nogil:
    """KIROLO objective, packed as ``unmelded cards << 12 | their value``; -1 if too dense."""
    cdef MeldList ml
    cdef Partition part
    cdef Hand h
    h.a1 = a1
    h.a2 = a2
    h.jokers = jokers
    if enumerate_melds(&ml, VARIANT_KIROLO, h, max_jokers_per_series, 0) < 0:
        return -1
    if best_partition(&ml, h, False, &part) < 0:
        return -1
    return (_weight(CARD_KEY[VARIANT_KIROLO], a1) + _weight(CARD_KEY[VARIANT_KIROLO], a2)
            + jokers * JOKER_KEY[VARIANT_KIROLO] - part.score)


cdef int64_t mm_layoff_cards(int variant, int kind, uint64_t meld, uint64_t joker_for, int meld_jokers,
                             uint64_t hand, int max_jokers_per_series, int end) noexcept nogil:
    """Hand cards that extend a table meld by one card: for a run at its low (``end`` 0) or high
    (``end`` 1) end, for a group anywhere. A joker that may be laid there shows as its own bit
    (Rami FR) or as bit 63 (KIROLO, whose jokers are not card bits: the caller sets bit 63 of
    ``hand`` when it holds one)."""
    cdef int width = _lane_width(variant)
    cdef int lanes = _lane_count(variant)
    cdef uint64_t lane_mask = ((<uint64_t>1) << width) - 1
    cdef uint64_t full = meld | joker_for, pos, target
    cdef int lane, lo, hi, r, e, size
    cdef int max_jk = 0
    cdef uint64_t jokers_in_hand = 0
    if variant == VARIANT_RAMI:
        max_jk = 1
        jokers_in_hand = hand & ((<uint64_t>3) << JOKER_BIT)
    elif variant == VARIANT_KIROLO:
        max_jk = max_jokers_per_series
    size = __builtin_popcountll(meld) + meld_jokers
    if kind == KIND_GROUP:
        if size >= lanes:       # one card per suit
            return 0
        r = __builtin_ctzll(meld) % width
        target = 0
        for e in range(lanes):
            if not (meld >> (e * width + r)) & 1:
                target |= (<uint64_t>1) << (e * width + r)
        target &= hand
    else:
        if size >= _lane_width(variant):
            return 0
        lane = __builtin_ctzll(full) // width
        pos = (full >> (lane * width)) & lane_mask
        if variant == VARIANT_RAMI and (pos & 1) and (pos >> 12) & 1 and not (pos >> 1) & 1:
            pos = (pos & ~(<uint64_t>1)) | ((<uint64_t>1) << 13)  # the ace ends Q-K-A
        else:
            pos = _bits_to_positions(variant, pos) & ~((<uint64_t>1) << 13)
        lo = __builtin_ctzll(pos)
        hi = 63 - __builtin_clzll(pos)
        if end == 0:
            if lo == 0:
                return 0
            target = (<uint64_t>1) << (lo - 1)
        else:
            if hi + 1 >= _positions(variant):
                return 0
            target = (<uint64_t>1) << (hi + 1)
        target = (_positions_to_bits(variant, target) << (lane * width)) & hand
    if meld_jokers < max_jk:
        if variant == VARIANT_KIROLO:
            target |= hand & ((<uint64_t>1) << SEARCH_JOKER_FLAG)
        else:
            target |= jokers_in_hand
    return target



# ---------------------------------------------------------------------------------------------
# Python wrappers: single hands (for the API) and GIL-free batch loops over numpy arrays
# ---------------------------------------------------------------------------------------------

class HandTooDense(MeldmindError):
    """The hand forms more melds than the kernel's fixed capacity, or has more ways to meld
    than the exact search tries (an input error: no hand of a game comes near either)."""

    @classmethod
    def in_batch(cls, index):
        """The error for hand ``index`` of a batch, whose kernel tells no more than that."""
        return cls(f"hand {index} is too meld-dense to analyse exactly: more than {MAX_MELDS} "
                   f"melds, or more than {MAX_SEARCH_STEPS:,} search steps")


# Cython names the module by the name it compiled it under, kernels.handalg (setup.py); an
# error is pickled by its module's name, so it takes the name it is imported under
HandTooDense.__module__ = __name__


MELD_DTYPE = np.dtype([("mask", np.uint64), ("joker_for", np.uint64), ("jokers", np.uint8),
                       ("kind", np.uint8), ("opening", np.int32)])


cdef Hand _make_hand(uint64_t a1, uint64_t a2, int jokers) except *:
    # the search's fixed buffers (MAX_PATH) are sized for at most MAX_JOKERS jokers
    if not 0 <= jokers <= MAX_JOKERS:
        raise ValueError(f"a hand holds 0 to {MAX_JOKERS} jokers, not {jokers}")
    cdef Hand h
    h.a1 = a1
    h.a2 = a2 & a1
    h.jokers = jokers
    return h


cdef object _meld_rows(const MeldList* ml, const uint16_t* which, int n):
    rows = np.empty(n, dtype=MELD_DTYPE)
    cdef int i, k
    for i in range(n):
        k = which[i] if which != NULL else i
        rows[i] = (ml.mask[k], ml.joker_for[k], ml.jokers[k], ml.kind[k], ml.opening[k])
    return rows


def melds_in_hand(int variant, uint64_t a1, uint64_t a2, int jokers, int max_jokers_per_series=1,
                  bint ace_high=False):
    """Every meld formable from the hand, as a MELD_DTYPE array."""
    cdef MeldList* ml = <MeldList*> PyMem_Malloc(sizeof(MeldList))
    if ml == NULL:
        raise MemoryError()
    try:
        if enumerate_melds(ml, variant, _make_hand(a1, a2, jokers), max_jokers_per_series,
                           ace_high) < 0:
            raise HandTooDense(f"the hand forms more than {MAX_MELDS} melds")
        return _meld_rows(ml, NULL, ml.n)
    finally:
        PyMem_Free(ml)


def best_partition_of(int variant, uint64_t a1, uint64_t a2, int jokers,
                      int max_jokers_per_series=1, bint ace_high=False, bint opening=False):
    """(objective, melds) of the best partition: the melded key of the variant objective, or the
    Rami FR opening value when ``opening`` is set; melds as a MELD_DTYPE array."""
    cdef Hand h = _make_hand(a1, a2, jokers)
    cdef Partition part
    cdef bint gave_up
    cdef MeldList* ml = <MeldList*> PyMem_Malloc(sizeof(MeldList))
    if ml == NULL:
        raise MemoryError()
    try:
        if enumerate_melds(ml, variant, h, max_jokers_per_series, ace_high) < 0:
            raise HandTooDense(f"the hand forms more than {MAX_MELDS} melds")
        with nogil:
            gave_up = best_partition(ml, h, opening, &part) < 0
        if gave_up:
            raise HandTooDense(f"the hand has more ways to meld than the exact search tries "
                               f"({MAX_SEARCH_STEPS:,} steps)")
        return part.score, _meld_rows(ml, part.melds, part.n)
    finally:
        PyMem_Free(ml)


def objective_key(int variant, uint64_t a1, uint64_t a2, int jokers, bint ace_high=False):
    """The objective key of a whole hand (all cards left over)."""
    cdef int table = _table(variant, ace_high)
    return _weight(CARD_KEY[table], a1) + _weight(CARD_KEY[table], a2 & a1) + jokers * JOKER_KEY[table]


def layoff_cards(int variant, int kind, uint64_t meld, uint64_t joker_for, int meld_jokers,
                 uint64_t hand, int max_jokers_per_series, int end):
    return mm_layoff_cards(variant, kind, meld, joker_for, meld_jokers, hand,
                           max_jokers_per_series, end)


def deadwood_batch(int variant, const uint64_t[::1] hands, bint ace_high=False):
    """Fewest deadwood points and the leftover count for each 52-card hand (int32 arrays)."""
    cdef Py_ssize_t i, n = hands.shape[0]
    points = np.empty(n, dtype=np.int32)
    counts = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] p = points, c = counts
    cdef int64_t r
    cdef bint dense = False
    with nogil:
        for i in range(n):
            r = mm_deadwood(variant, hands[i], ace_high)
            if r < 0:
                dense = True
                break
            p[i] = <int32_t>(r >> COUNT_SHIFT_52)
            c[i] = <int32_t>(r & ((1 << COUNT_SHIFT_52) - 1))
    if dense:
        raise HandTooDense.in_batch(i)
    return points, counts


def rami_opening_batch(const uint64_t[::1] hands):
    """Largest Rami FR opening of each hand (int32 array)."""
    cdef Py_ssize_t i, n = hands.shape[0]
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] o = out
    cdef int64_t r
    cdef bint dense = False
    with nogil:
        for i in range(n):
            r = mm_rami_opening(hands[i])
            if r < 0:
                dense = True
                break
            o[i] = <int32_t>r
    if dense:
        raise HandTooDense.in_batch(i)
    return out


def kirolo_batch(const uint64_t[:, ::1] hands, int max_jokers_per_series=1):
    """Unmelded card count and value for each KIROLO hand row ``(a1, a2, jokers)``."""
    cdef Py_ssize_t i, n = hands.shape[0]
    counts = np.empty(n, dtype=np.int32)
    values = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] c = counts, v = values
    cdef int64_t r
    cdef bint dense = False
    if hands.shape[1] != 3:
        raise ValueError("KIROLO hands are rows of (a1, a2, jokers)")
    with nogil:
        for i in range(n):
            r = mm_kirolo_unmelded(hands[i, 0], hands[i, 1] & hands[i, 0], <int>hands[i, 2],
                                   max_jokers_per_series)
            if r < 0:
                dense = True
                break
            c[i] = <int32_t>(r >> COUNT_SHIFT_KIROLO)
            v[i] = <int32_t>(r & ((1 << COUNT_SHIFT_KIROLO) - 1))
    if dense:
        raise HandTooDense.in_batch(i)
    return counts, values


COUNT_SHIFT = {"52": COUNT_SHIFT_52, "kirolo": COUNT_SHIFT_KIROLO}


def deadwood(int variant, uint64_t hand, bint ace_high=False):
    """``mm_deadwood`` for Python callers (and numba with NUMBA_DISABLE_JIT=1)."""
    return mm_deadwood(variant, hand, ace_high)


def leftover(int variant, uint64_t hand, bint ace_high=False):
    """``mm_leftover`` for Python callers."""
    return mm_leftover(variant, hand, ace_high)


def rami_opening(uint64_t hand):
    """``mm_rami_opening`` for Python callers."""
    return mm_rami_opening(hand)


def kirolo_unmelded(uint64_t a1, uint64_t a2, int jokers, int max_jokers_per_series=1):
    """``mm_kirolo_unmelded`` for Python callers."""
    return mm_kirolo_unmelded(a1, a2 & a1, jokers, max_jokers_per_series)
