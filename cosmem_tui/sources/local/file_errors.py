"""What went wrong with a workspace file, in one line with the fix (never a sqlite3 traceback).

SQLite reports a file that another program holds locked, a damaged or truncated file,
and a file that is no database at all with the same exception class; the result code
tells them apart, and each needs a different fix.
"""

from __future__ import annotations

import errno
import shlex
import sqlite3
from pathlib import Path

from cosmem_tui.sources.errors import WorkspaceError

# How long a read waits for another program's write lock before saying so. Short: a
# workspace is never written in place by cosmem (builds rename a new file over it).
LOCK_WAIT_S = 2.0

_BUSY = {"SQLITE_BUSY", "SQLITE_LOCKED"}
_DAMAGED = {"SQLITE_CORRUPT", "SQLITE_IOERR_SHORT_READ"}
_REBUILD = "build it again (cosmem demo --reset for the demo, or import it again)"


def workspace_error(path: Path, exc: sqlite3.Error) -> WorkspaceError:
    """The one-line ``WorkspaceError`` for a sqlite3 error met while reading ``path``."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    detail = str(exc)
    if name == "SQLITE_READONLY_ROLLBACK" or (
        "readonly database" in detail and journal_of(path).is_file()
    ):
        return interrupted_write(path)
    if name in _BUSY or name.startswith("SQLITE_BUSY") or "database is locked" in detail:
        return WorkspaceError(
            f"{path} is locked by another program that is writing it ({detail}); "
            "let it finish or close it, then try again"
        )
    if name in _DAMAGED or name.startswith("SQLITE_CORRUPT") or "malformed" in detail:
        return WorkspaceError(f"{path} is damaged or truncated ({detail}); {_REBUILD}")
    if name == "SQLITE_NOTADB" or "not a database" in detail:
        return WorkspaceError(f"{path} is not a cosmem workspace: not a SQLite database ({detail})")
    if name.startswith("SQLITE_CANTOPEN"):
        return WorkspaceError(f"cannot open {path} ({detail}); check that it is readable")
    return WorkspaceError(f"{path} is not a cosmem workspace ({detail})")


def journal_of(path: Path) -> Path:
    return path.with_name(path.name + "-journal")


def interrupted_write(path: Path) -> WorkspaceError:
    """A hot journal: a write (``--allow-writes``, or another program) was cut off.

    SQLite must roll it back before the file can be read, and a read-only connection
    cannot; rolling back undoes only the write that never finished. Deleting the
    journal instead would leave that half-done write in the file."""
    journal = journal_of(path)
    script = 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA quick_check")'
    command = f"python3 -c {shlex.quote(script)} {shlex.quote(str(path))}"
    return WorkspaceError(
        f"{path}: an interrupted write left {journal.name} beside it, which must be rolled "
        "back before the workspace can be read (only the write that was cut off is "
        f"undone). Roll it back with: {command} — never delete the journal by hand"
    )


def format_error(path: Path, found: object, known: str) -> WorkspaceError:
    """A workspace whose format is not ``known``: newer (upgrade), or not one at all."""
    text = str(found) if found is not None else None
    if text is not None and text.isdigit() and known.isdigit() and int(text) > int(known):
        return WorkspaceError(
            f"{path} was written by a newer cosmem (workspace format {text}; this version "
            f"reads format {known}): install a newer cosmem to read it"
        )
    if text is None:
        return WorkspaceError(f"{path} is not a cosmem workspace (it records no format)")
    return WorkspaceError(
        f"{path} is not a cosmem workspace of format {known} (it records format {text!r}); "
        f"{_REBUILD}"
    )


_FULL = {"SQLITE_FULL"}
# EFBIG (a file size limit) and EIO come back from SQLite as a write I/O error.
_WRITE_FAILED = {
    "SQLITE_IOERR",
    "SQLITE_IOERR_WRITE",
    "SQLITE_IOERR_FSYNC",
    "SQLITE_IOERR_TRUNCATE",
}


def build_error(path: Path, exc: sqlite3.Error) -> WorkspaceError:
    """The one line for a sqlite3 error met while writing a new workspace at ``path``
    (nothing is left behind: the temporary file is removed before this is raised)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name in _FULL or "disk is full" in str(exc):
        return WorkspaceError(
            f"the disk is full: nothing was written to {path} (free some space and try again)"
        )
    if name in _WRITE_FAILED or "disk I/O error" in str(exc):
        return WorkspaceError(
            f"the disk refused a write ({exc}: full, over a file size limit, or failing): "
            f"nothing was written to {path}"
        )
    return WorkspaceError(f"cannot write {path} ({exc}): nothing was written")


def os_write_error(path: Path, exc: OSError) -> str:
    """The same for an ``OSError`` (the rename, a temporary file that cannot be made)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full: nothing was written to {path} (free some space and try again)"
    if exc.errno == errno.EFBIG:
        return f"the file grew past the size limit (ulimit -f): nothing was written to {path}"
    return f"import stopped, nothing written to {path}: {exc.strerror or exc}"
