"""The errors meldmind raises: each names what was wrong."""
import json
import numbers
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np


class MeldmindError(ValueError):
    """Base class of meldmind's input errors."""

    def __init__(self, *args: object) -> None:
        # a lone surrogate copied from the input (JSON may spell one, "\ud800") would make the
        # message unwritable as UTF-8: a server's log or response would fail on it
        super().__init__(*(arg.encode("utf-8", "backslashreplace").decode("utf-8")
                           if isinstance(arg, str) else arg for arg in args))


class CardError(MeldmindError):
    """A malformed card, a card foreign to the variant, or a duplicate beyond the deck."""


class OptionError(MeldmindError):
    """An unknown option, or an option value out of range."""


class IllegalMove(MeldmindError):
    """A move that the rules forbid in this state; the state is left unchanged."""


def parse_json(text: str | bytes, what: str) -> Any:
    """``text`` read as JSON, or a MeldmindError saying that ``what`` is missing (blank text) or
    malformed: bad syntax (NaN and Infinity included), bytes that are not UTF-8, an integer too
    long for Python to read (over 4300 digits), or nesting too deep for the parser (a server
    reading requests must survive them all)."""
    if isinstance(text, bytes):
        # json.loads would take bytes opening like UTF-16 or UTF-32 for those encodings; the
        # BOM is dropped after decoding, so that an error's offsets count every byte
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise MeldmindError(f"malformed {what}: not UTF-8 JSON ({_utf8_fault(error)})"
                                ) from None
    # a BOM also opens text that a file read as "utf-8", not "utf-8-sig", hands over
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise MeldmindError(f"no {what} given: the input is empty")
    try:
        return json.loads(text, parse_int=_json_int, parse_constant=_no_constant,
                          object_pairs_hook=_object_of_unique_keys)
    except (ValueError, RecursionError) as error:   # the first two are ValueErrors
        raise MeldmindError(f"malformed {what}: {error}") from None


def _object_of_unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys all differ: where a key repeats, parsers disagree on which
    value counts, so the sender has a bug to hear about."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {json.dumps(key, ensure_ascii=False)} appears twice "
                                 f"in one object")
            seen.add(key)
    return obj


def _no_constant(name: str) -> Any:
    """Python's reader takes NaN and Infinity, which JSON has not: other readers refuse them."""
    raise ValueError(f"{name} is not JSON")


def _utf8_fault(error: UnicodeDecodeError) -> str:
    """Where and why bytes are not UTF-8: the offset of the sequence that fails, its bytes and
    the decoder's reason. The decoder's range ends before a byte that fails to continue the
    sequence, so that byte is shown too."""
    end = error.end + (error.reason == "invalid continuation byte")
    sequence = " ".join(f"0x{byte:02x}" for byte in error.object[error.start:end])
    return f"at byte offset {error.start}, {sequence}: {error.reason}"


def _json_int(digits: str) -> int:
    """A JSON integer; beyond the digits Python reads, a refusal in plain words (Python's own
    message advises a Python call, sys.set_int_max_str_digits)."""
    # Pythons before 3.10.7 have no limit, nor the function
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    count = len(digits.lstrip("-"))
    if limit and count > limit:
        raise ValueError(f"a number in the JSON has too many digits ({count}; meldmind reads "
                         f"at most {limit})")
    return int(digits)


def refuse_arrays(data: Any, what: str, error: type[MeldmindError] = MeldmindError) -> None:
    """A numpy array anywhere in ``data``, a caller's mapping read before its fields are checked,
    as ``error`` naming where: the checks compare values, which an array would turn into
    an array of answers (numpy's "truth value ... is ambiguous")."""
    pending: list[tuple[Any, str]] = [(data, "")]
    seen: set[int] = set()      # a container that holds itself is walked once
    while pending:
        value, place = pending.pop()
        if isinstance(value, np.ndarray):
            raise error(f"{what}{place}: a numpy array, where JSON data is expected (its "
                        f".tolist() is)")
        if isinstance(value, (Mapping, list, tuple)) and id(value) not in seen:
            seen.add(id(value))
            items = value.items() if isinstance(value, Mapping) else enumerate(value)
            pending.extend((item, f"{place}[{key!r}]") for key, item in items)


def check_version(found: Any, version: int, what: str) -> None:
    """Raises ``MeldmindError`` unless the ``version`` field ``found`` in a JSON document is
    ``version``: ``true`` is no version, though Python has ``True == 1``."""
    if isinstance(found, bool) or found != version:
        raise MeldmindError(f"unsupported {what} version {shown(found)}; this meldmind reads "
                            f"version {version}")


MOST_SHOWN = 200   # characters of a client's value a message repeats: servers send messages back


def clipped(text: str) -> str:
    """``text``, or its first ``MOST_SHOWN`` characters and its length when it is longer.

    >>> clipped("A" * 1000)[-30:]
    'AAAAAAAA... (1,000 characters)'
    """
    return text if len(text) <= MOST_SHOWN else f"{text[:MOST_SHOWN]}... ({len(text):,} characters)"


def signed(value: float, digits: int) -> str:
    """``value`` with its sign and ``digits`` decimals, for a table or a sentence: a value
    that rounds to zero reads +0.0, never -0.0.

    >>> signed(2.345, 1), signed(-0.004, 2), signed(-0.3, 0), signed(-0.006, 2)
    ('+2.3', '+0.00', '+0', '-0.01')
    """
    text = f"{value:+.{digits}f}"
    return "+" + text[1:] if float(text) == 0 else text


def shown(value: Any) -> str:
    """``value`` for an error message: JSON data as JSON (``null``, ``true``, ``{"0": ["8D"]}``),
    as a JSON client wrote it, anything else as its ``repr`` (``(1, 2)``, ``nan``); also an
    integer too long for Python to write in decimal (over 4300 digits), which both refuse with
    ``ValueError``, and a value nested too deeply to write; ``clipped``.

    >>> shown(None), shown([True, "8D"]), shown({1: 2}), shown(float("nan"))
    ('null', '[true, "8D"]', '{1: 2}', 'nan')
    """
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        if json.loads(text) == value:   # not a tuple, or a mapping with keys JSON would rewrite
            return clipped(text)
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return clipped(repr(value))
    except RecursionError:
        return f"a {type(value).__name__} nested too deeply to write"
    except ValueError:
        if isinstance(value, int):
            return f"an integer of {value.bit_length()} bits"
        return f"a {type(value).__name__} holding an integer too long to write"


JSON_TYPES = ((bool, "boolean"), (numbers.Number, "number"), (str, "string"),
              (Mapping, "object"), ((list, tuple), "array"))


def json_type(value: Any) -> str:
    """The JSON name of ``value``'s type (``null``, ``array``, ...), for a message saying what a
    value should have been; Python's name for a type JSON does not have."""
    if value is None:
        return "null"
    return next((name for kind, name in JSON_TYPES if isinstance(value, kind)),
                type(value).__name__)
