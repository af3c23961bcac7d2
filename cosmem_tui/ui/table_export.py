"""``e`` exports the table a view shows to a file; ``y`` copies the selected row over OSC 52.

A view says what it shows as a ``ShownTable``: the list on screen and, for a row of
it, the record the CLI prints for that row (``core/records.py``). Export writes the
rows the list shows — its filter and narrowing honoured, rows not loaded left out —
through ``core/table_export.py``, the CLI's writer. Copy hands the text to
``App.copy_to_clipboard``, which sends it base64-encoded in an OSC 52 sequence: it
reaches the terminal's clipboard over SSH, and no byte of it can act on the terminal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from cosmem_tui.core.output import not_finite_note
from cosmem_tui.core.table_export import ExportTable, export_dir, write_export
from cosmem_tui.core.text import json_for_terminal, one_line, size_text
from cosmem_tui.ui.widgets.row_list import RowList
from cosmem_tui.ui.workers import run_async

# Terminals take about 100 KB in one OSC 52 sequence (xterm and tmux cut or drop more),
# counted after base64, which adds a third: a larger copy is refused, never cut short.
OSC52_LIMIT = 100_000


@dataclass(frozen=True)
class ShownTable:
    """A list on screen and how each of its rows is written as a record."""

    name: str  # the file name's stem: "turns", "tenants" …
    fields: tuple[str, ...]  # the records' keys (CSV columns)
    rows: RowList
    record: Callable[[int, str], dict[str, Any] | None]  # source index, format → record
    partial: str = ""  # said after the count when the list is not whole ("loaded rows only")

    def records(self, fmt: str) -> list[dict[str, Any]]:
        """The rows shown, in order, as ``fmt`` writes them (None rows left out)."""
        out = []
        for position in range(self.rows.row_count):
            index = self.rows.source_index(position)
            record = self.record(index, fmt) if index is not None else None
            if record is not None:
                out.append(record)
        return out

    def current(self) -> dict[str, Any] | None:
        """The record under the cursor, as JSON has it."""
        index = self.rows.current_index
        return self.record(index, "json") if index is not None else None


class ChooseFormat(ModalScreen[str | None]):
    """Which format to export in: ``c`` CSV, ``j`` JSON, ``Esc`` nothing."""

    BINDINGS: ClassVar = [
        Binding("c", "choose('csv')", "CSV"),
        Binding("j", "choose('json')", "JSON"),
        Binding("escape,n,q", "choose('')", "cancel"),
    ]

    DEFAULT_CSS = """
    ChooseFormat { align: center middle; }
    ChooseFormat > Vertical { width: 60; height: auto; max-width: 90%; padding: 1 2;
                              border: thick $accent; background: $surface; }
    ChooseFormat #keys { margin-top: 1; color: $text-muted; }
    """

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(one_line(f"export {self.what} to a file")), id="question")
            yield Static(Text("c CSV · j JSON · esc cancel"), id="keys")

    def action_choose(self, fmt: str) -> None:
        self.dismiss(fmt or None)


def notice(screen: Screen[Any], title: str, message: str, *, error: bool = False) -> None:
    """A notice for something done (or refused); paths and names are data, never markup."""
    screen.app.notify(
        one_line(message),
        title=title if not error else f"{title}: not done",
        severity="error" if error else "information",
        timeout=30 if error else 15,
        markup=False,
    )


def export_shown(screen: Screen[Any], table: ExportTable, partial: str, at: float) -> None:
    """Ask for the format, then write ``table`` off the main thread and say where it went.

    The records are taken when the format is chosen, on the main thread (the view may
    move on while the file is written); ``at`` names the file."""

    def chosen(fmt: str | None) -> None:
        if fmt is None:
            return
        records = list(table.records(fmt))
        frozen = ExportTable(table.name, table.fields, lambda _fmt: records)

        async def write() -> None:
            try:
                done = await asyncio.to_thread(write_export, frozen, fmt, export_dir(), at)
            except OSError as exc:
                notice(screen, "export", f"cannot write the export: {exc}", error=True)
                return
            notice(
                screen,
                "export",
                f"exported {done.rows:,} {table.name}{partial} as {fmt.upper()} "
                f"({size_text(done.size)}) to {done.path}"
                + (f"; {not_finite_note(done.not_finite)}" if done.not_finite else ""),
            )

        run_async(screen, write, group="export", exit_on_error=False)

    screen.app.push_screen(ChooseFormat(f"the {table.name} shown{partial}"), chosen)


def copy_json(screen: Screen[Any], what: str, value: Any) -> None:
    """Copy ``value`` as indented JSON (decodes to exactly it) to the terminal's clipboard."""
    copy_text(screen, what, json_for_terminal(value, indent=2))


def copy_text(screen: Screen[Any], what: str, text: str) -> None:
    size = len(text.encode("utf-8"))
    encoded = 4 * ((size + 2) // 3)
    if encoded > OSC52_LIMIT:
        notice(
            screen,
            "copy",
            f"{what} is {size_text(size)}: over the ~100 KB a terminal takes in one OSC 52 "
            "copy, so nothing was copied · e exports it to a file",
            error=True,
        )
        return
    screen.app.copy_to_clipboard(text)
    notice(screen, "copy", f"copied {what} ({size_text(size)}) to the clipboard (OSC 52)")
