"""Every item type of every built-in schema maps to turns the same way (order, time, role,
text), awkward cases included: explicit nulls, ttl absent vs -1, sentinel threads,
JSON-string messages, epoch-nanosecond sort keys, session documents."""

from __future__ import annotations

from typing import Any

import pytest

from cosmem_tui.model import MISSING, Item, Key, ThreadRef, TtlState
from cosmem_tui.schemas import SchemaError, get_schema, turns_from_item
from cosmem_tui.schemas.schema import Granularity
from tests.fixtures import by_id, fixture_items

AMT = get_schema("amt")


def item(body: dict[str, Any], pk: tuple[Any, ...] = ("p",)) -> Item:
    return Item(body["id"], pk, body.get("_ts", 1000), body.get("_etag", '"e"'), body)


def one(schema_name: str, body: dict[str, Any], default_ttl: int | None = -1):
    turns = turns_from_item(get_schema(schema_name), item(body), default_ttl)
    assert len(turns) == 1
    return turns[0]


def test_every_builtin_loads_with_its_shape():
    expected = {
        "lab": (("/tenantId", "/threadId"), Granularity.EXCHANGE, "tenant"),
        "thread": (("/threadId",), Granularity.EXCHANGE, "tenant"),
        "learn": (("/threadId",), Granularity.EXCHANGE, "tenant"),
        "amt": (("/user_id", "/thread_id"), Granularity.MESSAGE, "user"),
        "maf-history": (("/session_id",), Granularity.MESSAGE, "tenant"),
        "maf-dotnet": (("/conversationId",), Granularity.MESSAGE, "tenant"),
        "maf-dotnet-hpk": (("/tenantId", "/userId", "/sessionId"), Granularity.MESSAGE, "tenant"),
        "langchain": (("/user_id",), Granularity.SESSION, "user"),
    }
    for name, (pk, granularity, label) in expected.items():
        schema = get_schema(name)
        assert (schema.partition_key, schema.granularity, schema.tenant_label) == (
            pk,
            granularity,
            label,
        ), name
        assert "embedding" not in schema.list_projection()


# -- AMT -------------------------------------------------------------------------------------


def test_amt_turns_carry_role_text_iso_order_and_their_30_day_ttl():
    turns = fixture_items("amt/memories_turns.jsonl")
    first = one("amt", turns[0])
    assert first.kind == "turn" and not first.malformed
    assert [(m.role, m.text) for m in first.messages] == [("user", "I love Cosmos DB.")]
    assert first.order == turns[0]["created_at"] and first.order.endswith("+00:00")
    assert first.timestamp == pytest.approx(1795990000.123456)
    assert first.ttl.state is TtlState.EXPIRES and first.ttl.effective == 2592000
    assert AMT.expected_ttl == {"turn": 2592000, "episodic": 7776000}
    roles = [one("amt", t).roles[0] for t in turns]
    assert {"user", "agent", "tool", "system"} <= set(roles)


def test_amt_turn_without_ttl_inherits_the_container_default():
    drifted = by_id("amt/memories_turns.jsonl")["t2-0"]
    assert "ttl" not in drifted
    turn = one("amt", drifted, default_ttl=2592000)
    assert turn.ttl.raw is MISSING and turn.ttl.effective == 2592000 and not turn.malformed


def test_amt_memory_records_every_type():
    memories = by_id("amt/memories.jsonl")
    fact = one("amt", memories["fact_3f1c0a9e7b2d4c6a8e0f1a2b3c4d5e6f"])
    assert (fact.kind, fact.roles, fact.ttl.state) == ("fact", ("system",), TtlState.NEVER)
    superseded = one("amt", memories["fact_0e5e0b3a-7a8e-4f11-9a53-0c2b1d6f9e01"])
    assert superseded.kind == "fact" and not superseded.malformed
    episodic = one("amt", memories["ep_5b2c1f0e9d8a7b6c5d4e3f2a1b0c9d8e"])
    # explicit nulls (started_at, ended_at, outcome) are not problems; ttl 90 days is its own
    assert episodic.kind == "episodic" and not episodic.malformed
    assert episodic.ttl.effective == 7776000
    procedural = one("amt", memories["proc_a1b2c3d4e5f60718293a4b5c6d7e8f90"])
    assert procedural.kind == "procedural"
    assert procedural.messages[0].text.startswith("When asked about keys")


