"""Checked reading of observation JSON fields, shared by the games' ``observation_array``.
Every failure is a ``MeldmindError`` naming the variant and the field."""
from __future__ import annotations

import difflib
import json
from functools import cache
from importlib import resources
from typing import Any, Mapping

from ..cards import parse_cards
from ..errors import MeldmindError, check_version, clipped, json_type, shown
from ..variants import is_json_integer


OBS_FORMAT = "meldmind.observation"
OBS_VERSION = 1


@cache
def schema_fields(schema: str) -> frozenset[str]:
    """The top-level fields a document of the shipped JSON Schema ``schemas/<schema>.json`` may
    hold: its properties. An observation's (``observation-<variant>``) name every field
    ``Game.observation`` writes, ``legal_moves`` and ``events`` included."""
    path = resources.files("meldmind").joinpath(f"schemas/{schema}.json")
    return frozenset(json.loads(path.read_text(encoding="utf-8"))["properties"])


def unknown_field(d: Mapping[Any, Any], fields: frozenset[str]) -> str | None:
    """The first key of ``d`` outside ``fields``, named for a message with the field it likely
    misspells (``unknown field 'Id' (did you mean 'id'?)``); None when every key is known."""
    missing = object()      # a key may be None itself
    unknown = next((key for key in d if key not in fields), missing)
    if unknown is missing:
        return None
    close = ([field for field in fields if field.lower() == unknown.lower()]
             or difflib.get_close_matches(unknown, fields, n=1)) if isinstance(unknown, str) else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown field {clipped(repr(unknown))}{hint}"


class FieldReader:
    """Subclass with ``variant`` set; the checks are classmethods so they also serve values
    that are not top-level fields (list items, nested objects)."""

    variant = ""

    def __init__(self, d: Mapping[str, Any]):
        self.d = d

    @classmethod
    def open(cls, d: Any) -> "FieldReader":
        """A reader of ``d`` after checking it is an observation of this variant and version,
        with no field its schema lacks (a misspelt ``legal_moves`` would silently go unchecked)
        and ``events``, if any, a list of texts (``suggest`` reads no more of it)."""
        if not isinstance(d, Mapping):
            raise MeldmindError(f"a {cls.variant} observation must be a JSON object, not {json_type(d)}")
        reader = cls(d)
        if reader.get("format") != OBS_FORMAT:
            raise MeldmindError(f"not a meldmind observation: expected \"format\": \"{OBS_FORMAT}\"")
        check_version(reader.get("version"), OBS_VERSION, "observation")
        if reader.get("variant") != cls.variant:
            raise MeldmindError(f"not a {cls.variant} observation: variant {shown(d.get('variant'))}")
        unknown = unknown_field(d, schema_fields(f"observation-{cls.variant}"))
        if unknown is not None:
            raise cls.fail(f"{unknown}: an observation holds only the fields of its schema, "
                           f"observation-{cls.variant}.json")
        events = d.get("events", [])
        if not isinstance(events, list):
            raise cls.fail(f"'events' must be a list of texts (the event log), not {shown(events)}")
        for i, event in enumerate(events):
            if not isinstance(event, str):
                raise cls.fail(f"'events[{i}]' must be a text, not {shown(event)}")
        return reader

    @classmethod
    def fail(cls, message: str) -> MeldmindError:
        return MeldmindError(f"{cls.variant} observation: {message}")

    def get(self, key: str) -> Any:
        if key not in self.d:
            raise self.fail(f"missing field {key!r}")
        return self.d[key]

    @classmethod
    def int_in(cls, key: str, value: Any, lo: int, hi: int) -> int:
        if not is_json_integer(value) or not lo <= value <= hi:
            raise cls.fail(f"{key!r} must be an integer from {lo} to {hi}, not {shown(value)}")
        return int(value)

    def integer(self, key: str, lo: int, hi: int) -> int:
        return self.int_in(key, self.get(key), lo, hi)

    def optional_int(self, key: str, lo: int, hi: int) -> int:
        """An integer or null (read as -1)."""
        value = self.get(key)
        return -1 if value is None else self.int_in(key, value, lo, hi)

    @classmethod
    def bool_in(cls, key: str, value: Any) -> int:
        if not isinstance(value, bool):
            raise cls.fail(f"{key!r} must be true or false, not {shown(value)}")
        return int(value)

    def flag(self, key: str) -> int:
        return self.bool_in(key, self.get(key))

    @classmethod
    def int_list(cls, key: str, value: Any, n: int, lo: int, hi: int) -> list[int]:
        if not isinstance(value, list) or len(value) != n:
            raise cls.fail(f"{key!r} must be a list of {n} integers, not {shown(value)}")
        return [cls.int_in(f"{key}[{i}]", v, lo, hi) for i, v in enumerate(value)]

    @classmethod
    def pair(cls, key: str, value: Any) -> list[Any]:
        if not isinstance(value, list) or len(value) != 2:
            raise cls.fail(f"{key!r} must be a list of 2 entries (one per seat), not {shown(value)}")
        return value

    @classmethod
    def cards(cls, key: str, value: Any) -> list[int]:
        if not isinstance(value, list):
            raise cls.fail(f"{key!r} must be a list of cards, not {shown(value)}")
        try:
            return parse_cards(cls.variant, value)
        except MeldmindError as error:
            raise cls.fail(f"{key!r}: {error}") from None

    def optional_card(self, key: str) -> int:
        """A card or null (read as -1)."""
        value = self.get(key)
        if value is None:
            return -1
        if not isinstance(value, str):
            raise self.fail(f"{key!r} must be a card or null, not {shown(value)}")
        return self.cards(key, [value])[0]
