"""Auto-detection: realistic items of every system pick their schema, and say why."""

from __future__ import annotations

import pytest

from cosmem_tui.schemas import SchemaError, all_schemas
from cosmem_tui.schemas.detect import ContainerFacts, detect_schema, rank
from cosmem_tui.schemas.generic import generic_schema, guess_partition_key
from cosmem_tui.schemas.schema import ValueType
from tests.fixtures import fixture_items

SCHEMAS = all_schemas()
UNKNOWN = ContainerFacts(partition_key=None)


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("amt", "amt"),
        ("amt/memories_turns.jsonl", "amt"),
        ("amt/memories.jsonl", "amt"),
        ("amt/memories_summaries.jsonl", "amt"),
        ("amt/counter.jsonl", "amt"),
        ("amt-legacy.json", "amt"),
        ("maf-history.jsonl", "maf-history"),
        ("maf-dotnet.jsonl", "maf-dotnet"),
        ("maf-dotnet-hpk.jsonl", "maf-dotnet-hpk"),
        ("langchain.jsonl", "langchain"),
        ("learn.json", "learn"),
        ("lab.jsonl", "lab"),
        ("thread.jsonl", "thread"),
    ],
)
def test_items_alone_identify_their_schema(fixture, expected):
    detection = detect_schema(SCHEMAS, UNKNOWN, fixture_items(fixture))
    assert detection.schema.name == expected, detection.candidates[:3]
    assert detection.reason.startswith("matched: ")


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("amt", "amt"),
        ("maf-history.jsonl", "maf-history"),
        ("maf-dotnet.jsonl", "maf-dotnet"),
        ("maf-dotnet-hpk.jsonl", "maf-dotnet-hpk"),
        ("langchain.jsonl", "langchain"),
        ("learn.json", "learn"),
        ("lab.jsonl", "lab"),
    ],
)
def test_with_the_partition_key_known_the_reason_names_it(fixture, expected):
    pk = SCHEMAS[expected].partition_key
    detection = detect_schema(SCHEMAS, ContainerFacts(pk), fixture_items(fixture))
    assert detection.schema.name == expected
    key = pk[0] if len(pk) == 1 else "[" + ",".join(pk) + "]"
    assert detection.reason.startswith(f"matched: pk {key}")


def test_amt_reason_names_the_type_values():
    facts = ContainerFacts(("/user_id", "/thread_id"), "memories_turns", "ai_memory")
    detection = detect_schema(SCHEMAS, facts, fixture_items("amt/memories_turns.jsonl"))
    assert detection.reason.startswith(
        "matched: pk [/user_id,/thread_id], container memories_turns, database ai_memory"
    )
    assert "type values" in detection.reason


def test_a_different_partition_key_rules_a_schema_out():
    facts = ContainerFacts(("/pk",))
    candidates = {c.schema.name: c for c in rank(SCHEMAS, facts, fixture_items("amt"))}
    assert not candidates["amt"].fits and "needs pk" in candidates["amt"].misfit


def test_metadata_alone_when_there_is_no_sample():
    detection = detect_schema(SCHEMAS, ContainerFacts(("/session_id",)), [])
    assert detection.schema.name == "maf-history"
    assert detection.reason == "matched: pk /session_id"


def test_items_that_fit_no_schema_get_the_generic_one():
    detection = detect_schema(SCHEMAS, UNKNOWN, fixture_items("cosmos-chat.jsonl"))
    schema = detection.schema
    assert schema.name == "generic" and detection.reason.startswith("no schema matched")
    assert schema.partition_key == ("/ChatSessionId",)
    assert schema.text is not None and schema.text.text == "/Text"
    assert schema.role is not None and schema.role.text == "/Sender"
    assert schema.order is not None and schema.order.type is ValueType.ISO8601


def test_generic_from_a_hierarchical_key_and_time_types():
    sample = [
        {
            "id": "1",
            "tenantId": "t",
            "userId": "u",
            "sessionId": "s",
            "sort_key": 1795990000123456789,
            "text": "hi",
        },
        {
            "id": "2",
            "tenantId": "t",
            "userId": "u",
            "sessionId": "s",
            "sort_key": 1795990000123456790,
            "text": "yo",
        },
    ]
    schema = generic_schema(("/tenantId", "/userId", "/sessionId"), sample)
    assert schema.tenant is not None and schema.tenant_label == "tenant"
    assert [p.text for p in schema.thread_paths] == ["/userId", "/sessionId"]
    assert schema.order is not None and schema.order.type is ValueType.EPOCH_NS
    assert schema.default_role == "item"  # no role field: no problem per item
    millis = [{"id": "1", "user_id": "u", "ts_ms": 1, "createdAt": 1795990000123, "content": "c"}]
    schema = generic_schema(("/user_id",), millis)
    assert not schema.has_tenant_level and schema.thread.text == "/user_id"
    assert schema.order is not None and schema.order.type is ValueType.EPOCH_MS
    indexed = generic_schema(("/threadId",), [{"id": "1", "threadId": "t", "turnIndex": 3}])
    assert indexed.order is not None and indexed.order.type is ValueType.INT


def test_generic_needs_a_partition_key_it_can_find():
    assert guess_partition_key([{"tenantId": "a", "threadId": "b"}]) == ("/tenantId", "/threadId")
    assert guess_partition_key([{"session_id": "s"}]) == ("/session_id",)
    with pytest.raises(SchemaError, match="--partition-key"):
        detect_schema(SCHEMAS, UNKNOWN, [{"id": "1", "foo": "bar"}])


@pytest.mark.parametrize("odd", [5, 1.5, "not a list", {"role": "user"}, True])
def test_a_messages_field_that_is_no_array_falls_back_to_one_message_per_item(odd):
    sample = [{"id": f"m{n}", "pk": "p", "messages": odd, "content": "hi"} for n in range(3)]
    detection = detect_schema(SCHEMAS, ContainerFacts(("/pk",)), sample)
    assert detection.schema.name == "generic"
    assert "not an array, in 3 of 3 sampled items: read one message per item" in detection.reason
    assert detection.schema.granularity.value == "message"


def test_a_messages_field_that_is_no_array_is_no_evidence_for_an_array_schema():
    items = fixture_items("lab.jsonl")
    broken = [{**item, "messages": 7} for item in items]
    lab = next(c for c in rank(SCHEMAS, UNKNOWN, items) if c.schema.name == "lab")
    assert "fields 4/4" in lab.evidence
    lab = next(c for c in rank(SCHEMAS, UNKNOWN, broken) if c.schema.name == "lab")
    assert "fields 3/4" in lab.evidence  # still lab-shaped; the rows say what is wrong