def test_amt_bookkeeping_records_have_no_conversation_and_no_problems():
    cursor = one("amt", by_id("amt/memories.jsonl")["episode_cursor_user-001_thread-1"])
    assert cursor.kind == "episode_cursor" and cursor.messages == () and not cursor.malformed
    assert cursor.order is MISSING  # no created_at: sorts first, as undefined does on Cosmos
    assert cursor.timestamp == pytest.approx(1795990710.0)  # from updated_at
    counters = fixture_items("amt/counter.jsonl")
    for counter in counters:
        turn = one("amt", counter)
        assert turn.kind == "counter" and turn.messages == () and not turn.malformed


def test_amt_summaries_and_the_legacy_summary_type():
    summaries = by_id("amt/memories_summaries.jsonl")
    assert one("amt", summaries["summary_user-001_thread-1"]).kind == "thread_summary"
    assert one("amt", summaries["user_summary_user-001"]).kind == "user_summary"
    legacy = by_id("amt-legacy.json")
    assert one("amt", legacy["l-summary-1"]).kind == "summary"
    assert "summary" in AMT.long_term_kinds
    # "assistant" is a role AMT itself rejects; mapping shows it as stored (lints flag it)
    assert one("amt", legacy["l-turn-2"]).roles == ("assistant",)


def test_amt_sentinel_threads_are_named_by_the_schema():
    assert AMT.sentinels == {
        "__user_summary__": "user summary",
        "__procedural__": "procedures",
        "__counters__": "user counter",
    }
    user_summary = by_id("amt/memories_summaries.jsonl")["user_summary_user-001"]
    assert AMT.thread_key(user_summary) == "__user_summary__"


def test_amt_missing_created_at_on_a_turn_is_a_problem():
    body = {**fixture_items("amt/memories_turns.jsonl")[0]}
    del body["created_at"]
    assert "created_at is missing" in one("amt", body).problems
    body["created_at"] = "yesterday"
    assert any("not an ISO-8601 time" in p for p in one("amt", body).problems)


# -- Agent Framework, Python ------------------------------------------------------------------


def test_maf_history_text_parts_and_epoch_nanosecond_order():
    items = by_id("maf-history.jsonl")
    first = one("maf-history", items["sess-a-m1"])
    assert first.messages[0].role == "user"
    assert first.messages[0].text == "What's the weather in Oslo?"
    assert first.order == 1795990001000000001
    assert first.timestamp == pytest.approx(1795990001.0)
    two_parts = one("maf-history", items["sess-a-m4"])
    assert two_parts.messages[0].text == "It is -3°C\nand snowing in Oslo."
    # a tool call has no text part: an empty message, not a malformed one
    call = one("maf-history", items["sess-a-m2"])
    assert call.messages[0].text == "" and not call.malformed
    assert call.ttl.raw is MISSING  # the provider writes no ttl


# -- Agent Framework, .NET --------------------------------------------------------------------


def test_maf_dotnet_decodes_the_json_string_message():
    items = by_id("maf-dotnet.jsonl")
    turn = one("maf-dotnet", items["conv-1-0"])
    assert turn.kind == "turn"  # "ChatMessage" maps onto the canonical kind
    assert [(m.role, m.text) for m in turn.messages] == [("user", "Book a table for two.")]
    assert turn.order == 1795990000 and turn.timestamp == 1795990000.0
    assert turn.ttl.effective == 86400 and not turn.malformed
    camel = one("maf-dotnet", items["conv-2-0"])
    assert camel.messages[0].text == "camelCase writer"


