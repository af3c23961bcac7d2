"""A change as a headless record (``cosmem tail --json``) and as a line of its table.

The record's keys are a runbook-facing contract (the README lists them): add keys
freely, never rename or remove one. Keys keep their JSON type (the tenant ``42`` is a
number, ``"42"`` a string); the table shows every value through ``one_line``, so item
text never reaches the terminal as an escape.
"""

from __future__ import annotations

from typing import Any, Final

from cosmem_tui.core.text import one_line
from cosmem_tui.model.changes import Change
from cosmem_tui.model.keys import value_text
from cosmem_tui.model.times import iso_utc, utc_text
from cosmem_tui.schemas import Schema

TAIL_FIELDS: Final = ("time", "op", "tenant", "thread", "id", "order", "lsn", "ttl_expired", "ru")
# The table's columns (title, width); the preview takes what is left of the line.
TABLE_COLUMNS: Final = (
    ("TIME", 8),
    ("OP", 7),
    ("TENANT", 14),
    ("THREAD", 14),
    ("ID", 20),
    ("ORDER", 7),
    ("RU", 6),
)
PREVIEW_WIDTH: Final = 60


def op_label(change: Change) -> str:
    """``create``, ``replace``, ``write`` (latest version: either), ``delete``, ``expired``."""
    return change.op.value


def change_record(change: Change, schema: Schema) -> dict[str, Any]:
    ref = change.ref
    tenant = ref.tenant.json_value() if ref is not None and ref.tenant is not None else None
    return {
        "time": iso_utc(change.commit_time),
        "op": change.op.value,
        "tenant": tenant,
        "thread": ref.thread.json_value() if ref is not None else None,
        "id": change.item_id,
        "order": change.order,
        "lsn": change.lsn,
        "ttl_expired": change.ttl_expired,
        "ru": round(change.request_units, 3),
    }


def _cell(value: str, width: int) -> str:
    text = one_line(value, width)
    return text[: width - 1] + "…" if len(text) > width else text.ljust(width)


def table_header() -> str:
    titles = [title.ljust(width) for title, width in TABLE_COLUMNS]
    return " ".join(titles) + " PREVIEW"


def table_line(record: dict[str, Any], change: Change) -> str:
    """One change as a table line: fixed columns, then role and preview, all escaped."""
    ref = change.ref
    values = [
        utc_text(change.commit_time, "%H:%M:%S"),
        record["op"],
        ref.tenant.text if ref is not None and ref.tenant is not None else "—",
        ref.thread.text if ref is not None else "—",
        change.item_id,
        "—" if change.order is None else value_text(change.order),
        f"{change.request_units:.2f}",
    ]
    cells = [_cell(value, width) for value, (_, width) in zip(values, TABLE_COLUMNS, strict=True)]
    said = f"{change.role}: {change.preview}" if change.role else change.preview
    return (" ".join(cells) + " " + one_line(said, PREVIEW_WIDTH)).rstrip()
