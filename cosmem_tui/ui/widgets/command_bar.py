"""The bottom input line: ``/`` filters the focused list, ``:`` runs a command.

While the bar is open the app feeds it keys synchronously from its own key loop
(``edit``), instead of through the Input's message queue: keys that arrive in one
burst — a paste, a slow SSH link — are then applied strictly in order, and the
keys after Enter reach the list, not the closing bar.

``/`` on a list that has a filter opens with it selected: typing replaces it, an arrow
key or backspace edits it; Enter keeps the result and Esc clears the filter, in every
list alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

from textual import events
from textual.widgets import Input

Mode = Literal["filter", "command"]

_EDITS: dict[str, Callable[[Input], None]] = {
    "backspace": Input.action_delete_left,
    "delete": Input.action_delete_right,
    "left": Input.action_cursor_left,
    "right": Input.action_cursor_right,
    "home": Input.action_home,
    "end": Input.action_end,
    "ctrl+a": Input.action_home,
    "ctrl+e": Input.action_end,
    "ctrl+u": Input.action_delete_left_all,
    "ctrl+w": Input.action_delete_left_word,
}


class CommandBar(Input):
    DEFAULT_CSS = """
    CommandBar { dock: bottom; height: 1; border: none; padding: 0 1; display: none;
                 background: $panel; }
    CommandBar:focus { border: none; }
    """
    BINDINGS: ClassVar = []

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, select_on_focus=False)
        self.mode: Mode = "filter"
        self.cursor_blink = False  # no idle redraws over slow SSH links

    @property
    def is_open(self) -> bool:
        return bool(self.display)

    def open(self, mode: Mode, value: str = "") -> None:
        self.mode = mode
        self.placeholder = (
            "filter the focused list (Enter keeps it, Esc clears it)"
            if mode == "filter"
            else "tenant NAME · thread ID · thread TENANT ID · tenants · help · q"
        )
        self.value = value
        self.cursor_position = len(value)
        if value and mode == "filter":
            # The filter kept by Enter is shown, selected: typing starts a new one (never
            # appended to the old), an arrow key or backspace edits it. A command opened
            # on its verb (``set-ttl ``) is not: what is typed next follows it.
            self.select_all()
        self.display = True
        self.screen.set_focus(self)

    def close(self) -> None:
        self.display = False

    def edit(self, event: events.Key) -> bool:
        """Apply one key now; False for keys the bar does not handle (Enter, Esc, …)."""
        if event.key in _EDITS:
            _EDITS[event.key](self)
            return True
        if event.is_printable and event.character is not None:
            if not self.selection.is_empty:
                self.delete_selection()  # typed text replaces the selected one
            self.insert_text_at_cursor(event.character)
            return True
        return False
