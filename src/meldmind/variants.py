"""The variants meldmind knows and the options the hand analysis accepts for each."""
from __future__ import annotations

import numbers
import secrets
import sys
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from .errors import OptionError, json_type, refuse_arrays, shown


@dataclass(frozen=True)
class Variant:
    name: str
    kernel_id: int      # the variant number the Cython kernels use
    deck: str           # "52", "52+jokers" or "kirolo"
    options: Mapping[str, tuple[type, Any, Any]]  # name -> (type, default, allowed check)


def is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))     # numpy's too, as with its integers


FLOAT_EXACT = 2 ** 53     # every integer up to this is a float exactly; beyond, not all


def is_integer(value: Any) -> bool:
    """An integral number, numpy's too (numbers.Integral), that is not a bool: Python has
    ``True == 1``, but true is no count, seed or id."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_json_integer(value: Any) -> bool:
    """A JSON integer: ``is_integer``, or a number without a fraction, since JSON, and JSON
    Schema's ``"integer"``, take ``1.0`` for ``1``; but not a float beyond 2**53, which may
    already have rounded the integer it was written from."""
    return is_integer(value) or (isinstance(value, float) and value.is_integer()
                                 and abs(value) <= FLOAT_EXACT)


def json_numbers(spec: Mapping[str, tuple[type, Any, Any]], options: Any) -> Any:
    """``options`` as read from JSON, where an integer may be written ``50.0`` (JSON Schema's
    ``integer``): such a value of an integer option of ``spec`` becomes that int, the rest stays
    as given for ``checked_options`` to check. Python callers give ints.

    >>> json_numbers({"target_score": (int, 100, None)}, {"target_score": 50.0, "x": 1.0})
    {'target_score': 50, 'x': 1.0}
    """
    if not isinstance(options, Mapping):
        return options
    return {name: int(value) if name in spec and spec[name][0] is int and is_json_integer(value)
            else value for name, value in options.items()}


def int_range(lo: int, hi: int) -> Callable[[Any], bool]:
    """A check that a value is an integer from ``lo`` to ``hi`` (its docstring says so)."""
    def check(value: Any) -> bool:
        return is_integer(value) and lo <= value <= hi
    check.__doc__ = f"an integer from {lo} to {hi}"
    return check


is_positive_int = int_range(1, sys.maxsize)   # counts: deals, processes, iterations


is_bool.__doc__ = "true or false"

SEED_LOW, SEED_HIGH = -(1 << 63), (1 << 63) - 1    # the kernels take seeds as int64


def seed_value(seed: Any) -> int:
    """``seed`` checked and as a Python int, or a fresh random seed for None.

    >>> seed_value(7), 0 <= seed_value(None) <= SEED_HIGH
    (7, True)
    >>> seed_value(2 ** 63)
    Traceback (most recent call last):
    ...
    meldmind.errors.OptionError: seed must be an integer from -2**63 to 2**63 - 1, not 9223372036854775808
    """
    if seed is None:
        return secrets.randbits(62)
    if not is_integer(seed) or not SEED_LOW <= seed <= SEED_HIGH:
        raise OptionError(f"seed must be an integer from -2**63 to 2**63 - 1, not {shown(seed)}")
    return int(seed)

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("gin", 0, "52", {}),
        Variant("cardverse", 1, "52", {"ace_high": (bool, False, is_bool)}),
        Variant("rami", 2, "52+jokers", {
            "num_players": (int, 2, int_range(2, 4)),
            "opening_threshold": (int, None, int_range(1, 500)),
        }),
        Variant("kirolo", 3, "kirolo", {"max_jokers_per_series": (int, 1, int_range(1, 2))}),
    )
}


def variant_named(variant: Variant | str) -> Variant:
    if isinstance(variant, Variant):
        return variant
    try:
        return VARIANTS[variant]
    except (KeyError, TypeError):
        raise OptionError(
            f"unknown variant {shown(variant)}; expected one of {', '.join(VARIANTS)}"
        ) from None


def options_dict(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy of user options (None for none); anything but a mapping raises ``OptionError``."""
    if options is not None and not isinstance(options, Mapping):
        raise OptionError(f"options must be a mapping (a JSON object), not {json_type(options)}")
    refuse_arrays(options, "options", OptionError)
    return dict(options or {})


def checked_options(owner: str, spec: Mapping[str, tuple[type, Any, Any]],
                    options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``options`` (a mapping or None) checked against ``spec`` (name -> (type, default,
    allowed check)) and completed with its defaults: a name that is not a string or not in
    ``spec``, or a value its check refuses, raises ``OptionError`` naming ``owner``. Values
    given are stored as the spec's type: numpy's integers as Python ints, which JSON can write.

    >>> checked_options("cardverse", {"ace_high": (bool, False, is_bool)}, {1: 2, "x": 3})
    Traceback (most recent call last):
    ...
    meldmind.errors.OptionError: option names are strings, not 1
    """
    options = options_dict(options)
    for name in options:
        if not isinstance(name, str):   # and names of mixed types cannot be sorted below
            raise OptionError(f"option names are strings, not {shown(name)}")
    unknown = sorted(set(options) - set(spec))
    if unknown:
        raise OptionError(
            f"unknown option {unknown[0]!r} for {owner}; known: {', '.join(spec) or 'none'}"
        )
    resolved = {}
    for name, (kind, default, check) in spec.items():
        value = options.get(name, default)
        if name in options:
            if not check(value):
                raise OptionError(f"option {name!r} of {owner} must be {check.__doc__}, not {shown(value)}")
            value = kind(value)
        resolved[name] = value
    return resolved


def resolve_options(variant: Variant | str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The variant's analysis options with defaults filled in; unknown or bad values raise."""
    v = variant_named(variant)
    resolved = checked_options(v.name, v.options, options)
    if v.name == "rami" and resolved["opening_threshold"] is None:
        # RULES.md §2.2: 30 points, 50 with two players
        resolved["opening_threshold"] = 50 if resolved["num_players"] == 2 else 30
    return resolved
