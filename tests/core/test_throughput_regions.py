"""Throughput and hot tenants on real account shapes: two regions with different loads, a
failover, a shared-throughput database, an autoscale offer and a serverless account.

RU/s is provisioned per region: each region of a two-region account has the full RU/s,
so load is read one region at a time and never summed over regions against one
region's RU/s. The offer is ARM's (``AccountFacts.offer``): a shared database's metrics
exist only at database granularity, and a serverless account has none to compare with.
"""

from __future__ import annotations

from typing import Any

from cosmem_tui.core.hot_keys import HotKeysService
from cosmem_tui.core.hot_keys_notes import UNKNOWN_REGION_CAVEAT
from cosmem_tui.core.regions import next_region
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
)
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import (
    LOG_COLUMNS,
    AccountFacts,
    LogAnswer,
    LogName,
    LogQuery,
    LogTable,
    MetricAnswer,
    MetricPoint,
    MetricQuery,
    Offer,
    Series,
    ThroughputMode,
    Window,
)
from tests.core.scripted_telemetry import ScriptedTelemetry

NOW = 1_800_000_030.0
EAST, WEST = "East US", "West US"
# After a failover the write region is West US, listed first by failover priority.
TWO_REGIONS = AccountFacts(
    regions=(WEST, EAST),
    write_region=WEST,
    metrics_region="eastus",
    metrics_region_from="ARM location",
    offer=Offer(ThroughputMode.DEDICATED, 4000.0, owner="container memory/turns"),
)
# RU per minute in each region: West US (writes) peaks at 3,000 RU/s, East US (reads
# only) at 1,500 RU/s. Their sum, 4,500 RU/s, was never spent in any one region.
RU_PER_MINUTE = {WEST: [60_000.0, 120_000.0, 180_000.0], EAST: [90_000.0, 30_000.0, 60_000.0]}
REQUESTS = {WEST: {"200": 900.0, "429": 100.0}, EAST: {"200": 400.0}}


def series(query: MetricQuery, metric: str, values: list[float | None], **dims: str) -> Series:
    start = query.span.end - len(values) * query.grain_s
    return Series(
        metric,
        query.aggregation,
        "Count",
        tuple(sorted((k.lower(), v) for k, v in dims.items())),
        tuple(MetricPoint(start + i * query.grain_s, v) for i, v in enumerate(values)),
    )


def pinned_region(query: MetricQuery) -> str | None:
    return dict(query.where).get("Region")


def two_regions(query: MetricQuery) -> MetricAnswer:
    """Azure Monitor for a two-region account: splits by Region answer one series per
    region, a Region filter answers that region's alone."""
    region = pinned_region(query)
    if query.name == RU:
        return MetricAnswer(
            query,
            tuple(
                series(query, "TotalRequestUnits", values, Region=name)
                for name, values in RU_PER_MINUTE.items()
            ),
        )
    if query.name == REQUESTS_BY_STATUS:
        return MetricAnswer(
            query,
            tuple(
                series(query, "TotalRequests", [count], StatusCode=code, Region=name)
                for name, codes in REQUESTS.items()
                for code, count in codes.items()
            ),
        )
    if query.name == THROTTLES_BY_OPERATION:
        throttled = REQUESTS.get(region or "", {}).get("429")
        found = () if throttled is None else (series(query, "TotalRequests", [throttled]),)
        return MetricAnswer(query, found)
    if query.name == NORMALIZED_BY_RANGE:
        level = {WEST: 100.0, EAST: 45.0}.get(region or "", 0.0)
        return MetricAnswer(
            query,
            tuple(
                series(query, "NormalizedRUConsumption", [level], PartitionKeyRangeId=str(r))
                for r in range(2)
            ),
        )
    if query.name == CAPACITY:
        return MetricAnswer(query, (series(query, "ProvisionedThroughput", [4000.0]),))
    if query.name == LATENCY:
        gateway = {WEST: 6.0, EAST: 3.0}.get(region or "", 0.0)
        return MetricAnswer(query, (series(query, "ServerSideLatencyGateway", [gateway]),))
    raise AssertionError(query.name)


