"""One module per game: names, move texts and JSON over the game's numba kernel."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..cards import format_card, parse_cards
from ..errors import MeldmindError


def meld_action_of(variant: str, meld_masks: np.ndarray, first_action: int, meld_rule: str,
                   cards: str | Iterable[str]) -> int:
    """The lay-meld action id of a meld given as cards in any order: ``first_action`` plus the
    meld's index in the kernel's ``meld_masks``; anything else raises ``MeldmindError`` with
    the game's ``meld_rule``."""
    ids = parse_cards(variant, cards)
    hits = np.flatnonzero(meld_masks == sum(1 << c for c in ids))
    if len(ids) < 3 or not len(hits):
        named = " ".join(format_card(variant, c) for c in ids)
        raise MeldmindError(f"not a valid {variant} meld: {named!r} ({meld_rule})")
    return first_action + int(hits[0])
