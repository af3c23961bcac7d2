"""Which tenant is hot: RU per partition key from the diagnostic logs, with its shares.

Per-key RU exists only in the logs (``PartitionKeyRUConsumption``), aggregated where the
logs live (Log Analytics KQL, or the simulator's tallies) and cut to a top-N; the
console never downloads raw log rows. This module joins the aggregations — usage per
key, usage per physical partition, 429s per key, storage of the largest keys — with the
provisioned throughput from metrics, into the rows of the hot-keys table:

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
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
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
from cosmem_tui.model import Clock, InvalidKey, Key
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
    MetricAnswer,
    PartitionUsage,
    ProblemKind,
    Span,
    TelemetryAbout,
    TelemetryProblem,
    ThroughputMode,
    Window,
)

STORAGE_CAVEAT = (
    "storage: only each partition's largest keys are logged (estimates), so a tenant's "
    "is a lower bound (≥); a blank is not zero"
)
LAG_CAVEAT = "logs lag 20 s – 3 min behind the requests"
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
THROTTLE_CAVEAT = "429s per key: requests joined to the RU log by activity id"
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
    logs are data, not trusted: a malformed key is shown as it came)."""
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


def _number(value: Any) -> float:
    if type(value) is float:  # nearly always: the logs' reals
        return value
    return float(value) if isinstance(value, int | float) else 0.0


def _count(value: Any) -> int | None:
    return round(value) if isinstance(value, int | float) else None


def _clock_text(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M:%S UTC")


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
            facts=facts,
            view=view,
            asked=region,
        )
        self._last = (answers, report)
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
                query(LogName.KEY_STORAGE),
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
    facts: AccountFacts | None = None,
    view: RegionView | None = None,
    asked: str | None = None,
) -> HotKeysReport:
    """``key_levels``: the paths of the container's partition key (None: not known)."""
    facts = facts or AccountFacts()
    problems: list[TelemetryProblem] = list(facts.problems)
    if view is not None and view.problem is not None:
        problems.append(view.problem)
    for answer in (logs.usage, logs.partitions, logs.throttles, logs.storage):
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
    rows: list[KeyUsage] = []
    keys_total: int | None = None
    usage = logs.usage.table
    if usage is not None and usage.rows:
        # Cells by position, not ``records()`` (a dict a row is 100,000 dicts at this
        # size), and nothing looked up twice in the loop: this runs once a key.
        at = {name: n for n, name in enumerate(usage.columns)}
        i_key, i_ru, i_peak = at["Key"], at["RU"], at["PeakRUps"]
        i_part, i_parts = at["Partition"], at["Partitions"]
        i_part_ru, i_part_peak = at["PartitionRU"], at["PartitionPeakRUps"]
        i_keys = at["Keys"]  # every row carries the total: the first that has one
        i_ids = at["PartitionIds"]
        keys_total = next((n for r in usage.rows if (n := _count(r[i_keys])) is not None), None)
        # A key absent from a complete 429 answer had none; from a partial or failed
        # one, it is not known.
        throttles_known = logs.throttles.table is not None and logs.throttles.problem is None
        absent = 0 if throttles_known else None
        throttled_get, storage_get, append = throttled.get, storage.get, rows.append
        # A tenant of a hierarchical key is many keys, of which the statistics log only
        # the largest: its storage is their sum, a lower bound (it was shown as if whole,
        # "1.5 MB" for a tenant holding 15 MB). A whole key's is its own estimate.
        partial = level is KeyLevel.TENANT and key_levels != 1
        for r in usage.rows:
            key = parse_key(r[i_key])
            ru = _number(r[i_ru])
            touched = r[i_parts]
            main = str(r[i_part])
            append(
                KeyUsage(
                    key,
                    ru,
                    _number(r[i_peak]),
                    ru / total_ru if total_ru else 0.0,
                    main,
                    touched if type(touched) is int and touched > 0 else (_count(touched) or 1),
                    _number(r[i_part_ru]),
                    # A partition's budget is its own: compare what the key asked of
                    # that partition alone, not its busiest second over all of them.
                    _number(r[i_part_peak]) / budget if budget else None,
                    throttled_get(key, absent),
                    (size := storage_get(key)),
                    partial and size is not None,
                    touched_partitions(main, r[i_ids]),
                )
            )
    _sort_by_ru(rows)
    if keys_total is None and logs.usage.table is not None:
        keys_total = 0

    caveats = [LAG_CAVEAT, BUDGET_CAVEAT, STORAGE_CAVEAT, THROTTLE_CAVEAT]
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
    if data_as_of is not None:
        caveats[caveats.index(LAG_CAVEAT)] = f"{LAG_CAVEAT}: data as of {_clock_text(data_as_of)}"

    return HotKeysReport(
        window=window,
        span=span,
        source=about,
        level=level,
        tenant=tenant,
        rows=tuple(rows),
        total_ru=total_ru,
        keys_total=keys_total,
        provisioned_ru_s=provisioned_ru_s,
        partitions=partitions,
        headline=skew_headline(rows, partitions, window, problems),
        data_as_of=data_as_of,
        caveats=tuple(caveats),
        problems=tuple(problems),
        region=view.name if view is not None else None,
        region_note=view.why if view is not None else "",
        region_asked=asked,
        regions=view.choices if view is not None else (),
        offer=offer,
    )


def touched_partitions(main: str, cell: Any) -> tuple[str, ...]:
    """The partitions a key touched, its main one first, the others in id order: the
    logs' set (a list, or its JSON text) as they came — data, so anything else is only
    the main one."""
    if isinstance(cell, str):
        cell = _json_or_none(cell)
    if not isinstance(cell, list) or len(cell) < 2:  # the usual: one partition
        return (main,)
    others = {str(p) for p in cell if isinstance(p, str | int) and not isinstance(p, bool)}
    others.discard(main)
    return (main, *sorted(others, key=lambda p: (len(p), p)))  # "2" before "10"


def _same_objects(these: tuple[object, ...], those: tuple[object, ...]) -> bool:
    return len(these) == len(those) and all(a is b for a, b in zip(these, those, strict=True))


def _sort_by_ru(rows: list[KeyUsage]) -> None:
    """Most RU first; equal RU in Cosmos key order (a stable table). The logs come sorted
    by RU, so ties are few: sorting each run of them alone spares 100,000 keys a tuple
    each (a transient 20 MB at that size)."""
    rows.sort(key=lambda u: -u.ru)
    start, count = 0, len(rows)
    while start < count:
        end = start + 1
        while end < count and rows[end].ru == rows[start].ru:
            end += 1
        if end - start > 1:
            rows[start:end] = sorted(rows[start:end], key=lambda u: u.key.sort_key())
        start = end


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
    rows: list[KeyUsage],
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
    there = [r for r in rows if r.partition == hottest.partition]
    busiest = f"partition {hottest.partition} is the busiest"
    if not there or not hottest.ru:
        return f"{headline}; {busiest}"
    owner = max(there, key=lambda r: r.partition_ru)
    mine = owner.partition_ru / hottest.ru * 100
    return f"{headline}; {busiest}: {_label(owner)} = {mine:.0f} % of its RU"


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