def throughput(telemetry: ScriptedTelemetry) -> ThroughputService:
    clock = FrozenClock(NOW)
    return ThroughputService(TelemetryReader(telemetry, clock), clock, Container("memory", "turns"))


def asked(telemetry: ScriptedTelemetry) -> dict[str, MetricQuery]:
    return {q.name: q for q in telemetry.asked if isinstance(q, MetricQuery)}


async def test_two_regions_are_never_added_up_the_write_region_is_shown():
    telemetry = ScriptedTelemetry(metrics=two_regions, account=TWO_REGIONS)
    report = await throughput(telemetry).report(Window.M15)

    # West US alone: 3,000 RU/s at its busiest, not the 4,500 of both regions
    assert [p.value for p in report.ru_per_s] == [1000.0, 2000.0, 3000.0]
    assert (report.region, report.region_note) == (WEST, "write region")
    assert report.requests == 1000 and report.throttled == 100  # West US's requests
    assert report.provisioned_ru_s == 4000.0  # each region has the whole RU/s
    assert report.headline.startswith("West US (write region): 100 × 429 of 1,000 requests")
    assert "busiest minute 3,000 of 4,000 RU/s (75.0 %)" in report.headline
    assert [(r.range_id, r.peak) for r in report.ranges] == [("0", 100.0), ("1", 100.0)]
    assert [p.value for p in report.latency_gateway_ms] == [6.0]
    # every region is named, with its own load
    loads = {r.region: (r.peak_ru_s, r.requests, r.throttled) for r in report.region_loads}
    assert loads == {WEST: (3000.0, 1000, 100), EAST: (1500.0, 400, 0)}
    assert report.regions == (WEST, EAST)
    # the questions after the first two are the shown region's
    questions = asked(telemetry)
    for name in (THROTTLES_BY_OPERATION, NORMALIZED_BY_RANGE, LATENCY):
        assert pinned_region(questions[name]) == WEST, name


async def test_another_region_is_shown_when_asked_in_any_spelling():
    telemetry = ScriptedTelemetry(metrics=two_regions, account=TWO_REGIONS)
    report = await throughput(telemetry).report(Window.M15, region="eastus")

    assert (report.region, report.region_note, report.region_asked) == (EAST, "chosen", "eastus")
    assert [p.value for p in report.ru_per_s] == [1500.0, 500.0, 1000.0]
    assert report.requests == 400 and report.throttled == 0
    assert report.headline.startswith("East US (chosen): no 429s in 15m")
    assert "busiest minute 1,500 of 4,000 RU/s (37.5 %)" in report.headline
    assert [p.value for p in report.latency_gateway_ms] == [3.0]
    assert next_region(None, report.regions) == WEST
    from cosmem_tui.core.regions import RegionView

    assert next_region(RegionView(EAST, "chosen", report.regions), report.regions) == WEST
    assert next_region(RegionView(WEST, "chosen", report.regions), report.regions) == EAST


async def test_a_region_the_account_does_not_have_is_said_and_the_write_region_shown():
    telemetry = ScriptedTelemetry(metrics=two_regions, account=TWO_REGIONS)
    report = await throughput(telemetry).report(Window.M15, region="Mars Central")

    assert report.region == WEST
    (problem,) = [p for p in report.problems if p.about == "regions"]
    assert "'Mars Central' is not a region of this account (West US, East US)" in problem.message


async def test_without_the_account_the_busiest_region_is_shown_and_said():
    unknown = AccountFacts()  # ARM not readable, no Cosmos hint
    telemetry = ScriptedTelemetry(metrics=two_regions, account=unknown)
    report = await throughput(telemetry).report(Window.M15)

    assert report.region == WEST  # 6,000 RU in the window against East US's 3,000
    assert report.region_note == "busiest region: the write region is unknown"
    assert [p.value for p in report.ru_per_s] == [1000.0, 2000.0, 3000.0]
    assert report.provisioned_ru_s == 4000.0  # the ProvisionedThroughput metric stands in


