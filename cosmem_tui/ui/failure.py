"""The session could not open: a full screen that explains why, with the fix, never a spinner."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from cosmem_tui.core.text import visible


class SessionFailedScreen(Screen[bool]):
    """Dismissed with True to try again (``r``); ``q`` quits."""

    BINDINGS: ClassVar = [
        Binding("r", "retry", "try again"),
        Binding("q,escape", "quit", "quit"),
    ]

    DEFAULT_CSS = """
    SessionFailedScreen { align: center middle; }
    SessionFailedScreen > Vertical { width: 90%; max-width: 100; height: auto; padding: 1 2;
                                     border: thick $error; background: $surface; }
    SessionFailedScreen #title { text-style: bold; color: $error; }
    SessionFailedScreen #error { margin-top: 1; }
    SessionFailedScreen #keys { margin-top: 1; color: $text-muted; }
    """

    def __init__(self, error: str, where: str) -> None:
        super().__init__()
        self.error = error
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"cosmem could not open {visible(self.where)}"), id="title")
            # The whole message, wrapped: the fix (az login, a role to assign…) is in it.
            yield Static(Text(visible(self.error)), id="error")
            yield Static(Text("r try again · q quit"), id="keys")

    def action_retry(self) -> None:
        self.dismiss(True)

    def action_quit(self) -> None:
        self.app.exit(return_code=1)
