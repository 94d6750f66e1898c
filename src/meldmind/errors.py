"""The errors meldmind raises: each names what was wrong."""
import json
from typing import Any


class MeldmindError(ValueError):
    """Base class of meldmind's input errors."""


class CardError(MeldmindError):
    """A malformed card, a card foreign to the variant, or a duplicate beyond the deck."""


class OptionError(MeldmindError):
    """An unknown option, or an option value out of range."""


class IllegalMove(MeldmindError):
    """A move that the rules forbid in this state; the state is left unchanged."""


def parse_json(text: str | bytes, what: str) -> Any:
    """``text`` read as JSON, or a MeldmindError saying that ``what`` is malformed: bad syntax,
    bytes that are not UTF-8, an integer too long for Python to read (over 4300 digits), or
    nesting too deep for the parser (a server reading requests must survive them all)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:   # the first three are ValueErrors
        raise MeldmindError(f"malformed {what}: {error}") from None


def check_version(found: Any, version: int, what: str) -> None:
    """Raises ``MeldmindError`` unless the ``version`` field ``found`` in a JSON document is
    ``version``: ``true`` is no version, though Python has ``True == 1``."""
    if isinstance(found, bool) or found != version:
        raise MeldmindError(f"unsupported {what} version {found!r}; this meldmind reads "
                            f"version {version}")


def shown(value: Any) -> str:
    """``repr(value)`` for an error message, also for an integer too long for Python to write
    in decimal (over 4300 digits), whose ``repr`` itself raises ``ValueError``."""
    try:
        return repr(value)
    except ValueError:
        if isinstance(value, int):
            return f"an integer of {value.bit_length()} bits"
        return f"a {type(value).__name__} holding an integer too long to write"
