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
import json
import math
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cosmem_tui.core.partition_ranges import current_ranges
from cosmem_tui.core.regions import RegionView, busiest, choose, seen_regions
from cosmem_tui.core.telemetry_reader import TelemetryReader, span_ending
from cosmem_tui.core.throughput import (
    CAPACITY,
    NORMALIZED_BY_RANGE,
    RU,
    Container,
    latest_value,
)
from cosmem_tui.core.throughput import metric_plan as throughput_plan
from cosmem_tui.model import Clock, InvalidKey, Key, Kind, RequestCharge
from cosmem_tui.model.key_usage import KeyUsageTable
from cosmem_tui.model.telemetry import (
    AUTOSCALE_MAX_THROUGHPUT,
    DEFAULT_KEYS_TOP,
    PROVISIONED_THROUGHPUT,
    TOTAL_REQUEST_UNITS,
    AccountFacts,
    HotKeysReport,
    KeyLevel,
    KeyUsage,
    LogAnswer,
    LogName,
    LogQuery,
    LogTable,
    MetricAnswer,
    PartitionUsage,
    ProblemKind,
    Span,
    TelemetryAbout,
    TelemetryProblem,
    ThroughputMode,
    Window,
)
from cosmem_tui.model.times import utc_text
from cosmem_tui.sources.agent import CONSOLE_MARK

# PartitionKeyStatistics is emitted now and then (the cadence is not documented), not
# per request: a window of minutes would mostly hold none. The latest report of each
# key within this lookback is its size.
STORAGE_LOOKBACK_S = 24 * 3600
STORAGE_CAVEAT = (
    "storage: the last 24 h's latest statistics, which log only each partition's largest "
    "keys (estimates), so a tenant's is a lower bound (≥); a blank is not zero"
)
BUDGET_CAVEAT = (
    "BUDGET: busiest second served ÷ the partition's RU/s; a 429 is not served, "
    "so it tops out at 100 %"
)
# BUDGET (``partition_share``) is RU *served* in a key's busiest second on its partition
# over that partition's share of the provisioned RU/s. A throttled request consumes no
# RU and is not in the RU log, so it cannot pass the budget: at SATURATED the partition
# was full in that second (429s are being answered); from BUSY on, near it. Below, a key
# can still be throttled by its neighbours, or by bursts shorter than the second.
SATURATED = 0.95
BUSY = 0.8
# A throttled request charges 0 RU and may have no row in the RU log at all, so a key's
# 429s are those the request log and the RU log share an activity id for: "where
# logged". The others are counted apart (REQUEST_TOTALS' Unattributed), never dropped.
LOGGED_429 = "429 LOGGED"
UNKNOWN_REGION_CAVEAT = (
    "region unknown: the logs of every region together, so BUDGET is left blank (RU/s "
    "is provisioned per region)"
)
SERVERLESS_CAVEAT = "serverless: no provisioned RU/s, so no BUDGET"


_DECODER = json.JSONDecoder()


def _json_or_none(text: str) -> Any:
    """``json.loads`` without its wrappers for the usual exact text (100,000 keys a
    report): the decoder straight, and ``json.loads`` only for what that did not take."""
    try:
        value, end = _DECODER.raw_decode(text)
        if end == len(text):
            return value
    except ValueError:
        pass
    try:
        return json.loads(text)  # surrounding whitespace, or not JSON at all
    except ValueError:
        return None


def parse_key(text: object) -> Key:
    """A key from the logs' JSON-array text; anything else stays one string value (the
    logs are data, not trusted: a malformed key is shown as it came). A ``Key`` is
    itself (a kept report's table, made into the answer's rows again)."""
    if isinstance(text, Key):
        return text
    if isinstance(text, str):
        values = _json_or_none(text)
        if isinstance(values, list) and values:
            try:
                return Key(values)
            except InvalidKey:
                pass
        return Key.of(text)
    try:
        return Key.of(text)
    except InvalidKey:
        return Key.of(str(text))


