"""What the tail view draws: a row per change, the rate line and the mode's note.

Every field of a row is item data (keys, ids, order values, roles, message text) and
goes through ``one_line`` (keys, ids and roles ``exact``) and then ``safe_cells``, the
exit of every list, so hostile text never reaches the terminal as markup or escapes.
"""

from __future__ import annotations

from typing import Any

from textual.strip import Strip

from cosmem_tui.core.tail_rate import RateSummary, WriterRate
from cosmem_tui.core.tail_records import TAIL_FIELDS, change_record
from cosmem_tui.core.tail_window import TailWindow
from cosmem_tui.core.text import one_line
from cosmem_tui.model.changes import Change, ChangeOp
from cosmem_tui.model.keys import value_text
from cosmem_tui.model.times import utc_text
from cosmem_tui.schemas import Schema
from cosmem_tui.ui.widgets.cells import safe_cells
from cosmem_tui.ui.widgets.row_list import Cell, Column, RowList

PREVIEW = 120  # characters of a preview read: the column shows what fits

# A narrow terminal drops the RU and the lsn-ish columns first, never the op or preview.
TAIL_COLUMNS = (
    Column("TIME", 8),
    Column("OP", 13),
    Column("TENANT", 12, drop_order=2),
    Column("THREAD", 12, drop_order=1),
    Column("ID", 14, drop_order=3),
    Column("ORDER", 6, "right", drop_order=4),
    Column("ROLE · PREVIEW", min_width=16),
    Column("RU", 6, "right", drop_order=5),
)

# A create is the usual change and is drawn plain: a row is then one run of one style
# (a styled cell costs the terminal two style changes a row, a screenful each poll under
# a flood), and the rarer replaces and removals stand out.
OP_TEXT: dict[ChangeOp, Cell] = {
    ChangeOp.CREATE: ("create", ""),
    ChangeOp.REPLACE: ("replace", "accent"),
    ChangeOp.WRITE: ("write", ""),
    ChangeOp.DELETE: ("delete", "bad"),
    ChangeOp.EXPIRED: ("expired (TTL)", "warn"),
}


def key_cell(change: Change, tenant: bool) -> Cell:
    ref = change.ref
    if ref is None:
        return "—", "dim"
    key = ref.tenant if tenant else ref.thread
    return ("—", "dim") if key is None else (one_line(key.text, 40, exact=True), "")


def preview_cell(change: Change) -> Cell:
    if change.op.removes:  # a removal carries only its id and key: no text
        return ("gone: " + ("purged by TTL" if change.ttl_expired else "deleted"), "dim")
    text = one_line(change.preview, PREVIEW)
    if change.role:
        return f"{one_line(change.role, 16, exact=True)}: {text}", ""
    return text, ""


def change_cells(change: Change) -> list[Cell]:
    order = "" if change.order is None else one_line(value_text(change.order), 8, exact=True)
    return safe_cells(
        [
            (utc_text(change.commit_time, "%H:%M:%S"), ""),
            OP_TEXT[change.op],
            key_cell(change, tenant=True),
            key_cell(change, tenant=False),
            (one_line(change.item_id, 40, exact=True), ""),
            (order, ""),
            preview_cell(change),
            (f"{change.request_units:.2f}", ""),
        ]
    )


class TailList(RowList):
    """The tail's rows: a line is written as one run of text per style, not per cell, so
    a screenful of new rows costs the terminal what its text does, and little more."""

    def render_line(self, y: int) -> Strip:
        return super().render_line(y).simplify()


class TailRows:
    """The window's rows, newest first (a ``RowSource``); cells are made once a row."""

    def __init__(self, schema: Schema) -> None:
        self.changes: list[Change] = []
        self.schema = schema
        self._cells: dict[tuple[int, str], list[Cell]] = {}

    def update(self, window: TailWindow) -> None:
        """The window's rows now; cells of rows still in it are kept (only new rows cost)."""
        self.changes = list(window)
        if len(self._cells) > 2 * len(self.changes):
            keep = {change.key for change in self.changes}
            self._cells = {k: v for k, v in self._cells.items() if k in keep}

    def __len__(self) -> int:
        return len(self.changes)

    def row(self, index: int) -> list[Cell]:
        change = self.changes[index]
        cells = self._cells.get(change.key)
        if cells is None:
            cells = change_cells(change)
            self._cells[change.key] = cells
        return cells

    def search_text(self, index: int) -> str:
        change = self.changes[index]
        shown = " ".join(text for text, _ in self.row(index))
        return f"{shown} {change.op.value} {change.kind or ''}"

    def index_of(self, key: tuple[int, str]) -> int | None:
        for index, change in enumerate(self.changes):
            if change.key == key:
                return index
        return None

    def record(self, index: int, fmt: str) -> dict[str, Any]:
        change = self.changes[index]
        record = change_record(change, self.schema)
        if fmt != "json":
            record = {k: "" if v is None else str(v) for k, v in record.items()}
        record["role"] = change.role
        record["preview"] = change.preview
        return record


TAIL_RECORD_FIELDS = (*TAIL_FIELDS, "role", "preview")


def _writer(rate: WriterRate) -> str:
    name = "(no key)" if rate.writer is None else one_line(rate.writer.text, 24, exact=True)
    return f"{name} {rate.per_s:,.1f}/s ({rate.share:.0%})"


def rate_line(summary: RateSummary, tenant_label: str) -> str:
    """``12.4 changes/s over the last minute · top: hot 8.1/s (65%) …``, and a flood."""
    if not summary.changes:  # the same words each poll: an idle tail redraws nothing
        return (
            "no changes since the tail started"
            if summary.span_s < 60
            else ("no changes in the last minute")
        )
    span = "the last minute" if summary.span_s >= 60 else f"the last {summary.span_s:.0f} s"
    line = f"{summary.per_s:,.1f} changes/s over {span} ({summary.changes:,})"
    if summary.top:
        line += f" · top {tenant_label}s: " + ", ".join(_writer(w) for w in summary.top)
    if summary.flood is not None:
        flood = summary.flood
        name = "(no key)" if flood.writer is None else one_line(flood.writer.text, 24, exact=True)
        line = (
            f"⚠ flood: {tenant_label} {name} writes {flood.share:.0%} of the changes "
            f"(over {summary.flood_share:.0%}) · " + line
        )
    return line
