"""Search queries through the real SDK against the fake gateway, routed every way the
SDK routes them: a full key, a hierarchical prefix key, no key. ORDER BY RANK always
goes through the SDK's hybrid search pipeline (the gateway answers 400/1004 with a
``hybridSearchQueryInfo`` plan), whatever partition the query names."""

from __future__ import annotations

from typing import Any

import pytest
from azure.cosmos.aio import CosmosClient
from azure.cosmos.exceptions import CosmosHttpResponseError

VECTORS = {
    "vectorEmbeddings": [
        {"path": "/v", "dataType": "float32", "distanceFunction": "euclidean", "dimensions": 2}
    ]
}
TEXT = {"defaultLanguage": "en-US", "fullTextPaths": [{"path": "/text"}]}
RANKED = (
    "SELECT TOP @k c.id FROM c WHERE c.tenantId = @t "
    "ORDER BY RANK RRF(VectorDistance(c.v, @q), FullTextScore(c.text, @w))"
)


def docs() -> list[dict[str, Any]]:
    out = []
    for n in range(24):
        out.append(
            {
                "id": f"d{n}",
                "tenantId": "acme" if n % 2 else "bolt",
                "threadId": f"t{n % 3}",
                "v": [n / 10, 0.0],
                "text": "ferry tickets" if n % 4 == 1 else "garden notes",
            }
        )
    return out


@pytest.fixture
def account(fake_cosmos):
    fake_cosmos.create_container(
        "db",
        "m",
        partition_key=["/tenantId", "/threadId"],
        ranges=4,
        split_inside=[["acme"]],
        vector_embedding_policy=VECTORS,
        full_text_policy=TEXT,
    )
    fake_cosmos.seed("db", "m", docs())
    return fake_cosmos


async def run(account, text: str, params: dict[str, Any], **kw: Any) -> list[Any]:
    async with CosmosClient(account.endpoint, account.key) as client:
        container = client.get_database_client("db").get_container_client("m")
        parameters = [{"name": k, "value": v} for k, v in params.items()]
        return [r async for r in container.query_items(text, parameters=parameters, **kw)]


@pytest.mark.parametrize(
    "route", [{}, {"partition_key": ["acme"]}], ids=["cross-partition", "prefix"]
)
async def test_a_ranked_query_is_one_fused_ranking_over_a_split_tenant(account, route) -> None:
    params = {"@k": 4, "@t": "acme", "@q": [0.0, 0.0], "@w": "ferry"}
    rows = await run(account, RANKED, params, **route)
    # euclidean: d1 is nearest and has "ferry": first in both ranks, so first fused
    assert [r["id"] for r in rows][:1] == ["d1"] and len(rows) == 4
    assert all(int(r["id"][1:]) % 2 for r in rows)  # acme's only
    assert account.log.of("query-plan")  # the SDK asked for the plan


async def test_euclidean_ranks_smaller_first_across_partitions(account) -> None:
    text = "SELECT TOP 3 c.id FROM c WHERE c.tenantId = @t ORDER BY VectorDistance(c.v, @q)"
    rows = await run(account, text, {"@t": "acme", "@q": [1.05, 0.0]})
    assert [r["id"] for r in rows] == ["d11", "d9", "d13"]


async def test_a_refused_search_query_is_a_400(account) -> None:
    with pytest.raises(CosmosHttpResponseError) as caught:
        await run(account, "SELECT FullTextScore(c.text, 'x') AS s FROM c", {})
    assert caught.value.status_code == 400


async def test_containers_made_through_the_sdk_take_the_accounts_approximate_index(
    fake_cosmos,
) -> None:
    from azure.cosmos import PartitionKey

    fake_cosmos.store.vector_quantum = 0.5  # what FakeCosmosBackend.approximate_index sets
    cosine = {
        "vectorEmbeddings": [
            {"path": "/v", "dataType": "float32", "distanceFunction": "cosine", "dimensions": 2}
        ]
    }
    async with CosmosClient(fake_cosmos.endpoint, fake_cosmos.key) as client:
        db = await client.create_database_if_not_exists("db")
        container = await db.create_container(
            "m", partition_key=PartitionKey(path="/pk"), vector_embedding_policy=cosine
        )
        await container.upsert_item({"id": "near", "pk": "p", "v": [1.0, 0.24]})
        await container.upsert_item({"id": "far", "pk": "p", "v": [1.0, 0.6]})
        ask = "SELECT TOP 1 VALUE c.id FROM c ORDER BY VectorDistance(c.v, [1, 0.3]{})"
        index = [r async for r in container.query_items(ask.format(""), partition_key="p")]
        brute = [r async for r in container.query_items(ask.format(", true"), partition_key="p")]
    assert (index, brute) == (["far"], ["near"])
