"""The MemoryStore contract: every backend gives the same answers for the same items.

Time never comes from the wall clock here: items get their ``_ts`` from the store at
seeding time, and ``backend.advance()`` lets time pass (a frozen clock locally, real
waiting on a live service).
"""

from __future__ import annotations

from typing import Any

import pytest

from cosmem_tui.model import MISSING, Scope, ThreadRef
from cosmem_tui.model.ordering import order_key
from cosmem_tui.profiles import get_schema, turn_from_item
from cosmem_tui.sources.errors import NotFound
from cosmem_tui.sources.store import MAX_PAGE_SIZE, MemoryStore
from tests.contract.backends import Backend
from tests.helpers import exchange

LAB = get_schema("lab")
THREAD = get_schema("thread")
EMBEDDING = [0.1, 0.2, 0.3, 0.4]


def lab_items() -> list[dict[str, Any]]:
    return [
        exchange("acme", "t1", 0, ttl=3600),
        exchange("acme", "t1", 1, ttl=3600, embedding=EMBEDDING),
        exchange("acme", "t1", 2),  # no ttl: the container default (-1) keeps it
        exchange("acme", "t1", 3, ttl=-1, type="summary"),
        exchange("acme", "t1", 4, ttl=2),  # expires once two seconds pass
        exchange("acme", "t2", 0, ttl=3600),
        exchange("acme", "t2", 1, ttl=3600),
        {**exchange("globex", "g1", None), "id": "g1-a"},  # turnIndex undefined
        {**exchange("globex", "g1", None), "id": "g1-b", "turnIndex": None},
        {**exchange("globex", "g1", 5), "id": "g1-c"},
        {**exchange("globex", "g1", "2"), "id": "g1-d"},  # a string sorts after numbers
        {**exchange("globex", "g1", 5), "id": "g1-e"},
    ]


async def all_turn_ids(
    store: MemoryStore, ref: ThreadRef, *, page_size: int = 100, newest_first: bool = False
) -> tuple[list[str], int]:
    ids: list[str] = []
    continuation = None
    pages = 0
    while True:
        page = await store.page_turns(
            ref, continuation=continuation, page_size=page_size, newest_first=newest_first
        )
        pages += 1
        ids.extend(i.id for i in page.items)
        continuation = page.continuation
        if continuation is None:
            return ids, pages


