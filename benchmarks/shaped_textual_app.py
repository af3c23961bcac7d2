"""The floor for a console of cosmem's shape: stock Textual widgets laid out as browse.

    python benchmarks/shaped_textual_app.py

A header, a breadcrumb line, one bordered table of tenants with the same columns and a
screenful of rows, a status line and a footer of key hints, from Textual's own widgets
(``Header``, ``DataTable``, ``Footer``) with no console code at all: what a Textual app
of this shape pays before its first frame. ``benchmarks/startup.py`` times it beside
the minimal app and ``cosmem`` in the same run.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Header, Static

COLUMNS = ("tenant", "RU%", "threads", "turns", "expiring 24h", "last write")


class Shaped(App[None]):
    TITLE = "cosmem"
    SUB_TITLE = "shaped Textual app (press q)"
    CSS = """
    #crumbs, #status { height: 1; padding: 0 1; color: $text-muted; }
    DataTable { height: 1fr; border: round $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit"),
        Binding("enter", "noop", "open"),
        Binding("slash", "noop", "filter"),
        Binding("colon", "noop", "command"),
        Binding("question_mark", "noop", "help"),
        Binding("r", "noop", "reload"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("tenants", id="crumbs")
        table: DataTable[str] = DataTable(cursor_type="row")
        table.add_columns(*COLUMNS)
        for i in range(60):
            table.add_row(f"tenant-{i:02d}", f"{i % 17}%", f"{i * 7:,}", f"{i * 131:,}", "0", "2m")
        yield table
        yield Static("60 tenants · counts come as rows are shown", id="status")
        yield Footer()

    def action_noop(self) -> None:
        """The hints are there to be drawn; the keys do nothing."""


if __name__ == "__main__":
    Shaped().run()
