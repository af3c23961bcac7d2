"""The simulated platform metrics, answered in Azure Monitor's shapes (getBatch).

Shapes (the same rules the Azure source follows, so views cannot tell them apart):

* buckets are aligned to the grain (multiples of it since the epoch): one point per
  bucket from the one holding ``span.start`` to the one holding the end; a bucket with
  no data is ``None`` (never 0): the future, anything before the simulated history,
  and, for a split or filtered series, a bucket where that combination had nothing;
* the current minute is answered with the seconds elapsed so far (it fills in until
  the minute ends, as Azure's newest bucket does when late data arrives); there is no
  metric latency beyond that;
* a call without any dimension filter answers one series per metric; with a filter
  (``where``, ``split``, ``database``, ``container``) one series per combination of
  values that had data in the span, at most ``max_results`` (unset: 500 for a split,
  as the Azure source asks, else Azure's 10), ordered by the aggregate over the span,
  largest first (sum for Total/Count, maximum for Maximum, request-weighted mean for
  Average), then by the dimension values; dimensions are the filtered ones, names
  lower-cased, sorted; an answer the limit cut short keeps its series and says so
  (``PARTIAL``), like the Azure source;
* anything the metric does not support (name, aggregation, grain, dimension) is a
  ``QUERY_ERROR`` worded like getBatch's 400, for the whole call.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from cosmem_tui.model.telemetry import (
    AUTOSCALE_MAX_THROUGHPUT,
    COLLECTION,
    DATABASE,
    NORMALIZED_RU,
    OPERATION_TYPE,
    PARTITION_KEY_RANGE,
    PROVISIONED_THROUGHPUT,
    REGION,
    SERVER_LATENCY_DIRECT,
    SERVER_LATENCY_GATEWAY,
    STATUS_CODE,
    TOTAL_REQUEST_UNITS,
    TOTAL_REQUESTS,
    MetricAnswer,
    MetricPoint,
    MetricQuery,
    ProblemKind,
    Series,
    TelemetryProblem,
)
from cosmem_tui.sources.simulated.cells import Cell
from cosmem_tui.sources.simulated.operations import (
    BASE_LATENCY_MS,
    OPERATIONS,
    SERVED_STATUS,
    THROTTLED_STATUS,
)
from cosmem_tui.sources.simulated.problems import bad_metrics_request
from cosmem_tui.sources.simulated.rhythm import MINUTE_S
from cosmem_tui.sources.simulated.workload import Workload

CONNECTION_MODE = "ConnectionMode"
SIMULATED_REGION = "simulated"  # the account has one region, and it is not a real one
# The simulated agents are Python clients: gateway mode, as every Python or JavaScript
# SDK is (direct mode exists only in .NET and Java). ServerSideLatencyDirect has no data.
CONNECTION = "Gateway"
MAX_SPAN_S = 31 * 86_400
GRAINS_S = (60, 300, 900, 1800, 3600, 21_600, 43_200, 86_400)  # Azure's metric intervals
DEFAULT_MAX_RESULTS = 10  # Azure's top when a filter is given and no top
SPLIT_MAX_RESULTS = 500  # what the Azure source asks for a split that names no top
CACHED_MINUTES = 4 * 1440  # four days of minutes
CACHED_BUCKETS = 16 * 4 * 1440  # a few dozen series over four days of minutes

# One fact: the values of the metric's varying dimensions, a value, and its weight
# (requests, for an average; 1 otherwise).
Fact = tuple[tuple[str, ...], float, float]
Acc = tuple[float, float, float]  # a bucket of one series: Σ value × weight, Σ weight, max


class Minute:
    """One minute of the whole container (its partitions' cells added up), once for
    every metric that reads it."""

    __slots__ = ("cells", "loads", "ok", "rejected", "ru", "slow")

    def __init__(self, cells: tuple[Cell, ...]) -> None:
        n = len(OPERATIONS)
        ok, rejected, ru, slow = [0] * n, [0] * n, [0.0] * n, [0.0] * n
        for cell in cells:
            for i in range(n):
                ok[i] += cell.ok[i]
                rejected[i] += cell.rejected[i]
                ru[i] += cell.ru[i]
                slow[i] += cell.ok[i] * cell.latency
        self.cells = cells
        self.ok, self.rejected, self.ru = ok, rejected, ru
        self.slow = slow  # Σ requests × latency factor, per operation
        self.loads = [cell.load for cell in cells]


@dataclass(frozen=True, slots=True)
class MetricSpec:
    name: str
    unit: str
    aggregations: tuple[str, ...]
    dimensions: tuple[str, ...]  # every dimension, as Azure names them
    varying: tuple[str, ...]  # the ones whose value changes between facts
    min_grain_s: int
    facts: Callable[[Workload, Minute | None], list[Fact]]
    needs_cells: Callable[[Workload], bool] = lambda workload: True


def _request_units(workload: Workload, minute: Minute | None) -> list[Fact]:
    assert minute is not None
    facts: list[Fact] = []
    for i, operation in enumerate(OPERATIONS):
        if minute.ok[i]:
            facts.append(((SERVED_STATUS[i], operation), minute.ru[i], 1.0))
        if minute.rejected[i]:
            facts.append(((THROTTLED_STATUS, operation), 0.0, 1.0))  # a 429 consumes no RU
    return facts


def _requests(workload: Workload, minute: Minute | None) -> list[Fact]:
    assert minute is not None
    facts: list[Fact] = []
    for i, operation in enumerate(OPERATIONS):
        if minute.ok[i]:
            facts.append(((SERVED_STATUS[i], operation), float(minute.ok[i]), 1.0))
        if minute.rejected[i]:
            facts.append(((THROTTLED_STATUS, operation), float(minute.rejected[i]), 1.0))
    return facts


def _normalized(workload: Workload, minute: Minute | None) -> list[Fact]:
    assert minute is not None
    ids = workload.partition_ids
    return [((ids[p],), min(100.0, 100.0 * load), 1.0) for p, load in enumerate(minute.loads)]


def _latency(workload: Workload, minute: Minute | None) -> list[Fact]:
    assert minute is not None
    facts: list[Fact] = []
    for i, operation in enumerate(OPERATIONS):
        requests = minute.ok[i]
        if requests:
            average = BASE_LATENCY_MS[i] * minute.slow[i] / requests
            facts.append(((operation, CONNECTION), average, float(requests)))
    return facts


def _no_requests(workload: Workload, minute: Minute | None) -> list[Fact]:
    return []  # no simulated client is in this connection mode


def _provisioned(workload: Workload, minute: Minute | None) -> list[Fact]:
    if minute is None:  # manual throughput: the same every minute
        return [((), workload.shape.provisioned_ru_s, 1.0)]
    return [((), workload.provisioned_ru_s(minute.cells), 1.0)]


def _autoscale_max(workload: Workload, minute: Minute | None) -> list[Fact]:
    maximum = workload.shape.autoscale_max_ru_s
    return [] if maximum is None else [((), float(maximum), 1.0)]


_REQUEST_DIMENSIONS = (DATABASE, COLLECTION, REGION, STATUS_CODE, OPERATION_TYPE)
SPECS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            TOTAL_REQUEST_UNITS,
            "Count",
            ("Total",),
            _REQUEST_DIMENSIONS,
            (STATUS_CODE, OPERATION_TYPE),
            60,
            _request_units,
        ),
        MetricSpec(
            TOTAL_REQUESTS,
            "Count",
            ("Count",),
            _REQUEST_DIMENSIONS,
            (STATUS_CODE, OPERATION_TYPE),
            60,
            _requests,
        ),
        MetricSpec(
            NORMALIZED_RU,
            "Percent",
            ("Maximum",),
            (DATABASE, COLLECTION, REGION, PARTITION_KEY_RANGE),
            (PARTITION_KEY_RANGE,),
            60,
            _normalized,
        ),
        MetricSpec(
            PROVISIONED_THROUGHPUT,
            "Count",
            ("Maximum",),
            (DATABASE, COLLECTION, REGION),
            (),
            300,
            _provisioned,
            lambda workload: workload.shape.autoscale_max_ru_s is not None,
        ),
        MetricSpec(
            AUTOSCALE_MAX_THROUGHPUT,
            "Count",
            ("Maximum",),
            (DATABASE, COLLECTION),
            (),
            300,
            _autoscale_max,
            lambda workload: False,
        ),
        MetricSpec(
            SERVER_LATENCY_GATEWAY,
            "MilliSeconds",
            ("Average",),
            (DATABASE, COLLECTION, REGION, OPERATION_TYPE, CONNECTION_MODE),
            (OPERATION_TYPE, CONNECTION_MODE),
            60,
            _latency,
        ),
        MetricSpec(
            SERVER_LATENCY_DIRECT,
            "MilliSeconds",
            ("Average",),
            (DATABASE, COLLECTION, REGION, OPERATION_TYPE, CONNECTION_MODE),
            (OPERATION_TYPE, CONNECTION_MODE),
            60,
            _no_requests,
        ),
    )
}


_K = TypeVar("_K")
_V = TypeVar("_V")


def _keep(kept: dict[_K, _V], key: _K, value: _V, limit: int, lock: threading.Lock) -> None:
    """Remember ``value``, forgetting the oldest entries past ``limit``."""
    with lock:
        kept[key] = value
        while len(kept) > limit:
            del kept[next(iter(kept))]


def iso_duration(seconds: int) -> str:
    if seconds % 86_400 == 0:
        return f"P{seconds // 86_400}D"
    if seconds % 3600 == 0:
        return f"PT{seconds // 3600}H"
    if seconds % 60 == 0:
        return f"PT{seconds // 60}M"
    return f"PT{seconds}S"


class MetricAnswers:
    """Answers metric queries over one workload of one container."""

    def __init__(self, workload: Workload, *, database: str, container: str) -> None:
        self.workload = workload
        self.constants = {
            DATABASE: database,
            COLLECTION: container,
            REGION: SIMULATED_REGION,
            CONNECTION_MODE: CONNECTION,
        }
        # Whole minutes added up, and the grouped buckets of past ones by the query's
        # shape and bucket: like the cells, they never change.
        self._minutes: dict[int, Minute] = {}
        self._buckets: dict[tuple[object, ...], dict[tuple[str, ...], Acc]] = {}
        self._lock = threading.Lock()  # answers run on worker threads, maybe two at once

    def answer(self, query: MetricQuery, now: float) -> MetricAnswer:
        problem = self._check(query)
        if problem is not None:
            return MetricAnswer(query, problem=problem)
        series: list[Series] = []
        problem = None
        for name in query.metrics:
            found, more = self._series(SPECS[name], query, math.floor(now))
            series.extend(found)
            if more and problem is None:
                problem = TelemetryProblem(
                    ProblemKind.PARTIAL,
                    f"{len(found) + more} series of {name} had data; this answer keeps the "
                    f"top {len(found)} (max_results)",
                    "ask for more (max_results) or split by fewer dimensions",
                    about=f"metrics: {query.name}",
                )
        return MetricAnswer(query, series=tuple(series), problem=problem)

    # -- checks ---------------------------------------------------------------------------

    def _check(self, query: MetricQuery) -> TelemetryProblem | None:
        def bad(detail: str) -> TelemetryProblem:
            return bad_metrics_request(query.name, detail)

        if not query.metrics:
            return bad("At least one metric name is required")
        if not query.span.end > query.span.start:
            return bad("Invalid time range: the end time must be after the start time")
        if query.span.seconds > MAX_SPAN_S:
            return bad(f"The requested timespan exceeds the maximum of {iso_duration(MAX_SPAN_S)}")
        if query.max_results is not None and query.max_results < 1:
            return bad(f"Invalid top value {query.max_results}: it must be positive")
        asked = [d for d, _ in query.where] + list(query.split)
        for name in query.metrics:
            spec = SPECS.get(name)
            if spec is None:
                return bad(
                    "Failed to find metric configuration for provider: Microsoft.DocumentDB, "
                    f"resource Type: databaseAccounts, metric: {name}, "
                    f"Valid metrics: {', '.join(SPECS)}"
                )
            if query.aggregation not in spec.aggregations:
                return bad(
                    f"Metric: {name} does not support requested aggregation: "
                    f"{query.aggregation}, supported ones are: {', '.join(spec.aggregations)}"
                )
            if query.grain_s not in GRAINS_S or query.grain_s < spec.min_grain_s:
                supported = ", ".join(iso_duration(g) for g in GRAINS_S if g >= spec.min_grain_s)
                return bad(
                    f"Metric: {name} does not support requested time grain: "
                    f"{iso_duration(query.grain_s)}, supported ones are: {supported}"
                )
            known = {d.lower() for d in spec.dimensions}
            unknown = [d for d in asked if d.lower() not in known]
            if unknown:
                return bad(
                    f"Metric: {name} does not support requested dimension combination: "
                    f"{', '.join(asked)}, supported ones are: {', '.join(spec.dimensions)}"
                )
        return None

    # -- series ---------------------------------------------------------------------------

    def _series(self, spec: MetricSpec, query: MetricQuery, now: int) -> tuple[list[Series], int]:
        """The metric's series, and how many more the limit left out."""
        pins = self._pins(query)
        filtered = bool(pins) or bool(query.split)
        shown = sorted({d.lower() for d in [*pins, *query.split]})
        canonical = {d.lower(): d for d in spec.dimensions}
        constants = {d.lower(): v for d, v in self.constants.items()}
        for dim, wanted in pins.items():  # a pinned constant that does not match: no data
            if dim in constants and constants[dim].casefold() != wanted.casefold():
                return [], 0
        position = {d.lower(): i for i, d in enumerate(spec.varying)}
        checks = [(position[d], v.casefold()) for d, v in pins.items() if d in position]
        # Each shown dimension comes from the fact (its position) or is a constant.
        sources = [(position.get(d, -1), constants.get(d, "")) for d in shown]
        grain = query.grain_s
        first = math.floor(query.span.start / grain) * grain
        buckets = list(range(first, math.ceil(query.span.end), grain)) or [first]
        # group (the shown dimension values) -> bucket -> (Σ value × weight, Σ weight, max)
        groups: dict[tuple[str, ...], dict[int, Acc]] = {}
        signature = (spec.name, grain, tuple(checks), tuple(sources))
        for bucket in buckets:
            end = min(bucket + grain, now)
            done = bucket + grain <= now  # a bucket in the past never changes: keep it
            kept = self._buckets.get((*signature, bucket)) if done else None
            if kept is None:
                kept = self._bucket(spec, bucket, end, checks, sources)
                if done:
                    _keep(self._buckets, (*signature, bucket), kept, CACHED_BUCKETS, self._lock)
            for group, acc in kept.items():
                accs = groups.get(group)
                if accs is None:
                    accs = groups[group] = {}
                accs[bucket] = acc
        if not filtered and not groups:
            groups[()] = {}
        made = [
            self._one(spec, query, buckets, group, accs, [canonical[d].lower() for d in shown])
            for group, accs in groups.items()
        ]
        more = 0
        if filtered:
            made.sort(key=lambda pair: (-pair[0], pair[1].dimensions))
            limit = query.max_results
            if limit is None:
                limit = SPLIT_MAX_RESULTS if query.split else DEFAULT_MAX_RESULTS
            more = max(0, len(made) - limit)
            made = made[:limit]
        return [series for _, series in made], more

    def _bucket(
        self,
        spec: MetricSpec,
        start: int,
        end: int,
        checks: list[tuple[int, str]],
        sources: list[tuple[int, str]],
    ) -> dict[tuple[str, ...], Acc]:
        """One bucket's facts, grouped by the shown dimensions."""
        sums: dict[tuple[str, ...], list[float]] = {}
        for facts in self._minute_facts(spec, start, end):
            for values, value, weight in facts:
                if checks and any(values[i].casefold() != v for i, v in checks):
                    continue
                group = tuple([values[i] if i >= 0 else c for i, c in sources])
                acc = sums.get(group)
                if acc is None:
                    sums[group] = [value * weight, weight, value]
                else:
                    acc[0] += value * weight
                    acc[1] += weight
                    if value > acc[2]:
                        acc[2] = value
        return {group: (a[0], a[1], a[2]) for group, a in sums.items()}

    def _pins(self, query: MetricQuery) -> dict[str, str]:
        pins = {d.lower(): v for d, v in query.where}
        if query.database is not None:
            pins[DATABASE.lower()] = query.database
        if query.container is not None and not query.database_level:
            pins[COLLECTION.lower()] = query.container
        return pins

    def _minute_facts(self, spec: MetricSpec, start: int, end: int) -> Iterator[list[Fact]]:
        """The facts of each minute with data in [start, end) (whole seconds)."""
        w = self.workload
        if spec.needs_cells(w):
            for minute, cells in w.span(start, end):
                if cells[0].seconds < MINUTE_S:  # a partial minute: never kept
                    yield spec.facts(w, Minute(cells))
                    continue
                whole = self._minutes.get(minute)
                if whole is None:
                    whole = Minute(cells)
                    _keep(self._minutes, minute, whole, CACHED_MINUTES, self._lock)
                yield spec.facts(w, whole)
            return
        minute = max(start, w.first_second) // MINUTE_S
        while minute * MINUTE_S < end:
            if max(minute * MINUTE_S, w.first_second) < end:
                yield spec.facts(w, None)
            minute += 1

    def _one(
        self,
        spec: MetricSpec,
        query: MetricQuery,
        buckets: list[int],
        group: tuple[str, ...],
        accs: dict[int, Acc],
        names: list[str],
    ) -> tuple[float, Series]:
        aggregation = query.aggregation
        points = []
        for bucket in buckets:
            acc = accs.get(bucket)
            value: float | None = None
            if acc is not None:
                if aggregation == "Maximum":
                    value = acc[2]
                elif aggregation == "Average":
                    value = acc[0] / acc[1] if acc[1] > 0 else None
                else:
                    value = acc[0]
            points.append(MetricPoint(float(bucket), value))
        values = [p.value for p in points if p.value is not None]
        if not values:
            rank = -math.inf
        elif aggregation == "Maximum":
            rank = max(values)
        elif aggregation == "Average":
            weight = sum(acc[1] for acc in accs.values())
            rank = sum(acc[0] for acc in accs.values()) / weight if weight else -math.inf
        else:
            rank = sum(values)
        dimensions = tuple(sorted(zip(names, group, strict=True)))
        series = Series(spec.name, aggregation, spec.unit, dimensions, tuple(points))
        return rank, series
