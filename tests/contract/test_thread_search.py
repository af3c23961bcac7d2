"""Whole-thread search: every backend finds the same items, in list order, page by page,
with one single-partition request per page and the text only ever a parameter."""

from __future__ import annotations

from typing import Any

import pytest

from cosmem_tui.model import BudgetQuestion, Scope, ThreadRef
from cosmem_tui.model.ordering import order_key
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.errors import BudgetSpent
from cosmem_tui.sources.store import MemoryStore
from cosmem_tui.sources.text_search import MESSAGES_SEARCHED, PARTS_SEARCHED
from tests.contract.backends import Backend
from tests.helpers import exchange

LAB = get_schema("lab")
AMT = get_schema("amt")
LANGCHAIN = get_schema("langchain")
MAF_HISTORY = get_schema("maf-history")
REF = ThreadRef.of("acme", "t1")


def hostile_thread() -> list[dict[str, Any]]:
    texts = {
        0: "plain words",
        1: "Needle in the first message",
        2: "nothing here",
        3: "100% sure",
        4: "a_b and 100 percent",
        5: 'she said "needle" twice',
        6: "it's a NEEDLE",
        7: "Café crème",
        8: "emoji 🧵 thread",
        9: "quote ' and backslash \\ here",
    }
    items = [exchange("acme", "t1", i, text) for i, text in texts.items()]
    # Several hits in one turn: both messages hold the text.
    items.append(exchange("acme", "t1", 10, "needle"))
    items[-1]["messages"][1]["content"] = "needle again"
    # Ties on the order field: three items with turnIndex 11.
    for suffix in "abc":
        items.append(
            {**exchange("acme", "t1", 11, f"tied needle {suffix}"), "id": f"t1-11{suffix}"}
        )
    # Another thread of the same tenant holds the text too: never a hit.
    items.append(exchange("acme", "t2", 0, "needle elsewhere"))
    return items


async def search_ids(
    store: MemoryStore, ref: ThreadRef, text: str, *, page_size: int = 100
) -> tuple[list[str], int]:
    ids: list[str] = []
    continuation = None
    pages = 0
    while True:
        page = await store.search_turns(ref, text, continuation=continuation, page_size=page_size)
        pages += 1
        ids.extend(item.id for item in page.items)
        continuation = page.continuation
        if continuation is None:
            return ids, pages
        assert pages < 50


def in_list_order(store: MemoryStore, ids: list[str], items: list[dict[str, Any]]) -> None:
    by_id = {item["id"]: item for item in items}
    keys = [order_key(by_id[i]["turnIndex"]) for i in ids]
    assert keys == sorted(keys)


async def test_search_finds_the_text_ignoring_case_in_list_order(backend: Backend) -> None:
    items = hostile_thread()
    store = await backend.make_store(items, schema=LAB, default_ttl=-1)
    ids, _ = await search_ids(store, REF, "NEEDLE")
    assert ids[:4] == ["t1-1", "t1-5", "t1-6", "t1-10"]
    assert sorted(ids[4:]) == ["t1-11a", "t1-11b", "t1-11c"]  # ties in either order
    in_list_order(store, ids, items)
    searches = [r for r in store.ledger.records() if r.operation == "search-turns"]
    assert searches and {r.scope for r in searches} == {Scope.PARTITION}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("100%", ["t1-3"]),  # % is no wildcard
        ("a_b", ["t1-4"]),  # nor is _
        ('"needle"', ["t1-5"]),
        ("it's", ["t1-6"]),
        ("\\", ["t1-9"]),
        ("café CRÈME", ["t1-7"]),
        ("🧵", ["t1-8"]),
        ("no such words", []),
        ("' OR 1=1 --", []),
    ],
)
async def test_search_text_is_data(backend: Backend, text: str, expected: list[str]) -> None:
    store = await backend.make_store(hostile_thread(), schema=LAB, default_ttl=-1)
    ids, pages = await search_ids(store, REF, text)
    assert ids == expected
    assert pages == 1


async def test_search_pages_return_every_hit_once(backend: Backend) -> None:
    items = hostile_thread()
    store = await backend.make_store(items, schema=LAB, default_ttl=-1)
    whole, _ = await search_ids(store, REF, "needle")
    before = len(store.ledger.records())
    paged, pages = await search_ids(store, REF, "needle", page_size=2)
    assert sorted(paged) == sorted(whole)
    assert len(paged) == len(set(paged)) == 7
    in_list_order(store, paged, items)
    assert pages >= 4
    records = [r for r in store.ledger.records()[before:] if r.operation == "search-turns"]
    assert {r.scope for r in records} == {Scope.PARTITION}


async def test_search_on_a_schema_with_text_on_the_item(backend: Backend) -> None:
    texts = ["hello", "Needle", "bye", "a needle"]
    items = [
        {
            "id": f"m{i}",
            "user_id": "alice",
            "thread_id": "t1",
            "type": "turn",
            "role": "user",
            "created_at": f"2026-11-29T10:00:0{i}+00:00",
            "content": text,
        }
        for i, text in enumerate(texts)
    ]
    store = await backend.make_store(items, schema=AMT, default_ttl=-1)
    ids, _ = await search_ids(store, ThreadRef.of("alice", "t1"), "needle")
    assert ids == ["m1", "m3"]


