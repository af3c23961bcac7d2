"""The fake gateway's change feed as the azure-cosmos SDK reads it (sync client): the
headers it is sent, the documents and etags it answers, 304s, splits, TTL purges and
the retention window (``routes_feed``, ``change_log``)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from azure.cosmos import CosmosClient
from azure.cosmos.exceptions import CosmosHttpResponseError

from tests.fake_cosmos.clock import FakeCosmosClock
from tests.fake_cosmos.fake import FakeCosmos

DB, COLL = "db", "memory"
START = 1_800_000_000
# The sync client over the fake's self-signed certificate (as test_fake_cosmos does).
pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")


@pytest.fixture
def gw() -> Any:
    fake = FakeCosmos(clock=FakeCosmosClock(START)).start()
    try:
        yield fake
    finally:
        fake.stop()


def _container(gw: FakeCosmos, ranges: int = 3, **options: Any) -> Any:
    gw.create_container(
        DB, COLL, partition_key=["/tenantId", "/threadId"], ranges=ranges, default_ttl=-1, **options
    )
    client = CosmosClient(gw.endpoint, credential=gw.key)
    return client.get_database_client(DB).get_container_client(COLL)


def _doc(tenant: str, thread: str, n: int, **extra: Any) -> dict[str, Any]:
    return {"id": f"{thread}-{n}", "tenantId": tenant, "threadId": thread, "n": n, **extra}


def _read(container: Any, token: str) -> tuple[list[dict[str, Any]], str]:
    pager = container.query_items_change_feed(continuation=token)
    items = list(pager)
    return items, container.client_connection.last_response_headers["etag"]


def _now(container: Any, mode: str = "AllVersionsAndDeletes") -> str:
    items, token = _read_start(container, mode)
    assert items == []
    return token


def _read_start(container: Any, mode: str, **options: Any) -> tuple[list[dict[str, Any]], str]:
    pager = container.query_items_change_feed(mode=mode, **options)
    items = list(pager)
    return items, container.client_connection.last_response_headers["etag"]


def test_all_versions_documents_and_headers_are_the_sdks(gw: FakeCosmos) -> None:
    container = _container(gw)
    token = _now(container)
    container.create_item(_doc("acme", "t1", 1))
    container.upsert_item(_doc("acme", "t1", 1, edited=True))
    container.delete_item("t1-1", partition_key=["acme", "t1"])
    items, token = _read(container, token)
    ops = [i["metadata"]["operationType"] for i in items]
    assert ops == ["create", "replace", "delete"]
    create, replace, delete = items
    assert create["current"]["id"] == "t1-1" and "_lsn" in create["current"]
    assert "previousImageLSN" not in create["metadata"]
    assert replace["metadata"]["previousImageLSN"] == create["metadata"]["lsn"]
    assert replace["current"]["edited"] is True
    assert "current" not in delete  # a delete carries only its id and key
    assert delete["metadata"]["id"] == "t1-1"
    assert delete["metadata"]["partitionKey"] == {"tenantId": "acme", "threadId": "t1"}
    assert delete["metadata"]["timeToLiveExpired"] is False
    assert {i["metadata"]["crts"] for i in items} == {START}
    sent = [e for e in gw.log.of("feed") if e.operation == "change-feed"]
    assert {e.headers.get("a-im") for e in sent} == {"Full-Fidelity Feed"}
    assert {e.headers.get("x-ms-cosmos-changefeed-wire-format-version") for e in sent} == {
        "2021-09-15"
    }
    # The SDK's continuation: one etag per physical range, each a position of the log.
    state = json.loads(base64.b64decode(token))
    assert state["mode"] == "AllVersionsAndDeletes"
    ranges = state["continuation"]["continuation"]
    assert len(ranges) == 3
    assert all(r["token"].strip('"').isdigit() for r in ranges)


def test_nothing_new_is_a_304_and_the_position_holds(gw: FakeCosmos) -> None:
    container = _container(gw)
    token = _now(container)
    gw.log.clear()
    items, again = _read(container, token)
    assert items == []
    statuses = [e.status for e in gw.log.of("feed") if e.operation == "change-feed"]
    assert statuses == [304, 304, 304]  # every range asked, none had anything
    container.create_item(_doc("acme", "t1", 1))
    items, _ = _read(container, again)
    assert [i["current"]["id"] for i in items] == ["t1-1"]


def test_latest_version_has_one_entry_per_item_and_no_deletes(gw: FakeCosmos) -> None:
    container = _container(gw)
    container.create_item(_doc("acme", "t1", 1))
    container.upsert_item(_doc("acme", "t1", 1, edited=True))
    container.create_item(_doc("acme", "t1", 2))
    container.delete_item("t1-2", partition_key=["acme", "t1"])
    items = list(container.query_items_change_feed(start_time="Beginning"))
    assert [(i["id"], i.get("edited")) for i in items] == [("t1-1", True)]
    assert isinstance(items[0]["_lsn"], int)
    sent = [e for e in gw.log.of("feed") if e.operation == "change-feed"]
    assert {e.headers.get("a-im") for e in sent} == {"Incremental Feed"}
    scoped = container.query_items_change_feed(
        mode="AllVersionsAndDeletes", start_time="Now", partition_key=["acme", "t1"]
    )
    assert list(scoped) == []  # offered: a read from now answers nothing, no error
    gw.container(DB, COLL).feed.all_versions = False  # a container without the mode
    with pytest.raises(CosmosHttpResponseError) as raised:
        list(container.query_items_change_feed(mode="AllVersionsAndDeletes", start_time="Now"))
    assert raised.value.status_code == 400 and "not enabled" in str(raised.value.message)


def test_a_ttl_purge_lags_expiry_and_says_so(gw: FakeCosmos) -> None:
    container = _container(gw, purge_lag_s=300)
    token = _now(container)
    container.create_item(_doc("acme", "t1", 1, ttl=10))
    items, token = _read(container, token)
    assert len(items) == 1
    gw.clock.advance(11)
    with pytest.raises(CosmosHttpResponseError):  # expired: invisible at once …
        container.read_item("t1-1", partition_key=["acme", "t1"])
    items, token = _read(container, token)
    assert items == []  # … but not purged yet
    gw.clock.advance(300)
    items, token = _read(container, token)
    assert len(items) == 1
    meta = items[0]["metadata"]
    assert meta["operationType"] == "delete" and meta["timeToLiveExpired"] is True
    assert meta["crts"] == START + 311  # when the purge ran, not when it expired


def test_the_retention_window_forgets_and_refuses_an_old_position(gw: FakeCosmos) -> None:
    container = _container(gw, retention_s=600)
    token = _now(container)
    container.create_item(_doc("acme", "t1", 1))
    gw.clock.advance(601)
    with pytest.raises(CosmosHttpResponseError) as raised:
        _read(container, token)
    assert raised.value.status_code == 400 and "retention" in str(raised.value.message)
    fresh = _now(container)
    container.create_item(_doc("acme", "t1", 2))
    items, _ = _read(container, fresh)
    assert [i["current"]["id"] for i in items] == ["t1-2"]


def test_a_split_hands_the_parents_position_to_both_children(gw: FakeCosmos) -> None:
    container = _container(gw)
    token = _now(container)
    target = gw.container(DB, COLL)
    parent = target.ranges[0]
    middle = parent.min + "1" if parent.min else "1"
    left, right = gw.split(DB, COLL, parent.id, middle.ljust(16, "0"))
    writes = [_doc("acme", f"t{i}", 1) for i in range(12)]
    for doc in writes:
        container.create_item(doc)
    seen: list[str] = []
    for _ in range(10):
        items, token = _read(container, token)
        seen.extend(i["current"]["id"] for i in items)
        if not items:
            break
    assert sorted(seen) == sorted(d["id"] for d in writes)
    gone = [e for e in gw.log.of("feed") if e.status == 410]
    assert gone and {e.range_id for e in gone} == {parent.id}
    asked = {e.range_id for e in gw.log.of("feed") if e.status in (200, 304)}
    assert {left.id, right.id} <= asked


def test_a_key_or_a_prefix_reads_only_its_own_items(gw: FakeCosmos) -> None:
    container = _container(gw, ranges=1)  # one range: every key beside the one read
    tenants, threads = ("acme", "globex", "initech"), ("t1", "t2", "t3")
    keys = [[t] for t in tenants] + [[t, th] for t in tenants for th in threads]
    starts = [
        _read_start(container, "AllVersionsAndDeletes", start_time="Now", partition_key=k)[1]
        for k in keys
    ]
    for tenant in tenants:
        for thread_id in threads:
            container.create_item(_doc(tenant, thread_id, 1))
    for key, start in zip(keys, starts, strict=True):
        items, _ = _read(container, start)
        got = sorted((i["current"]["tenantId"], i["current"]["threadId"]) for i in items)
        want = [(key[0], th) for th in threads] if len(key) == 1 else [tuple(key)]
        assert got == want, key
