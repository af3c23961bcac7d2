"""The fake gateway, driven through the real azure-cosmos SDK (async and sync).

These tests pin the fake's fidelity where it matters to the product: routing by EPK
over several physical ranges, prefix keys spanning two ranges, feed ranges, exact
range-local paging, the SDK's cross-partition DISTINCT resume defect, retry behaviour
under throttling, TTL on a stepped clock, charges and hung answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from azure.cosmos import CosmosClient as SyncClient
from azure.cosmos import documents
from azure.cosmos.aio import ContainerProxy, CosmosClient
from azure.cosmos.exceptions import CosmosHttpResponseError, CosmosResourceNotFoundError

from tests.fake_cosmos import FakeCosmos, Fault

DB = "db"
HPK = ["/tenantId", "/threadId"]


def turns(tenant: str, thread: str, count: int, **extra: Any) -> list[dict[str, Any]]:
    return [
        {
            "id": f"{tenant}.{thread}.{i:03d}",
            "tenantId": tenant,
            "threadId": thread,
            "turn": i,
            **extra,
        }
        for i in range(count)
    ]


@pytest.fixture
async def client(fake_cosmos: FakeCosmos) -> AsyncIterator[CosmosClient]:
    async with CosmosClient(fake_cosmos.endpoint, fake_cosmos.key, retry_total=2) as c:
        yield c


def container_of(client: CosmosClient, name: str) -> ContainerProxy:
    return client.get_database_client(DB).get_container_client(name)


async def all_pages(pager: Any) -> list[list[Any]]:
    return [[row async for row in page] async for page in pager]


# -- resources and point operations ----------------------------------------------------------


async def test_container_properties_and_point_reads(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    from azure.cosmos import PartitionKey

    db = await client.create_database_if_not_exists(DB)
    created = await db.create_container(
        "memory",
        PartitionKey(path=HPK, kind="MultiHash"),
        default_ttl=3600,
        indexing_policy={
            "indexingMode": "consistent",
            "includedPaths": [{"path": "/*"}],
            "excludedPaths": [],
        },
    )
    props = await created.read()
    assert props["partitionKey"] == {"paths": HPK, "kind": "MultiHash", "version": 2}
    assert props["defaultTtl"] == 3600
    assert props["indexingPolicy"]["includedPaths"] == [{"path": "/*"}]
    assert props["_rid"]

    await created.upsert_item({"id": "a", "tenantId": "acme", "threadId": "t1", "text": "hi"})
    item = await created.read_item("a", partition_key=["acme", "t1"])
    assert item["text"] == "hi"
    assert {"_rid", "_self", "_etag", "_ts"} <= set(item)
    assert item["_ts"] == int(fake_cosmos.clock.now())
    with pytest.raises(CosmosResourceNotFoundError):
        await created.read_item("a", partition_key=["acme", "t2"])
    with pytest.raises(CosmosResourceNotFoundError):
        await created.read_item("missing", partition_key=["acme", "t1"])
    reads = fake_cosmos.log.of("point", where=lambda e: e.operation == "read-item")
    assert [e.status for e in reads] == [200, 404, 404]
    assert all(e.charge >= 1.0 for e in reads)  # 404s are charged too


async def test_numeric_and_string_keys_are_different_partitions(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "numbers", partition_key="/tenantId", ranges=8)
    c = container_of(client, "numbers")
    await c.upsert_item({"id": "x", "tenantId": 42, "kind": "number"})
    await c.upsert_item({"id": "x", "tenantId": "42", "kind": "string"})
    assert (await c.read_item("x", partition_key=42))["kind"] == "number"
    assert (await c.read_item("x", partition_key="42"))["kind"] == "string"
    key = fake_cosmos.container(DB, "numbers").key
    assert key.epk([42]) != key.epk(["42"])
    assert key.epk([42]) == key.epk([42.0])  # numbers hash as doubles
    rows = [r async for r in c.query_items("SELECT VALUE c.kind FROM c", partition_key=42)]
    assert rows == ["number"]
    # "42" = 42 is undefined in Cosmos SQL: no row, not an error
    rows = [
        r async for r in c.query_items('SELECT * FROM c WHERE c.tenantId = "42"', partition_key=42)
    ]
    assert rows == []


# -- routing over ranges -----------------------------------------------------------------


async def test_feed_ranges_are_the_physical_ranges_and_scope_queries(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId", ranges=4)
    items = [t for n in range(40) for t in turns(f"tenant-{n:02d}", "main", 3)]
    fake_cosmos.seed(DB, "memory", items)
    c = container_of(client, "memory")
    feed_ranges = [r async for r in c.read_feed_ranges()]
    assert len(feed_ranges) == 4
    seen: list[str] = []
    for feed_range in feed_ranges:
        fake_cosmos.log.clear()
        rows = [
            r async for r in c.query_items("SELECT VALUE c.tenantId FROM c", feed_range=feed_range)
        ]
        served = {e.range_id for e in fake_cosmos.log.queries()}
        assert len(served) == 1  # one physical range answered
        (range_id,) = served
        assert rows
        assert all(fake_cosmos.range_of(DB, "memory", t) == range_id for t in rows)
        seen += rows
    assert sorted(seen) == sorted(i["tenantId"] for i in items)


async def test_prefix_query_reads_a_tenant_split_across_two_ranges_once(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key=HPK, ranges=4, split_inside=[["acme"]])
    items = [t for n in range(12) for t in turns("acme", f"thread-{n:02d}", 4)]
    items += turns("globex", "g1", 5)
    fake_cosmos.seed(DB, "memory", items)
    spans = fake_cosmos.ranges_of_prefix(DB, "memory", ["acme"])
    assert len(spans) == 2
    c = container_of(client, "memory")
    fake_cosmos.log.clear()
    rows = [
        r
        async for r in c.query_items(
            'SELECT VALUE c.id FROM c WHERE c["tenantId"] = @t',
            parameters=[{"name": "@t", "value": "acme"}],
            partition_key=["acme"],
        )
    ]
    assert sorted(rows) == sorted(i["id"] for i in items if i["tenantId"] == "acme")
    assert len(rows) == len(set(rows)) == 48
    queries = fake_cosmos.log.queries()
    assert sorted({e.range_id for e in queries}) == sorted(spans)
    # the SDK narrows each range-targeted request with EPK headers, never a partition key
    assert all(e.start_epk and e.end_epk and e.partition_key is None for e in queries)
    assert not fake_cosmos.log.of("query-plan")

    # a prefix COUNT over both ranges: the SDK sums the two range-local partial counts
    counts = [
        r
        async for r in c.query_items(
            'SELECT VALUE COUNT(1) FROM c WHERE c["tenantId"] = @t',
            parameters=[{"name": "@t", "value": "acme"}],
            partition_key=["acme"],
        )
    ]
    assert counts == [48]


async def test_group_by_runs_range_locally_through_a_prefix_key(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key=HPK, ranges=4)
    fake_cosmos.seed(
        DB, "memory", turns("acme", "t1", 3) + turns("acme", "t2", 2) + turns("b", "x", 4)
    )
    c = container_of(client, "memory")
    query = (
        'SELECT c["threadId"] AS thread, COUNT(1) AS items, MAX(c._ts) AS last '
        'FROM c WHERE c["tenantId"] = @t GROUP BY c["threadId"]'
    )
    rows = [
        r
        async for r in c.query_items(
            query, parameters=[{"name": "@t", "value": "acme"}], partition_key=["acme"]
        )
    ]
    now = int(fake_cosmos.clock.now())
    assert sorted(rows, key=lambda r: r["thread"]) == [
        {"thread": "t1", "items": 3, "last": now},
        {"thread": "t2", "items": 2, "last": now},
    ]
    # cross-partition GROUP BY: azure-cosmos 4.17.1 does not declare the feature
    with pytest.raises(CosmosHttpResponseError) as refused:
        _ = [r async for r in c.query_items(query, parameters=[{"name": "@t", "value": "acme"}])]
    assert refused.value.status_code == 400
    assert "GroupBy" in str(refused.value)


# -- paging ---------------------------------------------------------------------------------


async def test_single_partition_paging_resumes_exactly(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key=HPK, ranges=4)
    fake_cosmos.seed(DB, "memory", turns("acme", "t1", 57) + turns("acme", "t2", 9))
    c = container_of(client, "memory")
    query = (
        'SELECT VALUE c.turn FROM c WHERE c["tenantId"] = @t AND c["threadId"] = @th '
        "ORDER BY c.turn DESC"
    )
    params = [{"name": "@t", "value": "acme"}, {"name": "@th", "value": "t1"}]
    got: list[int] = []
    token: str | None = None
    pages = 0
    while True:  # a fresh query per page, resumed from the last token (what a UI does)
        pager = c.query_items(
            query, parameters=params, partition_key=["acme", "t1"], max_item_count=10
        )
        page_iter = pager.by_page(token)
        page = await page_iter.__anext__()
        got += [r async for r in page]
        pages += 1
        token = page_iter.continuation_token
        if not token:
            break
    assert got == list(range(56, -1, -1))
    assert pages == 6
    assert not fake_cosmos.log.of("query-plan")


async def test_cross_partition_distinct_resume_is_broken_by_the_sdk(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    """Characterisation: the SDK's cross-partition DISTINCT cannot be resumed.

    With 1,500 tenants on 4 ranges and ``max_item_count=100``, the first page holds 100
    tenants of range 0, but the continuation it hands out is whatever the *last* backend
    response carried: range 0's token for its third page (the pipeline prefetched the
    second). ``by_page(token)`` then starts a new pipelined query and gives that one
    token to every range's producer; range 1 refuses a token issued by range 0 with 400.
    When each range's first backend page holds all its values, the continuation is
    None after the first SDK page: the listing silently stops (4 of 12 below). Reading
    per feed range (each with its own token) gets all of them.
    """
    fake_cosmos.create_container(DB, "tenants", partition_key="/tenantId", ranges=4)
    fake_cosmos.seed(
        DB, "tenants", [{"id": f"i{n}", "tenantId": f"tenant-{n:05d}"} for n in range(1500)]
    )
    c = container_of(client, "tenants")
    query = 'SELECT DISTINCT VALUE c["tenantId"] FROM c'

    pager = c.query_items(query, max_item_count=100).by_page()
    first = [r async for r in await pager.__anext__()]
    token = pager.continuation_token
    assert len(first) == 100
    assert token
    first_range, second_range = (r.id for r in fake_cosmos.container(DB, "tenants").ranges[:2])
    issued_by = fake_cosmos.log.of("query", where=lambda e: e.continuation_out == token)
    assert [e.range_id for e in issued_by] == [first_range]
    assert len(fake_cosmos.log.queries(range_id=first_range, status=200)) == 2

    resumed = c.query_items(query, max_item_count=100).by_page(token)
    with pytest.raises(CosmosHttpResponseError) as bad:
        await resumed.__anext__()
    assert bad.value.status_code == 400
    assert "Invalid Continuation Token" in str(bad.value)
    assert fake_cosmos.log.of("query", status=400, range_id=second_range)

    # ... and when every range fits in the first backend page, the token is None: a
    # caller paging with by_page() believes the listing is complete after one page.
    fake_cosmos.create_container(DB, "few", partition_key="/tenantId", ranges=4)
    fake_cosmos.seed(DB, "few", [{"id": f"i{n}", "tenantId": f"t{n:02d}"} for n in range(12)])
    few = container_of(client, "few").query_items(query, max_item_count=4).by_page()
    assert len([r async for r in await few.__anext__()]) == 4
    assert few.continuation_token is None

    # what works: one feed range at a time, each resumed with its own token
    tenants: list[str] = []
    for feed_range in [r async for r in c.read_feed_ranges()]:
        token = None
        while True:
            page_iter = c.query_items(query, feed_range=feed_range, max_item_count=100).by_page(
                token
            )
            tenants += [r async for r in await page_iter.__anext__()]
            token = page_iter.continuation_token
            if not token:
                break
    assert len(tenants) == len(set(tenants)) == 1500


async def test_cross_partition_pipelines_merge_order_top_and_aggregates(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId", ranges=4)
    fake_cosmos.seed(
        DB,
        "memory",
        [
            {"id": f"i{n}", "tenantId": f"t{n % 37:02d}", "n": n, "_ts": 1000 + n}
            for n in range(200)
        ],
    )
    c = container_of(client, "memory")
    fake_cosmos.log.clear()
    top = [
        r
        async for r in c.query_items(
            "SELECT TOP @k * FROM c ORDER BY c._ts DESC", parameters=[{"name": "@k", "value": 5}]
        )
    ]
    assert [r["n"] for r in top] == [199, 198, 197, 196, 195]
    plan_requests = fake_cosmos.log.of("query-plan")
    assert len(plan_requests) == 1
    assert plan_requests[0].headers["x-ms-cosmos-is-query-plan-request"] == "True"
    assert "Distinct" in plan_requests[0].headers["x-ms-cosmos-supported-query-features"]
    rewritten = {e.query for e in fake_cosmos.log.queries(status=200)}
    assert any(q and "orderByItems" in q and "payload" in q for q in rewritten)

    assert [r async for r in c.query_items("SELECT VALUE COUNT(1) FROM c")] == [200]
    assert [r async for r in c.query_items("SELECT VALUE MAX(c.n) FROM c")] == [199]
    ordered = [
        r
        async for r in c.query_items("SELECT DISTINCT VALUE c.tenantId FROM c ORDER BY c.tenantId")
    ]
    assert ordered == sorted({f"t{n:02d}" for n in range(37)})
    first_after = [
        r
        async for r in c.query_items(
            "SELECT TOP 1 VALUE c.tenantId FROM c WHERE c.tenantId > @a ORDER BY c.tenantId",
            parameters=[{"name": "@a", "value": "t10"}],
        )
    ]
    assert first_after == ["t11"]


async def test_order_by_desc_ties_are_not_the_reverse_of_asc(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId", ranges=4)
    fake_cosmos.seed(
        DB, "memory", [{"id": f"i{n}", "tenantId": "t", "rank": n // 3} for n in range(9)]
    )
    c = container_of(client, "memory")
    asc = [
        r
        async for r in c.query_items(
            "SELECT VALUE c.id FROM c ORDER BY c.rank ASC", partition_key="t"
        )
    ]
    desc = [
        r
        async for r in c.query_items(
            "SELECT VALUE c.id FROM c ORDER BY c.rank DESC", partition_key="t"
        )
    ]
    assert asc == [f"i{n}" for n in range(9)]
    assert desc == ["i6", "i7", "i8", "i3", "i4", "i5", "i0", "i1", "i2"]
    assert desc != list(reversed(asc))


# -- throttling, faults, time ---------------------------------------------------------------


async def _attempts_for_one_page(
    fake_cosmos: FakeCosmos, **client_options: Any
) -> tuple[int, int | None]:
    async with CosmosClient(fake_cosmos.endpoint, fake_cosmos.key, **client_options) as sdk:
        c = container_of(sdk, "memory")
        await c.read()
        fake_cosmos.log.clear()
        status: int | None = None
        try:
            pager = c.query_items(
                "SELECT * FROM c", partition_key="acme", max_item_count=10
            ).by_page()
            await pager.__anext__()
        except CosmosHttpResponseError as exc:
            status = exc.status_code
        return len(fake_cosmos.log.queries()), status


async def test_a_full_429_storm_costs_nine_attempts_a_page_with_retry_total_2(
    fake_cosmos: FakeCosmos,
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId")
    fake_cosmos.seed(DB, "memory", turns("acme", "t", 30))
    fake_cosmos.faults.storm(1.0, seed=7, kind="query", retry_after_ms=1)
    assert await _attempts_for_one_page(fake_cosmos, retry_total=2) == (
        9,
        429,
    )  # 3 × 3, nested loops
    assert await _attempts_for_one_page(fake_cosmos, retry_total=1) == (4, 429)
    policy = documents.ConnectionPolicy()
    policy.RetryOptions = documents.RetryOptions(max_retry_attempt_count=0)
    assert await _attempts_for_one_page(fake_cosmos, connection_policy=policy) == (1, 429)
    assert all(e.sub_status == 3200 for e in fake_cosmos.log.queries())


async def test_a_half_storm_is_seeded_and_retried_page_by_page(fake_cosmos: FakeCosmos) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId")
    fake_cosmos.seed(DB, "memory", turns("acme", "t", 50))

    async def run(**options: Any) -> tuple[list[int], int | None]:
        fake_cosmos.faults.storm(0.5, seed=3, kind="query", retry_after_ms=1)
        async with CosmosClient(fake_cosmos.endpoint, fake_cosmos.key, **options) as sdk:
            c = container_of(sdk, "memory")
            await c.read()
            fake_cosmos.log.clear()
            attempts: list[int] = []
            try:
                async for page in c.query_items(
                    "SELECT * FROM c", partition_key="acme", max_item_count=10
                ).by_page():
                    _ = [r async for r in page]
                    attempts.append(len(fake_cosmos.log.queries()) - sum(attempts))
            except CosmosHttpResponseError as exc:
                return attempts, exc.status_code
            return attempts, None

    patient, failure = await run(retry_total=2)
    assert failure is None
    assert len(patient) == 5
    assert sum(patient) > 5 and max(patient) <= 9
    assert await run(retry_total=2) == (patient, None)  # same seed, same storm
    policy = documents.ConnectionPolicy()
    policy.RetryOptions = documents.RetryOptions(max_retry_attempt_count=0)
    impatient, failure = await run(connection_policy=policy)
    assert failure == 429
    assert len(fake_cosmos.log.queries()) == sum(impatient) + 1  # gave up at the first 429


async def test_a_hot_range_throttles_on_its_share_of_throughput(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    second = [1000.0]
    fake_cosmos.faults.rate_clock = lambda: second[0]
    fake_cosmos.faults.budget_retry_after_ms = 1
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId", ranges=4, throughput=40)
    hot_range = fake_cosmos.range_of(DB, "memory", "hot")
    cold = next(
        f"cold{n}" for n in range(20) if fake_cosmos.range_of(DB, "memory", f"cold{n}") != hot_range
    )
    fake_cosmos.seed(DB, "memory", turns("hot", "t", 5) + turns(cold, "t", 5))
    c = container_of(client, "memory")
    count = "SELECT VALUE COUNT(1) FROM c"
    for _ in range(5):  # 5 × 2.31 RU: the hot range has used its 10 RU/s
        assert [r async for r in c.query_items(count, partition_key="hot")] == [5]
    fake_cosmos.log.clear()
    with pytest.raises(CosmosHttpResponseError) as throttled:
        _ = [r async for r in c.query_items(count, partition_key="hot")]
    assert throttled.value.status_code == 429
    assert {e.fault for e in fake_cosmos.log.queries()} == {"throughput"}
    assert [r async for r in c.query_items(count, partition_key=cold)] == [5]  # other ranges serve
    second[0] += 1  # the next second refills the budget
    assert [r async for r in c.query_items(count, partition_key="hot")] == [5]


@pytest.mark.parametrize("status", [401, 403, 503])
async def test_injected_errors_reach_the_sdk(
    fake_cosmos: FakeCosmos, client: CosmosClient, status: int
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId")
    fake_cosmos.seed(DB, "memory", turns("acme", "t", 1))
    c = container_of(client, "memory")
    await c.read()
    fake_cosmos.faults.add(Fault(status=status, kind="point"))
    with pytest.raises(CosmosHttpResponseError) as failed:
        await c.read_item("acme.t.000", partition_key="acme")
    assert failed.value.status_code == status


async def test_a_hung_answer_never_arrives(fake_cosmos: FakeCosmos, client: CosmosClient) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId")
    fake_cosmos.seed(DB, "memory", turns("acme", "t", 1))
    c = container_of(client, "memory")
    await c.read()
    fake_cosmos.faults.add(Fault(status=None, hang=True, kind="point", count=1))
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await c.read_item("acme.t.000", partition_key="acme")
    (hung,) = fake_cosmos.log.of("point")
    assert hung.status is None and hung.fault == "rule#0 hang"
    fake_cosmos.faults.release()
    # the next request is answered normally
    assert (await c.read_item("acme.t.000", partition_key="acme"))["turn"] == 0


async def test_ttl_follows_the_stepped_clock(fake_cosmos: FakeCosmos, client: CosmosClient) -> None:
    fake_cosmos.create_container(DB, "on", partition_key="/tenantId", default_ttl=-1)
    fake_cosmos.create_container(DB, "default", partition_key="/tenantId", default_ttl=60)
    fake_cosmos.create_container(DB, "off", partition_key="/tenantId")
    for name in ("on", "default", "off"):
        fake_cosmos.seed(
            DB,
            name,
            [
                {"id": "short", "tenantId": "t", "ttl": 10},
                {"id": "forever", "tenantId": "t", "ttl": -1},
                {"id": "plain", "tenantId": "t"},
            ],
        )

    async def visible(name: str) -> list[str]:
        c = container_of(client, name)
        return sorted(
            [r async for r in c.query_items("SELECT VALUE c.id FROM c", partition_key="t")]
        )

    fake_cosmos.clock.advance(9)
    assert await visible("on") == ["forever", "plain", "short"]
    fake_cosmos.clock.advance(1)  # _ts + 10: expired
    assert await visible("on") == ["forever", "plain"]
    assert await visible("default") == ["forever", "plain"]
    with pytest.raises(CosmosResourceNotFoundError):
        await container_of(client, "on").read_item("short", partition_key="t")
    fake_cosmos.clock.advance(50)  # _ts + 60: the container default expires "plain"
    assert await visible("default") == ["forever"]
    assert await visible("off") == ["forever", "plain", "short"]  # TTL off: item ttl ignored


async def test_count_by_equality_is_cheaper_than_a_projection_scan(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key=HPK, ranges=4)
    fake_cosmos.seed(
        DB, "memory", turns("acme", "t1", 120, text="x" * 400) + turns("other", "o", 50, text="y")
    )
    c = container_of(client, "memory")
    params = [{"name": "@t", "value": "acme"}]

    async def charge_of(query: str) -> float:
        fake_cosmos.log.clear()
        _ = [r async for r in c.query_items(query, parameters=params, partition_key=["acme"])]
        return fake_cosmos.log.charge("query")

    count = await charge_of('SELECT VALUE COUNT(1) FROM c WHERE c["tenantId"] = @t')
    scan = await charge_of(
        'SELECT VALUE {"threadId": c["threadId"], "text": c.text} FROM c WHERE c["tenantId"] = @t'
    )
    assert 2.3 <= count < scan
    one = await charge_of(
        'SELECT TOP 1 VALUE c.turn FROM c WHERE c["tenantId"] = @t AND c.turn > 100 ORDER BY c.turn'
    )
    assert one < count  # a seek touches one index entry


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_the_sync_client_pages_and_reads(fake_cosmos: FakeCosmos) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId", ranges=4)
    fake_cosmos.seed(DB, "memory", turns("acme", "t", 25))
    with SyncClient(fake_cosmos.endpoint, fake_cosmos.key) as sdk:
        c = sdk.get_database_client(DB).get_container_client("memory")
        assert c.read_item("acme.t.003", partition_key="acme")["turn"] == 3
        pages = [
            list(p)
            for p in c.query_items(
                "SELECT VALUE c.turn FROM c ORDER BY c.turn",
                partition_key="acme",
                max_item_count=10,
            ).by_page()
        ]
        assert [len(p) for p in pages] == [10, 10, 5]
        assert [turn for page in pages for turn in page] == list(range(25))


async def test_a_split_range_answers_gone_and_feed_range_queries_follow_it(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId", ranges=4)
    fake_cosmos.seed(DB, "memory", [{"id": f"i{n}", "tenantId": f"t{n:03d}"} for n in range(100)])
    c = container_of(client, "memory")
    feed_ranges = [r async for r in c.read_feed_ranges()]
    parent = fake_cosmos.container(DB, "memory").ranges[1]
    left, right = fake_cosmos.split(DB, "memory", parent.id, parent.min[:2] + "8")
    fake_cosmos.log.clear()
    counts = []
    for feed_range in feed_ranges:  # taken before the split: the SDK re-resolves them
        counts += [
            r async for r in c.query_items("SELECT VALUE COUNT(1) FROM c", feed_range=feed_range)
        ]
    assert sum(counts) == 100
    assert fake_cosmos.log.of("query", status=410, range_id=parent.id)
    assert {left.id, right.id} <= {e.range_id for e in fake_cosmos.log.queries(status=200)}


async def test_a_split_during_a_cross_partition_count_double_counts_in_the_sdk(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    """Characterisation of azure-cosmos 4.17.1: when a range named by the query plan's
    routing is gone (410 / 1002), the pipelined aggregate rebuilds its producers but
    keeps iterating the stale list, so the ranges after the split one are counted twice."""
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId", ranges=4)
    fake_cosmos.seed(DB, "memory", [{"id": f"i{n}", "tenantId": f"t{n:03d}"} for n in range(100)])
    c = container_of(client, "memory")
    assert [r async for r in c.query_items("SELECT VALUE COUNT(1) FROM c")] == [100]
    made = fake_cosmos.container(DB, "memory")
    parent = made.ranges[1]
    after_split = sum(len(r.docs) for r in made.ranges[2:])
    fake_cosmos.split(DB, "memory", parent.id, parent.min[:2] + "8")
    assert [r async for r in c.query_items("SELECT VALUE COUNT(1) FROM c")] == [100 + after_split]


async def test_short_and_empty_pages_still_read_everything_once() -> None:
    """The service may stop a page early (time or RU per page) — even with no rows but a
    continuation. ``max_visits_per_page`` makes the fake do that."""
    with FakeCosmos(max_visits_per_page=7) as fake:
        fake.create_container(DB, "memory", partition_key="/tenantId", ranges=4)
        fake.seed(DB, "memory", [{"id": f"i{n}", "tenantId": "t", "n": n} for n in range(60)])
        async with CosmosClient(fake.endpoint, fake.key) as sdk:
            c = container_of(sdk, "memory")
            rows = [
                r
                async for r in c.query_items(
                    "SELECT VALUE c.n FROM c WHERE c.n % 10 = 0",
                    partition_key="t",
                    max_item_count=5,
                )
            ]
            assert rows == [0, 10, 20, 30, 40, 50]
            queries = fake.log.queries()
            assert any(e.item_count == 0 and e.continuation_out for e in queries)
            assert len(queries) == 9  # ceil(60 / 7) backend pages
            everything = [r async for r in c.read_all_items(max_item_count=25)]
            assert sorted(r["n"] for r in everything) == list(range(60))
            assert fake.log.of("feed")


async def test_the_log_records_what_each_request_asked(
    fake_cosmos: FakeCosmos, client: CosmosClient
) -> None:
    fake_cosmos.create_container(DB, "memory", partition_key="/tenantId", ranges=4)
    fake_cosmos.seed(DB, "memory", turns("acme", "t", 30))
    c = container_of(client, "memory")
    fake_cosmos.log.clear()
    pager = c.query_items(
        "SELECT * FROM c WHERE c.turn > @n",
        parameters=[{"name": "@n", "value": 3}],
        partition_key="acme",
        max_item_count=10,
        priority="Low",
    ).by_page()
    _ = [r async for r in await pager.__anext__()]
    (entry,) = fake_cosmos.log.queries()
    assert entry.priority == "Low"
    assert entry.partition_key == '["acme"]'
    assert entry.max_item_count == 10
    assert entry.parameters == [{"name": "@n", "value": 3}]
    assert entry.range_id == fake_cosmos.range_of(DB, "memory", "acme")
    assert entry.continuation_in is None and entry.continuation_out
    assert entry.charge > 2.3 and entry.item_count == 10
    assert "x-ms-documentdb-isquery" in entry.headers
