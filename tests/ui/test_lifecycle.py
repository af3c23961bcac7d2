"""The lifecycle view and the browse lifecycle marks, driven through the real app.

The view follows browse's selection, opens its rows in browse, and counts the whole
container only after asking; browse marks the gaps in an integer turn sequence and
narrows a thread to the turns that expire soon.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from cosmem_tui.core.lifecycle import LifecycleReport
from cosmem_tui.model import Key, Scope, ThreadRef
from cosmem_tui.model.lifecycle import DAY, HOUR, TtlScope
from cosmem_tui.ui.confirm import ConfirmBudget
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.views.lifecycle.rows import entries
from cosmem_tui.ui.views.lifecycle.screen import LifecycleScreen
from cosmem_tui.ui.widgets.row_list import RowList
from tests.helpers import build_workspace, exchange
from tests.ui.conftest import cells, screen_text, settle


async def until(pilot: Pilot, check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


def summary(app: Any) -> str:
    return str(app.screen.query_one("#ttl-summary", Static).render())


def status(app: Any) -> str:
    return str(app.screen.query_one("#status", Static).render())


def items() -> list[dict[str, Any]]:
    found = [
        exchange("acme", "t1", 0, ttl=30 * DAY),
        exchange("acme", "t1", 1, ttl=30 * DAY),
        exchange("acme", "t1", 5, ttl=600),  # 2, 3, 4 are gone
        exchange("acme", "t1", 6, ttl=2 * HOUR),
        exchange("acme", "t1", 6, ttl=3 * DAY, id="t1-6b"),  # a tie: no gap
        exchange("acme", "t1", 20, ttl=-1, type="summary"),  # 7 … 19 are gone
        exchange("acme", "t2", 12, ttl=600),  # at least 11 before it are gone
        exchange("acme", "t2", 13, ttl="3600"),  # invalid: the default (-1) applies
        exchange("globex", "g1", 0, type="fact"),
    ]
    return found


async def test_the_view_follows_what_browse_has_selected(make_app, tmp_path):
    app = make_app(build_workspace(tmp_path / "w.sqlite", items(), now=1_795_996_800))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("L")  # the highlighted tenant, before anything is opened
        await settle(pilot)
        view = app.screen
        assert isinstance(view, LifecycleScreen)
        assert view.scope == TtlScope.of_tenant(Key.of("acme"))
        assert "tenant acme · TTL on, no default" in summary(app)
        assert "8 items: short-term 6 · long-term 1 · default 0 · invalid 1" in summary(app)
        assert "expiring within 1h 2 · 24h 3 · 7d 4 · 30d 6" in summary(app)
        await pilot.press("B", "enter", "enter")  # acme's threads, then t1's turns
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        assert view.scope == TtlScope.of_thread(ThreadRef.of("acme", "t1"))
        rows = cells(app, "ttl-list")
        titles = [r[0] for r in rows if len(r) == 1]
        assert titles[0] == "── soonest to expire: 5 within 30d"
        assert [e.item_id for e in view.rows.entries[1:4]] == ["t1-5", "t1-6", "t1-6b"]
        assert [r[2] for r in rows[1:4]] == ["5", "6", "6"]  # the order value, as browse's #
        # :ttl names another scope; L without a browse change keeps it.
        app.run_command("ttl globex g1")
        await settle(pilot)
        assert view.scope == TtlScope.of_thread(ThreadRef.of("globex", "g1"))
        await pilot.press("B", "L")
        await settle(pilot)
        assert view.scope == TtlScope.of_thread(ThreadRef.of("globex", "g1"))
        app.run_command("ttl nobody")
        await settle(pilot)
        assert view.scope == TtlScope.of_tenant(Key.of("nobody"))
        assert "no visible items here" in view.query_one("#ttl-list", RowList).empty_text
        app.run_command("ttl")  # alone: back to what browse has selected
        await settle(pilot)
        assert view.scope == TtlScope.of_thread(ThreadRef.of("acme", "t1"))


async def test_enter_opens_the_item_in_browse(make_app, tmp_path):
    app = make_app(build_workspace(tmp_path / "w.sqlite", items(), now=1_795_996_800))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("ttl acme")
        await settle(pilot)
        await pilot.press("enter")  # on the section header: nothing to open
        await settle(pilot)
        assert isinstance(app.screen, LifecycleScreen)
        await pilot.press("j", "enter")  # the soonest item: t2-12, then t1-5 (by id)
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen) and browse.level is Level.DETAIL
        assert browse.thread in (ThreadRef.of("acme", "t1"), ThreadRef.of("acme", "t2"))
        assert browse.detail_pane.detail is not None
        assert browse.detail_pane.detail.item.id in ("t1-5", "t2-12")
        # Opened as any other view opens a thread in browse: its tenant's and its own row
        # highlighted in the columns beside the turns.
        assert browse.tenant == Key.of("acme")
        current = browse.thread_column.current_thread
        assert current is not None and current.ref == browse.thread


async def test_the_whole_container_is_counted_only_after_a_yes(make_app, tmp_path):
    app = make_app(build_workspace(tmp_path / "w.sqlite", items(), now=1_795_996_800))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("ttl acme")
        await settle(pilot)
        ledger = app.session.ledger
        before = len(ledger.records())
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, ConfirmBudget))
        question = str(app.screen.query_one("#question", Static).render())
        assert "a cross-partition aggregate: a fan-out over" in question
        assert "the whole container" in question and "Go on?" in question
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, LifecycleScreen)
        # No sends nothing but the count the estimate needed: the container's size (an
        # index-served count), never a TTL count.
        assert [r.operation for r in ledger.records()[before:]] == ["ttl-size"]
        assert "not counted" in status(app)
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, ConfirmBudget))
        await pilot.press("y")
        await settle(pilot)
        view = app.screen
        assert isinstance(view, LifecycleScreen) and view.report is not None
        assert view.report.scope == TtlScope.container()
        assert "the whole container" in summary(app) and "9 items" in summary(app)
        fan_out = [r for r in ledger.records()[before:] if r.operation == "ttl-summary"]
        assert [r.scope for r in fan_out] == [Scope.CROSS_PARTITION]
        assert fan_out[0].cause == "lifecycle: the whole container"


async def test_browse_marks_the_gaps_and_narrows_to_what_expires(make_app, tmp_path):
    app = make_app(build_workspace(tmp_path / "w.sqlite", items(), now=1_795_996_800))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("thread acme t1")
        await settle(pilot)
        rows = cells(app, "turns")
        texts = [r[3] for r in rows]
        assert texts[2] == "⋯ 3 turns missing — expired or deleted · i history"
        assert texts[6] == "⋯ 13 turns missing — expired or deleted · i history"
        assert len(rows) == 8  # six turns, two markers; the tie 6/6 has none
        subtitle = str(app.browse.turn_column.border_subtitle)
        assert "6 of 6 loaded · 16 missing" in subtitle
        await pilot.press("j", "j", "enter")  # enter on a marker opens the turn after it
        await settle(pilot)
        assert app.browse.detail_pane.key == ("t1-5", None)
        await pilot.press("escape", "x")  # the turns expiring within the hour
        await settle(pilot)
        assert [r[0] for r in cells(app, "turns")] == ["5"]
        assert "expiring within 1h: 1 turn" in status(app)
        await pilot.press("x")  # within a day
        await settle(pilot)
        assert [r[0] for r in cells(app, "turns")] == ["5", "6"]
        await pilot.press("escape")  # clears the narrowing first
        await settle(pilot)
        assert len(cells(app, "turns")) == 8 and app.browse.level is Level.TURNS
        app.run_command("expiring 7d")
        await settle(pilot)
        assert [r[0] for r in cells(app, "turns")] == ["5", "6", "6"]
        app.run_command("thread acme t2")
        await settle(pilot)
        texts = [r[3] for r in cells(app, "turns")]
        assert texts[0] == "⋯ ≥11 earlier turns missing — expired or deleted · i history"


def test_every_lifecycle_cell_is_escaped(tmp_path):
    from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition, resolve_ttl
    from cosmem_tui.model.lifecycle import LifecycleItem, TtlItems, TtlSelection

    hostile = "\x1b[31mred\x1b]8;;http://x\x07\u202e"
    item = LifecycleItem(
        ThreadRef.of(hostile, hostile),
        hostile,
        hostile,
        resolve_ttl(hostile, 0, -1),
        order=hostile,
        text=hostile,
    )
    container = ContainerProperties("d", "c", PartitionKeyDefinition(("/t",)), -1)
    report = LifecycleReport(
        TtlScope.of_tenant(Key.of(hostile)),
        container,
        0,
        1800,
        None,
        soonest=TtlItems(TtlSelection.EXPIRING, (item,), 1),
    )
    for entry in entries(report, 0):
        for text, _ in entry.cells:
            assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text


def agreeing_items() -> list[dict[str, Any]]:
    """A tenant whose long-term TTL class (ttl -1) and long-term kinds (facts, summaries)
    differ: two pinned turns, one fact on the default, one pinned summary."""
    return [
        exchange("acme", "t1", 0, ttl=600),
        exchange("acme", "t1", 1, ttl=1200),
        exchange("acme", "t1", 2, ttl=2 * DAY),
        exchange("acme", "t1", 3, ttl=-1),
        exchange("acme", "t1", 4, ttl=-1),
        exchange("acme", "t1", 5, type="fact"),
        exchange("acme", "t1", 6, ttl=-1, type="summary"),
        exchange("globex", "g1", 0, ttl=600),
    ]


async def test_the_summary_and_the_lists_agree(make_app, tmp_path):
    app = make_app(build_workspace(tmp_path / "w.sqlite", agreeing_items(), now=1_795_996_800))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("ttl acme")
        await settle(pilot)
        assert "7 items: short-term 3 · long-term 3 · default 1" in summary(app)
        assert "expiring within 1h 2 · 24h 2 · 7d 3" in summary(app)
        titles = [r[-1] for r in cells(app, "ttl-list") if r and r[0].startswith("─")]
        # The soonest: as many as the forecast counts within their horizon; the records
        # of the long-term kinds named by their kinds, not as the long-term class.
        assert titles[0] == "── soonest to expire: 3 within 7d"  # the forecast's 7d 3
        assert titles[1] == "── fact, summary records (long-term kinds): 2"
        assert not any("long-term records" in t for t in titles)
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, ConfirmBudget))
        await pilot.press("y")
        await settle(pilot)
        # The whole container: counts that say items expire within the hour, over a list
        # that does not claim nothing does.
        assert "expiring within 1h 3" in summary(app)
        listing = app.screen.query_one("#ttl-list", RowList)
        assert listing.row_count == 0
        assert "nothing expires" not in listing.empty_text
        assert listing.empty_text.startswith("the counts above cover the whole container")


async def test_a_reopened_tenant_costs_nothing_and_says_how_old_its_counts_are(
    make_app, tmp_path, clock
):
    app = make_app(build_workspace(tmp_path / "w.sqlite", agreeing_items(), now=1_795_996_800))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("ttl acme")
        await settle(pilot)
        listing = app.screen.query_one("#ttl-list", RowList)
        assert "RU sim" in str(listing.border_subtitle)
        app.run_command("ttl globex")
        await settle(pilot)
        request_ledger = app.session.ledger
        sent = len(request_ledger.records())
        clock.advance(90)
        app.run_command("ttl acme")  # reopened a minute and a half later
        await settle(pilot)
        assert len(request_ledger.records()) == sent  # nothing sent
        assert str(listing.border_subtitle) == (
            "as of 00:00:00 UTC · reused, 1m old · r counts again"
        )
        assert "7 items: short-term 3" in summary(app)
        await pilot.press("r")  # counted again, now
        await settle(pilot)
        assert len(request_ledger.records()) > sent
        assert str(listing.border_subtitle).startswith("as of 00:01:30 UTC · ")
        assert "reused" not in str(listing.border_subtitle)


async def test_a_row_says_which_turn_why_and_what_and_the_filter_matches_what_it_shows(
    make_app, tmp_path
):
    app = make_app(build_workspace(tmp_path / "w.sqlite", items(), now=1_795_996_800))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.run_command("ttl acme t1")
        await settle(pilot)
        view = app.screen
        assert isinstance(view, LifecycleScreen)
        shown = screen_text(app)
        # At 80 columns: when, the turn's order value, why, and what it says.
        row = next(line for line in shown.splitlines() if "hello 5" in line)
        assert "10m" in row and " 5 " in row and "its own ttl 600" in row
        assert "user: hello 5" in row
        header = next(line for line in shown.splitlines() if "EXPIRES" in line)
        assert "#" in header and "WHY" in header and "TEXT" in header
        assert "t1-5" not in shown  # the id is in the row's detail (v), not a column
        # /never keeps exactly the rows whose EXPIRES says never.
        listing = view.query_one("#ttl-list", RowList)
        never = [r for r in cells(app, "ttl-list") if r and r[0] == "never"]
        assert never
        await pilot.press("slash", *"never", "enter")
        await settle(pilot)
        kept = [r for r in cells(app, "ttl-list") if len(r) > 1]
        assert kept == never and listing.row_count == len(never)
        await pilot.press("escape")
        await settle(pilot)
        assert listing.filter_text == ""
