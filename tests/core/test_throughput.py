"""The throughput report: what is asked of the metrics API, and the numbers made of it."""

from __future__ import annotations

from cosmem_tui.core.telemetry_reader import TelemetryReader
from cosmem_tui.core.throughput import (
    CAPACITY,
    LATENCY,
    NORMALIZED_BY_RANGE,
    REQUESTS_BY_STATUS,
    RU,
    THROTTLES_BY_OPERATION,
    Container,
    ThroughputService,
    series_rows,
)
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import (
    MetricAnswer,
    MetricPoint,
    MetricQuery,
    ProblemKind,
    Series,
    TelemetryProblem,
    Window,
)
from tests.core.scripted_telemetry import ScriptedTelemetry

NOW = 1_800_000_030.0  # 30 s into a minute
MINUTE = 1_800_000_000.0  # the minute that is still filling


def series(query: MetricQuery, metric: str, values: list[float | None], **dims: str) -> Series:
    start = query.span.end - len(values) * query.grain_s
    return Series(
        metric=metric,
        aggregation=query.aggregation,
        unit="Count",
        dimensions=tuple(sorted((k.lower(), v) for k, v in dims.items())),
        points=tuple(MetricPoint(start + i * query.grain_s, v) for i, v in enumerate(values)),
    )


def account(query: MetricQuery) -> MetricAnswer:
    """A container with 4,000 RU/s on two partitions; partition 1 is full for the last
    two minutes and Query requests are throttled."""
    if query.name == RU:
        return MetricAnswer(
            query, (series(query, "TotalRequestUnits", [60_000.0, None, 120_000.0, 240_000.0]),)
        )
    if query.name == REQUESTS_BY_STATUS:
        return MetricAnswer(
            query,
            (
                series(query, "TotalRequests", [100.0, None, 200.0, 300.0], StatusCode="200"),
                series(query, "TotalRequests", [None, None, 10.0, 30.0], StatusCode="429"),
            ),
        )
    if query.name == THROTTLES_BY_OPERATION:
        return MetricAnswer(
            query,
            (
                series(query, "TotalRequests", [None, None, 2.0, 8.0], OperationType="Read"),
                series(query, "TotalRequests", [None, None, 8.0, 22.0], OperationType="Query"),
            ),
        )
    if query.name == NORMALIZED_BY_RANGE:
        return MetricAnswer(
            query,
            (
                series(
                    query,
                    "NormalizedRUConsumption",
                    [20.0, 30.0, 25.0, 40.0],
                    PartitionKeyRangeId="0",
                ),
                series(
                    query,
                    "NormalizedRUConsumption",
                    [40.0, 90.0, 100.0, 100.0],
                    PartitionKeyRangeId="1",
                ),
            ),
        )
    if query.name == CAPACITY:
        return MetricAnswer(query, (series(query, "ProvisionedThroughput", [4000.0, 4000.0]),))
    if query.name == LATENCY:
        return MetricAnswer(
            query,
            (
                series(query, "ServerSideLatencyGateway", [2.0, None, 3.0, 9.0]),
                series(query, "ServerSideLatencyDirect", [None, None, None, 1.5]),
            ),
        )
    raise AssertionError(query.name)


def service(telemetry: ScriptedTelemetry, clock: FrozenClock) -> ThroughputService:
    return ThroughputService(TelemetryReader(telemetry, clock), clock, Container("memory", "turns"))


async def test_one_call_per_grain_aggregation_and_filter_ending_at_the_last_whole_minute():
    telemetry = ScriptedTelemetry(metrics=account)
    await service(telemetry, FrozenClock(NOW)).report(Window.M15)

    asked = {q.name: q for q in telemetry.asked if isinstance(q, MetricQuery)}
    assert set(asked) == {
        RU,
        REQUESTS_BY_STATUS,
        THROTTLES_BY_OPERATION,
        NORMALIZED_BY_RANGE,
        CAPACITY,
        LATENCY,
    }
    for query in asked.values():
        assert (query.database, query.container) == ("memory", "turns")
        assert query.span.end == MINUTE  # the filling minute would read as a drop
        assert query.span.start == MINUTE - 15 * 60
    assert asked[RU].metrics == ("TotalRequestUnits",) and asked[RU].aggregation == "Total"
    # Split by region, to show one region's load and name the others'.
    assert asked[RU].split == ("Region",)
    assert asked[REQUESTS_BY_STATUS].split == ("StatusCode", "Region")
    # The rest is the write region's alone.
    assert asked[THROTTLES_BY_OPERATION].where == (("StatusCode", "429"), ("Region", "East US"))
    assert asked[THROTTLES_BY_OPERATION].split == ("OperationType",)
    ranges = asked[NORMALIZED_BY_RANGE]
    assert ranges.aggregation == "Maximum" and ranges.split == ("PartitionKeyRangeId",)
    assert ranges.max_results is not None and ranges.max_results > 10  # Azure's default is 10
    assert asked[CAPACITY].grain_s == 300
    assert asked[CAPACITY].metrics == ("ProvisionedThroughput", "AutoscaleMaxThroughput")
    assert asked[CAPACITY].where == ()  # AutoscaleMaxThroughput has no Region dimension
    # Both connection modes in one call: Python and JS clients are in gateway mode.
    assert asked[LATENCY].metrics == ("ServerSideLatencyGateway", "ServerSideLatencyDirect")
    assert asked[LATENCY].where == (("Region", "East US"),)
    assert all(q.grain_s == 60 for n, q in asked.items() if n != CAPACITY)


