"""Load query texts (Cosmos SQL, SQLite, KQL) by name from the packaged ``queries/`` folder.

Every query the console sends lives in a file there: reviewable as text, and never
built by concatenating values into strings.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGED = Path(__file__).resolve().parent.parent / "queries"  # inside an installed wheel
_CHECKOUT = Path(__file__).resolve().parent.parent.parent / "queries"  # a source checkout


def queries_root() -> Path:
    for candidate in (_PACKAGED, _CHECKOUT):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"query texts not found in {_PACKAGED} or {_CHECKOUT}")


@cache
def load_query(dialect: str, name: str) -> str:
    """The text of ``queries/<dialect>/<name>.<ext>`` (ext from the dialect)."""
    ext = {"cosmos": "sql", "local": "sql", "kql": "kql"}[dialect]
    path = queries_root() / dialect / f"{name}.{ext}"
    return path.read_text(encoding="utf-8")
