"""429 storms from the fault proxy: the retry budget, what the user is told, and recovery.

azure-cosmos retries a 429 after ``x-ms-retry-after-ms``, ``retry_total`` times per
retry loop. A point read runs one loop (1 + n attempts); a query page runs two nested
loops in 4.17.1 (up to (1 + n)² attempts). The console sets n small and says so.
"""

from __future__ import annotations

import pytest

from cosmem_tui.model import ThreadRef, Throttling
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosConfigError, CosmosSettings
from cosmem_tui.sources.errors import Throttled
from tests.peer.fault_proxy import Fault


@pytest.fixture
async def proxied(containers, open_store, fault_proxy):
    seeded = await containers()
    store = open_store(seeded.settings(endpoint=fault_proxy.endpoint, retry_total=1))
    await store.container_properties()  # connected and routed before the storm
    events: list[Throttling] = []
    store.gateway.subscribe_throttle(events.append)
    return store, events


def attempts(proxy, *, queries: bool) -> int:
    return sum(1 for seen in proxy.requests() if seen.is_query == queries and seen.status == 429)


async def test_a_short_storm_is_retried_and_reported(proxied, fault_proxy):
    store, events = proxied
    fault_proxy.add(Fault(status=429, count=1, retry_after_ms=30, queries_only=True))
    threads = await store.list_threads("acme")
    assert {t.name for t in threads} == {"t1", "t2"}
    assert [(e.attempt, e.retry_after_ms, e.retrying) for e in events] == [(1, 30.0, True)]
    assert events[0].describe() == "throttled, retrying in 30 ms"
    assert store.gateway.records()[-1].status == 200


async def test_a_query_page_stops_after_its_retry_budget(proxied, fault_proxy):
    store, events = proxied
    fault_proxy.add(Fault(status=429, retry_after_ms=250, queries_only=True))
    with pytest.raises(Throttled) as caught:
        await store.page_turns(ThreadRef("acme", "t1"))
    # retry_total=1: two nested retry loops of two attempts each, then a readable 429.
    assert attempts(fault_proxy, queries=True) == 4
    assert caught.value.retry_after_ms == 250.0
    assert caught.value.message.startswith("429 too many requests")
    assert "retry after 250 ms" in caught.value.message
    assert events[-1].retrying is False
    assert events[-1].describe() == "429 after retries, retry after 250 ms"
    assert all(e.retrying for e in events[:-1]) and len(events) == 5
    record = store.gateway.records()[-1]
    assert (record.status, record.retry_after_ms) == (429, 250.0)
    assert store.gateway.totals().throttled == 1
    assert 0 < store.gateway.throttle_pause_s() <= 0.25  # pollers hold off meanwhile


async def test_a_point_read_stops_after_one_retry(proxied, fault_proxy):
    store, _ = proxied
    fault_proxy.add(Fault(status=429, retry_after_ms=10, method="GET", path=r"/docs/"))
    with pytest.raises(Throttled):
        await store.read_item(ThreadRef("acme", "t1"), "t1-0")
    assert attempts(fault_proxy, queries=False) == 2


async def test_the_store_keeps_working_once_the_storm_passes(proxied, fault_proxy):
    store, _ = proxied
    fault_proxy.add(Fault(status=429, retry_after_ms=5, queries_only=True))
    with pytest.raises(Throttled):
        await store.list_threads("globex")
    fault_proxy.clear()
    assert len(await store.list_threads("globex")) == 3


def test_retry_total_zero_is_refused():
    # azure-cosmos 4.17 reads retry_total=0 as "unset" and retries 9 times instead.
    with pytest.raises(CosmosConfigError):
        CosmosSettings("https://a.example", "d", "c", AuthMode.KEY, key="k", retry_total=0)
