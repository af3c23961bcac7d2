"""Guarded writes on the Cosmos peer, the guards that refuse them, and the advisor's sample.

A session is opened the way the console opens one (``open_cosmos_session``), through a
spying transport that sees every HTTP request. The "other writer" is the seeding
client, a separate SDK client, as another application would be.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from azure.core.pipeline.transport import AioHttpTransport

from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.model import Kind, Scope, SystemClock, ThreadRef
from cosmem_tui.model.writes import WriteStatus
from cosmem_tui.sources.cosmos.writer import CosmosWriter
from cosmem_tui.sources.errors import WritesNotAllowed
from tests.helpers import exchange
from tests.peer.seeding import seeding_client
from tests.peer.spy import SpyTransport

REF = ThreadRef.of("acme", "t1")
WRITE_VERBS = {"PUT", "PATCH", "DELETE"}


def writes_sent(spy: SpyTransport) -> list[Any]:
    """Requests that change data: PUT/PATCH/DELETE, or a POST that is not a query."""
    return [
        s
        for s in spy.sent
        if s.method in WRITE_VERBS
        or (
            s.method == "POST"
            and not s.is_query
            and s.headers.get("x-ms-cosmos-is-query-plan-request") is None
        )
    ]


def audit_lines(isolated_user_dirs: Path) -> list[dict[str, Any]]:
    path = isolated_user_dirs / "data" / "cosmem" / "audit.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


async def session_on(seeded: Any, tmp_path: Path, spy: Any, *, allow_writes: bool) -> Any:
    return await open_cosmos_session(
        seeded.settings(),
        "lab",
        SystemClock(),
        tmp_path / "schemas",
        transport=spy,
        allow_writes=allow_writes,
    )


async def test_pin_on_the_peer_patches_if_match_and_audits(
    containers, tmp_path, isolated_user_dirs
):
    seeded = await containers()
    spy = SpyTransport()
    session = await session_on(seeded, tmp_path, spy, allow_writes=True)
    try:
        writes = session.writes
        plan = await writes.plan_pin(REF, "t1-2")
        mark = spy.mark()
        outcome = await writes.apply(plan)
        assert outcome.status is WriteStatus.DONE and outcome.done_ids == ("t1-2",)
        (patch,) = spy.since(mark)
        assert patch.method == "PATCH" and patch.headers["if-match"] == plan.changes[0].etag
        assert patch.partition_key == '["acme","t1"]'
        item = await session.store.read_item(REF, "t1-2")
        assert item.body["ttl"] == -1 and item.etag != plan.changes[0].etag
        (record,) = [r for r in session.ledger.records() if r.kind is Kind.WRITE]
        assert (record.operation, record.scope, record.status) == ("set-ttl", Scope.POINT, 200)
        intent, line = audit_lines(isolated_user_dirs)
        assert intent["event"] == "intent" and intent["id"] == line["id"]
        assert line["who"] == "account key" and line["account"] == seeded.settings().account
        assert line["container"].endswith(f"/{seeded.database}/memory")
        assert (line["before_ttl"], line["after_ttl"], line["status"]) == (3600, -1, 200)
        assert line["etag_after"] == item.etag and line["request_units"] == 1.0
    finally:
        await session.close()


async def test_a_change_between_read_and_write_is_a_412_and_nothing_is_overwritten(
    containers, tmp_path, isolated_user_dirs
):
    seeded = await containers()
    session = await session_on(seeded, tmp_path, SpyTransport(), allow_writes=True)
    other = seeding_client(seeded.endpoint, seeded.key)
    try:
        writes = session.writes
        plan = await writes.plan_ttl(REF, "t1-3", 86_400)
        container = other.get_database_client(seeded.database).get_container_client("memory")
        await container.upsert_item(exchange("acme", "t1", 3, ttl=120))  # another writer
        outcome = await writes.apply(plan)
        assert outcome.status is WriteStatus.CONFLICT and outcome.done_ids == ()
        assert "412" in outcome.message and "nothing was written" in outcome.message
        assert (await session.store.read_item(REF, "t1-3")).body["ttl"] == 120
        intent, line = audit_lines(isolated_user_dirs)
        assert intent["event"] == "intent" and intent["id"] == line["id"]
        assert line["outcome"] == "conflict" and line["status"] == 412
    finally:
        await other.close()
        await session.close()


async def test_erase_on_the_peer_deletes_each_item_if_match_single_partition(
    containers, tmp_path, isolated_user_dirs
):
    seeded = await containers()
    spy = SpyTransport()
    session = await session_on(seeded, tmp_path, spy, allow_writes=True)
    try:
        writes = session.writes
        writes.erase_page = 3
        plan = await writes.plan_erase(REF)
        assert plan.items == 7
        mark = spy.mark()
        outcome = await writes.apply(plan)
        assert outcome.status is WriteStatus.DONE and len(outcome.done_ids) == 7
        sent = spy.since(mark)
        deletes = [s for s in sent if s.method == "DELETE"]
        assert len(deletes) == 7 and all(s.headers.get("if-match") for s in deletes)
        queries = [s for s in sent if s.is_query]
        assert queries and {s.partition_key for s in queries} == {'["acme","t1"]'}
        assert not [s for s in sent if s.fans_out]
        assert await writes.writer.count_thread(REF) == 0
        assert await writes.writer.count_thread(ThreadRef.of("acme", "t2")) == 3
        lines = audit_lines(isolated_user_dirs)
        assert sorted(lines[-1]["ids"]) == sorted(f"t1-{i}" for i in range(7))
    finally:
        await session.close()


async def test_a_read_only_session_cannot_write_at_all(containers, tmp_path):
    seeded = await containers()
    spy = SpyTransport()
    session = await session_on(seeded, tmp_path, spy, allow_writes=False)
    try:
        assert session.writes is None and not session.writes_allowed
        store = session.store
        # The Gateway refuses a writer, and any write-declared call, before a request.
        with pytest.raises(WritesNotAllowed, match="read-only"):
            CosmosWriter(store._account, store.schema, store.container_properties)

        async def never() -> None:
            raise AssertionError("a refused write must not run")

        with pytest.raises(WritesNotAllowed):
            await store._calls.call("set-ttl", Scope.POINT, "t1-1", never, write=True)
        # The wire guard: an SDK write inside a read call never reaches the wire.
        container = store._calls.container

        async def sneak() -> Any:
            return await container.upsert_item(exchange("acme", "t1", 1, ttl=5))

        with pytest.raises(WritesNotAllowed, match="refused to send POST"):
            await store._calls.call("read-item", Scope.POINT, "t1-1", sneak)
        assert writes_sent(spy) == []  # the SDK's own account reads may go out, nothing else
        assert (await store.read_item(REF, "t1-1")).body["ttl"] == 3600
    finally:
        await session.close()


async def test_even_with_writes_allowed_only_declared_writes_reach_the_wire(containers, tmp_path):
    seeded = await containers()
    spy = SpyTransport()
    session = await session_on(seeded, tmp_path, spy, allow_writes=True)
    try:
        calls = session.store._calls
        mark = spy.mark()

        async def sneak() -> Any:
            return await calls.container.delete_item("t1-1", partition_key=["acme", "t1"])

        with pytest.raises(WritesNotAllowed, match="refused to send DELETE"):
            await calls.call("read-item", Scope.POINT, "t1-1", sneak)
        assert not [s for s in spy.since(mark) if s.method == "DELETE"]
    finally:
        await session.close()


class SizeSpy(AioHttpTransport):
    """Remembers the body size of every query answer."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.query_bytes: list[int] = []

    async def send(self, request: Any, **kwargs: Any) -> Any:
        response = await super().send(request, **kwargs)
        if request.headers.get("x-ms-documentdb-isquery"):
            await response.load_body()
            self.query_bytes.append(len(response.body()))
        return response


async def test_the_advisor_sample_measures_embeddings_without_reading_them(containers, open_store):
    big = [0.123456] * 1536  # ~12 KB of JSON per item
    nested = [{"role": "user", "content": "hi", "embedding": big}]
    items = [exchange("acme", "t1", i, embedding=big) for i in range(6)]
    items += [exchange("acme", "t2", i, messages=nested) for i in range(3)]
    seeded = await containers(items)
    spy = SizeSpy()
    store = open_store(seeded.settings(), transport=spy)
    shapes = await store.sample_shapes(50, max_request_units=100)
    assert len(shapes) == 9
    by_id = {s.id: s for s in shapes}
    assert by_id["t1-0"].vectors == (("/embedding", 1536),)
    assert by_id["t2-0"].vectors == (("/messages/0/embedding", 1536),)
    assert all(s.size is not None and s.size > 10_000 for s in shapes)  # measured there
    assert by_id["t1-0"].partition_key == ("acme", "t1")
    # Nine items of 12 KB and more, and the answer is a fraction of one of them.
    assert spy.query_bytes and max(spy.query_bytes) < 6_000