def shared_database(query: MetricQuery) -> MetricAnswer:
    """A database-level offer: its metrics exist at database granularity only — a
    CollectionName filter answers nothing (learn "monitor normalized RU")."""
    if query.container is not None and query.name in (RU, NORMALIZED_BY_RANGE, CAPACITY):
        return MetricAnswer(query, ())
    if query.name == RU:
        return MetricAnswer(query, (series(query, "TotalRequestUnits", [300_000.0], Region=EAST),))
    if query.name == NORMALIZED_BY_RANGE:
        return MetricAnswer(
            query,
            (series(query, "NormalizedRUConsumption", [88.0], PartitionKeyRangeId="0"),),
        )
    if query.name == CAPACITY:
        return MetricAnswer(
            query,
            (
                series(query, "ProvisionedThroughput", [2000.0]),
                series(query, "AutoscaleMaxThroughput", [20_000.0]),
            ),
        )
    return MetricAnswer(query, ())


SHARED = AccountFacts(
    regions=(EAST,),
    write_region=EAST,
    offer=Offer(ThroughputMode.SHARED, 20_000.0, autoscale=True, owner="database memory"),
)


async def test_a_shared_database_is_read_at_database_level_against_its_autoscale_max():
    telemetry = ScriptedTelemetry(metrics=shared_database, account=SHARED)
    report = await throughput(telemetry).report(Window.M15)

    questions = asked(telemetry)
    for name in (RU, NORMALIZED_BY_RANGE, CAPACITY):
        assert questions[name].database_level and questions[name].container is None, name
        assert questions[name].database == "memory"
    # what the container sees stays the container's
    for name in (REQUESTS_BY_STATUS, THROTTLES_BY_OPERATION, LATENCY):
        assert questions[name].container == "turns" and not questions[name].database_level
    assert [p.value for p in report.ru_per_s] == [5000.0]
    assert [(r.range_id, r.peak) for r in report.ranges] == [("0", 88.0)]
    assert report.autoscale and report.provisioned_ru_s == 20_000.0
    assert "busiest minute 5,000 of 20,000 RU/s shared by database memory (25.0 %)" in (
        report.headline
    )


async def test_an_autoscale_offer_from_arm_is_the_capacity_whatever_the_metric_says():
    autoscale = AccountFacts(
        regions=(EAST,),
        write_region=EAST,
        offer=Offer(ThroughputMode.DEDICATED, 10_000.0, autoscale=True, owner="container"),
    )

    def scaled_down(query: MetricQuery) -> MetricAnswer:
        if query.name == CAPACITY:  # autoscale has scaled down to a tenth
            return MetricAnswer(query, (series(query, "ProvisionedThroughput", [1000.0]),))
        return two_regions(query)

    telemetry = ScriptedTelemetry(metrics=scaled_down, account=autoscale)
    report = await throughput(telemetry).report(Window.M15)
    assert report.autoscale and report.provisioned_ru_s == 10_000.0


SERVERLESS = AccountFacts(
    regions=(EAST,), write_region=EAST, offer=Offer(ThroughputMode.SERVERLESS, owner="account")
)


async def test_a_serverless_account_says_so_instead_of_blanks():
    telemetry = ScriptedTelemetry(metrics=two_regions, account=SERVERLESS)
    report = await throughput(telemetry).report(Window.M15)

    assert CAPACITY not in asked(telemetry)  # there is no provisioned throughput to ask
    assert report.provisioned_ru_s is None and report.capacity == ()
    assert report.headline.endswith("serverless: no provisioned RU/s")
    assert "busiest minute 1,500 RU/s" in report.headline  # East US: the write region


# -- hot tenants ---------------------------------------------------------------------------


def table(name: LogName, *rows: tuple[Any, ...]) -> LogTable:
    return LogTable(LOG_COLUMNS[name], tuple(rows))


