"""The lifecycle use case: what expires, when, and why, for a tenant, a thread or the container.

Shared by the ``:ttl`` view and ``cosmem ttl``. Every number comes from the store's
aggregate queries (``MemoryStore.ttl_summary``), scoped as narrowly as the question:
a thread is one partition, a tenant a key prefix. The whole container is a fan-out
over every physical partition, so it is never run on the way to something else: the
view asks first (``ask_container``) and the CLI runs it only when no tenant is named.

Beside the counts come short lists: the items that expire soonest (read from the
smallest forecast horizon that holds enough of them, so what is read is known from
the counts first), the long-term records (facts, summaries), the items whose lifetime
drifts from what the schema expects for their kind, and the threads idle longer than
the episode gap (a resume there starts a new episode).

A report costs a count per TTL class and horizon, each reading the whole scope, so it
is kept: asked again within ``REPORT_REUSE_S`` (the view reopening a tenant) the same
report comes back, marked ``reused``, with the instant it was counted, at no cost;
``fresh`` counts again. The question before the container's fan-out says what it
will cost from the store's estimate (``ttl_summary_estimate``: the size counted, the
rest at what this session has seen a read cost).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.errors import UnknownTenant, UnknownThread
from cosmem_tui.model import ContainerProperties, Thread
from cosmem_tui.model.lifecycle import (
    DEFAULT_IDLE_GAP_S,
    FORECAST_HORIZONS,
    ScopeLevel,
    TtlItems,
    TtlScope,
    TtlSelection,
    TtlSummary,
)
from cosmem_tui.model.ttl import MAX_TTL
from cosmem_tui.sources.store import MemoryStore

SOONEST = 20  # the soonest-expiring items listed
LISTED = 20  # long-term and drifting items listed
REPORT_REUSE_S = 300  # a report counted this recently is shown again, not counted again


@dataclass(frozen=True, slots=True)
class IdleThread:
    """A thread with no write for longer than the idle gap: a resume starts a new episode."""

    thread: Thread
    idle_s: int


@dataclass(frozen=True, slots=True)
class LifecycleReport:
    """What the lifecycle view and ``cosmem ttl`` show for one scope, at one instant."""

    scope: TtlScope
    container: ContainerProperties
    now: int
    idle_gap_s: int
    summary: TtlSummary | None  # None: the whole container, not asked for yet
    soonest: TtlItems | None = None
    long_term: TtlItems | None = None
    drift: TtlItems | None = None
    idle: tuple[IdleThread, ...] = ()
    threads: int | None = None  # a tenant's threads (the idle ones are among them)
    soonest_within: int | None = None  # the horizon the soonest were read from (seconds)
    reused: bool = False  # counted earlier (at ``now``) and shown again at no cost
    # The schema's long-term kinds (facts, summaries): what ``long_term`` lists, which is
    # not the long-term TTL class (ttl -1) the summary counts.
    long_term_kinds: tuple[str, ...] = ()

    @property
    def has_lists(self) -> bool:
        """Were the short lists asked for (a tenant or thread, not the counts alone)?"""
        return self.long_term is not None

    def age_s(self, now: float) -> float:
        """How old the counts are (seconds since ``now``)."""
        return max(0.0, now - self.now)


def soonest_horizon(summary: TtlSummary, wanted: int) -> int | None:
    """The smallest horizon that holds ``wanted`` expiring items (None: nothing expires).

    Reading that horizon whole is what it takes to find the soonest: no query orders by
    ``_ts + ttl``. Its count is known, so the read is too."""
    if summary.expiring == 0:
        return None
    for horizon in FORECAST_HORIZONS:
        if summary.within(horizon) >= min(wanted, summary.expiring):
            return horizon
    return MAX_TTL  # fewer than wanted within the month: every item that expires


class LifecycleService:
    def __init__(
        self, store: MemoryStore, browse: BrowseService, *, idle_gap_s: int = DEFAULT_IDLE_GAP_S
    ) -> None:
        if idle_gap_s < 1:
            raise ValueError(f"the idle gap must be a positive number of seconds, not {idle_gap_s}")
        self.store = store
        self.browse = browse
        self.clock = browse.clock
        self.idle_gap_s = idle_gap_s
        # Reports by what they answered (scope, with lists, idle gap), while they are fresh.
        self._reports: dict[tuple[TtlScope, bool, int], LifecycleReport] = {}

    @property
    def tenant_label(self) -> str:
        return self.store.schema.tenant_label

    def now(self) -> int:
        return int(self.clock.now())

    def reusable(self, scope: TtlScope, *, lists: bool = True) -> LifecycleReport | None:
        """The report of ``scope`` counted within ``REPORT_REUSE_S`` (None: none), marked
        ``reused``: showing it again sends nothing."""
        kept = self._reports.get((scope, lists, self.idle_gap_s))
        if kept is None or kept.age_s(self.now()) > REPORT_REUSE_S:
            return None
        return replace(kept, reused=True)

    def _keep(self, report: LifecycleReport, lists: bool) -> LifecycleReport:
        self._reports[(report.scope, lists, report.idle_gap_s)] = report
        return report

    async def report(
        self, scope: TtlScope, *, lists: bool = True, fresh: bool = False
    ) -> LifecycleReport:
        """Counts, forecast and (``lists``) the short lists of a tenant or a thread; for
        the container only what costs nothing (its TTL mode, or its counts if they were
        asked for recently): ``container_report`` asks. A report counted recently comes
        back as it was (``reused``) unless ``fresh``."""
        if scope.level is ScopeLevel.CONTAINER:
            kept = self.reusable(scope, lists=False)
            if kept is not None:
                return kept
            container = await self.browse.container()
            kinds = self._kinds()
            return LifecycleReport(
                scope, container, self.now(), self.idle_gap_s, None, long_term_kinds=kinds
            )
        if not fresh and (kept := self.reusable(scope, lists=lists)) is not None:
            return kept
        return self._keep(await self._count(scope, lists), lists)

    async def _count(self, scope: TtlScope, lists: bool) -> LifecycleReport:
        now = self.now()
        container = await self.browse.container()
        summary = await self.store.ttl_summary(scope, now)
        kinds = self._kinds()
        report = LifecycleReport(
            scope, container, now, self.idle_gap_s, summary, long_term_kinds=kinds
        )
        if not lists:
            return report
        soonest = None
        horizon = soonest_horizon(summary, SOONEST)
        if horizon is not None:
            soonest = await self.store.ttl_items(
                scope, now, TtlSelection.EXPIRING, limit=SOONEST, within=horizon
            )
        long_term = await self.store.ttl_items(scope, now, TtlSelection.LONG_TERM, limit=LISTED)
        drift = await self.store.ttl_items(scope, now, TtlSelection.DRIFT, limit=LISTED)
        idle, threads = await self._idle(scope, summary, now)
        return LifecycleReport(
            scope,
            container,
            now,
            self.idle_gap_s,
            summary,
            soonest,
            long_term,
            drift,
            idle,
            threads,
            horizon,
            long_term_kinds=kinds,
        )

    def _kinds(self) -> tuple[str, ...]:
        return tuple(sorted(self.store.schema.long_term_kinds))

    async def _idle(
        self, scope: TtlScope, summary: TtlSummary, now: int
    ) -> tuple[tuple[IdleThread, ...], int | None]:
        if scope.thread is not None:
            last = summary.last_write
            if last is None or now - last <= self.idle_gap_s:
                return (), None
            thread = Thread(scope.thread, summary.total, last, summary.expiring, summary.never)
            return (IdleThread(thread, now - last),), None
        assert scope.tenant is not None
        if summary.total == 0:
            return (), 0
        try:
            threads = await self.browse.threads(scope.tenant)  # one prefix query, grouped
        except UnknownTenant:
            return (), 0  # items, but none in an addressable thread
        idle = [
            IdleThread(t, now - t.last_activity)
            for t in threads
            if t.pseudo is None  # sentinel records are not conversations
            and t.last_activity is not None
            and now - t.last_activity > self.idle_gap_s
        ]
        idle.sort(key=lambda i: (i.idle_s, i.thread.name))
        return tuple(idle), len(threads)

    # -- naming a scope -----------------------------------------------------------------------

    async def scope_named(self, names: list[str]) -> TtlScope:
        """The scope a person typed: nothing (the container), ``TENANT``, ``TENANT THREAD``,
        or ``THREAD`` on schemas without tenants. Names are read as browse reads them
        (``42`` the number, ``"42"`` the string); one that names nothing is an error."""
        schema = self.store.schema
        if not names:
            return TtlScope.container()
        if not schema.has_tenant_level:
            if len(names) != 1:
                raise UnknownThread(
                    f"schema {schema.name} has no {schema.tenant_label} level: name a thread"
                )
            return TtlScope.of_thread(await self.browse.resolve(None, names[0]))
        if len(names) == 2:
            return TtlScope.of_thread(await self.browse.resolve(names[0], names[1]))
        if len(names) != 1:
            raise UnknownThread(f"name a {self.tenant_label} and at most one thread")
        candidates = self.browse.key_candidates(names[0])
        if len(candidates) > 1:  # 42 may mean the string "42": only if the number has nothing
            first = await self.store.ttl_summary(TtlScope.of_tenant(candidates[0]), self.now())
            if not first.total:
                return TtlScope.of_tenant(candidates[1])
        return TtlScope.of_tenant(candidates[0])

    def check_found(self, report: LifecycleReport) -> None:
        """A tenant or thread with no visible item is a name that finds nothing."""
        summary = report.summary
        if summary is None or summary.total or report.scope.level is ScopeLevel.CONTAINER:
            return
        where = report.scope.describe(self.tenant_label)
        error = UnknownThread if report.scope.thread is not None else UnknownTenant
        raise error(f"no visible items in {where} ({self.store.label})")

    # -- the whole container: a fan-out, asked for on purpose -----------------------------------

    async def container_estimate_ru(self) -> tuple[float, int | None]:
        """About what the container-wide summary costs, and over how many partitions:
        the store counts the container's items (index-served, per partition) and
        estimates its counts from that."""
        listing = self.browse.directory.listing
        if not listing.ranges_total:
            listing = self.browse.directory.cached() or listing
        partitions = listing.ranges_total or None
        estimate = await self.store.ttl_summary_estimate(TtlScope.container(), self.now())
        return estimate, partitions

    async def ask_container(self) -> bool:
        """Ask before the fan-out (the view): what it costs against the budget."""
        estimate, partitions = await self.container_estimate_ru()
        where = f"{partitions} physical partitions" if partitions else "every physical partition"
        return await self.store.ledger.ask_first(
            "ttl-summary",
            "the whole container",
            estimate_ru=estimate,
            reason=f"a cross-partition aggregate: a fan-out over {where}",
        )

    async def container_report(self, *, fresh: bool = True) -> LifecycleReport:
        """The whole container's counts and forecast: a fan-out over every partition
        (``fresh`` False: the one counted within ``REPORT_REUSE_S``, if any)."""
        scope = TtlScope.container()
        if not fresh and (kept := self.reusable(scope, lists=False)) is not None:
            return kept
        now = self.now()
        container = await self.browse.container()
        summary = await self.store.ttl_summary(scope, now)
        report = LifecycleReport(
            scope, container, now, self.idle_gap_s, summary, long_term_kinds=self._kinds()
        )
        return self._keep(report, False)
