"""The vectors table of a workspace (sources/local/vector_table.py): what a build writes,
what a guarded write drops, and that a workspace without it still answers."""

from __future__ import annotations

import json
import math
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from cosmem_tui.model import FrozenClock, Key
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import Distance, ProbeMode, RecallQuery
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local import LocalStore
from cosmem_tui.sources.local.vector_table import MIN_DIMS
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange, run_cli

LAB = get_schema("lab")
DIMS = 2 * MIN_DIMS
PADDING = "tea and biscuits " * 40


def planted() -> list[dict[str, Any]]:
    rng = random.Random(5)
    return [
        exchange(
            "acme",
            "t1",
            n,
            f"note {n}",
            content=PADDING,
            embedding=[rng.uniform(-1, 1) for _ in range(DIMS)],
        )
        for n in range(6)
    ]


def rows_of(path: Path) -> dict[str, tuple[Any, ...]]:
    """Each stored vector's item id and what the item's row says (pk, etag)."""
    db = sqlite3.connect(path)
    try:
        found = db.execute(
            "SELECT i.id, i.pk, i.etag FROM vectors AS v JOIN items AS i ON i.rowid = v.item_rowid"
        ).fetchall()
        orphans = db.execute(
            "SELECT count(*) FROM vectors WHERE item_rowid NOT IN (SELECT rowid FROM items)"
        ).fetchone()[0]
    finally:
        db.close()
    assert orphans == 0
    return {row[0]: row[1:] for row in found}


def test_a_guarded_write_drops_the_items_stored_vector(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "w.sqlite", planted(), now=ANCHOR, schema=LAB)
    stored = rows_of(path)
    assert set(stored) == {f"t1-{n}" for n in range(6)}
    writer = WorkspaceWriter.open(path)
    try:
        pk, etag = stored["t1-1"]
        writer.set_ttl(pk, "t1-1", 3600, etag=etag, now=ANCHOR + 10)  # a new body
        pk, etag = stored["t1-2"]
        writer.delete(pk, "t1-2", etag=etag, now=ANCHOR + 10)
    finally:
        writer.close()
    assert set(rows_of(path)) == {f"t1-{n}" for n in range(6)} - {"t1-1", "t1-2"}


async def test_after_a_write_the_probe_reads_the_items_body(tmp_path: Path) -> None:
    """The item a guarded write changed is scored from its body, never from what the
    table held for the body before (made wrong here, as a stale row would be)."""
    items = planted()
    path = build_workspace(tmp_path / "w.sqlite", items, now=ANCHOR, schema=LAB)
    pk, etag = rows_of(path)["t1-1"]
    writer = WorkspaceWriter.open(path)
    try:
        writer.set_ttl(pk, "t1-1", 3600, etag=etag, now=ANCHOR + 10)
    finally:
        writer.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE vectors SET norm = norm * 3")
    db.close()
    query_vector = tuple(items[1]["embedding"])
    store = LocalStore.open(path, LAB, clock=FrozenClock(ANCHOR + 60))
    try:
        answer = await store.recall(
            RecallQuery(
                scope=TtlScope.of_tenant(Key.of("acme")),
                mode=ProbeMode.EXACT,
                k=6,
                vector_path="/embedding",
                vector=query_vector,
            )
        )
    finally:
        await store.close()
    written = next(h for h in answer.hits if h.id == "t1-1")
    assert math.isclose(written.score or 0.0, 1.0, rel_tol=1e-12)


async def test_a_workspace_built_before_the_table_still_answers(tmp_path: Path) -> None:
    items = planted()
    path = build_workspace(tmp_path / "w.sqlite", items, now=ANCHOR, schema=LAB)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP TABLE vectors")  # and its triggers: as an older build left the file
    db.execute("DELETE FROM meta WHERE key = 'vectors_path'")
    db.close()
    query_vector = tuple(items[4]["embedding"])
    store = LocalStore.open(path, LAB, clock=FrozenClock(ANCHOR + 60))
    try:
        answer = await store.recall(
            RecallQuery(
                scope=TtlScope.of_tenant(Key.of("acme")),
                mode=ProbeMode.EXACT,
                k=6,
                vector_path="/embedding",
                vector=query_vector,
            )
        )
    finally:
        await store.close()
    scored = sorted(
        ((Distance.COSINE.score(i["embedding"], query_vector), i["id"]) for i in items),
        key=lambda s: (-s[0], s[1]),
    )
    assert [h.id for h in answer.hits] == [item_id for _, item_id in scored]
    for hit, (score, _) in zip(answer.hits, scored, strict=True):
        assert math.isclose(hit.score or 0.0, score, rel_tol=1e-12, abs_tol=1e-12)


