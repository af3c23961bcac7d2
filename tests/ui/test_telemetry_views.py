"""The throughput (``T``) and hot tenants (``H``) views driven through the real app."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from cosmem_tui.compose import open_local_session
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.model.telemetry import (
    KeyLevel,
    ProblemKind,
    TelemetryProblem,
    Window,
)
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.browse import BrowseScreen, Level
from cosmem_tui.ui.hot import HotScreen
from cosmem_tui.ui.throughput import ThroughputScreen
from cosmem_tui.ui.widgets.row_list import RowList
from cosmem_tui.ui.widgets.tile import Tile
from tests.ui.conftest import cells, settle
from tests.ui.telemetry_reports import HotKeysStub, ThroughputStub, usage


def make(demo_path: Path, clock: FrozenClock, **services) -> CosmemApp:  # type: ignore[no-untyped-def]
    options = SessionOptions(workspace=demo_path)

    async def open_it():  # type: ignore[no-untyped-def]
        session = open_local_session(options, clock)
        session.is_demo = True
        session.services.update(services)
        return session

    return CosmemApp(options, clock=clock, session_factory=open_it)


@pytest.fixture
def stubs(clock):  # type: ignore[no-untyped-def]
    return {"throughput": ThroughputStub(clock), "hot_keys": HotKeysStub(clock)}


def text_of(app: CosmemApp, selector: str) -> str:
    widget = app.screen.query_one(selector)
    rendered = widget.render()
    return getattr(rendered, "plain", str(rendered))


def status(app: CosmemApp) -> str:
    return app.screen.query_one("#status", Static).render().plain


def screen_text(app: CosmemApp) -> str:
    """Everything on screen as plain text (what the terminal would show)."""
    from rich.console import Console

    console = Console(width=app.size.width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


# -- throughput ---------------------------------------------------------------------------------


async def test_the_throughput_view_answers_is_it_throttling_where_since_when(
    demo_path, clock, stubs
):
    app = make(demo_path, clock, **stubs)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, ThroughputScreen) and app.current_view == "throttle"
        shown = screen_text(app)
        assert "⚠ 360 × 429 of 44,472 requests in 15m" in shown
        assert "partition 1 at 100 % since" in shown
        assert "simulated workload" in shown and "data as of 00:00 UTC" in shown
        assert "logs lag 20 s – 3 min" in shown
        assert "RU/s used vs provisioned · last 15m" in shown
        assert "╌ provisioned 1,000 RU/s" in shown and "╌╌╌" in shown  # the capacity line
        assert "23:45 (−15m)" in shown and "00:00 UTC" in shown  # the time axis
        assert "1 █100%" in shown  # the heat row: partition 1 is full
        assert "Query" in shown and "Upsert" in shown and "360 × 429" in shown
        assert "429 360 (0.8%)" in shown and "200 41,000" in shown
        assert "now 9.5 ms" in shown
        assert "window 15m (w cycles) · refresh every 5 s" in status(app)


async def test_window_cycling_asks_again_with_the_new_window(demo_path, clock, stubs):
    app = make(demo_path, clock, **stubs)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        throughput = stubs["throughput"]
        assert throughput.asked == [Window.M15]
        await pilot.press("w")
        await settle(pilot)
        assert throughput.asked[-1] is Window.H1
        screen = app.screen
        assert isinstance(screen, ThroughputScreen) and screen.report is not None
        assert screen.report.window is Window.H1
        assert "last 1h" in screen_text(app) and "23:00 (−1h)" in screen_text(app)
        app.run_command("window 24h")
        await settle(pilot)
        assert throughput.asked[-1] is Window.H24 and "window 24h" in status(app)
        app.run_command("window 2d")
        await settle(pilot)
        assert "unknown window" in status(app)


async def test_a_window_changed_while_a_fetch_is_out_is_asked_once_that_one_is_back(
    demo_path, clock
):
    """The answer for the old window is dropped, never shown as the new one's."""
    import asyncio

    class Slow(ThroughputStub):
        async def report(self, window):  # type: ignore[no-untyped-def]
            await asyncio.sleep(0.2)
            return await super().report(window)

    slow = Slow(clock)
    app = make(demo_path, clock, throughput=slow)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await pilot.pause(0.05)
        screen = app.screen
        assert isinstance(screen, ThroughputScreen) and screen.loop.in_flight
        await pilot.press("w")  # while the 15m answer is on its way
        await settle(pilot)
        assert slow.asked == [Window.M15, Window.H1]  # one after the other, never both at once
        assert screen.report is not None and screen.report.window is Window.H1


