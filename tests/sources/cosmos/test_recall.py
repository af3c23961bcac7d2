"""Recall probes on the fake gateway through the real SDK: the queries the memory system
runs (vector, exact, full-text, hybrid), where they go, what they cost, and lookups.

The expected rankings are computed here from the items (``Distance.score``), never read
back from the fake: a tenant that spans two physical partitions must still come back as
one ranking, and the approximate index must be told from the exact answer.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from cosmem_tui.model import Key, Scope, ThreadRef
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import (
    Distance,
    FilterOp,
    ProbeMode,
    RecallFilter,
    RecallQuery,
)
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from cosmem_tui.sources.errors import StoreError
from tests.helpers import exchange

LAB = get_schema("lab")
DIMS = 4
VECTORS = {
    "vectorEmbeddings": [
        {
            "path": "/embedding",
            "dataType": "float32",
            "distanceFunction": "cosine",
            "dimensions": DIMS,
        }
    ]
}
TEXT = {"defaultLanguage": "en-US", "fullTextPaths": [{"path": "/content", "language": "en-US"}]}
QUERY = (1.0, 0.2, 0.0, 0.1)
WORDS = ["tea", "coffee", "ferry", "invoice", "garden", "violin"]


def embedding(n: int) -> list[float]:
    return [math.cos(n / 5), math.sin(n / 3), (n % 7) / 7, ((n * 3) % 5) / 5]


def items() -> list[dict[str, Any]]:
    out = []
    for n in range(60):
        tenant = "acme" if n % 3 else "bolt"
        item = exchange(tenant, f"t{n % 4}", n, embedding=embedding(n), type="fact")
        item["content"] = f"{WORDS[n % 6]} note {n} " + ("tea tea" if n % 10 == 0 else "")
        if n % 11 == 0:
            item["supersededBy"] = f"t{n % 4}-{n + 1}"
        out.append(item)
    # the pitfalls: a nested embedding, a short one, none
    out.append(exchange("acme", "t1", 100, messages_embedding=embedding(3), content="tea"))
    out.append(exchange("acme", "t1", 101, embedding=embedding(3)[:3], content="tea"))
    out.append(exchange("acme", "t1", 102, content="tea"))
    return out


def exact(rows: list[dict[str, Any]], keep: Callable[[dict[str, Any]], bool], k: int) -> list[str]:
    scored = [
        (Distance.COSINE.score(QUERY, r["embedding"]), r["id"])
        for r in rows
        if keep(r) and len(r.get("embedding", [])) == DIMS
    ]
    scored.sort(key=lambda s: -s[0])
    return [i for _, i in scored[:k]]


@pytest.fixture
async def open_store(fake_cosmos) -> AsyncIterator[Callable[..., CosmosStore]]:
    stores: list[CosmosStore] = []

    def make(*, quantum: float | None = None, ranges: int = 4) -> CosmosStore:
        name = f"memory{len(stores)}"
        fake_cosmos.create_container(
            "db",
            name,
            partition_key=["/tenantId", "/threadId"],
            ranges=ranges,
            split_inside=[["acme"]],  # acme spans two physical partitions
            default_ttl=-1,
            vector_embedding_policy=VECTORS,
            full_text_policy=TEXT,
            vector_quantum=quantum,
        )
        fake_cosmos.seed("db", name, items())
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


ACME = TtlScope.of_tenant(Key.of("acme"))
THREAD = TtlScope.of_thread(ThreadRef.of("acme", "t1"))


def vector_query(scope: TtlScope, mode: ProbeMode = ProbeMode.VECTOR, **kw: Any) -> RecallQuery:
    return RecallQuery(scope, mode, kw.pop("k", 5), "/embedding", Distance.COSINE, QUERY, **kw)


async def test_a_tenant_across_two_partitions_is_one_ranking(open_store, fake_cosmos) -> None:
    store = open_store()
    assert len(fake_cosmos.ranges_of_prefix("db", "memory0", ["acme"])) == 2
    fake_cosmos.log.clear()
    answer = await store.recall(vector_query(ACME, ProbeMode.EXACT, k=8))
    # the SDK's pipeline sends each range its own query, every one at Low priority
    sent = fake_cosmos.log.of("query")
    assert len({e.range_id for e in sent if e.status == 200}) == 2
    assert {e.priority for e in sent} == {"Low"}
    want = exact(items(), lambda r: r["tenantId"] == "acme", 8)
    assert [h.id for h in answer.hits] == want
    assert [h.rank for h in answer.hits] == list(range(1, 9))
    scores = [h.score for h in answer.hits]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert all(h.thread.tenant == Key.of("acme") for h in answer.hits)
    records = store.ledger.records()
    probes = [r for r in records if r.operation == "recall-exact"]
    # the query plan and the range map are metadata; every page is the tenant's prefix
    assert probes and {r.scope for r in probes} - {Scope.METADATA} == {Scope.PREFIX}
    assert answer.requests == len([r for r in records if r.operation.startswith("recall")])
    assert answer.request_units > 0


async def test_a_thread_probe_is_one_partition_at_low_priority(open_store, fake_cosmos) -> None:
    store = open_store()
    fake_cosmos.log.clear()
    answer = await store.recall(vector_query(THREAD, k=3))
    thread_rows = [r for r in items() if r["tenantId"] == "acme" and r["threadId"] == "t1"]
    assert [h.id for h in answer.hits] == exact(thread_rows, lambda r: True, 3)
    queries = fake_cosmos.log.of("query")
    assert queries and all(e.partition_key is not None for e in queries)
    assert {e.priority for e in queries} == {"Low"}
    # parameterised: no vector component, term or key value is in the text
    assert all("@v" in (e.query or "") and "0.2" not in (e.query or "") for e in queries)
    scopes = {r.scope for r in store.ledger.records() if r.operation == "recall-vector"}
    assert scopes - {Scope.METADATA} == {Scope.PARTITION}


async def test_the_approximate_index_misses_true_neighbours(open_store) -> None:
    store = open_store(quantum=0.75)
    index = await store.recall(vector_query(ACME, k=10))
    truth = await store.recall(vector_query(ACME, ProbeMode.EXACT, k=10))
    want = exact(items(), lambda r: r["tenantId"] == "acme", 10)
    assert [h.id for h in truth.hits] == want
    found = {h.id for h in index.hits} & set(want)
    assert len(index.hits) == 10 and len(found) < 10  # recall@10 < 1, deterministically


async def test_filters_and_pitfalls_are_not_recalled(open_store) -> None:
    store = open_store()
    filters = (
        RecallFilter("/type", FilterOp.IN, ("fact",)),
        RecallFilter("/supersededBy", FilterOp.ABSENT, label="not superseded"),
    )
    answer = await store.recall(vector_query(ACME, ProbeMode.EXACT, k=40, filters=filters))
    keep = lambda r: r["tenantId"] == "acme" and r.get("type") == "fact" and "supersededBy" not in r  # noqa: E731
    assert [h.id for h in answer.hits] == exact(items(), keep, 40)
    ids = {h.id for h in answer.hits}
    assert not ids & {"t1-100", "t1-101", "t1-102"}  # nested, 3 of 4 dimensions, none


async def test_full_text_ranks_by_the_key_terms(open_store) -> None:
    store = open_store()
    query = RecallQuery(ACME, ProbeMode.TEXT, 20, text_paths=("/content",), terms=("tea",))
    answer = await store.recall(query)
    rows = {r["id"]: r for r in items()}
    with_tea = {i for i, r in rows.items() if r["tenantId"] == "acme" and "tea" in r["content"]}
    assert len(with_tea) == 7 and {h.id for h in answer.hits} == with_tea
    assert all(h.score is None for h in answer.hits)  # FullTextScore is never projected
    top = await store.recall(
        RecallQuery(ACME, ProbeMode.TEXT, 3, text_paths=("/content",), terms=("tea",))
    )
    assert [h.id for h in top.hits] == [h.id for h in answer.hits[:3]]


async def test_hybrid_fuses_both_ranks(open_store) -> None:
    store = open_store()
    query = RecallQuery(
        ACME, ProbeMode.HYBRID, 6, "/embedding", Distance.COSINE, QUERY, ("/content",), ("tea",)
    )
    answer = await store.recall(query)
    vector = await store.recall(vector_query(ACME, k=6))
    text = await store.recall(
        RecallQuery(ACME, ProbeMode.TEXT, 6, text_paths=("/content",), terms=("tea",))
    )
    assert len(answer.hits) == 6
    assert {h.id for h in answer.hits} <= {h.id for h in vector.hits} | {h.id for h in text.hits}
    assert answer.hits[0].score is not None  # the vector distance, projected


async def test_a_path_without_a_full_text_policy_is_one_line(open_store) -> None:
    store = open_store()
    query = RecallQuery(ACME, ProbeMode.TEXT, 5, text_paths=("/messages",), terms=("tea",))
    with pytest.raises(StoreError) as caught:
        await store.recall(query)
    message = str(caught.value)
    assert "\n" not in message and "full-text policy" in message


async def test_the_container_scope_is_a_fan_out_recorded_as_such(open_store) -> None:
    store = open_store()
    answer = await store.recall(vector_query(TtlScope.container(), ProbeMode.EXACT, k=4))
    assert [h.id for h in answer.hits] == exact(items(), lambda r: True, 4)
    scopes = {r.scope for r in store.ledger.records() if r.operation == "recall-exact"}
    assert scopes - {Scope.METADATA} == {Scope.CROSS_PARTITION}


async def test_lookup_finds_the_thread_then_reads_the_item(open_store) -> None:
    store = open_store()
    found = await store.lookup_item(ACME, "t2-14")
    assert found.found and found.thread == ThreadRef.of("acme", "t2")
    assert found.item is not None and found.item.body["embedding"] == embedding(14)
    assert found.request_units > 0
    ops = [r.operation for r in store.ledger.records()]
    assert "recall-find-item" in ops and "recall-read-item" in ops
    missing = await store.lookup_item(ACME, "t0-3")  # bolt's, not acme's
    assert not missing.found and missing.thread is None
    in_thread = await store.lookup_item(THREAD, "t1-100")
    assert in_thread.found and "embedding" not in in_thread.item.body  # type: ignore[union-attr]
    elsewhere = await store.lookup_item(THREAD, "t2-14")
    assert not elsewhere.found


async def test_ranked_probes_of_one_thread_stay_in_its_partition(open_store, fake_cosmos) -> None:
    store = open_store()
    fake_cosmos.log.clear()
    text = RecallQuery(THREAD, ProbeMode.TEXT, 10, text_paths=("/content",), terms=("tea",))
    answer = await store.recall(text)
    rows = [r for r in items() if r["tenantId"] == "acme" and r["threadId"] == "t1"]
    assert {h.id for h in answer.hits} == {r["id"] for r in rows if "tea" in r["content"]}
    hybrid = RecallQuery(
        THREAD, ProbeMode.HYBRID, 4, "/embedding", Distance.COSINE, QUERY, ("/content",), ("tea",)
    )
    fused = await store.recall(hybrid)
    assert len(fused.hits) == 4 and {h.thread for h in fused.hits} == {THREAD.thread}
    # statistics and components: only the thread's own range is read ("Local" scope)
    ranged = {e.range_id for e in fake_cosmos.log.of("query") if e.status == 200}
    assert ranged == {fake_cosmos.range_of("db", "memory0", ["acme", "t1"])}


async def test_the_service_measures_the_index_against_exact_search(open_store) -> None:
    """End to end on the fake's approximate index: recall@k below 1, the hits the exact
    search does not have marked, and an exact neighbour the index missed named as such."""
    import dataclasses

    from cosmem_tui.core.recall import RecallRequest, RecallService
    from cosmem_tui.model.recall import WhyNot
    from cosmem_tui.schemas.retrieval import RetrievalScope

    assert LAB.retrieval is not None
    tenant_wide = dataclasses.replace(
        LAB,
        retrieval=dataclasses.replace(LAB.retrieval, scope=RetrievalScope.TENANT, filters=()),
    )
    store = open_store(quantum=0.75).with_schema(tenant_wide)
    want = exact(items(), lambda r: r["tenantId"] == "acme", 10)
    index = await store.recall(vector_query(ACME, k=10))
    missed = [i for i in want if i not in {h.id for h in index.hits}]
    assert missed  # the fake's index is approximate: this test has something to find
    service = RecallService(store, tenant_wide, now=lambda: 1_795_996_800)
    request = RecallRequest(ACME, vector=QUERY, k=10, expect=(missed[0],))
    report = await service.run(await service.plan(request))
    assert not report.index_is_exact
    assert report.recall_at_k == pytest.approx((10 - len(missed)) / 10)
    assert [h.id for h in report.hits] == [h.id for h in index.hits]
    assert {h.id for h in report.hits if h.in_exact is False} == {
        h.id for h in index.hits if h.id not in want
    }
    (verdict,) = report.expected
    assert verdict.reason is WhyNot.INDEX_MISSED and verdict.rank is None
    assert f"ranked {want.index(missed[0]) + 1} by exact search" in verdict.why


@pytest.mark.parametrize("mode", [ProbeMode.EXACT, ProbeMode.HYBRID])
async def test_a_probe_through_a_429_storm_is_still_the_true_ranking(
    open_store, fake_cosmos, mode
) -> None:
    """Half the queries answer 429: the probe retries through the ledger (one record per
    attempt, each at low priority) and ranks exactly as on a calm account."""
    calm = await open_store().recall(vector_query(ACME, mode, k=10, **_text(mode)))
    store = open_store()
    await store.container_properties()
    before = len(store.ledger.records())
    fake_cosmos.log.clear()
    fake_cosmos.faults.storm(0.5, seed=7, kind="query", retry_after_ms=5)
    stormy = await store.recall(vector_query(ACME, mode, k=10, **_text(mode)))
    assert [h.id for h in stormy.hits] == [h.id for h in calm.hits]
    sent = fake_cosmos.log.queries()
    assert any(e.throttled for e in sent)  # the storm did reach the probe
    # One ledger record per HTTP request the fake saw (queries, plans, ranges, the SDK's
    # own account read), none outside it; every query at low priority.
    probes = [r for r in store.ledger.records()[before:] if r.operation.startswith("recall-")]
    assert len(store.ledger.records()[before:]) == len(fake_cosmos.log)
    assert any(r.status == 429 for r in probes)
    assert all(e.priority == "Low" for e in sent)


def _text(mode: ProbeMode) -> dict[str, Any]:
    if mode is ProbeMode.HYBRID:
        return {"text_paths": ("/content",), "terms": ("tea",)}
    return {}
