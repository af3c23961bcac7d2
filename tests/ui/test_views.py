"""The views platform driven through the real app: switching views, the action registry, the
live refresh loop and the request ledger view."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.command import CommandPalette
from textual.screen import Screen
from textual.widgets import Static

from cosmem_tui.config.files import REFRESH_FLOOR_S
from cosmem_tui.model import Key
from cosmem_tui.ui.help import HelpScreen
from cosmem_tui.ui.refresh import RefreshLoop
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.views.requests.screen import RequestsScreen
from cosmem_tui.ui.widgets.row_list import RowList
from tests.ui.conftest import cells as rows
from tests.ui.conftest import settle


def hints(app) -> str:
    return app.screen.query_one("#hints", Static).render().plain


def ledger_rows(app) -> list[list[str]]:
    return rows(app, "ledger")


async def test_switching_views_keeps_each_view_s_state(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"north", "enter", "j", "enter")  # northwind's threads
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen) and browse.tenant == Key.of("northwind")
        await pilot.press("R")  # by key
        await settle(pilot)
        assert isinstance(app.screen, RequestsScreen) and app.current_view == "requests"
        await pilot.press("slash", *"count", "enter")  # a filter in the ledger
        await settle(pilot)
        await pilot.press("colon", *"browse", "enter")  # by :NAME
        await settle(pilot)
        assert app.screen is browse and browse.level is Level.THREADS
        assert browse.tenant == Key.of("northwind")
        assert browse.top.filter_text == "north"  # the tenant list's filter is still there
        app.action_command_palette()  # by the palette
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"requests view")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RequestsScreen)
        assert app.screen.query_one("#ledger", RowList).filter_text == "count"


async def test_the_ledger_shows_a_request_made_in_browse_within_one_refresh(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        requests = app.screen
        assert isinstance(requests, RequestsScreen)
        before = len(ledger_rows(app))
        assert before == app.session.ledger.totals().requests
        await pilot.press("B", "enter")  # open a tenant in browse: one more request
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)  # shown again: the loop fetches at once
        newest = ledger_rows(app)[0]
        assert "list-threads" in newest[6] and "browse: open a tenant" in newest[7]
        assert len(ledger_rows(app)) == before + 1
        summary = app.screen.query_one("#summary", Static).render().plain
        assert f"{before + 1} requests" in summary and "by action" in summary


async def test_pause_resume_and_refresh_now(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        requests = app.screen
        assert isinstance(requests, RequestsScreen)
        loop = requests.loop
        await pilot.press("p")
        assert loop.paused_by_user and "paused" in str(
            requests.query_one("#ledger").border_subtitle
        )
        fetched = loop.fetches
        await pilot.press("ctrl+r")  # refresh now, even while paused
        await settle(pilot)
        assert loop.fetches == fetched + 1 and loop.paused_by_user
        await pilot.press("p")
        await settle(pilot)
        assert not loop.paused_by_user and loop.fetches >= fetched + 2


async def test_a_hidden_view_does_not_poll(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        requests = app.screen
        assert isinstance(requests, RequestsScreen)
        requests.loop._interval_s = 0.05  # (below the floor, only to make the test quick)
        await pilot.press("B")
        await settle(pilot)
        fetched = requests.loop.fetches
        await pilot.pause(0.4)
        assert requests.loop.fetches == fetched and requests.loop.hidden
        await pilot.press("question_mark")  # a modal over the ledger also stops it
        await pilot.press("escape", "R")
        await settle(pilot)
        assert requests.loop.fetches > fetched  # shown again: it fetches


class SlowScreen(Screen[None]):
    """A view whose source takes longer than its interval."""

    def __init__(self) -> None:
        super().__init__()
        self.active = 0
        self.most = 0
        self.rendered = 0
        self.loop = RefreshLoop(self, self.fetch, self.render_value, interval_s=REFRESH_FLOOR_S)
        self.loop._interval_s = 0.01  # under the floor on purpose: many fetches, quickly

    def compose(self) -> ComposeResult:
        yield Static("slow")

    def on_mount(self) -> None:
        self.loop.shown()

    async def fetch(self) -> int:
        self.active += 1
        self.most = max(self.most, self.active)
        await asyncio.sleep(0.05)
        self.active -= 1
        return self.rendered

    def render_value(self, value: int) -> None:
        self.rendered += 1


async def test_no_fetch_ever_overlaps_another():
    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(SlowScreen())

    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause(0.6)
        screen = app.screen
        assert isinstance(screen, SlowScreen)
        for _ in range(5):
            screen.loop.refresh_now()  # asked again and again while one is in flight
        await pilot.pause(0.3)
        assert screen.rendered >= 4 and screen.most == 1  # never two fetches at once


def test_the_interval_has_a_floor():
    class Dummy:
        pass

    loop = RefreshLoop(Dummy(), None, None, interval_s=0.5)  # type: ignore[arg-type]
    assert loop.interval_s == REFRESH_FLOOR_S == 2.0
    loop.interval_s = 0.5  # set later (a profile's or a flag's refresh): the floor holds
    assert loop.interval_s == 2.0 and loop.describe() == "every 2 s"
    loop.interval_s = 10
    assert loop.interval_s == 10


async def test_help_hints_and_palette_list_exactly_the_registry(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        registry = app.registry
        applies = app.screen.hint_applies  # the tenant list: no level to go back to
        expected_hints = [a.hint for a in registry.for_view("browse") if a.hint and applies(a.id)]
        assert "back" in [a.hint for a in registry.for_view("browse")]
        assert "back" not in expected_hints
        shown = [part.split(" ", 1)[1] for part in hints(app).strip().split(" · ")]
        assert sorted(shown) == sorted(expected_hints)
        await pilot.press("question_mark")
        text = " ".join(app.screen.query_one(Static).render().plain.split())
        for action in registry.for_view("browse"):
            if registry.keys(action.id):
                assert " ".join(action.description.split()) in text
        for command, _ in registry.commands("browse"):
            assert command.usage in text
        await pilot.press("escape")
        from cosmem_tui.ui.palette import ActionProvider

        provider = ActionProvider(app.screen)
        listed = [hit.text async for hit in provider.discover()]
        expected = [
            a.description for a in registry.for_view("browse") if a.palette and registry.keys(a.id)
        ]
        assert listed == expected


async def test_rebinding_an_action_by_id_changes_its_key_everywhere(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        app.rebind({"browse.reload": "f5", "view.requests": "f2"})
        await pilot.pause()
        assert "F5 reload" in hints(app) and "r reload" not in hints(app)
        before = app.session.ledger.totals().requests
        await pilot.press("r")  # no longer reloads
        await settle(pilot)
        assert app.session.ledger.totals().requests == before
        await pilot.press("f5")  # does
        await settle(pilot)
        assert app.session.ledger.totals().requests > before
        await pilot.press("question_mark")
        assert "F5" in app.screen.query_one(Static).render().plain
        await pilot.press("escape", "f2")
        await settle(pilot)
        assert isinstance(app.screen, RequestsScreen)


async def test_unknown_and_misused_commands_say_so(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("tenant")
        await settle(pilot)
        status = app.screen.query_one("#status", Static).render().plain
        assert "usage: :tenant NAME" in status
        await pilot.press("R")
        await settle(pilot)
        app.run_command("tenant acme")  # a browse command, typed in the ledger
        await settle(pilot)
        said = app.screen.query_one("#status", Static).render().plain
        assert said == "usage: :tenant NAME, in the browse view (:browse)"
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


async def test_the_ledger_counts_its_rows_once_in_the_title(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        ledger = app.screen.query_one("#ledger", RowList)
        total = len(ledger_rows(app))
        assert str(ledger.border_title) == f"requests, newest first ({total:,})"
        await pilot.press("slash", *"no-such-request", "enter")
        await settle(pilot)
        assert str(ledger.border_title) == f"requests, newest first · 0 of {total:,}"
        # The border's other side says how it refreshes, not another count.
        assert str(ledger.border_subtitle) == "refresh every 5 s"


async def test_the_ledger_filter_matches_what_a_row_shows(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        ledger = app.screen.query_one("#ledger", RowList)
        first = ledger_rows(app)[0]
        clock, charge = first[1], first[3]  # TIME and RU, as the row shows them
        await pilot.press("slash", *clock, "enter")
        await settle(pilot)
        assert ledger.row_count and all(row[1] == clock for row in ledger_rows(app))
        await pilot.press("escape", "slash", *f"{charge} ", "enter")
        await settle(pilot)
        assert ledger.row_count and first in ledger_rows(app)


async def test_while_the_bar_is_open_the_keys_it_does_not_take_step_aside(make_app, demo_path):
    """One ``check_action``: with the bar open, Textual itself no longer offers the view's
    list keys (↓, PgDn…) under it; the live loop's refresh still runs."""
    from cosmem_tui.ui.widgets.command_bar import CommandBar

    def the_view_s(app) -> set[str]:
        """The keys Textual would run as the view's own actions now (not the app's)."""
        return {
            key
            for key, bound in app.screen.active_bindings.items()
            if bound.node is app.screen and not bound.binding.action.startswith("app.")
        }

    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        browse = app.browse
        top = browse.top
        await pilot.press("j")
        before = top.current_index
        assert {"down", "pagedown", "ctrl+b", "e", "v"} <= the_view_s(app)
        await pilot.press("slash")
        bar = browse.query_one(CommandBar)
        assert bar.is_open and bar.mode == "filter"
        assert not the_view_s(app)
        await pilot.press("down", "pagedown", "ctrl+b")
        await settle(pilot)
        assert bar.is_open and top.current_index == before  # the list did not move
        await pilot.press("escape")
        assert not bar.is_open and "down" in the_view_s(app)
        await pilot.press("R")
        await settle(pilot)
        requests = app.screen
        assert isinstance(requests, RequestsScreen)
        await pilot.press("colon")
        assert requests.query_one(CommandBar).is_open
        keys = the_view_s(app)
        assert "ctrl+r" in keys and not {"down", "pagedown", "e", "y"} & keys  # refresh runs
        await pilot.press("escape")
