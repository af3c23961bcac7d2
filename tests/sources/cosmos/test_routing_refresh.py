"""The partition-range map: read once, refreshed only when a call meets a gone range.

``read_feed_ranges(force_refresh=True)`` replaces the client's whole routing map (every
container's) and reads the container's ranges again: doing that at every listing put
metadata load on an account that may be throttling metadata already. The SDK refreshes
one container's map itself when a request meets a split (410/1002); the console forces
a refresh only when a call still comes back 410/1002 (a saved position in a retired
range), once, and then tries again. Counts of pkranges requests per listing step are
the SDK's and the fake's, not the machine's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from cosmem_tui.model import Key
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from cosmem_tui.sources.errors import StoreError
from tests.fake_cosmos import Fault
from tests.helpers import exchange

LAB = get_schema("lab")
TENANTS = 3000  # several DISTINCT pages per range


@pytest.fixture
async def store(fake_cosmos) -> AsyncIterator[CosmosStore]:
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=4, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", [exchange(f"tenant-{n:05d}", "t0", 0) for n in range(TENANTS)])
    made = CosmosStore.open(
        CosmosSettings(
            endpoint=fake_cosmos.endpoint,
            database="db",
            container="memory",
            auth=AuthMode.KEY,
            key=fake_cosmos.key,
            ru_budget=100_000,
        ),
        LAB,
    )
    await made.container_properties()
    yield made
    await made.close()


async def listing(
    store: CosmosStore, fake_cosmos: Any, between: Callable[[int], None] | None = None
) -> tuple[list[Key], list[int]]:
    """Every key, and how many pkranges requests each listing step sent."""
    keys: list[Key] = []
    per_step: list[int] = []
    cursor: str | None = None
    while True:
        before = len(fake_cosmos.log.of("pkranges"))
        page = await store.list_keys(cursor)
        per_step.append(len(fake_cosmos.log.of("pkranges")) - before)
        keys.extend(page.keys)
        cursor = page.cursor
        if cursor is None:
            return keys, per_step
        if between is not None:
            between(len(per_step))


async def test_the_map_is_read_once_not_at_every_listing(store, fake_cosmos):
    keys, first = await listing(store, fake_cosmos)
    assert len(keys) == len(set(keys)) == TENANTS
    # The first step reads the ranges (the read and the 304 that ends it), no step after.
    assert first[0] == 2 and sum(first[1:]) == 0 and len(first) > 4
    again, second = await listing(store, fake_cosmos)
    assert again == keys
    assert sum(second) == 0  # was 2 per listing: the whole map, replaced each time
    assert not [r for r in store.ledger.records() if r.operation == "refresh-ranges"]


async def test_a_split_mid_listing_is_followed_by_the_sdk_without_a_forced_refresh(
    store, fake_cosmos
):
    await listing(store, fake_cosmos)  # the map is in the SDK's cache
    fake_cosmos.log.clear()

    def split(step: int) -> None:
        if step == 2:  # between two pages: the saved cursor names the parent's range
            parent = fake_cosmos.container("db", "memory").ranges[3]
            fake_cosmos.split("db", "memory", parent.id, parent.min[:2] + "8")

    keys, per_step = await listing(store, fake_cosmos, split)
    assert len(keys) == len(set(keys)) == TENANTS  # none lost, none twice
    gone = fake_cosmos.log.of("query", status=410)
    assert [e.sub_status for e in gone] == [1002]  # the old range id answered 410/1002
    # The SDK asked for the changes since its map (If-None-Match): not a new map.
    changes = fake_cosmos.log.of("pkranges")
    assert changes and all(e.headers.get("if-none-match") for e in changes)
    assert sum(per_step) == len(changes) <= 3
    assert not [r for r in store.ledger.records() if r.operation == "refresh-ranges"]
    _, after = await listing(store, fake_cosmos)
    assert sum(after) == 0  # the SDK's map already knows the children


async def test_a_gone_range_the_sdk_gives_up_on_is_refreshed_once_and_tried_again(
    store, fake_cosmos
):
    page = await store.list_keys(None)
    # The SDK tries a gone range 4 times, then raises its 410/1002: the fifth answers.
    fake_cosmos.faults.add(Fault(status=410, sub_status=1002, kind="query", count=5))
    keys = list(page.keys)
    cursor = page.cursor
    while cursor is not None:
        page = await store.list_keys(cursor)
        keys.extend(page.keys)
        cursor = page.cursor
    assert len(keys) == len(set(keys)) == TENANTS
    refreshed = [r for r in store.ledger.records() if r.operation == "refresh-ranges"]
    assert len({r.call for r in refreshed}) == 1  # one forced refresh, for the call that met it
    assert all(r.cause == store.ledger.records()[-1].cause for r in refreshed)


async def test_a_range_that_stays_gone_is_one_line_with_what_to_do(store, fake_cosmos):
    page = await store.list_keys(None)
    fake_cosmos.faults.add(Fault(status=410, sub_status=1002, kind="query"))
    with pytest.raises(StoreError) as caught:
        await store.list_keys(page.cursor)
    text = caught.value.message
    assert caught.value.status == 410 and "\n" not in text
    assert text.startswith("410 gone (PartitionKeyRangeGone): ")
    assert "partitions changed while the console read them" in text and "r reads" in text
    refreshed = [r for r in store.ledger.records() if r.operation == "refresh-ranges"]
    assert len({r.call for r in refreshed}) == 1  # refreshed once, not in a loop