@dataclass(frozen=True, slots=True)
class _Logs:
    usage: LogAnswer
    partitions: LogAnswer
    throttles: LogAnswer
    storage: LogAnswer
    totals: LogAnswer  # the container's requests and 429s, and the 429s of no known key


def _number(value: Any) -> float:
    if type(value) is float:  # nearly always: the logs' reals
        return value
    return float(value) if isinstance(value, int | float) else 0.0


def _count(value: Any) -> int | None:
    return round(value) if isinstance(value, int | float) else None


def _clock_text(at: float) -> str:
    return utc_text(at, "%H:%M:%S UTC")


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


def build_report(
    window: Window,
    span: Span,
    about: TelemetryAbout,
    level: KeyLevel,
    tenant: Key | None,
    logs: _Logs,
    capacity: list[MetricAnswer],
    *,
    key_levels: int | None = None,
    own: tuple[tuple[float, float], ...] = (),
    facts: AccountFacts | None = None,
    view: RegionView | None = None,
    asked: str | None = None,
) -> HotKeysReport:
    """``key_levels``: the paths of the container's partition key (None: not known);
    ``own``: this session's own requests to the account in the window, ``(at, RU)``
    each, from its ledger (``own_requests``); ``facts``, ``view``: the account's regions
    and offer, and the region these logs are of; ``asked``: the region the user chose."""
    facts = facts or AccountFacts()
    problems: list[TelemetryProblem] = list(facts.problems)
    if view is not None and view.problem is not None:
        problems.append(view.problem)
    for answer in (logs.usage, logs.partitions, logs.throttles, logs.storage, logs.totals):
        if answer.problem is not None and answer.problem not in problems:
            problems.append(answer.problem)
    for metric in capacity:
        if metric.problem is not None:
            problems.append(metric.problem)

    offer = facts.offer
    provisioned_ru_s = offer.ru_s if offer.ru_s is not None else _provisioned(capacity)
    if offer.mode is ThroughputMode.SERVERLESS:
        provisioned_ru_s = None
    region_known = view is not None and view.name is not None
    if not region_known:
        # The logs of several regions cannot be held against one region's RU/s.
        provisioned_ru_s = None
    partition_rows = logs.partitions.table.records() if logs.partitions.table else []
    # The partitions that share the RU/s now: after a split its parent no longer does.
    # The logs have no time to tell a parent from its children: all they name count.
    live = current_ranges(
        s for answer in capacity if answer.query.name == NORMALIZED_BY_RANGE for s in answer.series
    )
    count = len(live) or len({str(r["Partition"]) for r in partition_rows})
    budget = provisioned_ru_s / count if provisioned_ru_s and count else None
    partitions = tuple(
        sorted(
            (
                PartitionUsage(
                    partition=str(r["Partition"]),
                    ru=_number(r["RU"]),
                    peak_ru_s=_number(r["PeakRUps"]),
                    budget_ru_s=budget,
                    keys=_count(r["Keys"]) or 0,
                )
                for r in partition_rows
            ),
            key=lambda p: (-p.ru, p.partition),
        )
    )
    partition_ru = {p.partition: p.ru for p in partitions}
    total_ru = sum(partition_ru.values())

    throttled = _by_key(logs.throttles, "Throttled")
    storage = _by_key(logs.storage, "SizeKb")
    # A tenant of a hierarchical key is many keys, of which the statistics log only the
    # largest: its storage is their sum, a lower bound (it was shown as if whole, "1.5
    # MB" for a tenant holding 15 MB). A whole key's is its own estimate.
    partial = level is KeyLevel.TENANT and key_levels != 1
    keys: list[Key] = []
    ru_of, peak_of, part_ru_of, part_peak_of = array("d"), array("d"), array("d"), array("d")
    part_of: list[str] = []
    touched_of: list[int] = []
    ids_of: list[tuple[str, ...]] = []
    keys_total: int | None = None
    # A key absent from a complete 429 answer had none; from a partial or failed one,
    # it is not known.
    throttles_known = logs.throttles.table is not None and logs.throttles.problem is None
    usage = logs.usage.table
    if usage is not None and usage.rows:
        # Cells by position, not ``records()`` (a dict a row is 100,000 dicts at this
        # size), and nothing looked up twice in the loop: this runs once a key. The
        # rows are kept by column (``KeyUsageTable``): a row is made when it is read.
        at = {name: n for n, name in enumerate(usage.columns)}
        i_key, i_ru, i_peak = at["Key"], at["RU"], at["PeakRUps"]
        i_part, i_parts = at["Partition"], at["Partitions"]
        i_part_ru, i_part_peak = at["PartitionRU"], at["PartitionPeakRUps"]
        i_keys = at["Keys"]  # every row carries the total: the first that has one
        i_ids = at["PartitionIds"]
        keys_total = next((n for r in usage.rows if (n := _count(r[i_keys])) is not None), None)
        # A few partitions, 100,000 keys: each partition's id, and the ids of a key that
        # touched only its own, are one object for every key (not 10 MB of copies).
        shared: dict[str, str] = {}
        alone: dict[str, tuple[str, ...]] = {}
        for r in usage.rows:
            key = parse_key(r[i_key])
            touched = r[i_parts]
            main = str(r[i_part])
            main = shared.setdefault(main, main)
            ids = touched_partitions(main, r[i_ids])
            if len(ids) == 1:
                ids = alone.setdefault(main, ids)
            keys.append(key)
            ru_of.append(_number(r[i_ru]))
            peak_of.append(_number(r[i_peak]))
            part_of.append(main)
            touched_of.append(
                touched if type(touched) is int and touched > 0 else (_count(touched) or 1)
            )
            part_ru_of.append(_number(r[i_part_ru]))
            # A partition's budget is its own: BUDGET compares what the key asked of
            # that partition alone, not its busiest second over all of them.
            part_peak_of.append(_number(r[i_part_peak]))
            ids_of.append(ids)
        order = _by_ru(ru_of, keys)
        if order is not None:
            keys = [keys[i] for i in order]
            ru_of, peak_of = _taken(ru_of, order), _taken(peak_of, order)
            part_ru_of, part_peak_of = _taken(part_ru_of, order), _taken(part_peak_of, order)
            part_of = [part_of[i] for i in order]
            touched_of = [touched_of[i] for i in order]
            ids_of = [ids_of[i] for i in order]
    rows = KeyUsageTable(
        keys=keys,
        ru=ru_of,
        peak_ru_s=peak_of,
        partition=part_of,
        partitions=touched_of,
        partition_ru=part_ru_of,
        partition_peak=part_peak_of,
        throttled=throttled,
        unthrottled=0 if throttles_known else None,
        storage_kb=storage,
        partition_ids=ids_of,
        total_ru=total_ru,
        budget=budget,
        partial=partial,
    )
    if keys_total is None and logs.usage.table is not None:
        keys_total = 0

    throttled_total, unattributed = _throttle_totals(logs.totals)
    console_requests, console_ru = _console_totals(logs.totals)
    note = throttle_note(throttled_total, unattributed)
    caveats = [note, BUDGET_CAVEAT, STORAGE_CAVEAT]
    if offer.mode is ThroughputMode.SHARED:
        owner = offer.owner or "the database"
        caveats.insert(
            0,
            f"shared throughput: {owner}'s RU/s and partitions, which its other "
            "containers spend too (their load is not in these rows)",
        )
    if offer.mode is ThroughputMode.SERVERLESS:
        caveats.insert(0, SERVERLESS_CAVEAT)
    elif not region_known:
        caveats.insert(0, UNKNOWN_REGION_CAVEAT)
    elif view is not None and len(view.choices) > 1:
        caveats.insert(0, f"region {view.describe()}: that region's logs only")
    if keys_total is not None and keys_total > len(rows):
        caveats.insert(0, f"top {len(rows):,} of {keys_total:,} keys by RU")
    as_of = [a.as_of for a in (logs.usage, logs.partitions) if a.as_of is not None]
    data_as_of = max(as_of) if as_of else None
    incomplete = incomplete_from(span, about, data_as_of)
    # What of this session's own requests the logs should hold by now: those older than
    # the incomplete tail. If the request log shows none as the console's, its UserAgent
    # does not carry the mark, and the console's load is counted as the application's.
    logged_until = incomplete if incomplete is not None else span.end
    expected = sum(1 for at, _ in own if at < logged_until)
    if console_requests == 0 and expected:
        caveats.insert(0, unmarked_caveat(expected))

    return HotKeysReport(
        window=window,
        span=span,
        source=about,
        level=level,
        tenant=tenant,
        rows=rows,
        total_ru=total_ru,
        keys_total=keys_total,
        provisioned_ru_s=provisioned_ru_s,
        partitions=partitions,
        headline=skew_headline(rows, partitions, window, problems),
        data_as_of=data_as_of,
        caveats=tuple(caveats),
        problems=tuple(problems),
        incomplete_from=incomplete,
        lag_note=lag_note(span, about, data_as_of, incomplete),
        throttled_total=throttled_total,
        unattributed=unattributed,
        throttle_note=note,
        console_requests=console_requests,
        console_ru=console_ru,
        session_ru=sum(ru for _, ru in own),
        region=view.name if view is not None else None,
        region_note=view.why if view is not None else "",
        region_asked=asked,
        regions=view.choices if view is not None else (),
        offer=offer,
    )


