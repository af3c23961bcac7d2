"""Typed partition-level keys: a tenant, or a thread (one value, or several for a composite).

Cosmos partition key values are JSON scalars: a tenant stored as the number ``42`` is a
different logical partition from the string ``"42"``. Keys therefore keep their JSON
type end to end, compare by type and value (``True`` is not ``1``), and have exactly one
text form, which reads back to the same key:

* a string is written as is — unless it would read as another JSON value (``42``,
  ``true``, ``null``, ``"x"``, ``[1]``) or is empty, then it is written as a JSON string;
* a number, boolean or null is written as JSON (``42``, ``1.5``, ``true``, ``null``);
* a composite key (a thread named by several fields) is a JSON array (``["alice","s-1"]``).

Reading a typed name (``Key.parse``) is the inverse, and total for one-value keys: a text
that reads as a JSON string, a finite number, a boolean or null is that value; any other
text (an object such as ``{"role": "system"}``, an array, ``NaN``, ``1e400``, text that
is not JSON) is the string as typed. ``Key.readings`` adds the plain string as a second
reading of a text that parsed to something else: a person may type 42 for the string
"42". Callers that can look (the browse service) take the first reading that exists, so
the text a listing prints always opens its key.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from operator import attrgetter, itemgetter
from typing import Any, TypeAlias

Scalar: TypeAlias = str | int | float | bool | None

# Cosmos orders scalar types null < boolean < number < string; the rank also keeps
# True apart from 1 when keys are compared or hashed.
_RANK_NULL, _RANK_BOOL, _RANK_NUMBER, _RANK_STRING = range(4)


class InvalidKey(ValueError):
    """A text or value that cannot be a partition-level key."""


def _rank(value: Scalar) -> int:
    if value is None:
        return _RANK_NULL
    if isinstance(value, bool):
        return _RANK_BOOL
    if isinstance(value, int | float):
        return _RANK_NUMBER
    return _RANK_STRING


def _check(value: object) -> Scalar:
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    raise InvalidKey(f"a key value must be a JSON string, number, boolean or null, not {value!r}")


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# What a stripped text can start with and still parse as JSON (Python's parser also
# takes NaN, Infinity and -Infinity); the words are the only texts starting with a letter
# that parse. Anything else is a plain string without trying the parser (a raised
# ValueError a key is slow where 100,000 keys are named).
_JSON_STARTS = frozenset('{["-0123456789')
_JSON_WORDS = frozenset(("true", "false", "null", "NaN", "Infinity"))


def _reads_as_other_json(text: str) -> bool:
    """Would ``text`` parse as a JSON value (so it must be quoted to stay a string)?"""
    if not text or text != text.strip():
        return True
    if text[0] not in _JSON_STARTS:
        return text in _JSON_WORDS
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


_NOT_SCALAR = object()  # a text that is no JSON scalar a key can hold


def _no_constant(word: str) -> float:
    raise ValueError(f"{word} is not JSON")  # NaN, Infinity: Python's extensions


def _scalar_or_none(text: str) -> object:
    """The JSON scalar ``text`` reads as, or ``_NOT_SCALAR`` (not JSON, an object or an
    array, a number no double holds)."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except ValueError:
        return _NOT_SCALAR  # e.g. surrounding spaces, "[not json": a plain string
    if isinstance(value, list | dict):
        return _NOT_SCALAR
    if isinstance(value, float) and not math.isfinite(value):
        return _NOT_SCALAR  # 1e400 reads as infinity: no partition key value
    return value


