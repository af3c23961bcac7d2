"""Cosmos DB's value model: ``undefined``, type order, equality and sort keys.

Cosmos SQL has a value JSON lacks, *undefined* (a missing property, an out-of-range
index, an operation on the wrong types). It never reaches the wire: an undefined
``SELECT VALUE`` row is dropped and an undefined property is left out of an object.
Everything ordered (ORDER BY, MIN/MAX, DISTINCT, range index seeks) uses one total order
across types: undefined < null < false < true < numbers < strings < arrays < objects.
``sort_key`` turns a value into a Python tuple that sorts exactly that way, so the
executor can bisect, sort and de-duplicate with plain tuple comparison.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Final


class _Undefined:
    """The single ``undefined`` value (falsy, never equal to anything but itself)."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final = _Undefined()

# Type ranks of the cross-type order.
RANK_UNDEFINED: Final = 0
RANK_NULL: Final = 1
RANK_BOOL: Final = 2
RANK_NUMBER: Final = 3
RANK_STRING: Final = 4
RANK_ARRAY: Final = 5
RANK_OBJECT: Final = 6


def rank(value: Any) -> int:
    if value is UNDEFINED:
        return RANK_UNDEFINED
    if value is None:
        return RANK_NULL
    if isinstance(value, bool):
        return RANK_BOOL
    if isinstance(value, int | float):
        return RANK_NUMBER
    if isinstance(value, str):
        return RANK_STRING
    if isinstance(value, list | tuple):
        return RANK_ARRAY
    return RANK_OBJECT


SortKey = tuple[Any, ...]


def sort_key(value: Any) -> SortKey:
    """A tuple that orders like Cosmos orders values (numbers 1 and 1.0 are one key)."""
    if value is UNDEFINED:
        return (RANK_UNDEFINED,)
    if value is None:
        return (RANK_NULL,)
    if value is True:
        return (RANK_BOOL, 1)
    if value is False:
        return (RANK_BOOL, 0)
    if isinstance(value, int | float):
        return (RANK_NUMBER, value)
    if isinstance(value, str):
        return (RANK_STRING, value)
    if isinstance(value, list | tuple):
        return (RANK_ARRAY, tuple(sort_key(v) for v in value))
    return (RANK_OBJECT, tuple(sorted((k, sort_key(v)) for k, v in value.items())))


def rank_floor(value_rank: int) -> SortKey:
    """The smallest key of a rank (every key of that rank is >= it)."""
    return (value_rank,)


def rank_ceiling(value_rank: int) -> SortKey:
    """A key above every key of a rank and below every key of the next one."""
    return (value_rank + 1,)


@functools.total_ordering
class Descending:
    """Wraps a sort key so that it sorts in reverse (ORDER BY … DESC)."""

    __slots__ = ("key",)

    def __init__(self, key: SortKey) -> None:
        self.key = key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and self.key == other.key

    def __lt__(self, other: Descending) -> bool:
        return other.key < self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Descending({self.key!r})"


def same_value(a: Any, b: Any) -> bool:
    """Cosmos equality of two defined values of the same type (deep for arrays/objects)."""
    return sort_key(a) == sort_key(b)


def equals(a: Any, b: Any) -> Any:
    """``a = b``: undefined when either side is undefined or the types differ."""
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    ra, rb = rank(a), rank(b)
    if ra != rb:
        return UNDEFINED
    return same_value(a, b)


def compare(a: Any, b: Any) -> int | None:
    """Three-way comparison for ``< > <= >=``; None (undefined) across types or for
    arrays and objects, which have no ordering comparison in Cosmos SQL."""
    if a is UNDEFINED or b is UNDEFINED:
        return None
    ra = rank(a)
    if ra != rank(b) or ra >= RANK_ARRAY:
        return None
    ka, kb = sort_key(a), sort_key(b)
    return (ka > kb) - (ka < kb)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def to_json_number(value: float | int) -> float | int:
    """Cosmos numbers are doubles but integral results print without a fraction."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def finite(value: float) -> Any:
    """Non-finite arithmetic results are undefined in Cosmos SQL."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return UNDEFINED
    return value


def strip_undefined(value: Any) -> Any:
    """A value ready for JSON: undefined members of objects and arrays are left out."""
    if isinstance(value, dict):
        return {k: strip_undefined(v) for k, v in value.items() if v is not UNDEFINED}
    if isinstance(value, list):
        return [strip_undefined(v) for v in value if v is not UNDEFINED]
    if isinstance(value, float):
        return to_json_number(value)
    return value


def key_to_json(value: Any) -> Any:
    """Encode a value (possibly undefined) for a continuation token."""
    if value is UNDEFINED:
        return {"u": 1}
    return {"v": value}


def key_from_json(encoded: Any) -> Any:
    if not isinstance(encoded, dict):
        raise ValueError("malformed value in continuation")
    if "u" in encoded:
        return UNDEFINED
    return encoded["v"]
