"""The Cosmos backend at the shape of a real account, on the fake Cosmos server (tests/fake_cosmos).

Several physical partition key ranges, a tenant split across two of them, numeric keys,
ties in the order field, charges that grow with the work, 429 storms, hung answers:
what the one-range npm peer cannot show. Each test pins one defect of the browse path
that a real account exposed.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.core.turn_window import Side, TurnWindow
from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.listing import Strategy
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from cosmem_tui.sources.errors import RequestTimedOut
from tests.conftest import ANCHOR
from tests.fake_cosmos import Fault
from tests.helpers import all_keys, exchange

LAB = get_schema("lab")
SPLIT = "tenant-00042"  # the tenant whose key prefix straddles a range boundary


def tenants(count: int, items_each: int = 2) -> list[dict[str, Any]]:
    return [
        exchange(f"tenant-{n:05d}", f"t{i % 2}", i) for n in range(count) for i in range(items_each)
    ]


@pytest.fixture
async def account(fake_cosmos) -> AsyncIterator[Callable[..., CosmosStore]]:
    """A lab container on the fake Cosmos server, seeded; returns a factory of product stores."""
    stores: list[CosmosStore] = []

    def make(
        items: list[dict[str, Any]],
        *,
        ranges: int = 4,
        split: list[list[str]] | None = None,
        strategy: Strategy = Strategy.AUTO,
        **settings: Any,
    ) -> CosmosStore:
        name = f"memory{len(stores)}"
        fake_cosmos.create_container(
            "db",
            name,
            partition_key=["/tenantId", "/threadId"],
            ranges=ranges,
            split_inside=split or [],
            default_ttl=-1,
        )
        fake_cosmos.seed("db", name, items)
        store = CosmosStore.open(
            CosmosSettings(
                endpoint=fake_cosmos.endpoint,
                database="db",
                container=name,
                auth=AuthMode.KEY,
                key=fake_cosmos.key,
                **settings,
            ),
            LAB,
            key_strategy=strategy,
        )
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()


async def test_every_tenant_is_listed_once_over_four_ranges(account, fake_cosmos):
    store = account(tenants(3000), split=[[SPLIT]], ru_budget=5000)
    assert len(fake_cosmos.ranges_of_prefix("db", "memory0", [SPLIT])) == 2  # really split
    keys = await all_keys(store)
    assert len(set(keys)) == 3000  # every tenant: not the 1,000 of a cross-partition DISTINCT
    # Each range lists its own keys: the split tenant is in two of them, nothing else twice.
    assert [k for k, n in Counter(keys).items() if n > 1] == [Key.of(SPLIT)]
    assert keys[0] == Key.of("tenant-00000") and keys[-1] == Key.of("tenant-02999")
    listing = await KeyDirectory(store, FrozenClock(ANCHOR)).list()
    assert listing.complete and len(listing.keys) == 3000  # the directory merges ranges
    ranges = {e.range_id for e in fake_cosmos.log.queries()}
    assert len(ranges) == 4  # one range at a time, every range
    assert not fake_cosmos.log.of("query-plan")  # no query plan: nothing cross-partition
    # The split tenant: counted across both of its ranges, its threads once each.
    counts = await store.key_counts(Key.of(SPLIT))
    assert (counts.items, counts.threads) == (2, 2)
    threads = await store.list_threads(Key.of(SPLIT))
    assert sorted(t.name for t in threads) == ["t0", "t1"]


async def test_the_loose_index_scan_lists_the_same_keys(account):
    items = [*tenants(300), exchange(42, "t0", 0), exchange(7, "t0", 0)]
    store = account(items, split=[[SPLIT]], strategy=Strategy.SEEK, ru_budget=5000)
    keys = await all_keys(store)
    assert keys[:2] == [Key.of(7), Key.of(42)]  # numbers before strings, typed
    assert len(set(keys)) == 302 and len(keys) == 303  # the split tenant, from both ranges


async def test_a_resumed_listing_neither_loses_nor_repeats_a_key(account):
    store = account(tenants(6000), split=[[SPLIT]], ru_budget=50_000)
    seen: list[Key] = []
    cursor = None
    pages = 0
    while True:  # every page resumed from the cursor alone, as after a restart
        page = await store.list_keys(cursor)
        seen.extend(page.keys)
        pages += 1
        cursor = page.cursor
        if cursor is None:
            break
    assert pages > 4 and len(set(seen)) == 6000  # more than one page per range
    assert len(seen) == 6001  # the split tenant, once from each of its two ranges


async def test_the_budget_covers_the_tenant_list_and_its_counts(account):
    store = account(tenants(900, items_each=4), strategy=Strategy.SEEK, ru_budget=60)
    directory = KeyDirectory(store, FrozenClock(ANCHOR))
    listing = await directory.list()
    ledger = store.ledger
    # No confirmer (a headless pipe): the listing stops at the budget and says so.
    assert not listing.complete and listing.stopped is not None and listing.needed_ru
    assert ledger.spent_ru <= 60 + ledger.estimate_ru("list-keys")
    requests = ledger.totals().requests
    # Counts are background work: they stop quietly, asking nobody, spending nothing more.
    states = await directory.count_all(listing.keys[:20])
    assert all(s.error == "budget spent" for s in states.values())
    assert ledger.totals().requests == requests


async def test_numeric_tenants_and_threads_browse(account):
    store = account([exchange(42, 7, i) for i in range(3)] + [exchange("42", "7", 0)])
    assert await all_keys(store) == [Key.of(42), Key.of("42")]
    assert (await store.key_counts(Key.of(42))).items == 3
    assert (await store.key_counts(Key.of("42"))).items == 1
    threads = await store.list_threads(Key.of(42))
    assert [t.ref for t in threads] == [ThreadRef(Key.of(42), Key.of(7))]
    service = BrowseService(store, FrozenClock(ANCHOR))
    turns = [t async for t in service.iter_turns(threads[0].ref)]
    assert [t.order for t in turns] == [0, 1, 2]
    assert await service.resolve("42", "7") == ThreadRef(Key.of(42), Key.of(7))
    assert await service.resolve('"42"', '"7"') == ThreadRef(Key.of("42"), Key.of("7"))


async def test_tied_turns_paged_from_both_ends_appear_once_each(account):
    # Twelve turns, ten sharing one order value: the service orders ties the same way
    # in both directions (by _rid), so the newest-first walk is not the reverse.
    items = [exchange("acme", "t1", 0, id=f"a{n}") for n in range(10)]
    items += [exchange("acme", "t1", -1, id="first"), exchange("acme", "t1", 1, id="last")]
    store = account(items)
    service = BrowseService(store, FrozenClock(ANCHOR))
    ref = ThreadRef.of("acme", "t1")
    window = TurnWindow(ref, 12)
    window.apply(Side.HEAD, await service.turns_page(ref, page_size=3))
    window.apply(Side.TAIL, await service.turns_page(ref, page_size=3, newest_first=True))
    while not window.complete:
        side = Side.HEAD if window.can_fetch(Side.HEAD) else Side.TAIL
        newest = side is Side.TAIL
        page = await service.turns_page(
            ref, continuation=window.continuation(side), page_size=3, newest_first=newest
        )
        window.apply(side, page)
    ids = [window.get(i).item_id for i in range(len(window))]  # type: ignore[union-attr]
    assert len(ids) == 12 and len(set(ids)) == 12
    assert ids[0] == "first" and ids[-1] == "last"


async def test_a_hung_server_fails_at_the_deadline(account, fake_cosmos):
    store = account(tenants(5), timeout_s=1.0)
    await store.container_properties()
    fake_cosmos.faults.add(Fault(status=None, hang=True, kind="query"))
    started = time.monotonic()
    with pytest.raises(RequestTimedOut):
        await store.page_turns(ThreadRef.of("tenant-00001", "t0"))
    assert time.monotonic() - started < 3.5  # 1 s deadline: not 4 s (per-call timeout), not 92 s
    record = store.ledger.records()[-1]
    assert (record.operation, record.outcome) == ("turns-page", "no answer")


async def test_a_cancelled_request_is_recorded_as_cancelled(account, fake_cosmos):
    store = account(tenants(5))
    await store.container_properties()
    fake_cosmos.faults.add(Fault(status=None, hang=True, kind="query"))
    task = asyncio.ensure_future(store.page_turns(ThreadRef.of("tenant-00001", "t0")))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    record = store.ledger.records()[-1]
    assert record.cancelled and record.outcome == "cancelled" and record.status == 0
    assert store.ledger.totals().cancelled == 1


async def test_a_half_throttled_listing_costs_about_two_attempts_per_page(account, fake_cosmos):
    items = [exchange("acme", "long", i) for i in range(400)]
    store = account(items, ru_budget=10_000)
    await store.container_properties()
    fake_cosmos.log.clear()
    fake_cosmos.faults.storm(0.5, seed=7, kind="query", retry_after_ms=5)
    service = BrowseService(store, FrozenClock(ANCHOR))
    turns = [t async for t in service.iter_turns(ThreadRef.of("acme", "long"), page_size=10)]
    assert [t.order for t in turns] == list(range(400))  # complete, despite the storm
    sent = fake_cosmos.log.queries()
    pages = 41  # 40 full pages and the empty one that ends the walk
    attempts_per_page = len(sent) / pages
    assert 1.5 <= attempts_per_page <= 2.6  # about 1 / (1 - 0.5); never 9 (nested retries)
    # Each console attempt is exactly one HTTP request: the SDK never retries on its own.
    records = [r for r in store.ledger.records() if r.operation == "turns-page"]
    assert len(records) == len(sent)
    per_call = Counter(r.call for r in records)
    assert max(per_call.values()) == max(r.attempt for r in records)
    assert all(e.priority == "Low" for e in sent)  # priority-based execution: Low


async def test_the_lifecycle_of_a_tenant_split_across_two_ranges(account, fake_cosmos):
    """Counts add up over both ranges of a split prefix; lists merge them in order."""
    from cosmem_tui.model import TtlClass
    from cosmem_tui.model.lifecycle import DAY, TtlScope, TtlSelection

    now = int(fake_cosmos.clock.now())
    items = tenants(200)
    split = [
        exchange(SPLIT, thread, 10 + i, ttl=ttl, **extra)
        for i, (thread, ttl, extra) in enumerate(
            [
                ("t0", 600, {}),
                ("t1", 7200, {}),
                ("t0", 3 * DAY, {}),
                ("t1", -1, {"type": "summary"}),
                ("t0", -1, {"type": "fact"}),
                ("t1", "3600", {}),
            ]
        )
    ]
    store = account(items + split, split=[[SPLIT]], ru_budget=5000)
    assert len(fake_cosmos.ranges_of_prefix("db", "memory0", [SPLIT])) == 2
    scope = TtlScope.of_tenant(Key.of(SPLIT))
    summary = await store.ttl_summary(scope, now)
    # The tenant's own two turns (no ttl: the default -1) plus the six above.
    assert dict(summary.classes) == {
        TtlClass.SHORT: 3,
        TtlClass.LONG: 2,
        TtlClass.DEFAULT: 2,
        TtlClass.IGNORED: 0,
        TtlClass.INVALID: 1,
    }
    assert dict(summary.forecast) == {3600: 1, DAY: 2, 7 * DAY: 3, 30 * DAY: 3}
    soonest = await store.ttl_items(scope, now, TtlSelection.EXPIRING, limit=2, within=7 * DAY)
    assert [i.item_id for i in soonest.items] == ["t0-10", "t1-11"] and soonest.count == 3
    long_term = await store.ttl_items(scope, now, TtlSelection.LONG_TERM, limit=1)
    assert long_term.count == 2 and len(long_term.items) == 1
    whole = await store.ttl_summary(TtlScope.container(), now)
    assert whole.total == 400 + 6
    ranges = {e.range_id for e in fake_cosmos.log.queries() if "COUNT(1)" in (e.query or "")}
    assert len(ranges) == 4  # the whole container: every range, one at a time