# The ledger records of requests to the account itself (not Azure Monitor's calls, not
# the local workspace's modelled ones): what the account's logs would show as ours.
_ACCOUNT_KINDS = frozenset(Kind) - {Kind.MONITOR, Kind.LOCAL}


def own_requests(records: Iterable[RequestCharge], span: Span) -> tuple[tuple[float, float], ...]:
    """This session's own requests to the account within ``span``: ``(at, RU)`` each."""
    return tuple(
        (r.at, r.request_units)
        for r in records
        if r.kind in _ACCOUNT_KINDS and not r.simulated and span.start <= r.at < span.end
    )


def console_note(report: HotKeysReport) -> str:
    """The console's own RU beside the window's, which the RU log counts as any other
    client's: as the request log marks it (every cosmem console), else this session's
    own from its ledger; empty for a simulated account, which the console never reaches."""
    if report.source.simulated:
        return ""
    of = f"of the window's {report.total_ru:,.0f} RU"
    if report.console_ru is not None:
        requests = report.console_requests or 0
        return (
            f"the console's own requests: {requests:,}, {report.console_ru:,.0f} RU {of} "
            "(the per-key RU counts them; the 429s leave them out)"
        )
    if report.session_ru:
        return f"this session's own requests: {report.session_ru:,.0f} RU {of} (its ledger)"
    return ""


