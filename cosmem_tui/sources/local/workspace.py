"""A local workspace: one container's properties and items in a SQLite file.

``Workspace.open`` gives the handle the console reads through; new workspaces are
written only through ``Workspace.building``, whose handle is a ``WorkspaceBuilder``
(``builder.py``).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path

from cosmem_tui.model import ContainerProperties
from cosmem_tui.profiles import Schema
from cosmem_tui.sources.errors import WorkspaceError
from cosmem_tui.sources.local.builder import WorkspaceBuilder, building
from cosmem_tui.sources.local.keys import derive_keys, schema_signature
from cosmem_tui.sources.local.workspace_file import FORMAT_VERSION, WorkspaceFile


class Workspace(WorkspaceFile):
    """An open workspace file. Thread-safe: one connection behind a lock."""

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

    @staticmethod
    def building(
        path: Path, container: ContainerProperties, schema: Schema
    ) -> AbstractContextManager[WorkspaceBuilder]:
        """Create a new workspace (see ``builder.building``)."""
        return building(path, container, schema)

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
