"""The local change log itself: who writes it, in which transaction, and what it keeps.

What every backend must answer alike is in ``tests/contract/test_changes.py``; this is
what only a workspace has: the build's log, the guarded writes' rows, batches that roll
back whole, workspaces built before the log, and the keys of another schema.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.model.changes import ChangeOp, FeedMode, FeedStart, FeedUnavailable
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.errors import BadRequest, Conflict, WorkspaceError
from cosmem_tui.sources.local import LocalStore, Workspace
from cosmem_tui.sources.local.change_log import DEMO_RETENTION_S, RETENTION_META
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from cosmem_tui.sources.local.writer import LocalWriter
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange

LAB = get_schema("lab")
CONTAINER = TtlScope.container()


def built(tmp_path: Path, *, keys_for: str = "lab") -> Path:
    items = [exchange("acme", "t1", i, ttl=3600) for i in range(3)]
    items[1]["_ts"] = ANCHOR - 50  # older: logged first
    return build_workspace(
        tmp_path / "w.sqlite", items, now=ANCHOR, schema=get_schema(keys_for), default_ttl=-1
    )


def log_rows(path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute(
            "SELECT lsn, op, id, crts, previous_lsn, current, body FROM changes ORDER BY lsn"
        ).fetchall()
    finally:
        db.close()


async def all_changes(store: LocalStore, continuation: str) -> list[tuple[ChangeOp, str]]:
    page = await store.read_changes(
        CONTAINER, mode=FeedMode.ALL_VERSIONS, continuation=continuation
    )
    return [(c.op, c.item_id) for c in page.changes]


def test_a_build_logs_every_item_as_a_create_oldest_first_without_copying_it(tmp_path):
    rows = log_rows(built(tmp_path))
    assert [(r[1], r[2]) for r in rows] == [
        ("create", "t1-1"),
        ("create", "t1-0"),
        ("create", "t1-2"),
    ]
    assert [r[3] for r in rows] == [ANCHOR - 50, ANCHOR, ANCHOR]  # crts = _ts, never falling
    assert all(r[6] is None for r in rows)  # the version is the item's stored body


async def test_a_replace_keeps_the_version_it_replaced(tmp_path):
    path = built(tmp_path)
    db = sqlite3.connect(path)
    before = db.execute("SELECT body FROM items WHERE id = 't1-0'").fetchone()[0]
    db.close()
    writer = WorkspaceWriter.open(path)
    with writer.changes(LAB, ANCHOR + 10) as batch:
        batch.replace(exchange("acme", "t1", 0, text="new"))
    writer.close()
    rows = {r[0]: r for r in log_rows(path)}
    assert rows[2][6] == before and rows[2][5] == 0  # copied before the item changed
    assert rows[4][1:3] == ("replace", "t1-0") and rows[4][4] == 2 and rows[4][5] == 1
    assert json.loads(str(rows[4][6]))["messages"][0]["content"] == "new 0"


async def test_the_guarded_writes_log_a_replace_and_a_delete_in_their_transaction(tmp_path):
    path = built(tmp_path)
    clock = FrozenClock(ANCHOR + 5)
    ledger = RequestLedger(writes_allowed=True)
    store = LocalStore.open(path, LAB, ledger=ledger, clock=clock)
    position = (await store.read_changes(CONTAINER, mode=FeedMode.ALL_VERSIONS)).continuation
    assert position is not None
    writer = LocalWriter(store.workspace, LAB, ledger=ledger, clock=clock)
    item = await store.read_item(ThreadRef.of("acme", "t1"), "t1-0")
    ack = await writer.set_ttl("t1-0", ("acme", "t1"), 60, etag=item.etag)
    with pytest.raises(Conflict):  # refused by its condition: nothing logged either
        await writer.delete_item("t1-2", ("acme", "t1"), etag='"stale"')
    second = await store.read_item(ThreadRef.of("acme", "t1"), "t1-2")
    await writer.delete_item("t1-2", ("acme", "t1"), etag=second.etag)
    page = await store.read_changes(CONTAINER, mode=FeedMode.ALL_VERSIONS, continuation=position)
    assert [(c.op, c.item_id, c.ttl) for c in page.changes] == [
        (ChangeOp.REPLACE, "t1-0", 60),
        (ChangeOp.DELETE, "t1-2", None),
    ]
    assert page.changes[0].ts == ANCHOR + 5 and ack.etag
    await writer.close()
    await store.close()


async def test_a_batch_that_fails_writes_neither_items_nor_changes(tmp_path):
    path = built(tmp_path)
    writer = WorkspaceWriter.open(path)
    before = log_rows(path)
    with pytest.raises(Conflict), writer.changes(LAB, ANCHOR + 1) as batch:
        batch.create(exchange("acme", "t9", 0))
        batch.create(exchange("acme", "t1", 0))  # there already
    writer.close()
    assert log_rows(path) == before
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM items WHERE id = 't9-0'").fetchone()[0] == 0
    db.close()


async def test_commit_times_never_go_back_when_the_clock_does(tmp_path):
    path = built(tmp_path)
    writer = WorkspaceWriter.open(path)
    with writer.changes(LAB, ANCHOR + 100) as batch:
        batch.create(exchange("acme", "t2", 0))
    with writer.changes(LAB, ANCHOR + 40) as batch:  # a clock stepped back
        batch.create(exchange("acme", "t2", 1))
    writer.close()
    crts = [r[3] for r in log_rows(path)]
    assert crts == sorted(crts) and crts[-1] == ANCHOR + 100


async def test_a_workspace_built_before_the_change_log_reads_and_says_why_it_has_no_feed(
    tmp_path,
):
    path = built(tmp_path)
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE changes; DELETE FROM meta WHERE key = 'change_log_started';")
    db.close()
    store = LocalStore.open(path, LAB, clock=FrozenClock(ANCHOR))
    page = await store.page_turns(ThreadRef.of("acme", "t1"))
    assert len(page.items) == 3  # still readable
    for mode in FeedMode:
        with pytest.raises(FeedUnavailable) as caught:
            await store.read_changes(CONTAINER, mode=mode, start=FeedStart.now())
        assert "predates the change log" in caught.value.reason
        assert "cosmem demo --reset" in caught.value.fix and "import" in caught.value.fix
    await store.close()
    writer = WorkspaceWriter.open(path)  # guarded writes still work, without a log
    db = sqlite3.connect(path)
    row = db.execute("SELECT etag FROM items WHERE id = 't1-0'").fetchone()
    db.close()
    writer.set_ttl('["acme","t1"]', "t1-0", 60, etag=row[0], now=ANCHOR + 1)
    with pytest.raises(WorkspaceError, match="predates the change log"), writer.changes(LAB, 1):
        pass
    writer.close()


async def test_read_with_another_schema_only_the_whole_container_can_be_scoped(tmp_path):
    path = built(tmp_path, keys_for="thread")  # keys built for another schema than lab's
    store = LocalStore.open(path, LAB, clock=FrozenClock(ANCHOR))
    assert store.workspace.keys_are_shadowed
    whole = await store.read_changes(CONTAINER, mode=FeedMode.LATEST, start=FeedStart.beginning())
    assert {c.ref for c in whole.changes} == {ThreadRef.of("acme", "t1")}
    with pytest.raises(FeedUnavailable, match="keyed for the schema"):
        await store.read_changes(TtlScope.of_tenant(Key.of("acme")), mode=FeedMode.LATEST)
    await store.close()


async def test_a_continuation_of_another_mode_or_not_one_at_all_is_refused(tmp_path):
    store = LocalStore.open(built(tmp_path), LAB, clock=FrozenClock(ANCHOR))
    latest = await store.read_changes(CONTAINER, mode=FeedMode.LATEST)
    assert latest.continuation is not None
    with pytest.raises(BadRequest, match="latest feed"):
        await store.read_changes(
            CONTAINER, mode=FeedMode.ALL_VERSIONS, continuation=latest.continuation
        )
    with pytest.raises(BadRequest, match="invalid change feed continuation"):
        await store.read_changes(CONTAINER, mode=FeedMode.LATEST, continuation="L1.garbage")
    with pytest.raises(ValueError):
        await store.read_changes(CONTAINER, mode=FeedMode.LATEST, max_items=0)
    await store.close()


def test_the_demo_keeps_a_small_retention_window(demo_path):
    workspace = Workspace.open(demo_path)
    try:
        assert workspace.keeps_change_log
        assert workspace.meta(RETENTION_META) == str(DEMO_RETENTION_S)
    finally:
        workspace.close()
