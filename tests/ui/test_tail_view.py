"""The change-feed tail view, driven through the real app on a workspace whose change log
is written while it runs (the same guarded writer the demo's workload uses)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.model.changes import FeedMode
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.views.tail.screen import FLOOD_POLL_S, POLL_S
from cosmem_tui.ui.widgets.hint_line import FittedLine
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange
from tests.ui.conftest import cells, screen_text, settle

HOSTILE = "[bold]markup[/bold] \x1b[31mred\x1b]52;c;cHduZWQ=\x07 \u202egnp.exe"


async def until(pilot: Pilot, check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


def write(path: Path, now: int, body: Callable[[Any], None]) -> None:
    writer = WorkspaceWriter.open(path)
    try:
        with writer.changes(get_schema("lab"), now) as batch:
            body(batch)
    finally:
        writer.close()


def tail_screen(app: Any) -> Any:
    from cosmem_tui.ui.views.tail.screen import TailScreen

    screen = app.screens_by_view["tail"]
    assert isinstance(screen, TailScreen)
    return screen


def summary(app: Any) -> str:
    screen = app.screen
    rate = screen.query_one("#tail-rate", FittedLine).text
    return rate + "\n" + screen.query_one("#tail-mode", FittedLine).text


def status(app: Any) -> str:
    return app.screen.query_one("#status", FittedLine).text


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    items = [exchange("acme", "t1", 0), exchange("acme", "t2", 0), exchange("globex", "g1", 0)]
    return build_workspace(tmp_path / "w.sqlite", items, now=ANCHOR - 3600)


async def polled(pilot: Pilot, app: Any, rows: int) -> None:
    """Poll now (ctrl+r) and wait for ``rows`` rows."""
    await pilot.press("ctrl+r")
    await until(pilot, lambda: len(tail_screen(app).listing.source) >= rows)
    await settle(pilot)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_C_tails_what_browse_has_selected_and_draws_hostile_text_inert(
    make_app, workspace, size
):
    app = make_app(workspace)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("C")  # the highlighted tenant, before anything is opened
        await settle(pilot)
        view = tail_screen(app)
        assert app.current_view == "tail"
        assert view.tail.scope == TtlScope.of_tenant(Key.of("acme"))
        assert view.tail.mode is FeedMode.ALL_VERSIONS  # where the container serves it
        await pilot.press("m")  # the latest version, as on an account without all versions
        await settle(pilot)
        view = tail_screen(app)
        assert view.tail.mode is FeedMode.LATEST
        assert "deletes and TTL expirations are not visible · m: all versions" in summary(app)
        assert "which needs continuous backup and enableAllVersionsAndDeletesChangeFeed" in (
            summary(app)
        )
        title = str(view.listing.border_title)
        assert "tail of tenant acme" in title and "latest version" in title

        def story(batch: Any) -> None:
            batch.create(exchange("acme", "t1", 1, HOSTILE))
            batch.create(exchange("globex", "g1", 1))  # another tenant: not in this tail
            batch.create(exchange("acme", "t2", 1, "second"))

        write(workspace, ANCHOR + 1, story)
        await polled(pilot, app, 2)
        rows = cells(app, "tail-list")
        assert [r[4] for r in rows] == ["t2-1", "t1-1"]  # newest first, acme only
        assert rows[1][1] == "write" and rows[1][2] == "acme" and rows[1][3] == "t1"
        assert rows[1][5] == "1"
        preview = rows[1][6]
        assert preview.startswith("user: [bold]markup[/bold] \\x1b[31mred\\x1b]52;c;")
        assert "\\u202e" in preview
        shown = screen_text(app)
        assert "\x1b" not in shown and "\u202e" not in shown
        assert "user: [bold]mar" in shown  # markup shows as text, not bold (80 columns: cut)
        assert "changes/s" in summary(app) and "acme" in summary(app)


async def test_enter_opens_the_turn_in_browse_and_a_removal_says_gone(make_app, workspace):
    app = make_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        view = tail_screen(app)
        assert view.tail.mode is FeedMode.ALL_VERSIONS  # the default where it is served
        assert "all versions and deletes" in summary(app)
        assert "not visible" not in summary(app)

        def story(batch: Any) -> None:
            batch.create(exchange("acme", "t1", 5))
            batch.delete(("acme", "t2"), "t2-0")

        write(workspace, ANCHOR + 1, story)
        await polled(pilot, app, 2)
        rows = cells(app, "tail-list")
        assert [(r[1], r[4]) for r in rows] == [("delete", "t2-0"), ("create", "t1-5")]
        assert rows[0][6] == "gone: deleted"
        await pilot.press("enter")  # the delete, on top
        await settle(pilot)
        assert app.current_view == "tail" and "t2-0 is gone: deleted at" in status(app)
        await pilot.press("down", "enter")
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen) and browse.level is Level.DETAIL
        assert browse.thread == ThreadRef.of("acme", "t1")
        assert browse.detail_pane.detail is not None
        assert browse.detail_pane.detail.item.id == "t1-5"


async def test_filter_pause_and_hidden(make_app, workspace):
    app = make_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("C", "f")  # the whole container
        await settle(pilot)
        view = tail_screen(app)
        assert view.tail.scope == TtlScope.container()

        def story(batch: Any) -> None:
            for n in range(1, 4):
                batch.create(exchange("acme", "t1", n))
            batch.create(exchange("globex", "g1", 1))

        write(workspace, ANCHOR + 1, story)
        await polled(pilot, app, 4)
        await pilot.press("slash", *"globex", "enter")
        await settle(pilot)
        assert [r[4] for r in cells(app, "tail-list")] == ["g1-1"]
        await pilot.press("escape")
        await settle(pilot)
        # p: no poll starts while paused, and none while another view is shown.
        await pilot.press("p")
        fetches = view.poll_loop.fetches
        await pilot.pause(2.5)
        assert view.poll_loop.fetches == fetches and "paused" in status(app)
        await pilot.press("p")
        await until(pilot, lambda: view.poll_loop.fetches > fetches)
        await pilot.press("B")
        await settle(pilot)
        fetches = view.poll_loop.fetches
        await pilot.pause(2.5)
        assert view.poll_loop.fetches == fetches
        await pilot.press("C")  # back: browse's selection is unchanged, the tail kept
        await settle(pilot)
        assert view.tail.scope == TtlScope.container() and len(view.listing.source) == 4


async def test_a_flooding_tenant_is_named(make_app, workspace):
    app = make_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("tail")
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)

        def story(batch: Any) -> None:
            for n in range(1, 41):
                batch.create(exchange("acme", "t1", n))
            for n in range(1, 6):
                batch.create(exchange("globex", "g1", n))

        write(workspace, ANCHOR + 1, story)
        await polled(pilot, app, 45)
        line = summary(app)
        assert line.startswith("⚠ flood: tenant acme writes 89% of the changes (over 50%)")
        assert "acme" in line and "globex" in line


async def test_colon_tail_names_a_thread(make_app, workspace):
    app = make_app(workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.run_command("tail acme t2")
        await settle(pilot)
        view = tail_screen(app)
        assert view.tail.scope == TtlScope.of_thread(ThreadRef.of("acme", "t2"))
        write(workspace, ANCHOR + 1, lambda b: b.create(exchange("acme", "t1", 9)))
        write(workspace, ANCHOR + 1, lambda b: b.create(exchange("acme", "t2", 9)))
        await polled(pilot, app, 1)
        assert [r[4] for r in cells(app, "tail-list")] == ["t2-9"]
        app.run_command("tail a b c")
        await settle(pilot)
        assert "usage: :tail" in status(app)


async def test_a_reader_off_the_newest_row_keeps_their_row(make_app, workspace):
    app = make_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("C", "f")
        await settle(pilot)
        view = tail_screen(app)
        assert "no changes since the tail started" in summary(app)
        write(workspace, ANCHOR + 1, lambda b: creates(b, "t1", range(1, 6)))
        await polled(pilot, app, 5)
        await pilot.press("down", "down")
        await settle(pilot)
        reading = view.selected_change()
        assert reading is not None and reading.item_id == "t1-3"
        write(workspace, ANCHOR + 2, lambda b: creates(b, "t1", range(6, 9)))
        await polled(pilot, app, 8)
        assert view.selected_change() is reading and view.listing.cursor == 5
        await pilot.press("home")  # back on the newest row: it follows again
        write(workspace, ANCHOR + 3, lambda b: creates(b, "t1", range(9, 10)))
        await polled(pilot, app, 9)
        assert view.listing.cursor == 0 and view.selected_change().item_id == "t1-9"


def creates(batch: Any, thread: str, indices: range) -> None:
    for n in indices:
        batch.create(exchange("acme", thread, n))


async def test_a_flood_spaces_the_polls_and_keeps_every_row(make_app, workspace):
    app = make_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("C", "f")
        await settle(pilot)
        view = tail_screen(app)
        shown = view.listing.rows_shown
        write(workspace, ANCHOR + 1, lambda b: creates(b, "t1", range(1, 4)))
        await polled(pilot, app, 3)
        assert view.poll_loop.interval_s == POLL_S  # a few rows: the next poll in a second
        flood = range(4, 4 + shown + 10)  # more new rows than the list shows
        write(workspace, ANCHOR + 2, lambda b: creates(b, "t1", flood))
        await polled(pilot, app, 3 + len(flood))
        assert len(view.listing.source) == 3 + len(flood)  # every row kept, none skipped
        assert view.poll_loop.interval_s == FLOOD_POLL_S > POLL_S
        assert f"every {FLOOD_POLL_S:g} s" in str(view.listing.border_subtitle)
        write(workspace, ANCHOR + 3, lambda b: creates(b, "t1", range(100, 102)))
        await polled(pilot, app, 5 + len(flood))
        assert view.poll_loop.interval_s == POLL_S  # the flood is over: each second again


async def test_a_quiet_tail_says_its_first_read_at_once(make_app, workspace):
    # A tail that reads but finds nothing must not look stalled ("0 reads") until the
    # cost line's next turn comes round.
    app = make_app(workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        view = tail_screen(app)
        await until(pilot, lambda: view.tail.pages > 0)
        await settle(pilot)
        assert "no changes since the tail started" in summary(app)
        assert "0 reads" not in summary(app)
        assert f"{view.tail.pages} reads" in summary(app)
