"""Headless writers: records as a readable table, a JSON array or CSV, all item text escaped.

The CLI prints its lists through ``Output``. It lives beside ``records`` so that any
other face (a view's export) writes the same records the same way: same escaping,
same formats.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from cosmem_tui.core.text import json_for_terminal, one_line, visible


def _flat(value: Any, separator: str) -> str | None:
    """A record value as one text for a table cell or CSV field (None: no value)."""
    if value is None:
        return None
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return separator.join(value)  # roles, problems: every element is item text
        return None  # messages: their text is in the text column already
    return str(value)


def _csv_value(value: Any) -> str:
    flat = _flat(value, "; ")
    return "" if flat is None else visible(flat)


class Output:
    """Streams records as a table, a JSON array or CSV, escaping all item text.

    This is where every headless command's output is escaped: whatever a record
    holds (keys, ids, roles, kinds, problems, text) leaves through ``_cell`` (table),
    ``_csv_value`` (CSV) or ``json_for_terminal`` (JSON, which decodes to the exact
    data), and the table headers, which schemas may name, through ``one_line``.
    """

    def __init__(
        self,
        fmt: str,
        fields: Sequence[str],
        table_fields: Sequence[str],
        stream: TextIO,
        *,
        titles: Mapping[str, str] | None = None,  # table headers that differ from the keys
    ) -> None:
        self.fmt = fmt
        self.fields = fields
        self.table_fields = table_fields
        self.headers = [one_line((titles or {}).get(f, f).upper()) for f in table_fields]
        self.stream = stream
        self.count = 0
        self._table_rows: list[list[str]] = []
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
            self.stream.write(json_for_terminal(record))
        elif self._csv is not None:
            self._csv.writerow([_csv_value(record.get(f)) for f in self.fields])
        else:
            self._table_rows.append([_cell(record.get(f)) for f in self.table_fields])
            if len(self._table_rows) >= 500:
                self._flush_table()
        self.count += 1

    def _flush_table(self) -> None:
        if self._table_rows:
            _print_table(self.headers, self._table_rows, self.stream, header=not self._flushed)
            self._flushed = True
            self._table_rows = []

    _flushed = False

    def __exit__(self, *exc: object) -> None:
        if self.fmt == "json":
            self.stream.write("\n]\n" if self.count else "]\n")
        elif self.fmt == "table":
            self._flush_table()


def _cell(value: Any) -> str:
    if isinstance(value, list) and not all(isinstance(v, str) for v in value):
        return f"{len(value)}"  # messages: counted, their text is in the text column
    flat = _flat(value, ",")
    return "—" if flat is None else one_line(flat, 72)


def _print_table(
    headers: Sequence[str], rows: list[list[str]], stream: TextIO, *, header: bool
) -> None:
    from rich.cells import cell_len, set_cell_size

    widths = [max(cell_len(h), *(cell_len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = []
    if header:
        lines.append("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    for row in rows:
        lines.append("  ".join(set_cell_size(c, w) for c, w in zip(row, widths, strict=True)))
    stream.write("\n".join(line.rstrip() for line in lines) + "\n")
