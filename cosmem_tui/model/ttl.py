"""Cosmos DB time-to-live rules, as pure functions.

The rules (Microsoft Learn, "Time to Live in Azure Cosmos DB"):

* Container ``DefaultTimeToLive`` absent/null: TTL is off. Nothing expires and an
  item's own ``ttl`` is ignored.
* Container ``-1``: TTL on, no default. Items without ``ttl`` never expire; an
  item with ``ttl: n`` expires ``n`` seconds after its last write.
* Container ``n > 0``: items expire ``n`` seconds after their last write unless
  they carry their own ``ttl`` (``-1`` = never, ``m`` = m seconds).
* The clock is the system property ``_ts`` (last write, epoch seconds), never a
  created-at field: any write resets the countdown.
* Valid item values are ``-1`` and integers 1..2,147,483,647. ``ttl: null`` and
  ``ttl: 0`` are not supported by the service; we flag them and treat the item as
  if it had no ``ttl`` (the container default applies). The same goes for every
  other value: a string (``"3600"``), a fraction, a boolean, a negative number
  other than -1, a number above the maximum, an array or an object.

An item is expired (and invisible to queries) once ``now >= _ts + effective``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class _Missing:
    """Marks a property that is absent from the item (distinct from JSON null)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()
MAX_TTL: Final = 2_147_483_647


class TtlState(StrEnum):
    OFF = "off"  # container TTL off: nothing expires
    NEVER = "never"  # TTL on, effective -1
    EXPIRES = "expires"  # a positive effective ttl


class TtlClass(StrEnum):
    """Why an item lives as long as it does: the one classification every surface shows.

    * ``short-term``: its own valid positive ttl; it expires.
    * ``long-term``: its own ``ttl: -1``; it never expires.
    * ``default``: no ttl of its own, so the container's DefaultTimeToLive decides
      (expires after it, or never when it is -1 or TTL is off).
    * ``ignored``: it carries a ttl, valid or not, that does nothing: TTL is off on
      the container.
    * ``invalid``: its ttl is one the service does not accept (``null``, ``0``, a
      string, a fraction, a boolean, a negative number other than -1, above the
      maximum, an array, an object): treated as absent, the default applies.
    """

    SHORT = "short-term"
    LONG = "long-term"
    DEFAULT = "default"
    IGNORED = "ignored"
    INVALID = "invalid"

    @property
    def label(self) -> str:
        """The class in words, as the lifecycle view, the detail and the CLI write it."""
        return _CLASS_LABELS[self]


_CLASS_LABELS: Final = {
    TtlClass.SHORT: "short-term",
    TtlClass.LONG: "long-term",
    TtlClass.DEFAULT: "inherits container default",
    TtlClass.IGNORED: "ignored — container TTL off",
    TtlClass.INVALID: "invalid",
}


def classify(raw: object, container_default: int | None) -> TtlClass:
    """The class of an item whose ttl property is ``raw`` (MISSING when absent)."""
    if raw is MISSING:
        return TtlClass.DEFAULT
    if container_default is None:
        return TtlClass.IGNORED  # any value, valid or not: TTL off makes it do nothing
    own = valid_item_ttl(raw)
    if own is None:
        return TtlClass.INVALID
    return TtlClass.LONG if own == -1 else TtlClass.SHORT


def container_ttl_words(default_ttl: int | None) -> str:
    """The container's TTL mode in words, as the portal says it (Off / On / On, default)."""
    if default_ttl is None:
        return "TTL off: nothing expires and item ttls are ignored"
    if default_ttl == -1:
        return "TTL on, no default: only items with their own ttl expire"
    return (
        f"TTL on, default {default_ttl:,} s ({format_duration(default_ttl)}): items without "
        "their own ttl expire that long after their last write"
    )


class InvalidContainerTtl(ValueError):
    pass


