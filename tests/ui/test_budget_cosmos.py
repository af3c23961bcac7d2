"""The RU budget in the real app, on the fake gateway at a real account's shape (Pilot).

At start-up the console lists the tenants and counts the rows on screen in the
background: with a 3,000-item tenant among 3,000 others it stays within the budget
(one count of that tenant alone cost 275 RU before). A request that still costs more than it
was let through at is not hidden: the header marks the cost ``⚠ over`` and the status
line names the request.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.widgets import Static

from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.model import Key, SystemClock
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.widgets.header import SessionHeader
from cosmem_tui.ui.widgets.row_list import RowList
from tests.helpers import exchange
from tests.ui.conftest import settle


def account_with(
    fake_cosmos: Any, items: list[dict[str, Any]], budget: float = 50.0
) -> CosmosSettings:
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=4, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", items)
    return CosmosSettings(
        endpoint=fake_cosmos.endpoint,
        database="db",
        container="memory",
        auth=AuthMode.KEY,
        key=fake_cosmos.key,
        ru_budget=budget,
    )


def cosmos_app(settings: CosmosSettings, tmp_path: Path) -> CosmemApp:
    async def open_it():
        return await open_cosmos_session(settings, "lab", SystemClock(), tmp_path / "schemas")

    return CosmemApp(session_factory=open_it)


def header(app: CosmemApp) -> str:
    return app.screen.query_one(SessionHeader).render().plain


def status(app: CosmemApp) -> str:
    return app.browse.query_one("#status", Static).render().plain


async def until(pilot, condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout  # a bound for a shared machine, not a timing
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the screen")
        await pilot.pause(0.02)
    await pilot.pause()


def tenants(app: CosmemApp) -> RowList:
    return app.browse.query_one("#tenants", RowList)


async def test_start_up_counts_stay_within_the_budget_beside_a_large_tenant(fake_cosmos, tmp_path):
    items = [exchange(f"tenant-{n:05d}", "t0", 0) for n in range(3000)]
    items += [exchange("acme", "big", i, text="hello world " * 20) for i in range(3000)]
    app = cosmos_app(account_with(fake_cosmos, items, budget=80.0), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.session is not None)
        await until(pilot, lambda: tenants(app).row_count == 3001)
        await settle(pilot)
        ledger = app.session.ledger
        totals = ledger.totals()
        assert 0 < totals.request_units <= 80.0  # one count of acme alone cost 275 RU
        assert totals.overruns == 0 and ledger.overruns() == []
        assert " / 80 RU" in header(app) and "⚠ over" not in header(app)
        acme = app.session.browse.directory.count_state(Key.of("acme"))
        assert acme is not None and acme.counts is not None  # counted, at the top of the list
        assert acme.counts.items == 3000 and acme.request_units < 30
        assert all(r.background for r in ledger.records() if "count" in r.operation)


async def test_an_overrun_is_marked_in_the_header_and_named_on_the_status_line(
    fake_cosmos, tmp_path
):
    # Items of 20 KB: listing a tenant's threads reads them all and costs many times what
    # the session has seen a request cost, so opening the tenant passes the budget
    # without a question.
    items = [exchange("acme", f"t{i % 3}", i, text="x" * 20_000) for i in range(150)]
    app = cosmos_app(account_with(fake_cosmos, items), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.session is not None)
        await until(pilot, lambda: tenants(app).row_count == 1)
        await settle(pilot)
        assert "⚠ over" not in header(app) and app.session.ledger.overruns() == []
        await pilot.press("enter")  # acme's threads
        await until(pilot, lambda: app.session.ledger.totals().overruns > 0)
        await settle(pilot)
        (overrun,) = app.session.ledger.overruns()
        assert overrun.operation == "list-threads" and overrun.cost_ru > 50.0
        assert "⚠ over" in header(app)
        assert status(app).startswith("over the RU budget: list-threads (tenant acme) was let")
        records = [r for r in app.session.ledger.records() if r.over_budget]
        assert records and records[0].admitted_ru is not None
        assert records[0].admitted_ru < records[0].request_units
