"""The browse pane driven through the real app with Pilot."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from cosmem_tui.core.demo.hostile import HOSTILE_THREAD
from cosmem_tui.core.text import visible
from cosmem_tui.core.turn_window import Side
from cosmem_tui.model import Key
from cosmem_tui.ui.help import HelpScreen
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.widgets.header import SessionHeader
from cosmem_tui.ui.widgets.row_list import RowList
from tests.helpers import build_workspace, exchange
from tests.ui.conftest import burst, settle
from tests.ui.conftest import cells as rows


def screen(app) -> BrowseScreen:
    assert isinstance(app.screen, BrowseScreen)
    return app.screen


def status(app) -> str:
    return app.screen.query_one("#status", Static).render().plain


async def test_tenant_names_first_then_counts_for_the_rows_on_screen(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tenants = rows(app, "tenants")
        assert len(tenants) == 48
        names = [r[0].removeprefix("▲ ") for r in tenants]
        assert names == sorted(names)  # in key order: counts never reorder the list
        shown = app.screen.query_one("#tenants", RowList).shown_indices()
        assert 30 <= len(shown) < 48
        counted = [i for i, r in enumerate(tenants) if r[2] not in ("…", "—")]
        assert counted == list(shown)  # exactly the rows on screen were counted
        hot = [r for r in tenants if r[0].startswith("▲ ")]
        assert [r[0] for r in hot] == ["▲ contoso"]  # the most items among those counted
        await pilot.press("G")  # the rest are counted as they come into view
        await settle(pilot)
        assert all(r[2] not in ("…", "—") for r in rows(app, "tenants")[-10:])
        header = app.screen.query_one(SessionHeader).render().plain
        assert "demo workspace" in header and "req" in header and "RU sim" in header
        assert app.focused is app.screen.query_one("#tenants")


async def test_drill_down_to_a_turn_and_back(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"contoso", "enter", "enter")
        await settle(pilot)
        browse = screen(app)
        assert browse.level is Level.THREADS and browse.tenant == Key.of("contoso")
        assert len(rows(app, "threads")) == 402
        await pilot.press("enter")
        await settle(pilot)
        assert browse.level is Level.TURNS and browse.thread is not None
        turns = rows(app, "turns")
        assert turns and turns[0][0] == "0"
        await pilot.press("enter")
        await settle(pilot)
        assert browse.level is Level.DETAIL
        detail = app.screen.query_one("#detail-body", Static).render().plain
        assert "── transcript ──" in detail and "── raw item" in detail
        assert '"_etag"' in detail and '"_ts"' in detail
        for expected in (Level.TURNS, Level.THREADS, Level.TENANTS, Level.TENANTS):
            await pilot.press("escape")
            await settle(pilot)
            assert browse.level is expected


async def test_vi_keys_move_open_and_go_back(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tenants = app.screen.query_one("#tenants", RowList)
        await pilot.press("j", "j")
        assert tenants.cursor == 2
        await pilot.press("k")
        assert tenants.cursor == 1
        await pilot.press("G")
        assert tenants.cursor == 47
        await pilot.press("g")
        assert tenants.cursor == 0
        await pilot.press("j", "l")
        await settle(pilot)
        assert screen(app).tenant == Key.parse(rows(app, "tenants")[1][0])
        await pilot.press("h")
        assert screen(app).level is Level.TENANTS


async def test_filter_the_focused_list(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"north")
        assert [r[0] for r in rows(app, "tenants")] == ["northridge", "northwind"]
        assert "2 rows" in status(app)
        await pilot.press("enter")  # keep the filter, back to the list
        assert app.focused is app.screen.query_one("#tenants")
        await pilot.press("j", "enter")
        await settle(pilot)
        assert screen(app).tenant == Key.of("northwind")
        await pilot.press("escape")
        await pilot.press("escape")  # the first Esc on a filtered list clears the filter
        assert len(rows(app, "tenants")) == 48


async def test_command_mode_opens_tenants_and_threads(make_app, demo_path, manifest):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *"tenant woodgrove", "enter")
        await settle(pilot)
        browse = screen(app)
        assert browse.level is Level.THREADS and browse.tenant == Key.of("woodgrove")
        await pilot.press("colon")  # typed into the bar: markup characters are plain text
        app.screen.query_one("#bar").value = f"thread {HOSTILE_THREAD}"
        await pilot.press("enter")
        await settle(pilot)
        assert browse.level is Level.TURNS and browse.thread.thread == Key.of(HOSTILE_THREAD)
        opened = browse.thread
        await pilot.press("colon", *"tenant nobody", "enter")
        await settle(pilot)
        assert "no tenant 'nobody'" in status(app)
        # An unknown name keeps you where you were: the thread stays open, its turns shown.
        assert browse.level is Level.TURNS and browse.thread == opened
        assert browse.tenant == Key.of("woodgrove") and app.screen.focused is browse.turn_column
        assert browse.thread_column.message is None  # no failure where the threads are
        await pilot.press("colon", *"frobnicate", "enter")
        assert "unknown command" in status(app)


async def test_help_lists_every_binding(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one(Static).render().plain
        flat = " ".join(text.split())  # descriptions wrap at 80 columns
        for action in app.registry.for_view("browse"):
            if app.registry.keys(action.id):
                assert " ".join(action.description.split()) in flat
        # Each command once (":ttl" is the view and ":ttl [TENANT [THREAD]]" says more) …
        commands = text.split("Commands (after :)")[1].splitlines()
        usages = [line.split()[0] for line in commands if line.startswith("  :")]
        assert usages.count(":ttl") == 1 and len(set(usages)) == len(usages) - 1  # :thread ×2
        # … and a wrapped description keeps its indent: only titles start in column 0.
        body = text.split("\nTurns are named")[0]
        titles = {a.group for a in app.registry.for_view("browse")} | {"Commands (after :)"}
        for line in body.splitlines():
            assert not line or line.startswith("  ") or line in titles, line
        await pilot.press("escape")
        assert isinstance(app.screen, BrowseScreen)


async def test_q_quits(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_hostile_text_is_shown_as_visible_escapes(make_app, demo_path, manifest):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command(f"thread {manifest.hostile['tenant']} {HOSTILE_THREAD}")
        await settle(pilot)
        previews = " ".join(r[3] for r in rows(app, "turns"))
        assert "\\x1b[2J" in previews and "\x1b" not in previews
        assert "[bold red]URGENT[/bold red]" in previews  # markup stays literal text
        await pilot.press("j", "enter")  # the ANSI clear-screen message
        await settle(pilot)
        plain = app.screen.query_one("#detail-body", Static).render().plain
        assert "\\x1b[2J" in plain
        assert not any(ch in plain for ch in ("\x1b", "\x9b", "\u202e", "\x07"))
        screenshot = app.export_screenshot()
        assert "\x1b" not in screenshot and "\u202e" not in screenshot
        assert visible(HOSTILE_THREAD) in app.screen.query_one("#crumbs", Static).render().plain
        # Border titles parse markup from plain strings: the thread id must stay literal.
        title = app.screen.query_one("#turns", RowList).border_title
        assert Content.from_markup(title).plain == f"turns of {HOSTILE_THREAD}"


async def test_malformed_items_are_marked_and_open_raw(make_app, demo_path, manifest):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command(f"thread {manifest.malformed['tenant']} {manifest.malformed['thread']}")
        await settle(pilot)
        texts = [r[3] for r in rows(app, "turns")]
        assert sum(t.startswith("⚠") for t in texts) >= 10
        await pilot.press("j", "j", "enter")  # "messages is a string"
        await settle(pilot)
        plain = app.screen.query_one("#detail-body", Static).render().plain
        assert "malformed item" in plain and '"messages": "messages is a string' in plain


async def test_a_big_thread_is_paged_from_both_ends(make_app, tmp_path, clock):
    now = int(clock.now())
    items = (exchange("big", "huge", i) for i in range(5000))
    path = build_workspace(tmp_path / "big.sqlite", items, now=now)
    app = make_app(path, demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        ledger = screen(app).session.ledger
        before = ledger.totals().requests
        await pilot.press("enter")
        await settle(pilot)
        window = screen(app).window
        assert window is not None and len(window) == 5000
        assert window.loaded == 100 and ledger.totals().requests == before + 1
        await pilot.press("end")
        await settle(pilot)
        assert window.loaded == 200 and ledger.totals().requests == before + 2
        assert not window.complete
        turns = app.screen.query_one("#turns", RowList)
        assert turns.cursor == 4999
        assert rows(app, "turns")[4999][0] == "4999"
        assert window.get(2500) is None  # the middle stays unloaded


async def test_first_run_builds_the_demo_with_progress(isolated_user_dirs, clock):
    from cosmem_tui.core.session import SessionOptions, default_workspace_path
    from cosmem_tui.ui.app import CosmemApp

    assert not default_workspace_path().exists()
    app = CosmemApp(SessionOptions(live_demo=False), clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        header = app.screen.query_one(SessionHeader)
        assert "creating the demo workspace" in header.render().plain  # the app's chrome
        for _ in range(100):
            await settle(pilot, rounds=1)
            if rows(app, "tenants"):
                break
        assert len(rows(app, "tenants")) >= 40
        assert default_workspace_path().exists()


async def test_keys_typed_ahead_land_where_the_user_is(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, "j", "j", "j")
        await settle(pilot)
        assert app.screen.query_one("#tenants", RowList).cursor == 3
        burst(app, "/", *"north", "enter", "j")
        await settle(pilot)
        assert [r[0] for r in rows(app, "tenants")] == ["northridge", "northwind"]
        assert app.screen.query_one("#tenants", RowList).cursor == 1
        burst(app, ":", *"tenant woodgrove", "enter")
        await settle(pilot)
        assert screen(app).level is Level.THREADS and screen(app).tenant == Key.of("woodgrove")
        burst(app, ":", *f"thread {HOSTILE_THREAD}", "enter")
        await settle(pilot)
        assert screen(app).level is Level.TURNS
        assert screen(app).thread.thread == Key.of(HOSTILE_THREAD)


async def newest_turn(path, clock, ref):
    """The newest turn and the turn count of a thread, asked of the store directly."""
    from cosmem_tui.core.browse import BrowseService
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.sources.local import LocalStore
    from cosmem_tui.sources.request_ledger import RequestLedger

    store = LocalStore.open(path, get_schema("lab"), ledger=RequestLedger(), clock=clock)
    try:
        service = BrowseService(store, clock)
        count = len([t async for t in service.iter_turns(ref)])
        return (await service.last_turns(ref, 1))[0], count
    finally:
        await store.close()


async def test_a_thread_opened_by_command_pages_without_a_known_total(make_app, demo_path, clock):
    """`:thread` before the tenant's threads are listed: the total is unknown, paging is not."""
    from cosmem_tui.model import ThreadRef

    ref = ThreadRef.of("contoso", "thr-c1b6167dee")
    newest, count = await newest_turn(demo_path, clock, ref)
    assert count > 200  # three pages at least: the middle stays unloaded
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *f"thread {ref.tenant} {ref.thread}", "enter")
        await settle(pilot)
        browse = screen(app)
        turns = app.screen.query_one("#turns", RowList)
        window = browse.window
        assert window is not None and window.loaded == 100
        subtitle = Content.from_markup(turns.border_subtitle).plain
        assert subtitle.startswith("100 of ? loaded") and f"{count}" not in subtitle
        for _ in range(10):  # PgDn from the top reaches the end of the first page …
            await pilot.press("pagedown")
            await settle(pilot)
            if window.loaded > 100:
                break
        assert window.loaded == 200  # … and the second page is fetched
        position = turns.current_index
        current = window.get(position)
        assert current is not None
        await pilot.press("r")  # a reload comes back to the same turn
        await settle(pilot)
        window = browse.window
        assert turns.current_index == position and window.get(position).key == current.key
        await pilot.press("end")  # the newest turn, through the tail walk
        await settle(pilot)
        shown = window.get(turns.current_index)
        assert shown is not None and shown.key == newest.key
        assert rows(app, "turns")[turns.current_index][0] == str(newest.order)
        assert window.loaded <= 300 and not window.complete  # the head kept, plus the tail
        assert any(window.get(i) is None for i in range(len(window)))  # the middle unloaded
        await pilot.press("r")
        await settle(pilot)
        window = browse.window
        assert window.get(turns.current_index).key == newest.key


