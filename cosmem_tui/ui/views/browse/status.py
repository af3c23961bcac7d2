"""What the browse columns tell the screen: each column is a widget that owns its
loading, its errors and its states.

Every column shows one of: *loading* (what it is waiting for), *empty* ("no threads",
"no turns match 'x' (24 loaded; Esc clears)"), *failed* (the whole message, wrapped,
with the fix and ``r``), or *partial* ("300 of 376 loaded — 1 page failed"): never a
spinner that hides an error, never an old error after a successful reload. Columns
tell the screen what the user should read in the status line (``Status``) and what
they loaded (for the breadcrumbs) by messages; the screen owns the levels and the
layout.
"""

from __future__ import annotations

from textual.message import Message

from cosmem_tui.core.text import visible

RETRY = "r retries"


class Status(Message):
    """A line for the view's status bar (the whole of it is also in the column)."""

    def __init__(self, text: str, *, error: bool = False) -> None:
        super().__init__()
        self.text = text
        self.error = error


def failed_text(what: str, error: str) -> str:
    return f"{what} failed: {visible(error)}\n\n{RETRY}"
