"""A workspace file that is locked, damaged, truncated, not a database, or from a newer
cosmem: the CLI says so in one line (exit 1) and the TUI explains it, never a traceback.

Locks are real: a second sqlite3 connection holds ``BEGIN EXCLUSIVE`` on the file, as
another program writing it would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.widgets import Static

from cosmem_tui.cli import EXIT_ERROR
from cosmem_tui.sources.local.workspace_file import FORMAT_VERSION
from cosmem_tui.ui.failure import SessionFailedScreen
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from tests.helpers import build_workspace, exchange
from tests.helpers import run_cli as run
from tests.ui.conftest import settle

TENANTS = [f"tenant-{n:02d}" for n in range(40)]


@pytest.fixture
def workspace(tmp_path: Path, clock) -> Path:
    items = [exchange(t, f"thread-{i % 3}", i) for t in TENANTS for i in range(30)]
    return build_workspace(tmp_path / "w.sqlite", items, now=int(clock.now()))


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Another program holds the file's exclusive lock (as while it writes)."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


def garbage(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 40)


def truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def newer(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE meta SET value = ? WHERE key = 'format'", (str(int(FORMAT_VERSION) + 1),)
        )
    db.close()


SPOILED = {
    "garbage": (garbage, "is not a cosmem workspace: not a SQLite database"),
    "truncated": (truncated, "is damaged or truncated"),
    "newer": (
        newer,
        "was written by a newer cosmem (workspace format 2; this version reads format 1)",
    ),
}
FIXES = {
    "garbage": "",
    "truncated": "build it again (cosmem demo --reset for the demo, or import it again)",
    "newer": "install a newer cosmem to read it",
}


@pytest.mark.parametrize("how", sorted(SPOILED))
def test_a_spoiled_file_is_one_line_on_the_cli(capsys, workspace, how):
    spoil, says = SPOILED[how]
    spoil(workspace)
    code, out, err = run(capsys, "--workspace", str(workspace), "tenants")
    assert code == EXIT_ERROR and out == ""
    assert err.startswith(f"cosmem: {workspace} {says}") and err.count("\n") == 1
    assert FIXES[how] in err and "Traceback" not in err


def test_a_locked_file_is_one_line_on_the_cli(capsys, workspace):
    with locked(workspace):
        code, out, err = run(capsys, "--workspace", str(workspace), "tenants")
    assert code == EXIT_ERROR and out == ""
    assert err == (
        f"cosmem: {workspace} is locked by another program that is writing it (database is "
        "locked); let it finish or close it, then try again\n"
    )
    code, out, _ = run(capsys, "--workspace", str(workspace), "tenants")  # released: it reads
    assert code == 0 and "tenant-00" in out


async def failed_screen(pilot) -> SessionFailedScreen:
    for _ in range(500):
        await pilot.pause(0.02)
        if isinstance(pilot.app.screen, SessionFailedScreen):
            return pilot.app.screen
    raise AssertionError("no explanation on screen")


def explained(screen: SessionFailedScreen) -> str:
    return screen.query_one("#error", Static).render().plain


@pytest.mark.parametrize("how", sorted(SPOILED))
async def test_a_spoiled_file_is_explained_in_the_tui(make_app, workspace, how):
    spoil, says = SPOILED[how]
    spoil(workspace)
    app = make_app(workspace, demo=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await failed_screen(pilot)
        text = explained(screen)
        assert says in text and FIXES[how] in text and "Traceback" not in text
        await pilot.press("r")  # still spoiled: explained again, the app still running
        screen = await failed_screen(pilot)
        assert says in explained(screen)


async def test_a_file_locked_at_start_opens_with_r_once_released(make_app, workspace):
    app = make_app(workspace, demo=False)
    lock = locked(workspace)
    lock.__enter__()
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await failed_screen(pilot)
            assert "is locked by another program" in explained(screen)
            assert "let it finish or close it, then try again" in explained(screen)
            lock.__exit__(None, None, None)  # the other program finished
            await pilot.press("r")
            await settle(pilot)
            assert isinstance(app.screen, BrowseScreen) and app.browse.top.row_count == 40
    finally:
        lock.__exit__(None, None, None)


async def test_a_lock_taken_while_browsing_is_explained_where_it_is_met(make_app, workspace):
    app = make_app(workspace, demo=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        browse = app.browse
        assert browse.top.row_count == 40
        with locked(workspace):
            await pilot.press("enter")  # the tenant's threads: a read of the locked file
            await settle(pilot)
            line = browse.query_one("#status", Static).render().plain
            assert "is locked by another program" in line and "r retries" in line
            assert browse.level is Level.TENANTS and app.is_running
        await pilot.press("enter")  # released: the same key now opens the tenant
        await settle(pilot)
        assert browse.level is Level.THREADS
