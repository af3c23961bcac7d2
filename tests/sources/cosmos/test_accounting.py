"""Request accounting: what each navigation step costs on the wire, and what the Gateway records.

A spying transport sees every HTTP request the SDK sends. Opening a tenant costs one
request per page (a prefix query), opening a thread one request per page (a
single-partition query), and after the tenant list nothing on the browse path fans
out over every partition.
"""

from __future__ import annotations

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.model import Scope, SystemClock, ThreadRef
from tests.peer.spy import SpyTransport


async def test_every_step_of_a_walk_costs_one_request_per_page(containers, open_store):
    seeded = await containers()
    spy = SpyTransport()
    store = open_store(seeded.settings(), transport=spy)
    service = BrowseService(store, SystemClock())

    tenants = await service.tenants()
    assert [t.name for t in tenants] == ["acme", "globex", "initech"]
    after_tenants = spy.mark()

    # Opening a tenant: its threads come from ONE prefix query, one request per page.
    records_before = len(store.gateway.records())
    threads = await service.threads("globex")
    assert len(threads) == 3
    sent = spy.since(after_tenants)
    queries = [s for s in sent if s.is_query]
    pages = [r for r in store.gateway.records()[records_before:] if r.operation == "list-threads"]
    assert len(queries) == len(pages) == 1
    assert queries[0].epk_range is not None  # routed to the tenant's key-prefix range only
    # The SDK read the partition key ranges once to route the prefix; nothing else.
    assert all(s.is_query or s.path.endswith("/pkranges/") for s in sent)

    # The second tenant opened costs exactly its pages: routing is cached now.
    mark = spy.mark()
    await service.threads("acme")
    assert [s.is_query for s in spy.since(mark)] == [True]

    # Opening a thread: a single-partition query per page, with the full key.
    mark = spy.mark()
    records_before = len(store.gateway.records())
    ref = ThreadRef("acme", "t1")
    first = await service.turns_page(ref, page_size=3)
    second = await service.turns_page(ref, continuation=first.continuation, page_size=3)
    third = await service.turns_page(ref, continuation=second.continuation, page_size=3)
    assert [t.order for t in (*first.turns, *second.turns, *third.turns)] == list(range(7))
    assert third.continuation is None
    sent = spy.since(mark)
    assert len(sent) == 3 and all(s.is_query for s in sent)
    assert {s.partition_key for s in sent} == {'["acme","t1"]'}
    records = store.gateway.records()[records_before:]
    assert [r.scope for r in records] == [Scope.PARTITION] * 3

    # A turn: one point read.
    mark = spy.mark()
    detail = await service.detail(ref, "t1-3")
    assert detail.item.body["embedding"] == [0.5] * 8
    assert [(s.method, s.partition_key) for s in spy.since(mark)] == [("GET", '["acme","t1"]')]

    # Nothing after the tenant list fanned out over every partition.
    assert not [s for s in spy.since(after_tenants) if s.fans_out]


async def test_the_tenant_list_is_the_only_fan_out_and_is_cached(containers, open_store):
    seeded = await containers()
    spy = SpyTransport()
    store = open_store(seeded.settings(), transport=spy)
    await store.list_tenants()
    fan_outs = [s for s in spy.sent if s.fans_out]
    assert len(fan_outs) >= 1
    mark = spy.mark()
    again = await store.list_tenants()  # the names are cached; only prefix counts are re-run
    assert [t.name for t in again] == ["acme", "globex", "initech"]
    assert not [s for s in spy.since(mark) if s.fans_out]


async def test_records_carry_charge_duration_status_activity_and_scope(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings())
    await store.read_item(ThreadRef("acme", "t1"), "t1-0")
    record = store.gateway.records()[-1]
    assert record.operation == "read-item" and record.scope is Scope.POINT
    assert record.status == 200 and record.item_count == 1
    assert record.request_units == 1.0  # the peer charges 1 RU for everything
    assert record.activity_id and len(record.activity_id) == 36
    assert record.duration_ms > 0 and not record.simulated
    kinds = {r.operation: r.scope for r in store.gateway.records()}
    assert kinds["connect"] is Scope.METADATA and kinds["read-container"] is Scope.METADATA
    totals = store.gateway.totals()
    assert totals.requests == len(store.gateway.records())
    assert totals.budget_ru == seeded.settings().ru_budget
