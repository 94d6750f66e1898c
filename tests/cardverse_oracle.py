"""Independent, slow reference implementation of CardVerse Rami, written from RULES.md §4 alone
before the engine's code was read; it shares nothing with the package. The only things taken
from the engine are the deal (hands, upcard) and the card each stock draw brings (the stock
order is hidden); the oracle checks both against its own state (deck partition, sizes, card in
the stock). ``test_cardverse_oracle_crosscheck`` plays the two side by side."""
from __future__ import annotations

from itertools import combinations

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["C", "D", "H", "S"]                      # E6 order: C < D < H < S
DECK = [r + s for s in SUITS for r in RANKS]


def rank_of(card: str) -> str:
    return card[:-1]


def suit_of(card: str) -> str:
    return card[-1]


def run_pos(card: str) -> int:
    """Position in the run order 2 3 ... K A (4.5.1: the ace is only high)."""
    r = rank_of(card)
    if r == "A":
        return 14
    if r in ("J", "Q", "K"):
        return {"J": 11, "Q": 12, "K": 13}[r]
    return int(r)


def value(card: str, ace_high: bool) -> int:
    r = rank_of(card)
    if r == "A":
        return 11 if ace_high else 1
    if r in ("J", "Q", "K"):
        return 10
    return int(r)


def is_group(cards) -> bool:
    cards = list(cards)
    return (len(cards) in (3, 4) and len({rank_of(c) for c in cards}) == 1
            and len({suit_of(c) for c in cards}) == len(cards))


def is_run(cards) -> bool:
    cards = list(cards)
    if len(cards) < 3 or len({suit_of(c) for c in cards}) != 1:
        return False
    pos = sorted(run_pos(c) for c in cards)
    return (all(pos[i + 1] == pos[i] + 1 for i in range(len(pos) - 1))
            and 2 <= pos[0] and pos[-1] <= 14)


def is_meld(cards) -> bool:
    return is_group(cards) or is_run(cards)


def meld_text_order(cards):
    if is_group(cards):
        return sorted(cards, key=lambda c: SUITS.index(suit_of(c)))
    return sorted(cards, key=run_pos)


class CVOracle:
    def __init__(self, num_players=2, discard_to_win=False, ace_high=False, target_score=100,
                 no_immediate_rediscard=True, max_turns=300):
        assert 2 <= num_players <= 4
        self.N = num_players
        self.dtw = discard_to_win
        self.ace_high = ace_high
        self.target = target_score
        self.nir = no_immediate_rediscard
        self.max_turns = max_turns
        self.scores = [0] * self.N
        self.hand_no = 0
        self.phase = "deal"        # deal | draw | play | over
        self.game_winner = None
        self.last_hand = None      # (winner, end, hand_values, gain)

    # ----- setup ------------------------------------------------------------------------------
    def deal(self, hands, upcard):
        """Start the next hand from the given deal; checks sizes and the deck partition."""
        assert self.phase == "deal"
        self.hand_no += 1
        size = 7 if self.N == 2 else 10
        assert len(hands) == self.N
        for h in hands:
            assert len(h) == size, ("deal size", len(h), size)
        allc = [c for h in hands for c in h] + [upcard]
        assert len(set(allc)) == len(allc) and set(allc) <= set(DECK), "deal not a partition"
        self.hands = [set(h) for h in hands]
        self.discard = [upcard]
        self.stock = set(DECK) - set(allc)
        self.table = []            # list of (kind, list of cards), slot = index
        self.cur = (self.hand_no - 1) % self.N
        self.phase = "draw"
        self.taken = None
        self.turns = 0

    # ----- legal moves ------------------------------------------------------------------------
    def legal(self):
        """Set of move texts legal now."""
        if self.phase == "draw":
            moves = {"draw stock"}                     # Decision 3: legal even on an empty stock
            if self.discard:
                moves.add("take discard")
            return moves
        if self.phase != "play":
            return set()
        hand = self.hands[self.cur]
        moves = set()
        for c in hand:
            if self.nir and c == self.taken and len(hand) > 1:
                continue
            moves.add(f"discard {c}")
        # new melds: a meld is single-suit (run) or single-rank (group): search those subsets
        pools = [[c for c in hand if suit_of(c) == s] for s in SUITS]
        pools += [[c for c in hand if rank_of(c) == r] for r in RANKS]
        for pool in pools:
            for k in range(3, len(pool) + 1):
                for sub in combinations(pool, k):
                    if not is_meld(sub):
                        continue
                    if self.dtw and len(hand) - k < 1:
                        continue
                    moves.add("lay meld " + " ".join(meld_text_order(sub)))
        # lay-offs: one card at a time (E2 atomic actions)
        if not (self.dtw and len(hand) < 2):
            for c in hand:
                for slot, (kind, cards) in enumerate(self.table):
                    new = cards + [c]
                    if kind == "group" and is_group(new):
                        moves.add(f"lay off {c} on meld {slot} (group)")
                    elif kind == "run" and is_run(new):
                        lo = min(run_pos(x) for x in cards)
                        end = "low end" if run_pos(c) < lo else "high end"
                        moves.add(f"lay off {c} on meld {slot} ({end})")
        return moves

    # ----- effects ----------------------------------------------------------------------------
    def play(self, text, drawn=None):
        """Apply a legal move. `drawn` = the card the engine gave for a non-empty stock draw."""
        assert text in self.legal(), ("oracle: illegal", text)
        seat = self.cur
        hand = self.hands[seat]
        if text == "draw stock":
            if not self.stock:
                self._end_hand("empty_stock", None)
                return
            assert drawn in self.stock, ("drawn card not in stock", drawn)
            self.stock.remove(drawn)
            hand.add(drawn)
            self.taken = None
            self.phase = "play"
            return
        assert drawn is None
        if text == "take discard":
            card = self.discard.pop()
            hand.add(card)
            self.taken = card
            self.phase = "play"
            return
        words = text.split()
        if words[0] == "discard":
            card = words[1]
            hand.remove(card)
            self.discard.append(card)
            self.turns += 1
            if not hand:
                self._end_hand("out", seat)
                return
            if self.turns >= self.max_turns:
                self._end_hand("max_turns", None)
                return
            self.cur = (self.cur + 1) % self.N
            self.phase = "draw"
            self.taken = None
            return
        if words[:2] == ["lay", "meld"]:
            cards = words[2:]
            for c in cards:
                hand.remove(c)
            self.table.append(("group" if is_group(cards) else "run", list(cards)))
        elif words[:2] == ["lay", "off"]:
            card, slot = words[2], int(words[5])
            hand.remove(card)
            self.table[slot][1].append(card)
        else:
            raise AssertionError(text)
        if not hand:
            self.turns += 1
            self._end_hand("out", seat)

    def hand_values(self):
        return [sum(value(c, self.ace_high) for c in h) for h in self.hands]

    def _end_hand(self, end, winner):
        vals = self.hand_values()
        if winner is None:                    # empty stock / max_turns: lowest value, lowest seat
            winner = min(range(self.N), key=lambda s: (vals[s], s))
        gain = sum(v for s, v in enumerate(vals) if s != winner)
        self.scores[winner] += gain
        self.last_hand = (winner, end, vals, gain)
        if self.scores[winner] >= self.target:
            self.phase = "over"
            self.game_winner = winner
        else:
            self.phase = "deal"

    def to_move(self):
        return self.cur if self.phase in ("draw", "play") else None