def check_container_default(default_ttl: int | None) -> int | None:
    """Validate a container DefaultTimeToLive (None = off, -1, or 1..MAX_TTL)."""
    if default_ttl is None:
        return None
    if isinstance(default_ttl, bool) or not isinstance(default_ttl, int):
        raise InvalidContainerTtl(f"DefaultTimeToLive must be an integer, got {default_ttl!r}")
    if default_ttl == -1 or 1 <= default_ttl <= MAX_TTL:
        return default_ttl
    raise InvalidContainerTtl(
        f"DefaultTimeToLive must be -1 or 1..{MAX_TTL} (or absent for off), got {default_ttl}"
    )


def valid_item_ttl(raw: object) -> int | None:
    """The item's ttl if it is one the service accepts, else None."""
    if isinstance(raw, bool) or not isinstance(raw, int):
        return None
    if raw == -1 or 1 <= raw <= MAX_TTL:
        return raw
    return None


def ttl_invalid_reason(raw: object) -> str | None:
    """Why an item's ttl is not one the service accepts (to follow "ttl X is …"), or None."""
    if raw is MISSING or valid_item_ttl(raw) is not None:
        return None
    if raw is None:
        return "not supported"
    if isinstance(raw, bool):  # before int: JSON true is not the number 1
        return "a boolean, not an integer"
    if isinstance(raw, str):
        return "a string, not an integer"
    if isinstance(raw, int):
        if raw == 0:
            return "not valid (use -1 for never, or a positive number of seconds)"
        if raw < 0:
            return "negative (only -1, for never, is valid)"
        return f"above the maximum {MAX_TTL}"
    if isinstance(raw, float):  # JSON 3600.0 decodes to a float, 1.5 and 1e400 too
        return "a decimal, not an integer" if raw.is_integer() else "not an integer"
    if isinstance(raw, list):
        return "an array, not an integer"
    if isinstance(raw, dict):
        return "an object, not an integer"
    return "not an integer"


def ttl_json(raw: object, limit: int | None = None) -> str:
    """An item's ttl written as in its JSON (``"3600"`` keeps its quotes), "—" when absent.

    Shown raw, the string "3600" reads exactly like the valid number 3600. ASCII-only
    (``ensure_ascii``), so a hostile value can carry no control or bidi character.
    """
    if raw is MISSING:
        return "—"
    try:
        text = json.dumps(raw, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):  # not decoded JSON: describe, not crash
        text = ascii(raw)
    if limit is not None and len(text) > limit:
        text = text[: max(0, limit - 1)] + "…"
    return text


def ttl_problem(raw: object) -> str | None:
    """A one-line description of what is wrong with an item's ttl, or None."""
    reason = ttl_invalid_reason(raw)
    if reason is None:
        return None
    return f"ttl: {ttl_json(raw, 40)} is {reason}: ignored, the container default applies"


