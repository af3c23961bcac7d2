"""A full-screen scrolling panel over the current view: the row detail, a history.

Subclasses name the keys that close them (``BINDINGS = [Binding(...), *SCROLL_KEYS]``)
and the id of their ``VerticalScroll`` (``SCROLL_ID``); the scrolling keys, the border's
key hints and the frame are the same for every panel.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from cosmem_tui.ui.widgets.hint_line import fit_hints

KEYS = ("Esc closes", "j k scroll", "PgDn PgUp page", "g G first, last")
SCROLL_KEYS = (
    Binding("down,j", "scroll('down')", show=False),
    Binding("up,k", "scroll('up')", show=False),
    Binding("pagedown,space,ctrl+f", "scroll('page_down')", show=False),
    Binding("pageup,ctrl+b", "scroll('page_up')", show=False),
    Binding("home,g", "scroll('home')", show=False),
    Binding("end,G", "scroll('end')", show=False),
)


class ScrollPanel(ModalScreen[None]):
    SCROLL_ID: ClassVar[str]
    DEFAULT_CSS = """
    ScrollPanel { align: center middle; }
    ScrollPanel > VerticalScroll { width: 100%; height: 100%; border: round $accent;
        background: $surface; padding: 0 1; }
    """

    @property
    def scroll(self) -> VerticalScroll:
        return self.query_one(f"#{self.SCROLL_ID}", VerticalScroll)

    def on_mount(self) -> None:
        self._fit_keys()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_keys()

    def _fit_keys(self) -> None:
        # Whole hints that fit the border (a cut "Esc clo…" reads as nothing).
        self.scroll.border_subtitle = fit_hints(KEYS, max(0, self.size.width - 8))

    # Keys sent with the key that opened the panel may arrive before its first layout:
    # each scroll waits for it, as the help does.
    def action_scroll(self, how: str) -> None:
        self.call_after_refresh(self._scroll, how)

    def _scroll(self, how: str) -> None:
        getattr(self.scroll, f"scroll_{how}")(animate=False)
