"""SimulatedTelemetry over the demo workspace: what the throughput and hot-tenant views see."""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter

from cosmem_tui.model import FrozenClock, Key, Kind
from cosmem_tui.model.telemetry import (
    AUTOSCALE_MAX_THROUGHPUT,
    NORMALIZED_RU,
    OPERATION_TYPE,
    PARTITION_KEY_RANGE,
    PROVISIONED_THROUGHPUT,
    STATUS_CODE,
    TOTAL_REQUEST_UNITS,
    TOTAL_REQUESTS,
    KeyLevel,
    LogName,
    LogQuery,
    MetricAnswer,
    MetricQuery,
    ProblemKind,
    Span,
)
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.simulated import SimulatedTelemetry, Workload, WorkloadKey, WorkloadShape
from cosmem_tui.sources.simulated.logs import LOG_LAG_S, physical_partition_id
from cosmem_tui.sources.simulated.workspace_keys import read_keys
from tests.sources.simulated.conftest import BURST, START, main_partition
from tests.telemetry.conftest import console_metric_queries

ALL = 1_000_000  # a top that cuts nothing
AZURE_REPORTS = 3  # PartitionKeyStatistics: the three largest keys of each partition


def ru(span: Span, grain: int = 60) -> MetricQuery:
    return MetricQuery("ru", (TOTAL_REQUEST_UNITS,), "Total", grain, span)


def throttled(span: Span) -> MetricQuery:
    return MetricQuery(
        "throttled",
        (TOTAL_REQUESTS,),
        "Count",
        60,
        span,
        where=((STATUS_CODE, "429"),),
        split=(OPERATION_TYPE,),
    )


def ranges(span: Span) -> MetricQuery:
    return MetricQuery(
        "ranges",
        (NORMALIZED_RU,),
        "Maximum",
        60,
        span,
        split=(PARTITION_KEY_RANGE,),
        max_results=50,
    )


def values(answer: MetricAnswer) -> dict[tuple[object, ...], dict[float, float | None]]:
    return {(s.metric, s.dimensions): {p.at: p.value for p in s.points} for s in answer.series}


async def test_a_narrow_window_then_a_wide_one_gives_the_wide_ones_numbers(simulated):
    now = START + 300
    asked_twice, asked_once = simulated(now), simulated(now)
    day, quarter = Span(now - 86_400, now), Span(now - 900, now)
    db, coll = "agentmemory", "turns"
    await asked_twice.telemetry.metrics(console_metric_queries(quarter, db, coll))
    await asked_twice.telemetry.logs([LogQuery(LogName.KEY_USAGE, quarter)])
    twice = await asked_twice.telemetry.metrics(console_metric_queries(day, db, coll))
    once = await asked_once.telemetry.metrics(console_metric_queries(day, db, coll))
    assert [values(a) for a in twice] == [values(a) for a in once]
    assert all(a.series for a in once)
    logs_twice = await asked_twice.telemetry.logs([LogQuery(LogName.KEY_USAGE, day, top=ALL)])
    logs_once = await asked_once.telemetry.logs([LogQuery(LogName.KEY_USAGE, day, top=ALL)])
    assert logs_twice[0].table == logs_once[0].table

    other = await simulated(now, seed=99).telemetry.metrics([ru(quarter)])
    assert values(other[0]) != values(once[0])


