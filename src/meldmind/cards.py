"""Cards and notation for every deck of RULES.md §7, and their bit encodings.

Card ids:

* 52-card decks (gin, cardverse, rami): id = bit = ``suit * 13 + rank - 1`` with suits
  C D H S (RULES.md E6) and ranks A=1 .. K=13; the Rami FR jokers ``JK1``/``JK2`` are 52 and 53.
* KIROLO: element cards are ``copy * 60 + element * 12 + value - 1`` (copy a = 0, b = 1) with
  elements FI WA EA WO ME; action cards follow: jokers from 120, then Exchange, then Search.

>>> parse_cards("gin", "As 10h th")
Traceback (most recent call last):
...
meldmind.errors.CardError: duplicate card 'th' (10H)
>>> [format_card("gin", c) for c in parse_cards("gin", ["as", "♥q", "10D"])]
['AS', 'QH', '10D']
>>> [format_card("kirolo", c) for c in parse_cards("kirolo", "FI7 fi07 JOKER echange")]
['FI07a', 'FI07b', 'JOKER', 'EXCHANGE']
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .errors import CardError, clipped, shown
from .variants import Variant, is_integer, variant_named

SUITS = "CDHS"
SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_ALIASES = {"T": "10"}
JOKER_52 = (52, 53)

ELEMENTS = ("FI", "WA", "EA", "WO", "ME")
KIROLO_VALUES = 12
KIROLO_ELEMENT_CARDS = 120
KIROLO_BITS = 60
# KIROLO action cards: name -> (first id, copies in the deck, accepted spellings)
KIROLO_ACTIONS = {
    "JOKER": (120, 16, ("JOKER", "JK")),
    "EXCHANGE": (136, 10, ("EXCHANGE", "ECHANGE", "ÉCHANGE")),
    "SEARCH": (146, 6, ("SEARCH", "FOUILLE")),
}
_ACTION_SPELLINGS = {s: name for name, (_, _, names) in KIROLO_ACTIONS.items() for s in names}


def card_bit(variant: Variant | str, card: int) -> int:
    """The bit of a card in a hand mask (KIROLO: both copies share one bit)."""
    if variant_named(variant).deck == "kirolo":
        return card % KIROLO_BITS if card < KIROLO_ELEMENT_CARDS else -1
    return card


_NAMES_52 = tuple(rank + suit for suit in SUITS for rank in RANKS)


def format_card(variant: Variant | str, card: int) -> str:
    """Canonical text of a card id."""
    deck = variant_named(variant).deck
    # True would pass as card 1, a text would fail the comparisons; a plain int skips the
    # slower isinstance checks (an observation names about a hundred cards)
    if type(card) is not int and not is_integer(card):
        raise CardError(f"a card id is an integer, not {shown(card)} (parse_cards reads card "
                        "texts)")
    if deck == "kirolo":
        if 0 <= card < KIROLO_ELEMENT_CARDS:
            copy, bit = divmod(card, KIROLO_BITS)
            element, value = divmod(bit, KIROLO_VALUES)
            return f"{ELEMENTS[element]}{value + 1:02d}{'ab'[copy]}"
        for name, (first, copies, _) in KIROLO_ACTIONS.items():
            if first <= card < first + copies:
                return name
    elif 0 <= card < 52:
        return _NAMES_52[card]
    elif deck == "52+jokers" and card in JOKER_52:
        return f"JK{card - 51}"
    raise CardError(f"card id {card} does not exist in {variant_named(variant).name}")


def fold_case(text: str, upper: bool = True) -> str:
    """``text`` upper-cased (or lower-cased), except a non-ASCII character that would become
    ASCII (``ſ`` upper-cases to ``S``, the Kelvin sign lower-cases to ``k``): it stays as it is,
    so the token is refused instead of read as another card or move."""
    if text.isascii():      # the common case, in one call (an observation reads hundreds)
        return text.upper() if upper else text.lower()

    def fold(ch: str) -> str:
        folded = ch.upper() if upper else ch.lower()
        return ch if folded.isascii() and not ch.isascii() else folded
    return "".join(map(fold, text))


def card_tokens(cards: str | Iterable[str]) -> list[str]:
    """The card texts of a string (split on spaces) or of a list of strings, unparsed."""
    if isinstance(cards, str):
        return cards.split()
    if not isinstance(cards, Iterable) or isinstance(cards, (bytes, Mapping)):
        raise CardError(f"cards are a string or a list of strings, not {shown(cards)}")
    tokens = list(cards)
    for token in tokens:
        if not isinstance(token, str):
            raise CardError(f"a card must be a string, not {shown(token)}")
    return tokens


def _parse_52(token: str, jokers: bool) -> int | str:
    text = fold_case(token.strip())
    if text in ("JK1", "JK2", "JK"):
        if not jokers:
            raise CardError(f"jokers do not belong to this deck: {clipped(repr(token))}")
        return JOKER_52[int(text[2]) - 1] if text != "JK" else text
    if not text:
        raise CardError(f"empty card token {clipped(repr(token))}")
    suit = SUIT_SYMBOLS.get(text[0]) or SUIT_SYMBOLS.get(text[-1])
    if suit is not None:
        rank = text[1:] if text[0] in SUIT_SYMBOLS else text[:-1]
    else:
        rank, suit = text[:-1], text[-1:]
    rank = RANK_ALIASES.get(rank, rank)
    if suit not in SUITS or rank not in RANKS:
        jokers_too = ", or a joker JK1 JK2" if jokers else ""
        raise CardError(f"malformed card {clipped(repr(token))}: expected a rank A 2..10 J Q K "
                        f"and a suit C D H S{jokers_too}")
    return SUITS.index(suit) * 13 + RANKS.index(rank)


def _parse_kirolo(token: str) -> int | tuple[str, int] | tuple[str, str]:
    """An id for an element card with a copy, ('ELEMENT', bit) for one without, or
    ('ACTION', name)."""
    text = fold_case(token.strip())
    if text in _ACTION_SPELLINGS:
        return ("ACTION", _ACTION_SPELLINGS[text])
    if text == "BONUS":
        raise CardError(f"{clipped(repr(token))}: BONUS does not exist in Mode Rami (RULES.md §1.1)")
    element, rest = text[:2], text[2:]
    copy = None
    if rest[-1:] in ("A", "B"):
        copy, rest = "AB".index(rest[-1]), rest[:-1]
    if element not in ELEMENTS or not (rest.isascii() and rest.isdigit()) or not 1 <= int(rest) <= KIROLO_VALUES or len(rest) > 2:
        raise CardError(
            f"malformed KIROLO card {clipped(repr(token))}: expected FI/WA/EA/WO/ME, a value 1..12 and an optional copy a/b"
        )
    bit = ELEMENTS.index(element) * KIROLO_VALUES + int(rest) - 1
    return bit + KIROLO_BITS * copy if copy is not None else ("ELEMENT", bit)


def parse_cards(variant: Variant | str, cards: str | Iterable[str]) -> list[int]:
    """Card ids of a hand given as strings (or one space-separated string).

    Duplicates beyond the deck's copies and cards foreign to the variant raise ``CardError``
    naming the token. Tokens without a copy (``FI7``, ``JK``) take the first free id.
    """
    v = variant_named(variant)
    tokens = card_tokens(cards)
    taken: set[int] = set()
    ids: list[int] = []
    # tokens naming no copy: "JK", ("ELEMENT", bit) or ("ACTION", name)
    deferred: list[tuple[int, str, str | tuple[str, int] | tuple[str, str]]] = []
    for i, token in enumerate(tokens):
        parsed = _parse_kirolo(token) if v.deck == "kirolo" else _parse_52(token, v.deck == "52+jokers")
        if isinstance(parsed, int):
            if parsed in taken:
                canonical = format_card(v, parsed)   # named when the token spells it otherwise
                spelt = f" ({canonical})" if canonical != token.strip() else ""
                raise CardError(f"duplicate card {clipped(repr(token))}{spelt}")
            taken.add(parsed)
            ids.append(parsed)
        else:
            ids.append(-1)
            deferred.append((i, token, parsed))
    # Tokens that name no copy take the first free copy once every explicit copy is known.
    for i, token, parsed in deferred:
        choices: Sequence[int]
        if isinstance(parsed, str):
            choices = JOKER_52
        elif isinstance(parsed[1], int):
            choices = (parsed[1], parsed[1] + KIROLO_BITS)
        else:
            first, copies, _ = KIROLO_ACTIONS[parsed[1]]
            choices = range(first, first + copies)
        free = next((c for c in choices if c not in taken), None)
        if free is None:
            raise CardError(f"duplicate card {clipped(repr(token))}: every copy is already in the hand")
        taken.add(free)
        ids[i] = free
    return ids


def hand_mask(variant: Variant | str, cards: Iterable[int]) -> tuple[int, int, int]:
    """(a1, a2, jokers) of card ids: cards held at least once, held twice, and jokers.

    Rami FR jokers stay in ``a1`` at bits 52-53 *and* are counted; KIROLO action cards other
    than jokers are left out, as the hand analysis ignores them (RULES.md §7).
    """
    v = variant_named(variant)
    a1 = a2 = jokers = 0
    for card in cards:
        if v.deck == "kirolo":
            if card >= KIROLO_ELEMENT_CARDS:
                first, copies, _ = KIROLO_ACTIONS["JOKER"]
                jokers += first <= card < first + copies
                continue
            bit = 1 << (card % KIROLO_BITS)
            a2 |= a1 & bit
            a1 |= bit
        else:
            a1 |= 1 << card
            jokers += card in JOKER_52
    return a1, a2, jokers


def is_joker(variant: Variant | str, card: int) -> bool:
    if variant_named(variant).deck == "kirolo":
        first, copies, _ = KIROLO_ACTIONS["JOKER"]
        return first <= card < first + copies
    return card in JOKER_52


def mask_cards(variant: Variant | str, mask: int) -> list[str]:
    """The canonical texts of the cards of a 52-card hand mask, in id order."""
    mask = int(mask)
    return [format_card(variant, c) for c in range(54) if mask >> c & 1]
