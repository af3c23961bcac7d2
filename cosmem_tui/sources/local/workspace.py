"""A local workspace: one container's properties and items in a SQLite file, read-only.

The console never writes a workspace. ``Workspace.open`` connects read-only, so no
code path that browses can change the file; a session reading with a schema other
than the one the file was built for computes its keys in its own temp database (``session_keys``).
New workspaces are written only through ``Workspace.building`` (``builder.py``).
"""

from __future__ import annotations

import functools
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path

from cosmem_tui.model import ContainerProperties
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.errors import WorkspaceError
from cosmem_tui.sources.local.builder import WorkspaceBuilder, building
from cosmem_tui.sources.local.change_log import has_change_log
from cosmem_tui.sources.local.file_errors import LOCK_WAIT_S, workspace_error
from cosmem_tui.sources.local.keys import schema_signature
from cosmem_tui.sources.local.session_keys import shadow_derived_columns
from cosmem_tui.sources.local.workspace_file import WorkspaceFile, check_format
from cosmem_tui.sources.query_texts import load_query

_HEADER = b"SQLite format 3\x00"
_WAL_VERSION = 2  # header bytes 18 and 19 (write and read version): 2 = WAL, 1 = rollback


class Workspace(WorkspaceFile):
    """A workspace opened for reading. Thread-safe: one connection behind a lock."""

    @classmethod
    def open(cls, path: Path) -> Workspace:
        path = Path(path)
        if not path.is_file():
            raise WorkspaceError(f"no workspace at {path}")
        try:
            db = sqlite3.connect(
                _read_only_uri(path),
                uri=True,
                check_same_thread=False,
                isolation_level=None,
                timeout=LOCK_WAIT_S,
            )
        except sqlite3.Error as exc:
            raise workspace_error(path, exc) from None
        try:
            check_format(db, path)
            return cls(path, db)
        except sqlite3.Error as exc:
            db.close()
            raise workspace_error(path, exc) from None
        except BaseException:
            db.close()
            raise

    @staticmethod
    def building(
        path: Path, container: ContainerProperties, schema: Schema
    ) -> AbstractContextManager[WorkspaceBuilder]:
        """Create a new workspace: the only way one is written (see ``builder.building``)."""
        return building(path, container, schema)

    @functools.cached_property
    def keeps_change_log(self) -> bool:
        """Built with a change log (``change_log.py``)? Older workspaces are read without."""
        with self._lock, self._reading():
            return has_change_log(self._db)

    @property
    def keys_are_shadowed(self) -> bool:
        """Does this session read keys of its own (another schema than the file's)?"""
        return bool(getattr(self, "_shadowed", False))

    def derive_for(self, schema: Schema) -> bool:
        """Read with ``schema`` for the rest of this session; True if keys were computed.

        Nothing is written: when the file's derived columns were built for another
        schema, this connection computes its own (``session_keys``) and reads those.
        """
        if self.meta("derived_for") == schema_signature(schema):
            return False
        with self._lock, self._reading():
            shadow_derived_columns(self._db, schema)
            self._shadowed = True
        return True

    def refresh_item(self, pk: str, item_id: str) -> None:
        """A guarded write changed or deleted this item (through ``WorkspaceWriter``): bring
        this session's own keys up to date. Writes only this connection's temp database."""
        if not self.keys_are_shadowed:
            return  # the file's own columns: the writer already changed them
        with self._lock:
            params = {"pk": pk, "id": item_id}
            self._db.execute(load_query("local", "shadow_refresh"), params)
            self._db.execute(load_query("local", "shadow_update"), params)


def _read_only_uri(path: Path) -> str:
    """The URI that opens ``path`` read-only, creating no file beside it.

    Workspaces are built with a rollback journal, which a read-only connection opens
    cleanly. Earlier builds left the file in WAL mode, where even a read-only
    connection creates -wal and -shm files (and cannot open in a read-only folder).
    Such a file with no WAL content has nothing to recover, and a workspace is never
    changed in place (builders rename a new file over it), so it is opened immutable.
    """
    uri = path.absolute().as_uri() + "?mode=ro"
    wal = path.with_name(path.name + "-wal")
    if _in_wal_mode(path) and (not wal.exists() or wal.stat().st_size == 0):
        uri += "&immutable=1"
    return uri


def _in_wal_mode(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            header = file.read(20)
    except OSError:
        return False  # sqlite3 reports the same problem, in its own words
    return header.startswith(_HEADER) and header[18] == header[19] == _WAL_VERSION
