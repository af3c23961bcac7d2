"""The demo can be probed: its embeddings mean something, and its planted why-not cases
are what the manifest says, ranked as the lab schema's retrieval ranks them."""

from __future__ import annotations

import asyncio
import itertools
import random
import statistics

from cosmem_tui.core.demo import recall_cases
from cosmem_tui.core.demo.embedder import DemoEmbedder
from cosmem_tui.core.demo.generator import DEMO_SEED, DemoShape, demo_container, generate_items
from cosmem_tui.core.demo.words import load_words
from cosmem_tui.model import ThreadRef
from cosmem_tui.model.recall import Distance, Embedder, FilterOp, RecallFilter, admitted
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local import LocalStore
from tests.conftest import ANCHOR

SMALL = DemoShape(tenants=10, threads=40)  # holds fabrikam, the planted tenant
NOT_SUPERSEDED = RecallFilter("/superseded_by", FilterOp.ABSENT, label="not superseded")


def test_the_demo_embedder_is_an_embedder_labelled_and_deterministic():
    embedder: Embedder = DemoEmbedder()
    assert embedder.label == "demo embeddings"
    text = "Please send follow-ups about my invoice by email."
    vector = asyncio.run(embedder.embed(text))
    assert len(vector) == 8 and vector == tuple(DemoEmbedder().vector(text))
    assert abs(sum(v * v for v in vector) - 1) < 1e-3  # unit length (rounded values)
    assert DemoEmbedder().vector("the and of") == [0.0] * 8  # no word that counts


def test_texts_that_share_words_are_nearer_than_texts_that_do_not():
    """Over the demo's own phrases: pairs sharing a content word are nearer, on average,
    than pairs sharing none (8 dimensions make it a tendency, so it is measured on many
    pairs), and a text is nearest to a rewording of itself."""
    rng = random.Random(5)
    words = load_words()
    texts = [
        t.format_map(
            {k: rng.choice(v) for k, v in words.slots.items()} | {"num": "1", "Thing": "X"}
        )
        for t in words.templates
        for _ in range(6)
    ]
    embedder = DemoEmbedder()
    vectors = {t: embedder.vector(t) for t in texts}
    content = {t: set(embedder_words(t)) for t in texts}
    sharing, apart = [], []
    for a, b in itertools.combinations(texts, 2):
        score = Distance.COSINE.score(vectors[a], vectors[b])
        (sharing if content[a] & content[b] else apart).append(score)
    assert len(sharing) > 100 and len(apart) > 100
    assert statistics.mean(sharing) > statistics.mean(apart) + 0.2
    base = "My invoice was duplicated yesterday, please cancel it."
    near = "The duplicated invoice from yesterday: cancel it, please."
    far = "How do I share the calendar with a new hire?"
    score = Distance.COSINE.score
    assert score(embedder.vector(base), embedder.vector(near)) > score(
        embedder.vector(base), embedder.vector(far)
    )


def embedder_words(text: str) -> list[str]:
    from cosmem_tui.core.demo import embedder as module

    return [w for w in module._WORD.findall(text.lower()) if w not in module._STOP_WORDS]


def test_every_demo_turn_is_embedded_from_its_own_text():
    embedder = DemoEmbedder()
    items, _ = generate_items(ANCHOR, DEMO_SEED, SMALL)
    checked = 0
    for body in items:
        if "embedding" in body and body.get("tenantId") != recall_cases.RECALL_TENANT:
            expected = embedder.vector(body["content"])
            assert max(abs(a - b) for a, b in zip(body["embedding"], expected, strict=True)) < 2e-4
            checked += 1
    assert checked > 500


def planted() -> tuple[dict[str, dict], dict[str, str]]:
    items, manifest = generate_items(ANCHOR, DEMO_SEED, SMALL)
    bodies = {
        b["id"]: b
        for b in items
        if b.get("tenantId") == recall_cases.RECALL_TENANT
        and b.get("threadId") in (recall_cases.RECALL_THREAD, recall_cases.RECALL_OTHER_THREAD)
    }
    return bodies, manifest.recall


