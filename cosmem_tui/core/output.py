"""Headless writers: records as a readable table, a JSON array or CSV, all item text escaped.

The CLI prints its lists through ``Output``. It lives beside ``records`` so that any
other face (a view's export) writes the same records the same way: same escaping,
same formats.
"""

from __future__ import annotations

import csv
import math
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Final, TextIO

from cosmem_tui.core.text import json_text, one_line, visible

# The table streams: rows are held until TABLE_BATCH have come, the columns are fitted
# to that first batch (each at most COLUMN_CAP cells wide), and those widths then hold
# for every later row, so a long listing's columns never move.
TABLE_BATCH = 500
COLUMN_CAP = 72  # cells; as wide as a one-line preview (``_cell``)


def _flat(value: Any, separator: str) -> str | None:
    """A record value as one text for a table cell or CSV field (None: no value)."""
    if value is None:
        return None
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return separator.join(value)  # roles, problems: every element is item text
        return None  # messages: their text is in the text column already
    return str(value)


# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection):
# such a cell gets a leading ' (the OWASP rule), which spreadsheets show as text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A plain number is left alone even when negative: a spreadsheet reads "-1" as the
# number -1, never as a formula, and a ttl of -1 must stay a number there.
_PLAIN_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_guard(cell: str) -> str:
    """``cell`` made inert for spreadsheets: formula starts prefixed with ``'``."""
    if cell.startswith(_FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def csv_value(value: Any) -> str:
    """One CSV field: text escaped and guarded, ``None`` empty, anything else (numbers,
    booleans, lists, objects) as JSON, so every cell decodes back to the record's value.
    A NaN or an infinity is empty, as JSON's ``null`` (``csv_cell`` counts them)."""
    return csv_cell(value)[0]


def csv_cell(value: Any) -> tuple[str, int]:
    """``csv_value`` and how many NaN or infinite numbers it wrote as null."""
    if value is None:
        return "", 0
    if isinstance(value, str):
        return csv_guard(visible(value, exact=True)), 0
    if isinstance(value, float) and not math.isfinite(value):
        return "", 1
    text, replaced = json_text(value)
    return csv_guard(text), replaced


class _Stderr:
    def __repr__(self) -> str:
        return "STDERR"


STDERR: Final = _Stderr()  # notes go to stderr when the records go to stdout


class Output:
    """Streams records as a table, a JSON array or CSV, escaping all item text.

    This is where every headless command's output is escaped: whatever a record
    holds (keys, ids, roles, kinds, problems, text) leaves through ``_cell`` (table),
    ``csv_value`` (CSV) or ``json_for_terminal`` (JSON, which decodes to the exact
    data), and the table headers, which schemas may name, through ``one_line``.

    JSON has no NaN or infinity (``allow_nan=False``): such a number is written as
    ``null`` (empty in CSV), counted in ``not_finite``, and said on ``notes`` when the
    output ends (by default stderr when the records go to stdout; a file's writer
    reports the count itself).
    """

    def __init__(
        self,
        fmt: str,
        fields: Sequence[str],
        table_fields: Sequence[str],
        stream: TextIO,
        *,
        titles: Mapping[str, str] | None = None,  # table headers that differ from the keys
        notes: TextIO | _Stderr | None = STDERR,
    ) -> None:
        self.fmt = fmt
        self.fields = fields
        self.table_fields = table_fields
        self.headers = [one_line((titles or {}).get(f, f).upper()) for f in table_fields]
        self.stream = stream
        self.count = 0
        self.not_finite = 0  # NaN and infinities written as null
        self._notes = notes if notes is not STDERR or stream is sys.stdout else None
        self._table_rows: list[list[str]] = []
        self._widths: list[int] | None = None  # decided by the first batch, then kept
        self._csv = csv.writer(stream) if fmt == "csv" else None

    def __enter__(self) -> Output:
        if self.fmt == "json":
            self.stream.write("[")
        elif self._csv is not None:
            self._csv.writerow(self.fields)
        return self

    def write(self, record: dict[str, Any]) -> None:
        if self.fmt == "json":
            self.stream.write(",\n" if self.count else "\n")
            text, replaced = json_text(record)
            self.not_finite += replaced
            self.stream.write(text)
        elif self._csv is not None:
            row = []
            for name in self.fields:
                cell, replaced = csv_cell(record.get(name))
                self.not_finite += replaced
                row.append(cell)
            self._csv.writerow(row)
        else:
            self._table_rows.append([_cell(record.get(f)) for f in self.table_fields])
            if len(self._table_rows) >= TABLE_BATCH:
                self._flush_table()
        self.count += 1

    def _flush_table(self) -> None:
        if not self._table_rows:
            return
        lines = []
        if self._widths is None:
            self._widths = _fit_widths(self.headers, self._table_rows)
            lines.append(_table_line(self.headers, self._widths))
        lines.extend(_table_line(row, self._widths) for row in self._table_rows)
        self.stream.write("\n".join(lines) + "\n")
        self._table_rows = []

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self.fmt == "json":
            self.stream.write("\n]\n" if self.count else "]\n")
        elif self.fmt == "table":
            if self._widths is None and not self._table_rows and exc_type is None:
                # An empty result still says what it is, as CSV's header and JSON's [] do.
                self.stream.write("  ".join(self.headers) + "\n")
            self._flush_table()
        notes = sys.stderr if isinstance(self._notes, _Stderr) else self._notes
        if self.not_finite and notes is not None:
            notes.write(f"cosmem: {not_finite_note(self.not_finite)}\n")


def not_finite_note(count: int) -> str:
    """What a writer says when it wrote NaN or infinite numbers as null."""
    return (
        f"{count:,} number{'s' if count != 1 else ''} NaN or infinite, written as null "
        "(JSON has no such number)"
    )


def _cell(value: Any) -> str:
    if isinstance(value, list) and not all(isinstance(v, str) for v in value):
        return f"{len(value)}"  # messages: counted, their text is in the text column
    flat = _flat(value, ",")
    return "—" if flat is None else one_line(flat, 72, exact=True)


def _fit_widths(headers: Sequence[str], rows: list[list[str]]) -> list[int]:
    """Each column as wide as its widest cell (at most COLUMN_CAP), never under its header
    and never 0 (a later cell must have room for the ellipsis)."""
    from rich.cells import cell_len  # only when a table is printed: no rich at import

    return [
        max(1, cell_len(header), min(COLUMN_CAP, max(cell_len(row[i]) for row in rows)))
        for i, header in enumerate(headers)
    ]


def _table_line(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(_fit(c, w) for c, w in zip(cells, widths, strict=True)).rstrip()


def _fit(cell: str, width: int) -> str:
    """``cell`` padded to ``width`` cells, or cropped to it with an ellipsis."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(cell) <= width:
        return set_cell_size(cell, width)
    # set_cell_size pads a wide character cut in half with a space: nothing straddles.
    return set_cell_size(cell, width - 1) + "…"
