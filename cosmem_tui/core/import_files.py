"""Read exported items one at a time: JSON arrays, JSON Lines, or a folder of such files.

Nothing is ever loaded whole. A JSON array is split incrementally with
``json.JSONDecoder.raw_decode`` over a sliding buffer; JSON Lines (and files of
concatenated JSON documents) are decoded value by value the same way. Each value
comes out as a ``Record`` carrying where it came from, so a problem can be reported
as ``FILE:LINE: message``.

Cosmos caps an item at 2 MB, so a value that still does not decode once 16 MB of
it are buffered is reported as broken instead of buffering the rest of the file.

Bytes that are not UTF-8 cost only the value they sit in: the file is decoded with
``surrogateescape``, so a bad byte becomes a lone surrogate U+DC80–U+DCFF in the
buffer (a JSON ``\\udcff`` escape stays six ASCII characters, so it cannot be taken
for one), and a value whose source holds one is reported, not imported.

A line of JSON Lines that holds one whole value is read by orjson when it is installed
(about three times faster), but only where its reading is provably the standard
library's: orjson refuses every value that the standard library reads differently or
reports (NaN, 1e400, lone surrogates, bytes that are not UTF-8, syntax errors), and the
two cases where it accepts what the standard library reads otherwise are looked for
before its value is taken (an integer past 64 bits, which orjson turns into a float,
and nesting deep enough to exhaust the standard library's recursion). Anything else is
read again with the standard library, which then also writes any error message, so
messages and values are the same with or without orjson.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

from cosmem_tui.model import JsonValue

_orjson_loads: Callable[[str], JsonValue] | None
try:
    from orjson import loads as _orjson_loads
except ImportError:  # a platform without its wheel: the standard library reads alone
    _orjson_loads = None

SUFFIXES = (".json", ".jsonl", ".ndjson")
CHUNK = 1 << 16
MAX_VALUE_CHARS = 16 << 20

# The reader of whole lines (None: every value is read by the standard library alone).
# Tests set it to None to prove both readings alike.
FAST_LOADS: Callable[[str], JsonValue] | None = _orjson_loads
FAST_LINE_CHARS = 4 << 20  # longer lines (no item is over 2 MB) go to the standard library
# orjson reads integers from -2**63 to 2**64 - 1 exactly, and any other as a float (the
# standard library: as an int). Such an integer has 20 digits or more, or 19 after a
# minus, and in valid JSON its digits follow the start of the line, a ':', ',', '[' or
# whitespace, or a '-' that does. A line where digits follow one so is read by the
# standard library (a string may hold such digits too: then only time is lost).
_DIGITS_19 = b"0" * 19
_BIG_AFTER_SEPARATOR = b":" + b"0" * 20
_BIG_AFTER_BRACKET = b"[" + b"0" * 20
_BIG_NEGATIVE = b"-" + b"0" * 19
# The standard library recurses once per nesting level and gives up near the recursion
# limit (1,000 frames, less the caller's); orjson goes to 1,024. Lines with at least this
# many brackets are read by the standard library, which decides (a shorter line cannot
# hold that many pairs).
_SAFE_DEPTH = 512
# A line this long that orjson refuses is taken for a file whose lines are not one item
# each: the rest of the file is read by the standard library (finding each next newline
# would read ahead the whole file over and over).
_LONG_LINE = 1 << 16
# Each byte of a line mapped to what the checks above look for: a digit ("0"), what may
# come before a number's digits (":" for ':', ',' and whitespace; "[" for '[' and '{',
# also counted as nesting; "-"), anything else (".").
_SHAPE = bytes(
    ord("0")
    if b in b"0123456789"
    else ord(":")
    if b in b":, \t\r"
    else ord("[")
    if b in b"[{"
    else ord("-")
    if b == ord("-")
    else ord(".")
    for b in range(256)
)


_WHITESPACE = re.compile(r"[ \t\r\n]*")
_UNDECODED = re.compile("[\udc80-\udcff]")  # an undecodable byte, as surrogateescape puts it


def _may_be_cut_short(exc: json.JSONDecodeError, buffered: int) -> bool:
    """Could more input fix this error? Only if it sits at the end of what is buffered.

    A truncated literal (``tru``) or escape (``\\u12``) fails a few characters before
    the end; an unterminated string fails where the string starts.
    """
    return buffered - exc.pos <= 10 or exc.msg.startswith("Unterminated string")


def _first_undecoded(text: str) -> re.Match[str] | None:
    """The first byte ``surrogateescape`` kept in ``text``, if any.

    Runs once per value on the import path, so the regex is the last resort: ASCII
    text has none, and UTF-8 encodes any text that has no surrogate at all.
    """
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _UNDECODED.search(text)
    return None


class _Numbers:
    """A decoder that notes the numbers no item can hold: the NaN and Infinity literals
    (Python's json reads them; JSON, Cosmos DB and SQLite's json functions do not), a
    float past the double range (``1e400`` decodes to inf) and an integer past it (Cosmos
    DB stores numbers as doubles; past 4,300 digits ``int()`` refuses it outright).

    Only literals call back here: floats and integers through ``parse_float`` and
    ``parse_int`` (a Python call each, a few per cent of decoding), NaN and Infinity
    through ``parse_constant``; nothing else is walked unless one was found.
    """

    def __init__(self) -> None:
        self.found: list[str] = []  # what each bad literal was, in order
        self.decoder = json.JSONDecoder(
            parse_constant=self._constant, parse_float=self._float, parse_int=self._int
        )

    def _constant(self, name: str) -> float:
        self.found.append(f"{name} {{at}} is not a JSON number; Cosmos DB stores finite ones")
        return float(name)

    def _float(self, text: str) -> float:
        value = float(text)
        if value - value:  # inf - inf is NaN (true); any finite x - x is 0.0 (false)
            self.found.append(_PAST_DOUBLE.format(what="the number {at}"))
        return value

    def _int(self, digits: str) -> int | float:
        if len(digits) < _DOUBLE_DIGITS:
            return int(digits)
        try:
            value = int(digits)
            float(value)
            return value
        except (ValueError, OverflowError):  # past 4,300 digits, or past the double range
            size = len(digits.lstrip("-"))
            self.found.append(_PAST_DOUBLE.format(what=f"a {size:,}-digit number {{at}}"))
            return math.inf if not digits.startswith("-") else -math.inf

    def problem(self, value: JsonValue) -> str | None:
        """Why the value just decoded holds a number no item can, or None."""
        if not self.found:
            return None
        path = _non_finite(value, "")  # every bad literal was decoded as NaN or ±inf
        return self.found[0].replace("{at}", f"at {path or '/'}")

    def reset(self) -> None:
        self.found.clear()


_DOUBLE_DIGITS = 300  # shorter integers are doubles (the largest double has 309 digits)
_PAST_DOUBLE = "{what} is past what Cosmos DB stores (a 64-bit double)"


def _non_finite(value: JsonValue, path: str) -> str | None:
    """The JSON path of the first NaN or infinity in ``value``, else None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    if isinstance(value, dict):
        for key, inner in value.items():
            found = _non_finite(inner, f"{path}/{key}")
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found = _non_finite(inner, f"{path}/{index}")
            if found is not None:
                return found
    return None


