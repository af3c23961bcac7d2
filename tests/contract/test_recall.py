"""Recall probes: every backend ranks the same items the memory system's query would.

The truth is computed here, in the test, from the planted items with
``Distance.score`` (VectorDistance's formula): the exact probe must return exactly that
ranking on every backend, and the vector probe may differ only where a backend has an
approximate index (it then says ``index_is_exact=False``). Scope, filters, embeddings of
the wrong shape and expiry are answered alike everywhere; one request per probe.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import (
    Distance,
    FilterOp,
    ProbeMode,
    RecallAnswer,
    RecallFilter,
    RecallQuery,
)
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.recall import RecallRefused
from cosmem_tui.sources.store import MemoryStore
from tests.contract.backends import Backend
from tests.helpers import exchange

LAB = get_schema("lab")
T1 = ThreadRef.of("acme", "t1")
ACME = TtlScope.of_tenant(Key.of("acme"))
QUERY = (1.0, 0.2, 0.0, 0.1)
NOT_SUPERSEDED = RecallFilter("/superseded_by", FilterOp.ABSENT, label="not superseded")


def _vector(n: int) -> list[float]:
    # Distinct, deterministic directions around the query: no two items tie.
    angle = 0.13 * n
    return [round(math.cos(angle), 6), round(math.sin(angle), 6), 0.05 * (n % 3), 0.01 * n]


def planted() -> list[dict[str, Any]]:
    items = [
        exchange("acme", "t1", n, f"note {n}", content=f"note {n} about tea", embedding=_vector(n))
        for n in range(12)
    ]
    items[3]["content"] = "the invoice number is 4471"
    items.append(
        exchange("acme", "t2", 0, "other", content="tea in another thread", embedding=_vector(1))
    )
    items.append(exchange("umbrella", "t1", 0, "x", content="tea elsewhere", embedding=_vector(0)))
    items.append(exchange("acme", "t1", 20, "no vector", content="tea but no embedding"))
    items.append(exchange("acme", "t1", 21, "short", content="tea", embedding=[1.0, 0.2, 0.0]))
    items.append(
        exchange(
            "acme",
            "t1",
            22,
            "nested",
            content="tea nested",
            messages=[{"role": "user", "content": "x", "embedding": list(QUERY)}],
        )
    )
    items.append(
        exchange(
            "acme",
            "t1",
            23,
            "old fact",
            content="tea old",
            embedding=list(QUERY),
            superseded_by="t1-24",
        )
    )
    # Four elements, but not four numbers: VectorDistance is undefined for them.
    for n, bad in ((25, [True, 0.2, 0.0, 0.0]), (26, ["1", 0.2, 0.0, 0.0]), (27, [None, 0, 0, 0])):
        items.append(exchange("acme", "t1", n, "bad", content="tea typed wrong", embedding=bad))
    return items


def numeric(vector: Any) -> bool:
    return isinstance(vector, list) and all(
        isinstance(x, int | float) and not isinstance(x, bool) for x in vector
    )


def truth(items: list[dict[str, Any]], where: Any, distance: Distance, k: int) -> list[str]:
    scored = []
    for item in items:
        vector = item.get("embedding")
        if not where(item) or not numeric(vector) or len(vector) != len(QUERY):
            continue
        scored.append((distance.score(vector, QUERY), item["id"]))
    scored.sort(key=lambda s: (-s[0] if distance.larger_is_closer else s[0], s[1]))
    return [item_id for _, item_id in scored[:k]]


def in_t1(item: dict[str, Any]) -> bool:
    return item["tenantId"] == "acme" and item["threadId"] == "t1"


def vector_query(scope: TtlScope, mode: ProbeMode, **extra: Any) -> RecallQuery:
    fields: dict[str, Any] = {
        "scope": scope,
        "mode": mode,
        "k": 5,
        "vector_path": "/embedding",
        "vector": QUERY,
        **extra,
    }
    return RecallQuery(**fields)


def policies(distance: Distance = Distance.COSINE) -> dict[str, Any]:
    """A memory container's search policies: the embedding and the text the probes use."""
    vector = {"path": "/embedding", "dataType": "float32", "dimensions": len(QUERY)}
    return {
        "vector_embedding_policy": {
            "vectorEmbeddings": [{**vector, "distanceFunction": distance.value}]
        },
        "full_text_policy": {
            "defaultLanguage": "en-US",
            "fullTextPaths": [{"path": "/content", "language": "en-US"}],
        },
    }


