"""The errors meldmind raises: each names what was wrong."""


class MeldmindError(ValueError):
    """Base class of meldmind's input errors."""


class CardError(MeldmindError):
    """A malformed card, a card foreign to the variant, or a duplicate beyond the deck."""


class OptionError(MeldmindError):
    """An unknown option, or an option value out of range."""


class IllegalMove(MeldmindError):
    """A move that the rules forbid in this state; the state is left unchanged."""
