"""Guarded writes on a local workspace: plan, confirm, apply, audit — and refuse.

The session is opened the way the CLI and the TUI open it (``open_local_session`` with
``allow_writes``); a concurrent writer is a second ``WorkspaceWriter`` on the same
file, as another process would be.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from cosmem_tui.compose import open_local_session
from cosmem_tui.core.errors import WriteRefused
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.core.writes import describe_plan
from cosmem_tui.model import Scope, ThreadRef
from cosmem_tui.model.writes import WriteAction, WriteStatus
from cosmem_tui.sources.errors import WritesNotAllowed
from cosmem_tui.sources.local import Workspace
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from cosmem_tui.sources.local.writer import LocalWriter
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange

REF = ThreadRef.of("acme", "t1")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    items = [exchange("acme", "t1", i, ttl=3600) for i in range(7)]
    items += [exchange("acme", "t2", i) for i in range(3)]
    return build_workspace(tmp_path / "w.sqlite", items, now=ANCHOR - 60)


def audit_lines(isolated_user_dirs: Path) -> list[dict]:
    path = isolated_user_dirs / "data" / "cosmem" / "audit.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def body_of(path: Path, item_id: str) -> dict:
    with sqlite3.connect(path) as db:
        (body,) = db.execute("SELECT body FROM items WHERE id = ?", (item_id,)).fetchone()
    return json.loads(body)


async def test_pin_writes_ttl_minus_one_with_a_new_etag_and_an_audit_line(
    workspace, clock, isolated_user_dirs
):
    session = open_local_session(SessionOptions(workspace=workspace, allow_writes=True), clock)
    writes = session.writes
    assert writes is not None and session.writes_allowed
    plan = await writes.plan_pin(REF, "t1-2")
    lines = describe_plan(plan, clock.now(), "AUDIT")
    assert plan.action is WriteAction.PIN and plan.items == 1
    assert "PIN as long-term memory (ttl -1): 1 item in tenant acme / thread t1" in lines[0]
    assert "ttl 3600 → -1; now expires in 59m → never expires" in lines[1]
    assert f"If-Match {plan.changes[0].etag}" in lines[2]
    clock.advance(30)
    outcome = await writes.apply(plan)
    assert outcome.status is WriteStatus.DONE and outcome.done_ids == ("t1-2",)
    body = body_of(workspace, "t1-2")
    assert body["ttl"] == -1 and body["_ts"] == ANCHOR + 30
    assert body["_etag"] != plan.changes[0].etag
    # The session's own read path sees the change at once (read-only connection).
    turns = await session.browse.last_turns(REF, 7)
    pinned = next(t for t in turns if t.item_id == "t1-2")
    assert pinned.ttl.raw == -1 and pinned.ttl.expires_at is None
    intent, line = audit_lines(isolated_user_dirs)  # announced before it was sent
    assert (intent["event"], intent["operation"], intent["id"]) == ("intent", "pin", "t1-2")
    assert intent["etag_before"] == plan.changes[0].etag and intent["requested_ttl"] == -1
    assert line["event"] == "pin" and line["ids"] == ["t1-2"] and line["outcome"] == "done"
    assert line["before_ttl"] == 3600 and line["after_ttl"] == -1 and line["status"] == 200
    assert line["who"].endswith("(local workspace)") and line["account"] == "local"
    assert line["partition_key"] == ["acme", "t1"] and line["request_units"] == 10.0
    assert line["etag_before"] == plan.changes[0].etag and line["etag_after"] == body["_etag"]
    await session.close()


async def test_a_concurrent_change_is_reported_and_never_overwritten(
    workspace, clock, isolated_user_dirs
):
    session = open_local_session(SessionOptions(workspace=workspace, allow_writes=True), clock)
    writes = session.writes
    assert writes is not None
    plan = await writes.plan_ttl(REF, "t1-3", 86_400)
    # Another writer changes the item between the read and the write.
    other = WorkspaceWriter.open(workspace)
    other.set_ttl('["acme","t1"]', "t1-3", 120, etag=plan.changes[0].etag, now=ANCHOR)
    other.close()
    outcome = await writes.apply(plan)
    assert outcome.status is WriteStatus.CONFLICT and outcome.done_ids == ()
    assert "changed after it was read (412): nothing was written" in outcome.message
    assert body_of(workspace, "t1-3")["ttl"] == 120  # the other writer's value stands
    intent, line = audit_lines(isolated_user_dirs)
    assert intent["event"] == "intent" and intent["id"] == "t1-3"
    assert line["outcome"] == "conflict" and line["status"] == 412
    assert line["after_ttl"] is None and line["requested_ttl"] == 86_400
    await session.close()


async def test_invalid_ttls_and_missing_items_are_refused_before_any_write(
    workspace, clock, isolated_user_dirs
):
    session = open_local_session(SessionOptions(workspace=workspace, allow_writes=True), clock)
    writes = session.writes
    assert writes is not None
    for bad in (0, -2, 2_147_483_648):
        with pytest.raises(WriteRefused, match="not one the service accepts"):
            await writes.plan_ttl(REF, "t1-1", bad)
    with pytest.raises(LookupError, match=r"^no item 'no-such-item' in tenant acme / thread t1$"):
        await writes.plan_pin(REF, "no-such-item")  # typed: it may never have existed
    with pytest.raises(LookupError, match=r"is gone .* since it was listed"):
        await writes.plan_pin(REF, "no-such-item", listed=True)
    assert audit_lines(isolated_user_dirs) == []
    await session.close()


async def test_erase_deletes_every_item_of_the_thread_and_lists_every_id(
    workspace, clock, isolated_user_dirs
):
    session = open_local_session(SessionOptions(workspace=workspace, allow_writes=True), clock)
    writes = session.writes
    assert writes is not None
    writes.erase_page = 3  # several pages: each asked again after its deletes
    plan = await writes.plan_erase(REF)
    assert plan.items == 7 and plan.estimate_ru >= 7 * 6
    assert "delete all 7 items" in describe_plan(plan, clock.now())[0]
    seen: list[tuple[int, int]] = []
    outcome = await writes.apply(plan, lambda done, total: seen.append((done, total)))
    assert outcome.status is WriteStatus.DONE and len(outcome.done_ids) == 7
    assert seen[-1] == (7, 7)
    assert await writes.writer.count_thread(REF) == 0
    assert await writes.writer.count_thread(ThreadRef.of("acme", "t2")) == 3  # untouched
    lines = audit_lines(isolated_user_dirs)
    events = ["erase-start"] + ["intent", "delete"] * 7 + ["erase-thread"]
    assert [x["event"] for x in lines] == events
    assert sorted(lines[-1]["ids"]) == sorted(f"t1-{i}" for i in range(7))
    assert lines[-1]["outcome"] == "done" and lines[-1]["confirmed"] == 7
    assert lines[-1]["remaining"] == 0 and lines[-1]["remaining_ids"] == []
    assert all(x["status"] == 204 for x in lines[2:-1:2])
    assert [x["id"] for x in lines[1:-1:2]] == [x["id"] for x in lines[2:-1:2]]
    # The browse path sees the thread gone.
    assert REF.tenant is not None
    threads = await session.browse.threads(REF.tenant)
    assert [t.ref.thread.text for t in threads] == ["t2"]
    await session.close()


async def test_erase_stops_at_the_first_conflict(workspace, clock, isolated_user_dirs, monkeypatch):
    session = open_local_session(SessionOptions(workspace=workspace, allow_writes=True), clock)
    writes = session.writes
    assert writes is not None
    plan = await writes.plan_erase(REF)
    writer = writes.writer
    listed = writer.thread_items

    async def listed_then_changed(ref, limit=100, **kw):  # type: ignore[no-untyped-def]
        items = await listed(ref, limit, **kw)
        other = WorkspaceWriter.open(workspace)  # someone writes t1-4 after the listing
        etag = next(i.etag for i in items if i.id == "t1-4")
        other.set_ttl('["acme","t1"]', "t1-4", 99, etag=etag, now=ANCHOR)
        other.close()
        return items

    monkeypatch.setattr(writer, "thread_items", listed_then_changed)
    outcome = await writes.apply(plan)
    assert outcome.status is WriteStatus.CONFLICT
    assert outcome.done_ids == ("t1-0", "t1-1", "t1-2", "t1-3")  # listed by id: stops at 4
    assert "t1-4 changed after it was listed (412)" in outcome.message
    assert body_of(workspace, "t1-4")["ttl"] == 99
    assert await writer.count_thread(REF) == 3
    lines = audit_lines(isolated_user_dirs)
    assert lines[-2]["outcome"] == "conflict" and lines[-2]["id"] == "t1-4"
    assert lines[-1]["ids"] == ["t1-0", "t1-1", "t1-2", "t1-3"]
    assert lines[-1]["outcome"] == "conflict"
    await session.close()


async def test_erase_stops_at_the_number_confirmed(workspace, clock, isolated_user_dirs):
    session = open_local_session(SessionOptions(workspace=workspace, allow_writes=True), clock)
    writes = session.writes
    assert writes is not None
    plan = await writes.plan_erase(REF)
    # A new turn arrives after the user confirmed 7 items.
    with sqlite3.connect(workspace) as db:
        db.execute(
            "INSERT INTO items SELECT pk, 't1-7', ts, '\"new\"', expires_at, tenant_key, "
            "thread_key, order_rank, 7, size_bytes, replace(body, 't1-0', 't1-7') "
            "FROM items WHERE id = 't1-0'"
        )
    outcome = await writes.apply(plan)
    assert outcome.status is WriteStatus.STOPPED and len(outcome.done_ids) == 7
    assert "more (written since)" in outcome.message
    assert await writes.writer.count_thread(REF) == 1
    await session.close()


async def test_no_audit_log_no_write(workspace, clock, isolated_user_dirs):
    session = open_local_session(SessionOptions(workspace=workspace, allow_writes=True), clock)
    writes = session.writes
    assert writes is not None
    plan = await writes.plan_pin(REF, "t1-1")
    writes.audit.path.parent.mkdir(parents=True, exist_ok=True)
    writes.audit.path.mkdir()  # a directory where the log should be: it cannot be appended
    with pytest.raises(WriteRefused, match=r"audit log .* cannot be written.*nothing was written"):
        await writes.apply(plan)
    assert body_of(workspace, "t1-1")["ttl"] == 3600
    await session.close()


async def test_a_read_only_session_has_no_writer_and_opens_no_writable_handle(workspace, clock):
    session = open_local_session(SessionOptions(workspace=workspace), clock)
    assert session.writes is None and not session.writes_allowed
    schema = session.schema
    await session.close()
    # Built by hand anyway, the writer is refused by the Gateway before it opens the file.
    ws = Workspace.open(workspace)
    try:
        with pytest.raises(WritesNotAllowed, match="read-only"):
            LocalWriter(ws, schema, ledger=RequestLedger(), clock=clock)
    finally:
        ws.close()
    # And a modelled write request is refused, with nothing recorded.
    ledger = RequestLedger()
    with pytest.raises(WritesNotAllowed):
        async with ledger.request("set-ttl", Scope.POINT, write=True):
            raise AssertionError("never reached")
    assert ledger.totals().requests == 0


def test_workspace_writer_refuses_a_wal_workspace(tmp_path):
    path = tmp_path / "wal.sqlite"
    build_workspace(path, [exchange("acme", "t1", 0)], now=ANCHOR)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode = WAL")
    from cosmem_tui.sources.errors import WorkspaceError

    with pytest.raises(WorkspaceError, match="older cosmem"):
        WorkspaceWriter.open(path)
    assert not os.path.exists(str(path) + "-journal")