def visible(body: dict, now: int) -> bool:
    ttl = body.get("ttl")  # the demo container's default is -1: no ttl, no expiry
    return not (isinstance(ttl, int) and ttl > 0 and body["_ts"] + ttl <= now)


def test_the_manifest_names_every_planted_case():
    bodies, recall = planted()
    assert recall["tenant"] == "fabrikam" and recall["k"] == "10"
    for key in (
        "query",
        "found",
        "expired",
        "no_embedding_at_path",
        "wrong_dimensions",
        "filtered",
        "superseded_by",
        "ranked_below_k",
        "out_of_scope",
    ):
        assert recall[key] in bodies, key
    assert {b["threadId"] for b in bodies.values()} == {recall["thread"], recall["other_thread"]}


def test_each_planted_item_misses_for_its_one_reason_and_the_ranks_are_exact():
    """The lab retrieval by hand: scope the thread, drop what expired at the anchor, keep
    the not-superseded, cosine against the query turn's /embedding over the items with
    an 8-dimension /embedding; rank 1 is the query turn itself, as the service ranks it."""
    bodies, recall = planted()
    policy = demo_container().vector_embedding_policy
    assert policy is not None
    dims = policy["vectorEmbeddings"][0]["dimensions"]  # type: ignore[index]
    k = int(recall["k"])
    query = bodies[recall["query"]]["embedding"]
    in_thread = [b for b in bodies.values() if b["threadId"] == recall["thread"]]

    other = bodies[recall["out_of_scope"]]
    assert other["threadId"] == recall["other_thread"] and visible(other, ANCHOR)
    assert len(other["embedding"]) == dims and "superseded_by" not in other

    expired = bodies[recall["expired"]]
    assert not visible(expired, ANCHOR) and len(expired["embedding"]) == dims
    superseded = bodies[recall["filtered"]]
    assert visible(superseded, ANCHOR) and not admitted(NOT_SUPERSEDED, superseded)
    assert superseded["superseded_by"] == recall["superseded_by"]
    assert admitted(NOT_SUPERSEDED, bodies[recall["superseded_by"]])
    nested = bodies[recall["no_embedding_at_path"]]
    assert "embedding" not in nested and len(nested["messages"][0]["embedding"]) == dims
    assert len(bodies[recall["wrong_dimensions"]]["embedding"]) == 7

    ranked = sorted(
        (
            (Distance.COSINE.score(query, b["embedding"]), b["id"])
            for b in in_thread
            if visible(b, ANCHOR)
            and admitted(NOT_SUPERSEDED, b)
            and isinstance(b.get("embedding"), list)
            and len(b["embedding"]) == dims
        ),
        reverse=True,
    )
    order = [item_id for _, item_id in ranked]
    scores = [score for score, _ in ranked]
    assert order[0] == recall["query"]
    assert order.index(recall["found"]) + 1 <= k
    assert order.index(recall["ranked_below_k"]) + 1 == k + 1
    # No near tie decides a rank that matters (4-decimal vectors, other summation orders).
    assert scores[k - 1] - scores[k] > 1e-3 and scores[k] - scores[k + 1] > 1e-3
    for reason in ("expired", "no_embedding_at_path", "wrong_dimensions", "filtered"):
        assert recall[reason] not in order, reason
    assert len(order) > k + 1


async def test_the_workspace_hides_the_expired_case_but_holds_it(demo_path, manifest, clock):
    store = LocalStore.open(demo_path, get_schema("lab"), clock=clock)
    recall = manifest.recall
    page = await store.page_turns(ThreadRef.of(recall["tenant"], recall["thread"]), page_size=100)
    shown = {i.id for i in page.items}
    assert recall["query"] in shown and recall["found"] in shown
    assert recall["expired"] not in shown
    held = store.workspace._db.execute(
        "SELECT COUNT(*) FROM items WHERE id = ?", (recall["expired"],)
    ).fetchone()[0]
    assert held == 1
    await store.close()
