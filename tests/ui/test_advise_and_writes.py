"""The advisor view and the guarded writes in the real app (Pilot).

Without --allow-writes the write keys and commands are not offered and do nothing;
with it the header says WRITES ON, and a pin or an erase goes through a confirmation
that names what changes, then lands in the workspace and the audit log.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from cosmem_tui.compose import open_local_session
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock, Kind
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.confirm_write import ConfirmWrite
from cosmem_tui.ui.help import HelpScreen
from cosmem_tui.ui.views.advise.screen import AdviseScreen
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.widgets.command_bar import CommandBar
from cosmem_tui.ui.widgets.header import SessionHeader
from cosmem_tui.ui.widgets.row_list import RowList
from tests.ui.conftest import cells, settle


def writable_app(path: Path, clock: FrozenClock, *, allow_writes: bool) -> CosmemApp:
    options = SessionOptions(workspace=path, allow_writes=allow_writes, live_demo=False)

    async def open_it():  # type: ignore[no-untyped-def]
        session = open_local_session(options, clock)
        session.is_demo = True
        return session

    return CosmemApp(options, clock=clock, session_factory=open_it)


@pytest.fixture
def demo_copy(demo_path: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "demo.sqlite"
    shutil.copy(demo_path, copy)
    return copy


def header(app: CosmemApp) -> str:
    return app.screen.query_one(SessionHeader).render().plain


def status(app: CosmemApp) -> str:
    return app.screen.query_one("#status", Static).render().plain


def ttl_of(path: Path, item_id: str) -> object:
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT body FROM items WHERE id = ?", (item_id,)).fetchone()
    return json.loads(row[0]).get("ttl", "absent") if row else "gone"


def notices(app: CosmemApp) -> str:
    return " | ".join(n.message for n in app._notifications)


def audit(isolated_user_dirs: Path) -> list[dict]:
    path = isolated_user_dirs / "data" / "cosmem" / "audit.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


async def test_the_advisor_view_lists_findings_with_evidence_and_fix(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdviseScreen) and screen.report is not None
        rows = cells(app, "findings")
        assert rows[0][:2] == ["warn", "partition-avoid-hotspots"]
        assert {r[1] for r in rows} >= {"ttl-reset-by-rewrites", "index-composite"}
        detail = screen.query_one("#finding", Static).render().plain
        assert "contoso holds" in detail and "fix " in detail and "examples contoso" in detail
        summary = screen.query_one("#advice-summary", Static).render().plain
        assert "200 item shapes sampled" in summary and "48 keys listed, 48 counted" in summary
        await pilot.press("j")
        assert "ttl-reset-by-rewrites" in screen.query_one("#finding", Static).render().plain
        # Each check is one new sample (it costs RU): shown again, it does not re-run …
        samples = [r for r in app.session.ledger.records() if r.operation == "sample-shapes"]
        await pilot.press("B", "A")
        await settle(pilot)
        again = [r for r in app.session.ledger.records() if r.operation == "sample-shapes"]
        assert len(again) == len(samples) == 1
        # … and r checks again, keeping the list where it is.
        await pilot.press("r")
        await settle(pilot)
        rerun = [r for r in app.session.ledger.records() if r.operation == "sample-shapes"]
        assert len(rerun) == 2
        assert rerun[-1].cause == "advise: check the container"


async def test_without_allow_writes_nothing_offers_a_write(make_app, demo_path, isolated_user_dirs):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "WRITES ON" not in header(app)
        for key in ("enter", "enter"):
            await pilot.press(key)
            await settle(pilot)
        assert app.browse.level is Level.TURNS
        await pilot.press("P", "E", "X")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmWrite)
        app.run_command("pin")
        await settle(pilot)
        assert "unknown command: pin" in status(app)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(w.render().plain for w in app.screen.query(Static))
        assert "pin" not in text and "erase" not in text and "advise" in text
        assert not [r for r in app.session.ledger.records() if r.kind is Kind.WRITE]
    assert audit(isolated_user_dirs) == []


async def test_a_confirmed_pin(demo_copy, clock, isolated_user_dirs):
    app = writable_app(demo_copy, clock, allow_writes=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "WRITES ON" in header(app)
        await pilot.press("enter", "enter")
        await settle(pilot)
        turn = app.browse.turn_column.current_turn
        assert turn is not None
        before = ttl_of(demo_copy, turn.item_id)
        await pilot.press("P")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite)
        what = app.screen.query_one("#what", Static).render().plain
        assert "PIN as long-term memory (ttl -1): 1 item in tenant" in what
        assert f"item {turn.item_id}: ttl {json.dumps(before)} → -1" in what
        assert "If-Match" in what and "audit.jsonl" in what
        await pilot.press("y")
        await settle(pilot)
        assert ttl_of(demo_copy, turn.item_id) == -1
        assert f"pin: item {turn.item_id} now has ttl -1" in notices(app)
        # The list was reloaded: the row now says it never expires.
        row = next(r for r in cells(app, "turns") if r and r[0] == str(turn.order))
        assert row[-1] == "never"
        intent, line = audit(isolated_user_dirs)
        assert intent["event"] == "intent" and intent["id"] == line["id"]
        assert line["event"] == "pin" and line["ids"] == [turn.item_id]


async def test_a_declined_write_changes_nothing(demo_copy, clock, isolated_user_dirs):
    app = writable_app(demo_copy, clock, allow_writes=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("X")  # erase the thread under the cursor
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite)
        assert "delete all" in app.screen.query_one("#what", Static).render().plain
        await pilot.press("escape")
        await settle(pilot)
        assert status(app) == "nothing was written"
    assert audit(isolated_user_dirs) == []


async def test_erase_a_thread_and_set_a_ttl_by_command(demo_copy, clock, isolated_user_dirs):
    app = writable_app(demo_copy, clock, allow_writes=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        threads = app.browse.query_one("#threads", RowList)
        victim = app.browse.thread_column.current_thread
        assert victim is not None
        count = threads.row_count
        await pilot.press("X")
        await settle(pilot)
        assert (
            f"delete all {victim.items:,} items"
            in app.screen.query_one("#what", Static).render().plain
        )
        await pilot.press("y")  # an erase is not confirmed by one key
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite)
        await pilot.press(*"no-such-thread", "enter")  # nor by the wrong id
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite)
        assert "that is not the thread id" in app.screen.query_one("#keys", Static).render().plain
        typed = app.screen.query_one("#typed", Input)
        typed.value = ""
        await pilot.press(*victim.ref.thread.text, "enter")
        await settle(pilot)
        assert app.browse.level is Level.THREADS and threads.row_count == count - 1
        assert "items deleted" in notices(app)
        lines = audit(isolated_user_dirs)
        assert lines[-1]["event"] == "erase-thread" and len(lines[-1]["ids"]) == victim.items
        await pilot.press("enter")
        await settle(pilot)
        turn = app.browse.turn_column.current_turn
        assert turn is not None
        app.run_command("set-ttl 7200")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite)
        assert (
            "SET ttl 7200 (2h00m after the write)"
            in app.screen.query_one("#what", Static).render().plain
        )
        await pilot.press("y")
        await settle(pilot)
        assert ttl_of(demo_copy, turn.item_id) == 7200


async def test_e_writes_set_ttl_after_the_colon_and_the_seconds_typed_follow_it(
    demo_copy, clock, isolated_user_dirs
):
    """``E`` opens the command bar on ``set-ttl ``: what is typed next is the seconds,
    after the verb, not in place of it (only a kept filter is shown selected)."""
    app = writable_app(demo_copy, clock, allow_writes=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in ("enter", "enter"):
            await pilot.press(key)
            await settle(pilot)
        turn = app.browse.turn_column.current_turn
        assert app.browse.level is Level.TURNS and turn is not None
        await pilot.press("E", *"7200")
        assert app.screen.query_one(CommandBar).value == "set-ttl 7200"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmWrite)
        assert "SET ttl 7200" in app.screen.query_one("#what", Static).render().plain
        await pilot.press("escape")
        await settle(pilot)
    assert ttl_of(demo_copy, turn.item_id) != 7200