async def test_the_report_numbers():
    report = await service(ScriptedTelemetry(metrics=account), FrozenClock(NOW)).report(Window.M15)

    assert [p.value for p in report.ru_per_s] == [1000.0, None, 2000.0, 4000.0]  # Total / 60
    assert report.provisioned_ru_s == 4000.0 and not report.autoscale
    assert report.requests == 640 and report.throttled == 40
    assert report.status_totals == (("200", 600), ("429", 40))
    assert [(t.operation, t.total) for t in report.throttles] == [("Query", 30), ("Read", 10)]
    assert [(r.range_id, r.peak) for r in report.ranges] == [("0", 40.0), ("1", 100.0)]
    assert report.data_as_of == MINUTE  # the newest minute with data ends now
    assert [p.value for p in report.latency_gateway_ms] == [2.0, None, 3.0, 9.0]
    assert [p.value for p in report.latency_direct_ms] == [None, None, None, 1.5]
    assert report.problems == ()
    assert report.headline == (
        "40 × 429 of 640 requests (6.2 %) in 15m; partition 1 at 100 % since "
        "07:58 UTC; busiest minute 4,000 of 4,000 RU/s (100.0 %)"
    )


async def test_autoscale_max_is_the_capacity_when_present():
    def autoscale(query: MetricQuery) -> MetricAnswer:
        if query.name == CAPACITY:
            return MetricAnswer(
                query,
                (
                    series(query, "ProvisionedThroughput", [1000.0, 1000.0]),
                    series(query, "AutoscaleMaxThroughput", [10_000.0, None]),
                ),
            )
        return account(query)

    report = await service(ScriptedTelemetry(metrics=autoscale), FrozenClock(NOW)).report(Window.H1)
    assert report.autoscale and report.provisioned_ru_s == 10_000.0


async def test_a_failed_tile_is_a_problem_beside_the_others():
    problem = TelemetryProblem(ProblemKind.QUERY_ERROR, "bad dimension", about="metrics: latency")

    def failing(query: MetricQuery) -> MetricAnswer:
        return MetricAnswer(query, problem=problem) if query.name == LATENCY else account(query)

    def no_status(query: MetricQuery) -> MetricAnswer:
        if query.name == REQUESTS_BY_STATUS:
            return MetricAnswer(query, problem=problem)
        return account(query)

    report = await service(ScriptedTelemetry(metrics=failing), FrozenClock(NOW)).report(Window.M15)
    assert report.problems == (problem,) and report.latency_gateway_ms == ()
    assert report.throttled == 40 and report.ru_per_s

    # Without the requests by status, the 429s by operation still count the throttling.
    report = await service(ScriptedTelemetry(metrics=no_status), FrozenClock(NOW)).report(
        Window.M15
    )
    assert report.throttled == 40 and report.requests == 0


async def test_no_data_says_so():
    report = await service(ScriptedTelemetry(), FrozenClock(NOW)).report(Window.H24)
    assert report.headline == "no metrics in the last 24h"
    assert report.data_as_of is None and report.provisioned_ru_s is None


async def test_answers_are_reused_while_younger_than_the_sources_refresh():
    clock = FrozenClock(NOW)
    telemetry = ScriptedTelemetry(metrics=account, min_refresh_s=60)
    throughput = service(telemetry, clock)
    await throughput.report(Window.M15)
    asked = len(telemetry.asked)

    clock.advance(59)
    await throughput.report(Window.M15)
    assert len(telemetry.asked) == asked  # billed calls are not repeated within a minute

    await throughput.report(Window.H1)
    assert len(telemetry.asked) == 2 * asked  # another window is another question

    clock.advance(1)
    await throughput.report(Window.M15)
    assert len(telemetry.asked) == 3 * asked


async def test_a_failed_answer_is_asked_again_at_the_next_refresh():
    problem = TelemetryProblem(ProblemKind.THROTTLED, "429", about="metrics: ru")
    clock = FrozenClock(NOW)
    telemetry = ScriptedTelemetry(
        metrics=lambda q: MetricAnswer(q, problem=problem) if q.name == RU else account(q)
    )
    throughput = service(telemetry, clock)
    await throughput.report(Window.M15)
    clock.advance(5)
    telemetry.asked.clear()
    await throughput.report(Window.M15)
    assert [q.name for q in telemetry.asked] == [RU]


async def test_series_rows_for_the_cli():
    report = await service(ScriptedTelemetry(metrics=account), FrozenClock(NOW)).report(Window.M15)
    rows = series_rows(report)
    throttled = [r for r in rows if r["dimension"] == "statuscode=429"]
    assert throttled[-1] == {
        "time": "2027-01-15T07:59:00Z",
        "metric": "TotalRequests.Count",
        "dimension": "statuscode=429",
        "value": 30.0,
    }
    assert [r["value"] for r in throttled] == [None, None, 10.0, 30.0]  # empty is not zero
    assert len(rows) == sum(len(s.points) for s in report.series)