def test_maf_dotnet_awkward_items():
    items = by_id("maf-dotnet.jsonl")
    null_ttl = one("maf-dotnet", items["conv-1-2"])
    assert any("ttl: null" in p for p in null_ttl.problems)
    assert null_ttl.messages[0].text == "Thanks!"
    broken = one("maf-dotnet", items["conv-1-3"])
    assert any(p.startswith("message is not valid JSON") for p in broken.problems)
    assert broken.messages[0].role == "assistant"  # the top-level role still reads


def test_maf_dotnet_ttl_is_ignored_when_the_container_has_none():
    turn = one("maf-dotnet", by_id("maf-dotnet.jsonl")["conv-1-0"], default_ttl=None)
    assert turn.ttl.state is TtlState.OFF and not turn.malformed


def test_maf_dotnet_hierarchical_threads_are_composite():
    schema = get_schema("maf-dotnet-hpk")
    body = by_id("maf-dotnet-hpk.jsonl")["sess-1-0"]
    assert schema.thread_key(body) == '["alice","sess-1"]'
    ref = ThreadRef(Key.of("contoso"), schema.parse_thread('["alice","sess-1"]'))
    assert ref == ThreadRef.of("contoso", ["alice", "sess-1"])
    assert schema.partition_key_for(ref) == ("contoso", "alice", "sess-1")
    with pytest.raises(SchemaError, match="JSON array"):
        schema.partition_key_for(ThreadRef.of("contoso", "sess-1"))
    assert one("maf-dotnet-hpk", body).messages[0].text == "Reset my password."


# -- LangChain: one document per session -------------------------------------------------------


def test_langchain_session_expands_into_its_messages():
    session = by_id("langchain.jsonl")["session-1"]
    turns = turns_from_item(get_schema("langchain"), item(session), 3600)
    assert [t.part for t in turns] == [0, 1, 2, 3, 4]
    assert [t.order for t in turns] == [0, 1, 2, 3, 4]
    assert [t.messages[0].role for t in turns] == ["system", "user", "assistant", "tool", "user"]
    assert turns[2].messages[0].text.startswith("Items expire")
    assert turns[4].messages[0].text == "What is in this picture?"  # text blocks only
    assert all(t.item_id == "session-1" and not t.malformed for t in turns)
    # the document's ttl covers every message: one expiry for the whole session
    assert {t.ttl.expires_at for t in turns} == {session["_ts"] + 3600}
    assert len({t.key for t in turns}) == 5


def test_langchain_empty_and_broken_sessions_still_show_one_row():
    schema = get_schema("langchain")
    empty = turns_from_item(schema, item(by_id("langchain.jsonl")["session-empty"]), None)
    assert len(empty) == 1 and empty[0].messages == () and not empty[0].malformed
    broken = turns_from_item(schema, item({"id": "s", "user_id": "u", "messages": "x"}), None)
    assert len(broken) == 1 and "messages is a string, expected an array" in broken[0].problems


# -- exchange shapes ------------------------------------------------------------------------------


def test_learn_exchange_takes_its_time_from_started_at():
    body = fixture_items("learn.json")[1]
    turn = one("learn", body)
    assert turn.order == 1 and turn.roles == ("user", "agent")
    assert turn.timestamp == pytest.approx(1795990120.0)


def test_lab_ttl_absent_versus_minus_one():
    items = fixture_items("lab.jsonl")
    long_term = one("lab", items[3])
    absent = one("lab", items[4])
    assert long_term.ttl.raw == -1 and long_term.ttl.state is TtlState.NEVER
    assert absent.ttl.raw is MISSING and absent.ttl.state is TtlState.NEVER
    assert one("lab", items[4], default_ttl=60).ttl.effective == 60
    assert one("lab", items[3], default_ttl=60).ttl.state is TtlState.NEVER