async def test_ru_is_conserved_from_keys_to_partitions_to_the_metric(simulated):
    source = simulated(START + 3600)
    for span in (Span(START - 600, START + 300), Span(START - 86_400 + 1800, START + 1800)):
        (metric,) = await source.telemetry.metrics([ru(span)])
        keys, tenants, partitions = await source.telemetry.logs(
            [
                LogQuery(LogName.KEY_USAGE, span, level=KeyLevel.KEY, top=ALL),
                LogQuery(LogName.KEY_USAGE, span, level=KeyLevel.TENANT, top=ALL),
                LogQuery(LogName.PARTITION_USAGE, span, top=ALL),
            ]
        )
        total = metric.series[0].total()
        assert total is not None and total > 0
        for answer in (keys, tenants, partitions):
            assert answer.table is not None
            assert math.isclose(sum(r["RU"] for r in answer.table.records()), total, rel_tol=1e-9)
        assert keys.table is not None
        assert keys.table.records()[0]["Keys"] == len(keys.table.rows)

    # Minute by minute: one minute's keys add up to that minute's bucket.
    (metric,) = await source.telemetry.metrics([ru(Span(START, START + 600))])
    for point in metric.series[0].points:
        minute = Span(point.at, point.at + 60)
        (keys,) = await source.telemetry.logs(
            [LogQuery(LogName.KEY_USAGE, minute, level=KeyLevel.KEY, top=ALL)]
        )
        assert keys.table is not None and point.value is not None
        assert math.isclose(sum(r["RU"] for r in keys.table.records()), point.value, rel_tol=1e-9)


async def test_the_hot_partition_starts_throttling_when_the_burst_does(
    simulated, demo_workload: Workload, hot: Key
):
    home = demo_workload.partition_ids[main_partition(demo_workload, hot)]
    source = simulated(BURST - 5)
    window = lambda: Span(source.clock.now() - 900, source.clock.now())  # noqa: E731

    quiet, quiet_ranges = await source.telemetry.metrics([throttled(window()), ranges(window())])
    assert quiet.problem is None and quiet.series == ()  # no 429 in the last 15 minutes
    assert all((s.peak() or 0) < 100 for s in quiet_ranges.series)

    source.clock.set(BURST + 200)  # the views refresh: time has moved on
    loud, loud_ranges = await source.telemetry.metrics([throttled(window()), ranges(window())])
    assert sum(s.total() or 0 for s in loud.series) > 100
    by_range = {s.dimension(PARTITION_KEY_RANGE): s for s in loud_ranges.series}
    assert by_range[home].peak() == 100.0  # capped like Azure's

    usage, throttles = await source.telemetry.logs(
        [LogQuery(LogName.KEY_USAGE, window()), LogQuery(LogName.THROTTLES, window(), top=ALL)]
    )
    assert usage.table is not None and throttles.table is not None
    top_tenant = usage.table.records()[0]
    assert (top_tenant["Key"], top_tenant["Partition"]) == (Workload.tenant_text(hot), home)
    per_partition = Counter[str]()
    for row in throttles.table.records():
        per_partition[row["PartitionId"]] += row["Throttled"]
        assert row["TimeGenerated"] >= BURST - 60  # nothing before the burst's minute
    # The request log names the physical partition by its GUID, never the range id.
    names = source.workspace.container
    home_guid = physical_partition_id(names.database, names.container, home)
    assert home_guid != home and per_partition.most_common(1)[0][0] == home_guid


async def test_drilling_into_a_tenant_adds_up_to_the_tenant(
    simulated, demo_workload: Workload, hot: Key
):
    source = simulated(START + 600)
    span = Span(START - 900, START + 480)
    tenants, drill, throttles = await source.telemetry.logs(
        [
            LogQuery(LogName.KEY_USAGE, span, tenant=hot),
            LogQuery(LogName.KEY_USAGE, span, level=KeyLevel.KEY, tenant=hot, top=ALL),
            LogQuery(LogName.KEY_THROTTLES, span, level=KeyLevel.KEY, tenant=hot, top=ALL),
        ]
    )
    assert tenants.table is not None and drill.table is not None and throttles.table is not None
    (tenant,) = tenants.table.records()
    keys = drill.table.records()
    assert tenant["Key"] == '["contoso"]'
    assert math.isclose(sum(r["RU"] for r in keys), tenant["RU"], rel_tol=1e-9)
    assert keys[0]["Keys"] == len(keys) == len(demo_workload.tenant_keys[hot])
    assert all(json.loads(r["Key"])[0] == "contoso" for r in keys)
    assert max(r["PeakRUps"] for r in keys) <= tenant["PeakRUps"]
    assert {r["Partition"] for r in keys} == {
        demo_workload.partition_ids[p] for p in demo_workload.tenant_partitions(hot)
    }
    assert tenant["Partitions"] == len(demo_workload.tenant_partitions(hot))
    assert sum(r["Throttled"] for r in throttles.table.records()) > 0