def _not_utf8(undecoded: str, line: int) -> str:
    """A byte ``surrogateescape`` kept as U+DC80–U+DCFF, named as the byte it was."""
    return f"not UTF-8 text (byte 0x{ord(undecoded) - 0xDC00:02x} on line {line})"


class ExportFileError(ValueError):
    """The input cannot be read at all (no such file, an empty folder)."""


class Record(NamedTuple):
    """One value read from an export file, or the reason one could not be read.

    A named tuple: immutable, and built for every item of an import at a third of a
    frozen dataclass's cost.
    """

    file: Path
    line: int  # 1-based line where the value starts
    number: int  # 1-based position of the value in its file
    in_array: bool  # True: an element of a JSON array (reported with its item number)
    value: JsonValue = None
    error: str | None = None  # set when the value is unreadable; value is then None
    fatal: bool = False  # the rest of the file was skipped after this error
    text: str | None = None  # the value's JSON as read, when it is on one line
    reason: str | None = None  # why it is unreadable, for a file-level message ("line 3: …")

    @property
    def where(self) -> str:
        return where((self.file, self.line, self.number, self.in_array))


_new_record = tuple.__new__  # Record(...) for the fast path: no Python-level __new__


def where(place: tuple[Path | str, int, int, bool]) -> str:
    """``FILE:LINE``, or ``FILE:LINE: item N`` inside a JSON array, of a record's place
    (file, line, number, in_array: a plain tuple that does not hold on to the value)."""
    file, line, number, in_array = place
    return f"{file}:{line}: item {number}" if in_array else f"{file}:{line}"


