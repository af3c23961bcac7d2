"""Is the account throttling, where, since when: the throughput report from platform metrics.

One metrics call per (grain, aggregation, filter) group — getBatch applies one interval,
one aggregation list and one filter to every metric in a call:

* RU consumed (``TotalRequestUnits``, Total per minute → RU/s as Total / 60);
* requests by status code, and 429s by operation (``TotalRequests``, Count);
* normalised RU per partition key range (``NormalizedRUConsumption``, Maximum: the
  busiest second of that physical partition in the minute, percent of its budget);
* provisioned and autoscale-max throughput (Maximum, PT5M);
* server-side latency (``ServerSideLatencyDirect``, Average).

Metrics are per minute and the window ends at the last complete minute: a bucket
still filling would read as a sudden drop.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from cosmem_tui.core.regions import RegionView, busiest, choose, in_region, seen_regions
from cosmem_tui.core.telemetry_reader import TelemetryReader, span_ending
from cosmem_tui.model import Clock
from cosmem_tui.model.telemetry import (
    AUTOSCALE_MAX_THROUGHPUT,
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
    AccountFacts,
    MetricAnswer,
    MetricPoint,
    MetricQuery,
    Offer,
    OperationThrottles,
    RangeLoad,
    RegionLoad,
    Series,
    Span,
    TelemetryAbout,
    TelemetryProblem,
    ThroughputMode,
    ThroughputReport,
    Window,
    region_key,
)
from cosmem_tui.model.times import utc_text

RU = "ru"
REQUESTS_BY_STATUS = "requests_by_status"
THROTTLES_BY_OPERATION = "throttles_by_operation"
NORMALIZED_BY_RANGE = "normalized_by_range"
CAPACITY = "capacity"
LATENCY = "latency"

# Asked first, split by region: which regions have load, and how much. The rest is
# asked filtered to the region shown.
REGIONAL = (RU, REQUESTS_BY_STATUS)

MAX_REGION_SERIES = 100  # an account has at most a few dozen regions
MAX_STATUS_SERIES = 200  # status codes × regions
MAX_OPERATION_SERIES = 50
MAX_RANGE_SERIES = 1000  # Azure's default is 10 series: a large container has hundreds


@dataclass(frozen=True, slots=True)
class Container:
    """Which container the metrics are filtered to (None: the whole account)."""

    database: str | None = None
    container: str | None = None
    key_levels: int | None = None  # paths in its partition key (None: not known)


def metric_plan(
    span: Span,
    where: Container,
    *,
    region: str | None = None,
    mode: ThroughputMode = ThroughputMode.UNKNOWN,
) -> list[MetricQuery]:
    """Every metrics question of the report. ``region``: the region the questions after
    ``REGIONAL`` are filtered to, spelt as the metrics spell it (None: unfiltered);
    ``mode``: the offer (shared: RU, partitions and capacity at database level;
    serverless: no capacity question)."""
    shared = mode is ThroughputMode.SHARED
    pinned_region = ((REGION, region),) if region else ()

    def query(
        name: str,
        metrics: tuple[str, ...],
        aggregation: str,
        *,
        grain_s: int = 60,
        pinned: tuple[tuple[str, str], ...] = (),
        split: tuple[str, ...] = (),
        max_results: int | None = None,
        database_level: bool = False,
    ) -> MetricQuery:
        return MetricQuery(
            name=name,
            metrics=metrics,
            aggregation=aggregation,
            grain_s=grain_s,
            span=span,
            database=where.database,
            container=None if database_level else where.container,
            where=pinned,
            split=split,
            max_results=max_results,
            database_level=database_level,
        )

    plan = [
        query(
            RU,
            (TOTAL_REQUEST_UNITS,),
            "Total",
            split=(REGION,),
            max_results=MAX_REGION_SERIES,
            database_level=shared,
        ),
        query(
            REQUESTS_BY_STATUS,
            (TOTAL_REQUESTS,),
            "Count",
            split=(STATUS_CODE, REGION),
            max_results=MAX_STATUS_SERIES,
        ),
        query(
            THROTTLES_BY_OPERATION,
            (TOTAL_REQUESTS,),
            "Count",
            pinned=((STATUS_CODE, "429"), *pinned_region),
            split=(OPERATION_TYPE,),
            max_results=MAX_OPERATION_SERIES,
        ),
        query(
            NORMALIZED_BY_RANGE,
            (NORMALIZED_RU,),
            "Maximum",
            pinned=pinned_region,
            split=(PARTITION_KEY_RANGE,),
            max_results=MAX_RANGE_SERIES,
            database_level=shared,
        ),
    ]
    if mode is not ThroughputMode.SERVERLESS:
        # No region filter: AutoscaleMaxThroughput has no Region dimension, and one filter
        # goes to every metric of a call. Provisioned RU/s is the same in every region.
        plan.append(
            query(
                CAPACITY,
                (PROVISIONED_THROUGHPUT, AUTOSCALE_MAX_THROUGHPUT),
                "Maximum",
                grain_s=300,
                database_level=shared,
            )
        )
    plan.append(
        query(
            LATENCY,
            (SERVER_LATENCY_GATEWAY, SERVER_LATENCY_DIRECT),
            "Average",
            pinned=pinned_region,
        )
    )
    return plan


def sum_points(series: Iterable[Series], *, scale: float = 1.0) -> tuple[MetricPoint, ...]:
    """Bucket-wise sum of several series; a bucket empty in every series stays None."""
    totals: dict[float, float | None] = {}
    for one in series:
        for point in one.points:
            if point.value is None:
                totals.setdefault(point.at, None)
            else:
                totals[point.at] = (totals.get(point.at) or 0.0) + point.value * scale
    return tuple(MetricPoint(at, value) for at, value in sorted(totals.items()))


def mean_points(series: Iterable[Series]) -> tuple[MetricPoint, ...]:
    sums: dict[float, list[float]] = {}
    for one in series:
        for point in one.points:
            bucket = sums.setdefault(point.at, [])
            if point.value is not None:
                bucket.append(point.value)
    return tuple(
        MetricPoint(at, sum(values) / len(values) if values else None)
        for at, values in sorted(sums.items())
    )


def latest_value(points: Iterable[MetricPoint]) -> float | None:
    value = None
    for point in points:
        if point.value is not None:
            value = point.value
    return value


def _range_order(range_id: str) -> tuple[int, int | str]:
    return (0, int(range_id)) if range_id.isdigit() else (1, range_id)


def _count(value: float | None) -> int:
    return round(value or 0.0)


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.1f} %" if whole else "—"


def _clock_text(at: float) -> str:
    return utc_text(at, "%H:%M UTC")


class ThroughputService:
    def __init__(self, reader: TelemetryReader, clock: Clock, where: Container) -> None:
        self.reader = reader
        self.clock = clock
        self.where = where

    @property
    def about(self) -> TelemetryAbout:
        return self.reader.about

    async def report(self, window: Window, *, region: str | None = None) -> ThroughputReport:
        """``region``: the region to show (any spelling; None: the write region)."""
        span = span_ending(self.clock.now(), window, whole_minutes=True)
        where = self.where
        facts = await self.reader.account(where.database, where.container)
        mode = facts.offer.mode
        first = [q for q in metric_plan(span, where, mode=mode) if q.name in REGIONAL]
        regional = await self.reader.metrics(window, first)
        view = choose(facts, region, seen_regions(regional), busiest(regional, TOTAL_REQUEST_UNITS))
        plan = metric_plan(span, where, region=view.metric_value, mode=mode)
        rest = await self.reader.metrics(window, [q for q in plan if q.name not in REGIONAL])
        return build_report(
            window, span, self.about, [*regional, *rest], facts=facts, view=view, asked=region
        )


def region_loads(answers: list[MetricAnswer]) -> tuple[RegionLoad, ...]:
    """Every region the RU and request answers name, the busiest first."""
    peaks: dict[str, float | None] = {}
    requests: dict[str, int] = {}
    throttled: dict[str, int] = {}
    names: dict[str, str] = {}
    for answer in answers:
        for one in answer.series:
            name = one.dimension(REGION)
            if not name:
                continue
            key = names.setdefault(region_key(name), name)
            if answer.query.name == RU:
                peak = max(
                    (p.value for p in sum_points([one], scale=1 / 60) if p.value is not None),
                    default=None,
                )
                if peak is not None:
                    peaks[key] = max(peaks.get(key) or 0.0, peak)
                else:
                    peaks.setdefault(key, None)
            elif answer.query.name == REQUESTS_BY_STATUS:
                count = _count(one.total())
                requests[key] = requests.get(key, 0) + count
                if one.dimension(STATUS_CODE) == "429":
                    throttled[key] = throttled.get(key, 0) + count
    loads = [
        RegionLoad(name, peaks.get(name), requests.get(name, 0), throttled.get(name, 0))
        for name in {*peaks, *requests}
    ]
    return tuple(sorted(loads, key=lambda r: (-(r.peak_ru_s or 0.0), -r.requests, r.region)))


def build_report(
    window: Window,
    span: Span,
    about: TelemetryAbout,
    answers: list[MetricAnswer],
    *,
    facts: AccountFacts | None = None,
    view: RegionView | None = None,
    asked: str | None = None,
) -> ThroughputReport:
    facts = facts or AccountFacts()
    by_name = {answer.query.name: answer for answer in answers}
    extra = [*facts.problems, *([view.problem] if view and view.problem else [])]
    problems = tuple(extra) + tuple(a.problem for a in answers if a.problem is not None)
    key = view.key if view is not None else None

    def series(name: str, metric: str | None = None) -> list[Series]:
        answer = by_name.get(name)
        if answer is None:
            return []
        return [
            s for s in answer.series if (metric is None or s.metric == metric) and in_region(s, key)
        ]

    ru_per_s = sum_points(series(RU), scale=1 / 60)

    offer = facts.offer
    provisioned = sum_points(series(CAPACITY, PROVISIONED_THROUGHPUT))
    autoscale_max = sum_points(series(CAPACITY, AUTOSCALE_MAX_THROUGHPUT))
    autoscale_latest = latest_value(autoscale_max)
    capacity: tuple[MetricPoint, ...] = ()
    provisioned_ru_s: float | None = None
    if offer.mode is ThroughputMode.SERVERLESS:
        autoscale = False
    elif offer.ru_s is not None:  # ARM's throughputSettings: the offer as configured
        autoscale = offer.autoscale
        capacity = autoscale_max if autoscale else provisioned
        provisioned_ru_s = offer.ru_s
    else:  # the offer could not be read: the metrics' own account of it
        autoscale = bool(autoscale_latest)
        capacity = autoscale_max if autoscale else provisioned
        provisioned_ru_s = autoscale_latest if autoscale else latest_value(provisioned)

    ranges = tuple(
        sorted(
            (
                RangeLoad(s.dimension(PARTITION_KEY_RANGE) or "?", s.points, s.peak())
                for s in series(NORMALIZED_BY_RANGE)
            ),
            key=lambda r: _range_order(r.range_id),
        )
    )

    throttles = tuple(
        sorted(
            (
                OperationThrottles(s.dimension(OPERATION_TYPE) or "?", s.points, _count(s.total()))
                for s in series(THROTTLES_BY_OPERATION)
            ),
            key=lambda t: (-t.total, t.operation),
        )
    )

    status: dict[str, int] = {}
    for s in series(REQUESTS_BY_STATUS):
        code = s.dimension(STATUS_CODE) or "?"
        status[code] = status.get(code, 0) + _count(s.total())
    status_totals = tuple(sorted(status.items()))
    requests = sum(status.values())
    if REQUESTS_BY_STATUS in by_name and by_name[REQUESTS_BY_STATUS].problem is None:
        throttled = status.get("429", 0)
    else:  # requests by status failed: the 429s by operation still count them
        throttled = sum(t.total for t in throttles)

    latency_gateway_ms = mean_points(series(LATENCY, SERVER_LATENCY_GATEWAY))
    latency_direct_ms = mean_points(series(LATENCY, SERVER_LATENCY_DIRECT))

    newest = [p.at for p in ru_per_s if p.value is not None]
    data_as_of = max(newest) + 60 if newest else None
    lead = ""
    if view is not None and len(view.choices) > 1:  # say whose load it is
        lead = f"{view.name} ({view.why}): " if view.name else "region unknown: "

    return ThroughputReport(
        window=window,
        span=span,
        source=about,
        ru_per_s=ru_per_s,
        provisioned_ru_s=provisioned_ru_s,
        autoscale=autoscale,
        capacity=capacity,
        ranges=ranges,
        throttles=throttles,
        status_totals=status_totals,
        latency_gateway_ms=latency_gateway_ms,
        latency_direct_ms=latency_direct_ms,
        requests=requests,
        throttled=throttled,
        data_as_of=data_as_of,
        headline=lead
        + headline(
            window, ru_per_s, provisioned_ru_s, ranges, requests, throttled, problems, offer
        ),
        problems=problems,
        series=tuple(s for answer in answers for s in answer.series),
        region=view.name if view is not None else None,
        region_note=view.why if view is not None else "",
        region_asked=asked,
        regions=view.choices if view is not None else (),
        region_loads=region_loads(answers),
        offer=offer,
        account=facts,
    )


def headline(
    window: Window,
    ru_per_s: tuple[MetricPoint, ...],
    provisioned_ru_s: float | None,
    ranges: tuple[RangeLoad, ...],
    requests: int,
    throttled: int,
    problems: tuple[TelemetryProblem, ...],
    offer: Offer | None = None,
) -> str:
    """One line an on-call engineer reads first: 429s, which partition is full since
    when, and how close the busiest minute came to what is provisioned (a shared offer
    named as the database's, a serverless account said to have none)."""
    peak = max((p.value for p in ru_per_s if p.value is not None), default=None)
    if peak is None and not requests:
        return f"no metrics in the last {window.label}" + (": see below" if problems else "")
    parts: list[str] = []
    if throttled:
        parts.append(
            f"{throttled:,} × 429 of {requests:,} requests ({_pct(throttled, requests)})"
            f" in {window.label}"
        )
    else:
        parts.append(f"no 429s in {window.label}")
    full = [r for r in ranges if (r.peak or 0.0) >= 100.0]
    for load in full[:3]:
        since = _full_since(load)
        when = f" since {_clock_text(since)}" if since is not None else " at its peak"
        parts.append(f"partition {load.range_id} at 100 %{when}")
    if len(full) > 3:
        parts.append(f"{len(full) - 3} more partitions at 100 %")
    mode = offer.mode if offer is not None else ThroughputMode.UNKNOWN
    if peak is not None:
        capacity = f" of {provisioned_ru_s:,.0f}" if provisioned_ru_s else ""
        share = f" ({_pct(peak, provisioned_ru_s)})" if provisioned_ru_s else ""
        whose = ""
        if mode is ThroughputMode.SHARED and offer is not None:
            whose = f" shared by {offer.owner}" if offer.owner else " shared by the database"
        parts.append(f"busiest minute {peak:,.0f}{capacity} RU/s{whose}{share}")
    if mode is ThroughputMode.SERVERLESS:
        parts.append("serverless: no provisioned RU/s")
    return "; ".join(parts)


def _full_since(load: RangeLoad) -> float | None:
    """The first minute of a run at 100 % that lasts to the newest minute with data."""
    since: float | None = None
    for point in load.points:
        if point.value is None:
            continue
        full = point.value >= 100.0
        since = None if not full else (point.at if since is None else since)
    return since


def iso_time(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")


def measured(value: float | None) -> float | int | None:
    """A metric value as it is worth reading: two decimals (RU, %, ms), three significant
    digits under 1, a whole number (a count) without ``.0``; None (no data) stays None.
    The service's floats carry noise digits (``56650.65333691331``) no one can act on."""
    if value is None:
        return None
    rounded = round(value, 2) if abs(value) >= 1 else float(f"{value:.3g}")
    return int(rounded) if rounded.is_integer() else rounded


def series_rows(report: ThroughputReport) -> list[dict[str, object]]:
    """Every series as ``time, metric, dimension, value`` rows (the CLI's output), the
    values ``measured``."""
    rows: list[dict[str, object]] = []
    for s in report.series:
        dimension = ",".join(f"{k}={v}" for k, v in s.dimensions)
        name = f"{s.metric}.{s.aggregation}"
        for point in s.points:
            rows.append(
                {
                    "time": iso_time(point.at),
                    "metric": name,
                    "dimension": dimension,
                    "value": measured(point.value),
                }
            )
    return rows


def problem_lines(problems: Iterable[TelemetryProblem]) -> list[str]:
    """One line per distinct failure, naming every question it concerns: six metrics
    questions refused for one reason (no region: ARM unreachable) are one line, not six
    (the views still show each beside its tile)."""
    groups: dict[tuple[object, str, str], list[str]] = {}
    for problem in problems:
        abouts = groups.setdefault((problem.kind, problem.message, problem.fix), [])
        if problem.about and problem.about not in abouts:
            abouts.append(problem.about)
    lines = []
    for (_kind, message, fix), abouts in groups.items():
        text = message if not fix else f"{message} — {fix}"
        lines.append(f"{_joined(abouts)}: {text}" if abouts else text)
    return lines


def _joined(abouts: list[str]) -> str:
    """``metrics: ru``, ``metrics: capacity`` → ``metrics: ru, capacity``."""
    kinds = {a.partition(": ")[0] for a in abouts}
    if len(abouts) > 1 and len(kinds) == 1 and all(": " in a for a in abouts):
        return f"{kinds.pop()}: " + ", ".join(a.partition(": ")[2] for a in abouts)
    return ", ".join(abouts)
