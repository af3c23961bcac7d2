"""The local workspace's change log: every item write records its change in the same transaction.

A workspace keeps a ``changes`` table (``queries/local/workspace_schema.sql``): one row
per create, replace, delete or TTL purge, numbered by ``lsn`` (never reused) with a
commit time ``crts`` that never decreases with it, the item's tenant and thread keys as
``items`` holds them (so a scoped read walks an index), the previous change of the same
item and, for a create or replace, the version's body. ``LocalStore.read_changes``
reads it in both feed modes (``model/changes.py``).

Who writes it:

* the builder (``builder.py``): at the end of a build, in the build's one transaction,
  every item as a create at its ``_ts`` (``record_build``);
* the guarded writes (``workspace_writer.py``): a ttl change is a replace, a delete a
  delete (``record_version`` / ``record_removal`` inside their transaction);
* the demo's workload: ``ChangeBatch``, from ``WorkspaceWriter.changes``, writes
  creates, replaces, deletes and TTL purges, many per transaction.

The retention window (``change_retention_s`` in the workspace's meta, else
``DEFAULT_RETENTION_S``) bounds the history: replaced versions, deletes and purges older
than it go (``prune``), while an item's current version stays, as the latest-version
feed keeps it. Readers report the window's start as ``ChangePage.retained_since``.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from cosmem_tui.model import JsonValue
from cosmem_tui.model.changes import ChangeOp
from cosmem_tui.schemas import FieldPath, Schema
from cosmem_tui.sources.errors import Conflict, NotFound, WorkspaceError
from cosmem_tui.sources.local.columns import COLUMNS, ItemColumns, Row
from cosmem_tui.sources.local.keys import pk_text, schema_signature
from cosmem_tui.sources.query_texts import load_query

DAY: Final = 86_400
DEFAULT_RETENTION_S: Final = 7 * DAY  # an account's continuous backup keeps 7 days at least
DEMO_RETENTION_S: Final = 2 * 3600  # the demo's: small, so its window visibly moves
RETENTION_META: Final = "change_retention_s"
LOG_STARTED_META: Final = "change_log_started"  # the newest commit a build logged

_REMOVALS = (ChangeOp.DELETE.value, ChangeOp.EXPIRED.value)


def has_change_log(db: sqlite3.Connection) -> bool:
    """Does this workspace keep a change log? (Workspaces built before it do not.)"""
    row = db.execute(
        "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'changes'"
    ).fetchone()
    return row is not None


def retention_of(meta: str | None) -> int:
    """The retention window in seconds, from the workspace's meta value (if any)."""
    try:
        value = int(meta) if meta is not None else DEFAULT_RETENTION_S
    except ValueError:
        return DEFAULT_RETENTION_S
    return value if value > 0 else DEFAULT_RETENTION_S


def record_build(db: sqlite3.Connection) -> int | None:
    """Log every item of a new workspace as a create at its ``_ts``, oldest first, in
    the build's transaction; the newest commit time logged (None: no items)."""
    db.execute(load_query("local", "changes_from_build"))
    head = db.execute(load_query("local", "change_head")).fetchone()
    return None if head is None else int(head[1])


def commit_time(db: sqlite3.Connection, now: int) -> int:
    """``now``, or the log's newest commit time if that is later: crts never goes back."""
    head = db.execute(load_query("local", "change_head")).fetchone()
    return now if head is None else max(now, int(head[1]))


def _supersede(db: sqlite3.Connection, pk: str, item_id: str) -> int | None:
    rows = db.execute(load_query("local", "change_supersede"), {"pk": pk, "id": item_id})
    found = [int(r[0]) for r in rows.fetchall()]
    return max(found) if found else None


def record_version(
    db: sqlite3.Connection,
    op: ChangeOp,
    *,
    pk: str,
    item_id: str,
    tenant_key: str | None,
    thread_key: str | None,
    crts: int,
    body: str,
) -> int:
    """Log a create or replace of an item (call *before* the item's row changes: a
    build's create copies the item's old body); the new change's lsn."""
    previous = _supersede(db, pk, item_id)
    cursor = db.execute(
        load_query("local", "change_insert"),
        {
            "op": op.value,
            "pk": pk,
            "id": item_id,
            "tenant_key": tenant_key,
            "thread_key": thread_key,
            "crts": crts,
            "previous_lsn": previous,
            "body": body,
        },
    )
    return int(cursor.lastrowid or 0)


