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
    """Memory class as the console reports it: does this item go away by itself?"""

    SHORT = "short"
    LONG = "long"


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
        return TtlClass.SHORT if self.state is TtlState.EXPIRES else TtlClass.LONG

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


def format_duration(seconds: float) -> str:
    """Compact human duration: 45s, 12m, 3h05m, 2d04h, 400d."""
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
