"""One metadata value of a workspace file, read without opening it as a workspace.

The demo's generation is checked before the console decides whether to (re)build the
demo, so this must be cheap and must never write: the file is opened read-only.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


def read_meta(path: Path, key: str) -> str | None:
    """The value of ``key`` in the file's ``meta`` table; None when absent or unreadable."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.Error:  # not a workspace, or one cut short: rebuilt like a stale demo
        return None
    finally:
        db.close()
    return str(row[0]) if row else None
