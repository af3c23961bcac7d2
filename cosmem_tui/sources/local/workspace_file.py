"""What both handles on a workspace file share: its container properties, metadata and queries.

A workspace is read through ``Workspace`` (opened read-only) and written only through
``WorkspaceBuilder`` (a new file, renamed into place when complete). This base holds
the read operations both need; it has no way to write.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition
from cosmem_tui.sources.errors import WorkspaceError
from cosmem_tui.sources.local.file_errors import format_error, workspace_error
from cosmem_tui.sources.query_texts import load_query

FORMAT_VERSION = "1"


def check_format(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a database that is not a workspace of this format (read or write handle)."""
    version = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    if version is None or version[0] != FORMAT_VERSION:
        raise format_error(path, version[0] if version else None, FORMAT_VERSION)


class WorkspaceFile:
    """One connection to a workspace file behind a lock (it is used from worker threads)."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection
        self._lock = threading.RLock()
        try:
            self._container = self._read_container()
        except sqlite3.Error as exc:
            raise workspace_error(path, exc) from None

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None  # type: ignore[assignment]

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
        with self._lock, self._reading():
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def query(self, name: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        sql = load_query("local", name)
        with self._lock, self._reading():
            return self._db.execute(sql, params).fetchall()

    def scan(
        self, name: str, params: Mapping[str, Any], *, batch: int = 256
    ) -> Iterator[tuple[Any, ...]]:
        """The rows of a query a batch at a time, never all at once (a recall probe reads
        a whole tenant's bodies, embeddings included). Holds the lock until exhausted or
        closed: iterate it inside one worker call."""
        sql = load_query("local", name)
        with self._lock, self._reading():
            cursor = self._db.execute(sql, params)
            try:
                while rows := cursor.fetchmany(batch):
                    yield from rows
            finally:
                cursor.close()

    def run_script(self, name: str) -> None:
        """A query text of statements that change only this connection's temp database."""
        with self._lock, self._reading():
            self._db.executescript(load_query("local", name))

    def execute(self, name: str, params: Mapping[str, Any]) -> None:
        """One statement of a query text on this connection's temp database."""
        with self._lock, self._reading():
            self._db.execute(load_query("local", name), params)

    def execute_many(self, name: str, rows: Iterable[Mapping[str, Any]]) -> None:
        with self._lock, self._reading():
            self._db.executemany(load_query("local", name), rows)

    def item_count(self) -> int:
        with self._lock, self._reading():
            return int(self._db.execute("SELECT COUNT(*) FROM items").fetchone()[0])

    @contextmanager
    def _reading(self) -> Iterator[None]:
        # The file can be locked or found damaged long after it opened (a page read late).
        try:
            yield
        except sqlite3.Error as exc:
            raise workspace_error(self.path, exc) from None
