"""Text is data: make attacker-controlled strings safe to put on a terminal.

Chat messages, thread ids and every other item field may carry Rich markup,
ANSI/OSC escape sequences, C1 controls or bidirectional overrides. The UI renders
strings as ``rich.text.Text`` (never markup); this module guarantees that no
character of item content can act on the terminal: control, format (bidi,
zero-width), separator and surrogate characters become visible escapes such as
``\\x1b`` or ``\\u202e``.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_WHITESPACE_RUN = re.compile(r"[ \t\r\n]+")


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def must_escape(ch: str) -> bool:
    return unicodedata.category(ch) in _ESCAPED_CATEGORIES


def visible(text: str, *, multiline: bool = False, exact: bool = False) -> str:
    """``text`` with every dangerous character shown as an escape.

    With ``multiline`` newlines are kept (``\\r\\n`` becomes ``\\n``; a lone ``\\r``
    is escaped, it could overwrite a line) and tabs become four spaces.

    ``exact``: a backslash is shown as ``\\\\`` too, so what is printed stands for one
    text only: an id holding ESC prints ``\\x1b``, an id holding the four characters
    ``\\x1b`` prints ``\\\\x1b``. For the one pass that formats item data (tables, CSV,
    list cells, ids); the guard passes over text already formatted leave backslashes
    alone, so they stay idempotent.
    """
    if text.isprintable() and not (exact and "\\" in text):  # fast path: nothing to escape
        return text
    if multiline:
        text = text.replace("\r\n", "\n").replace("\t", "    ")
    out: list[str] = []
    for ch in text:
        if ch == "\n" and multiline:
            out.append(ch)
        else:
            out.append(_shown(ch, exact))
    return "".join(out)


def _shown(ch: str, exact: bool) -> str:
    if must_escape(ch):
        return _escape_char(ch)
    return "\\\\" if exact and ch == "\\" else ch


_ESCAPE_WIDTHS = {"x": 2, "u": 4, "U": 8}


def unescape_exact(text: str) -> str | None:
    """The text ``visible(…, exact=True)`` printed as ``text``, when it is such a print
    and differs from it (a printed name holding ``\\`` or ``\x1b``); else None.

    Only the escapes ``visible`` writes are undone, and only for characters it would
    escape, so this is its inverse and nothing more: ``\\x41`` is no print of ``A``.
    """
    if "\\" not in text:
        return None
    out: list[str] = []
    at = 0
    while at < len(text):
        ch = text[at]
        if ch != "\\":
            out.append(ch)
            at += 1
            continue
        tag = text[at + 1 : at + 2]
        if tag == "\\":
            out.append("\\")
            at += 2
            continue
        width = _ESCAPE_WIDTHS.get(tag)
        digits = text[at + 2 : at + 2 + width] if width else ""
        if width is None or len(digits) != width or not all(c in _HEX for c in digits):
            return None  # a lone backslash: visible never prints one
        char = chr(int(digits, 16)) if int(digits, 16) <= 0x10FFFF else ""
        if not char or not must_escape(char) or _escape_char(char) != text[at : at + 2 + width]:
            return None
        out.append(char)
        at += 2 + width
    return "".join(out)


_HEX = frozenset("0123456789abcdef")


def one_line(text: str, limit: int | None = None, *, exact: bool = False) -> str:
    """A single-line preview: whitespace runs collapse to one space, then escaping
    (``exact``: backslashes too, as ``visible`` says).

    ``limit`` bounds what is shown, escapes included (``\\x1b`` is four characters),
    and an escape is never cut in two. With a ``limit`` only the start of ``text`` is
    read (a row of a 5 MB message costs what a row of a short one does): whitespace runs
    longer than that start may make the preview shorter than ``limit``, never longer.
    """
    cut = False
    if limit is not None and len(text) > (bound := 4 * limit + 64):
        text, cut = text[:bound], True
    flat = _WHITESPACE_RUN.sub(" ", text).strip()
    if limit is None:
        return visible(flat, exact=exact)
    if not cut:
        shown = visible(flat[: limit + 1], exact=exact)  # escaping only lengthens
        if len(shown) <= limit:
            return shown
    out: list[str] = []
    room = max(0, limit - 1)
    for ch in flat:
        piece = _shown(ch, exact)
        if len(piece) > room:
            break
        out.append(piece)
        room -= len(piece)
    return "".join(out) + "…"


LONG_TEXT = 64 * 1024  # characters of one text the detail shows; the rest is read on demand


def size_text(size: int) -> str:
    """``4.9 MB``, ``812 KB``, ``96 bytes`` (decimal units, as a transfer is counted)."""
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    if size >= 1_000:
        return f"{size / 1_000:.0f} KB"
    return f"{size} byte{'' if size == 1 else 's'}"


def break_point(text: str, start: int, limit: int) -> int:
    """Where a piece of ``text`` from ``start``, at most ``limit`` characters, ends: just
    after the last line break in its last eighth, else at ``start + limit``."""
    end = text.rfind("\n", start + limit - limit // 8, start + limit)
    return end + 1 if end >= 0 else start + limit


LONG_LINES = 1_000  # lines of one text the detail lays out (a line costs more than a byte)


def cut_long(text: str, limit: int = LONG_TEXT, *, lines: int | None = None) -> tuple[str, int]:
    """The start of ``text`` to show (at most ``limit`` characters, ended at a line break
    when one is near, and with ``lines`` at most that many lines) and how many UTF-8
    bytes are left after it (0: nothing is cut)."""
    end = len(text) if len(text) <= limit else break_point(text, 0, limit)
    if lines is not None:
        newline = -1
        for _ in range(lines):
            newline = text.find("\n", newline + 1, end)
            if newline < 0:
                break
        else:
            end = min(end, newline + 1)
    if end >= len(text):
        return text, 0
    rest = text[end:]
    return text[:end], len(rest.encode("utf-8", "surrogatepass"))


def json_for_terminal(value: Any, *, indent: int | None = None) -> str:
    """JSON that decodes to exactly ``value`` but carries no raw control characters.

    ``ensure_ascii=False`` keeps text readable; C0 controls are escaped by the
    encoder itself, and this also escapes C1, format, separator and lone
    surrogate characters (all legal only inside JSON strings). NaN and infinities
    are written as ``null`` (``json_text`` says how many).
    """
    return json_text(value, indent=indent)[0]


def json_text(value: Any, *, indent: int | None = None) -> tuple[str, int]:
    """``json_for_terminal`` and how many numbers in ``value`` were NaN or infinite.

    Python's encoder writes those as bare ``NaN`` / ``Infinity``, which no JSON parser
    (``jq``, ``JSON.parse``, Cosmos DB) reads: ``allow_nan=False`` refuses them, and
    they are then written as ``null``, counted so the writer can say so.
    """
    try:
        encoded = json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
        replaced = 0
    except ValueError:  # a NaN or an infinity somewhere (the only ValueError for data)
        counter = [0]
        encoded = json.dumps(_finite(value, counter), ensure_ascii=False, indent=indent)
        replaced = counter[0]
    return _escaped(encoded), replaced


@dataclass(frozen=True, slots=True)
class JsonStart:
    """The start of an item's indented JSON, as ``cut_long`` cuts it, and the whole's sizes."""

    shown: str  # cut_long(json_for_terminal(value, indent=2), lines=...)'s text
    more: int  # UTF-8 bytes of the escaped JSON after ``shown`` (0: nothing is cut)
    length: int  # characters of json.dumps(value, indent=2, ensure_ascii=False)


def indented_json_start(
    value: Mapping[str, Any], limit: int = LONG_TEXT, *, lines: int | None = None
) -> JsonStart:
    """``cut_long(json_for_terminal(value, indent=2), limit, lines=lines)`` and the
    indented JSON's length, without writing the whole of it in Python's indented encoder
    (pure Python: most of a second for a session document of 50,000 messages, of which
    the pane shows 64 KB). The compact form comes from the C encoder; the indented one is
    that plus the line breaks and indents of each array and object (``_indent_growth``),
    and only its first ``limit`` characters are written. A NaN or an infinity (written
    as null here, as NaN in the raw item's size) takes the long way."""
    try:
        compact = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        text = json.dumps(value, indent=2, ensure_ascii=False)
        shown, more = cut_long(json_for_terminal(value, indent=2), limit, lines=lines)
        return JsonStart(shown, more, len(text))
    growth = _indent_growth(value)
    escaped = _escaped(compact)  # per character, so the indented form escapes alike
    written: list[str] = []
    count = 0
    for chunk in json.JSONEncoder(ensure_ascii=False, indent=2).iterencode(value):
        written.append(chunk)
        count += len(chunk)
        if count > limit:  # enough: cut_long reads no further than ``limit``
            break
    shown, _ = cut_long(_escaped("".join(written)), limit, lines=lines)
    if len(shown) >= len(escaped) + growth:
        return JsonStart(shown, 0, len(compact) + growth)
    whole = len(escaped.encode("utf-8", "surrogatepass")) + growth  # the growth is ASCII
    return JsonStart(
        shown, whole - len(shown.encode("utf-8", "surrogatepass")), len(compact) + growth
    )


_CONTAINERS = (dict, list, tuple)  # what Python's JSON encoders write as objects and arrays


def _indent_growth(value: Any) -> int:
    """What ``json.dumps(indent=2)`` writes beyond the compact form (separators ``, ``
    and ``: ``): each non-empty array or object at nesting depth ``d`` puts a line break
    and an indent of ``2 (d + 1)`` before each of its ``n`` elements and one of ``2 d``
    before its closing bracket, and ``,`` where the compact form has ``, ``: that is
    ``2 (d + 1) (n + 1)`` more. Counted a depth at a time, each in C loops (``map``,
    ``chain``): the 50,000 messages of a session are one level, not 50,000 steps."""
    grown = 0
    level: list[Any] = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level:
        nonempty = list(filter(None, level))  # a container is true when it has elements
        grown += 2 * (depth + 1) * (sum(map(len, nonempty)) + len(nonempty))
        kinds = set(map(type, nonempty))
        children: list[Any]
        if kinds == {dict}:
            children = list(chain.from_iterable(map(dict.values, nonempty)))
        elif kinds <= {list, tuple}:
            children = list(chain.from_iterable(nonempty))
        else:
            children = [
                child
                for node in nonempty
                for child in (node.values() if isinstance(node, dict) else node)
            ]
        child_kinds = set(map(type, children))
        if child_kinds <= set(_CONTAINERS):  # all containers (or none at all)
            level = children
        elif any(issubclass(kind, _CONTAINERS) for kind in child_kinds):
            level = [child for child in children if isinstance(child, _CONTAINERS)]
        else:
            level = []
        depth += 1
    return grown


def _finite(value: Any, counter: list[int]) -> Any:
    """``value`` with every NaN and infinity replaced by None (counted in ``counter``)."""
    if isinstance(value, float) and not math.isfinite(value):
        counter[0] += 1
        return None
    if isinstance(value, dict):
        return {k: _finite(v, counter) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v, counter) for v in value]
    return value


def _escaped(encoded: str) -> str:
    if encoded.replace("\n", "").isprintable():
        return encoded
    return "".join(_json_escape(ch) if ch != "\n" and must_escape(ch) else ch for ch in encoded)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