async def store_of(
    backend: Backend, distance: Distance = Distance.COSINE
) -> tuple[MemoryStore, list[dict[str, Any]]]:
    items = planted()
    store = await backend.make_store(items, schema=LAB, default_ttl=-1, policies=policies(distance))
    return store, items


async def recalled(backend: Backend, store: MemoryStore, query: RecallQuery) -> RecallAnswer | None:
    """The probe's answer; None on the npm peer, whose query engine cannot ORDER BY a
    function (VectorDistance) nor parse ORDER BY RANK: there the store must refuse the
    probe in one line, never answer a list (tests/peer/cosmos-peer.js)."""
    if backend.name != "cosmos":
        return await store.recall(query)
    with pytest.raises(RecallRefused) as refused:
        await store.recall(query)
    message = str(refused.value)
    assert "\n" not in message and f"refused the {query.mode} recall probe" in message
    return None


def tied_alike(got: list[str], want: list[str], items: list[dict[str, Any]]) -> bool:
    """The same ranking, items of equal score in any order (Cosmos orders ties as it
    likes, and a cross-partition merge as the partitions answer)."""
    vectors = {i["id"]: tuple(i["embedding"]) for i in items if "embedding" in i}
    return [vectors[i] for i in got] == [vectors[i] for i in want] and set(got) == set(want)


@pytest.mark.parametrize("distance", list(Distance))
async def test_exact_probe_is_the_true_ranking_for_each_distance(
    backend: Backend, distance: Distance
) -> None:
    store, items = await store_of(backend, distance)
    before = len(store.ledger.records())
    answer = await recalled(
        backend, store, vector_query(TtlScope.of_thread(T1), ProbeMode.EXACT, distance=distance)
    )
    if answer is None:
        return
    assert [h.id for h in answer.hits] == truth(items, in_t1, distance, 5)
    assert [h.rank for h in answer.hits] == [1, 2, 3, 4, 5]
    by_id = {i["id"]: i for i in items}
    for hit in answer.hits:
        assert hit.thread == T1
        assert hit.score == pytest.approx(distance.score(by_id[hit.id]["embedding"], QUERY))
    assert answer.requests >= 1 and answer.request_units > 0
    assert len(store.ledger.records()) > before


async def test_vector_probe_never_crosses_its_scope_and_skips_bad_embeddings(
    backend: Backend,
) -> None:
    store, items = await store_of(backend)
    answer = await recalled(
        backend, store, vector_query(TtlScope.of_thread(T1), ProbeMode.VECTOR, k=50)
    )
    if answer is None:
        return
    ids = {h.id for h in answer.hits}
    # Every well-formed item of the thread, none of another thread or tenant, none whose
    # embedding is missing, nested or of another length.
    expected = {
        i["id"]
        for i in items
        if in_t1(i) and numeric(i.get("embedding")) and len(i.get("embedding") or []) == 4
    }
    if answer.index_is_exact:
        assert ids == expected
        assert [h.id for h in answer.hits] == truth(items, in_t1, Distance.COSINE, 50)
    else:
        assert ids <= expected
    assert not ids & {"t2-0", "t1-20", "t1-21", "t1-22", "t1-25", "t1-26", "t1-27"}


async def test_tenant_probe_spans_the_tenants_threads_only(backend: Backend) -> None:
    store, items = await store_of(backend)
    answer = await recalled(backend, store, vector_query(ACME, ProbeMode.EXACT, k=50))
    if answer is None:
        return
    ids = [h.id for h in answer.hits]
    want = truth(items, lambda i: i["tenantId"] == "acme", Distance.COSINE, 50)
    assert tied_alike(ids, want, items)  # t2-0 and t1-1 have the same embedding
    assert "t2-0" in ids
    assert {h.thread for h in answer.hits} == {T1, ThreadRef.of("acme", "t2")}