def test_a_workspace_of_short_items_gets_no_table(tmp_path: Path) -> None:
    """Short bodies parse quickly: no table, and the file is laid out as before."""
    items = [exchange("acme", "t1", n, embedding=[0.1 * n] * DIMS) for n in range(3)]
    path = build_workspace(tmp_path / "w.sqlite", items, now=ANCHOR, schema=LAB)
    db = sqlite3.connect(path)
    try:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        meta = {row[0] for row in db.execute("SELECT key FROM meta")}
    finally:
        db.close()
    assert "vectors" not in names and "vectors_path" not in meta


async def _ranking(path: Path, query_vector: tuple[float, ...]) -> list[tuple[Any, ...]]:
    store = LocalStore.open(path, LAB, clock=FrozenClock(ANCHOR + 60))
    try:
        answer = await store.recall(
            RecallQuery(
                scope=TtlScope.of_tenant(Key.of("acme")),
                mode=ProbeMode.EXACT,
                k=6,
                vector_path="/embedding",
                vector=query_vector,
            )
        )
    finally:
        await store.close()
    return [(h.id, h.thread, h.score) for h in answer.hits]


async def test_an_import_writes_the_table(capsys: Any, tmp_path: Path) -> None:
    """``cosmem import`` (its own batch insert) keeps the vectors apart as well, and the
    probe ranks its items as on a workspace built without the table."""
    items = planted()
    source = tmp_path / "export.jsonl"
    source.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    path = tmp_path / "imported.sqlite"
    code, _, err = run_cli(
        capsys, "import", str(source), "--schema", "lab", "--workspace", str(path)
    )
    assert code == 0, err
    assert set(rows_of(path)) == {i["id"] for i in items}
    reference = tmp_path / "reference.sqlite"
    shutil.copyfile(path, reference)
    db = sqlite3.connect(reference, isolation_level=None)
    db.execute("DROP TABLE vectors")
    db.execute("DELETE FROM meta WHERE key = 'vectors_path'")
    db.close()
    query_vector = tuple(items[2]["embedding"])
    assert await _ranking(path, query_vector) == await _ranking(reference, query_vector)


async def test_a_session_with_its_own_keys_reads_the_bodies(tmp_path: Path) -> None:
    """Read with a schema the file was not built for, a session's keys come from a temp
    view with no rowid to join the table on: it reads the bodies, and ranks alike."""
    items = planted()
    lab = build_workspace(tmp_path / "lab.sqlite", items, now=ANCHOR, schema=LAB)
    other = build_workspace(
        tmp_path / "thread.sqlite", items, now=ANCHOR, schema=get_schema("thread")
    )
    assert set(rows_of(other)) == {i["id"] for i in items}
    query_vector = tuple(items[3]["embedding"])
    assert await _ranking(other, query_vector) == await _ranking(lab, query_vector)


def test_an_item_replaced_in_place_keeps_no_stored_vector(tmp_path: Path) -> None:
    """INSERT OR REPLACE deletes the item it replaces without firing delete triggers:
    the insert trigger drops its row, and none is left behind for a reused rowid."""
    path = build_workspace(tmp_path / "w.sqlite", planted(), now=ANCHOR, schema=LAB)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute(
            "INSERT OR REPLACE INTO items SELECT pk, id, ts, etag, expires_at, tenant_key, "
            "thread_key, order_rank, order_value, size_bytes, body FROM items WHERE id = 't1-4'"
        )
    finally:
        db.close()
    assert set(rows_of(path)) == {f"t1-{n}" for n in range(6)} - {"t1-4"}
