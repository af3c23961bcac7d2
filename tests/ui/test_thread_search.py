"""Whole-thread search in the turn list, driven through the real app with Pilot."""

from __future__ import annotations

from textual.widgets import Static

from cosmem_tui.model import Scope
from cosmem_tui.ui.confirm import ConfirmBudget
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.views.browse.thread_search import HIT_MARK
from cosmem_tui.ui.widgets.row_list import RowList
from tests.helpers import build_workspace, exchange
from tests.ui.conftest import cells as rows
from tests.ui.conftest import settle

HITS = (40, 700, 701, 950)  # turns whose user message holds the needle


def screen(app) -> BrowseScreen:  # type: ignore[no-untyped-def]
    assert isinstance(app.screen, BrowseScreen)
    return app.screen


def status(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#status", Static).render().plain)


def long_thread(tmp_path, clock):  # type: ignore[no-untyped-def]
    items = (
        exchange("big", "long", i, "a Needle here" if i in HITS else "plain words")
        for i in range(1000)
    )
    return build_workspace(tmp_path / "long.sqlite", items, now=int(clock.now()))


async def open_long_thread(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("enter")  # the tenant
    await settle(pilot)
    await pilot.press("enter")  # its thread
    await settle(pilot)
    assert screen(pilot.app).level is Level.TURNS


def cursor_turn(app) -> str:  # type: ignore[no-untyped-def]
    turns = app.screen.query_one("#turns", RowList)
    return str(rows(app, "turns")[turns.cursor][0])


async def test_slash_then_S_searches_the_server_and_n_jumps_beyond_the_loaded_rows(
    make_app, tmp_path, clock
):  # type: ignore[no-untyped-def]
    app = make_app(long_thread(tmp_path, clock), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_long_thread(pilot)
        window = screen(app).window
        assert window is not None and window.loaded == 100
        ledger = screen(app).session.ledger
        before = len(ledger.records())
        await pilot.press("slash", *"needle")
        await settle(pilot)
        assert len(rows(app, "turns")) == 1  # the loaded rows filter at once: turn 40
        assert "S searches the whole thread" in status(app)
        await pilot.press("enter", "S")
        await settle(pilot)
        assert cursor_turn(app).endswith("40")
        assert status(app).startswith("hit 1 of 4 for “needle”")  # one page held all
        assert rows(app, "turns")[40][0].startswith(HIT_MARK)
        await pilot.press("n")
        await settle(pilot)
        assert cursor_turn(app) == f"{HIT_MARK}700"  # paged into the window
        assert window.get(700) is not None and window.get(500) is not None
        assert status(app).startswith("hit 2 of 4")
        await pilot.press("n", "n")
        await settle(pilot)
        assert cursor_turn(app) == f"{HIT_MARK}950" and status(app).startswith("hit 4 of 4")
        await pilot.press("n")
        await settle(pilot)
        assert "already on the last hit" in status(app)
        await pilot.press("N")
        await settle(pilot)
        assert cursor_turn(app) == f"{HIT_MARK}701"
        records = ledger.records()[before:]
        assert {r.scope for r in records} == {Scope.PARTITION}
        searched = [r for r in records if r.operation == "search-turns"]
        assert searched and {r.cause for r in searched} == {"browse: search the thread"}
        await pilot.press("escape")
        await settle(pilot)
        assert not rows(app, "turns")[950][0].startswith(HIT_MARK)
        assert screen(app).level is Level.TURNS  # Esc left the search, not the list


async def test_search_command_and_no_hits(make_app, tmp_path, clock):  # type: ignore[no-untyped-def]
    app = make_app(long_thread(tmp_path, clock), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_long_thread(pilot)
        await pilot.press("colon", *"search no such words", "enter")
        await settle(pilot)
        assert "no turn of this thread contains “no such words”" in status(app)
        await pilot.press("colon", *"search NEEDLE here", "enter")
        await settle(pilot)
        assert status(app).startswith("hit 1 of 4 for “NEEDLE here”")


async def until_asked(pilot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(500):
        if isinstance(pilot.app.screen, ConfirmBudget):
            await pilot.pause()
            return
        await pilot.pause(0.02)
    raise AssertionError("the budget question never came")


async def test_a_search_past_the_budget_asks_first(make_app, tmp_path, clock):  # type: ignore[no-untyped-def]
    app = make_app(long_thread(tmp_path, clock), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_long_thread(pilot)
        ledger = screen(app).session.ledger
        ledger.set_budget(ledger.spent_ru + 0.01)
        await pilot.press("colon", *"search needle", "enter")
        await until_asked(pilot)
        await pilot.press("n")  # no: nothing is sent
        await settle(pilot)
        assert not [r for r in ledger.records() if r.operation == "search-turns"]
        assert "budget" in status(app)
        await pilot.press("colon", *"search needle", "enter")
        await until_asked(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert [r.operation for r in ledger.records()].count("search-turns") == 1
        assert status(app).startswith("hit 1 of 4")


async def test_a_failed_search_page_says_so_and_n_asks_again(make_app, tmp_path, clock):  # type: ignore[no-untyped-def]
    from tests.ui.test_states import Flaky

    app = make_app(long_thread(tmp_path, clock), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_long_thread(pilot)
        Flaky(screen(app).session.store, "search_turns")
        await pilot.press("colon", *"search needle", "enter")
        await settle(pilot)
        assert status(app).startswith("search: 503 service unavailable")
        await pilot.press("n")
        await settle(pilot)
        assert status(app).startswith("hit 1 of 4") and cursor_turn(app) == f"{HIT_MARK}40"
