"""The core telemetry services over the demo's simulated workload: the numbers the views
and the CLI show obey what a physical partition can serve, and the burst shows up."""

from __future__ import annotations

from cosmem_tui.compose import open_local_session, telemetry_services
from cosmem_tui.core import records
from cosmem_tui.core.hot_keys import HotKeysService
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.core.throughput import Container, ThroughputService
from cosmem_tui.model import FrozenClock, Key
from cosmem_tui.model.telemetry import KeyLevel, Window
from cosmem_tui.sources.local import Workspace
from cosmem_tui.sources.simulated.workspace_keys import read_keys
from tests.sources.simulated.conftest import BURST, START

EPSILON = 1e-6


def services(simulated, at: float) -> tuple[ThroughputService, HotKeysService]:
    one = simulated(at)
    made = telemetry_services(one.telemetry, one.clock, Container("agentmemory", "turns"))
    return made.throughput, made.hot_keys


async def test_before_the_burst_nothing_is_throttled(simulated):
    throughput, _hot = services(simulated, START + 10)
    report = await throughput.report(Window.M15)
    assert report.throttled == 0
    assert report.provisioned_ru_s == 4000.0


async def test_the_burst_throttles_the_hot_tenants_partition(simulated):
    at = BURST + 150  # two and a half minutes into the burst
    throughput, hot = services(simulated, at)
    report = await throughput.report(Window.M15)
    assert report.throttled > 0
    assert any((r.peak or 0) >= 100.0 for r in report.ranges)
    assert "partition" in report.headline and "429" in report.headline

    keys = await hot.report(Window.M15)
    top = keys.rows[0]
    assert top.key == Key.of("contoso")
    assert keys.headline.startswith("contoso = ")
    full = {r.range_id for r in report.ranges if (r.peak or 0) >= 100.0}
    assert top.partition in full  # the hot tenant's partition is the full one


async def test_shares_are_shares(simulated):
    _throughput, hot = services(simulated, BURST + 150)
    for level in (KeyLevel.TENANT, KeyLevel.KEY):
        report = await hot.report(Window.M15, level=level)
        assert report.rows
        assert sum(r.share for r in report.rows) <= 1 + EPSILON
        partition_ru = {p.partition: p.ru for p in report.partitions}
        for row in report.rows:
            # A partition serves at most its budget each second; 429s consume nothing.
            assert row.partition_share is not None and row.partition_share <= 1 + EPSILON
            assert row.partition_ru <= row.ru + EPSILON
            assert row.partition_ru <= partition_ru[row.partition] + EPSILON
        # "X = n % of RU on partition P": never more than all of it
        share = int(report.headline.split(" = ")[1].split(" %")[0])
        assert 0 < share <= 100


async def test_drilling_into_the_hot_tenant_sums_to_it(simulated):
    _throughput, hot = services(simulated, BURST + 150)
    tenants = await hot.report(Window.M15)
    contoso = next(r for r in tenants.rows if r.key == Key.of("contoso"))
    threads = await hot.report(Window.M15, tenant=Key.of("contoso"))
    assert threads.level is KeyLevel.KEY and threads.tenant == Key.of("contoso")
    assert all(r.key.values[0] == "contoso" for r in threads.rows)
    if threads.keys_total == len(threads.rows):  # nothing cut
        assert abs(sum(r.ru for r in threads.rows) - contoso.ru) < 1e-3 * contoso.ru


async def test_the_hot_tenants_storage_is_shown_as_the_lower_bound_it_is(demo_path):
    """The statistics log the three largest keys of each partition: contoso's 1.5 MB is
    what its largest threads hold, a tenth of its items. It says "at least"."""
    session = open_local_session(SessionOptions(workspace=demo_path), FrozenClock(BURST + 150))
    try:
        assert session.hot_keys is not None
        report = await session.hot_keys.report(Window.M15)
    finally:
        await session.close()
    contoso = next(r for r in report.rows if r.key == Key.of("contoso"))
    workspace = Workspace.open(demo_path)
    try:
        held = sum(
            k.size_bytes or 0 for k in read_keys(workspace, BURST + 150) if k.values[0] == "contoso"
        )
    finally:
        workspace.close()
    assert contoso.storage_kb is not None and contoso.storage_lower_bound
    assert contoso.storage_kb * 1024 * 5 < held  # far short of the whole: hence "≥"
    record = records.hot_record(contoso, report.level, typed=True)
    assert record["storage_lower_bound"] is True
    unknown = next(r for r in report.rows if r.storage_kb is None)
    assert records.hot_record(unknown, report.level, typed=True)["storage_lower_bound"] is None


async def test_a_tenants_keys_headline_names_the_row_the_table_shows_first(simulated):
    """Drilled into the hot tenant during its burst: the headline is about the thread at
    the top of the table (it named another thread, the biggest on the busy partition),
    and names that partition's biggest thread only as the busiest partition's."""
    _throughput, hot = services(simulated, BURST + 150)
    keys = await hot.report(Window.M15, tenant=Key.of("contoso"))
    top = keys.rows[0]
    assert keys.headline.startswith(f"{top.key.text} = ")
    assert f"on partition {top.partition}," in keys.headline
    busiest = max(keys.partitions, key=lambda p: (p.peak_ru_s, p.ru))
    if busiest.partition != top.partition:
        assert f"; partition {busiest.partition} is the busiest: " in keys.headline