def exported_files(source: Path) -> list[Path]:
    """The files to import: ``source`` itself, or the export files in a folder (sorted)."""
    if source.is_dir():
        files = sorted(p for p in source.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES)
        if not files:
            raise ExportFileError(f"{source}: no {', '.join(SUFFIXES)} files in this folder")
        return files
    if not source.exists():
        raise ExportFileError(f"{source}: no such file or folder")
    return [source]


def read_records(path: Path) -> Iterator[Record]:
    """Every value of one export file, in order, never raising for bad content."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        yield Record(path, 1, 1, False, error=f"cannot read the file ({exc.strerror})", fatal=True)
        return
    with handle:
        yield from _Splitter(path, handle).records()


class _Decoded(NamedTuple):
    """What decoding one value found: the value, or why there is none."""

    value: JsonValue = None
    text: str | None = None  # its source when on one line (JSON Lines), stored as read
    error: str | None = None  # set when the value is unreadable
    reason: str | None = None  # the error as "line N: message", for a file-level message
    resumable: bool = False  # after an error, ``pos`` is past a whole value


class _Splitter:
    """A sliding text buffer over a binary file, cut into JSON values."""

    def __init__(self, path: Path, handle: BinaryIO) -> None:
        self.path = path
        self.handle = handle
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="surrogateescape")
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.line = 1  # the line number at buf[counted]
        self.counted = 0
        self.numbers = _Numbers()
        self.fast = FAST_LOADS  # None once lines prove not to be one value each

    # -- buffer -------------------------------------------------------------------------

    def fill(self) -> bool:
        """Append the next chunk (dropping what was consumed); False at end of file."""
        if self.eof:
            return False
        raw = self.handle.read(CHUNK)
        text = self.decoder.decode(raw, final=not raw)
        if not raw:
            self.eof = True
        self.line_at(self.pos)  # keep the line count anchored at the cut
        self.buf = self.buf[self.pos :] + text
        self.pos = self.counted = 0
        return bool(raw) or bool(text)

    def line_at(self, index: int) -> int:
        """The line number at ``buf[index]`` (counted incrementally, either direction)."""
        if index >= self.counted:
            self.line += self.buf.count("\n", self.counted, index)
        else:
            self.line -= self.buf.count("\n", index, self.counted)
        self.counted = index
        return self.line

    def skip_whitespace(self) -> str:
        """The next significant character ('' at end of file), reading on as needed."""
        while True:
            self.pos = _WHITESPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return ""

    def decode_value(self) -> _Decoded:
        """The JSON value at ``pos`` (reading on while it is incomplete), or an error.

        ``pos`` moves past the value when it decoded whole, even if it is refused.
        """
        decoder = self.numbers.decoder
        while True:
            self.numbers.reset()
            try:
                value, end = decoder.raw_decode(self.buf, self.pos)
            except RecursionError:  # Cosmos nests at most 128 levels; this is no item
                line = self.line_at(self.pos)
                return _Decoded(
                    error=f"not an item: JSON nested too deeply to read (line {line})",
                    reason=f"line {line}: nested too deeply",
                )
            except json.JSONDecodeError as exc:
                if (
                    not self.eof
                    and _may_be_cut_short(exc, len(self.buf))
                    and len(self.buf) - self.pos < MAX_VALUE_CHARS
                ):
                    self.fill()  # perhaps only incomplete; retry (positions move on a fill)
                    continue
                bad = _UNDECODED.search(self.buf, self.pos, exc.pos + 1)
                if bad is not None:  # JSON broke on a byte that is not text: say that
                    reason = _not_utf8(bad.group(), self.line_at(bad.start()))
                    return _Decoded(error=reason, reason=reason)
                line = self.line_at(exc.pos)
                return _Decoded(
                    error=f"not valid JSON: {exc.msg} (line {line})",
                    reason=f"line {line}: {exc.msg}",
                )
            if end == len(self.buf) and not self.eof:
                self.fill()  # a number may go on in the next chunk: decode it whole
                continue
            text = self.buf[self.pos : end]
            bad = _first_undecoded(text)
            if bad is not None:
                reason = _not_utf8(bad.group(), self.line_at(self.pos + bad.start()))
                self.pos = end  # the value is whole: the next one can still be read
                return _Decoded(error=reason, reason=reason, resumable=True)
            number = self.numbers.problem(value)
            if number is not None:
                reason = f"not an item: {number} (line {self.line_at(self.pos)})"
                self.pos = end
                return _Decoded(error=reason, reason=reason, resumable=True)
            self.pos = end
            return _Decoded(value, None if "\n" in text else text)

    # -- values -------------------------------------------------------------------------

    def records(self) -> Iterator[Record]:
        first = self.skip_whitespace()
        if first == "[":
            yield from self._array()
        elif first == "{":
            yield from self._sequence()
        elif first:
            line = self.line_at(self.pos)
            decoded = self.decode_value()
            reason = decoded.reason or f"line {line}: a lone JSON value, not an array or objects"
            # A byte that is not text needs no more words (error and reason are one then).
            error = reason if reason == decoded.error else f"not JSON or JSON Lines ({reason})"
            yield Record(self.path, line, 1, False, error=error, fatal=True, reason=reason)

    def _sequence(self) -> Iterator[Record]:
        """JSON Lines, or any whitespace-separated JSON documents."""
        number = 0
        while True:
            if self.fast is not None:
                number = yield from self._lines(self.fast, number)
            if not self.skip_whitespace():
                return
            number += 1
            line = self.line_at(self.pos)
            decoded = self.decode_value()
            if decoded.error is None:
                yield Record(self.path, line, number, False, value=decoded.value, text=decoded.text)
                continue
            yield Record(self.path, line, number, False, error=decoded.error, reason=decoded.reason)
            if not decoded.resumable:
                self._skip_line()  # resume at the next line, as JSON Lines readers do

    def _lines(self, fast: Callable[[str], JsonValue], number: int) -> Generator[Record, None, int]:
        """Values that each fill the rest of their line, read whole by ``fast``; returns
        the last value's number. Stops at the end of the file or at a line it leaves to
        ``decode_value`` (``pos`` then at that line's start): where it would read another
        value, a number ``fast`` cannot read alike, a line that is not one value.
        """
        # decode_value reads any value shorter than MAX_VALUE_CHARS whole: so must this.
        limit = min(FAST_LINE_CHARS, MAX_VALUE_CHARS - 1)
        buf, pos, line = self.buf, self.pos, self.line_at(self.pos)
        while True:
            newline = buf.find("\n", pos)
            if newline < 0 and not self.eof:
                self.pos = self.counted = pos
                self.line = line
                newline = self._read_to_newline(limit)  # positions start over
                buf, pos = self.buf, self.pos
            if newline < 0:
                if not self.eof:  # past the limit without a newline
                    self.fast = None  # an oversized item, or no lines: read on as before
                    break
                newline = len(buf)
                if pos >= newline:
                    break
            if newline - pos > limit:
                self.fast = None
                break
            text = buf[pos:newline]
            value_text = text.rstrip(" \t\r")  # what decode_value takes: the value alone
            if not value_text:  # a blank line
                pos = newline + 1
                line += 1
                continue
            if text[0] in " \t\r":
                break  # indented: decode_value reads past the whitespace
            try:
                value = fast(text)
            except ValueError:  # orjson.JSONDecodeError: the standard library says why
                if len(text) > _LONG_LINE:
                    self.fast = None  # a long line that is not one value: lines are no items
                break
            # orjson's value is the standard library's unless an integer may be past 64
            # bits or the nesting deep (_SHAPE; inline: this runs once per item)
            shape = text.encode("utf-8").translate(_SHAPE)  # orjson took it: it encodes
            if (
                (
                    _DIGITS_19 in shape  # rare: then where the digits stand
                    and (
                        _BIG_AFTER_SEPARATOR in shape
                        or _BIG_AFTER_BRACKET in shape
                        or _BIG_NEGATIVE in shape
                        or shape.startswith(_BIG_AFTER_SEPARATOR[1:])
                    )
                )
                or (len(text) >= 2 * _SAFE_DEPTH and shape.count(b"[") >= _SAFE_DEPTH)
            ):
                break
            number += 1
            yield _new_record(
                Record, (self.path, line, number, False, value, None, False, value_text, None)
            )
            pos = newline + 1
            line += 1
        self.pos = self.counted = min(pos, len(buf))
        self.line = line
        return number

    def _read_to_newline(self, limit: int) -> int:
        """Read on until a newline follows ``pos`` (its index), the end of the file or
        ``limit`` characters without one (-1)."""
        searched = len(self.buf) - self.pos
        while searched <= limit and self.fill():
            newline = self.buf.find("\n", self.pos + searched)
            if newline >= 0:
                return newline
            searched = len(self.buf) - self.pos
        return -1

    def _skip_line(self) -> None:
        while True:
            newline = self.buf.find("\n", self.pos)
            if newline >= 0:
                self.pos = newline + 1
                return
            self.pos = len(self.buf)
            if not self.fill():
                return

    def _array(self) -> Iterator[Record]:
        self.pos += 1  # the "["
        number = 0
        if self.skip_whitespace() == "]":
            self.pos += 1
            yield from self._trailing()
            return
        while True:
            number += 1
            self.skip_whitespace()
            line = self.line_at(self.pos)
            decoded = self.decode_value()
            if decoded.error is not None and decoded.resumable:
                yield Record(
                    self.path, line, number, True, error=decoded.error, reason=decoded.reason
                )
            elif decoded.error is not None:
                # Inside an array there is no safe place to resume: report and stop here.
                yield Record(
                    self.path,
                    line,
                    number,
                    True,
                    error=decoded.error + "; rest of file skipped",
                    fatal=True,
                    reason=decoded.reason,
                )
                return
            else:
                yield Record(self.path, line, number, True, value=decoded.value, text=decoded.text)
            after = self.skip_whitespace()
            if after == ",":
                self.pos += 1
                continue
            if after == "]":
                self.pos += 1
                yield from self._trailing()
                return
            found = repr(after) if after else "the end of the file"
            yield Record(
                self.path,
                self.line_at(self.pos),
                number + 1,
                True,
                error=f"not valid JSON: expected ',' or ']' after item {number}, found {found}",
                fatal=True,
            )
            return

    def _trailing(self) -> Iterator[Record]:
        extra = self.skip_whitespace()
        if extra:
            yield Record(
                self.path,
                self.line_at(self.pos),
                0,
                False,
                error=f"unexpected {extra!r} after the closing ']'; ignored",
                fatal=True,
            )
