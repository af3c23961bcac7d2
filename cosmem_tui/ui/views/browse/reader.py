"""Reading a long text in full: one page at a time, never the whole of it laid out at once.

The detail pane cuts every text at 64 KB or 1,000 lines (``core.text.cut_long``) and
draws at most 100 messages; ``v`` opens this reader over the whole turn (every message,
then the raw item). A page is 64 KB of the text, ended at a line break when one is
near, and at most 1,000 lines, escaped and laid out only when it is shown: a 5 MB
message or 50,000 messages cost one page of widgets, whichever page is read.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cosmem_tui.core.browse import TurnDetail
from cosmem_tui.core.text import LONG_LINES, LONG_TEXT, break_point, json_for_terminal, visible
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.widgets.hint_line import fit_line


def full_text(detail: TurnDetail) -> str:
    """The whole turn as plain text: each message (role, then its text), the raw item."""
    parts = [f"{message.role}\n{message.text}\n" for message in detail.turn.messages]
    parts.append("── raw item ──\n" + json_for_terminal(dict(detail.item.body), indent=2))
    return "\n".join(parts)


def page_bounds(text: str, size: int = LONG_TEXT, lines: int = LONG_LINES) -> list[int]:
    """Where each page starts (and, last, the end): ``size`` characters, ended at a line
    break within the last eighth of a page when there is one, and at most ``lines`` lines
    (50,000 short messages are 64 KB of very many lines, and lines cost the layout)."""
    starts = [0]
    while starts[-1] < len(text):
        start = starts[-1]
        end = break_point(text, start, size) if len(text) - start > size else len(text)
        newline = start - 1
        for _ in range(lines):
            newline = text.find("\n", newline + 1, end)
            if newline < 0:
                break
        else:
            end = min(end, newline + 1)
        if end >= len(text):
            break
        starts.append(end)
    return [*starts, len(text)]


class TextReader(ModalScreen[None]):
    """A long text, page by page: ``]`` / ``[`` turn pages, ``g`` / ``G`` the first and last."""

    BINDINGS: ClassVar = [
        Binding("escape,q,v", "dismiss", "close"),
        Binding("down,j", "scroll('down')", show=False),
        Binding("up,k", "scroll('up')", show=False),
        Binding("pagedown,space", "scroll('page_down')", show=False),
        Binding("pageup", "scroll('page_up')", show=False),
        Binding("right_square_bracket,n", "page(1)", show=False),
        Binding("left_square_bracket,p", "page(-1)", show=False),
        Binding("home,g", "first", show=False),
        Binding("end,G", "last", show=False),
    ]
    DEFAULT_CSS = """
    TextReader { align: center middle; }
    TextReader > VerticalScroll { width: 100%; height: 100%; border: round $accent;
        background: $surface; padding: 0 1; }
    """

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.bounds = page_bounds(text)
        self.page = 0

    @property
    def pages(self) -> int:
        return len(self.bounds) - 1

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="reader"):
            yield Static(id="reader-page")

    def on_mount(self) -> None:
        self.show_page(0)

    def page_text(self, page: int) -> str:
        return self.text[self.bounds[page] : self.bounds[page + 1]]

    def show_page(self, page: int, *, at_end: bool = False) -> None:
        self.page = max(0, min(page, self.pages - 1))
        start, end = self.bounds[self.page], self.bounds[self.page + 1]
        self.query_one("#reader-page", Static).update(
            Text(visible(self.page_text(self.page), multiline=True))
        )
        scroll = self.query_one("#reader", VerticalScroll)
        scroll.border_title = plain(f"{self.title_text} · page {self.page + 1} of {self.pages}")
        scroll.border_subtitle = plain(
            fit_line(  # whole parts at 80 columns, never "Esc clo…"
                f"characters {start:,}–{end:,} of {len(self.text):,}"
                " · Esc closes · ] next page · [ previous · G last",
                max(0, self.size.width - 6),
            )
        )
        if at_end:
            scroll.call_after_refresh(scroll.scroll_end, animate=False)
        else:
            scroll.scroll_home(animate=False)

    def action_scroll(self, how: str) -> None:
        getattr(self.query_one("#reader", VerticalScroll), f"scroll_{how}")(animate=False)

    def action_page(self, step: int) -> None:
        self.show_page(self.page + step)

    def action_first(self) -> None:
        self.show_page(0)

    def action_last(self) -> None:
        self.show_page(self.pages - 1, at_end=True)