def unmarked_caveat(expected: int) -> str:
    return (
        f"the request log shows none of this session's {expected:,} "
        f"request{'s' if expected != 1 else ''} as the console's (UserAgent without "
        f"{CONSOLE_MARK!r}): its own load counts as the application's here"
    )


def _console_totals(answer: LogAnswer) -> tuple[int | None, float | None]:
    """The console's own requests and RU in the window, as the request log counts them
    (every cosmem console's, the mark in UserAgent); None: not known."""
    if answer.table is None or answer.problem is not None or len(answer.table.rows) != 1:
        return None, None
    (record,) = answer.table.records()
    ru = record.get("ConsoleRU")
    return _count(record.get("ConsoleRequests")), float(ru) if isinstance(ru, int | float) else None


def _throttle_totals(answer: LogAnswer) -> tuple[int | None, int | None]:
    """The window's 429s and those no key is logged for (None: not known — the question
    failed or came back cut)."""
    if answer.table is None or answer.problem is not None or len(answer.table.rows) != 1:
        return None, None
    (record,) = answer.table.records()
    return _count(record.get("Throttled")), _count(record.get("Unattributed"))


def throttle_note(throttled: int | None, unattributed: int | None) -> str:
    """What the per-key 429 column counts, and what it cannot: ``429 LOGGED: a key's 429s
    whose request the RU log names; 12 of the window's 33 429s name no key``."""
    text = f"{LOGGED_429}: a key's 429s whose request the RU log names (distinct requests)"
    if throttled is None or unattributed is None:
        return f"{text}; how many of the window's 429s name no key is not known"
    if not throttled:
        return f"{text}; no 429s in the window"
    if not unattributed:
        return f"{text}; every one of the window's {throttled:,} 429s names its key"
    return f"{text}; {unattributed:,} of the window's {throttled:,} 429s name no key"


