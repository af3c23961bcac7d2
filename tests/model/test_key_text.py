"""A key's one text form: a string is written as is unless it would read as another JSON
value. The check skips the parser for texts that cannot be JSON; it must agree with the
parser on every text."""

from __future__ import annotations

import json

import pytest

from cosmem_tui.model import Key


def parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


TEXTS = [
    "contoso", "tenant-000001", "true", "truex", "tru", "false", "null", "nul", "NaN",
    "NaNa", "Infinity", "-Infinity", "Infinit", "42", "-", "4x", "1e5", '"x"', "[1]", "[",
    "{}", "{", "t", "f", "n", "N", "I", "é", "日本", "x y", "[not json", "-1", "0", "00",
]  # fmt: skip


@pytest.mark.parametrize("text", TEXTS)
def test_a_string_is_quoted_exactly_when_the_parser_would_read_it(text: str) -> None:
    shown = Key.of(text).text
    assert (shown != text) == parses(text)
    assert Key.parse(shown) == Key.of(text)  # and it reads back as the same string


def test_surrounding_space_and_the_empty_string_are_quoted() -> None:
    assert Key.of(" a").text == '" a"' and Key.of("").text == '""'
