"""Browsing imported workspaces of real agent-memory systems through the real app."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from cosmem_tui.core.importer import ImportSettings, import_export
from cosmem_tui.model import FrozenClock, Key
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.widgets.header import SessionHeader
from cosmem_tui.ui.widgets.row_list import RowList
from tests.fixtures import SCHEMAS
from tests.ui.conftest import cells, settle


def imported(fixture: str, tmp_path: Path, clock: FrozenClock) -> Path:
    target = tmp_path / f"{fixture.split('.')[0]}.sqlite"
    import_export(
        ImportSettings(source=SCHEMAS / fixture, workspace=target),
        clock=clock,
        user_dir=None,
        on_problem=lambda problem: None,
    )
    return target


async def test_amt_says_user_and_lists_sentinels_as_labelled_pseudo_threads(
    make_app, tmp_path, clock
):
    app = make_app(imported("amt", tmp_path, clock), demo=False)
    async with app.run_test(size=(320, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        header = screen.query_one(SessionHeader).render().plain  # wide: nothing cut off
        assert "· schema amt (matched: fields 3/3, type values" in header
        users = screen.query_one("#tenants", RowList)
        assert users.columns[0].title.split()[0] == "USER"
        assert str(users.border_title).startswith("users")
        assert [row[0] for row in cells(app, "tenants")] == ["▲ user-001", "user-002"]
        await pilot.press("enter")
        await settle(pilot)
        assert screen.level is Level.THREADS and screen.tenant == Key.of("user-001")
        names = [row[0] for row in cells(app, "threads")]
        assert names[:2] == ["thread-2", "thread-1"]  # conversations first, newest first
        assert names[2:] == [
            "◇ procedures · __procedural__",
            "◇ user counter · __counters__",
            "◇ user summary · __user_summary__",
        ]
        await pilot.press("j", "enter")
        await settle(pilot)
        assert screen.thread is not None and screen.thread.thread == Key.of("thread-1")
        turns = cells(app, "turns")
        assert len(turns) == 13
        # Ordered by created_at (a time, shown in its own column): rows are numbered.
        assert [row[0] for row in turns] == [str(n) for n in range(1, 14)]
        previews = [row[3] for row in turns]
        assert previews[0].startswith("◆ [episode_cursor]")
        assert any(p == "user: I love Cosmos DB." for p in previews)
        assert any(p.startswith("◆ [episodic] system: Chose a partition key") for p in previews)
        crumbs = screen.query_one("#crumbs", Static).render().plain
        assert crumbs == "users › user-001 › thread-1"


async def test_a_pseudo_thread_opens_like_any_thread(make_app, tmp_path, clock):
    app = make_app(imported("amt", tmp_path, clock), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("user user-001")
        await settle(pilot)
        app.run_command("thread __user_summary__")
        await settle(pilot)
        previews = [row[3] for row in cells(app, "turns")]
        assert previews == ["◆ [user_summary] system: Likes Cosmos DB; asks about partitioning"]


async def test_a_langchain_session_document_opens_as_its_messages(make_app, tmp_path, clock):
    app = make_app(imported("langchain.jsonl", tmp_path, clock), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("user u-100")
        await settle(pilot)
        app.run_command("thread session-1")
        await settle(pilot)
        assert [row[0] for row in cells(app, "turns")] == ["0", "1", "2", "3", "4"]
        await pilot.press("j", "j", "enter")
        await settle(pilot)
        detail = app.screen.query_one("#detail-body", Static).render().plain
        assert "message 2 of a session document: its ttl covers the whole session" in detail
        assert "assistant\n  Items expire ttl seconds after their last write." in detail
        assert '"user_id": "u-100"' in detail  # the raw view is the whole session document
