"""Ask before a guarded write, showing exactly what changes and how many items.

The lines come from ``core.writes.describe_plan``: the item or thread, the ttl before
and after (or the number of items an erase deletes and what it costs), the If-Match
condition and where the audit log is. Item ids and keys are data: every line is
escaped before it is shown. A pin or a new ttl is made by ``y``; an erase, which cannot
be undone, only once the thread's id is typed (``core.writes.typed_consent``) and Enter
pressed. Anything else (``n``, ``esc``, ``q``) leaves the data as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from cosmem_tui.core.text import one_line, visible
from cosmem_tui.core.writes import typed_consent


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
    ConfirmWrite #typed { margin-top: 1; }
    """

    def __init__(self, lines: Sequence[str], *, type_to_confirm: str | None = None) -> None:
        """``type_to_confirm``: the text (a thread id) to type before Enter writes."""
        super().__init__()
        self.lines = list(lines)
        self.type_to_confirm = type_to_confirm

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("confirm a write (--allow-writes)"), id="title")
            body = Text("\n".join(f"• {one_line(line)}" for line in self.lines))
            yield Static(body, id="what")
            if self.type_to_confirm is None:
                keys = "y write it · n / esc leave everything as it is"
            else:
                keys = (
                    f"type the thread id {visible(self.type_to_confirm)} and Enter to erase "
                    "it · esc leaves everything as it is"
                )
                yield Input(placeholder="thread id", id="typed", select_on_focus=False)
            yield Static(Text(keys), id="keys")

    def on_mount(self) -> None:
        if self.type_to_confirm is not None:
            self.query_one("#typed", Input).focus()

    @on(Input.Submitted, "#typed")
    def _typed(self, event: Input.Submitted) -> None:
        assert self.type_to_confirm is not None
        if typed_consent(event.value, self.type_to_confirm):
            self.dismiss(True)
            return
        self.query_one("#keys", Static).update(
            Text(
                f"that is not the thread id: type {visible(self.type_to_confirm)} exactly, "
                "or esc to leave everything as it is"
            )
        )

    def action_answer(self, answer: bool) -> None:
        if answer and self.type_to_confirm is not None:
            return  # an erase is confirmed by typing, never by one key
        self.dismiss(answer)
