"""Writing a new workspace: the only code that writes one (the demo generator and imports).

Items are stored as the JSON the service would return (``id``, ``_ts``, ``_etag`` and
the other system properties inside the body). A workspace is written to a temporary
file renamed into place when complete, so a crash never leaves half a workspace and
nothing ever changes a workspace file in place: readers open it read-only.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cosmem_tui.model import MISSING, ContainerProperties, JsonValue
from cosmem_tui.model.ttl import MAX_TTL, InvalidContainerTtl, check_container_default
from cosmem_tui.schemas import FieldPath, Schema
from cosmem_tui.sources.errors import WorkspaceError
from cosmem_tui.sources.local.file_errors import build_error
from cosmem_tui.sources.local.keys import (
    COMPACT,
    derive_keys,
    item_expiry,
    partition_key_of,
    pk_text,
    schema_signature,
)
from cosmem_tui.sources.local.workspace_file import FORMAT_VERSION, WorkspaceFile
from cosmem_tui.sources.query_texts import load_query


class ItemRejected(ValueError):
    """An item that cannot be stored (no id, no partition key value, not an object)."""


ASCII = json.JSONEncoder(separators=(",", ":"))  # \\u escapes for what UTF-8 cannot hold


def _check_storable(row: Mapping[str, Any]) -> None:
    """Refuse an item whose keys hold a lone surrogate: SQLite stores text as UTF-8.

    Its body can keep one as a JSON escape, but a key's text form is its index.
    """
    text = "\x00".join(v for v in row.values() if isinstance(v, str))
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ItemRejected(
            f"item {row['id']!r} has a lone surrogate ({text[exc.start]!r}) in its id or keys,"
            " which cannot be stored"
        ) from None


# SQLite stores 64-bit integers. _ts is kept MAX_TTL below the top so that _ts + ttl, the
# expiry column, fits whatever ttl the item (or a later DefaultTimeToLive) brings.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
LATEST_TS = INT64_MAX - MAX_TTL


def _check_numbers(ts: int, order_value: int | float | str, schema: Schema) -> None:
    """Refuse an item whose _ts or order value no column can hold (before, one such
    item made the batch's insert raise and the whole import stop)."""
    if not INT64_MIN <= ts <= LATEST_TS:
        raise ItemRejected(
            f"_ts {_digits(ts)} is out of range: a workspace holds epoch seconds up to "
            f"{LATEST_TS} (a 64-bit number with room for _ts + ttl)"
        )
    name = schema.order.path.text.lstrip("/").replace("/", ".") if schema.order else "order"
    if isinstance(order_value, int) and not INT64_MIN <= order_value <= INT64_MAX:
        raise ItemRejected(
            f"{name} {_digits(order_value)} is past the 64-bit integers a workspace orders turns by"
        )
    if isinstance(order_value, float) and not math.isfinite(order_value):
        raise ItemRejected(f"{name} is {order_value}, not a finite number")


def _digits(number: int) -> str:
    text = str(number)  # at most ~310 digits: larger ones are refused as they are read
    return text if len(text) <= 30 else f"{text[:12]}…({len(text)} digits)"


def _etag() -> str:
    return f'"{uuid.uuid4()}"'


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
        builder = WorkspaceBuilder(path, db)
        yield builder
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

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

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
        _check_numbers(ts, keys.order_value, schema)
        row = {
            "pk": pk_text(pk),
            "id": item_id,
            "ts": ts,
            "etag": etag,
            "expires_at": item_expiry(doc, ts, self._container.default_ttl),
            "tenant_key": keys.tenant_key,
            "thread_key": keys.thread_key,
            "order_rank": keys.order_rank,
            "order_value": keys.order_value,
        }
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError:  # a lone surrogate (JSON allows it): keep it as an escape
            text = ASCII.encode(doc)
            size = len(text)
        _check_storable(row)
        row["size_bytes"] = size
        row["body"] = text
        return row

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

    def insert_new_rows(self, rows: Sequence[Mapping[str, Any]]) -> bool:
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


def _json_or_none(value: Mapping[str, JsonValue] | None) -> str | None:
    return None if value is None else json.dumps(dict(value))
