"""The lifecycle of a container's items as plain data: scopes, TTL summaries, forecasts.

A ``TtlSummary`` is what the store's aggregate queries answer for one scope (the
container, a tenant, a thread): items by ``TtlClass`` and how many expire within each
forecast horizon, counted at one instant ``now``. ``TtlItems`` is one of the short
lists beside it (the soonest to expire, the long-term records, the items whose ttl
drifts from what the schema expects for their kind), each with its full count.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from cosmem_tui.model.entities import JsonValue, ThreadRef
from cosmem_tui.model.keys import Key
from cosmem_tui.model.ttl import MISSING, ItemTtl, TtlClass, format_duration

HOUR: Final = 3600
DAY: Final = 24 * HOUR
# The forecast: items expiring within the next hour, day, week and month (cumulative).
FORECAST_HORIZONS: Final = (HOUR, DAY, 7 * DAY, 30 * DAY)
DEFAULT_IDLE_GAP_S: Final = 1800  # AMT's EPISODE_IDLE_GAP_SECONDS: a resume starts an episode


def horizon_label(seconds: int) -> str:
    """``1h``, ``24h``, ``7d``, ``30d``: how the view, the CLI and the filter name a horizon."""
    if seconds % DAY == 0 and seconds > DAY:
        return f"{seconds // DAY}d"
    if seconds % HOUR == 0:
        return f"{seconds // HOUR}h"
    return format_duration(seconds)


class ScopeLevel(StrEnum):
    CONTAINER = "container"
    TENANT = "tenant"
    THREAD = "thread"


@dataclass(frozen=True, slots=True)
class TtlScope:
    """What a lifecycle question covers: the whole container, one tenant, or one thread."""

    tenant: Key | None = None
    thread: ThreadRef | None = None

    @classmethod
    def container(cls) -> TtlScope:
        return cls()

    @classmethod
    def of_tenant(cls, tenant: Key) -> TtlScope:
        return cls(tenant=tenant)

    @classmethod
    def of_thread(cls, ref: ThreadRef) -> TtlScope:
        return cls(tenant=ref.tenant, thread=ref)

    @property
    def level(self) -> ScopeLevel:
        if self.thread is not None:
            return ScopeLevel.THREAD
        if self.tenant is not None:
            return ScopeLevel.TENANT
        return ScopeLevel.CONTAINER

    def describe(self, tenant_label: str = "tenant") -> str:
        if self.thread is not None:
            return self.thread.describe(tenant_label)
        if self.tenant is not None:
            return f"{tenant_label} {self.tenant.text}"
        return "the whole container"


def expires_by_default(default_ttl: int | None) -> bool:
    """Do items without a valid ttl of their own expire in this container?"""
    return default_ttl is not None and default_ttl > 0


@dataclass(frozen=True, slots=True)
class ClassCount:
    """The visible items of one TTL class and how many expire by each forecast horizon."""

    ttl_class: TtlClass
    items: int
    within: tuple[int, ...]  # aligned with FORECAST_HORIZONS: expiring in (now, now+h]


@dataclass(frozen=True, slots=True)
class TtlSummary:
    """Visible items of one scope by TTL class, and how many expire within each horizon."""

    scope: TtlScope
    now: int  # the instant the counts are for (epoch seconds)
    default_ttl: int | None  # the container's DefaultTimeToLive
    rows: tuple[ClassCount, ...]  # every class, in TtlClass order
    last_write: int | None = None  # the newest _ts in the scope (None: no items)

    @classmethod
    def of(
        cls,
        scope: TtlScope,
        now: int,
        default_ttl: int | None,
        classes: dict[TtlClass, int],
        forecast: dict[TtlClass, dict[int, int]],
        last_write: int | None = None,
    ) -> TtlSummary:
        rows = tuple(
            ClassCount(
                c,
                classes.get(c, 0),
                tuple(forecast.get(c, {}).get(h, 0) for h in FORECAST_HORIZONS),
            )
            for c in TtlClass
        )
        return cls(scope, now, default_ttl, rows, last_write)

    def row(self, ttl_class: TtlClass) -> ClassCount:
        return next(r for r in self.rows if r.ttl_class is ttl_class)

    def count(self, ttl_class: TtlClass) -> int:
        return self.row(ttl_class).items

    @property
    def classes(self) -> tuple[tuple[TtlClass, int], ...]:
        return tuple((r.ttl_class, r.items) for r in self.rows)

    @property
    def forecast(self) -> tuple[tuple[int, int], ...]:
        """(horizon s, items of every class expiring in (now, now+h])."""
        return tuple(
            (h, sum(r.within[n] for r in self.rows)) for n, h in enumerate(FORECAST_HORIZONS)
        )

    def within(self, horizon: int) -> int:
        return dict(self.forecast)[horizon]

    @property
    def total(self) -> int:
        return sum(r.items for r in self.rows)

    def expiring_in(self, ttl_class: TtlClass) -> int:
        """How many items of a class will expire at some point (the rest never do)."""
        n = self.count(ttl_class)
        if ttl_class is TtlClass.SHORT:
            return n
        if ttl_class in (TtlClass.DEFAULT, TtlClass.INVALID):
            return n if expires_by_default(self.default_ttl) else 0
        return 0  # long-term, or a ttl that TTL-off ignores

    @property
    def expiring(self) -> int:
        """Items that will expire at some point."""
        return sum(self.expiring_in(c) for c in TtlClass)

    @property
    def never(self) -> int:
        """Items that never expire."""
        return self.total - self.expiring


class TtlSelection(StrEnum):
    """The short lists of the lifecycle view, each pushed to the store as one query."""

    EXPIRING = "expiring"  # expiring within a horizon, soonest first
    LONG_TERM = "long-term"  # items of the schema's long-term kinds, newest write first
    DRIFT = "drift"  # effective ttl differs from the kind's expected one, newest first


@dataclass(frozen=True, slots=True)
class LifecycleItem:
    """One item of a lifecycle list: where it is, what it is, and its TTL resolved."""

    ref: ThreadRef | None  # None when the item names no addressable thread
    item_id: str
    kind: str
    ttl: ItemTtl
    expected: int | None = None  # what the schema expects for its kind (-1: never)
    order: JsonValue = MISSING  # its order value as stored (turnIndex 7), MISSING: none
    text: str = ""  # what it says, "role: text · role: text" (raw: escape before showing)


@dataclass(frozen=True, slots=True)
class TtlItems:
    """The first ``limit`` items of a selection and how many there are in all."""

    selection: TtlSelection
    items: tuple[LifecycleItem, ...]
    count: int

    @property
    def complete(self) -> bool:
        return len(self.items) >= self.count


def lifetime(ttl: ItemTtl) -> int:
    """The effective lifetime in seconds, -1 for never (TTL off included)."""
    return ttl.effective if ttl.effective is not None else -1


def drifts(ttl: ItemTtl, expected: int | None) -> bool:
    """Does an item live other than its kind should (None: no expectation, never drifts)?"""
    return expected is not None and lifetime(ttl) != expected


def lifetime_words(seconds: int | None) -> str:
    if seconds is None:
        return "—"
    return "never" if seconds == -1 else format_duration(seconds)
