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
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from cosmem_tui.core.text import cut_long, json_for_terminal, size_text, visible
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.scroll_panel import SCROLL_KEYS, ScrollPanel

FIELD_LIMIT = 16 * 1024  # characters of one value shown; the rest is said, not drawn


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


class RowDetail(ScrollPanel):
    """The fields of one row; ``v``, ``Esc`` or ``q`` closes it."""

    BINDINGS: ClassVar = [Binding("escape,q,v", "dismiss", "close"), *SCROLL_KEYS]
    SCROLL_ID = "row-detail"

    def __init__(self, title: str, record: Mapping[str, Any]) -> None:
        super().__init__()
        self.title_text = title
        self.record = dict(record)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="row-detail") as scroll:
            scroll.border_title = plain(self.title_text)
            yield Static(fields_table(self.record), id="row-fields")
