"""Every pane's states a person can trust: loading, empty, failed (readable, with the fix and
``r``), partial — and a session that cannot open is a full-screen explanation."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import Key
from cosmem_tui.sources.errors import Unavailable
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.failure import SessionFailedScreen
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.widgets.row_list import RowList
from tests.helpers import build_workspace, exchange
from tests.ui.conftest import cells, settle


def status(app) -> str:
    return app.screen.query_one("#status", Static).render().plain


def message(widget: RowList) -> str:
    return widget.message[0] if widget.message else ""


class Flaky:
    """Make one store method fail the next ``times`` calls with a 503."""

    def __init__(self, store, name: str, times: int = 1) -> None:
        self.original = getattr(store, name)
        self.times = times
        setattr(store, name, self)

    async def __call__(self, *args, **kwargs):
        if self.times > 0:
            self.times -= 1
            raise Unavailable("503 service unavailable: the account is busy; try again")
        return await self.original(*args, **kwargs)


async def test_a_failed_listing_says_why_in_the_pane_and_r_clears_it(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        while app.session is None:
            await pilot.pause(0.02)
        Flaky(app.session.store, "list_keys")
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        browse.top.load(fresh=True)
        await settle(pilot)
        tenants = browse.top
        assert "listing tenants failed: 503 service unavailable" in message(tenants)
        assert "r retries" in message(tenants)  # the fix, in the pane itself
        assert "503" in status(app) and str(tenants.border_subtitle) == "failed"
        await pilot.press("r")
        await settle(pilot)
        assert tenants.message is None and tenants.row_count == 48
        assert "503" not in status(app)  # an old error never outlives a good reload


async def test_a_failed_page_of_turns_is_marked_and_the_rest_stays(make_app, tmp_path, clock):
    items = [exchange("acme", "long", i) for i in range(250)]
    path = build_workspace(tmp_path / "long.sqlite", items, now=int(clock.now()))
    app = make_app(path, demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter", "enter")
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen) and browse.level is Level.TURNS
        Flaky(app.session.store, "page_turns")
        await pilot.press("end")  # the newest page: it fails
        await settle(pilot)
        turns = browse.turn_column
        subtitle = str(turns.border_subtitle)
        assert "100 of" in subtitle and "1 page failed" in subtitle
        placeholders = [r for r in cells(app, "turns") if r == []]
        assert placeholders  # the rows that page would fill …
        shown = turns.source.placeholder(len(turns.window) - 1)
        assert shown is not None and shown.startswith("page failed: 503")  # … say so
        assert "… loading" not in shown
        await pilot.press("r")  # a reload pages again, from where the cursor is
        await settle(pilot)
        assert "failed" not in str(browse.turn_column.border_subtitle)


async def test_a_filter_with_no_match_says_so(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"zzz-nothing")
        said = "no tenants match 'zzz-nothing' (48 loaded; Esc clears)"
        assert said in status(app)
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        line = browse.top.render_line(1).text
        assert said in line  # not "loading tenants…"


async def test_a_tenant_that_fails_to_open_explains_itself(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        Flaky(app.session.store, "list_threads")
        await pilot.press("enter")
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        assert browse.level is Level.TENANTS  # back where the user was, nothing to show
        assert "503" in status(app) and "r retries" in status(app)
        await pilot.press("enter")
        await settle(pilot)
        assert browse.level is Level.THREADS and browse.tenant == Key.of("adatum")


async def test_a_session_that_cannot_open_is_a_full_screen_explanation(tmp_path: Path, clock):
    missing = tmp_path / "nowhere" / "w.sqlite"
    app = CosmemApp(SessionOptions(workspace=missing), clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(50):
            await pilot.pause(0.02)
            if isinstance(app.screen, SessionFailedScreen):
                break
        screen = app.screen
        assert isinstance(screen, SessionFailedScreen)
        shown = screen.query_one("#error", Static).render().plain
        assert f"no workspace at {missing}" in shown  # the whole message, wrapped
        assert "r try again" in screen.query_one("#keys", Static).render().plain
        await pilot.press("r")  # still missing: explained again
        for _ in range(50):
            await pilot.pause(0.02)
            if isinstance(app.screen, SessionFailedScreen):
                break
        assert isinstance(app.screen, SessionFailedScreen)
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 1