async def test_the_detail_stays_on_its_turn_when_rows_move(make_app, tmp_path, clock):
    """Items expire and the walks merge: the open turn moves up 20 rows, the detail follows."""
    now = int(clock.now())
    items = [
        exchange("acme", "long", i, f"turn {i:03}", **({"ttl": 60} if 110 <= i < 130 else {}))
        for i in range(250)
    ]
    path = build_workspace(tmp_path / "long.sqlite", items, now=now)
    app = make_app(path, demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # acme's threads: "long" has 250 turns
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        browse = screen(app)
        window = browse.window
        await pilot.press("end")
        await settle(pilot)
        assert window.loaded == 200 and not window.complete
        await pilot.press(*["up"] * 99)  # the oldest row of the tail walk: turn 150
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        body = app.screen.query_one("#detail-body", Static)
        assert "turn 150" in body.render().plain
        clock.advance(120)  # turns 110–129 expire; the list still counts 250 rows
        browse.turn_column.fetch(Side.HEAD)  # the next head page meets the tail
        await settle(pilot)
        assert window.complete and len(window) == 230
        await pilot.press("r")  # reload the open turn
        await settle(pilot)
        plain = body.render().plain
        assert "turn 150" in plain and "turn 170" not in plain
        crumbs = app.screen.query_one("#crumbs", Static).render().plain
        assert crumbs.endswith("turn 150")  # its order value, wherever its row now is
        title = Content.from_markup(app.screen.query_one("#detail").border_title).plain
        assert title == "turn 150"
