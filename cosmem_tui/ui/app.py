"""The Textual application: opens the session in a worker, then hands it to the panes."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import ClassVar, TextIO

from textual import events
from textual.app import App
from textual.message import Message

from cosmem_tui.compose import build_demo, open_session
from cosmem_tui.core.ledger_file import LedgerFile
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.model import Clock, SystemClock
from cosmem_tui.ui.browse import BrowseScreen
from cosmem_tui.ui.failure import SessionFailedScreen
from cosmem_tui.ui.help import HelpScreen
from cosmem_tui.ui.keys import APP_KEYS
from cosmem_tui.ui.messages import describe_error
from cosmem_tui.ui.themes import DEFAULT_THEME, load_themes

TERMINAL_WATCH_S = 2.0
EXIT_TERMINAL_LOST = 129  # as if ended by SIGHUP


def terminal_alive(stream: TextIO | None) -> bool:
    """Is ``stream`` still a live terminal (not closed, not hung up, device not gone)?"""
    if stream is None or stream.closed:
        return False
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return False
        return os.path.exists(os.ttyname(fd))
    except (OSError, ValueError):
        return False


class SessionReady(Message):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session


class SessionFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class Progress(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class CosmemApp(App[None]):
    TITLE = "cosmem"
    BINDINGS: ClassVar = [k.binding() for k in APP_KEYS]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        options: SessionOptions | None = None,
        *,
        clock: Clock | None = None,
        theme: str | None = None,
        session_factory: Callable[[], Awaitable[Session]] | None = None,
        ledger: Path | None = None,  # --ledger: every request appended there (JSON Lines)
    ) -> None:
        super().__init__()
        self.options = options or SessionOptions()
        self.clock = clock or SystemClock()
        self._session_factory = session_factory
        self.session: Session | None = None
        self._ledger_path = ledger
        self.ledger_file: LedgerFile | None = None
        self.browse = BrowseScreen()
        # Themes are set before anything is styled: switching later restyles every widget.
        for loaded in load_themes():
            self.register_theme(loaded)
        self.theme = theme if theme in self.available_themes else DEFAULT_THEME

    def on_mount(self) -> None:
        if not self.is_headless:
            self.set_interval(TERMINAL_WATCH_S, self._watch_terminal)
        self.push_screen(self.browse)
        if self.options.needs_demo_build() and self._session_factory is None:
            self.browse.show_progress("first run: creating the demo workspace…")
        self.run_worker(self._open, group="session", exit_on_error=False)

    def _watch_terminal(self) -> None:
        # A process that outlives its terminal (an SSH drop without SIGHUP reaching it,
        # a killed multiplexer) would otherwise spin on a dead input stream at 100% CPU
        # on a shared jump box. Leave instead.
        if not terminal_alive(sys.__stdin__):
            self.exit(return_code=EXIT_TERMINAL_LOST)

    async def _open(self) -> None:
        """Build the demo on first run (on a thread), open the session, report back.

        A Cosmos session opens on this event loop: its client and credential serve
        the whole session, detection included.
        """
        try:
            if self._session_factory is not None:
                session = await self._session_factory()
            else:
                if self.options.needs_demo_build():

                    def progress(done: float) -> None:
                        text = f"first run: creating the demo workspace… {done:.0%}"
                        self.post_message(Progress(text))

                    await asyncio.to_thread(
                        build_demo, self.options.workspace_path, self.clock, progress
                    )
                session = await open_session(
                    self.options,
                    self.clock,
                    notice=lambda text: self.post_message(Progress(text)),  # sign-in prompts
                )
        except Exception as exc:
            self.post_message(SessionFailed(describe_error(exc)))
            return
        self.post_message(SessionReady(session))

    def on_progress(self, message: Progress) -> None:
        self.browse.show_progress(message.text)

    def on_session_ready(self, message: SessionReady) -> None:
        self.session = message.session
        ledger_error = self._attach_ledger(message.session)
        self.browse.attach(message.session)
        if ledger_error:
            self.browse.set_status(ledger_error, error=True)

    def _attach_ledger(self, session: Session) -> str | None:
        """Before the panes start their requests; what went wrong, else None."""
        if self._ledger_path is None:
            return None
        try:
            self.ledger_file = LedgerFile(self._ledger_path)
        except OSError as exc:
            return f"--ledger {self._ledger_path}: {exc.strerror or exc}"
        self.ledger_file.attach(session.gateway)
        return None

    def on_session_failed(self, message: SessionFailed) -> None:
        self.browse.set_status(message.error, error=True)

        def retry(again: bool | None) -> None:
            if again:
                self.browse.set_status("opening again…")
                self.run_worker(self._open, group="session", exit_on_error=False)

        self.push_screen(SessionFailedScreen(message.error, self._where()), retry)

    def _where(self) -> str:
        options = self.options
        if options.cosmos is not None:
            return options.cosmos.describe()
        return f"the workspace {options.workspace_path}"

    async def on_event(self, event: events.Event) -> None:
        # While the command bar is open, keys are applied here, in the order they
        # arrived, before Textual would queue them on a widget (see CommandBar).
        if (
            isinstance(event, events.Key)
            and not event.is_forwarded
            and self.screen is self.browse
            and self.browse.bar_is_open
            and self.browse.bar_key(event)
        ):
            return
        await super().on_event(event)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.close()
        if self.ledger_file is not None:
            self.ledger_file.close()  # after the session: its last records are in


def run_app(
    options: SessionOptions, *, theme: str | None = None, ledger: Path | None = None
) -> int:
    app = CosmemApp(options, theme=theme, ledger=ledger)
    app.run()
    return app.return_code or 0
