"""The throughput and hot tenants views over Azure Monitor: the real SDK clients fed by
the fake Azure (the same answers ``cosmem hot`` / ``cosmem throttle`` are tested with),
so what an account's metrics and logs say is what the views draw; and the CLI and the
views agree on the demo's simulated workload at the same clock."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cosmem_tui import cli
from cosmem_tui.compose import open_local_session
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock
from cosmem_tui.sources.monitor.telemetry import open_monitor
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views.hot.screen import HotScreen
from cosmem_tui.ui.views.throughput.screen import ThroughputScreen
from tests.sources.monitor.azure_fake import AzureFake, FakeCredential, Reply, Sent, error_body
from tests.sources.monitor.conftest import FAST_RETRY
from tests.sources.monitor.test_logs import Workspace
from tests.test_cli_telemetry import NOW, metrics_answer
from tests.test_cli_telemetry import settings as monitor_settings
from tests.ui.conftest import cells, screen_text, settle
from tests.ui.telemetry_sources import services
from tests.ui.test_telemetry_views import text_of


def over_azure(
    demo_path: Path,
    clock: FrozenClock,
    fake: AzureFake,
    credential: FakeCredential | None = None,
    **changes: str,
) -> CosmemApp:
    """The demo's store with Azure Monitor (the fake) as its telemetry, calls in its ledger."""
    options = SessionOptions(workspace=demo_path, live_demo=False)

    async def open_it():  # type: ignore[no-untyped-def]
        session = open_local_session(options, clock)
        session.is_demo = True
        source = await open_monitor(
            monitor_settings(**changes),
            ledger=session.ledger,
            credential=credential or FakeCredential(),
            clock=clock,
            transport=fake.transport(),
            retry=FAST_RETRY,
        )
        session.closers.append(source.close)
        session.use_telemetry(services(source, clock, session.throughput.where))
        return session

    return CosmemApp(options, clock=clock, session_factory=open_it)


def answering(fake: AzureFake) -> AzureFake:
    fake.answer("metrics", metrics_answer)
    fake.answer("logs", Workspace().responder())
    return fake


async def test_throughput_from_azure_monitor(demo_path: Path):
    clock = FrozenClock(NOW)
    fake = answering(AzureFake())
    app = over_azure(demo_path, clock, fake)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ThroughputScreen)
        text = screen_text(app)
        # 15 minutes of 100 × 200 plus 7 × 429 in the last one (the fake's series)
        assert "⚠ 7 × 429 of 1,507 requests (0.5 %) in 15m" in text
        assert "partition 2 at 100 %" in text and "Azure Monitor · " in text
        assert "simulated" not in text  # a real account's data is never labelled so
        assert "╌ provisioned 4,000 RU/s" in text
        assert "Query" in text_of(app, "#throttles") and "7" in text_of(app, "#throttles")
        assert "now 4.5 · avg 4.5 · peak 4.5 ms" in text_of(app, "#latency")
        asked = {s.params["metricnames"] for s in fake.requests_to("metrics")}
        assert any("NormalizedRUConsumption" in names for names in asked)
        # every call to Azure Monitor is in the session's ledger, outside the RU total
        monitor = [r for r in app.session.ledger.records() if r.unit != "RU"]
        assert monitor and app.session.ledger.totals().monitor_calls == len(monitor)


async def test_hot_tenants_from_azure_monitor(demo_path: Path):
    clock = FrozenClock(NOW)
    app = over_azure(demo_path, clock, answering(AzureFake()))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        assert isinstance(app.screen, HotScreen)
        rows = cells(app, "keys")
        assert [r[0] for r in rows] == ["contoso", "42"]  # the numeric tenant keeps its row
        assert rows[0][1:4] == ["1,812", "240", "81.6%"]  # 1,812.5 of 2,220 RU
        text = screen_text(app)
        assert "contoso = 71 % of RU on partition 2" in text  # 1,500 of partition 2's 2,100
        assert "data as of 23:59:40 UTC" in text_of(app, "#source")  # how far it has ingested
        assert "top 2 of 57 keys" in text  # a cut table says so
        # Resource logs arrive 3–10 min late: two-thirds of the 15 minutes may be missing.
        source = text_of(app, "#source")  # the line as said (the screen wraps it)
        assert "(logs 3–10 min late: after 23:50 incomplete, 67 % of 15m)" in source
        assert "by RU · last 15m · newest 10 min incomplete" in text
        # The per-key 429s are those the RU log names a key for; the others are counted.
        assert "429 LOGGED" in text
        # The RU log counts the console's own queries too: said beside the window's RU.
        assert "2,220 RU in 15m (the console's own: 96 RU)" in source
        assert "12 of the window's 33 429s name no key" in text_of(app, "#notes")


async def test_a_metrics_403_is_explained_while_the_hot_table_still_works(demo_path: Path):
    def denied(sent: Sent) -> Reply:
        return Reply(
            403, error_body("AuthorizationFailed", "The client does not have authorization")
        )

    clock = FrozenClock(NOW)
    fake = AzureFake()
    fake.answer("metrics", denied)
    fake.answer("logs", Workspace().responder())
    app = over_azure(demo_path, clock, fake)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        text = screen_text(app)
        assert "403" in text and "Monitoring Reader on the subscription" in text
        await pilot.press("H")
        await settle(pilot)
        assert [r[0] for r in cells(app, "keys")] == ["contoso", "42"]


# -- the CLI and the views, same clock, same numbers -------------------------------------------


def test_cosmem_hot_prints_what_the_view_shows(
    demo_path: Path, frozen_system_time: FrozenClock, capsys: pytest.CaptureFixture[str]
):
    async def in_the_view() -> list[list[str]]:
        app = CosmemApp(
            SessionOptions(workspace=demo_path, live_demo=False), clock=frozen_system_time
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("H")
            await settle(pilot)
            return cells(app, "keys")

    shown_rows = asyncio.run(in_the_view())
    code = cli.main(["hot", "--workspace", str(demo_path), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code == cli.EXIT_OK and len(printed) == len(shown_rows) == 48
    assert [str(r["tenant"]) for r in printed] == [r[0] for r in shown_rows]
    assert [f"{r['ru']:,.0f}" for r in printed] == [r[1] for r in shown_rows]
    for r, row in zip(printed, shown_rows, strict=True):  # JSON keeps 2 and 4 decimals: 20.5 vs 21
        assert abs(r["peak_ru_s"] - float(row[2].replace(",", ""))) <= 0.51
        assert abs(r["share"] * 100 - float(row[3].rstrip("%"))) <= 0.051


def test_cosmem_throttle_prints_what_the_view_shows(
    demo_path: Path, frozen_system_time: FrozenClock, capsys: pytest.CaptureFixture[str]
):
    async def in_the_view() -> tuple[int, int]:
        app = CosmemApp(
            SessionOptions(workspace=demo_path, live_demo=False), clock=frozen_system_time
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("T")
            await settle(pilot)
            report = app.screen.report
            assert report is not None
            return report.requests, report.throttled

    requests, throttled = asyncio.run(in_the_view())
    code = cli.main(["throttle", "--workspace", str(demo_path), "--json"])
    points = json.loads(capsys.readouterr().out)
    assert code == cli.EXIT_OK
    by_status = [p for p in points if p["metric"] == "TotalRequests.Count"]
    assert {p["dimension"].rsplit("statuscode=", 1)[1] for p in by_status} >= {"200", "201"}
    assert requests > 0 and sum(p["value"] for p in by_status) == requests
    assert throttled == sum(p["value"] for p in by_status if p["dimension"].endswith("=429"))