async def test_a_tenant_on_two_partitions_reports_two(simulated, demo_workload: Workload):
    spanning = [
        t for t in demo_workload.tenant_keys if len(demo_workload.tenant_partitions(t)) == 2
    ]
    assert spanning
    source = simulated(START + 600)
    span = Span(START - 900, START + 480)
    for tenant in spanning:
        row, drill = await source.telemetry.logs(
            [
                LogQuery(LogName.KEY_USAGE, span, tenant=tenant),
                LogQuery(LogName.KEY_USAGE, span, level=KeyLevel.KEY, tenant=tenant, top=ALL),
            ]
        )
        assert row.table is not None and drill.table is not None
        assert row.table.records()[0]["Partitions"] == 2
        named = sorted(
            demo_workload.partition_ids[p] for p in demo_workload.tenant_partitions(tenant)
        )
        assert row.table.records()[0]["PartitionIds"] == named  # both of them, by name
        assert len({r["Partition"] for r in drill.table.records()}) == 2
        assert all(r["Partitions"] == 1 for r in drill.table.records())


async def test_the_current_minute_fills_in_as_the_seconds_pass(simulated):
    source = simulated(START + 620)
    span = lambda: Span(START + 300, source.clock.now())  # noqa: E731
    (first,) = await source.telemetry.metrics([ru(span())])
    source.clock.advance(2)
    (second,) = await source.telemetry.metrics([ru(span())])
    source.clock.set(START + 661)
    (whole,) = await source.telemetry.metrics([ru(span())])
    now_minute = START + 600
    grew = [a.series[0].points[-1] for a in (first, second)]
    assert all(p.at == now_minute for p in grew)
    assert 0 < grew[0].value < grew[1].value  # type: ignore[operator]
    done = {p.at: p.value for p in whole.series[0].points}
    assert done[now_minute] > grew[1].value  # type: ignore[operator]
    assert whole.series[0].points[-1].at == START + 660
    assert {p.at: p.value for p in first.series[0].points[:-1]} == {
        at: v for at, v in done.items() if at < now_minute
    }


async def test_logs_lag_behind_the_clock(simulated):
    source = simulated(START + 600)
    now = source.clock.now()
    span = Span(now - 300, now)
    usage, throttles = await source.telemetry.logs(
        [LogQuery(LogName.KEY_USAGE, span), LogQuery(LogName.THROTTLES, span)]
    )
    assert usage.as_of == throttles.as_of == now - LOG_LAG_S
    assert throttles.table is not None
    assert all(r["TimeGenerated"] < now - LOG_LAG_S for r in throttles.table.records())
    (metric,) = await source.telemetry.metrics([ru(Span(now - 300, now - LOG_LAG_S))])
    assert usage.table is not None
    logged = sum(r["RU"] for r in usage.table.records())
    metered = metric.series[0].total()
    assert metered is not None and logged < metered  # the last seconds are not logged yet
    (future,) = await source.telemetry.logs([LogQuery(LogName.KEY_USAGE, Span(now, now + 60))])
    assert future.problem is None and future.table is not None and future.table.rows == ()


def held_at(simulated, at: float) -> dict[str, int]:
    """Bytes per key the demo workspace holds at ``at`` (its items expire)."""
    return {
        json.dumps(list(k.values), separators=(",", ":")): k.size_bytes or 0
        for k in read_keys(simulated(at).workspace, at)
    }


