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
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NamedTuple

from cosmem_tui.model import JsonValue

SUFFIXES = (".json", ".jsonl", ".ndjson")
CHUNK = 1 << 16
MAX_VALUE_CHARS = 16 << 20

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


@dataclass(frozen=True, slots=True)
class Record:
    """One value read from an export file, or the reason one could not be read."""

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
        position = f"{self.file}:{self.line}"
        return f"{position}: item {self.number}" if self.in_array else position


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
        while self.skip_whitespace():
            number += 1
            line = self.line_at(self.pos)
            decoded = self.decode_value()
            if decoded.error is None:
                yield Record(self.path, line, number, False, value=decoded.value, text=decoded.text)
                continue
            yield Record(self.path, line, number, False, error=decoded.error, reason=decoded.reason)
            if not decoded.resumable:
                self._skip_line()  # resume at the next line, as JSON Lines readers do

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