async def test_container_properties(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    props = await store.container_properties()
    assert props.partition_key.paths == ("/tenantId", "/threadId")
    assert props.partition_key.hierarchical
    assert props.default_ttl == -1


async def test_tenants_with_counts(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    before = len(store.gateway.records())
    tenants = await store.list_tenants()
    assert [(t.name, t.threads, t.items) for t in tenants] == [("acme", 2, 7), ("globex", 1, 5)]
    assert all(t.last_activity is not None for t in tenants)
    # Listing tenants is a fan-out; a backend may then count each tenant within its key
    # prefix (Cosmos has no cross-partition GROUP BY), but never fan out again to do so.
    scopes = [r.scope for r in store.gateway.records()[before:] if r.operation == "list-tenants"]
    assert Scope.CROSS_PARTITION in scopes
    assert set(scopes) <= {Scope.CROSS_PARTITION, Scope.PREFIX}


async def test_threads_of_a_tenant_with_ttl_mix(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    threads = {t.name: t for t in await store.list_threads("acme")}
    assert set(threads) == {"t1", "t2"}
    t1 = threads["t1"]
    assert (t1.items, t1.short_term, t1.long_term) == (5, 3, 2)
    assert t1.ref == ThreadRef("acme", "t1")
    assert (threads["t2"].short_term, threads["t2"].long_term) == (2, 0)
    assert store.gateway.records()[-1].scope is Scope.PREFIX
    assert await store.list_threads("nobody") == []


async def test_turns_come_in_cosmos_type_order(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ids, _ = await all_turn_ids(store, ThreadRef("globex", "g1"))
    # undefined < null < numbers < strings; the two 5s may tie in either order
    assert ids[:2] == ["g1-a", "g1-b"]
    assert set(ids[2:4]) == {"g1-c", "g1-e"}
    assert ids[4] == "g1-d"
    assert store.gateway.records()[-1].scope is Scope.PARTITION


async def test_paging_returns_every_turn_once_in_order(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ref = ThreadRef("acme", "t1")
    whole, pages = await all_turn_ids(store, ref, page_size=MAX_PAGE_SIZE)
    assert whole == ["t1-0", "t1-1", "t1-2", "t1-3", "t1-4"]
    assert pages == 1
    before = len(store.gateway.records())
    paged, pages = await all_turn_ids(store, ref, page_size=2)
    assert paged == whole
    assert 3 <= pages <= 4
    assert len(store.gateway.records()) - before == pages  # one gateway record per page


async def test_newest_first_walks_the_same_order_backwards(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ref = ThreadRef("acme", "t1")
    forward, _ = await all_turn_ids(store, ref)
    backward, _ = await all_turn_ids(store, ref, page_size=2, newest_first=True)
    assert backward == list(reversed(forward))


async def test_page_size_is_bounded(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    with pytest.raises(ValueError):
        await store.page_turns(ThreadRef("acme", "t1"), page_size=0)
    page = await store.page_turns(ThreadRef("acme", "t1"), page_size=MAX_PAGE_SIZE * 10)
    assert len(page.items) == 5


async def test_list_pages_are_projected_but_point_reads_are_whole(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ref = ThreadRef("acme", "t1")
    page = await store.page_turns(ref)
    listed = {i.id: i for i in page.items}["t1-1"]
    assert "embedding" not in listed.body
    assert {"id", "turnIndex", "messages", "ttl", "_ts"} <= set(listed.body)
    full = await store.read_item(ref, "t1-1")
    assert full.body["embedding"] == EMBEDDING
    assert {"_ts", "_etag"} <= set(full.body)
    assert full.ts == full.body["_ts"] and full.etag == full.body["_etag"]
    assert store.gateway.records()[-1].scope is Scope.POINT
    turn = turn_from_item(LAB, listed, -1)
    assert [m.role for m in turn.messages] == ["user", "agent"]


async def test_point_read_of_a_missing_item_is_not_found(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    with pytest.raises(NotFound):
        await store.read_item(ThreadRef("acme", "t1"), "no-such-id")
    with pytest.raises(NotFound):  # right id, wrong partition
        await store.read_item(ThreadRef("acme", "t2"), "t1-0")


async def test_expired_items_are_invisible_everywhere(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ref = ThreadRef("acme", "t1")
    assert "t1-4" in (await all_turn_ids(store, ref))[0]
    await backend.advance(3)
    ids, _ = await all_turn_ids(store, ref)
    assert "t1-4" not in ids
    with pytest.raises(NotFound):
        await store.read_item(ref, "t1-4")
    threads = {t.name: t for t in await store.list_threads("acme")}
    assert threads["t1"].items == 4
    tenants = {t.name: t for t in await store.list_tenants()}
    assert tenants["acme"].items == 6


async def test_ttl_off_on_the_container_ignores_item_ttl(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=None)
    await backend.advance(3)
    ids, _ = await all_turn_ids(store, ThreadRef("acme", "t1"))
    assert "t1-4" in ids
    threads = {t.name: t for t in await store.list_threads("acme")}
    assert (threads["t1"].short_term, threads["t1"].long_term) == (0, 5)


async def test_container_default_ttl_applies_to_items_without_their_own(backend: Backend) -> None:
    items = [
        exchange("acme", "t1", 0),  # inherits the default: expires
        exchange("acme", "t1", 1, ttl=-1),  # never
        exchange("acme", "t1", 2, ttl=3600),  # its own, longer ttl
    ]
    store = await backend.make_store(items, schema=LAB, default_ttl=2)
    await backend.advance(3)
    ids, _ = await all_turn_ids(store, ThreadRef("acme", "t1"))
    assert ids == ["t1-1", "t1-2"]


async def test_a_schema_without_tenant_level(backend: Backend) -> None:
    items = [exchange(None, "x1", i) for i in range(3)] + [exchange(None, "x2", 0, ttl=60)]
    store = await backend.make_store(items, schema=THREAD, default_ttl=-1)
    threads = {t.name: t for t in await store.list_threads(None)}
    assert {n: t.items for n, t in threads.items()} == {"x1": 3, "x2": 1}
    assert threads["x2"].ref == ThreadRef(None, "x2")
    assert store.gateway.records()[-1].scope is Scope.CROSS_PARTITION
    ids, _ = await all_turn_ids(store, ThreadRef(None, "x1"))
    assert ids == ["x1-0", "x1-1", "x1-2"]
    item = await store.read_item(ThreadRef(None, "x2"), "x2-0")
    assert item.body["ttl"] == 60


async def test_every_request_is_charged_through_the_gateway(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    await store.list_tenants()
    await store.list_threads("acme")
    await store.page_turns(ThreadRef("acme", "t1"))
    await store.read_item(ThreadRef("acme", "t1"), "t1-0")
    records = store.gateway.records()[-4:]
    assert [r.operation for r in records] == [
        "list-tenants",
        "list-threads",
        "turns-page",
        "read-item",
    ]
    assert all(r.request_units > 0 and r.status == 200 for r in records)
    assert all(r.simulated == store.simulated for r in records)
    totals = store.gateway.totals()
    assert totals.requests >= 4
    assert totals.request_units >= sum(r.request_units for r in records)


def test_order_key_follows_cosmos_type_order() -> None:
    values = [MISSING, None, False, True, -1, 2.5, 3, "", "a", [1], {"a": 1}]
    assert [order_key(v)[0] for v in values] == sorted(order_key(v)[0] for v in values)