def record_removal(
    db: sqlite3.Connection,
    *,
    pk: str,
    item_id: str,
    tenant_key: str | None,
    thread_key: str | None,
    crts: int,
    ttl_expired: bool,
) -> int:
    """Log a delete, or a TTL purge (``ttl_expired``), before the item's row goes."""
    previous = _supersede(db, pk, item_id)
    cursor = db.execute(
        load_query("local", "change_insert"),
        {
            "op": (ChangeOp.EXPIRED if ttl_expired else ChangeOp.DELETE).value,
            "pk": pk,
            "id": item_id,
            "tenant_key": tenant_key,
            "thread_key": thread_key,
            "crts": crts,
            "previous_lsn": previous,
            "body": None,
        },
    )
    return int(cursor.lastrowid or 0)


def prune(db: sqlite3.Connection, now: int, retention_s: int) -> int:
    """Let go of the history older than the retention window; how many rows went."""
    cursor = db.execute(load_query("local", "change_prune"), {"cutoff": now - retention_s})
    return cursor.rowcount


def new_etag() -> str:
    return f'"{uuid.uuid4()}"'


@dataclass(frozen=True, slots=True)
class Written:
    """One change a batch made: its lsn, and the item's new ETag (None once removed)."""

    lsn: int
    op: ChangeOp
    item_id: str
    partition_key: tuple[JsonValue, ...]
    etag: str | None
    size_bytes: int


