"""RecallService: the memory system's own probe, and the one reason an expected item is
missing, for each reason, on items planted here (a local workspace, a frozen clock)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core.recall import FanOutNotConfirmed, RecallError, RecallRequest, RecallService
from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import ProbeMode, RecallAnswer, RecallQuery, WhyNot
from cosmem_tui.schemas import get_schema
from cosmem_tui.schemas.retrieval import RetrievalScope
from cosmem_tui.sources.local import LocalStore
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange

LAB = get_schema("lab")  # retrieval: one thread, k 5, not superseded
T1 = ThreadRef.of("acme", "t1")
QUERY = [1.0, 0.0, 0.0, 0.0]


def near(n: int) -> list[float]:
    """Farther from QUERY as n grows (cosine falls with n)."""
    return [1.0, 0.1 * n, 0.0, 0.0]


def planted() -> list[dict[str, Any]]:
    items = [exchange("acme", "t1", n, f"note {n}", embedding=near(n)) for n in range(1, 8)]
    items += [
        exchange("acme", "t1", 20, "query turn", embedding=QUERY),
        exchange("acme", "t1", 21, "short-lived", embedding=QUERY, ttl=60),
        exchange(
            "acme", "t1", 22, "nested",
            messages=[{"role": "user", "content": "nested", "embedding": QUERY}],
        ),
        exchange("acme", "t1", 23, "seven", embedding=[1.0, 0.0, 0.0]),
        exchange("acme", "t1", 24, "no embedding at all"),
        exchange("acme", "t1", 25, "old fact", embedding=QUERY, superseded_by="t1-1"),
        exchange("acme", "t2", 0, "other thread", embedding=QUERY),
        exchange("acme", "t1", 26, "typed wrong", embedding="not a vector"),
        exchange("acme", "t1", 27, "soon gone", embedding=near(9), ttl=3720),
    ]  # fmt: skip
    for item in items:  # the lab's full-text path: the exchange's text at the top level
        item["content"] = item["messages"][0]["content"]
    return items


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(ANCHOR)


@pytest.fixture
def store(tmp_path: Path, clock: FrozenClock) -> LocalStore:
    path = build_workspace(tmp_path / "w.sqlite", planted(), now=ANCHOR, schema=LAB)
    clock.advance(120)  # t1-21 (ttl 60) has expired
    return LocalStore.open(path, LAB, ledger=RequestLedger(), clock=clock)


def service(store: Any, clock: FrozenClock, schema: Any = LAB) -> RecallService:
    return RecallService(store, schema, now=lambda: int(clock.now()))


async def probe(svc: RecallService, *expect: str, **extra: Any) -> Any:
    request = RecallRequest(TtlScope.of_thread(T1), like="t1-20", expect=expect, **extra)
    return await svc.run(await svc.plan(request))


async def test_each_why_not_reason_with_its_evidence_and_cost(store, clock) -> None:
    report = await probe(
        service(store, clock),
        "t1-20", "t1-6", "t2-0", "t1-21", "t1-25", "t1-24", "t1-22", "t1-23", "t1-26",
    )  # fmt: skip
    verdicts = {v.id: v for v in report.expected}
    reasons = {item_id: v.reason for item_id, v in verdicts.items()}
    assert reasons == {
        "t1-20": WhyNot.FOUND,
        "t1-6": WhyNot.RANKED_BELOW_K,
        "t2-0": WhyNot.OUT_OF_SCOPE,
        "t1-21": WhyNot.EXPIRED,
        "t1-25": WhyNot.FILTERED,
        "t1-24": WhyNot.NO_EMBEDDING,
        "t1-22": WhyNot.WRONG_PATH,
        "t1-23": WhyNot.WRONG_DIMENSIONS,
        "t1-26": WhyNot.WRONG_DIMENSIONS,
    }
    assert verdicts["t1-20"].rank == 1
    # k is 5: t1-20 and t1-1…t1-4 are the top 5, t1-5 the 6th, t1-6 the 7th.
    assert [h.id for h in report.hits] == ["t1-20", "t1-1", "t1-2", "t1-3", "t1-4"]
    assert verdicts["t1-6"].rank == 7
    assert "ranked 7" in verdicts["t1-6"].why and "the 5th scores" in verdicts["t1-6"].why
    assert "acme / thread t2" in verdicts["t2-0"].why
    assert "expired at 2026-" in verdicts["t1-21"].why
    assert "not superseded" in verdicts["t1-25"].why and "'t1-1'" in verdicts["t1-25"].why
    assert "/messages/0/embedding" in verdicts["t1-22"].why
    assert "3 numbers" in verdicts["t1-23"].why and "4" in verdicts["t1-23"].why
    assert "a string" in verdicts["t1-26"].why
    for verdict in verdicts.values():
        assert verdict.why and "\n" not in verdict.why
        if verdict.reason is not WhyNot.FOUND:
            assert verdict.request_units > 0  # what finding out cost, from the ledger


async def test_about_to_expire_is_said_beside_the_reason(store, clock) -> None:
    report = await probe(service(store, clock), "t1-27", "t1-7")
    soon, later = report.expected
    assert soon.reason is WhyNot.RANKED_BELOW_K and soon.rank == 9
    assert "it expires in 1h00m (at 2026-11-30T01:02:00Z)" in soon.why
    assert "expires" not in later.why


async def test_ranked_just_below_k(store, clock) -> None:
    report = await probe(service(store, clock), "t1-5")
    (verdict,) = report.expected
    assert verdict.reason is WhyNot.RANKED_BELOW_K and verdict.rank == 6


async def test_index_equals_exact_on_the_local_workspace(store, clock) -> None:
    report = await probe(service(store, clock))
    assert report.index_is_exact and report.recall_at_k is None
    assert any("index = exact search (local workspace)" in n for n in report.notes)
    sent = [r.operation for r in store.ledger.records() if r.operation.startswith("recall-")]
    assert sent == ["recall-vector"]  # no second, exact probe of the same answer
    assert all(h.in_exact for h in report.hits)


class ApproximateIndex:
    """The local store behind an index that misses one true neighbour (as an approximate
    vector index can): VECTOR answers drop ``missed``; EXACT answers are the truth."""

    def __init__(self, store: LocalStore, missed: str) -> None:
        self._store = store
        self._missed = missed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def recall(self, query: RecallQuery) -> RecallAnswer:
        if query.mode is not ProbeMode.VECTOR:
            exact = await self._store.recall(query)
            return dataclasses.replace(exact, index_is_exact=False)
        deeper = dataclasses.replace(query, k=query.k + 1)
        answer = await self._store.recall(deeper)
        kept = [h for h in answer.hits if h.id != self._missed][: query.k]
        hits = tuple(dataclasses.replace(h, rank=n) for n, h in enumerate(kept, start=1))
        return dataclasses.replace(answer, query=query, hits=hits, index_is_exact=False)


async def test_index_missed_and_recall_at_k(store, clock) -> None:
    report = await probe(service(ApproximateIndex(store, "t1-3"), clock), "t1-3")
    assert report.recall_at_k == pytest.approx(4 / 5)
    assert not report.index_is_exact
    (verdict,) = report.expected
    assert verdict.reason is WhyNot.INDEX_MISSED
    assert "ranked 4 by exact search" in verdict.why
    marks = {h.id: h.in_exact for h in report.hits}
    assert marks["t1-5"] is False and marks["t1-1"] is True


async def test_hybrid_has_signal_ranks_and_says_the_fusion_is_approximate(store, clock) -> None:
    report = await probe(service(store, clock), text="nested note", k=3)
    assert report.mode is ProbeMode.HYBRID and len(report.hits) == 3
    assert any("approximation" in n for n in report.notes)
    assert any(h.signals.text is not None for h in report.hits)
    assert any(h.signals.vector is not None for h in report.hits)
    roles = [r.operation for r in store.ledger.records() if r.operation.startswith("recall-")]
    assert roles == ["recall-hybrid", "recall-vector", "recall-text"]


async def test_query_vector_is_summarised_never_whole(store, clock) -> None:
    report = await probe(service(store, clock))
    summary = report.query_vector
    assert summary.dims == 4 and summary.norm == pytest.approx(1.0)
    assert len(summary.first) <= 4 and "…" not in summary.describe()


async def test_a_container_scope_is_a_fan_out_that_must_be_confirmed(store, clock) -> None:
    retrieval = dataclasses.replace(LAB.how_it_retrieves, scope=RetrievalScope.CONTAINER)
    schema = dataclasses.replace(LAB, retrieval=retrieval)
    svc = service(store, clock, schema)
    plan = await svc.plan(RecallRequest(TtlScope.of_thread(T1), like="t1-20"))
    assert plan.fan_out and not plan.confirmed
    assert plan.estimate_ru is not None and plan.estimate_ru > 0
    with pytest.raises(FanOutNotConfirmed, match=r"about .* RU"):
        await svc.run(plan)
    assert not [r for r in store.ledger.records() if r.operation.startswith("recall-")]
    report = await svc.run(svc.allow_fan_out(plan))
    assert "t2-0" in {h.id for h in report.hits}  # the whole container


async def test_tenant_named_for_a_thread_scoped_system(store, clock) -> None:
    svc = service(store, clock)
    request = RecallRequest(TtlScope.of_tenant(Key.of("acme")), like="t1-20")
    plan = await svc.plan(request)
    assert plan.scope == TtlScope.of_thread(T1)  # the --like item's thread
    assert any("that of the --like item" in n for n in plan.notes)


async def test_like_problems_are_one_line_errors(store, clock) -> None:
    svc = service(store, clock)
    for like, words in (("t1-24", "no embedding"), ("t1-21", "expired"), ("zz", "no such")):
        with pytest.raises(RecallError, match=words):
            await svc.plan(RecallRequest(TtlScope.of_thread(T1), like=like))
    with pytest.raises(RecallError, match="give a query"):
        await svc.plan(RecallRequest(TtlScope.of_thread(T1)))
    with pytest.raises(RecallError, match="needs a query vector"):
        await svc.plan(RecallRequest(TtlScope.of_thread(T1), text="note", mode=ProbeMode.VECTOR))


def test_key_terms_drop_stop_words_and_repeats() -> None:
    from cosmem_tui.core.recall import key_terms

    assert key_terms("What is the Invoice number? the invoice!") == ("invoice", "number")
    assert len(key_terms(" ".join(f"w{n}" for n in range(50)))) == 30