async def test_pause_refresh_now_and_a_hidden_view_does_not_poll(demo_path, clock, stubs):
    app = make(demo_path, clock, **stubs)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ThroughputScreen)
        loop = screen.loop
        loop.interval_s = 0.05  # (below the floor, only to make the test quick)
        loop.refresh_now()
        await pilot.pause(0.3)
        assert loop.fetches >= 3  # it polls while shown
        await pilot.press("p")
        assert loop.paused_by_user and "paused" in status(app)
        fetched = loop.fetches
        await pilot.pause(0.3)
        assert loop.fetches == fetched  # paused: no fetch
        await pilot.press("ctrl+r")  # refresh now, even while paused
        await settle(pilot)
        assert loop.fetches == fetched + 1
        await pilot.press("p", "B")  # resumed, then hidden behind browse
        await settle(pilot)
        fetched = loop.fetches
        asked = len(stubs["throughput"].asked)
        await pilot.pause(0.4)
        assert loop.fetches == fetched and loop.hidden
        assert len(stubs["throughput"].asked) == asked
        await pilot.press("T")  # shown again: it fetches at once
        await settle(pilot)
        assert loop.fetches > fetched


async def test_an_unchanged_report_redraws_nothing(demo_path, clock, stubs):
    app = make(demo_path, clock, **stubs)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        tiles = list(app.screen.query(Tile))
        before = [t.draws for t in tiles]
        for _ in range(3):
            await pilot.press("ctrl+r")  # the same minute: the same report
            await settle(pilot)
        assert [t.draws for t in tiles] == before
        slow = TelemetryProblem(
            ProblemKind.THROTTLED, "429 from Azure Monitor", about="metrics: latency"
        )
        stubs["throughput"].kwargs["problems"] = (slow,)  # one tile's question changed
        await pilot.press("ctrl+r")
        await settle(pilot)
        after = {t.id: t.draws for t in tiles}
        assert {t.id: n for t, n in zip(tiles, before, strict=True) if after[t.id] != n} == {
            "latency": before[tiles.index(app.screen.query_one("#latency"))]
        }  # only the latency tile was drawn again
        clock.advance(60)  # a new minute: the series move on, their tiles redraw
        await pilot.press("ctrl+r")
        await settle(pilot)
        moved = {t.id for t in tiles if t.draws > after[t.id]}
        assert moved == {"ru", "ranges", "throttles", "latency"}  # the statuses did not change


