"""What browse exports (``e``) and copies (``y``): the focused column's rows as the CLI's records.

Tenants, threads and turns are written by the same record functions as ``cosmem
tenants`` / ``threads`` / ``turns`` (``core/records.py``), so an export of a thread's
turns is what ``cosmem turns TENANT THREAD --json`` prints for the same data. A turn is
copied as its raw item, read whole with one point read (the list holds projected turns).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from textual.screen import Screen

from cosmem_tui.core import records
from cosmem_tui.core.browse import TurnDetail
from cosmem_tui.core.session import Session
from cosmem_tui.core.turn_window import TurnKey
from cosmem_tui.model import Key, KeyCounts, Meter, ThreadRef
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.table_export import ShownTable, copy_json, notice
from cosmem_tui.ui.views.browse.tenants import KeyColumn
from cosmem_tui.ui.views.browse.threads import ThreadColumn
from cosmem_tui.ui.views.browse.turns import TurnColumn


def key_table(column: KeyColumn) -> ShownTable | None:
    """The top list: tenants (or the threads of a schema without tenants), counts as known."""
    rows = column.rows
    if rows is None:
        return None
    keys, directory = rows.keys, rows.directory

    def counts(key: Key) -> KeyCounts | None:
        state = directory.count_state(key)
        return state.counts if state is not None else None

    partial = "" if column.listing is None or column.listing.complete else " (listed so far)"
    if rows.tenants:
        return ShownTable(
            "tenants",
            records.TENANT_FIELDS,
            column,
            lambda i, fmt: records.tenant_row(keys[i], counts(keys[i]), fmt),
            partial,
        )
    return ShownTable(
        "threads",
        records.TOP_THREAD_FIELDS,
        column,
        lambda i, fmt: records.top_thread_row(keys[i], counts(keys[i]), fmt),
        partial,
    )


def thread_table(column: ThreadColumn) -> ShownTable | None:
    if column.tenant is None:
        return None
    threads = column.threads
    return ShownTable(
        "threads", records.THREAD_FIELDS, column, lambda i, fmt: records.thread_row(threads[i], fmt)
    )


def turn_table(column: TurnColumn, now: float) -> ShownTable | None:
    """The turns loaded (placeholders and gap markers left out), as of ``now``."""
    rows = column.rows
    if rows is None:
        return None

    def record(index: int, fmt: str) -> dict[str, Any] | None:
        turn = rows.turn_at(index) if rows.gap_at(index) is None else None
        return records.turn_row(turn, now, fmt) if turn is not None else None

    return ShownTable("turns", records.TURN_FIELDS, column, record, column.partial_note())


def copy_item(
    screen: Screen[Any], loader: Loader, session: Session, ref: ThreadRef, key: TurnKey
) -> None:
    """Copy the turn's raw item: one point read, then the item's JSON to the clipboard."""
    service = session.browse
    item_id, part = key

    def fetch() -> Awaitable[TurnDetail]:
        return service.detail(ref, item_id, part)

    def done(detail: TurnDetail, _cost: Meter) -> None:
        copy_json(screen, f"item {item_id}", dict(detail.item.body))

    def failed(error: str) -> None:
        notice(screen, "copy", f"the item was not read, nothing copied: {error}", error=True)

    loader.bump()
    loader.start(session, fetch, done, failed, cause="browse: copy a turn")
