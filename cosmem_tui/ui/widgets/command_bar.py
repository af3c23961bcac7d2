"""The bottom input line: ``/`` filters the focused list, ``:`` runs a command."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import events
from textual.message import Message
from textual.widgets import Input

Mode = Literal["filter", "command"]


class CommandBar(Input):
    DEFAULT_CSS = """
    CommandBar { dock: bottom; height: 1; border: none; padding: 0 1; display: none;
                 background: $panel; }
    CommandBar:focus { border: none; }
    """
    BINDINGS: ClassVar = []

    class Closed(Message):
        def __init__(self, bar: CommandBar, mode: Mode, value: str, submitted: bool) -> None:
            super().__init__()
            self.bar = bar
            self.mode = mode
            self.value = value
            self.submitted = submitted

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, select_on_focus=False)
        self.mode: Mode = "filter"
        self.cursor_blink = False  # no idle redraws over slow SSH links

    def open(self, mode: Mode, value: str = "") -> None:
        self.mode = mode
        self.placeholder = (
            "filter the focused list (Enter keeps it, Esc clears it)"
            if mode == "filter"
            else "tenant NAME · thread ID · thread TENANT ID · tenants · help · q"
        )
        self.value = value
        self.cursor_position = len(value)
        self.display = True
        # Synchronously: the rest of a typed-ahead ":thread …" must land in the bar.
        self.screen.set_focus(self)

    def _close(self, submitted: bool) -> None:
        self.display = False
        self.post_message(self.Closed(self, self.mode, self.value, submitted))

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self._close(submitted=False)
            return
        await super()._on_key(event)

    def action_submit(self) -> None:  # type: ignore[override]
        self._close(submitted=True)