@dataclass(frozen=True, slots=True)
class ItemTtl:
    """The TTL situation of one item, resolved against its container."""

    raw: object  # the item's ``ttl`` property as stored, or MISSING
    container_default: int | None
    last_write: int  # _ts
    state: TtlState
    effective: int | None  # seconds after _ts; None when the item never expires
    expires_at: int | None  # epoch seconds; None when the item never expires
    problems: tuple[str, ...] = ()

    @property
    def ttl_class(self) -> TtlClass:
        return classify(self.raw, self.container_default)

    @property
    def expires(self) -> bool:
        """Does the item go away by itself (whatever its class)?"""
        return self.state is TtlState.EXPIRES

    def when(self, now: float) -> str:
        """When it goes, compactly: ``3h05m``, ``expired``, ``never``, ``ttl off``."""
        if self.state is TtlState.OFF:
            return "ttl off"
        if self.state is TtlState.NEVER:
            return "never"
        remaining = self.remaining(now) or 0.0
        return "expired" if remaining <= 0 else format_duration(remaining)

    def source(self) -> str:
        """Where its lifetime comes from, with the raw ttl as JSON (``"3600"`` keeps quotes)."""
        shown = self.raw_display
        cls = self.ttl_class
        if cls is TtlClass.SHORT:
            return f"its own ttl {shown}"
        if cls is TtlClass.LONG:
            return "its own ttl -1"
        if cls is TtlClass.IGNORED:
            reason = self.invalid_reason
            flaw = f", which is also {reason}" if reason else ""
            return f"ttl {shown} does nothing: TTL is off on the container{flaw}"
        default = _default_words(self.container_default)
        if cls is TtlClass.INVALID:
            return f"ttl {shown} is {self.invalid_reason}: ignored, {default} applies"
        return f"no ttl of its own: {default} applies"

    def describe(self, now: float) -> str:
        """One line: the class, then when it goes and why (detail, lifecycle view, CLI)."""
        when = self.when(now)
        if when in ("ttl off", "never"):
            fate = "never expires"
        elif when == "expired":
            fate = "expired (hidden from queries)"
        else:
            fate = f"expires in {when}"
        return f"{self.ttl_class.label}: {fate} — {self.source()}"

    def remaining(self, now: float) -> float | None:
        """Seconds until expiry (negative once expired), None if it never expires."""
        if self.expires_at is None:
            return None
        return self.expires_at - now

    def is_expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at

    @property
    def raw_display(self) -> str:
        """The item's own ttl as JSON ("—" when absent): a string keeps its quotes."""
        return ttl_json(self.raw)

    @property
    def own(self) -> int | None:
        """The item's own ttl when the service accepts it (it then overrides the default)."""
        return valid_item_ttl(self.raw)

    @property
    def invalid_reason(self) -> str | None:
        """Why the item's own ttl is ignored, None when it is absent or valid."""
        return ttl_invalid_reason(self.raw)


def _default_words(default_ttl: int | None) -> str:
    if default_ttl is None:
        return "the container's TTL (off)"
    if default_ttl == -1:
        return "the container default -1 (never)"
    return f"the container default {default_ttl:,} s"


def resolve_ttl(raw: object, last_write: int, container_default: int | None) -> ItemTtl:
    """Apply the Cosmos TTL rules to one item (``raw`` is its ttl or MISSING)."""
    problems: list[str] = []
    problem = ttl_problem(raw)
    if problem:
        problems.append(problem)
    if container_default is None:
        if raw is not MISSING:
            problems.append("item ttl is ignored: TTL is off on the container")
        return ItemTtl(raw, None, last_write, TtlState.OFF, None, None, tuple(problems))
    item = valid_item_ttl(raw)
    effective = item if item is not None else container_default
    if effective == -1:
        return ItemTtl(
            raw, container_default, last_write, TtlState.NEVER, None, None, tuple(problems)
        )
    return ItemTtl(
        raw,
        container_default,
        last_write,
        TtlState.EXPIRES,
        effective,
        last_write + effective,
        tuple(problems),
    )


def expires_at(raw: object, last_write: int, container_default: int | None) -> int | None:
    """Epoch second at which the item stops being visible, or None for never."""
    return resolve_ttl(raw, last_write, container_default).expires_at


_LONGEST: Final = 10_000 * 366 * 86_400


def format_duration(seconds: float) -> str:
    """Compact human duration: 45s, 12m, 3h05m, 2d04h, 400d.

    "out of range" for NaN, an infinity or more than the 10,000 years of the calendar
    (a time off it, minus now: a 5,000-digit number would not even print)."""
    if not (isinstance(seconds, int) or math.isfinite(seconds)) or abs(seconds) > _LONGEST:
        return "out of range"
    s = int(seconds)
    if s < 0:
        return "-" + format_duration(-s)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        h, m = divmod(s // 60, 60)
        return f"{h}h{m:02d}m"
    d, h = divmod(s // 3600, 24)
    if d < 100:
        return f"{d}d{h:02d}h"
    return f"{d}d"
