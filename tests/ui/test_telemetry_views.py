"""The throughput (``T``) and hot tenants (``H``) views driven through the real app.

The session is the demo workspace with its simulated workload (the real simulator, the
real telemetry reader and services); the clock is frozen and stepped past the hot
tenant's first burst (45 s into the session) so the 429s are there. Problems are
injected where Azure Monitor would answer with one (``Watched``); hostile names and
100,000 keys come from a key table (``KeyTable``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Static

from cosmem_tui.compose import open_local_session
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.model.telemetry import (
    KeyLevel,
    LogQuery,
    ProblemKind,
    TelemetryProblem,
    Window,
)
from cosmem_tui.sources.telemetry import Telemetry
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.views.hot.screen import HotScreen
from cosmem_tui.ui.views.throughput.screen import ThroughputScreen
from cosmem_tui.ui.widgets.row_list import RowList
from cosmem_tui.ui.widgets.tile import Tile
from tests.ui.conftest import cells, screen_text, settle
from tests.ui.telemetry_sources import KeyTable, Watched, services

AFTER_BURST_S = 240  # the burst starts 45 s in: three whole minutes of it by then


def make(
    demo_path: Path,
    clock: FrozenClock,
    *,
    source: Callable[[Telemetry], Telemetry] | None = None,
    top: int | None = None,
    telemetry: bool = True,
) -> CosmemApp:
    """The demo session; ``source`` replaces its telemetry source (given the simulator)."""
    options = SessionOptions(workspace=demo_path, live_demo=False)

    async def open_it():  # type: ignore[no-untyped-def]
        session = open_local_session(options, clock)
        session.is_demo = True
        if not telemetry:  # as a Cosmos session without --resource-id
            session.use_telemetry(None)
        elif source is not None:
            reader, where = session.telemetry, session.throughput.where
            session.use_telemetry(services(source(reader.telemetry), clock, where, top=top))
        return session

    return CosmemApp(options, clock=clock, session_factory=open_it)


def text_of(app: CosmemApp, selector: str) -> str:
    rendered = app.screen.query_one(selector).render()
    return getattr(rendered, "plain", str(rendered))


def status(app: CosmemApp) -> str:
    return app.screen.query_one("#status", Static).render().plain


async def open_view(pilot, key: str, *, after_s: float = AFTER_BURST_S) -> None:  # type: ignore[no-untyped-def]
    """Settle browse, let the clock run on, then switch to the view."""
    await settle(pilot)
    pilot.app.clock.advance(after_s)
    await pilot.press(key)
    await settle(pilot)


# -- throughput ---------------------------------------------------------------------------------


async def test_the_throughput_view_answers_is_it_throttling_where_since_when(demo_path, clock):
    app = make(demo_path, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "T")
        screen = app.screen
        assert isinstance(screen, ThroughputScreen) and app.current_view == "throttle"
        report = screen.report
        assert report is not None and report.throttled > 0  # the burst throttles
        text = screen_text(app)
        assert f"⚠ {report.throttled:,} × 429 of {report.requests:,} requests" in text
        assert "at 100 % since 00:00 UTC" in text  # the hot partition, since the burst
        assert "simulated workload" in text and "data as of 00:04 UTC" in text
        assert "min late" not in text  # metrics only: the logs' delay is :hot's to tell
        assert "RU/s used vs provisioned · last 15m" in text
        assert f"╌ provisioned {report.provisioned_ru_s:,.0f} RU/s" in text and "╌╌╌" in text
        assert "23:49 (−15m)" in text and "00:04 UTC" in text  # the time axis
        full = [r.range_id for r in report.ranges if (r.peak or 0) >= 100]
        assert full and all(f"{r} █100%" in text for r in full)  # the heat row
        top = report.throttles[0]
        assert top.operation in text_of(app, "#throttles")
        assert f"{top.total:,}" in text_of(app, "#throttles")
        assert f"429 {report.throttled:,} (" in text_of(app, "#statuses")
        assert "now " in text_of(app, "#latency") and " ms" in text_of(app, "#latency")
        assert "window 15m (w cycles) · refresh every 5 s" in status(app)


async def test_the_429s_appear_on_the_next_refresh_once_the_burst_is_in(demo_path, clock):
    app = make(demo_path, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "T", after_s=30)  # no whole minute of the session yet
        screen = app.screen
        assert isinstance(screen, ThroughputScreen)
        assert "no 429s in 15m" in text_of(app, "#headline")
        assert "no 429s in the last 15m" in text_of(app, "#throttles")
        clock.advance(AFTER_BURST_S - 30)
        screen.loop.refresh_now()  # what the 5 s timer does
        await settle(pilot)
        assert "× 429" in text_of(app, "#headline")
        assert "no 429s" not in text_of(app, "#throttles")


async def test_window_cycling_asks_again_with_the_new_window(demo_path, clock):
    watched: list[Watched] = []
    app = make(demo_path, clock, source=lambda inner: watched.append(Watched(inner)) or watched[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "T")
        source = watched[0]
        assert source.windows()[-1] == 15 * 60
        await pilot.press("w")
        await settle(pilot)
        assert source.windows()[-1] == 60 * 60
        screen = app.screen
        assert isinstance(screen, ThroughputScreen) and screen.report is not None
        assert screen.report.window is Window.H1
        assert "last 1h" in screen_text(app) and "23:04 (−1h)" in screen_text(app)
        app.run_command("window 24h")
        await settle(pilot)
        assert source.windows()[-1] == 24 * 3600 and "window 24h" in status(app)
        app.run_command("window 2d")
        await settle(pilot)
        assert "unknown window" in status(app)


async def test_a_window_changed_while_a_fetch_is_out_is_asked_once_that_one_is_back(
    demo_path, clock
):
    """The answer for the old window is dropped, never shown as the new one's."""
    watched: list[Watched] = []
    gate = asyncio.Event()  # closed: the next answer stays out until the window has changed
    gate.set()

    def slow(inner: Telemetry) -> Telemetry:
        watched.append(Watched(inner, gate=gate))
        return watched[0]

    app = make(demo_path, clock, source=slow)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        gate.clear()
        asked_before = len(watched[0].windows())
        await pilot.press("T")
        screen = app.screen
        assert isinstance(screen, ThroughputScreen)
        for _ in range(200):  # until the 15 min question is out (bounded, not timed)
            if screen.loop.in_flight and len(watched[0].windows()) > asked_before:
                break
            await pilot.pause(0.02)
        assert screen.loop.in_flight
        await pilot.press("w")  # while the 15 min answer is on its way
        await pilot.pause(0.05)
        assert sorted(set(watched[0].windows())) == [15 * 60]  # not asked again while out
        gate.set()
        await settle(pilot)
        spans = sorted(set(watched[0].windows()))
        assert spans == [15 * 60, 60 * 60]  # asked one after the other, never both at once
        assert screen.report is not None and screen.report.window is Window.H1


