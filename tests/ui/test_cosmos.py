"""The real app on a peer-hosted container behind the fault proxy (Pilot).

While the account throttles the console, the header says so, keys still get an answer,
and once the SDK's retries run out the pane shows the 429 with its retry-after and
the console keeps working. A cross-partition query over budget waits for a yes.
"""

from __future__ import annotations

import time

from textual.widgets import Static

from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.model import Key, SystemClock
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.confirm import ConfirmBudget
from cosmem_tui.ui.help import HelpScreen
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.widgets.header import SessionHeader
from cosmem_tui.ui.widgets.row_list import RowList
from tests.helpers import exchange
from tests.peer.fault_proxy import Fault
from tests.ui.conftest import screen_text, settle


def header(app) -> str:
    return app.screen.query_one(SessionHeader).render().plain


def status(app) -> str:
    return app.browse.query_one("#status", Static).render().plain


async def until(pilot, condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the screen")
        await pilot.pause(0.02)
    await pilot.pause()  # let what appeared finish mounting before the next key


def cosmos_app(settings, tmp_path) -> CosmemApp:
    async def open_it():
        return await open_cosmos_session(settings, "lab", SystemClock(), tmp_path / "schemas")

    return CosmemApp(session_factory=open_it)


async def test_throttled_console_says_so_and_keeps_answering_keys(
    containers, fault_proxy, tmp_path
):
    seeded = await containers()
    settings = seeded.settings(endpoint=fault_proxy.endpoint, timeout_s=20.0)
    # Every query is throttled: the whole console holds off 700 ms after each 429.
    throttle = fault_proxy.add(Fault(status=429, retry_after_ms=700, queries_only=True))
    app = cosmos_app(settings, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "holding off" in header(app))
        first = header(app)
        await until(pilot, lambda: header(app) != first and "holding off" in header(app))
        await pilot.press("question_mark")  # a key while requests are being throttled
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), timeout=10.0)
        # Answered during the storm, not after it: the storm lasts until clear() below, so
        # no query has had an answer yet (no wall-clock bound: CI machines are shared).
        assert app.browse.query_one("#tenants", RowList).row_count == 0
        hits = throttle.hits
        await until(pilot, lambda: throttle.hits > hits, timeout=10.0)  # still throttled
        await pilot.press("escape")
        await until(pilot, lambda: "2×429" in header(app))  # every 429 is counted
        # The storm passes: the console was still trying, and the list arrives by itself.
        fault_proxy.clear()
        await until(pilot, lambda: app.browse.query_one("#tenants", RowList).row_count == 3)
        await until(pilot, lambda: "holding off" not in header(app))
        assert app.session.ledger.totals().throttled >= 2


async def test_over_budget_listing_waits_for_a_yes(containers, tmp_path):
    items = [exchange(f"tenant-{n:02d}", "t", 0) for n in range(12)]
    seeded = await containers(items)
    app = cosmos_app(seeded.settings(ru_budget=10), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ConfirmBudget))
        question = app.screen.query_one("#question", Static).render().plain
        assert "RU more" in question and "Raise the budget" in question
        asked = 0
        tenants = app.browse.query_one("#tenants", RowList)
        while tenants.row_count < 12 or "loose index scan" not in status(app):
            if isinstance(app.screen, ConfirmBudget):
                asked += 1
                await pilot.press("y")
            await pilot.pause(0.05)
        # Estimates of an unfinished listing are guesses; each yes grants at least one more
        # budget, so the question comes back a few times at most, never once per page.
        assert 1 <= asked <= 2
        assert app.session.ledger.budget_ru > 10 and " / 10 RU" not in header(app)


async def test_declining_leaves_a_readable_line_and_what_was_listed(containers, tmp_path):
    items = [exchange(f"tenant-{n:02d}", "t", 0) for n in range(12)]
    seeded = await containers(items)
    app = cosmos_app(seeded.settings(ru_budget=10), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ConfirmBudget))
        await pilot.press("n")
        await until(pilot, lambda: "then the listing stopped" in status(app))
        assert "r goes on" in status(app)
        assert isinstance(app.screen, BrowseScreen) and app.browse.level is Level.TENANTS


async def test_browsing_a_peer_container_end_to_end(containers, tmp_path):
    seeded = await containers()
    app = cosmos_app(seeded.settings(), tmp_path)
    async with app.run_test(size=(180, 40)) as pilot:
        await settle(pilot)
        assert f"cosmos {seeded.endpoint}" in header(app)
        assert "pk [/tenantId,/threadId]" in header(app) and " / 400 RU" in header(app)
        await pilot.press("enter")  # acme, the first tenant
        await settle(pilot)
        assert app.browse.tenant == Key.of("acme")
        # Threads are listed newest first, and the seeding may cross a second boundary
        # between t1 and t2: pick t1 (the one with embeddings) by name, not by position.
        await pilot.press("slash", *"t1", "enter", "enter")
        await settle(pilot)
        assert app.browse.level is Level.TURNS
        assert app.browse.thread is not None and app.browse.thread.thread == Key.of("t1")
        await pilot.press("enter")
        await settle(pilot)
        detail = app.browse.query_one("#detail-body", Static).render().plain
        assert '"_etag"' in detail and '"embedding"' in detail  # the point read is whole
        subtitle = app.browse.query_one("#detail").border_subtitle
        assert "point read 1 request, 1.0 RU" in str(subtitle)


async def test_the_tail_falls_back_to_the_latest_version_where_all_versions_is_refused(
    containers, tmp_path
):
    from cosmem_tui.model.changes import FeedMode
    from cosmem_tui.ui.views.tail.screen import TailScreen

    seeded = await containers()  # the peer serves the latest version only
    app = cosmos_app(seeded.settings(), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("C")
        await until(pilot, lambda: "tailing the latest version: " in screen_text(app))
        assert isinstance(app.screen, TailScreen)
        assert app.screen.tail is not None and app.screen.tail.mode is FeedMode.LATEST
        shown = screen_text(app)
        assert "deletes and TTL expirations are not visible" in shown
        assert "latest version" in str(app.screen.listing.border_title)
