"""The doctor view (``D`` / ``:doctor``) driven by Pilot at 80×24 and 120×40 on the demo,
and over a Cosmos container's refusals (the fake gateway's real 403s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views.doctor.screen import DoctorScreen
from tests.conftest import ANCHOR
from tests.fake_cosmos import Fault
from tests.helpers import exchange
from tests.sources.cosmos.test_access_probe import denial
from tests.ui.conftest import AppFactory, cells, screen_text, settle


def doctor_text(app: CosmemApp) -> str:
    from textual.widgets import Static

    return str(app.screen.query_one("#capability", Static).render())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_demo_is_reported_as_the_demo(make_app: AppFactory, demo_path: Path, size):
    app = make_app(demo_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        assert isinstance(app.screen, DoctorScreen)
        rows = cells(app, "capabilities")
        assert [r[0] for r in rows] == ["works"] * 8 + ["blocked"] + ["works"] * 2
        assert rows[4][1] == "throughput metrics · sim"  # the simulator answers it
        assert rows[9][1] == "all-versions change feed"  # the workspace's change log serves it
        text = screen_text(app)
        assert "10 works, 1 blocked" in text and "the embedded demo" in text
        # The selected row's checks: what was read and what it cost.
        detail = doctor_text(app)
        assert detail.startswith("works · browse · this session asks for it")
        assert "✓ ok readMetadata (data action)" in detail and "1 request, 1.0 RU sim" in detail
        if size == (120, 40):  # every capability on one screen
            assert "recall probe" in text
        for _ in range(8):
            await pilot.press("down")
        detail = doctor_text(app)
        assert detail.startswith("blocked · guarded writes")
        assert "fix start with --allow-writes" in detail


async def test_the_command_opens_it_and_r_checks_again(make_app: AppFactory, demo_path: Path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("doctor")
        await settle(pilot)
        assert isinstance(app.screen, DoctorScreen)
        session = app.session
        assert session is not None

        def doctor_requests() -> int:
            return sum(1 for r in session.ledger.records() if r.cause.startswith("doctor"))

        first = doctor_requests()
        assert first >= 1  # the workspace's properties at least, in the session's ledger
        await pilot.press("r")
        await settle(pilot)
        assert doctor_requests() > first
        assert "r check again" in screen_text(app)


async def test_a_refused_query_is_shown_with_the_role_to_grant(fake_cosmos, monkeypatch):
    """On a Cosmos container whose queries RBAC refuses: browse is blocked, and the
    detail names the missing action, the sub-status and the az command."""
    fake_cosmos.create_container("db", "memory", partition_key=["/tenantId", "/threadId"])
    fake_cosmos.seed("db", "memory", [exchange("acme", "t1", i) for i in range(3)])
    clock = FrozenClock(ANCHOR)
    settings = CosmosSettings(
        endpoint=fake_cosmos.endpoint,
        database="db",
        container="memory",
        auth=AuthMode.KEY,
        key=fake_cosmos.key,
    )
    options = SessionOptions(cosmos=settings, schema="lab")

    async def open_it():  # type: ignore[no-untyped-def]
        return await open_cosmos_session(settings, "lab", clock, Path("/nonexistent"))

    app = CosmemApp(options, clock=clock, session_factory=open_it)
    query = "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/executeQuery"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        fake_cosmos.faults.add(
            Fault(status=403, sub_status=5302, kind="query", message=denial(query))
        )
        await pilot.press("D")
        await settle(pilot)
        rows = cells(app, "capabilities")
        assert rows[0][:2] == ["blocked", "browse"]
        assert "lacks" in rows[0][2]
        detail = doctor_text(app)
        assert "✗ missing executeQuery (data action)" in detail
        assert "403, sub-status 5302 RbacUnauthorizedNameBasedDataRequest" in detail
        assert "fix assign the data-plane role Cosmos DB Built-in Data Reader" in detail
        assert "blocked, and this session asks for it: browse" in screen_text(app)
