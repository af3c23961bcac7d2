"""A two-region account in the throughput and hot-tenant views, over the real Azure
Monitor clients (the fake Azure behind their transport): the write region is shown, ``z``
shows the other, and no number is the two regions' sum against one region's RU/s."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui import cli
from cosmem_tui.cli import telemetry
from cosmem_tui.model import FrozenClock
from cosmem_tui.ui.views.hot.screen import HotScreen
from cosmem_tui.ui.views.throughput.screen import ThroughputScreen
from tests.sources.monitor.azure_fake import (
    RESOURCE_ID,
    AzureFake,
    Reply,
    Sent,
    metric,
    metrics_body,
)
from tests.sources.monitor.test_logs import Workspace
from tests.test_cli_telemetry import NOW, args, session_over
from tests.ui.conftest import settle
from tests.ui.test_telemetry_views import status, text_of
from tests.ui.test_views_over_azure_monitor import over_azure

START, END = NOW - 30 - 15 * 60, NOW - 30
MINUTES = [START + 60 * i for i in range(15)]
# RU per minute: West US takes the writes (3,000 RU/s at its busiest), East US the reads.
RU = {"West US": 180_000.0, "East US": 60_000.0}
OK = {"West US": 500.0, "East US": 200.0}
THROTTLED = {"West US": 9.0, "East US": 0.0}


def account(sent: Sent) -> Reply:
    """After a failover: the resource lives in East US, West US writes."""
    if sent.path != RESOURCE_ID:
        return Reply(200, {"properties": {"resource": {"throughput": 4000}}})
    regions = [
        {"locationName": "West US", "failoverPriority": 0},
        {"locationName": "East US", "failoverPriority": 1},
    ]
    return Reply(
        200,
        {
            "id": RESOURCE_ID,
            "location": "East US",
            "type": "Microsoft.DocumentDB/databaseAccounts",
            "properties": {"writeLocations": regions[:1], "locations": regions},
        },
    )


def regional(sent: Sent) -> Reply:
    """getBatch as Azure answers it: ``Region eq '*'`` splits, ``Region eq 'X'`` pins."""
    where = sent.params.get("filter", "")
    pinned = re.search(r"Region eq '([^'*]+)'", where)
    split = "Region eq '*'" in where
    regions = [pinned.group(1)] if pinned else list(RU)

    def dims(region: str, **more: str) -> dict[str, str]:
        return {**({"region": region} if split else {}), **more}

    body: list[dict[str, Any]] = []
    for name in sent.params["metricnames"].split(","):
        if name == "TotalRequestUnits":
            body.append(
                metric(
                    name, "Count", [(dims(r), [(MINUTES[-1], {"total": RU[r]})]) for r in regions]
                )
            )
        elif name == "TotalRequests" and "StatusCode eq '429'" in where:
            found = [r for r in regions if THROTTLED[r]]
            body.append(
                metric(
                    name,
                    "Count",
                    [
                        ({"operationtype": "Create"}, [(MINUTES[-1], {"count": THROTTLED[r]})])
                        for r in found
                    ],
                )
            )
        elif name == "TotalRequests":
            series = [
                (dims(r, statuscode="200"), [(MINUTES[-1], {"count": OK[r]})]) for r in regions
            ]
            series += [
                (dims(r, statuscode="429"), [(MINUTES[-1], {"count": THROTTLED[r]})])
                for r in regions
                if THROTTLED[r]
            ]
            body.append(metric(name, "Count", series))
        elif name == "NormalizedRUConsumption":
            level = 100.0 if regions == ["West US"] else 40.0
            body.append(
                metric(
                    name,
                    "Percent",
                    [({"partitionkeyrangeid": "0"}, [(MINUTES[-1], {"maximum": level})])],
                )
            )
        elif name in ("ProvisionedThroughput", "AutoscaleMaxThroughput"):
            body.append(metric(name, "Count", []))
        elif name == "ServerSideLatencyGateway":
            ms = 8.0 if regions == ["West US"] else 3.0
            body.append(metric(name, "MilliSeconds", [({}, [(MINUTES[-1], {"average": ms})])]))
        elif name == "ServerSideLatencyDirect":
            body.append(metric(name, "MilliSeconds", []))
    return Reply(200, metrics_body(START, END, *body))


def two_regions() -> tuple[AzureFake, Workspace]:
    fake = AzureFake()
    fake.answer("arm", account)
    fake.answer("metrics", regional)
    workspace = Workspace()
    fake.answer("logs", workspace.responder())
    return fake, workspace


async def test_the_throughput_view_shows_the_write_region_and_z_the_other(demo_path: Path):
    fake, _ = two_regions()
    app = over_azure(demo_path, FrozenClock(NOW), fake, region=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, ThroughputScreen)
        headline = text_of(app, "#headline")
        assert headline.startswith("⚠ West US (write region): 9 × 429 of 509 requests")
        assert "busiest minute 3,000 of 4,000 RU/s (75.0 %)" in headline  # not 4,000 of both
        source = text_of(app, "#source")
        assert "region West US (write region)" in source
        assert "metrics of eastus (ARM location)" in source  # the resource's, not the writes'
        assert "region West US (z cycles)" in status(app)
        assert "gateway" in text_of(app, "#latency") and "now 8.0" in text_of(app, "#latency")
        hosts = {s.host for s in fake.requests_to("metrics")}
        assert hosts == {"eastus.metrics.monitor.azure.com"}

        await pilot.press("z")
        await settle(pilot)
        headline = text_of(app, "#headline")
        assert headline.startswith("East US (chosen): no 429s in 15m")
        assert "busiest minute 1,000 of 4,000 RU/s (25.0 %)" in headline
        assert "now 3.0" in text_of(app, "#latency")
        pinned = [s.params["filter"] for s in fake.requests_to("metrics")]
        assert any("Region eq 'East US'" in f for f in pinned)
        assert not any("Region eq 'West US' and Region" in f for f in pinned)

        await pilot.press("colon", *"region West US", "enter")
        await settle(pilot)
        assert text_of(app, "#headline").startswith("⚠ West US (chosen)")


async def test_the_hot_view_reads_the_logs_of_the_region_shown(demo_path: Path):
    fake, workspace = two_regions()
    app = over_azure(demo_path, FrozenClock(NOW), fake, region=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        assert isinstance(app.screen, HotScreen)
        assert "region West US (write region)" in text_of(app, "#source")

        def regions_asked() -> set[str]:
            found = set()
            for name, _mode, request in workspace.asked:
                text = request["body"]["query"]
                if name.value != "tables":
                    found.add(re.search(r'let p_region = "([^"]*)";', text).group(1))
            return found

        assert regions_asked() == {"westus"}
        workspace.asked.clear()
        await pilot.press("z")
        await settle(pilot)
        assert "region East US (chosen)" in text_of(app, "#source")
        assert regions_asked() == {"eastus"}


async def test_the_command_line_chooses_the_region_with_region_view(
    capsys: pytest.CaptureFixture[str],
):
    fake, _ = two_regions()
    session = await session_over(fake, region=None, workspace_id=None)
    try:
        status = await telemetry.run_throttle(
            session, args("throttle", region_view="eastus"), io.StringIO()
        )
        default = await telemetry.run_throttle(session, args("throttle"), io.StringIO())
    finally:
        await session.close()
    assert status == default == cli.EXIT_OK
    east, west = [line for line in capsys.readouterr().err.splitlines() if "busiest" in line]
    assert "East US (chosen): no 429s in 15m" in east and "1,000 of 4,000 RU/s" in east
    assert "West US (write region): 9 × 429" in west and "3,000 of 4,000 RU/s" in west
    parser = cli.build_parser()
    parsed = parser.parse_args(["throttle", "--region-view", "West US"])
    assert parsed.region_view == "West US"
    assert parser.parse_args(["hot", "--region-view", "eastus"]).region_view == "eastus"