class ChangeBatch:
    """Item writes and their changes in one open transaction (``WorkspaceWriter.changes``).

    Each write gives the item ``_ts`` = the batch's time and a new ``_etag`` as the service
    would, and derives its columns with the schema the workspace's keys were built for.
    Not safe across threads: one batch, one caller, inside its ``with`` block.
    """

    def __init__(
        self,
        db: sqlite3.Connection,
        schema: Schema,
        pk_paths: tuple[FieldPath, ...],
        default_ttl: int | None,
        now: int,
    ) -> None:
        self._db = db
        self._schema = schema
        self._pk_paths = pk_paths
        self._default_ttl = default_ttl
        self.now = now
        self.crts = commit_time(db, now)
        self._columns = ItemColumns(pk_paths, schema, default_ttl, now)
        self.written: list[Written] = []

    def _row(self, body: Mapping[str, JsonValue]) -> Row:
        doc = dict(body)
        doc["_ts"] = self.now
        doc["_etag"] = new_etag()
        return self._columns.row(doc)

    def _stored(self, pk: str, item_id: str) -> tuple[int, int | None, str | None, str | None]:
        """The stored item's rowid, expiry and keys; NotFound when there is none."""
        row = self._db.execute(
            "SELECT rowid, expires_at, tenant_key, thread_key FROM main.items"
            " WHERE pk = ? AND id = ?",
            (pk, item_id),
        ).fetchone()
        if row is None:
            raise NotFound(f"no item {item_id!r} in {pk}")
        return int(row[0]), row[1], row[2], row[3]

    def _visible(self, expires_at: int | None) -> bool:
        return expires_at is None or expires_at > self.now

    def _put(self, op: ChangeOp, row: Row) -> Written:
        pk, item_id, _, etag, _, tenant_key, thread_key, _, _, size, body = row
        lsn = record_version(
            self._db,
            op,
            pk=pk,
            item_id=item_id,
            tenant_key=tenant_key,
            thread_key=thread_key,
            crts=self.crts,
            body=body,
        )
        self._db.execute(load_query("local", "insert_item"), dict(zip(COLUMNS, row, strict=True)))
        done = Written(lsn, op, item_id, tuple(json.loads(pk)), etag, size)
        self.written.append(done)
        return done

    def create(self, body: Mapping[str, JsonValue]) -> Written:
        """A new item (Conflict if one with its id and key is there and not expired; an
        expired one not purged yet is purged first, as the service's create would)."""
        row = self._row(body)
        pk, item_id = row[0], row[1]
        try:
            _, expires_at, _, _ = self._stored(pk, item_id)
        except NotFound:
            return self._put(ChangeOp.CREATE, row)
        if self._visible(expires_at):
            raise Conflict(f"item {item_id!r} exists already in {pk}")
        self._remove(pk, item_id, ttl_expired=True)
        return self._put(ChangeOp.CREATE, row)

    def replace(self, body: Mapping[str, JsonValue]) -> Written:
        """A new version of an item that is there (NotFound if it is not, or expired)."""
        row = self._row(body)
        _, expires_at, _, _ = self._stored(row[0], row[1])
        if not self._visible(expires_at):
            raise NotFound(f"item {row[1]!r} has expired")
        return self._put(ChangeOp.REPLACE, row)

    def upsert(self, body: Mapping[str, JsonValue]) -> Written:
        """A replace when the item is there and visible, else a create."""
        row = self._row(body)
        try:
            _, expires_at, _, _ = self._stored(row[0], row[1])
        except NotFound:
            return self._put(ChangeOp.CREATE, row)
        if not self._visible(expires_at):
            return self.create(body)
        return self._put(ChangeOp.REPLACE, row)

    def delete(self, partition_key: tuple[JsonValue, ...], item_id: str) -> Written:
        """Delete an item by request (NotFound if it is not there or has expired)."""
        pk = pk_text(tuple(partition_key))
        _, expires_at, _, _ = self._stored(pk, item_id)
        if not self._visible(expires_at):
            raise NotFound(f"item {item_id!r} has expired")
        return self._remove(pk, item_id, ttl_expired=False)

    def purge(self, partition_key: tuple[JsonValue, ...], item_id: str) -> Written:
        """The TTL purge of an expired item, now (which lags its expiry): a delete
        flagged ``ttl_expired``. Refuses an item that has not expired (Conflict)."""
        pk = pk_text(tuple(partition_key))
        _, expires_at, _, _ = self._stored(pk, item_id)
        if self._visible(expires_at):
            raise Conflict(f"item {item_id!r} has not expired: nothing to purge")
        return self._remove(pk, item_id, ttl_expired=True)

    def purge_expired(self, limit: int, *, expired_before: int | None = None) -> list[Written]:
        """Purge up to ``limit`` items that expired at or before ``expired_before`` (the
        batch's time by default: pass an earlier one to model the purge's lag), the
        longest expired first."""
        until = self.now if expired_before is None else min(self.now, expired_before)
        rows = self._db.execute(
            "SELECT pk, id FROM main.items WHERE expires_at IS NOT NULL AND expires_at <= ?"
            " ORDER BY expires_at, rowid LIMIT ?",
            (until, limit),
        ).fetchall()
        return [self._remove(pk, item_id, ttl_expired=True) for pk, item_id in rows]

    def _remove(self, pk: str, item_id: str, *, ttl_expired: bool) -> Written:
        rowid, _, tenant_key, thread_key = self._stored(pk, item_id)
        size = self._db.execute(
            "SELECT size_bytes FROM main.items WHERE rowid = ?", (rowid,)
        ).fetchone()[0]
        lsn = record_removal(
            self._db,
            pk=pk,
            item_id=item_id,
            tenant_key=tenant_key,
            thread_key=thread_key,
            crts=self.crts,
            ttl_expired=ttl_expired,
        )
        self._db.execute("DELETE FROM main.items WHERE rowid = ?", (rowid,))
        op = ChangeOp.EXPIRED if ttl_expired else ChangeOp.DELETE
        done = Written(lsn, op, item_id, tuple(json.loads(pk)), None, int(size))
        self.written.append(done)
        return done


def check_keys_schema(db: sqlite3.Connection, schema: Schema) -> None:
    """Refuse to write rows keyed for another schema than the workspace's own."""
    row = db.execute("SELECT value FROM meta WHERE key = 'derived_for'").fetchone()
    if row is None or row[0] != schema_signature(schema):
        raise WorkspaceError(
            f"this workspace's keys were built for another schema than {schema.name}: "
            "items written with it would be misfiled"
        )
