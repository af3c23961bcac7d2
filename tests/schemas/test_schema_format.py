"""The schema file format: selectors, composite threads, maps, sentinels, detection hints."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from cosmem_tui.model import MISSING, Item
from cosmem_tui.schemas import SchemaError, Selector, all_schemas, get_schema, turns_from_item
from cosmem_tui.schemas.detect import ContainerFacts, detect_schema
from cosmem_tui.schemas.schema import schema_from_mapping
from tests.fixtures import fixture_items

DOCS = Path(__file__).resolve().parents[2] / "docs" / "schemas.md"


def test_selectors_fan_out_and_filter():
    doc = {
        "message": {
            "contents": [
                {"type": "text", "text": "a"},
                {"type": "function_call", "name": "f"},
                {"type": "text", "text": "b"},
            ]
        }
    }
    assert Selector.parse("/message/contents/*[type=text]/text").select(doc) == ["a", "b"]
    assert Selector.parse("/message/contents/*/type").select(doc) == [
        "text",
        "function_call",
        "text",
    ]
    assert Selector.parse("/message/contents/*[type=image]/text").select(doc) == []
    assert Selector.parse("/message/missing/*/text").select(doc) is MISSING
    assert Selector.parse("/message/contents/1/name").select(doc) == "f"
    nested = {"a": [{"b": [{"c": 1}, {"c": 2}]}, {"b": [{"c": 3}]}]}
    assert Selector.parse("/a/*/b/*/c").select(nested) == [1, 2, 3]
    for bad in ("/a/*x", "/a/*[=v]", "/*", "a/b"):
        with pytest.raises(ValueError):
            Selector.parse(bad)


def _schema(**extra):
    base = {"name": "t", "partition_key": ["/s"], "thread": "/s", "granularity": "message"}
    return schema_from_mapping({**base, **extra}, "inline")


def test_role_and_text_alternatives_role_map_and_default_role():
    schema = _schema(
        role=["/who", "/role"], text=["/body/*[kind=t]/v", "/text"], role_map={"h": "user"}
    )
    turn = turns_from_item(
        schema, Item("1", ("s",), 1, '"e"', {"id": "1", "s": "s", "role": "h", "text": "hi"}), -1
    )[0]
    assert (turn.messages[0].role, turn.messages[0].text) == ("user", "hi")
    no_role = _schema(default_role="note")
    turn = turns_from_item(
        no_role, Item("1", ("s",), 1, '"e"', {"id": "1", "s": "s", "content": "x"}), -1
    )[0]
    assert turn.messages[0].role == "note" and not turn.malformed


def test_kind_map_and_bookkeeping_kinds():
    schema = _schema(
        kind={"path": "/type", "default": "counter", "map": {"Msg": "turn"}},
        memory={"bookkeeping": ["counter"]},
    )
    mapped = turns_from_item(
        schema,
        Item(
            "1", ("s",), 1, '"e"', {"id": "1", "s": "s", "type": "Msg", "role": "u", "content": "c"}
        ),
        -1,
    )[0]
    assert mapped.kind == "turn"
    counter = turns_from_item(schema, Item("2", ("s",), 1, '"e"', {"id": "2", "s": "s"}), -1)[0]
    assert counter.kind == "counter" and counter.messages == () and not counter.malformed


@pytest.mark.parametrize(
    ("extra", "complaint"),
    [
        ({"order": {"path": "/t", "type": "int", "tiebreak": "/other"}}, "tiebreak"),
        ({"order": {"path": "/t", "type": "int", "bogus": 1}}, "bogus"),
        ({"text": "/a/*[x"}, "text"),
        ({"role": 5}, "role"),
        ({"decode_json": "/m"}, "decode_json"),
        ({"sentinels": {"__x__": 1}}, "sentinels"),
        ({"detect": {"colours": []}}, "colours"),
        ({"detect": {"values": {"/type": "turn"}}}, "detect.values"),
        ({"tenant_label": ""}, "tenant_label"),
        ({"granularity": "session"}, "messages"),
    ],
)
def test_bad_keys_are_named(extra, complaint):
    with pytest.raises(SchemaError) as error:
        _schema(**extra)
    assert complaint in str(error.value) and "inline" in str(error.value)


def test_composite_thread_levels_must_cover_the_partition_key():
    schema = schema_from_mapping(
        {
            "name": "h",
            "partition_key": ["/t", "/u", "/s"],
            "tenant": "/t",
            "thread": ["/u", "/s"],
            "granularity": "message",
        },
        "inline",
    )
    assert [p.text for p in schema.thread_paths] == ["/u", "/s"]
    assert schema.thread_key({"t": "a", "u": "b", "s": "c"}) == '["b","c"]'
    assert schema.thread_key({"t": "a", "u": "b"}) is None
    with pytest.raises(SchemaError, match="/u"):
        schema_from_mapping(
            {
                "name": "h",
                "partition_key": ["/t", "/u", "/s"],
                "tenant": "/t",
                "thread": "/s",
                "granularity": "message",
            },
            "inline",
        )


@pytest.mark.parametrize("doc", [DOCS, DOCS.parents[1] / "README.md"], ids=["docs", "readme"])
def test_the_documented_example_reads_its_system_and_is_detected(tmp_path, doc):
    """The docs show a user schema for the cosmos-chat sample: it must work as written."""
    blocks = re.findall(r"```toml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    blocks = [b for b in blocks if "partition_key" in tomllib.loads(b)]  # not a profile
    assert blocks, f"{doc.name} has no TOML schema example"
    (tmp_path / "example.toml").write_text(blocks[0], encoding="utf-8")
    name = tomllib.loads(blocks[0])["name"]
    schema = get_schema(name, tmp_path)
    assert schema.source.endswith("example.toml")
    items = fixture_items("cosmos-chat.jsonl")
    turns = [
        turns_from_item(schema, Item(i["id"], (), i["_ts"], i["_etag"], i), -1)[0] for i in items
    ]
    assert not any(t.malformed for t in turns)
    assert [t.kind for t in turns] == ["session", "turn", "turn", "turn"]
    assert [t.roles for t in turns[1:3]] == [("user",), ("assistant",)]
    assert turns[1].messages[0].text == "Any hikes nearby?"
    detection = detect_schema(all_schemas(tmp_path), ContainerFacts(None), items)
    assert detection.schema.name == name and "Type values" in detection.reason