async def test_filters_exclude_as_cosmos_does(backend: Backend) -> None:
    store, items = await store_of(backend)
    scope = TtlScope.of_thread(T1)
    plain = await recalled(backend, store, vector_query(scope, ProbeMode.EXACT, k=1))
    if plain is None:
        return
    assert [h.id for h in plain.hits] == ["t1-23"]  # the superseded fact is the closest
    active = await store.recall(
        vector_query(scope, ProbeMode.EXACT, k=1, filters=(NOT_SUPERSEDED,))
    )  # the peer refused already
    active_truth = truth(items, lambda i: in_t1(i) and "superseded_by" not in i, Distance.COSINE, 1)
    assert [h.id for h in active.hits] == active_truth != ["t1-23"]
    only = await store.recall(
        vector_query(
            scope,
            ProbeMode.EXACT,
            k=50,
            filters=(RecallFilter("/turnIndex", FilterOp.IN, (3, 4)),),
        )
    )
    assert sorted(h.id for h in only.hits) == ["t1-3", "t1-4"]


async def test_text_probe_ranks_items_holding_the_terms(backend: Backend) -> None:
    store, _ = await store_of(backend)
    answer = await recalled(
        backend,
        store,
        RecallQuery(
            scope=TtlScope.of_thread(T1),
            mode=ProbeMode.TEXT,
            k=3,
            text_paths=("/content",),
            terms=("invoice", "4471"),
        ),
    )
    if answer is None:
        return
    assert [h.id for h in answer.hits][:1] == ["t1-3"]
    assert all(h.score is None for h in answer.hits)  # FullTextScore cannot be selected


async def test_hybrid_probe_returns_at_most_k_of_both_signals(backend: Backend) -> None:
    store, items = await store_of(backend)
    answer = await recalled(
        backend,
        store,
        vector_query(
            TtlScope.of_thread(T1),
            ProbeMode.HYBRID,
            k=3,
            text_paths=("/content",),
            terms=("invoice",),
            filters=(NOT_SUPERSEDED,),
        ),
    )
    if answer is None:
        return
    ids = [h.id for h in answer.hits]
    assert len(ids) == 3
    assert "t1-3" in ids  # first by text
    assert truth(items, in_t1, Distance.COSINE, 2)[1] in ids or "t1-0" in ids


async def test_lookup_item_reads_the_whole_item_and_places_it(backend: Backend) -> None:
    store, _ = await store_of(backend)
    found = await store.lookup_item(ACME, "t1-3")
    assert found.found and found.item is not None
    assert found.item.body["embedding"] == _vector(3)
    assert found.thread == T1
    missing = await store.lookup_item(TtlScope.of_thread(ThreadRef.of("acme", "t2")), "t1-3")
    assert not missing.found and missing.expired_at is None


async def test_lookup_item_of_an_expired_item(backend: Backend) -> None:
    items = [
        exchange("acme", "t1", 0, "short-lived", ttl=2, embedding=list(QUERY)),
        exchange("acme", "t1", 1, "kept", embedding=list(QUERY)),
    ]
    store = await backend.make_store(items, schema=LAB, default_ttl=-1, policies=policies())
    await backend.advance(4)
    lookup = await store.lookup_item(TtlScope.of_thread(T1), "t1-0")
    assert lookup.item is None
    # The local workspace still holds it and says where and when it expired; a Cosmos
    # container hides it at once (nothing found).
    if lookup.expired_at is not None:
        assert lookup.thread == T1
    answer = await recalled(backend, store, vector_query(TtlScope.of_thread(T1), ProbeMode.EXACT))
    if answer is not None:
        assert [h.id for h in answer.hits] == ["t1-1"]


async def test_terms_are_data_never_query_syntax(backend: Backend) -> None:
    store, _ = await store_of(backend)
    answer = await recalled(
        backend,
        store,
        RecallQuery(
            scope=TtlScope.of_thread(T1),
            mode=ProbeMode.TEXT,
            k=5,
            text_paths=("/content",),
            terms=('say "hi"', "OR", "NEAR(a b)", "x*", "content:tea", "4471"),
        ),
    )
    if answer is None:
        return
    assert [h.id for h in answer.hits] == ["t1-3"]  # only the literal 4471 matches
