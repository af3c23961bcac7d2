"""The one writable handle on an existing workspace, for guarded writes (--allow-writes).

Browsing opens a workspace read-only (``mode=ro``) and keeps it so; this handle is a
second connection (``mode=rw``) that only a session opened with writes allowed ever
creates. It changes one item at a time, each conditional on the ETag the caller read
(compare-and-set inside one transaction), and gives the item a new ``_ts`` and ``_etag``
as the service would. Each write records its change in the workspace's change log
(``change_log.py``) in the same transaction, when the workspace keeps one (those built
before it stay writable, without a log). ``changes`` opens a batch of many writes in one
transaction for the demo's workload. Workspaces left in WAL mode by older builds are
refused: their readers open them ``immutable`` and would never see a change.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cosmem_tui.model import JsonValue
from cosmem_tui.model.changes import ChangeOp
from cosmem_tui.schemas import FieldPath, Schema
from cosmem_tui.sources.errors import Conflict, NotFound, WorkspaceError
from cosmem_tui.sources.local import change_log
from cosmem_tui.sources.local.change_log import ChangeBatch, new_etag
from cosmem_tui.sources.local.file_errors import workspace_error
from cosmem_tui.sources.local.keys import COMPACT, item_expiry
from cosmem_tui.sources.local.workspace_file import WorkspaceFile, check_format

BUSY_TIMEOUT_S = 5.0  # a reader holds its shared lock for one query at most

__all__ = ["BUSY_TIMEOUT_S", "WorkspaceWriter", "new_etag"]


class WorkspaceWriter(WorkspaceFile):
    @classmethod
    def open(cls, path: Path) -> WorkspaceWriter:
        path = Path(path)
        if not path.is_file():
            raise WorkspaceError(f"no workspace at {path}")
        uri = path.absolute().as_uri() + "?mode=rw"
        try:
            db = sqlite3.connect(
                uri, uri=True, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S
            )
        except sqlite3.Error as exc:
            raise WorkspaceError(f"cannot open {path} for writing ({exc})") from None
        try:
            mode = db.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() == "wal":
                raise WorkspaceError(
                    f"{path} was built by an older cosmem (WAL mode): rebuild it "
                    "(cosmem demo --reset, or import again) before writing to it"
                )
            check_format(db, path)
            writer = cls(path, db)
            writer.logs_changes = change_log.has_change_log(db)
            writer.retention_s = change_log.retention_of(writer.meta(change_log.RETENTION_META))
            return writer
        except sqlite3.DatabaseError as exc:
            db.close()
            raise workspace_error(path, exc) from None
        except BaseException:
            db.close()
            raise

    logs_changes = False  # set at open: does the workspace keep a change log?
    retention_s = change_log.DEFAULT_RETENTION_S

    def _current(
        self, pk: str, item_id: str, etag: str, now: int
    ) -> tuple[int, str, tuple[str | None, str | None]]:
        """The item's rowid, body and (tenant, thread) keys, once it is known to be
        there, visible and unchanged."""
        row = self._db.execute(
            "SELECT rowid, etag, expires_at, body, tenant_key, thread_key FROM main.items"
            " WHERE pk = ? AND id = ?",
            (pk, item_id),
        ).fetchone()
        if row is None or (row[2] is not None and row[2] <= now):
            raise NotFound(f"no item {item_id!r} (deleted or expired since it was read)")
        if row[1] != etag:
            raise Conflict(
                f"item {item_id!r} changed after it was read (ETag {row[1]}, not {etag}); "
                "nothing was written"
            )
        return int(row[0]), str(row[3]), (row[4], row[5])

    @contextmanager
    def changes(self, schema: Schema, now: int) -> Iterator[ChangeBatch]:
        """One transaction of item writes, each with its change logged (the demo's
        workload writes many per transaction); history past the retention window goes
        at commit. ``schema`` must be the one the workspace's keys were built for."""
        if not self.logs_changes:
            raise WorkspaceError(
                f"{self.path} predates the change log: rebuild it (cosmem demo --reset, "
                "or import again) to write changes to it"
            )
        with self._lock:
            change_log.check_keys_schema(self._db, schema)
            self._db.execute("BEGIN IMMEDIATE")
            try:
                pk_paths = tuple(FieldPath.parse(p) for p in self.container.partition_key.paths)
                batch = ChangeBatch(self._db, schema, pk_paths, self.container.default_ttl, now)
                yield batch
                change_log.prune(self._db, now, self.retention_s)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def set_ttl(self, pk: str, item_id: str, ttl: int, *, etag: str, now: int) -> tuple[str, int]:
        """Write ``ttl`` into the item If-Match ``etag``; its new ETag and size in bytes."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                rowid, body, keys = self._current(pk, item_id, etag, now)
                doc: dict[str, JsonValue] = json.loads(body)
                doc["ttl"] = ttl
                doc["_ts"] = now  # any write restarts the TTL clock, as on the service
                fresh = new_etag()
                doc["_etag"] = fresh
                text = COMPACT.encode(doc)
                if self.logs_changes:
                    change_log.record_version(
                        self._db,
                        ChangeOp.REPLACE,
                        pk=pk,
                        item_id=item_id,
                        tenant_key=keys[0],
                        thread_key=keys[1],
                        crts=change_log.commit_time(self._db, now),
                        body=text,
                    )
                self._db.execute(
                    "UPDATE main.items SET ts = ?, etag = ?, expires_at = ?, size_bytes = ?, "
                    "body = ? WHERE rowid = ?",
                    (
                        now,
                        fresh,
                        item_expiry(doc, now, self.container.default_ttl),
                        len(text.encode("utf-8")),
                        text,
                        rowid,
                    ),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return fresh, len(text.encode("utf-8"))

    def delete(self, pk: str, item_id: str, *, etag: str, now: int) -> int:
        """Delete the item If-Match ``etag``; its size in bytes."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                rowid, body, keys = self._current(pk, item_id, etag, now)
                if self.logs_changes:
                    change_log.record_removal(
                        self._db,
                        pk=pk,
                        item_id=item_id,
                        tenant_key=keys[0],
                        thread_key=keys[1],
                        crts=change_log.commit_time(self._db, now),
                        ttl_expired=False,
                    )
                self._db.execute("DELETE FROM main.items WHERE rowid = ?", (rowid,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return len(body.encode("utf-8"))