async def test_storage_reports_only_the_largest_keys_of_each_partition(
    simulated, demo_workload: Workload
):
    source = simulated(START + 600)
    span = Span(START, START + 300)
    keys, tenants = await source.telemetry.logs(
        [
            LogQuery(LogName.KEY_STORAGE, span, level=KeyLevel.KEY, top=ALL),
            LogQuery(LogName.KEY_STORAGE, span, level=KeyLevel.TENANT, top=ALL),
        ]
    )
    assert keys.table is not None and tenants.table is not None
    sizes = held_at(simulated, START + 300)  # what the keys hold where the window ends
    rows = keys.table.records()
    assert len(rows) == AZURE_REPORTS * demo_workload.partitions
    for row in rows:
        assert row["SizeKb"] == round(sizes[row["Key"]] / 1024)  # type: ignore[operator]
    placed = {demo_workload.key_text(i): p for i, p in enumerate(demo_workload.key_partitions)}
    for p in range(demo_workload.partitions):
        on = sorted((s for k, s in sizes.items() if placed[k] == p), reverse=True)
        reported = sorted((sizes[r["Key"]] for r in rows if placed[r["Key"]] == p), reverse=True)
        assert reported == on[:AZURE_REPORTS]
    by_tenant = Counter[str]()
    for row in rows:
        by_tenant[json.dumps(json.loads(row["Key"])[:1], separators=(",", ":"))] += row["SizeKb"]
    for row in tenants.table.records():  # the tenant's reported keys, summed
        assert abs(row["SizeKb"] - by_tenant[row["Key"]]) <= AZURE_REPORTS


async def test_storage_follows_the_items_that_are_still_there(simulated):
    """The workload's keys are those of its anchor, but statistics report what a key
    holds when they are taken: days later many items have expired, and a logged size
    is never more than the workspace still stores."""
    later = START + 7 * 86_400
    span = Span(later - 900, later)
    answers = await simulated(later + 60).telemetry.logs(
        [LogQuery(LogName.KEY_STORAGE, span, level=KeyLevel.KEY, top=ALL)]
    )
    table = answers[0].table
    assert table is not None and table.rows
    held = held_at(simulated, later)
    at_anchor = held_at(simulated, START)
    assert sum(held.values()) < sum(at_anchor.values())  # the demo's items do expire
    for row in table.records():
        assert row["SizeKb"] == round(held[row["Key"]] / 1024)  # type: ignore[operator]


async def test_other_containers_have_no_data_and_bad_windows_are_problems(simulated):
    source = simulated(START + 600)
    span = Span(START, START + 300)
    (elsewhere,) = await source.telemetry.metrics(
        [MetricQuery("ru", (TOTAL_REQUEST_UNITS,), "Total", 60, span, container="other")]
    )
    assert elsewhere.problem is None and elsewhere.series == ()
    empty, untopped, nowhere = await source.telemetry.logs(
        [
            LogQuery(LogName.KEY_USAGE, Span(START, START)),
            LogQuery(LogName.KEY_USAGE, span, top=0),
            LogQuery(LogName.KEY_USAGE, span, database="other"),
        ]
    )
    for bad in (empty, untopped):
        assert bad.problem is not None and bad.problem.kind is ProblemKind.QUERY_ERROR
        assert bad.problem.about == "logs: key_usage"
    assert nowhere.problem is None and nowhere.table is not None and nowhere.table.rows == ()
    (backwards,) = await source.telemetry.metrics([ru(Span(START, START - 60))])
    assert backwards.problem is not None and backwards.problem.kind is ProblemKind.QUERY_ERROR


async def test_an_unreadable_workspace_is_a_problem_on_every_answer(simulated):
    source = simulated(START + 600)
    source.workspace.close()  # before the first call: the keys cannot be read
    span = Span(START, START + 300)
    metrics = await source.telemetry.metrics([ru(span), throttled(span)])
    logs = await source.telemetry.logs([LogQuery(LogName.KEY_USAGE, span)])
    for answer in [*metrics, *logs]:
        assert answer.problem is not None and answer.problem.kind is ProblemKind.UNREACHABLE
        assert "could not answer" in answer.problem.message
    records = source.ledger.records()
    assert [r.status for r in records] == [500, 500, 500]
    assert all(r.kind is Kind.MONITOR and r.unit == "call" for r in records)


