"""Writing a new workspace: the only code that writes one (the demo generator and imports).

Items are stored as the JSON the service would return (``id``, ``_ts``, ``_etag`` and
the other system properties inside the body). A workspace is written to a temporary
file renamed into place when complete, so a crash never leaves half a workspace and
nothing ever changes a workspace file in place: readers open it read-only. The build
ends by logging every item as a create in the change log (``change_log.record_build``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cosmem_tui.model import ContainerProperties, JsonValue
from cosmem_tui.model.ttl import InvalidContainerTtl, check_container_default
from cosmem_tui.schemas import FieldPath, Schema
from cosmem_tui.sources.errors import WorkspaceError
from cosmem_tui.sources.local import change_log
from cosmem_tui.sources.local.columns import COLUMNS, ItemColumns, Row
from cosmem_tui.sources.local.file_errors import build_error
from cosmem_tui.sources.local.keys import item_expiry, schema_signature
from cosmem_tui.sources.local.workspace_file import FORMAT_VERSION, WorkspaceFile
from cosmem_tui.sources.query_texts import load_query

BUILD_CACHE_KIB = 8 << 10  # the page cache while building: a constant, whatever the size


@contextmanager
def building(
    path: Path, container: ContainerProperties, schema: Schema
) -> Iterator[WorkspaceBuilder]:
    """Create a new workspace atomically: items go to a temp file renamed on success.

    ``schema`` is the one the derived columns are computed for (recorded as
    ``derived_for``); a session reading with another computes its own.
    """
    path = Path(path)
    try:
        check_container_default(container.default_ttl)
    except InvalidContainerTtl as exc:
        raise WorkspaceError(str(exc)) from None
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    db = sqlite3.connect(temp, check_same_thread=False, isolation_level=None)
    builder: WorkspaceBuilder | None = None
    try:
        # A bulk load of a new file: no journal and no syncing (both restored below; the
        # file is renamed into place only once complete and synced), and a page cache
        # that holds the key index, which random ids touch all over (SQLite's default,
        # 2 MB, made every insert read and write pages back). A crash leaves only the
        # temporary file: the workspace itself never exists half written.
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute(f"PRAGMA cache_size = -{BUILD_CACHE_KIB}")
        db.executescript(load_query("local", "workspace_schema"))
        db.execute(
            "INSERT INTO container VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
            (
                container.database,
                container.container,
                json.dumps(
                    {
                        "paths": list(container.partition_key.paths),
                        "kind": container.partition_key.kind,
                        "version": container.partition_key.version,
                    }
                ),
                container.default_ttl,
                json.dumps(dict(container.indexing_policy)),
                _json_or_none(container.vector_embedding_policy),
                _json_or_none(container.full_text_policy),
            ),
        )
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("format", FORMAT_VERSION), ("derived_for", schema_signature(schema))],
        )
        builder = WorkspaceBuilder(path, db)
        # One transaction for the whole load: a commit per batch would write the pages of
        # the key index that every batch touches again and again.
        db.execute("BEGIN")
        yield builder
        # The change log starts with every item built, in the same transaction.
        logged_until = change_log.record_build(db)
        if logged_until is not None:
            builder.set_meta(change_log.LOG_STARTED_META, str(logged_until))
        db.execute("COMMIT")
        db.executescript(load_query("local", "workspace_indexes"))
        # A rollback journal, not WAL: a read-only connection to a WAL file needs -wal and
        # -shm files beside it, so it would create them (or fail in a read-only folder).
        db.execute("PRAGMA journal_mode = DELETE")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("ANALYZE")
        db.close()
        os.replace(temp, path)
    except sqlite3.Error as exc:  # a full disk, a file size limit: one line, nothing left
        db.close()
        temp.unlink(missing_ok=True)
        raise build_error(path, exc) from None
    except BaseException:
        db.close()
        temp.unlink(missing_ok=True)
        raise
    finally:
        if builder is not None:
            builder._db = None  # type: ignore[assignment]


class WorkspaceBuilder(WorkspaceFile):
    """The handle ``building`` yields: writes items and metadata to the new file."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        super().__init__(path, connection)
        self._pk_paths = tuple(FieldPath.parse(p) for p in self.container.partition_key.paths)
        self._columns: tuple[Schema, int, int | None, ItemColumns] | None = None

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def columns(self, schema: Schema, now: int) -> ItemColumns:
        """What computes this workspace's rows for ``schema`` at ``now`` (made once, and
        again only for another schema, time or default ttl)."""
        made = self._columns
        default_ttl = self._container.default_ttl
        if made is None or made[0] is not schema or made[1:3] != (now, default_ttl):
            made = (schema, now, default_ttl, ItemColumns(self._pk_paths, schema, default_ttl, now))
            self._columns = made
        return made[3]

    def row_for(
        self, body: Mapping[str, JsonValue], schema: Schema, now: int, *, text: str | None = None
    ) -> dict[str, Any]:
        """Validate one item and compute its columns by name (``ItemColumns.row``)."""
        return dict(zip(COLUMNS, self.columns(schema, now).row(body, text), strict=True))

    def insert_rows(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Insert or replace rows by column name (``row_for``); how many were written."""
        with self._lock:
            cursor = self._db.executemany(load_query("local", "insert_item"), rows)
        return cursor.rowcount

    def insert_new_rows(self, rows: Sequence[Row]) -> list[tuple[str, str]]:
        """Insert every row whose (pk, id) is new, in one statement; the keys of the rows
        that were not, because an earlier row has their key (that first copy is kept).

        A row whose key is taken is skipped by the insert itself and named after it, so
        nothing is rolled back (the build runs in one transaction without a journal).
        """
        with self._lock:
            before = self._db.execute("SELECT max(rowid) FROM items").fetchone()[0] or 0
            written = self._db.executemany(load_query("local", "insert_new_item"), rows)
            if written.rowcount == len(rows):
                return []
            keys = json.dumps([[r[0], r[1]] for r in rows], ensure_ascii=False)
            taken = self._db.execute(
                load_query("local", "existing_keys"), {"keys": keys, "before": before}
            ).fetchall()
        if len(taken) != len(rows) - written.rowcount:  # skipped for another reason: say so
            raise WorkspaceError(
                f"{self.path}: {len(rows) - written.rowcount} rows not written, "
                f"{len(taken)} of them duplicates"
            )
        return [(pk, item_id) for pk, item_id in taken]

    def upsert_items(
        self, bodies: Iterable[Mapping[str, JsonValue]], schema: Schema, now: int
    ) -> int:
        return self.insert_rows(self.row_for(b, schema, now) for b in bodies)

    def change_default_ttl(self, default_ttl: int | None) -> None:
        """Set the container's DefaultTimeToLive and recompute the expiry of every item.

        An import guesses the setting from the first items; when later ones prove the
        guess wrong it corrects it here, in batches, rather than reading its input twice.
        """
        try:
            check_container_default(default_ttl)
        except InvalidContainerTtl as exc:
            raise WorkspaceError(str(exc)) from None
        with self._lock:
            self._db.execute(load_query("local", "set_default_ttl"), {"default_ttl": default_ttl})
            after = 0
            while True:
                rows = self._db.execute(
                    load_query("local", "items_with_ttl_page"), {"after": after, "limit": 2000}
                ).fetchall()
                if not rows:
                    break
                after = rows[-1][0]
                self._db.executemany(
                    load_query("local", "update_expiry"),
                    [
                        {
                            "rowid": rowid,
                            "expires_at": item_expiry(json.loads(body), ts, default_ttl),
                        }
                        for rowid, ts, body in rows
                    ],
                )
        self._container = self._read_container()


def _json_or_none(value: Mapping[str, JsonValue] | None) -> str | None:
    return None if value is None else json.dumps(dict(value))