def storage_span(span: Span) -> Span:
    """Where the storage statistics are read: ``STORAGE_LOOKBACK_S`` back from the
    window's end (or the window, when it is longer)."""
    return Span(min(span.start, span.end - STORAGE_LOOKBACK_S), span.end)


def incomplete_from(span: Span, about: TelemetryAbout, data_as_of: float | None) -> float | None:
    """From when on the window's logs may not all have arrived: the source's usual
    longest delay before the window's end, or where the logs stop if that is earlier
    (None: the window ended longer ago than that, it is whole)."""
    since = span.end - about.log_delay_s[1]
    if data_as_of is not None:
        since = min(since, data_as_of)
    return max(span.start, since) if since < span.end else None


def delay_text(seconds: float) -> str:
    """``30 s``, ``3 min``, ``2 h``: a delay as a person says it."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{math.ceil(seconds / 60):.0f} min"
    return f"{seconds / 3600:.0f} h"


def arrival_text(about: TelemetryAbout) -> str:
    """How late the source's logs arrive: ``3–10 min`` (Azure), ``30 s`` (the simulator)."""
    least, most = about.log_delay_s
    if least == most:
        return delay_text(most)
    if least >= 60 and most < 3600:
        return f"{math.ceil(least / 60):.0f}–{math.ceil(most / 60):.0f} min"
    return f"{delay_text(least)} – {delay_text(most)}"


def lag_note(
    span: Span, about: TelemetryAbout, data_as_of: float | None, incomplete: float | None
) -> str:
    """``logs arrive 3–10 min after the requests: the newest 10 min (67 % of the
    window) may be incomplete; data as of 07:59:50 UTC`` — said beside every logs
    window, so a quiet tail is not read as the load going away."""
    text = f"logs arrive {arrival_text(about)} after the requests"
    if incomplete is not None:
        missing = span.end - incomplete
        share = missing / span.seconds if span.seconds else 1.0
        text += (
            f": the newest {delay_text(missing)} ({share * 100:.0f} % of the window) "
            "may be incomplete"
        )
    if data_as_of is not None:
        text += f"; data as of {_clock_text(data_as_of)}"
    return text


def touched_partitions(main: str, cell: Any) -> tuple[str, ...]:
    """The partitions a key touched, its main one first, the others in id order: the
    logs' set (a list, or its JSON text) as they came — data, so anything else is only
    the main one."""
    if isinstance(cell, str):
        cell = _json_or_none(cell)
    if not isinstance(cell, list | tuple) or len(cell) < 2:  # the usual: one partition
        return (main,)
    others = {str(p) for p in cell if isinstance(p, str | int) and not isinstance(p, bool)}
    others.discard(main)
    return (main, *sorted(others, key=lambda p: (len(p), p)))  # "2" before "10"


def _same_objects(these: tuple[object, ...], those: tuple[object, ...]) -> bool:
    return len(these) == len(those) and all(a is b for a, b in zip(these, those, strict=True))


def _by_ru(ru: array[float], keys: list[Key]) -> list[int] | None:
    """The order of the rows, most RU first and equal RU in Cosmos key order (a stable
    table), as positions; None when they are in it already (the logs come sorted by
    RU, ties are few: each run of them is sorted alone, not every key by a tuple)."""
    count = len(ru)
    if all(ru[i] > ru[i + 1] for i in range(count - 1)):
        return None
    if all(ru[i] >= ru[i + 1] for i in range(count - 1)):
        order = list(range(count))
    else:
        order = sorted(range(count), key=ru.__getitem__, reverse=True)  # stable
    start = 0
    while start < count:
        end = start + 1
        while end < count and ru[order[end]] == ru[order[start]]:
            end += 1
        if end - start > 1:
            order[start:end] = sorted(order[start:end], key=lambda i: keys[i].sort_key())
        start = end
    return order


