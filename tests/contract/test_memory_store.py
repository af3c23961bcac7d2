"""The MemoryStore contract: every backend gives the same answers for the same items.

Time never comes from the wall clock here: items get their ``_ts`` from the store at
seeding time, and ``backend.advance()`` lets time pass (a frozen clock locally, real
waiting on a live service).
"""

from __future__ import annotations

from typing import Any

import pytest

from cosmem_tui.model import MISSING, Key, Scope, ThreadRef
from cosmem_tui.model.ordering import order_key
from cosmem_tui.schemas import get_schema, turn_from_item
from cosmem_tui.sources.errors import InvalidItemId, NotFound
from cosmem_tui.sources.store import MAX_PAGE_SIZE, MemoryStore
from tests.contract.backends import Backend
from tests.helpers import all_keys, counted, exchange

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


async def test_tenants_are_listed_then_counted_one_by_one(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    keys = await all_keys(store)
    assert keys == [Key.of("acme"), Key.of("globex")]
    before = len(store.ledger.records())
    counts = {key.text: await store.key_counts(key) for key in keys}
    assert {k: (c.threads, c.items) for k, c in counts.items()} == {
        "acme": (2, 7),
        "globex": (1, 5),
    }
    assert all(c.last_activity is not None for c in counts.values())
    # Counting a tenant stays within its key prefix: never a fan-out.
    scopes = {r.scope for r in store.ledger.records()[before:]}
    assert scopes <= {Scope.PREFIX, Scope.METADATA}
    assert (await store.key_counts(Key.of("nobody"))).items == 0


async def test_numeric_and_string_keys_stay_apart(backend: Backend) -> None:
    items = [
        exchange(42, "t1", 0),  # the number 42
        exchange(42, "t1", 1),
        exchange("42", "t1", 0),  # the string "42": another tenant
        exchange("acme", 7, 0),  # a numeric thread id
    ]
    store = await backend.make_store(items, schema=LAB, default_ttl=-1)
    keys = await all_keys(store)
    assert keys == [Key.of(42), Key.of("42"), Key.of("acme")]  # numbers sort before strings
    assert [k.text for k in keys] == ["42", '"42"', "acme"]
    assert (await store.key_counts(Key.of(42))).items == 2
    assert (await store.key_counts(Key.of("42"))).items == 1
    threads = await store.list_threads(Key.of("acme"))
    assert [t.ref.thread for t in threads] == [Key.of(7)]
    ids, _ = await all_turn_ids(store, ThreadRef(Key.of("acme"), Key.of(7)))
    assert ids == ["7-0"]
    ids, _ = await all_turn_ids(store, ThreadRef(Key.of(42), Key.of("t1")))
    assert ids == ["t1-0", "t1-1"]


async def test_a_reload_lists_only_keys_written_since(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    newest = max(
        i.ts for i in (await store.page_turns(ThreadRef.of("acme", "t1"), page_size=100)).items
    )
    assert await all_keys(store, since=newest + 60) == []
    assert Key.of("acme") in await all_keys(store, since=newest - 60)


async def test_threads_of_a_tenant_with_ttl_mix(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    threads = {t.name: t for t in await store.list_threads(Key.of("acme"))}
    assert set(threads) == {"t1", "t2"}
    t1 = threads["t1"]
    assert (t1.items, t1.short_term, t1.long_term) == (5, 3, 2)
    assert t1.ref == ThreadRef.of("acme", "t1")
    assert (threads["t2"].short_term, threads["t2"].long_term) == (2, 0)
    assert store.ledger.records()[-1].scope is Scope.PREFIX
    assert await store.list_threads(Key.of("nobody")) == []


async def test_turns_come_in_cosmos_type_order(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ids, _ = await all_turn_ids(store, ThreadRef.of("globex", "g1"))
    # undefined < null < numbers < strings; the two 5s may tie in either order
    assert ids[:2] == ["g1-a", "g1-b"]
    assert set(ids[2:4]) == {"g1-c", "g1-e"}
    assert ids[4] == "g1-d"
    assert store.ledger.records()[-1].scope is Scope.PARTITION


async def test_paging_returns_every_turn_once_in_order(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ref = ThreadRef.of("acme", "t1")
    whole, pages = await all_turn_ids(store, ref, page_size=MAX_PAGE_SIZE)
    assert whole == ["t1-0", "t1-1", "t1-2", "t1-3", "t1-4"]
    assert pages == 1
    before = len(store.ledger.records())
    paged, pages = await all_turn_ids(store, ref, page_size=2)
    assert paged == whole
    assert 3 <= pages <= 4
    paged_records = [r for r in store.ledger.records()[before:] if r.operation == "turns-page"]
    assert len(paged_records) == pages  # one ledger record per page (one HTTP request)


async def test_newest_first_walks_the_same_order_backwards(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ref = ThreadRef.of("acme", "t1")
    forward, _ = await all_turn_ids(store, ref)
    backward, _ = await all_turn_ids(store, ref, page_size=2, newest_first=True)
    assert backward == list(reversed(forward))


async def test_page_size_is_bounded(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    with pytest.raises(ValueError):
        await store.page_turns(ThreadRef.of("acme", "t1"), page_size=0)
    page = await store.page_turns(ThreadRef.of("acme", "t1"), page_size=MAX_PAGE_SIZE * 10)
    assert len(page.items) == 5


async def test_list_pages_are_projected_but_point_reads_are_whole(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ref = ThreadRef.of("acme", "t1")
    page = await store.page_turns(ref)
    listed = {i.id: i for i in page.items}["t1-1"]
    assert "embedding" not in listed.body
    assert {"id", "turnIndex", "messages", "ttl", "_ts"} <= set(listed.body)
    full = await store.read_item(ref, "t1-1")
    assert full.body["embedding"] == EMBEDDING
    assert {"_ts", "_etag"} <= set(full.body)
    assert full.ts == full.body["_ts"] and full.etag == full.body["_etag"]
    assert store.ledger.records()[-1].scope is Scope.POINT
    turn = turn_from_item(LAB, listed, -1)
    assert [m.role for m in turn.messages] == ["user", "agent"]


async def test_point_read_of_a_missing_item_is_not_found(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    with pytest.raises(NotFound):
        await store.read_item(ThreadRef.of("acme", "t1"), "no-such-id")
    with pytest.raises(NotFound):  # right id, wrong partition
        await store.read_item(ThreadRef.of("acme", "t2"), "t1-0")


@pytest.mark.parametrize("item_id", ["..", "../../..", ".", "a/b", "a\\b", "a?b", "a#b", ""])
async def test_a_point_read_of_an_id_no_url_can_address_is_refused_unsent(
    backend: Backend, item_id: str
) -> None:
    """``..`` would read the container itself, ``a/b`` another path: refused alike on
    every backend, before anything is sent (no ledger record)."""
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    before = len(store.ledger.records())
    with pytest.raises(InvalidItemId, match="refused a point read"):
        await store.read_item(ThreadRef.of("acme", "t1"), item_id)
    assert len(store.ledger.records()) == before


async def test_expired_items_are_invisible_everywhere(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    ref = ThreadRef.of("acme", "t1")
    assert "t1-4" in (await all_turn_ids(store, ref))[0]
    await backend.advance(3)
    ids, _ = await all_turn_ids(store, ref)
    assert "t1-4" not in ids
    with pytest.raises(NotFound):
        await store.read_item(ref, "t1-4")
    threads = {t.name: t for t in await store.list_threads(Key.of("acme"))}
    assert threads["t1"].items == 4
    assert (await store.key_counts(Key.of("acme"))).items == 6


async def test_ttl_off_on_the_container_ignores_item_ttl(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=None)
    await backend.advance(3)
    ids, _ = await all_turn_ids(store, ThreadRef.of("acme", "t1"))
    assert "t1-4" in ids
    threads = {t.name: t for t in await store.list_threads(Key.of("acme"))}
    assert (threads["t1"].short_term, threads["t1"].long_term) == (0, 5)


async def test_container_default_ttl_applies_to_items_without_their_own(backend: Backend) -> None:
    items = [
        exchange("acme", "t1", 0),  # inherits the default: expires
        exchange("acme", "t1", 1, ttl=-1),  # never
        exchange("acme", "t1", 2, ttl=3600),  # its own, longer ttl
    ]
    store = await backend.make_store(items, schema=LAB, default_ttl=2)
    await backend.advance(3)
    ids, _ = await all_turn_ids(store, ThreadRef.of("acme", "t1"))
    assert ids == ["t1-1", "t1-2"]


async def test_a_schema_without_tenant_level(backend: Backend) -> None:
    items = [exchange(None, "x1", i) for i in range(3)] + [exchange(None, "x2", 0, ttl=60)]
    store = await backend.make_store(items, schema=THREAD, default_ttl=-1)
    assert await all_keys(store) == [Key.of("x1"), Key.of("x2")]
    counts = await counted(store)
    assert {n: c.items for n, c in counts.items()} == {"x1": 3, "x2": 1}
    assert (counts["x2"].short_term, counts["x2"].long_term) == (1, 0)
    assert store.ledger.records()[-1].scope is Scope.PARTITION  # one thread, one partition
    ids, _ = await all_turn_ids(store, ThreadRef.of(None, "x1"))
    assert ids == ["x1-0", "x1-1", "x1-2"]
    item = await store.read_item(ThreadRef.of(None, "x2"), "x2-0")
    assert item.body["ttl"] == 60


async def test_every_request_is_charged_through_the_ledger(backend: Backend) -> None:
    store = await backend.make_store(lab_items(), schema=LAB, default_ttl=-1)
    await all_keys(store)
    await store.list_threads(Key.of("acme"))
    await store.page_turns(ThreadRef.of("acme", "t1"))
    await store.read_item(ThreadRef.of("acme", "t1"), "t1-0")
    records = [r for r in store.ledger.records() if r.scope is not Scope.METADATA]
    operations = [o for i, o in enumerate(r.operation for r in records) if i == 0 or
                  o != records[i - 1].operation]  # fmt: skip
    assert operations == ["list-keys", "list-threads", "turns-page", "read-item"]
    records = [r for r in records if r.status == 200]
    assert all(r.request_units > 0 and r.status == 200 for r in records)
    assert all(r.simulated == store.simulated for r in records)
    totals = store.ledger.totals()
    assert totals.requests >= 4
    assert totals.request_units >= sum(r.request_units for r in records)


async def test_sample_shapes_measure_items_without_returning_them(backend: Backend) -> None:
    """The advisor's sample: sizes, vectors (top level and nested), messages and ttl,
    measured by the store, the same on every backend."""
    nested = [{"role": "user", "content": "hi", "embedding": EMBEDDING}]
    items = [
        *lab_items(),
        exchange("acme", "t3", 0, ttl="3600", messages=nested),
        exchange("acme", "t3", 1, vector=["not", "numbers"]),
    ]
    store = await backend.make_store(items, schema=LAB, default_ttl=-1)
    shapes = await store.sample_shapes(50, max_request_units=1000)
    by_id = {s.id: s for s in shapes}
    assert set(by_id) == {i["id"] for i in items}  # every visible item, each once
    assert by_id["t1-1"].vectors == (("/embedding", 4),)
    assert by_id["t3-0"].vectors == (("/messages/0/embedding", 4),)
    assert by_id["t3-1"].vectors == ()  # an array of strings is no embedding
    assert by_id["t1-0"].ttl == 3600 and by_id["t1-2"].ttl is MISSING
    assert by_id["t3-0"].ttl == "3600"  # kept as stored: a string stays a string
    assert by_id["t1-0"].partition_key == ("acme", "t1")
    assert by_id["t1-0"].messages == 2 and by_id["g1-a"].created == "2026-11-29T10:00:00Z"
    assert by_id["t1-3"].kind == "summary" and by_id["t1-0"].kind is MISSING
    sizes = {i: s.size for i, s in by_id.items()}
    assert all(size is not None and 200 < size < 2000 for size in sizes.values())
    assert (sizes["t1-1"] or 0) > (sizes["t1-0"] or 0)  # the embedding counts in its size
    assert all(r.operation == "sample-shapes" for r in store.ledger.records()[-1:])
    capped = await store.sample_shapes(3, max_request_units=1000)
    assert len(capped) == 3


def test_order_key_follows_cosmos_type_order() -> None:
    values = [MISSING, None, False, True, -1, 2.5, 3, "", "a", [1], {"a": 1}]
    assert [order_key(v)[0] for v in values] == sorted(order_key(v)[0] for v in values)
