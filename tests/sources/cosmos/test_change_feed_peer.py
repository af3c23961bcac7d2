"""The npm Cosmos peer's change feed (shim 10 of ``tests/peer/cosmos-peer.js``): latest
version only, one physical partition, and no scoping by key — so a tenant's or a
thread's read gets the whole container's changes and the store keeps the scope's own.
All versions and deletes is refused as on an account without it: ``FeedUnavailable``,
never an empty tail."""

from __future__ import annotations

from typing import Any

import pytest
from azure.cosmos.aio import CosmosClient

from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.model.changes import ChangeOp, FeedMode, FeedStart, FeedUnavailable
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.sources.cosmos.feed_modes import ALL_VERSIONS_FIX


def _turn(tenant: str, thread: str, index: int, text: str) -> dict[str, Any]:
    return {
        "id": f"{tenant}-{thread}-{index}",
        "tenantId": tenant,
        "threadId": thread,
        "turnIndex": index,
        "messages": [{"role": "user", "content": text}],
    }


async def _drain(store: Any, scope: TtlScope, token: str) -> tuple[list[Any], str]:
    changes: list[Any] = []
    for _ in range(20):
        page = await store.read_changes(scope, mode=FeedMode.LATEST, continuation=token)
        changes.extend(page.changes)
        token = page.continuation
        if page.not_modified:
            return changes, token
    raise AssertionError("the peer's feed never said it was caught up")


async def test_latest_version_from_now_sees_each_write_once(containers, open_store) -> None:
    seeded = await containers([_turn("acme", "t1", 1, "seeded")])
    store = open_store(seeded.settings())
    first = await store.read_changes(TtlScope(), mode=FeedMode.LATEST)
    assert first.changes == () and first.not_modified
    async with CosmosClient(seeded.endpoint, credential=seeded.key) as client:
        writer = client.get_database_client(seeded.database).get_container_client("memory")
        await writer.upsert_item(_turn("acme", "t1", 2, "new"))
        await writer.upsert_item(_turn("globex", "g1", 1, "other"))
        await writer.upsert_item(_turn("acme", "t1", 2, "edited"))  # latest version only
        changes, token = await _drain(store, TtlScope(), first.continuation)
        assert [c.item_id for c in changes] == ["globex-g1-1", "acme-t1-2"]
        assert {c.op for c in changes} == {ChangeOp.WRITE}
        assert changes[1].preview == "edited"
        assert len({c.lsn for c in changes}) == 2  # the shim numbers the writes
        again = await store.read_changes(TtlScope(), mode=FeedMode.LATEST, continuation=token)
        assert again.changes == () and again.not_modified


async def test_from_the_beginning_and_a_scope_the_peer_cannot_scope(containers, open_store) -> None:
    items = [_turn("acme", "t1", i, "a") for i in (1, 2)] + [_turn("acme", "t2", 1, "b")]
    seeded = await containers([*items, _turn("globex", "t1", 1, "same thread id")])
    store = open_store(seeded.settings())
    thread = TtlScope.of_thread(ThreadRef(Key.of("acme"), Key.of("t1")))
    first = await store.read_changes(thread, mode=FeedMode.LATEST, start=FeedStart.beginning())
    rest, _ = await _drain(store, thread, first.continuation)
    ids = sorted(c.item_id for c in (*first.changes, *rest))
    assert ids == ["acme-t1-1", "acme-t1-2"]  # not acme-t2-1, not globex-t1-1
    tenant = TtlScope.of_tenant(Key.of("acme"))
    page = await store.read_changes(tenant, mode=FeedMode.LATEST, start=FeedStart.beginning())
    more, _ = await _drain(store, tenant, page.continuation)
    assert sorted(c.item_id for c in (*page.changes, *more)) == [
        "acme-t1-1",
        "acme-t1-2",
        "acme-t2-1",
    ]


async def test_all_versions_is_refused_with_the_fix(containers, open_store) -> None:
    seeded = await containers([])
    store = open_store(seeded.settings())
    with pytest.raises(FeedUnavailable) as raised:
        await store.read_changes(TtlScope(), mode=FeedMode.ALL_VERSIONS)
    assert raised.value.fix == ALL_VERSIONS_FIX
    assert raised.value.mode is FeedMode.ALL_VERSIONS