def _taken(values: array[float], order: list[int]) -> array[float]:
    return array(values.typecode, map(values.__getitem__, order))


def _provisioned(capacity: list[MetricAnswer]) -> float | None:
    for answer in capacity:
        if answer.query.name != CAPACITY:
            continue
        autoscale = [s for s in answer.series if s.metric == AUTOSCALE_MAX_THROUGHPUT]
        fixed = [s for s in answer.series if s.metric == PROVISIONED_THROUGHPUT]
        for group in (autoscale, fixed):
            values = [latest_value(s.points) for s in group]
            known = [v for v in values if v]
            if known:
                return sum(known)
    return None


def _by_key(answer: LogAnswer, column: str) -> dict[Key, int]:
    if answer.table is None:
        return {}
    found: dict[Key, int] = {}
    for record in answer.table.records():
        value = _count(record.get(column))
        if value is not None:
            key = parse_key(record.get("Key"))
            found[key] = found.get(key, 0) + value
    return found


def skew_headline(
    rows: Sequence[KeyUsage],
    partitions: tuple[PartitionUsage, ...],
    window: Window,
    problems: list[TelemetryProblem],
) -> str:
    """The table's first row — the key that spent the most — with its share of its own
    partition and of the container ("contoso = 95 % of RU on partition 1, 57 % of the
    container's RU in 15m"). When another partition is the busy one (its busiest second
    at BUSY of its budget or more), the key that takes most of it is named after it, so
    the headline never names a row the table does not show first without saying why."""
    if not rows:
        if any(p.kind is not ProblemKind.NO_DATA for p in problems):
            return "no per-key usage: see below"
        return f"no keyed requests logged in the last {window.label}"
    top = rows[0]
    container = f"{top.share * 100:.0f} % of the container's RU in {window.label}"
    headline = f"{_label(top)} = {container}"
    partition_ru = {p.partition: p.ru for p in partitions}
    take = partition_take(top, partition_ru)
    if take is not None:
        headline = (
            f"{_label(top)} = {take * 100:.0f} % of RU on partition {top.partition}, {container}"
        )
    hottest = max(partitions, key=lambda p: (p.peak_ru_s, p.ru), default=None)
    if (
        hottest is None
        or hottest.partition == top.partition
        or not hottest.budget_ru_s
        or hottest.peak_ru_s < BUSY * hottest.budget_ru_s
    ):
        return headline
    there = _on_partition(rows, hottest.partition)
    busiest = f"partition {hottest.partition} is the busiest"
    if not there or not hottest.ru:
        return f"{headline}; {busiest}"
    owner = max(there, key=lambda r: r.partition_ru)
    mine = owner.partition_ru / hottest.ru * 100
    return f"{headline}; {busiest}: {_label(owner)} = {mine:.0f} % of its RU"


def _on_partition(rows: Sequence[KeyUsage], partition: str) -> list[KeyUsage]:
    """The rows whose busiest partition is ``partition`` (a table's by its column)."""
    if isinstance(rows, KeyUsageTable):
        return [rows.row(i) for i, p in enumerate(rows.partition) if p == partition]
    return [r for r in rows if r.partition == partition]


def partition_take(row: KeyUsage, partition_ru: Mapping[str, float]) -> float | None:
    """What share of its main partition's RU a key spent (None: the partition's total is
    not known). ``partition_ru``: RU per partition id, the report's ``partitions``. A
    tenant with half the container can be all of one partition: that is where its load
    throttles others."""
    total = partition_ru.get(row.partition)
    return min(1.0, row.partition_ru / total) if total else None


def _label(row: KeyUsage) -> str:
    label = row.key.text
    return label if len(label) <= 40 else label[:39] + "…"
