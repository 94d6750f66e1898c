# The hand algebra's C interface. Functions declared here are exported in the
# module's __pyx_capi__, which is how meldmind.kernels hands them to numba (see bridge.py).
from libc.stdint cimport uint64_t, int32_t, int64_t, uint8_t, uint16_t

cdef enum:
    VARIANT_GIN = 0
    VARIANT_CARDVERSE = 1
    VARIANT_RAMI = 2
    VARIANT_KIROLO = 3
    KIND_GROUP = 0
    KIND_RUN = 1
    MAX_MELDS = 2048
    MAX_JOKERS = 16
    # steps of the partition search before it gives up: a dealt hand takes tens, the whole
    # KIROLO deck thousands, while some 50-card hands take billions (minutes)
    MAX_SEARCH_STEPS = 20000000
    MAX_PATH = 48   # melds in one partition: every meld holds 3+ cards, and the largest hand
                    # (KIROLO's 120 element cards and MAX_JOKERS jokers) makes at most 45

# Every meld formable from one hand, jokers included.
ctypedef struct MeldList:
    int n
    int table                      # value table: the variant, or CardVerse with ace_high
    uint64_t mask[MAX_MELDS]       # natural cards (card bits)
    uint64_t joker_for[MAX_MELDS]  # runs: the cards the jokers stand for; groups: the cards a joker may stand for
    int32_t gain[MAX_MELDS]        # what the meld adds to the search objective
    int32_t opening[MAX_MELDS]     # Rami FR meld value (§2.1), 0 elsewhere
    uint8_t jokers[MAX_MELDS]
    uint8_t kind[MAX_MELDS]
    uint8_t low[MAX_MELDS]         # lowest card bit, the search's branching key
    uint16_t order[MAX_MELDS]      # meld indices sorted by low
    uint64_t leads_any            # cards that are the lowest card of some meld
    uint64_t leads_natural        # ... of some meld without jokers
    uint16_t first[65]             # order[first[b]:first[b+1]] are the melds whose lowest card is b,
                                   # for b in leads_any (other entries are not set)

# A hand: a1 = cards held at least once, a2 = cards held twice (KIROLO only), plus jokers.
ctypedef struct Hand:
    uint64_t a1
    uint64_t a2
    int jokers

ctypedef struct Partition:
    int32_t score           # best objective value found
    int n                   # number of melds in the partition
    uint16_t melds[MAX_PATH]

cdef int enumerate_melds(MeldList* ml, int variant, Hand hand, int max_jokers_per_series,
                         int ace_high) noexcept nogil
cdef int best_partition(MeldList* ml, Hand hand, bint opening, Partition* out) noexcept nogil

# Exported kernels (also reached from numba through the bridge).
cdef int64_t mm_deadwood(int variant, uint64_t hand, int ace_high) noexcept nogil
cdef int64_t mm_leftover(int variant, uint64_t hand, int ace_high) noexcept nogil
cdef int64_t mm_rami_opening(uint64_t hand) noexcept nogil
cdef int64_t mm_kirolo_unmelded(uint64_t a1, uint64_t a2, int jokers,
                                int max_jokers_per_series) noexcept nogil
cdef int64_t mm_layoff_cards(int variant, int kind, uint64_t meld, uint64_t joker_for, int meld_jokers,
                             uint64_t hand, int max_jokers_per_series, int end) noexcept nogil
