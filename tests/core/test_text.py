"""Text is data: nothing from an item may act on the terminal."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cosmem_tui.core.text import (
    cut_long,
    json_for_terminal,
    one_line,
    size_text,
    unescape_exact,
    visible,
)

DANGEROUS = {"Cc", "Cf", "Cs", "Zl", "Zp"}
hostile_text = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from(["\x1b", "\x9b", "\u202e", "\u2066", "\r", "\n", "\t", "\x07", "["]),
    )
)


def dangerous(ch: str) -> bool:
    return unicodedata.category(ch) in DANGEROUS


@given(hostile_text)
def test_visible_leaves_no_dangerous_character(text):
    assert not any(dangerous(c) for c in visible(text))


@given(hostile_text)
def test_multiline_keeps_only_newlines(text):
    shown = visible(text, multiline=True)
    assert not any(dangerous(c) and c != "\n" for c in shown)


@given(hostile_text, st.integers(min_value=1, max_value=200))
def test_one_line_is_one_line_and_bounded(text, limit):
    shown = one_line(text, limit)
    assert "\n" not in shown
    assert not any(dangerous(c) for c in shown)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | hostile_text,
        lambda inner: st.lists(inner) | st.dictionaries(hostile_text, inner),
        max_leaves=10,
    ),
    st.sampled_from([None, 2]),
)
def test_json_for_terminal_round_trips_without_raw_controls(value, indent):
    encoded = json_for_terminal(value, indent=indent)
    assert json.loads(encoded) == value
    assert not any(dangerous(c) and c != "\n" for c in encoded)


def test_escapes_are_readable():
    assert visible("a\x1b[31mb") == "a\\x1b[31mb"
    assert visible("x\u202ey") == "x\\u202ey"
    assert visible("bell\x07") == "bell\\x07"
    assert visible("line1\r\nline2\rover", multiline=True) == "line1\nline2\\x0dover"
    assert visible("[bold red]markup stays text[/]") == "[bold red]markup stays text[/]"
    assert one_line("hello\n\n  world\tagain", 11) == "hello worl…"


def test_a_one_line_preview_of_megabytes_reads_only_its_start():
    huge = "word " * 1_000_000 + "THE END"
    shown = one_line(huge, 300)
    assert len(shown) == 300 and shown.endswith("…") and shown.startswith("word word")
    spaced = "a" + " " * 5000 + "b"  # cut inside a whitespace run: shorter, still marked
    assert one_line(spaced, 100) == "a…"
    assert one_line("short text", 300) == "short text"


def test_a_long_text_is_cut_at_a_line_break_with_the_bytes_left():
    assert cut_long("short") == ("short", 0)
    text = ("x" * 99 + "\n") * 1000  # 100,000 characters
    shown, more = cut_long(text, 64 * 1024)
    assert shown.endswith("\n") and len(shown) == 65_500  # the last break before 64 KB
    assert more == len(text) - 65_500
    assert cut_long("é" * 200, 100) == ("é" * 100, 200)  # UTF-8 bytes: two each
    assert [size_text(n) for n in (1, 999, 64_000, 4_934_464)] == [
        "1 byte",
        "999 bytes",
        "64 KB",
        "4.9 MB",
    ]


def test_exact_escaping_tells_esc_from_the_text_backslash_x1b():
    esc, text = "id\x1b", "id\\x1b"
    assert visible(esc) == visible(text) == "id\\x1b"  # the guard pass: alike
    assert visible(esc, exact=True) == "id\\x1b"
    assert visible(text, exact=True) == "id\\\\x1b"
    assert one_line(text, exact=True) == "id\\\\x1b"
    assert one_line("a\\b\\c", 4, exact=True) == "a\\\\…"  # an escape is never cut in two


@given(hostile_text, st.integers(min_value=1, max_value=80))
def test_the_guard_pass_keeps_exact_text_as_it_is(text, limit):
    """Rows are formatted with exact=True, then guarded by safe_cells (one_line): the
    guard must not double the backslashes a first pass wrote."""
    shown = one_line(text, limit, exact=True)
    assert one_line(shown) == shown and visible(shown) == shown


@pytest.mark.parametrize(
    "text",
    ["plain", "back\\slash", "\x1b[31m", "a\u202eb", "\\x1b", "\\\\x1b", "\x9b \\ \U000e0001", ""],
)
def test_an_exact_print_reads_back_to_its_text(text):
    printed = visible(text, exact=True)
    assert (unescape_exact(printed) or printed) == text


@pytest.mark.parametrize("printed", ["a\\b", "\\x41", "\\x1", "\\uzzzz", "end\\"])
def test_text_no_exact_print_gives_is_not_unescaped(printed):
    assert unescape_exact(printed) is None
