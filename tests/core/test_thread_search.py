"""ThreadSearch pages hits lazily over a real workspace store, counts a turn once however
many of its messages match, and ``pages_to`` brings a hit beyond the loaded rows into a
TurnWindow; every request is single-partition and the budget is asked before it is passed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.thread_search import ThreadSearch, pages_to
from cosmem_tui.core.turn_window import Side, TurnWindow
from cosmem_tui.model import BudgetQuestion, FrozenClock, Scope, ThreadRef
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.errors import BudgetSpent
from cosmem_tui.sources.local import LocalStore
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange

REF = ThreadRef.of("acme", "long")
HITS = (3, 250, 700, 701, 998)  # turns whose user message says "marker"


def long_thread() -> list[dict[str, Any]]:
    items = [exchange("acme", "long", i, "MARKER" if i in HITS else "plain") for i in range(1000)]
    items[701]["messages"][1]["content"] = "marker again"  # two matching messages, one hit
    return items


def open_service(tmp_path: Path, *, budget: float | None = None) -> BrowseService:
    clock = FrozenClock(ANCHOR)
    path = build_workspace(tmp_path / "long.sqlite", long_thread(), now=ANCHOR)
    ledger = RequestLedger(budget_ru=budget)
    return BrowseService(
        LocalStore.open(path, get_schema("lab"), ledger=ledger, clock=clock), clock
    )


def searches(service: BrowseService) -> list[Any]:
    return [r for r in service.ledger.records() if r.operation == "search-turns"]


async def test_hits_are_fetched_a_page_at_a_time(tmp_path: Path) -> None:
    service = open_service(tmp_path)
    search = ThreadSearch(service, REF, "marker", page_size=2)
    first = await search.hit(0)
    assert first is not None and first.turn.item_id == "long-3"
    assert len(searches(service)) == 1
    assert search.describe(0) == "hit 1 of 2+"
    last = await search.hit(4)
    assert last is not None and last.turn.item_id == "long-998"
    assert [h.turn.item_id for h in search.hits] == [f"long-{i}" for i in HITS]
    assert search.exhausted and search.describe(4) == "hit 5 of 5"
    assert await search.hit(5) is None
    assert {r.scope for r in searches(service)} == {Scope.PARTITION}


async def test_no_hits(tmp_path: Path) -> None:
    service = open_service(tmp_path)
    search = ThreadSearch(service, REF, "absent words")
    assert await search.hit(0) is None
    assert search.exhausted and search.count_text() == "0"


def test_empty_text_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="empty"):
        ThreadSearch(open_service(tmp_path), REF, "  ")


async def test_a_hit_beyond_the_loaded_rows_is_paged_into_the_window(tmp_path: Path) -> None:
    service = open_service(tmp_path)
    window = TurnWindow(REF, expected_total=1000)
    window.apply(Side.HEAD, await service.first_page(REF))
    hit = await ThreadSearch(service, REF, "marker").hit(2)
    assert hit is not None and window.index_of(hit.turn.key) is None
    pages = await pages_to(
        service,
        REF,
        hit.turn.item_id,
        continuation=window.continuation(Side.HEAD),
        started=window.started(Side.HEAD),
    )
    for page in pages:
        window.apply(Side.HEAD, page)
    assert window.index_of(hit.turn.key) == 700
    assert len(pages) == 4  # 50 loaded, then pages of 200 up to the one holding row 700
    assert {r.scope for r in service.ledger.records()} <= {Scope.PARTITION, Scope.METADATA}


async def test_past_the_budget_a_search_asks_once_and_a_no_sends_nothing(tmp_path: Path) -> None:
    service = open_service(tmp_path, budget=1.0)
    await service.container()
    await service.first_page(REF)  # spends the tiny budget
    asked: list[BudgetQuestion] = []

    async def refuse(question: BudgetQuestion) -> bool:
        asked.append(question)
        return False

    service.ledger.set_confirmer(refuse)
    before = len(searches(service))
    with pytest.raises(BudgetSpent):
        await ThreadSearch(service, REF, "marker").hit(0)
    assert [q.operation for q in asked] == ["search-turns"]
    assert len(searches(service)) == before


async def test_a_session_document_gives_one_hit_per_matching_message(tmp_path: Path) -> None:
    from tests.contract.test_thread_search import LANGCHAIN_SESSIONS

    clock = FrozenClock(ANCHOR)
    path = build_workspace(
        tmp_path / "sessions.sqlite", LANGCHAIN_SESSIONS, now=ANCHOR, schema=get_schema("langchain")
    )
    store = LocalStore.open(path, get_schema("langchain"), ledger=RequestLedger(), clock=clock)
    search = ThreadSearch(BrowseService(store, clock), ThreadRef.of("alice", "s1"), "needle")
    assert await search.hit(2) is None
    assert [h.turn.key for h in search.hits] == [("s1", 1), ("s1", 2)]


async def test_a_long_session_gives_only_its_matching_messages(tmp_path: Path) -> None:
    # Longer than the search probes reach: the item comes as a whole, and of its 40
    # turns only message 33, the one holding the text, is a hit.
    from tests.contract.test_thread_search import session_document

    contents: list[Any] = [f"words {n}" for n in range(1, 41)]
    contents[32] = "the NEEDLE at last"
    clock = FrozenClock(ANCHOR)
    schema = get_schema("langchain")
    path = build_workspace(
        tmp_path / "session.sqlite", [session_document("s9", contents)], now=ANCHOR, schema=schema
    )
    store = LocalStore.open(path, schema, ledger=RequestLedger(), clock=clock)
    search = ThreadSearch(BrowseService(store, clock), ThreadRef.of("alice", "s9"), "needle")
    assert await search.hit(1) is None
    assert [h.turn.key for h in search.hits] == [("s9", 32)]
    assert search.exhausted and search.count_text() == "1"