async def test_autoscale_reports_its_max_and_what_it_scaled_to(demo_keys: list[WorkloadKey]):
    shape = WorkloadShape(autoscale_max_ru_s=8000)
    workload = Workload(demo_keys, hot_tenant="contoso", anchor=START, shape=shape)
    clock = FrozenClock(START + 600)
    telemetry = SimulatedTelemetry.from_workload(
        workload, ledger=RequestLedger(clock=clock), clock=clock, database="db", container="c"
    )
    span = Span(START - 3600, START + 600)
    (capacity,) = await telemetry.metrics(
        [
            MetricQuery(
                "capacity", (PROVISIONED_THROUGHPUT, AUTOSCALE_MAX_THROUGHPUT), "Maximum", 300, span
            )
        ]
    )
    scaled, maximum = capacity.series
    assert {p.value for p in maximum.points} == {8000.0}
    levels = [p.value for p in scaled.points if p.value is not None]
    assert len(levels) == len(scaled.points) == 14  # 70 minutes in 5-minute buckets
    assert all(800 <= v <= 8000 and v % 100 == 0 for v in levels)
    assert max(levels) == 8000.0 > min(levels)  # up for the burst, down when quiet
    assert telemetry.about.simulated and telemetry.about.label == "simulated workload"
    assert telemetry.about.log_mode == "simulated" and telemetry.about.min_refresh_s == 2


async def test_calls_in_flight_together_answer_as_if_alone(simulated):
    now = START + 600
    together, alone = simulated(now), simulated(now)
    spans = [Span(now - 86_400, now), Span(now - 3600, now), Span(now - 900, now)]
    db, coll = "agentmemory", "turns"

    def metrics(source, span):
        return source.telemetry.metrics(console_metric_queries(span, db, coll))

    def logs(source, span):
        return source.telemetry.logs([LogQuery(name, span) for name in LogName])

    mixed = await asyncio.gather(
        *(metrics(together, span) for span in spans), *(logs(together, span) for span in spans)
    )
    for span, answers in zip(spans, mixed[: len(spans)], strict=True):
        assert [values(a) for a in answers] == [values(a) for a in await metrics(alone, span)]
    for span, answers in zip(spans, mixed[len(spans) :], strict=True):
        assert [a.table for a in answers] == [a.table for a in await logs(alone, span)]


async def test_a_tenants_busiest_second_adds_up_its_partitions(simulated, demo_workload: Workload):
    w = demo_workload
    spanning = [t for t in w.tenant_keys if len(w.tenant_partitions(t)) > 1]
    assert w.hot_tenant in spanning and len(spanning) > 1  # the hot one, and a steady one
    span = Span(BURST - 50, BURST + 130)  # quiet seconds, the ramp, the plateau
    (answer,) = await simulated(START + 600).telemetry.logs(
        [LogQuery(LogName.KEY_USAGE, span, top=ALL)]
    )
    assert answer.table is not None
    reported = {r["Key"]: r["PeakRUps"] for r in answer.table.records()}
    for tenant in spanning:
        cls = w.key_classes[w.tenant_keys[tenant][0]]
        busiest = 0.0
        for at in range(int(span.start), int(span.end)):  # second by second, walked
            minute, offset = divmod(at, 60)
            cells = w.partial_cells(minute, offset, offset + 1)
            assert cells is not None
            second = 0.0
            for p, share in w.tenant_partitions(tenant).items():
                units = cells[p].unit_served
                burst = units[w.burst_component] if cls == w.hot_class else 0.0
                second += share * (units[cls] + burst)
            busiest = max(busiest, second)
        assert math.isclose(reported[Workload.tenant_text(tenant)], busiest, rel_tol=1e-9)
