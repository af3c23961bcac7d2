"""Epoch seconds as calendar times, for any number an item can hold.

Times come from items (a ``timestamp`` field, ``_ts``, ``_ts + ttl``) and items are
attacker-controlled or simply wrong: epoch milliseconds read as seconds
(``1700000000123`` is the year 55840), ``2**63 - 1``, a 5,000-digit integer, NaN.
``datetime`` and ``time.gmtime`` raise on all of those (``ValueError``,
``OverflowError``, ``OSError``), so nothing formats a time except through here: a
number outside the calendar becomes ``None`` or an "out of range" text that keeps
the number, never an exception.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Final

# The calendar ``datetime`` can write: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z.
EARLIEST: Final = -62_135_596_800
LATEST: Final = 253_402_300_799


def in_calendar(epoch: float) -> bool:
    """Is ``epoch`` a finite number of seconds inside years 1 … 9999?"""
    if isinstance(epoch, bool) or not isinstance(epoch, int | float):
        return False
    if isinstance(epoch, float) and not math.isfinite(epoch):
        return False
    return EARLIEST <= epoch <= LATEST


def utc_datetime(epoch: float | None) -> datetime | None:
    """The UTC moment of ``epoch``, None when there is none or it is off the calendar."""
    if epoch is None or not in_calendar(epoch):
        return None
    try:
        return datetime.fromtimestamp(epoch, UTC)
    except (ValueError, OverflowError, OSError):  # the last second of 9999 plus a fraction
        return None


def raw_number(epoch: float) -> str:
    """The number as stored, shortened when huge (a 5,000-digit integer stays one line)."""
    if isinstance(epoch, float) and epoch.is_integer() and abs(epoch) < 1e18:
        epoch = int(epoch)  # epoch-s read as a float: 1700000000123, not 1700000000123.0
    try:
        text = repr(epoch)
    except ValueError:  # an integer past sys.get_int_max_str_digits()
        return "a number too long to write"
    return text if len(text) <= 24 else f"{text[:12]}…({len(text)} digits)"


def out_of_range(epoch: float) -> str:
    """What a time that cannot be written says instead: ``out of range (1700000000123)``."""
    return f"out of range ({raw_number(epoch)})"


def utc_text(epoch: float | None, pattern: str, *, none: str = "—") -> str:
    """``epoch`` written with ``strftime`` ``pattern`` in UTC; ``none`` for None, and
    ``out of range (N)`` for a number no calendar holds."""
    if epoch is None:
        return none
    moment = utc_datetime(epoch)
    if moment is None:
        return out_of_range(epoch)
    # glibc writes year 5 as "5" for %Y: pad it, as ISO-8601 does.
    return moment.strftime(pattern.replace("%Y", f"{moment.year:04d}"))


def iso_utc(epoch: float | None, *, milliseconds: bool = False) -> str | None:
    """ISO-8601 UTC (``2026-11-29T23:46:40Z``), None when absent or off the calendar.

    Records carry None for a time that cannot be written (JSON keeps its type: a time
    or null), and the item's problems say which value it was.
    """
    moment = utc_datetime(epoch)
    if moment is None:
        return None
    spec = "milliseconds" if milliseconds else "seconds"
    return moment.isoformat(timespec=spec).replace("+00:00", "Z")


def seconds_between(later: float, earlier: float) -> int | None:
    """Whole seconds from ``earlier`` to ``later``, None when either is not finite."""
    try:
        return int(later - earlier)
    except (ValueError, OverflowError):  # NaN, or infinity (a float past 1.8e308)
        return None
