"""Which tenant is hot: RU per partition key from the diagnostic logs, with its shares.

Per-key RU exists only in the logs (``PartitionKeyRUConsumption``), aggregated where the
logs live (Log Analytics KQL, or the simulator's tallies) and cut to a top-N; the
console never downloads raw log rows. This module joins the aggregations — usage per
key, usage per physical partition, 429s per key where logged, the window's 429s and
those no key is logged for, storage of the largest keys — with the provisioned
throughput from metrics, into the rows of the hot-keys table:

* ``share``: the key's RU against the container's RU in the window;
* ``partition_share`` (BUDGET): the RU served in its busiest second on its partition
  against that partition's budget (provisioned RU/s split evenly over the partitions,
  as Cosmos splits it). Served RU stops at the budget — a 429 consumes nothing and is
  not logged as RU — so it reads about 100 % where the partition is full, never more;
* the headline names the table's first row with its share of its partition ("contoso =
  63 % of RU on partition 2"), and the key that takes most of the busiest partition
  when that is another one.

RU/s is provisioned per region, so every number is one region's: the logs are read in
the region the view shows (``core/regions.py``: the write region unless another was
asked for), and the partitions' budget is that region's. The offer is the account's
(ARM): a shared database's RU/s and partitions are the database's (its other
containers spend them too), a serverless account has no budget to compare with, and a
region that cannot be told apart leaves BUDGET blank rather than compare several
regions' RU with one region's RU/s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import replace

from cosmem_tui.core.hot_keys_report import _Logs, build_report
from cosmem_tui.core.regions import RegionView, busiest, choose, seen_regions
from cosmem_tui.core.telemetry_reader import TelemetryReader, span_ending
from cosmem_tui.core.throughput import CAPACITY, NORMALIZED_BY_RANGE, RU, Container
from cosmem_tui.core.throughput import metric_plan as throughput_plan
from cosmem_tui.model import Clock, Key, Kind, RequestCharge
from cosmem_tui.model.key_usage import KeyUsageTable
from cosmem_tui.model.telemetry import (
    DEFAULT_KEYS_TOP,
    TOTAL_REQUEST_UNITS,
    AccountFacts,
    HotKeysReport,
    KeyLevel,
    LogAnswer,
    LogName,
    LogQuery,
    LogTable,
    MetricAnswer,
    Span,
    TelemetryAbout,
    Window,
)

# per request: a window of minutes would mostly hold none. The latest report of each
# key within this lookback is its size.
STORAGE_LOOKBACK_S = 24 * 3600


class HotKeysService:
    def __init__(
        self,
        reader: TelemetryReader,
        clock: Clock,
        where: Container,
        *,
        top: int = DEFAULT_KEYS_TOP,
    ) -> None:
        self.reader = reader
        self.clock = clock
        self.where = where
        self.top = top
        # The last report and the answers it was built from: while the reader hands back
        # the same answers (Azure Monitor's are kept a minute), a refresh is that report,
        # not 100,000 keys joined again — and never two such reports alive at once.
        self._last: tuple[tuple[object, ...], HotKeysReport] | None = None

    @property
    def about(self) -> TelemetryAbout:
        return self.reader.about

    async def report(
        self,
        window: Window,
        *,
        level: KeyLevel = KeyLevel.TENANT,
        tenant: Key | None = None,
        top: int | None = None,
        region: str | None = None,
    ) -> HotKeysReport:
        """``top``: keys in the table, this once (default: the service's); ``region``:
        the region to read (any spelling; None: the write region)."""
        if tenant is not None:
            level = KeyLevel.KEY
        now = self.clock.now()
        span = span_ending(now, window, whole_minutes=False)
        facts = await self.reader.account(self.where.database, self.where.container)
        view, regional = await self._region(window, now, facts, region)
        logs = await self._logs(window, span, level, tenant, top or self.top, view.key)
        capacity = await self._capacity(window, now, facts, view)
        # The answers carry their questions (window, level, tenant, top, region): the same
        # answer objects are the same question, already joined.
        answers = (
            logs.usage,
            logs.partitions,
            logs.throttles,
            logs.storage,
            logs.totals,
            *regional,
            *capacity,
            facts,
        )
        last = self._last
        if last is not None and _same_objects(last[0], answers):
            return last[1]
        self._last = None  # let the old report go before the new one is built
        # Off the event loop: joining 100,000 keys takes most of a second, and the
        # console's loop (browse asks for this report on start) must go on drawing.
        report = await asyncio.to_thread(
            build_report,
            window,
            span,
            self.about,
            level,
            tenant,
            logs,
            capacity,
            key_levels=self.where.key_levels,
            own=own_requests(self.reader.telemetry.ledger.records(), span),
            facts=facts,
            view=view,
            asked=region,
        )
        # The logs' rows of 100,000 keys are not kept beside the report: the reader keeps
        # (and this service compares) an answer made of the report's own columns, which
        # joins into the same rows should the other answers change within the minute.
        usage = kept_usage(logs.usage, report)
        if usage is not logs.usage:
            self.reader.keep_instead(logs.usage, usage)
        self._last = ((usage, *answers[1:]), report)
        return report

    async def _region(
        self, window: Window, now: float, facts: AccountFacts, asked: str | None
    ) -> tuple[RegionView, list[MetricAnswer]]:
        """The region to read, and the RU-by-region answer it was chosen from (the same
        question the throughput view asks first, so the reader answers both once)."""
        metrics_span = span_ending(now, window, whole_minutes=True)
        plan = throughput_plan(metrics_span, self.where, mode=facts.offer.mode)
        regional = await self.reader.metrics(window, [q for q in plan if q.name == RU])
        seen = seen_regions(regional)
        return choose(facts, asked, seen, busiest(regional, TOTAL_REQUEST_UNITS)), regional

    async def _logs(
        self,
        window: Window,
        span: Span,
        level: KeyLevel,
        tenant: Key | None,
        top: int,
        region: str | None,
    ) -> _Logs:
        def query(name: LogName, key_level: KeyLevel = level) -> LogQuery:
            return LogQuery(
                name=name,
                span=span,
                database=self.where.database,
                container=self.where.container,
                level=key_level,
                tenant=tenant,
                top=top,
                region=region,
            )

        answers = await self.reader.logs(
            window,
            [
                query(LogName.KEY_USAGE),
                # Partition totals are the container's, whatever tenant is drilled into.
                LogQuery(
                    name=LogName.PARTITION_USAGE,
                    span=span,
                    database=self.where.database,
                    container=self.where.container,
                    top=top,
                    region=region,
                ),
                query(LogName.KEY_THROTTLES),
                replace(query(LogName.KEY_STORAGE), span=storage_span(span)),
                # The container's too: the tenant of a 429 no key is logged for is unknown.
                LogQuery(
                    name=LogName.REQUEST_TOTALS,
                    span=span,
                    database=self.where.database,
                    container=self.where.container,
                    region=region,
                ),
            ],
        )
        return _Logs(*answers)

    async def _capacity(
        self, window: Window, now: float, facts: AccountFacts, view: RegionView
    ) -> list[MetricAnswer]:
        metrics_span = span_ending(now, window, whole_minutes=True)
        wanted = {CAPACITY, NORMALIZED_BY_RANGE}
        plan = throughput_plan(
            metrics_span, self.where, region=view.metric_value, mode=facts.offer.mode
        )
        return await self.reader.metrics(window, [q for q in plan if q.name in wanted])


def kept_usage(usage: LogAnswer, report: HotKeysReport) -> LogAnswer:
    """The key-usage answer ``report`` was joined from, made of the report's own table
    (``KeyUsageTable.log_rows``): joined again, it gives the same rows, and it holds
    none of the logs' own cells (their text keys, a float object each number)."""
    table, rows = usage.table, report.rows
    if table is None or not isinstance(rows, KeyUsageTable):
        return usage
    compact = LogTable(table.columns, rows.log_rows(table.columns, report.keys_total))
    return replace(usage, table=compact)


# The ledger records of requests to the account itself (not Azure Monitor's calls, not
# the local workspace's modelled ones): what the account's logs would show as ours.
_ACCOUNT_KINDS = frozenset(Kind) - {Kind.MONITOR, Kind.LOCAL, Kind.EMBEDDINGS}


def own_requests(records: Iterable[RequestCharge], span: Span) -> tuple[tuple[float, float], ...]:
    """This session's own requests to the account within ``span``: ``(at, RU)`` each."""
    return tuple(
        (r.at, r.request_units)
        for r in records
        if r.kind in _ACCOUNT_KINDS and not r.simulated and span.start <= r.at < span.end
    )


def storage_span(span: Span) -> Span:
    """Where the storage statistics are read: ``STORAGE_LOOKBACK_S`` back from the
    window's end (or the window, when it is longer)."""
    return Span(min(span.start, span.end - STORAGE_LOOKBACK_S), span.end)


def _same_objects(these: tuple[object, ...], those: tuple[object, ...]) -> bool:
    return len(these) == len(those) and all(a is b for a, b in zip(these, those, strict=True))
