"""Whether some order of turns explains a CardVerse hand in progress (RULES.md §4.3-4.8).

An observation names, per seat, the sets of cards it discarded, passed over and took from the
pile this hand. The counts and orders that ``cardverse._check_turns`` tests on them are exact
until a seat takes back a card that was discarded before: the sets then name it once for two
events, and those checks can only bound. This module settles such observations by searching
for a whole history.

The model is exact for draws and discards. Turn ``t`` of the hand is seat ``(first + t) % n``'s:
a draw, then lays, then a discard. The draw meets on the pile the card that the turn before it
has just discarded (the upcard on turn 0). It either takes that card, or draws from the stock
and so passes over it, which leaves the card covered for good. So the final pile is the upcard
(unless it was taken) and then, in order, every discard that the next seat passed over. A card
leaves the pile only into the next seat's hand.

The search follows the turns in order. Each discard is a card of its seat's ``discarded`` set
that the seat can hold:
- a card it took and still holds;
- or a card not yet seen, from its deal or its stock draws: no more of those than it was dealt
  and drew from the stock.

Every card of the three sets must be met, the pile matched, and ``no_immediate_rediscard`` kept.
At the end each seat holds what ``taken_from_discard`` says. A card it took and neither
discarded nor holds must be on the table, laid by it, and no more of those than ``hand_sizes``
leave it to lay. Each meld was laid whole by one seat, at least 3 cards: three cards of it in a
row, or three of a group, that no other seat laid (``meld_bases``); the rest are lay-offs, which
any seat may make. So a seat laid 3 cards for each meld it laid, beside its lay-offs.

Before the search, each card seen this hand is followed alone through the turns, every other
card left free (``_one_card_can_travel``). That is cheap, and it refutes at once a hand that
the search could refute only after trying every order of the other cards.

Which table cards a seat laid from its hidden cards, and when, is not searched. That only
widens what is accepted, so a refusal is a proof. The search stops, and accepts, after
``NODE_LIMIT`` states: hands where the seats took back and forth from the pile for many
turns may stay undecided, while hands between the AI levels are all decided.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..kernels.cardverse import card_position_py

NODE_LIMIT = 2_000       # states taken off the stack: about 20 ms of search at most
ALL_CARDS = (1 << 52) - 1


@dataclass(frozen=True)
class HandSoFar:
    """The public record of a hand in progress. Card sets are bit masks (bit ``c``: card
    ``c``); tuples hold one entry per seat."""

    players: int
    first: int                  # the seat that played the hand's first turn
    turns: int                  # turns completed
    drawn: bool                 # the seat to move has drawn this turn
    taken_now: int              # the card it took from the pile this turn, -1 if none
    pile: tuple[int, ...]       # bottom to top
    discarded: tuple[int, ...]
    declined: tuple[int, ...]
    taken: tuple[int, ...]
    held: tuple[int, ...]       # taken_from_discard: cards taken and still in the hand
    lays: tuple[int, ...]       # how many cards each seat has laid, from the hand sizes
    melds: tuple[int, ...]      # the table's melds
    dealt: int                  # cards dealt to each seat
    no_immediate_rediscard: bool

    def seat(self, turn: int) -> int:
        return (self.first + turn) % self.players

    @property
    def table(self) -> int:
        cards = 0
        for meld in self.melds:
            cards |= meld
        return cards


def explained(hand: HandSoFar, *, rediscard_rule: bool = True, lay_rule: bool = True,
              base_rule: bool = True) -> bool | None:
    """True if some history fits ``hand``, False if none does, None if the search stopped at
    ``NODE_LIMIT`` first. ``rediscard_rule``, ``lay_rule`` and ``base_rule`` may be switched
    off to find which rule a refused hand breaks."""
    n, turns, pile, table = hand.players, hand.turns, hand.pile, hand.table
    bases = [meld_bases(meld) for meld in hand.melds] if base_rule else []
    if turns == 0 and not hand.drawn:
        return True             # only the upcard: nothing happened yet
    rediscard_rule = rediscard_rule and hand.no_immediate_rediscard
    seen_this_hand = _seen_this_hand(hand)
    if not all(_one_card_can_travel(hand, card, rediscard_rule) for card in _bits(seen_this_hand)):
        return False
    # per turn index t and seat: discards left from turn t on, draws left after turn t's
    discards_left = [(0,) * n] * (turns + 1)
    draws_left = [(0,) * n] * (turns + 1)
    for t in range(turns - 1, -1, -1):
        p = hand.seat(t)
        discards_left[t] = _with(discards_left[t + 1], p, discards_left[t + 1][p] + 1)
        draws_left[t] = draws_left[t + 1]
        if t + 1 < turns or hand.drawn:
            q = hand.seat(t + 1)
            draws_left[t] = _with(draws_left[t], q, draws_left[t][q] + 1)
    # draws met: bit c a pass over card c, bit 52 + c a take of it (a seat may do both)
    wanted_draws = tuple(hand.declined[p] | hand.taken[p] << 52 for p in range(n))
    # A seat passes over each card of 'declined' once (it stays covered), so it took the pile's
    # top at its other draws. Each card it took it discarded again, holds, or laid: so it
    # discarded from its unseen cards all but (takes - held - laid) of its discards.
    fewest_unseen, most_unseen = [], []
    for p in range(n):
        takes = draws_left[0][p] + (p == hand.first) - hand.declined[p].bit_count()
        fewest = discards_left[0][p] - takes + hand.held[p].bit_count()
        fewest_unseen.append(fewest)
        most_unseen.append(fewest + (hand.lays[p] if lay_rule else takes))

    covered = [0]       # covered[i]: the cards of pile[:i], passed over for good
    for card in pile:
        covered.append(covered[-1] | 1 << card)

    def hopeless(state) -> bool:
        t, at, seen, holds, spare, met_discards, met_draws, _ = state
        if len(pile) - at > turns - t:
            return True
        for p in range(n):
            if (hand.discarded[p] & ~met_discards[p]).bit_count() > discards_left[t][p] \
                    or (wanted_draws[p] & ~met_draws[p]).bit_count() > draws_left[t][p]:
                return True
            passes = (met_draws[p] & ALL_CARDS).bit_count()
            unseen = hand.dealt + passes - spare[p]
            passes_left = hand.declined[p].bit_count() - passes
            takes_left = draws_left[t][p] - passes_left
            if unseen > most_unseen[p] or unseen + discards_left[t][p] < fewest_unseen[p]:
                return True
            # a card it holds but will not hold at the end needs a discard of its own; a card
            # it will hold, a take of its own
            to_shed = holds[p] & ~hand.held[p] & ~table
            to_take = hand.held[p] & ~holds[p]
            if to_shed & ~hand.discarded[p] or to_shed.bit_count() > discards_left[t][p] \
                    or to_take & ~hand.taken[p] or to_take.bit_count() > takes_left:
                return True
            # a card it has yet to discard: one it holds, one not seen yet, or one it will take
            unmet = hand.discarded[p] & ~met_discards[p] & ~holds[p]
            if unmet & seen & ~hand.taken[p] \
                    or (unmet & ~seen & ~hand.taken[p]).bit_count() > spare[p] + passes_left:
                return True
            if (to_take | unmet & seen) & covered[at]:
                return True         # a card passed over stays in the pile
        return False

    def complete(state) -> bool:
        _, at, _, holds, _, met_discards, met_draws, _ = state
        if at != len(pile) or met_discards != hand.discarded or met_draws != wanted_draws:
            return False
        laid = [holds[p] & ~hand.held[p] for p in range(n)]
        for p in range(n):
            if hand.held[p] & ~holds[p] or laid[p] & ~table:
                return False
            if lay_rule and laid[p].bit_count() > hand.lays[p]:
                return False
        return _bases_fit(laid, bases, hand.lays if lay_rule else None)

    def after_draw(state, card: int, turn: int, take: bool):
        """``state`` after the draw of ``turn`` met ``card`` on the pile, or None if it cannot."""
        _, at, seen, holds, spare, met_discards, met_draws, _ = state
        p = hand.seat(turn)
        if take:
            if not hand.taken[p] >> card & 1 or (turn == turns and hand.taken_now != card):
                return None
            holds = _with(holds, p, holds[p] | 1 << card)
            just_taken = card
        else:
            if at >= len(pile) or pile[at] != card or not hand.declined[p] >> card & 1 \
                    or (turn == turns and hand.taken_now >= 0):
                return None
            at += 1
            spare = _with(spare, p, spare[p] + 1)
            just_taken = -1
        met_draws = _with(met_draws, p, met_draws[p] | 1 << (card + 52 * take))
        return turn, at, seen | 1 << card, holds, spare, met_discards, met_draws, just_taken

    # state: (the turn whose discard comes next, pile cards matched, cards seen so far; per
    # seat: cards taken and still held, unseen cards it may still discard (dealt, plus one per
    # stock draw, less those discarded), discards met, draws met; the card taken this turn or
    # -1)
    zero = (0,) * n
    start = (0, 0, 0, zero, (hand.dealt,) * n, zero, zero, -1)
    stack = []
    for card in _bits(hand.taken[hand.first]):
        stack.append(after_draw(start, card, 0, take=True))
    if pile:
        stack.append(after_draw(start, pile[0], 0, take=False))
    visited = set()
    for _ in range(NODE_LIMIT):
        if not stack:
            return False
        state = stack.pop()
        if state is None or state in visited or hopeless(state):
            continue
        visited.add(state)
        t, at, seen, holds, spare, met_discards, met_draws, just_taken = state
        if t == turns:
            if complete(state):
                return True
            continue
        p = hand.seat(t)
        # cards not met yet are pushed last, so tried first: a history is found sooner
        unmet = hand.discarded[p] & ~met_discards[p]
        for choices in (hand.discarded[p] & ~unmet, unmet):
            for card in _bits(choices):
                if rediscard_rule and card == just_taken:
                    continue
                if holds[p] >> card & 1:
                    holds_after, spare_after = _with(holds, p, holds[p] & ~(1 << card)), spare
                elif not seen >> card & 1 and spare[p]:
                    holds_after, spare_after = holds, _with(spare, p, spare[p] - 1)
                else:
                    continue
                after = (t, at, seen | 1 << card, holds_after, spare_after,
                         _with(met_discards, p, met_discards[p] | 1 << card), met_draws, -1)
                if t + 1 == turns and not hand.drawn:
                    # the last discard tops the pile: no one has drawn over it yet
                    if at == len(pile) - 1 and pile[at] == card:
                        stack.append((turns, at + 1) + after[2:])
                    continue
                stack.append(after_draw(after, card, t + 1, take=True))
                stack.append(after_draw(after, card, t + 1, take=False))     # tried first
    return None if stack else False


def _bits(mask: int):
    """The cards of ``mask``, lowest first."""
    while mask:
        yield (mask & -mask).bit_length() - 1
        mask &= mask - 1


def meld_bases(meld: int) -> tuple[int, ...]:
    """The sets of three cards of ``meld`` that one seat may have laid it from: three in a row
    of a run (the Ace high), any three of a group. A larger base holds one of them."""
    cards = list(_bits(meld))
    if len({card % 13 for card in cards}) == 1:
        return tuple(sum(1 << card for card in three)
                     for three in itertools.combinations(cards, 3))
    in_order = sorted(cards, key=card_position_py)
    return tuple(sum(1 << card for card in in_order[i:i + 3]) for i in range(len(in_order) - 2))


def _bases_fit(laid: list[int], bases: list[tuple[int, ...]], lays: tuple[int, ...] | None
               ) -> bool:
    """Whether each meld can have a base (``meld_bases``) that one seat laid and that holds no
    card of ``laid`` (per seat, the cards it surely laid) of another seat's; and, given ``lays``,
    whether each seat laid enough cards for its bases and its other cards of ``laid``."""
    n = len(laid)
    # per meld, who may have laid its base, at how many cards beyond those of 'laid'
    layers: list[set[tuple[int, int]]] = []
    for options in bases:
        choices: set[tuple[int, int]] = set()
        for base in options:
            seats = [p for p in range(n) if laid[p] & base]
            if not seats:
                choices.update((p, 3) for p in range(n))
            elif len(seats) == 1:
                choices.add((seats[0], 3 - (laid[seats[0]] & base).bit_count()))
        if not choices:
            return False
        layers.append(choices)
    if lays is None:
        return True
    # a meld whose base may be any seat's, at 3 cards, is only counted, at the end; the others
    # are searched, keeping the states already refuted
    anyone = {(p, 3) for p in range(n)}
    searched = [sorted(choices) for choices in layers if choices != anyone]
    free = len(layers) - len(searched)
    refuted: set[tuple[int, tuple[int, ...]]] = set()

    def fits(i: int, spare: tuple[int, ...]) -> bool:
        if i == len(searched):
            return sum(cards // 3 for cards in spare) >= free
        if (i, spare) in refuted:
            return False
        for p, cards in searched[i]:
            if spare[p] >= cards and fits(i + 1, _with(spare, p, spare[p] - cards)):
                return True
        refuted.add((i, spare))
        return False

    return fits(0, tuple(lays[p] - laid[p].bit_count() for p in range(n)))


def _seen_this_hand(hand: HandSoFar) -> int:
    cards = 0
    for p in range(hand.players):
        cards |= hand.discarded[p] | hand.declined[p] | hand.taken[p]
    return cards


# where one card is, in _one_card_can_travel: a seat's number for a seat holding it openly
UNSEEN, ON_TOP, COVERED = -1, -2, -3


def _one_card_can_travel(hand: HandSoFar, card: int, rediscard_rule: bool) -> bool:
    """Whether ``card`` alone can follow some path through the hand's turns that meets its
    every entry in the three sets and ends where the observation puts it. It is the search's
    model with every other card left free, so a card that cannot travel refutes the hand at
    once, where the search would try every order of the other cards first."""
    n, turns = hand.players, hand.turns
    in_pile = card in hand.pile
    wanted = tuple((hand.discarded[p] >> card & 1, hand.declined[p] >> card & 1,
                    hand.taken[p] >> card & 1) for p in range(n))

    def met(seen, p, kind):
        return seen | 1 << (3 * p + kind)

    def draw(states, t):
        """Turn ``t``'s draw: a card on top is taken or passed over."""
        p, after = hand.seat(t), set()
        for where, just_taken, seen in states:
            if where != ON_TOP:
                after.add((where, False, seen))
                continue
            if wanted[p][2] and (t < turns or hand.taken_now == card):
                after.add((p, True, met(seen, p, 2)))
            if wanted[p][1] and (t < turns or hand.taken_now < 0) and in_pile:
                after.add((COVERED, False, met(seen, p, 1)))
        return after

    # turn 0's draw meets the upcard: this card, or another one
    states = draw({(ON_TOP, False, 0), (UNSEEN, False, 0)}, 0)
    for t in range(turns):
        p, after = hand.seat(t), set()
        for where, just_taken, seen in states:
            after.add((where, False, seen))             # it discards another card
            if wanted[p][0] and (where == UNSEEN or where == p and not
                                 (rediscard_rule and just_taken)):
                after.add((ON_TOP, False, met(seen, p, 0)))
        states = draw(after, t + 1) if t + 1 < turns or hand.drawn else after
    everything = sum(1 << (3 * p + kind) for p in range(n) for kind in range(3)
                     if wanted[p][kind])
    return any(seen == everything and _ends_right(hand, card, where) for where, _, seen in states)


def _ends_right(hand: HandSoFar, card: int, where: int) -> bool:
    """Whether ``card``, last at ``where`` on its path, is where the observation puts it."""
    if where == ON_TOP:
        return hand.pile[-1] == card
    if where == COVERED:
        return True             # the draws that covered it checked the pile holds it
    if where == UNSEEN:
        return True             # nothing was met: it was never in sight
    return bool((hand.held[where] | hand.table) >> card & 1)


def _with(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return values[:index] + (value,) + values[index + 1:]
