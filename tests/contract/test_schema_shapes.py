"""The MemoryStore contract for the shapes of real agent-memory systems.

Item per message with sentinel threads (AMT), one document per session (LangChain),
a three-level hierarchical key (Agent Framework .NET), and the detection sample.
Items are seeded without their exported system properties: each backend writes its own.
"""

from __future__ import annotations

from typing import Any

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.model import FrozenClock, Key, Scope, ThreadRef
from cosmem_tui.schemas import get_schema
from tests.conftest import ANCHOR
from tests.contract.backends import Backend
from tests.fixtures import fixture_items
from tests.helpers import all_keys, counted


def seedable(name: str) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in item.items() if not k.startswith("_")} for item in fixture_items(name)
    ]


async def test_amt_users_threads_and_sentinels(backend: Backend) -> None:
    store = await backend.make_store(seedable("amt"), schema=get_schema("amt"), default_ttl=-1)
    service = BrowseService(store, FrozenClock(ANCHOR))
    users = await counted(store)
    assert set(users) == {"user-001", "user-002"} and users["user-001"].items == 17
    threads = await service.threads(Key.of("user-001"))
    assert [t.name for t in threads if t.pseudo is None] in (
        ["thread-1", "thread-2"],
        ["thread-2", "thread-1"],  # seeded in the same second: activity may tie
    )
    assert [(t.name, t.pseudo) for t in threads if t.pseudo is not None] == [
        ("__procedural__", "procedures"),
        ("__counters__", "user counter"),
        ("__user_summary__", "user summary"),
    ]
    turns = [t async for t in service.iter_turns(ThreadRef.of("user-001", "thread-1"))]
    assert turns[0].kind == "episode_cursor"
    ordered = [t.order for t in turns[1:]]
    assert ordered == sorted(ordered)
    assert sum(1 for t in turns if t.kind == "turn") == 7


async def test_session_documents_count_and_expand_their_messages(backend: Backend) -> None:
    schema = get_schema("langchain")
    store = await backend.make_store(seedable("langchain.jsonl"), schema=schema, default_ttl=-1)
    threads = {t.name: t for t in await store.list_threads(Key.of("u-100"))}
    assert {n: t.items for n, t in threads.items()} == {"session-1": 5, "session-2": 1}
    empty = await store.list_threads(Key.of("u-200"))
    assert [(t.name, t.items) for t in empty] == [("session-empty", 1)]
    service = BrowseService(store, FrozenClock(ANCHOR))
    ref = ThreadRef.of("u-100", "session-1")
    forward = [t async for t in service.iter_turns(ref)]
    assert [t.part for t in forward] == [0, 1, 2, 3, 4]
    last = await service.last_turns(ref, 2)
    assert [t.part for t in last] == [3, 4]
    detail = await service.detail(ref, "session-1", 2)
    assert detail.turn.part == 2 and detail.turn.messages[0].role == "assistant"


async def test_three_level_keys_name_threads_by_their_lower_levels(backend: Backend) -> None:
    schema = get_schema("maf-dotnet-hpk")
    store = await backend.make_store(
        seedable("maf-dotnet-hpk.jsonl"), schema=schema, default_ttl=-1
    )
    assert {k.text for k in await all_keys(store)} == {"contoso", "fabrikam"}
    threads = {t.name: t for t in await store.list_threads(Key.of("contoso"))}
    assert {n: t.items for n, t in threads.items()} == {
        '["alice","sess-1"]': 2,
        '["bob","sess-2"]': 1,
    }
    ref = ThreadRef.of("contoso", ["alice", "sess-1"])
    assert ref == threads['["alice","sess-1"]'].ref
    page = await store.page_turns(ref)
    assert [i.id for i in page.items] == ["sess-1-0", "sess-1-1"]
    assert store.ledger.records()[-1].scope is Scope.PARTITION
    item = await store.read_item(ref, "sess-1-1")
    assert item.body["userId"] == "alice" and isinstance(item.body["message"], str)


async def test_sample_items_reads_a_few_whole_recent_items(backend: Backend) -> None:
    store = await backend.make_store(
        seedable("lab.jsonl"), schema=get_schema("lab"), default_ttl=-1
    )
    sample = await store.sample_items(4, max_request_units=1000)
    assert 1 <= len(sample) <= 4
    assert all("embedding" in item.body and "_ts" in item.body for item in sample)
    record = [r for r in store.ledger.records() if r.operation == "sample-items"][-1]
    assert record.scope in (Scope.CROSS_PARTITION, Scope.RANGE)  # a fan-out, or range by range
    one = await store.sample_items(1, max_request_units=1000)
    assert len(one) == 1
