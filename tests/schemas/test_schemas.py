"""Schemas are data, and mapping malformed items never raises."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosmem_tui.model import MISSING, Item, ThreadRef, TtlState
from cosmem_tui.schemas import FieldPath, SchemaError, get_schema, turn_from_item
from cosmem_tui.schemas.registry import all_schemas
from cosmem_tui.schemas.schema import schema_from_mapping


def item(body: dict, ts: int = 1000) -> Item:
    return Item(body.get("id", "x"), ("t", "th"), ts, '"e"', {**body, "_ts": ts})


def test_builtin_schemas_load():
    schemas = all_schemas()
    assert {"lab", "thread"} <= set(schemas)
    lab = schemas["lab"]
    assert lab.has_tenant_level and lab.partition_key == ("/tenantId", "/threadId")
    assert not schemas["thread"].has_tenant_level
    assert lab.partition_key_for(ThreadRef.of("acme", "t1")) == ("acme", "t1")
    assert schemas["thread"].partition_key_for(ThreadRef.of(None, "t1")) == ("t1",)
    assert "embedding" not in lab.list_projection()


def test_a_user_schema_file_replaces_or_adds(tmp_path: Path):
    (tmp_path / "mine.toml").write_text(
        'name = "mine"\npartition_key = ["/sessionId"]\nthread = "/sessionId"\n'
        'granularity = "message"\nrole = "/sender"\ntext = "/text"\n'
        '[order]\npath = "/ts"\ntype = "epoch-s"\n'
    )
    schema = get_schema("mine", tmp_path)
    turn = turn_from_item(
        schema,
        item({"id": "1", "sessionId": "s", "sender": "user", "text": "hi", "ts": 1700000000}),
        -1,
    )
    assert [(m.role, m.text) for m in turn.messages] == [("user", "hi")]
    assert turn.timestamp == 1700000000


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("name = 'x'", "partition_key"),
        ("name = 'x'\npartition_key = ['/a']", "thread"),
        ("name = 'x'\npartition_key = ['/a']\nthread = '/a'\ngranularity = 'blob'", "granularity"),
        ("name = 'x'\npartition_key = ['/a', '/b']\nthread = '/a'\n[messages]\npath='/m'", "/b"),
        ("name = 'x'\npartition_key = ['/a']\nthread = 'a'\n[messages]\npath='/m'", "thread"),
        ("name = 'x'\nbogus = 1", "bogus"),
        ("name = [", "not valid TOML"),
        ("name = " + "[" * 50_000 + "]" * 50_000, "not valid TOML: nested too deeply"),
        ("name = '\xff'", "cannot read"),  # written as Latin-1: not UTF-8
    ],
)
def test_bad_schema_files_name_the_file_and_key(tmp_path: Path, text: str, complaint: str):
    (tmp_path / "bad.toml").write_bytes(text.encode("latin-1"))
    with pytest.raises(SchemaError) as error:
        get_schema("x", tmp_path)
    assert "bad.toml" in str(error.value) and complaint in str(error.value)


def test_unknown_schema_lists_the_known_ones():
    with pytest.raises(SchemaError, match="lab"):
        get_schema("nope")


def test_field_paths():
    path = FieldPath.parse("/messages/0/content")
    doc = {"messages": [{"content": "hi"}]}
    assert path.get(doc) == "hi"
    assert FieldPath.parse("/messages/1/content").get(doc) is MISSING
    assert FieldPath.parse("/messages/x").get(doc) is MISSING
    assert FieldPath.parse("/a~1b").get({"a/b": 1}) == 1
    with pytest.raises(ValueError):
        FieldPath.parse("messages")


LAB = get_schema("lab")


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"messages": []}, "turnIndex is missing"),
        ({"turnIndex": "7", "messages": []}, "turnIndex is a string, expected an integer"),
        ({"turnIndex": 1, "messages": "text"}, "messages is a string, expected an array"),
        ({"turnIndex": 1}, "messages is missing"),
        ({"turnIndex": 1, "messages": [{"role": "user", "content": None}]}, "content is null"),
        (
            {"turnIndex": 1, "messages": [{"role": "user", "content": 5}]},
            "content is a number, expected a string",
        ),
        ({"turnIndex": 1, "messages": [{"content": "x"}]}, "no role"),
        ({"turnIndex": 1, "messages": ["bare"]}, "is a string, expected an object"),
        ({"turnIndex": 1, "messages": [], "ttl": None}, "ttl: null is not supported"),
        ({"turnIndex": 1, "messages": [], "ttl": 0}, "ttl: 0 is not valid"),
        ({"turnIndex": 1, "messages": [], "type": 42}, "type is a number"),
    ],
)
def test_malformed_items_become_problems_not_crashes(body, problem):
    turn = turn_from_item(LAB, item({"id": "m", **body}), -1)
    assert turn.malformed
    assert any(problem in p for p in turn.problems), turn.problems


def test_a_malformed_message_is_named_by_its_place():
    body = {
        "id": "m",
        "turnIndex": 1,
        "messages": [{"role": "user", "content": "ok"}, {"content": "x"}, 5, {"role": "u"}],
    }
    assert turn_from_item(LAB, item(body), -1).problems == (
        "message 1: no role",
        "message 2: is a number, expected an object",
        "message 3: content is missing",
    )


def test_a_well_formed_exchange():
    body = {
        "id": "ok",
        "turnIndex": 3,
        "type": "summary",
        "ttl": 60,
        "messages": [
            {"role": "user", "content": "q", "timestamp": "2026-11-29T10:00:00Z"},
            {"role": "agent", "content": "a"},
        ],
    }
    turn = turn_from_item(LAB, item(body, ts=5000), -1)
    assert not turn.malformed
    assert turn.order == 3 and turn.kind == "summary" and turn.roles == ("user", "agent")
    assert turn.timestamp == 1795946400.0
    assert turn.ttl.state is TtlState.EXPIRES and turn.ttl.expires_at == 5060


def test_timestamp_falls_back_to_ts():
    turn = turn_from_item(LAB, item({"id": "x", "turnIndex": 0, "messages": []}, ts=42), -1)
    assert turn.timestamp == 42.0


def test_schema_from_mapping_defaults():
    schema = schema_from_mapping(
        {"name": "m", "partition_key": ["/t"], "thread": "/t", "granularity": "message"}, "inline"
    )
    assert schema.role and schema.role.text == "/role"
    assert schema.text and schema.text.text == "/content"
