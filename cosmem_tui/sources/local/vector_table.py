"""Embeddings kept apart from their items, so an exact recall probe need not parse them.

A probe reads every candidate of its scope, and for long embeddings parsing the JSON
array was most of its time (1,536 numbers per item). A build therefore writes, after its
load, a ``vectors`` row (``queries/local/vectors_schema.sql``) for each large item whose
embedding at the schema's retrieval path is a plain vector: the numbers as float64, their
count and ``math.hypot`` norm, and the body without the embedding, which is all the
probe's filters and full-text read. Triggers drop a row whenever its item's body changes
or the item goes, so the guarded writes never leave a stale vector.

A row is written only where the probe, reading the body, would score exactly the same
numbers: a JSON array of at least ``MIN_DIMS`` finite numbers, no bool among them, in a
body orjson reads (the probe's parser). Anything else, an item under ``MIN_BYTES`` (its
parse costs little), a nested path, or a workspace built before the table, is read from
the body as before, so a probe ranks alike with and without the table.
"""

from __future__ import annotations

import math
import sqlite3
import struct
from collections.abc import Iterable
from dataclasses import dataclass

import orjson

from cosmem_tui.model.recall import ProbeMode, RecallFilter, RecallQuery
from cosmem_tui.schemas import FieldPath, Schema
from cosmem_tui.sources.query_texts import load_query

# Below these a body's parse is cheap, and a row would only double what the file holds
# (an import of short turns with 8-number embeddings writes none, and pays one scan).
MIN_BYTES = 2048
MIN_DIMS = 64
META_KEY = "vectors_path"
_PAGE = 256  # items read per page while writing the table
_NUMBERS = frozenset({int, float})

SideRow = tuple[int, int, float, bytes, str]  # item rowid, dims, norm, vector, slim body


@dataclass(frozen=True, slots=True)
class StoredVector:
    """An item's embedding as the vectors table holds it."""

    dims: int
    norm: float
    vector: bytes  # ``dims`` float64, little-endian


def side_row(body_text: str, name: str) -> tuple[int, float, bytes, str] | None:
    """(dims, norm, vector, slim body) for an item whose top-level ``name`` holds a vector
    worth keeping apart, else None (the probe reads that item's body)."""
    try:
        body = orjson.loads(body_text)
    except orjson.JSONDecodeError:
        return None  # the probe's parser refuses it as well: nothing to precompute
    if type(body) is not dict:
        return None
    vector = body.get(name)
    if type(vector) is not list or len(vector) < MIN_DIMS:
        return None
    # A bool is no number here (as in Cosmos SQL), and only a text spelling true or false
    # can hold one: only then are the types looked at (it costs as much as the parse).
    bools = "true" in body_text or "false" in body_text
    if bools and not set(map(type, vector)) <= _NUMBERS:
        return None
    try:
        norm = math.hypot(*vector)  # TypeError for anything else that is no number
        packed = struct.pack(f"<{len(vector)}d", *vector)
    except (TypeError, OverflowError, struct.error):
        return None
    if not math.isfinite(norm):
        return None
    del body[name]
    try:
        slim = orjson.dumps(body).decode()
    except orjson.JSONEncodeError:  # nested deeper than orjson writes (it reads deeper)
        return None
    return len(vector), norm, packed, slim


def write_vectors(db: sqlite3.Connection, schema: Schema) -> int:
    """Fill the vectors table of a workspace being built (after its load, in autocommit
    mode); how many rows. Creates the table, its triggers and ``meta.vectors_path`` only
    when there is a row to write: a workspace of short items stays as it was."""
    path = schema.how_it_retrieves.embedding
    if not path.is_top_level:
        return 0
    page = load_query("local", "vectors_source")
    insert = load_query("local", "vectors_insert")
    after, written = 0, 0
    while rows := db.execute(
        page, {"after": after, "min_bytes": MIN_BYTES, "limit": _PAGE}
    ).fetchall():
        after = rows[-1][0]
        found = [
            (rowid, *row) for rowid, body in rows if (row := side_row(body, path.top)) is not None
        ]
        if not found:
            continue
        if written == 0:
            db.executescript(load_query("local", "vectors_schema"))
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (META_KEY, path.text))
            db.execute("BEGIN")
        db.executemany(insert, found)
        written += len(found)
    if written:
        db.execute("COMMIT")
    return written


def stored_path(db: sqlite3.Connection) -> str | None:
    """The embedding path the workspace's vectors table holds, or None (an older build)."""
    row = db.execute(load_query("local", "vectors_path")).fetchone()
    return str(row[0]) if row else None


def serves(query: RecallQuery, path: str) -> bool:
    """May this probe read the vectors table kept for ``path``?

    A vector probe must ask for that path; and no filter nor text path may read the
    embedding's property, which the slim body lacks."""
    if query.mode is not ProbeMode.TEXT and query.vector_path != path:
        return False
    name = FieldPath.parse(path).top
    return not _reads(name, query.filters, query.text_paths)


def _reads(name: str, filters: Iterable[RecallFilter], text_paths: Iterable[str]) -> bool:
    for rule in filters:
        # model.recall.admitted walks the raw segments; the escaped spelling counts too.
        raw = rule.path.strip("/").split("/")[0]
        if name in (raw, raw.replace("~1", "/").replace("~0", "~")):
            return True
    return any(FieldPath.parse(text).top == name for text in text_paths)
