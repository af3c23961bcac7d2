"""The row detail (``v`` on any list): every field of the selected row, scrollable.

A list drops columns on a narrow terminal and cuts long cells; this screen shows the
row whole, at any size. What it shows is the row's record — the one ``e`` exports, ``y``
copies and the CLI prints for that row (``core/records.py``, through the view's
``ShownTable``) — so no field is left out and none is written twice. Each field is one
line of a two-column grid: the name, then the value, wrapped under itself (never under
the names). Values are data: plain ``Text`` of escaped characters, never markup, and a
very long value is cut (the reader, ``e`` and ``y`` have it whole).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cosmem_tui.core.text import cut_long, json_for_terminal, size_text, visible
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.widgets.hint_line import fit_hints

FIELD_LIMIT = 16 * 1024  # characters of one value shown; the rest is said, not drawn
KEYS = ("Esc closes", "j k scroll", "PgDn PgUp page", "g G first, last")


def value_text(value: Any) -> str:
    """A value as the detail shows it: text as itself, "—" for none, JSON otherwise
    (a list of texts one per line, a nested value indented)."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json_for_terminal(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value) if value else "—"
    return json_for_terminal(value, indent=2)


def field_value(value: Any, limit: int = FIELD_LIMIT) -> Text:
    shown, rest = cut_long(value_text(value), limit)
    text = Text(visible(shown, multiline=True))
    if rest:
        text.append(f"\n… {size_text(rest)} more (y copies the row whole)", style="dim")
    return text


def fields_table(record: Mapping[str, Any]) -> RenderableType:
    """One line per field: its name, then its value wrapped in its own column."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for name, value in record.items():
        grid.add_row(Text(name), field_value(value))
    return grid


class RowDetail(ModalScreen[None]):
    """The fields of one row; ``v``, ``Esc`` or ``q`` closes it."""

    BINDINGS: ClassVar = [
        Binding("escape,q,v", "dismiss", "close"),
        Binding("down,j", "scroll('down')", show=False),
        Binding("up,k", "scroll('up')", show=False),
        Binding("pagedown,space,ctrl+f", "scroll('page_down')", show=False),
        Binding("pageup,ctrl+b", "scroll('page_up')", show=False),
        Binding("home,g", "scroll('home')", show=False),
        Binding("end,G", "scroll('end')", show=False),
    ]
    DEFAULT_CSS = """
    RowDetail { align: center middle; }
    RowDetail > VerticalScroll { width: 100%; height: 100%; border: round $accent;
        background: $surface; padding: 0 1; }
    """

    def __init__(self, title: str, record: Mapping[str, Any]) -> None:
        super().__init__()
        self.title_text = title
        self.record = dict(record)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="row-detail") as scroll:
            scroll.border_title = plain(self.title_text)
            yield Static(fields_table(self.record), id="row-fields")

    def on_mount(self) -> None:
        self._fit_keys()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_keys()

    def _fit_keys(self) -> None:
        # Whole hints that fit the border (a cut "Esc clo…" reads as nothing).
        scroll = self.query_one("#row-detail", VerticalScroll)
        scroll.border_subtitle = fit_hints(KEYS, max(0, self.size.width - 8))

    # Keys sent with the v that opened the detail may arrive before its first layout:
    # each scroll waits for it, as the help does.
    def action_scroll(self, how: str) -> None:
        self.call_after_refresh(self._scroll, how)

    def _scroll(self, how: str) -> None:
        getattr(self.query_one("#row-detail", VerticalScroll), f"scroll_{how}")(animate=False)