def regional_logs(query: LogQuery) -> LogAnswer:
    """Per-region RU logs: contoso spends 900 RU/s of a second in West US, 300 in East US
    (its reads); a query without a region would see both."""
    per_region = {"westus": 900.0, "eastus": 300.0, None: 1200.0}
    peak = per_region[query.region]
    tables = {
        LogName.KEY_USAGE: table(
            LogName.KEY_USAGE,
            ('["contoso"]', "0", 1, peak * 10, peak, peak * 10, peak, 1, ["0"]),
        ),
        LogName.PARTITION_USAGE: table(LogName.PARTITION_USAGE, ("0", peak * 10, peak, 1)),
        LogName.KEY_THROTTLES: table(LogName.KEY_THROTTLES),
        LogName.KEY_STORAGE: table(LogName.KEY_STORAGE),
        LogName.REQUEST_TOTALS: table(LogName.REQUEST_TOTALS, (100, 0, 0, 0, 0.0)),
    }
    return LogAnswer(query, tables[query.name], as_of=NOW - 40)


def hot(telemetry: ScriptedTelemetry) -> HotKeysService:
    clock = FrozenClock(NOW)
    return HotKeysService(TelemetryReader(telemetry, clock), clock, Container("memory", "turns"))


def logs_asked(telemetry: ScriptedTelemetry) -> list[LogQuery]:
    return [q for q in telemetry.asked if isinstance(q, LogQuery)]


async def test_hot_tenants_read_the_logs_of_one_region_against_that_regions_budget():
    telemetry = ScriptedTelemetry(metrics=two_regions, logs=regional_logs, account=TWO_REGIONS)
    report = await hot(telemetry).report(Window.M15)

    assert {q.region for q in logs_asked(telemetry)} == {"westus"}
    (contoso,) = report.rows
    # 900 RU in its busiest second against 2,000 RU/s (4,000 over two partitions), not
    # the 1,200 of both regions' logs together
    assert contoso.partition_share == 900.0 / 2000.0
    assert (report.region, report.regions) == (WEST, (WEST, EAST))
    assert report.caveats[0] == "region West US (write region): that region's logs only"

    east = await hot(telemetry).report(Window.M15, region=EAST)
    assert east.rows[0].partition_share == 300.0 / 2000.0
    assert logs_asked(telemetry)[-1].region == "eastus"


async def test_without_a_region_no_budget_is_held_against_one_regions_ru_s():
    def no_regions(query: MetricQuery) -> MetricAnswer:
        if query.name == RU:
            return MetricAnswer(query, ())  # no traffic the metrics could name
        return two_regions(query)

    telemetry = ScriptedTelemetry(metrics=no_regions, logs=regional_logs, account=AccountFacts())
    report = await hot(telemetry).report(Window.M15)
    assert {q.region for q in logs_asked(telemetry)} == {None}
    assert report.rows[0].partition_share is None
    assert report.provisioned_ru_s is None
    assert report.caveats[0] == UNKNOWN_REGION_CAVEAT


async def test_hot_tenants_of_a_serverless_account_have_no_budget_and_say_why():
    telemetry = ScriptedTelemetry(metrics=two_regions, logs=regional_logs, account=SERVERLESS)
    report = await hot(telemetry).report(Window.M15)
    assert report.rows[0].partition_share is None and report.provisioned_ru_s is None
    assert report.caveats[0] == "serverless: no provisioned RU/s, so no BUDGET"


async def test_hot_tenants_on_a_shared_database_use_its_offer_and_its_partitions():
    telemetry = ScriptedTelemetry(metrics=shared_database, logs=regional_logs, account=SHARED)
    report = await hot(telemetry).report(Window.M15)
    # 20,000 RU/s over the database's one partition; the logs are East US's
    assert report.provisioned_ru_s == 20_000.0
    assert report.rows[0].partition_share == 300.0 / 20_000.0
    assert report.caveats[0].startswith("shared throughput: database memory's RU/s")
    normalized = asked(telemetry)[NORMALIZED_BY_RANGE]
    assert normalized.database_level and normalized.container is None