async def test_pause_refresh_now_and_a_hidden_view_does_not_poll(demo_path, clock):
    app = make(demo_path, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "T")
        screen = app.screen
        assert isinstance(screen, ThroughputScreen)
        loop = screen.loop
        loop._interval_s = 0.05  # (below the floor, only to make the test quick)
        loop.refresh_now()
        await pilot.pause(0.5)
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
        await pilot.pause(0.4)
        assert loop.fetches == fetched and loop.hidden
        await pilot.press("question_mark", "escape", "T")  # shown again: it fetches at once
        await settle(pilot)
        assert loop.fetches > fetched


async def test_an_unchanged_report_redraws_nothing(demo_path, clock):
    watched: list[Watched] = []
    app = make(demo_path, clock, source=lambda inner: watched.append(Watched(inner)) or watched[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "T")
        tiles = list(app.screen.query(Tile))
        before = {t.id: t.draws for t in tiles}
        asked = len(watched[0].asked)
        for _ in range(3):
            clock.advance(5)  # the same minute: the metrics have not moved
            await pilot.press("ctrl+r")
            await settle(pilot)
        assert len(watched[0].asked) > asked  # asked again each time …
        assert {t.id: t.draws for t in tiles} == before  # … and nothing was drawn again
        watched[0].problems["metrics: latency"] = TelemetryProblem(
            ProblemKind.THROTTLED, "429 from Azure Monitor", about="metrics: latency"
        )
        await pilot.press("ctrl+r")  # one tile's question changed
        await settle(pilot)
        redrawn = {t.id for t in tiles if t.draws != before[t.id]}
        assert redrawn == {"latency"}
        after = {t.id: t.draws for t in tiles}
        clock.advance(60)  # a new minute: the series move on, their tiles redraw
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert {"ru", "ranges", "throttles"} <= {t.id for t in tiles if t.draws > after[t.id]}


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
    problems = {"metrics: latency": denied, "metrics: requests_by_status": elsewhere}
    app = make(demo_path, clock, source=lambda inner: Watched(inner, problems))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "T")
        latency = text_of(app, "#latency")
        assert "401 reading ServerSideLatencyDirect" in latency
        assert "Monitoring Reader" in latency  # the fix, in the tile
        assert "╌" in text_of(app, "#ru")  # the other tiles are drawn
        assert "100%" in text_of(app, "#ranges") and "×" not in text_of(app, "#latency")
        unclaimed = text_of(app, "#problems")  # no tile claims it: above the tiles
        assert "metrics: other" in unclaimed and "timed out" in unclaimed
        await pilot.press("B")  # the other views go on
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen) and cells(app, "tenants")


