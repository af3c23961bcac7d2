from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Input

from cosmem_tui.compose import open_local_session as open_session
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock
from cosmem_tui.ui.app import CosmemApp


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """A blinking cursor would make screenshots depend on timing."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


AppFactory = Callable[..., CosmemApp]


@pytest.fixture
def make_app(clock: FrozenClock) -> AppFactory:
    def factory(
        workspace: Path,
        *,
        demo: bool = True,
        schema: str | None = None,
        ledger: Path | None = None,
    ) -> CosmemApp:
        # Still: the demo's live workload never writes a test's workspace (snapshots and
        # counts stay as built).
        options = SessionOptions(workspace=workspace, schema=schema, live_demo=False)

        async def open_it():
            session = open_session(options, clock)
            session.is_demo = demo  # the header then says "demo workspace", not a tmp path
            return session

        return CosmemApp(options, clock=clock, session_factory=open_it, ledger=ledger)

    return factory


async def settle(pilot: Pilot, rounds: int = 3) -> None:
    """Wait until workers are done and their messages have been handled.

    A finished worker's message may start another (counts for the rows a list just
    showed), so this waits until a round ends with no worker left running.
    """
    app = pilot.app
    quiet = 0
    for done in range(200):
        await pilot.pause()
        await app.workers.wait_for_complete()
        # A repaint can start work (a list reports the rows it drew, and they are
        # counted), and on a loaded machine it may still be pending here: wait for it.
        await app.screen.wait_for_refresh()
        await pilot.pause()
        busy = any(not worker.is_finished for worker in app.workers)
        quiet = 0 if busy else quiet + 1
        if done + 1 >= rounds and quiet >= 2:
            return


def screen_text(app: CosmemApp) -> str:
    """The whole screen as the terminal shows it, as plain text (one line per row)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def burst(app: CosmemApp, *keys: str) -> None:
    """Queue keys all at once, as a paste or a slow SSH link delivers them.

    ``Pilot.press`` waits for each key to be handled; this does not, so it catches
    keys that race a focus change.
    """
    from textual import events
    from textual.keys import _character_to_key, key_to_character

    assert app._driver is not None
    for key in keys:
        character = key if len(key) == 1 else key_to_character(key)
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        event = events.Key(key, character)
        event.set_sender(app)
        app._driver.send_message(event)


def cells(app: CosmemApp, list_id: str) -> list[list[str]]:
    """The text of every row of a list as shown (filtered), [] for a placeholder row."""
    from cosmem_tui.ui.widgets.row_list import RowList

    lst = app.screen.query_one(f"#{list_id}", RowList)
    out = []
    for position in range(lst.row_count):
        row = lst.source.row(lst.source_index(position))
        out.append([c[0] for c in row] if row is not None else [])
    return out
