"""A server that stops answering, in the real app on the fake gateway (Pilot).

The tenants are listed, then the account stops answering the counts. The two
background lanes meet it once each at most; the rest of the rows on screen are not
sent, the status line says so once and the header marks it, and a user action
(``c``: count the rows on screen) still tries, and brings the counts back once the
account answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Static

from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.model import Silence, SystemClock
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.widgets.header import SessionHeader
from cosmem_tui.ui.widgets.row_list import RowList
from tests.fake_cosmos import Fault
from tests.helpers import exchange
from tests.ui.conftest import settle


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


async def test_background_counts_stop_once_the_account_is_silent_and_c_tries_again(
    fake_cosmos, tmp_path
):
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=4, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", [exchange(f"tenant-{n:03d}", "t0", 0) for n in range(200)])
    # The listing is answered; every count (a COUNT or a _ts read) hangs.
    hang = fake_cosmos.faults.add(Fault(status=None, hang=True, query="FROM c WHERE"))
    settings = CosmosSettings(
        endpoint=fake_cosmos.endpoint,
        database="db",
        container="memory",
        auth=AuthMode.KEY,
        key=fake_cosmos.key,
        timeout_s=1.0,
    )
    app = cosmos_app(settings, tmp_path)
    heard: list[Silence] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.session is not None)
        await until(pilot, lambda: app.browse.query_one("#tenants", RowList).row_count == 200)
        app.session.ledger.subscribe_silence(heard.append)
        await until(pilot, lambda: "stopped answering" in status(app))
        await settle(pilot)
        ledger = app.session.ledger
        unanswered = [r for r in ledger.records() if r.outcome == "no answer"]
        assert 1 <= len(unanswered) <= 2  # the two lanes; not one deadline per row on screen
        assert hang.hits == len(unanswered)
        assert status(app).endswith(": background counts stopped · r tries again")
        assert "⚠ no answer" in header(app)
        directory = app.session.browse.directory
        shown = app.browse.query_one("#tenants", RowList).shown_indices()
        keys = [app.browse.top.rows.keys[i] for i in shown]
        assert all(directory.count_state(k).silent for k in keys)  # type: ignore[union-attr]
        fake_cosmos.faults.clear()  # the account answers again
        await pilot.press("c")  # a user action is sent, silent or not
        await until(pilot, lambda: not ledger.silent)
        await settle(pilot)
        assert "⚠ no answer" not in header(app)
        assert all(directory.count_state(k).counts is not None for k in keys)  # type: ignore[union-attr]
    assert [event.silent for event in heard] == [True, False]  # once, then once it is over
