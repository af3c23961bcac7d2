"""The one writable handle on an existing workspace, for guarded writes (--allow-writes).

Browsing opens a workspace read-only (``mode=ro``) and keeps it so; this handle is a
second connection (``mode=rw``) that only a session opened with writes allowed ever
creates. It changes one item at a time, each conditional on the ETag the caller read
(compare-and-set inside one transaction), and gives the item a new ``_ts`` and ``_etag``
as the service would. Workspaces left in WAL mode by older builds are refused: their
readers open them ``immutable`` and would never see a change.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

from cosmem_tui.model import JsonValue
from cosmem_tui.sources.errors import Conflict, NotFound, WorkspaceError
from cosmem_tui.sources.local.file_errors import workspace_error
from cosmem_tui.sources.local.keys import COMPACT, item_expiry
from cosmem_tui.sources.local.workspace_file import WorkspaceFile, check_format

BUSY_TIMEOUT_S = 5.0  # a reader holds its shared lock for one query at most


def new_etag() -> str:
    return f'"{uuid.uuid4()}"'


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
            return cls(path, db)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise workspace_error(path, exc) from None
        except BaseException:
            db.close()
            raise

    def _current(self, pk: str, item_id: str, etag: str, now: int) -> tuple[int, str]:
        """The item's rowid and body, once it is known to be there, visible and unchanged."""
        row = self._db.execute(
            "SELECT rowid, etag, expires_at, body FROM main.items WHERE pk = ? AND id = ?",
            (pk, item_id),
        ).fetchone()
        if row is None or (row[2] is not None and row[2] <= now):
            raise NotFound(f"no item {item_id!r} (deleted or expired since it was read)")
        if row[1] != etag:
            raise Conflict(
                f"item {item_id!r} changed after it was read (ETag {row[1]}, not {etag}); "
                "nothing was written"
            )
        return int(row[0]), str(row[3])

    def set_ttl(self, pk: str, item_id: str, ttl: int, *, etag: str, now: int) -> tuple[str, int]:
        """Write ``ttl`` into the item If-Match ``etag``; its new ETag and size in bytes."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                rowid, body = self._current(pk, item_id, etag, now)
                doc: dict[str, JsonValue] = json.loads(body)
                doc["ttl"] = ttl
                doc["_ts"] = now  # any write restarts the TTL clock, as on the service
                fresh = new_etag()
                doc["_etag"] = fresh
                text = COMPACT.encode(doc)
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
                rowid, body = self._current(pk, item_id, etag, now)
                self._db.execute("DELETE FROM main.items WHERE rowid = ?", (rowid,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return len(body.encode("utf-8"))
