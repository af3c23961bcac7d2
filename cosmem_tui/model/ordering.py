"""How Cosmos DB orders values of mixed types, and when two values are surely apart.

Cosmos orders undefined < null < boolean < number < string < array < object.
``order_key`` reproduces that as a sortable tuple (the local workspace stores it in
its derived columns). ``surely_after`` is the cautious comparison the turn window
needs: it answers True only when *every* store sorts one value after the other.
"""

from __future__ import annotations

from cosmem_tui.model.entities import JsonValue
from cosmem_tui.model.ttl import MISSING

RANK_UNDEFINED, RANK_NULL, RANK_BOOL, RANK_NUMBER, RANK_STRING, RANK_ARRAY, RANK_OBJECT = range(7)


def order_key(value: JsonValue) -> tuple[int, int | float | str]:
    """A sort key in Cosmos type order; arrays and objects tie with their own kind."""
    if value is MISSING:
        return RANK_UNDEFINED, 0
    if value is None:
        return RANK_NULL, 0
    if isinstance(value, bool):
        return RANK_BOOL, int(value)
    if isinstance(value, int | float):
        return RANK_NUMBER, value
    if isinstance(value, str):
        return RANK_STRING, value
    if isinstance(value, list):
        return RANK_ARRAY, 0
    return RANK_OBJECT, 0


def _double(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:  # an integer beyond the double range: JSON parsers saturate
        return float("inf") if value > 0 else float("-inf")


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def surely_after(later: JsonValue, earlier: JsonValue) -> bool:
    """True only when any store sorts ``later`` strictly after ``earlier``.

    Where stores may disagree the answer is False (a tie), never a guess: Cosmos
    compares numbers as 64-bit doubles (integers past 2**53 can tie), strings by
    UTF-16 code units in the service and its JavaScript peer but by code points in
    SQLite, and gives arrays, objects, undefined and null no order among themselves.
    NaN, which JSON cannot hold but a Python import can, ties with everything.
    """
    rank_later, rank_earlier = order_key(later)[0], order_key(earlier)[0]
    if rank_later != rank_earlier:
        return rank_later > rank_earlier
    if rank_later == RANK_BOOL:
        return later is True and earlier is False
    if rank_later == RANK_NUMBER:
        assert isinstance(later, int | float) and isinstance(earlier, int | float)
        return _double(later) > _double(earlier)
    if rank_later == RANK_STRING:
        assert isinstance(later, str) and isinstance(earlier, str)
        return later > earlier and _utf16(later) > _utf16(earlier)
    return False
