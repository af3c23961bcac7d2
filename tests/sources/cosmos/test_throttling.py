"""429s from the fault proxy: one SDK attempt, the shared hold-off, retries until the deadline.

The SDK is built to send each request once (its nested retry loops would turn a storm
into up to 9 attempts per page); the console retries a throttled call after the
service's retry-after, one request at a time, until the call's deadline.
"""

from __future__ import annotations

import time

import pytest

from cosmem_tui.model import Key, ThreadRef, Throttling
from cosmem_tui.sources.errors import RequestTimedOut
from tests.peer.fault_proxy import Fault


@pytest.fixture
async def proxied(containers, open_store, fault_proxy):
    seeded = await containers()
    store = open_store(seeded.settings(endpoint=fault_proxy.endpoint, timeout_s=3.0))
    await store.container_properties()  # connected and routed before the storm
    await store.list_threads(Key.of("acme"))
    fault_proxy.clear()
    events: list[Throttling] = []
    store.ledger.subscribe_throttle(events.append)
    return store, events


def throttled(proxy, *, queries: bool = True) -> int:
    return sum(1 for seen in proxy.requests() if seen.is_query == queries and seen.status == 429)


def sent(proxy, *, queries: bool = True) -> int:
    return sum(1 for seen in proxy.requests() if seen.is_query == queries)


async def test_one_429_costs_exactly_one_more_attempt(proxied, fault_proxy):
    store, events = proxied
    fault_proxy.add(Fault(status=429, count=1, retry_after_ms=100, queries_only=True))
    page = await store.page_turns(ThreadRef.of("acme", "t1"))
    assert len(page.items) == 7
    assert (throttled(fault_proxy), sent(fault_proxy)) == (1, 2)  # not 1 + 9
    assert [(e.attempt, e.retry_after_ms) for e in events] == [(1, 100.0)]
    assert 0.100 <= events[0].hold_off_s <= 0.100 * 1.25  # retry-after plus jitter
    records = [r for r in store.ledger.records() if r.operation == "turns-page"]
    assert [(r.status, r.attempt) for r in records[-2:]] == [(429, 1), (200, 2)]
    assert records[-1].call == records[-2].call  # one logical call, two responses
    assert store.ledger.totals().throttled == 1  # every 429 is counted, retried or not


async def test_a_storm_is_waited_out_until_the_deadline_then_explained(proxied, fault_proxy):
    store, events = proxied
    fault_proxy.add(Fault(status=429, retry_after_ms=400, queries_only=True))
    started = time.monotonic()
    with pytest.raises(RequestTimedOut) as caught:
        await store.page_turns(ThreadRef.of("acme", "t1"))
    elapsed = time.monotonic() - started
    assert 2.9 <= elapsed < 4.5  # the 3 s deadline, not a count of attempts
    assert "did not answer turns-page within 3 s" in caught.value.message
    assert "429" in caught.value.message
    # One request at a time, one every retry-after: about 3 s / 0.4 s, never 9 per page.
    assert 5 <= throttled(fault_proxy) <= 9
    assert all(e.retry_after_ms == 400.0 for e in events)
    # The session is still held off (pollers wait, one request at a time) until an
    # answer that is not a 429; how much of the last retry-after is left is timing.
    assert store.ledger.hold_off.is_throttled


async def test_a_point_read_is_tried_once_per_hold_off(proxied, fault_proxy):
    store, _ = proxied
    fault_proxy.add(Fault(status=429, count=2, retry_after_ms=10, method="GET", path=r"/docs/"))
    item = await store.read_item(ThreadRef.of("acme", "t1"), "t1-0")
    assert item.id == "t1-0"
    assert throttled(fault_proxy, queries=False) == 2
    assert sent(fault_proxy, queries=False) == 3


async def test_the_store_keeps_working_once_the_storm_passes(proxied, fault_proxy):
    store, _ = proxied
    fault_proxy.add(Fault(status=429, count=3, retry_after_ms=5, queries_only=True))
    assert len(await store.list_threads(Key.of("globex"))) == 3
    assert len(await store.list_threads(Key.of("globex"))) == 3
    assert store.ledger.throttle_pause_s() == 0
