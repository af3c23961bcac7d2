"""Ask before a guarded write, showing exactly what changes and how many items.

The lines come from ``core.writes.describe_plan``: the item or thread, the ttl before
and after (or the number of items an erase deletes and what it costs), the If-Match
condition and where the audit log is. Item ids and keys are data: every line is
escaped before it is shown. Only ``y`` writes; anything else (``n``, ``esc``, ``q``)
leaves the data as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from cosmem_tui.core.text import one_line


class ConfirmWrite(ModalScreen[bool]):
    BINDINGS: ClassVar = [
        Binding("y", "answer(True)", "write"),
        Binding("n,escape,q", "answer(False)", "don't"),
    ]

    DEFAULT_CSS = """
    ConfirmWrite { align: center middle; }
    ConfirmWrite > Vertical { width: 100; height: auto; max-width: 96%; padding: 1 2;
                              border: thick $error; background: $surface; }
    ConfirmWrite #title { text-style: bold; color: $error; }
    ConfirmWrite #what { width: 100%; margin-top: 1; }
    ConfirmWrite #keys { margin-top: 1; color: $text-muted; }
    """

    def __init__(self, lines: Sequence[str]) -> None:
        super().__init__()
        self.lines = list(lines)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("confirm a write (--allow-writes)"), id="title")
            body = Text("\n".join(f"• {one_line(line)}" for line in self.lines))
            yield Static(body, id="what")
            yield Static(Text("y write it · n / esc leave everything as it is"), id="keys")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
