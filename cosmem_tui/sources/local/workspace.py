"""A local workspace: one container's properties and items in a SQLite file.

Items are stored as the JSON the service would return (``id``, ``_ts``, ``_etag``
and the other system properties inside the body). New workspaces are written to a
temporary file and renamed into place, so a crash never leaves half a workspace.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cosmem_tui.model import MISSING, ContainerProperties, JsonValue, PartitionKeyDefinition
from cosmem_tui.model.ttl import InvalidContainerTtl, check_container_default
from cosmem_tui.profiles import FieldPath, Schema
from cosmem_tui.sources.errors import WorkspaceError
from cosmem_tui.sources.local.keys import (
    COMPACT,
    derive_keys,
    item_expiry,
    partition_key_of,
    pk_text,
    schema_signature,
)
from cosmem_tui.sources.query_texts import load_query

FORMAT_VERSION = "1"


class ItemRejected(ValueError):
    """An item that cannot be stored (no id, no partition key value, not an object)."""


def _etag() -> str:
    return f'"{uuid.uuid4()}"'


class Workspace:
    """An open workspace file. Thread-safe: one connection behind a lock."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection
        self._lock = threading.RLock()
        self._container = self._read_container()
        self._pk_paths = tuple(FieldPath.parse(p) for p in self._container.partition_key.paths)

    # -- opening and creating -------------------------------------------------

    @classmethod
    def open(cls, path: Path) -> Workspace:
        path = Path(path)
        if not path.is_file():
            raise WorkspaceError(f"no workspace at {path}")
        try:
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA query_only = 0")
            version = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise WorkspaceError(f"{path} is not a cosmem workspace ({exc})") from None
        if version is None or version[0] != FORMAT_VERSION:
            db.close()
            raise WorkspaceError(f"{path} is not a cosmem workspace (format {version})")
        return cls(path, db)

    @classmethod
    @contextmanager
    def building(
        cls, path: Path, container: ContainerProperties, schema: Schema
    ) -> Iterator[Workspace]:
        """Create a new workspace atomically: items go to a temp file renamed on success."""
        path = Path(path)
        try:
            check_container_default(container.default_ttl)
        except InvalidContainerTtl as exc:
            raise WorkspaceError(str(exc)) from None
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        db = sqlite3.connect(temp, check_same_thread=False, isolation_level=None)
        workspace: Workspace | None = None
        try:
            db.execute("PRAGMA journal_mode = OFF")  # a temp file: durability comes from rename
            db.execute("PRAGMA synchronous = OFF")
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
            workspace = cls(path, db)
            yield workspace
            db.executescript(load_query("local", "workspace_indexes"))
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("ANALYZE")
            db.close()
            os.replace(temp, path)
        except BaseException:
            db.close()
            temp.unlink(missing_ok=True)
            raise
        finally:
            if workspace is not None:
                workspace._db = None  # type: ignore[assignment]

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None  # type: ignore[assignment]

    # -- properties -------------------------------------------------------------

    @property
    def container(self) -> ContainerProperties:
        return self._container

    def _read_container(self) -> ContainerProperties:
        row = self._db.execute(
            "SELECT database_name, container_name, partition_key, default_ttl, indexing_policy,"
            " vector_policy, full_text_policy FROM container WHERE singleton = 1"
        ).fetchone()
        if row is None:
            raise WorkspaceError(f"{self.path}: workspace has no container properties")
        pk = json.loads(row[2])
        return ContainerProperties(
            database=row[0],
            container=row[1],
            partition_key=PartitionKeyDefinition(
                tuple(pk["paths"]), pk.get("kind", "Hash"), pk.get("version", 2)
            ),
            default_ttl=row[3],
            indexing_policy=json.loads(row[4]),
            vector_embedding_policy=json.loads(row[5]) if row[5] else None,
            full_text_policy=json.loads(row[6]) if row[6] else None,
        )

    def meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- queries (called from worker threads) ----------------------------------

    def query(self, name: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        sql = load_query("local", name)
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # -- writing items -------------------------------------------------------------

    def row_for(
        self, body: Mapping[str, JsonValue], schema: Schema, now: int, *, text: str | None = None
    ) -> dict[str, Any]:
        """Validate one item and compute its columns; fills in missing system properties.

        ``text`` is the item's JSON as read (an import passes it): stored as is when no
        system property had to be filled in, which saves encoding the item again.
        """
        if not isinstance(body, Mapping):
            raise ItemRejected("item is not a JSON object")
        item_id = body.get("id")
        if not isinstance(item_id, str) or not item_id:
            raise ItemRejected("item has no string 'id'")
        pk = partition_key_of(self._pk_paths, body)
        missing = [p.text for p, v in zip(self._pk_paths, pk, strict=True) if v is MISSING]
        if missing:
            raise ItemRejected(
                f"item {item_id!r} has no partition key value at {', '.join(missing)}"
            )
        doc = body
        ts = body.get("_ts")
        etag = body.get("_etag")
        if isinstance(ts, bool) or not isinstance(ts, int) or not isinstance(etag, str):
            doc = dict(body)
            if isinstance(ts, bool) or not isinstance(ts, int):
                ts = now
                doc["_ts"] = ts
            if not isinstance(etag, str):
                etag = _etag()
                doc["_etag"] = etag
            text = None
        if text is None:
            text = COMPACT.encode(doc)
        keys = derive_keys(schema, doc)
        return {
            "pk": pk_text(pk),
            "id": item_id,
            "ts": ts,
            "etag": etag,
            "expires_at": item_expiry(doc, ts, self._container.default_ttl),
            "tenant_key": keys.tenant_key,
            "thread_key": keys.thread_key,
            "order_rank": keys.order_rank,
            "order_value": keys.order_value,
            "size_bytes": len(text.encode("utf-8")),
            "body": text,
        }

    def insert_rows(self, rows: Iterable[Mapping[str, Any]]) -> int:
        sql = load_query("local", "insert_item")
        with self._lock:
            self._db.execute("BEGIN")
            try:
                cursor = self._db.executemany(sql, rows)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return cursor.rowcount

    def insert_new_rows(self, rows: list[Mapping[str, Any]]) -> bool:
        """Insert rows whose (pk, id) must be new: all of them, or none and False on a clash."""
        sql = load_query("local", "insert_new_item")
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(sql, rows)
            except sqlite3.IntegrityError:
                self._db.execute("ROLLBACK")
                return False
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return True

    def upsert_items(
        self, bodies: Iterable[Mapping[str, JsonValue]], schema: Schema, now: int
    ) -> int:
        return self.insert_rows(self.row_for(b, schema, now) for b in bodies)

    def ensure_derived(self, schema: Schema) -> bool:
        """Recompute schema-derived columns if the workspace was indexed for another schema."""
        signature = schema_signature(schema)
        if self.meta("derived_for") == signature:
            return False
        with self._lock:
            rows = self._db.execute("SELECT pk, id, body FROM items").fetchall()
            updates = []
            for pk, item_id, body in rows:
                keys = derive_keys(schema, json.loads(body))
                updates.append(
                    (
                        keys.tenant_key,
                        keys.thread_key,
                        keys.order_rank,
                        keys.order_value,
                        pk,
                        item_id,
                    )
                )
            self._db.execute("BEGIN")
            self._db.executemany(
                "UPDATE items SET tenant_key = ?, thread_key = ?, order_rank = ?, order_value = ?"
                " WHERE pk = ? AND id = ?",
                updates,
            )
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('derived_for', ?)", (signature,))
            self._db.execute("COMMIT")
        return True

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
            self._db.execute("BEGIN")
            try:
                self._db.execute(
                    load_query("local", "set_default_ttl"), {"default_ttl": default_ttl}
                )
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
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        self._container = self._read_container()

    def item_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM items").fetchone()[0])


def _json_or_none(value: Mapping[str, JsonValue] | None) -> str | None:
    return None if value is None else json.dumps(dict(value))
