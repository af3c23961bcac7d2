"""An item's array of messages is kept as columns and made on demand: the same turn, the
same problems, roles and sizes as mapping each message, whatever the messages hold."""

from __future__ import annotations

from typing import Any

import pytest

from cosmem_tui.model import Item, Message
from cosmem_tui.model.entities import MessageColumns
from cosmem_tui.schemas import mapping, turn_from_item
from cosmem_tui.schemas.schema import Schema, schema_from_mapping


def exchange_schema(**messages: Any) -> Schema:
    return schema_from_mapping(
        {
            "name": "cols",
            "partition_key": ["/threadId"],
            "thread": "/threadId",
            "granularity": "exchange",
            "messages": {"path": "/messages", **messages},
            "role_map": {"human": "user", "ai": "assistant"},
        },
        "inline",
    )


def item(messages: object) -> Item:
    return Item("x", ("th",), 1000, '"e"', {"id": "x", "threadId": "th", "messages": messages})


PLAIN = [
    {"role": "human", "content": "hi"},
    {"role": "ai", "content": "héllo \ud800 ✓ \x1b[31m"},  # non-ASCII and a lone surrogate
    {"role": "tool", "content": ""},
    {"role": "human", "content": "again", "extra": [1, 2]},
]


@pytest.mark.parametrize(
    ("messages", "as_columns"),
    [
        (PLAIN, True),
        ([*PLAIN, {"content": "no role"}], False),
        ([*PLAIN, {"role": "", "content": "empty role"}], False),
        ([*PLAIN, {"role": "ai", "content": None}], False),
        ([*PLAIN, {"role": "ai", "content": ["two", "parts"]}], False),
        ([*PLAIN, {"role": "ai"}], False),
        ([*PLAIN, "not an object"], False),
        ([], False),
        ("not an array", False),
    ],
)
def test_columns_map_as_each_message_would(monkeypatch, messages, as_columns):
    schema = exchange_schema()
    fast = turn_from_item(schema, item(messages), -1)
    assert isinstance(fast.messages, MessageColumns) is as_columns
    monkeypatch.setattr(mapping, "_well_formed_columns", lambda *_: None)
    slow = turn_from_item(schema, item(messages), -1)
    assert not isinstance(slow.messages, MessageColumns)
    assert fast == slow and hash(fast) == hash(slow)
    assert list(fast.messages) == list(slow.messages)
    assert fast.roles == slow.roles and fast.problems == slow.problems
    if as_columns:
        assert isinstance(fast.messages, MessageColumns)
        assert fast.roles == ("user", "assistant", "tool")  # role_map applied, in order
        sizes = [len(m.text.encode("utf-8", "surrogatepass")) for m in slow.messages]
        for start in range(len(sizes) + 1):
            assert fast.messages.text_bytes_from(start) == sum(sizes[start:])


def test_a_selector_other_than_one_field_maps_each_message():
    schema = exchange_schema(text=["/data/content", "/content"])
    turn = turn_from_item(schema, item([{"role": "ai", "data": {"content": "deep"}}]), -1)
    assert not isinstance(turn.messages, MessageColumns)
    assert turn.messages == (Message("assistant", "deep"),)


def test_columns_make_only_the_messages_asked_for():
    schema = exchange_schema()
    many = [{"role": ("human", "ai")[n % 2], "content": f"m{n}"} for n in range(10_000)]
    turn = turn_from_item(schema, item(many), -1)
    columns = turn.messages
    assert isinstance(columns, MessageColumns) and columns.made == 0
    assert len(columns) == 10_000 and turn.roles == ("user", "assistant")
    assert columns[0] == Message("user", "m0") and columns[-1] == Message("assistant", "m9999")
    assert columns[2:4] == (Message("user", "m2"), Message("assistant", "m3"))
    assert columns[9_998:20_000] == (Message("user", "m9998"), Message("assistant", "m9999"))
    assert columns.made == 6
    with pytest.raises(IndexError):
        columns[10_000]
    assert columns.texts[5] == "m5" and columns.made == 6  # the texts, no Message made