async def test_without_telemetry_both_views_say_how_to_configure_it(demo_path, clock):
    app = make(demo_path, clock, telemetry=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_view(pilot, "T")
        assert "no telemetry configured" in screen_text(app)
        for word in ("--resource-id", "COSMEM_RESOURCE_ID", "--workspace-id"):
            assert word in text_of(app, "#unconfigured")
        assert app.screen.loop.fetches <= 1  # nothing to poll
        await pilot.press("H")
        await settle(pilot)
        message = app.screen.query_one("#keys", RowList).message
        assert message is not None and "COSMEM_WORKSPACE_ID" in message[0]
        await pilot.press("B")
        await settle(pilot)
        tenants = app.screen.query_one("#tenants", RowList)
        assert tenants.columns[0].title == "TENANT  ▲ most items"  # what ▲ marks now
        assert "RU%" not in [c.title for c in tenants.columns]


# -- hot tenants ------------------------------------------------------------------------------


async def test_hot_tenants_by_ru_with_their_shares(demo_path, clock):
    app = make(demo_path, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "H")
        hot = app.screen
        assert isinstance(hot, HotScreen) and app.current_view == "hot"
        report = hot.report
        assert report is not None and report.rows[0].key == Key.of("contoso")  # the burst
        rows = cells(app, "keys")
        assert len(rows) == len(report.rows) == 48
        first = report.rows[0]
        assert rows[0][:4] == [
            "contoso",
            f"{first.ru:,.0f}",
            f"{first.peak_ru_s:,.0f}",
            f"{first.share * 100:.1f}%",
        ]
        assert rows[0][5] == f"{first.throttled:,}" and first.throttled
        assert [r[0] for r in rows] == [u.key.text for u in report.rows]  # by RU
        text = screen_text(app)
        assert f"⚠ {report.headline}" in text  # "contoso = … % of RU on partition …"
        # The simulator's logs arrive 30 s after the requests: those 30 s are marked.
        assert report.incomplete_from == report.span.end - 30
        source = text_of(app, "#source")  # the line as said (the screen wraps it)
        assert "data as of" in source and "(logs 30 s late: after " in source
        assert "incomplete, 3 % of 15m)" in source
        assert "tenants by RU · last 15m · newest 30 s incomplete" in text and "48 keys" in text
        # BUDGET beside 429s: near 100 %, never over it (a 429 is not served), in red,
        # and the screen says what it measures.
        assert first.partition_share is not None and 0.95 <= first.partition_share <= 1.0
        budget = app.screen.query_one("#keys", RowList).source.row(0)[4]
        assert budget == (rows[0][4], "bad")
        notes = text_of(app, "#notes")
        assert "BUDGET: busiest second served ÷ the partition's RU/s" in notes
        # 429s per key where logged, and the simulated ones of no key said apart.
        assert "429 LOGGED" in text
        assert report.unattributed and report.throttled_total
        assert f"{report.unattributed:,} of the window's {report.throttled_total:,} 429s" in notes
        assert "tops out at 100 %" in notes
        assert "logs lag" not in notes  # said once, on the line with the time
        assert rows[0][7] == "1,2" and rows[0][6].startswith("≥")  # both partitions; a bound


async def test_drill_into_a_tenant_and_back(demo_path, clock):
    watched: list[Watched] = []
    app = make(demo_path, clock, source=lambda inner: watched.append(Watched(inner)) or watched[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "H")
        hot = app.screen
        assert isinstance(hot, HotScreen)
        second = cells(app, "keys")[1][0]
        await pilot.press("j", "l")  # the second tenant's keys
        await settle(pilot)
        assert hot.tenant == Key.of(second)
        asked = [q for q in watched[0].asked if isinstance(q, LogQuery) and q.tenant is not None]
        assert asked and {(q.level, q.tenant) for q in asked} == {(KeyLevel.KEY, Key.of(second))}
        assert hot.report is not None and hot.report.level is KeyLevel.KEY
        rows = cells(app, "keys")
        assert rows and all(r[0].startswith("thr-") for r in rows)  # threads, not the tenant
        assert hot.table.columns[0].title == "THREAD"
        assert f"keys of {second} by RU" in screen_text(app)
        await pilot.press("h")
        await settle(pilot)
        assert hot.tenant is None and hot.key_title() == "TENANT"
        assert cells(app, "keys")[hot.table.cursor][0] == second  # back where the user was


async def test_filter_sort_and_switching_views_keep_their_state(demo_path, clock):
    app = make(demo_path, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "H")
        await pilot.press("slash", *"northw", "enter")
        await settle(pilot)
        assert [r[0] for r in cells(app, "keys")] == ["northwind"]
        await pilot.press("escape")  # the first Esc clears the filter
        assert len(cells(app, "keys")) == 48
        await pilot.press("s")  # by the busiest second
        hot = app.screen
        assert isinstance(hot, HotScreen) and hot.table.columns[2].title == "PEAK/S▼"
        peaks = [hot.rows.usage(i).peak_ru_s for i in range(len(hot.rows))]
        assert peaks == sorted(peaks, reverse=True)
        for _ in range(4):  # … budget, 429, storage, name
            await pilot.press("s")
        names = [r[0] for r in cells(app, "keys")]
        assert names == sorted(names) and hot.sort.description == "name"
        await pilot.press("w", "slash", *"tails", "enter")
        await settle(pilot)
        await pilot.press("T", "B", "H")
        await settle(pilot)
        assert app.screen is hot and hot.window is Window.H1
        assert hot.table.filter_text == "tails" and [r[0] for r in cells(app, "keys")] == [
            "tailspin"
        ]
        assert hot.sort.description == "name"


async def test_enter_opens_the_tenant_or_the_thread_in_browse(demo_path, clock):
    app = make(demo_path, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "H")
        second = cells(app, "keys")[1][0]
        await pilot.press("j", "enter")
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen) and app.current_view == "browse"
        assert browse.level is Level.THREADS and browse.tenant == Key.of(second)
        assert browse.top.current_key == Key.of(second)  # its row selected, as :tenant does
        await pilot.press("H", "l")  # its keys: threads of the workspace
        await settle(pilot)
        hot = app.screen
        assert isinstance(hot, HotScreen)
        thread = hot.rows.usage(0).key
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is browse and browse.level is Level.TURNS
        assert browse.thread == ThreadRef(Key.of(second), Key.of(thread.values[1]))
        assert cells(app, "turns")  # the thread's turns, read from the workspace


async def test_a_workspace_problem_is_shown_in_the_table_with_its_fix(demo_path, clock):
    missing = TelemetryProblem(
        ProblemKind.NO_WORKSPACE,
        "no Log Analytics workspace: per-key RU is only in the logs",
        fix="start with --workspace-id (or COSMEM_WORKSPACE_ID)",
        about="logs: key_usage",
    )
    logs = ("key_usage", "partition_usage", "key_throttles", "key_storage")
    problems = {f"logs: {name}": missing for name in logs}
    app = make(demo_path, clock, source=lambda inner: Watched(inner, problems))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_view(pilot, "H")
        message = app.screen.query_one("#keys", RowList).message
        assert message is not None and "--workspace-id" in message[0]
        assert "logs: key_usage" in text_of(app, "#problems")
        await pilot.press("T")  # the metrics still work
        await settle(pilot)
        assert "× 429" in text_of(app, "#headline")
        await pilot.press("B")  # browse says its ▲ is storage, and why
        await settle(pilot)
        assert app.screen.query_one("#tenants", RowList).columns[0].title.endswith("most items")


async def test_hostile_key_names_render_inert(demo_path, clock):
    # The headline names the first (the top row) and the fourth (it takes most of the
    # busiest partition, the first).
    names = ("\x1b[31mred\x1b[0m", "rtl\u202eevil", "a\nb", "[bold red]boom[/]")
    app = make(demo_path, clock, source=lambda _: KeyTable(names, clock))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_view(pilot, "H")
        table = app.screen.query_one("#keys", RowList)
        drawn = "\n".join(
            "".join(segment.text for segment in table.render_line(y)) for y in range(1, 6)
        )
        assert "[bold red]boom[/]" in drawn  # shown as typed, not as markup
        assert "\\x1b[31mred\\x1b[0m" in drawn and "\x1b" not in drawn
        assert "rtl\\u202eevil" in drawn and "\u202e" not in drawn
        assert "a b" in drawn  # a newline cannot break the row
        headline = text_of(app, "#headline")
        assert headline.startswith("⚠ \\x1b[31mred\\x1b[0m = ") and "\x1b" not in headline
        assert "is the busiest: [bold red]boom[/] = " in headline  # text, not markup
        await pilot.press("l")  # the keys of the first, under its escaped name
        await settle(pilot)
        title = str(table.border_title)
        assert "keys of \\x1b[31mred\\x1b[0m by RU" in title and "\x1b" not in title
        assert "\x1b" not in screen_text(app) and "\u202e" not in screen_text(app)


async def test_100_000_keys_draw_only_the_rows_on_screen(demo_path, clock):
    from cosmem_tui.ui.views.hot.rows import HotRows

    tenants = [f"tenant-{n:06d}" for n in range(1, 100_001)]
    drawn: list[int] = []
    asked = [0]
    original, search_text, search_texts = HotRows.row, HotRows.search_text, HotRows.search_texts

    def counting(self, index):  # type: ignore[no-untyped-def]
        drawn.append(index)
        return original(self, index)

    def counting_search(self, index):  # type: ignore[no-untyped-def]
        asked[0] += 1
        return search_text(self, index)

    def counting_every(self):  # type: ignore[no-untyped-def]
        texts = search_texts(self)
        asked[0] += len(texts)
        return texts

    app = make(demo_path, clock, source=lambda _: KeyTable(tenants, clock), top=100_000)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        HotRows.row = counting  # type: ignore[method-assign]
        HotRows.search_text = counting_search  # type: ignore[method-assign]
        HotRows.search_texts = counting_every  # type: ignore[method-assign]
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
            # The / filter, a key at a time: each row's text is asked once for the word
            # (before, once a key: 1,100,000), and a key formats the rows on screen.
            await pilot.press("slash")
            for ch in "tenant-0999":
                drawn.clear()
                await pilot.press(ch)
                await pilot.pause()
                assert len(drawn) <= table.size.height
            await settle(pilot)
            assert table.row_count == 100 and asked[0] == 100_000
            assert cells(app, "keys")[0][0] == "tenant-099900"
        finally:
            HotRows.row = original  # type: ignore[method-assign]
            HotRows.search_text = search_text  # type: ignore[method-assign]
            HotRows.search_texts = search_texts  # type: ignore[method-assign]


# -- browse's tenant list -------------------------------------------------------------------


async def test_browse_shows_each_tenant_s_share_and_says_what_its_mark_means(demo_path, clock):
    app = make(demo_path, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tenants = app.screen.query_one("#tenants", RowList)
        assert tenants.columns[0].title == "TENANT  ▲ most RU, 15m"
        assert tenants.columns[1].title == "RU%"
        load = app.screen.top.tenant_load
        assert load is not None
        rows = {r[0].removeprefix("▲ "): r for r in cells(app, "tenants")}
        for name, row in rows.items():
            share = load.share(Key.of(name))
            expected = "0%" if share is None else f"{share * 100:.0f}%"
            assert row[1] == expected or (row[1] == "<1%" and share and share < 0.005)
        marked = [r[0] for r in cells(app, "tenants") if r[0].startswith("▲")]
        assert marked == [f"▲ {load.rows[0].key.text}"]
        listed = app.screen.top.rows
        assert set(listed.shares) <= set(listed.keys)  # the listed keys', not the report's


async def test_browse_marks_load_not_storage(demo_path, clock):
    """The tenant with the most RU is not the one with the most items: ▲ follows the RU."""
    app = make(demo_path, clock, source=lambda _: KeyTable(["northwind", "contoso"], clock))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        marked = [r[0] for r in cells(app, "tenants") if r[0].startswith("▲")]
        assert marked == ["▲ northwind"]  # contoso holds the most items
        rows = {r[0].removeprefix("▲ "): r for r in cells(app, "tenants")}
        assert rows["adatum"][1] == "0%"  # not in a complete report: no RU in the window
