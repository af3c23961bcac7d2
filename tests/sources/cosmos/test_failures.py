"""Errors users meet on a real account, each one readable line (a typed store error).

Auth failures, 503s and slow answers come from the fault proxy in front of the peer
(the peer itself accepts any key); missing databases and containers, wrong partition
keys and unreachable endpoints are real.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.failures import READER_ROLE
from cosmem_tui.sources.errors import (
    ConnectionFailed,
    Forbidden,
    NotFound,
    PartitionKeyMismatch,
    RequestTimedOut,
    StoreError,
    Unauthorized,
    Unavailable,
)
from tests.helpers import closed_port, exchange
from tests.peer.fault_proxy import Fault


def one_line(error: StoreError) -> str:
    text = error.message
    assert "\n" not in text and "Traceback" not in text and len(text) < 400
    return text


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers (a black hole)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


async def test_a_wrong_endpoint_is_a_connection_failure(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings(endpoint=f"https://127.0.0.1:{closed_port()}"))
    with pytest.raises(ConnectionFailed) as caught:
        await store.list_keys()
    assert one_line(caught.value).startswith("cannot reach https://127.0.0.1:")
    assert store.ledger.records()[-1].status == 0  # no answer at all


async def test_a_silent_endpoint_times_out_within_the_timeout(containers, open_store, silent_port):
    seeded = await containers()
    store = open_store(seeded.settings(endpoint=f"https://127.0.0.1:{silent_port}", timeout_s=0.5))
    started = time.monotonic()
    with pytest.raises(RequestTimedOut) as caught:
        await store.list_keys()
    assert time.monotonic() - started < 2.5  # the deadline, not the SDK's retries of it
    assert "did not answer read-container within 0.5 s" in one_line(caught.value)
    record = store.ledger.records()[-1]
    assert (record.status, record.cancelled, record.outcome) == (0, False, "no answer")


async def test_a_slow_answer_past_the_timeout(containers, open_store, fault_proxy):
    seeded = await containers()
    store = open_store(seeded.settings(endpoint=fault_proxy.endpoint, timeout_s=1.0))
    await store.container_properties()  # connected; now the queries crawl
    fault_proxy.add(Fault(status=None, delay_s=3.0, queries_only=True))
    with pytest.raises(RequestTimedOut):
        await store.list_threads(Key.of("acme"))


async def test_a_bad_key_is_401_with_what_to_check(containers, open_store, fault_proxy):
    seeded = await containers()
    fault_proxy.add(Fault(status=401))
    store = open_store(seeded.settings(endpoint=fault_proxy.endpoint))
    with pytest.raises(Unauthorized) as caught:
        await store.list_keys()
    text = one_line(caught.value)
    assert text.startswith("401 unauthorized") and "COSMOS_KEY" in text
    from_string = open_store(
        seeded.settings(endpoint=fault_proxy.endpoint, key_source="COSMOS_CONNECTION_STRING")
    )
    with pytest.raises(Unauthorized) as caught:
        await from_string.list_keys()
    assert "COSMOS_CONNECTION_STRING" in one_line(caught.value)  # where the key came from


async def test_a_key_that_is_not_base64_is_named(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings(key="not a key!"))
    with pytest.raises(Unauthorized) as caught:
        await store.list_keys()
    assert "the account key in COSMOS_KEY is not valid base64" in one_line(caught.value)


async def test_403_names_the_data_plane_role_to_assign(containers, open_store, fault_proxy):
    seeded = await containers()
    store = open_store(seeded.settings(endpoint=fault_proxy.endpoint))
    await store.container_properties()
    fault_proxy.add(Fault(status=403, sub_status=5301, queries_only=True))
    with pytest.raises(Forbidden) as caught:
        await store.list_threads(Key.of("acme"))
    text = one_line(caught.value)
    assert text.startswith("403 forbidden") and READER_ROLE in text
    assert store.ledger.records()[-1].status == 403


async def test_503_is_unavailable_and_the_store_recovers(containers, open_store, fault_proxy):
    seeded = await containers()
    store = open_store(seeded.settings(endpoint=fault_proxy.endpoint))
    await store.container_properties()
    fault = fault_proxy.add(Fault(status=503, queries_only=True))
    with pytest.raises(Unavailable) as caught:
        await store.list_threads(Key.of("acme"))
    assert one_line(caught.value).startswith("503 service unavailable")
    assert fault.hits >= 1
    fault_proxy.clear()
    assert {t.name for t in await store.list_threads(Key.of("acme"))} == {"t1", "t2"}


async def test_a_missing_database_and_a_missing_container(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings(database="no-such-db"))
    with pytest.raises(NotFound) as caught:
        await store.list_keys()
    assert one_line(caught.value) == "database 'no-such-db' not found on " + store.settings.account
    store = open_store(seeded.settings(container="no-such-container"))
    with pytest.raises(NotFound) as caught:
        await store.page_turns(ThreadRef.of("acme", "t1"))
    assert one_line(caught.value) == (
        f"container 'no-such-container' not found in database {seeded.database!r}"
    )


async def test_a_container_keyed_otherwise_than_the_schema_says(containers, open_store):
    seeded = await containers([exchange(None, "x1", 0)], paths=("/threadId",))
    store = open_store(seeded.settings(), get_schema("lab"))
    props = await store.container_properties()  # the header can still show the truth
    assert props.partition_key.paths == ("/threadId",)
    for attempt in (store.list_keys, lambda: store.page_turns(ThreadRef.of("acme", "x1"))):
        with pytest.raises(PartitionKeyMismatch) as caught:
            await attempt()
        text = one_line(caught.value)
        assert "partitioned by /threadId" in text
        assert "schema lab expects [/tenantId,/threadId]" in text
        fitting = text.split("schemas for this key: ")[1].split(" (")[0].split(", ")
        assert "thread" in fitting  # the built-in schema that fits is named


async def test_point_read_of_an_expired_or_missing_item(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings())
    with pytest.raises(NotFound) as caught:
        await store.read_item(ThreadRef.of("acme", "t1"), "nope")
    assert one_line(caught.value) == "no item 'nope' in tenant acme / thread t1"