async def test_a_problem_is_shown_in_its_tile_with_its_fix_while_the_others_render(
    demo_path, clock
):
    denied = TelemetryProblem(
        ProblemKind.UNAUTHORIZED,
        "401 reading ServerSideLatencyDirect",
        fix="assign the Monitoring Reader role on the account",
        about="metrics: latency",
    )
    elsewhere = TelemetryProblem(
        ProblemKind.UNREACHABLE, "the metrics endpoint timed out", about="metrics: other"
    )
    app = make(demo_path, clock, throughput=ThroughputStub(clock, problems=(denied, elsewhere)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        latency = text_of(app, "#latency")
        assert "401 reading ServerSideLatencyDirect" in latency
        assert "Monitoring Reader" in latency  # the fix, in the tile
        assert "╌" in text_of(app, "#ru") and "Query" in text_of(app, "#throttles")
        problems = text_of(app, "#problems")  # unclaimed: shown above the tiles
        assert "metrics: other" in problems and "timed out" in problems
        await pilot.press("B")  # the other views go on
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen) and cells(app, "tenants")


async def test_without_telemetry_both_views_say_how_to_configure_it(demo_path, clock):
    app = make(demo_path, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        shown = screen_text(app)
        assert "no telemetry configured" in shown
        for word in ("--resource-id", "COSMEM_RESOURCE_ID", "--workspace-id"):
            assert word in text_of(app, "#unconfigured")
        assert app.screen.loop.fetches <= 1  # nothing to poll
        await pilot.press("H")
        await settle(pilot)
        message = app.screen.query_one("#keys", RowList).message
        assert message is not None and "COSMEM_WORKSPACE_ID" in message[0]
        await pilot.press("B")
        await settle(pilot)
        header = app.screen.query_one("#tenants", RowList).columns[0].title
        assert header == "TENANT  ▲ most items"  # what ▲ marks, without load data


# -- hot tenants ------------------------------------------------------------------------------


async def test_hot_tenants_by_ru_with_their_shares(demo_path, clock, stubs):
    app = make(demo_path, clock, **stubs)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        assert isinstance(app.screen, HotScreen) and app.current_view == "hot"
        rows = cells(app, "keys")
        assert [r[0] for r in rows] == ["contoso", "northwind", "fabrikam", "tailspin"]
        assert rows[0][1:6] == ["600,000", "2,000", "70.2%", "800%", "900"]
        assert rows[0][6] == "586 MB" and rows[3][6] == "36.6 MB"  # 37,500 KB
        shown = screen_text(app)
        assert "contoso = 63 % of RU on partition 1" in shown
        assert "logs lag 20 s – 3 min: data as of 23:59:30 UTC" in shown
        assert "storage: only the largest keys are logged" in shown
        assert "tenants by RU · last 15m" in shown and "4 keys" in shown


async def test_drill_into_a_tenant_and_back(demo_path, clock, stubs):
    app = make(demo_path, clock, **stubs)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        await pilot.press("j", "l")  # northwind's keys
        await settle(pilot)
        hot = app.screen
        assert isinstance(hot, HotScreen) and hot.tenant == Key.of("northwind")
        assert stubs["hot_keys"].asked[-1] == (Window.M15, KeyLevel.KEY, Key.of("northwind"))
        rows = cells(app, "keys")
        assert rows[0][0] == "thr-0" and len(rows) == 4
        assert hot.table.columns[0].title == "THREAD"
        assert "keys of northwind by RU" in screen_text(app)
        await pilot.press("h")
        await settle(pilot)
        assert hot.tenant is None and hot.key_title() == "TENANT"
        assert cells(app, "keys")[hot.table.cursor][0] == "northwind"  # where the user was
        assert stubs["hot_keys"].asked[-1] == (Window.M15, KeyLevel.TENANT, None)


async def test_filter_sort_and_switching_views_keep_their_state(demo_path, clock, stubs):
    app = make(demo_path, clock, **stubs)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        await pilot.press("slash", *"ab", "enter")  # fabrikam
        await settle(pilot)
        assert [r[0] for r in cells(app, "keys")] == ["fabrikam"]
        await pilot.press("escape")  # the first Esc clears the filter
        assert len(cells(app, "keys")) == 4
        await pilot.press("s")  # sort by the busiest second
        assert app.screen.table.columns[2].title == "PEAK/S▼"
        for _ in range(4):
            await pilot.press("s")
        assert [r[0] for r in cells(app, "keys")] == sorted(r[0] for r in cells(app, "keys"))
        await pilot.press("w", "slash", *"tail", "enter")
        await settle(pilot)
        await pilot.press("T", "B", "H")
        await settle(pilot)
        hot = app.screen
        assert isinstance(hot, HotScreen)
        assert hot.window is Window.H1 and hot.table.filter_text == "tail"
        assert [r[0] for r in cells(app, "keys")] == ["tailspin"]
        assert hot.sort.description == "name"


async def test_enter_opens_the_tenant_or_the_thread_in_browse(demo_path, clock, stubs):
    app = make(demo_path, clock, **stubs)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        await pilot.press("j", "enter")
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen) and app.current_view == "browse"
        assert browse.level is Level.THREADS and browse.tenant == Key.of("northwind")
        assert browse.top.current_key == Key.of("northwind")  # its row selected, as :tenant does
        real = browse.thread_column.threads[0].ref.thread  # a thread of northwind
        stubs["hot_keys"].kwargs["rows"] = (usage(Key.of("northwind", real.value), 5e3, 5e3),)
        await pilot.press("H", "l")  # northwind's keys: that thread
        await settle(pilot)
        hot = app.screen
        assert isinstance(hot, HotScreen) and hot.tenant == Key.of("northwind")
        assert cells(app, "keys")[0][0] == real.text
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is browse and browse.level is Level.TURNS
        assert browse.thread == ThreadRef(Key.of("northwind"), real)
        assert cells(app, "turns")


async def test_a_workspace_problem_is_shown_in_the_table_with_its_fix(demo_path, clock):
    missing = TelemetryProblem(
        ProblemKind.NO_WORKSPACE,
        "no Log Analytics workspace: per-key RU is only in the logs",
        fix="start with --workspace-id (or COSMEM_WORKSPACE_ID)",
        about="logs: key_usage",
    )
    stub = HotKeysStub(clock, rows=(), problems=(missing,))
    app = make(demo_path, clock, hot_keys=stub, throughput=ThroughputStub(clock))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        message = app.screen.query_one("#keys", RowList).message
        assert message is not None and "--workspace-id" in message[0]
        assert "logs: key_usage" in text_of(app, "#problems")
        await pilot.press("T")  # the metrics still work
        await settle(pilot)
        assert "429" in screen_text(app)


async def test_hostile_key_names_render_inert(demo_path, clock):
    names = ("[bold red]boom[/]", "\x1b[31mred\x1b[0m", "rtl\u202eevil", "a\nb")
    stub = HotKeysStub(clock, names=names)
    app = make(demo_path, clock, hot_keys=stub)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        table = app.screen.query_one("#keys", RowList)
        drawn = "\n".join(
            "".join(segment.text for segment in table.render_line(y)) for y in range(1, 5)
        )
        assert "[bold red]boom[/]" in drawn  # shown as typed, not as markup
        assert "\\x1b[31mred\\x1b[0m" in drawn and "\x1b" not in drawn
        assert "rtl\\u202eevil" in drawn and "\u202e" not in drawn
        assert "a b" in drawn  # a newline cannot break the row
        headline = text_of(app, "#headline")
        assert "[bold red]boom[/]" in headline  # the headline names the key: as text


async def test_100_000_keys_draw_only_the_rows_on_screen(demo_path, clock):
    from cosmem_tui.ui.hot_rows import HotRows

    many = tuple(
        usage(Key.of(f"tenant-{n:06d}"), 100_000.0 - n, 5e9, partition=str(n % 8))
        for n in range(100_000)
    )
    stub = HotKeysStub(clock, rows=many)
    drawn: list[int] = []
    original = HotRows.row

    def counting(self, index):  # type: ignore[no-untyped-def]
        drawn.append(index)
        return original(self, index)

    app = make(demo_path, clock, hot_keys=stub)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        HotRows.row = counting  # type: ignore[method-assign]
        try:
            await pilot.press("H")
            await settle(pilot)
            table = app.screen.query_one("#keys", RowList)
            assert table.row_count == 100_000
            assert 0 < len(set(drawn)) <= table.size.height  # only what is on screen
            drawn.clear()
            await pilot.press("G")
            await settle(pilot)
            assert table.current_index == 99_999
            assert drawn and min(drawn) >= 100_000 - table.size.height
        finally:
            HotRows.row = original  # type: ignore[method-assign]


# -- browse's tenant list -------------------------------------------------------------------


async def test_browse_shows_each_tenant_s_share_and_marks_load_when_known(demo_path, clock, stubs):
    app = make(demo_path, clock, **stubs)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tenants = app.screen.query_one("#tenants", RowList)
        assert tenants.columns[0].title == "TENANT  ▲ most RU, 15m"
        assert tenants.columns[1].title == "RU%"
        rows = {r[0]: r for r in cells(app, "tenants")}
        assert rows["▲ contoso"][1] == "70%"
        assert rows["northwind"][1] == "18%"
        assert rows["adatum"][1] == "0%"  # not in a complete report: no RU in the window
        assert [name for name in rows if name.startswith("▲")] == ["▲ contoso"]
        assert stubs["hot_keys"].asked == [(Window.M15, KeyLevel.TENANT, None)]


async def test_browse_marks_load_not_storage(demo_path, clock):
    """The tenant with most RU is not the one with most items: ▲ follows the RU."""
    stub = HotKeysStub(clock, names=("northwind", "contoso"))
    app = make(demo_path, clock, hot_keys=stub)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        marked = [r[0] for r in cells(app, "tenants") if r[0].startswith("▲")]
        assert marked == ["▲ northwind"]  # contoso holds the most items
