"""What a TTL summary will cost, said before it is sent, on the fake gateway (charges grow
with the items each count reads) at a few shapes of a real account.

The question before the container's fan-out gave "about 69 RU" for a summary that cost
251.4; now the store counts the scope's items first (index-served) and estimates each
TTL count by what it reads. Each shape is estimated the way the console asks: the
container after a tenant's report (the lifecycle view shows the selected tenant
first), and a tenant or thread in a session that has measured nothing yet.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.lifecycle import LifecycleService
from cosmem_tui.model import Key, SystemClock, ThreadRef
from cosmem_tui.model.lifecycle import HOUR, TtlScope
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from tests.helpers import exchange

LAB = get_schema("lab")


def thread(tenant: str, name: str, count: int, text: str) -> list[dict[str, Any]]:
    items = []
    for i in range(count):
        kind: dict[str, Any] = {"ttl": HOUR * (1 + i % 48)}  # short-term, spread out
        if i % 5 == 0:
            kind = {"ttl": -1, "type": "summary"}
        elif i % 7 == 0:
            kind = {"type": "fact"}  # no ttl: the container's default
        items.append(exchange(tenant, name, i, text=text, **kind))
    return items


def small_tenants(count: int) -> list[dict[str, Any]]:
    return [exchange(f"tenant-{n:05d}", "t0", 0, ttl=HOUR * (1 + n % 30)) for n in range(count)]


@pytest.fixture
async def account(fake_cosmos) -> AsyncIterator[Callable[..., CosmosStore]]:
    stores: list[CosmosStore] = []

    def make(items: list[dict[str, Any]], *, ranges: int = 4, default_ttl: int = -1, **kw: Any):
        name = f"memory{len(stores)}"
        fake_cosmos.create_container(
            "db",
            name,
            partition_key=["/tenantId", "/threadId"],
            ranges=ranges,
            default_ttl=default_ttl,
            **kw,
        )
        fake_cosmos.seed("db", name, items)
        settings = CosmosSettings(
            endpoint=fake_cosmos.endpoint,
            database="db",
            container=name,
            auth=AuthMode.KEY,
            key=fake_cosmos.key,
            ru_budget=1_000_000.0,
        )
        store = CosmosStore.open(settings, LAB)
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()


async def cost_of_summary(store: CosmosStore, scope: TtlScope) -> tuple[float, float]:
    now = int(time.time())
    estimate = await store.ttl_summary_estimate(scope, now)
    with store.ledger.meter() as cost:
        await store.ttl_summary(scope, now)
    return estimate, cost.request_units


def within_half_again(estimate: float, cost: float) -> bool:
    return cost / 1.5 <= estimate <= cost * 1.5


@pytest.mark.parametrize(
    ("shape", "items", "scope", "options"),
    [
        (
            "a thread of 3,000 items",
            thread("acme", "big", 3000, "hello world " * 20),
            TtlScope.of_thread(ThreadRef.of("acme", "big")),
            {},
        ),
        (
            "a tenant split over two ranges",
            thread("acme", "a", 1500, "hello " * 30) + thread("acme", "b", 1500, "hi " * 30),
            TtlScope.of_tenant(Key.of("acme")),
            {"split_inside": [["acme"]]},
        ),
    ],
)
async def test_a_first_summary_is_estimated_within_half_again(
    account, shape, items, scope, options
):
    # Nothing measured yet: reading an item is taken to cost what a 1 KB item does.
    store = account(items, **options)
    await store.container_properties()
    estimate, cost = await cost_of_summary(store, scope)
    assert within_half_again(estimate, cost), (shape, estimate, cost)


async def test_later_summaries_are_estimated_at_the_rate_the_session_measured(account):
    # Items of 4 KB cost three times what the first guess assumes: once one summary has
    # been read, the next tenant's (and thread's) is estimated at the measured rate.
    items = thread("acme", "a", 600, "x" * 4000) + thread("globex", "b", 900, "x" * 4000)
    items += thread("globex", "c", 300, "x" * 4000)
    store = account(items)
    await store.container_properties()
    first, cost = await cost_of_summary(store, TtlScope.of_tenant(Key.of("acme")))
    assert not within_half_again(first, cost)  # the guess, for items this large
    for scope in (
        TtlScope.of_tenant(Key.of("globex")),
        TtlScope.of_thread(ThreadRef.of("globex", "c")),
    ):
        estimate, cost = await cost_of_summary(store, scope)
        assert within_half_again(estimate, cost), (scope, estimate, cost)


@pytest.mark.parametrize(
    ("shape", "items", "options"),
    [
        (
            "3,000 tenants and a thread of 3,000, four ranges",
            small_tenants(3000) + thread("acme", "big", 3000, "hello world " * 20),
            {},
        ),
        ("one range, items of 2 KB", thread("acme", "big", 2000, "y" * 2000), {"ranges": 1}),
        (
            "a container default of one day (more forecast counts)",
            thread("acme", "big", 2000, "z" * 500) + small_tenants(500),
            {"default_ttl": 24 * HOUR},
        ),
    ],
)
async def test_the_container_question_says_what_the_fan_out_costs(account, shape, items, options):
    store = account(items, **options)
    browse = BrowseService(store, SystemClock())
    service = LifecycleService(store, browse)
    await service.report(TtlScope.of_tenant(Key.of("acme")))  # what the view shows first
    estimate, _partitions = await service.container_estimate_ru()
    with store.ledger.meter() as cost:
        report = await service.container_report()
    assert report.summary is not None and report.summary.total == len(items)
    assert within_half_again(estimate, cost.request_units), (shape, estimate, cost.request_units)
