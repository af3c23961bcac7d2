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


def test_the_readings_of_a_text():
    assert Key.readings("7") == (Key.of(7), Key.of("7"))
    assert Key.readings('"7"') == (Key.of("7"), Key.of('"7"'))
    assert Key.readings("contoso") == (Key.of("contoso"),)
    for text in ('{"a": 1}', "[1, 2]", "NaN", "-Infinity", "1e400", "[not json", "{"):
        assert Key.readings(text) == (Key.of(text),)
    assert Key.readings('["a", 1]', 2) == (Key.of("a", 1),)
    values = [7, "7", 1.5, True, "true", None, "null", '{"role": "system"}', "[7]", "NaN"]
    for value in [*values, "1e400", " padded ", "", "x y", 42, "42", 10**30, -0.5, "\x1b[31m"]:
        assert Key.parse(Key.of(value).text) == Key.of(value)  # the text reads back
