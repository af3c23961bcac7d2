"""The start of an item's indented JSON, written without the rest: the same text and sizes
as writing the whole with Python's encoder and cutting it (the encoder is the judge)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosmem_tui.core.text import (
    LONG_LINES,
    LONG_TEXT,
    cut_long,
    indented_json_start,
    json_for_terminal,
)

# Every character an item may hold, lone surrogates, controls, C1 and bidi included.
characters = st.one_of(
    st.characters(exclude_categories=()),
    st.sampled_from(["\x1b", "\x9b", "\u202e", "\u2028", "\n", "\t", '"', "\\", "\ud800", "漢"]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(characters, max_size=30),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.text(characters, max_size=8), inner, max_size=6),
    ),
    max_leaves=60,
)
items = st.dictionaries(st.text(characters, max_size=8), values, max_size=8)


def whole_way(value: dict[str, Any], limit: int, lines: int | None) -> tuple[str, int, int]:
    shown, more = cut_long(json_for_terminal(value, indent=2), limit, lines=lines)
    return shown, more, len(json.dumps(value, indent=2, ensure_ascii=False))


@settings(max_examples=200, deadline=None)
@given(items, st.integers(min_value=1, max_value=400), st.one_of(st.none(), st.integers(1, 30)))
def test_the_start_and_the_sizes_are_those_of_the_whole(value, limit, lines):
    start = indented_json_start(value, limit, lines=lines)
    assert (start.shown, start.more, start.length) == whole_way(value, limit, lines)


@pytest.mark.parametrize(
    "value",
    [
        {},
        {"a": []},
        {"a": {}, "b": [[], {}, [[]]]},
        {"nan": float("nan"), "inf": [float("-inf")]},  # the long way: null, and NaN's size
        {"t": ("tuple", 1)},
        {"deep": [[[[{"x": [1, 2, {"y": None}]}]]]]},
    ],
)
def test_edges(value):
    for limit in (1, 5, 40, LONG_TEXT):
        start = indented_json_start(value, limit, lines=3)
        assert (start.shown, start.more, start.length) == whole_way(value, limit, 3)


def test_a_session_of_50000_messages_writes_only_the_start(monkeypatch):
    """The indented encoder (pure Python, most of a second here) writes the 64 KB the
    pane shows, not the 3.7 MB of the whole; the sizes are still the whole's."""
    body = {
        "id": "s-1",
        "messages": [{"role": "user", "content": f"message number {n}"} for n in range(50_000)],
    }
    written = [0]
    iterencode = json.JSONEncoder.iterencode

    def counting(self, o, _one_shot=False):  # type: ignore[no-untyped-def]
        for chunk in iterencode(self, o, _one_shot):
            if self.indent is not None:
                written[0] += len(chunk)
            yield chunk

    expected = whole_way(body, LONG_TEXT, LONG_LINES)
    monkeypatch.setattr(json.JSONEncoder, "iterencode", counting)
    start = indented_json_start(body, lines=LONG_LINES)
    assert (start.shown, start.more, start.length) == expected
    assert start.length > 3_500_000
    assert written[0] <= LONG_TEXT + 1_000  # the start and one chunk past it