class Key:
    """One tenant or thread: a tuple of JSON scalars (one, or several for a composite)."""

    # ``_typed`` pairs each value with its type's rank; None when every value is a string
    # (nearly every key): the values then compare, hash and sort alone, and a report of
    # 100,000 keys does not carry 100,000 pairs of tuples.
    __slots__ = ("_typed", "values")

    values: tuple[Scalar, ...]
    _typed: tuple[tuple[int, Scalar], ...] | None

    def __init__(self, values: Iterable[object]) -> None:
        checked = tuple(values)
        if not checked:
            raise InvalidKey("a key needs at least one value")
        typed = None
        for value in checked:
            if type(value) is not str and not isinstance(value, str):
                typed = tuple((_rank(v), v) for v in map(_check, checked))
                break
        object.__setattr__(self, "values", checked)
        object.__setattr__(self, "_typed", typed)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Key is immutable")

    @classmethod
    def of(cls, *values: object) -> Key:
        return cls(values)

    @classmethod
    def parse(cls, text: str, arity: int = 1) -> Key:
        """The key a text names (the inverse of ``text``); ``arity`` values for a composite.

        One value never fails: text that is no JSON scalar is the string itself. A
        composite is a JSON array of ``arity`` scalars, else ``InvalidKey``.
        """
        if arity == 1:
            value = _scalar_or_none(text) if _reads_as_other_json(text) else _NOT_SCALAR
            return cls((text,)) if value is _NOT_SCALAR else cls((value,))
        try:
            values = json.loads(text, parse_constant=_no_constant)
        except ValueError:
            values = None
        if not isinstance(values, list) or len(values) != arity:
            raise InvalidKey(f"name this key by a JSON array of {arity} values, not {text!r}")
        return cls(values)

    @classmethod
    def readings(cls, text: str, arity: int = 1) -> tuple[Key, ...]:
        """What a typed name may mean, the likeliest first: the key it parses to, then
        (one-value keys) the plain string as typed when that is another key."""
        first = cls.parse(text, arity)
        if arity != 1 or first.values == (text,):
            return (first,)
        return first, cls((text,))

    @property
    def value(self) -> Scalar:
        """The single value of a one-part key (the first value of a composite)."""
        return self.values[0]

    @property
    def composite(self) -> bool:
        return len(self.values) > 1

    @property
    def text(self) -> str:
        """The one text form of this key (see the module docstring)."""
        if self.composite:
            return _compact(list(self.values))
        value = self.values[0]
        if isinstance(value, str) and not _reads_as_other_json(value):
            return value
        return _compact(value)

    def json_value(self) -> Any:
        """The key as JSON data: the scalar, or a list for a composite."""
        return list(self.values) if self.composite else self.values[0]

    def sort_key(self) -> tuple[tuple[int, Scalar], ...]:
        """Cosmos order: null < booleans < numbers < strings, then by value."""
        if self._typed is None:
            return tuple((_RANK_STRING, v) for v in self.values)
        return self._typed

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Key):
            return False
        if self._typed is None and other._typed is None:
            return self.values == other.values
        # A key of strings only never equals one with another type (True is not 1).
        return self._typed == other._typed

    def __hash__(self) -> int:
        # Equal keys have the same form (both strings only, or both typed).
        return hash(self.values) if self._typed is None else hash(self._typed)

    def __lt__(self, other: Key) -> bool:
        if self._typed is None and other._typed is None:
            return self.values < other.values
        return self.sort_key() < other.sort_key()

    def __repr__(self) -> str:
        return f"Key({self.text})"

    def __str__(self) -> str:
        return self.text


def key_texts(keys: Sequence[Key]) -> list[str]:
    """``[key.text for key in keys]``, a column at a time when every key is one string
    that reads as no other JSON (nearly every tenant: its text is the string itself),
    so the 100,000 names a ``/`` filter looks at are C loops, not 100,000 calls."""
    values = list(map(attrgetter("values"), keys))
    if set(map(len, values)) == {1}:
        plain = list(map(itemgetter(0), values))
        if set(map(type, plain)) == {str} and all(plain):
            firsts = set(map(itemgetter(0), plain))
            ends = firsts | set(map(itemgetter(-1), plain))
            # _reads_as_other_json is False for each: no outer space, no JSON start,
            # no JSON word.
            if (
                firsts.isdisjoint(_JSON_STARTS)
                and not any(c.isspace() for c in ends)
                and _JSON_WORDS.isdisjoint(plain)
            ):
                return plain
    return [key.text for key in keys]


def key_text(value: object) -> str:
    """The text of a single JSON value as a key (``Key.of(value).text``)."""
    return Key.of(value).text


def value_text(value: object) -> str:
    """A stored value as text that keeps its JSON type, by the key rule: the number 7 is
    ``7``, the string "7" ``"7"``, a plain string as is; an object or array (a malformed
    value) its JSON. For order values, where the string "7" is no turn 7."""
    try:
        return key_text(value)
    except InvalidKey:
        return _compact(value)


_DECODER = json.JSONDecoder()
_QUOTED_STARTS = frozenset('"[{')


def split_names(line: str) -> list[str]:
    """The words of a command line that names keys: split at white space, except that a
    word starting with ``"``, ``[`` or ``{`` runs to the end of the JSON value it starts,
    so a printed key with spaces in it (``"x y"``, ``["alice","s 1"]``,
    ``{"role": "system"}``) stays one word. A value that does not parse, or runs into
    more text, is cut at white space like any word."""
    words: list[str] = []
    at, end = 0, len(line)
    while at < end:
        if line[at].isspace():
            at += 1
            continue
        stop = _word_end(line, at)
        words.append(line[at:stop])
        at = stop
    return words


def _word_end(line: str, at: int) -> int:
    if line[at] in _QUOTED_STARTS:
        try:
            _, stop = _DECODER.raw_decode(line, at)
        except ValueError:
            pass
        else:
            if stop == len(line) or line[stop].isspace():
                return stop
    stop = at
    while stop < len(line) and not line[stop].isspace():
        stop += 1
    return stop