async def test_past_the_budget_a_search_asks_and_a_no_sends_nothing(backend: Backend) -> None:
    store = await backend.make_store(hostile_thread(), schema=LAB, default_ttl=-1)
    await store.container_properties()
    store.ledger.set_budget(0.01)
    asked: list[BudgetQuestion] = []

    async def refuse(question: BudgetQuestion) -> bool:
        asked.append(question)
        return False

    store.ledger.set_confirmer(refuse)
    spent = store.ledger.spent_ru
    with pytest.raises(BudgetSpent):
        await store.search_turns(REF, "needle")
    assert [q.operation for q in asked] == ["search-turns"]
    assert not [r for r in store.ledger.records() if r.operation == "search-turns"]
    assert store.ledger.spent_ru == spent


def session_document(session: str, contents: list[Any]) -> dict[str, Any]:
    kinds = ["human", "ai"]
    messages = [
        {"type": kinds[i % 2], "data": {"content": content}} for i, content in enumerate(contents)
    ]
    return {"id": session, "user_id": "alice", "messages": messages}


LANGCHAIN_SESSIONS = [
    session_document("s1", ["hi", [{"type": "text", "text": "a NEEDLE"}], "needle 2"]),
    session_document("s2", ["needle in another session"]),
    # Only a non-text block holds the text: not searched.
    session_document("s3", [[{"type": "image_url", "text": "needle"}]]),
]


async def test_search_in_session_documents(backend: Backend) -> None:
    store = await backend.make_store(LANGCHAIN_SESSIONS, schema=LANGCHAIN, default_ttl=-1)
    assert (await search_ids(store, ThreadRef.of("alice", "s1"), "needle"))[0] == ["s1"]
    assert (await search_ids(store, ThreadRef.of("alice", "s3"), "needle"))[0] == []


def long_exchange(index: int, needle_at: int | None, length: int = 40) -> dict[str, Any]:
    """An exchange of ``length`` messages; message ``needle_at`` (1-based) holds the text."""
    item = exchange("acme", "t1", index, "plain")
    item["messages"] = [
        {"role": "user" if n % 2 else "agent", "content": f"words {n}"}
        for n in range(1, length + 1)
    ]
    if needle_at is not None:
        item["messages"][needle_at - 1]["content"] = "the Needle, at last"
    return item


async def test_text_in_any_message_of_a_long_item_is_found(backend: Backend) -> None:
    # Longer than the probes reach: the query answers candidates, the store keeps those
    # whose whole text holds the text (message 33 of 40), never the one without it.
    assert MESSAGES_SEARCHED < 33
    items = [
        exchange("acme", "t1", 0, "needle first"),
        long_exchange(1, needle_at=33),
        long_exchange(2, needle_at=None),
        long_exchange(3, needle_at=3),
        long_exchange(4, needle_at=None),
        exchange("acme", "t1", 5, "plain"),
        long_exchange(6, needle_at=40),
    ]
    store = await backend.make_store(items, schema=LAB, default_ttl=-1)
    ids, pages = await search_ids(store, REF, "needle")
    assert ids == ["t1-0", "t1-1", "t1-3", "t1-6"]
    assert pages == 1
    paged, _ = await search_ids(store, REF, "NEEDLE", page_size=1)
    assert paged == ids
    assert (await search_ids(store, REF, "no such words"))[0] == []
    searches = [r for r in store.ledger.records() if r.operation == "search-turns"]
    assert {r.scope for r in searches} == {Scope.PARTITION}


def history_message(index: int, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": f"m{index}",
        "session_id": "s1",
        "sort_key": 1_000 + index,
        "source_id": "history",
        "message": {"type": "message", "role": "user", "contents": parts},
    }


async def test_text_in_any_part_of_a_long_message_is_found(backend: Backend) -> None:
    assert PARTS_SEARCHED < 7
    filler = [{"type": "text", "text": f"part {n}"} for n in range(9)]
    needle_seventh = [*filler[:6], {"type": "text", "text": "a NEEDLE"}, *filler[6:]]
    not_text = [*filler[:6], {"type": "function_call", "text": "needle"}, *filler[6:]]
    items = [
        history_message(0, [{"type": "text", "text": "needle"}]),
        history_message(1, needle_seventh),
        history_message(2, filler),  # long, no match: a candidate, not a hit
        history_message(3, not_text),  # the text only in a part that is not text
        history_message(4, [{"type": "text", "text": "bye"}]),
    ]
    store = await backend.make_store(items, schema=MAF_HISTORY, default_ttl=-1)
    ids, _ = await search_ids(store, ThreadRef.of(None, "s1"), "needle")
    assert ids == ["m0", "m1"]
    assert (await search_ids(store, ThreadRef.of(None, "s1"), "needle", page_size=1))[0] == ids
