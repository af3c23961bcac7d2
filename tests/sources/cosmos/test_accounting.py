"""Request accounting: what each navigation step costs on the wire, and what the ledger records.

A spying transport sees every HTTP request the SDK sends. Listing keys costs requests
per physical partition, counting a key a few index-served requests scoped to it,
opening a tenant one prefix query per page, opening a thread one single-partition
query per page — and nothing ever fans out blindly over every partition.
"""

from __future__ import annotations

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.model import Key, Kind, Scope, SystemClock, ThreadRef
from tests.helpers import all_keys
from tests.peer.spy import SpyTransport


async def test_every_step_of_a_walk_costs_one_request_per_page(containers, open_store):
    seeded = await containers()
    spy = SpyTransport()
    store = open_store(seeded.settings(), transport=spy)
    service = BrowseService(store, SystemClock())

    assert [k.text for k in await all_keys(store)] == ["acme", "globex", "initech"]
    after_keys = spy.mark()

    # Counting one tenant: index-served aggregates inside its key prefix.
    counts = await store.key_counts(Key.of("globex"))
    assert (counts.items, counts.threads) == (6, 3)
    assert all(s.epk_range is not None for s in spy.since(after_keys) if s.is_query)

    # Opening a tenant: its threads from one prefix query per page (the peer has no
    # GROUP BY: the first tenant also pays the one refused grouped query).
    await service.threads(Key.of("globex"))
    mark = spy.mark()
    records_before = len(store.ledger.records())
    threads = await service.threads(Key.of("acme"))
    assert len(threads) == 2
    sent = spy.since(mark)
    pages = [r for r in store.ledger.records()[records_before:] if r.kind is Kind.QUERY]
    assert [s.is_query for s in sent] == [True] and len(pages) == 1
    assert sent[0].epk_range is not None  # routed to the tenant's key-prefix range only

    # Opening a thread: a single-partition query per page, with the full key.
    mark = spy.mark()
    records_before = len(store.ledger.records())
    ref = ThreadRef.of("acme", "t1")
    first = await service.turns_page(ref, page_size=3)
    second = await service.turns_page(ref, continuation=first.continuation, page_size=3)
    third = await service.turns_page(ref, continuation=second.continuation, page_size=3)
    assert [t.order for t in (*first.turns, *second.turns, *third.turns)] == list(range(7))
    assert third.continuation is None
    sent = spy.since(mark)
    assert len(sent) == 3 and all(s.is_query for s in sent)
    assert {s.partition_key for s in sent} == {'["acme","t1"]'}
    records = [r for r in store.ledger.records()[records_before:] if r.kind is Kind.QUERY]
    assert [r.scope for r in records] == [Scope.PARTITION] * 3

    # A turn: one point read.
    mark = spy.mark()
    detail = await service.detail(ref, "t1-3")
    assert detail.item.body["embedding"] == [0.5] * 8
    assert [(s.method, s.partition_key) for s in spy.since(mark)] == [("GET", '["acme","t1"]')]

    # Nothing, at any step, fanned out blindly over every partition.
    assert not [s for s in spy.sent if s.fans_out]


async def test_key_names_are_listed_per_range_and_cached_on_disk(containers, open_store, tmp_path):
    seeded = await containers()
    spy = SpyTransport()
    store = open_store(seeded.settings(), transport=spy)
    clock = SystemClock()
    first = KeyDirectory(store, clock, tmp_path)
    listing = await first.list()
    assert listing.complete and [k.text for k in listing.keys] == ["acme", "globex", "initech"]
    assert all(s.range_id is not None for s in spy.sent if s.is_query)  # one range at a time
    # Another session: the names come from the cache, with their age, at no cost.
    mark = spy.mark()
    again = KeyDirectory(store, clock, tmp_path)
    cached = again.cached()
    assert cached is not None and cached.from_cache and cached.keys == listing.keys
    assert spy.since(mark) == []
    # Its refresh asks only for keys written since the cache was made.
    refreshed = await again.list()
    assert refreshed.keys == listing.keys and not refreshed.from_cache
    since = [s for s in spy.since(mark) if s.is_query]
    assert since and all(s.range_id is not None for s in since)


async def test_records_carry_charge_duration_status_activity_and_scope(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings())
    await store.read_item(ThreadRef.of("acme", "t1"), "t1-0")
    record = store.ledger.records()[-1]
    assert record.operation == "read-item" and record.scope is Scope.POINT
    assert record.kind is Kind.POINT and record.attempt == 1 and record.call > 0
    assert record.status == 200 and record.item_count == 1
    assert record.request_units == 1.0  # the peer charges 1 RU for everything
    assert record.activity_id and len(record.activity_id) == 36
    assert record.duration_ms > 0 and not record.simulated and record.at > 0
    kinds = {(r.operation, r.kind) for r in store.ledger.records()}
    assert ("read-container", Kind.METADATA) in kinds  # the account and the container
    totals = store.ledger.totals()
    assert totals.requests == len(store.ledger.records())
    assert totals.budget_ru == seeded.settings().ru_budget
