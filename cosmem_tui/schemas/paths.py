"""Field paths into JSON items: "/messages/0/timestamp" style (JSON Pointer, RFC 6901)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cosmem_tui.model import MISSING, JsonValue


@dataclass(frozen=True, slots=True)
class FieldPath:
    text: str
    parts: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> FieldPath:
        if not text.startswith("/") or text == "/":
            raise ValueError(f"a field path starts with '/' and names a field: {text!r}")
        parts = tuple(p.replace("~1", "/").replace("~0", "~") for p in text[1:].split("/"))
        if any(p == "" for p in parts):
            raise ValueError(f"empty segment in field path {text!r}")
        return cls(text, parts)

    @property
    def top(self) -> str:
        """The top-level property this path reads (what a projection must keep)."""
        return self.parts[0]

    @property
    def is_top_level(self) -> bool:
        return len(self.parts) == 1

    def get(self, doc: JsonValue) -> JsonValue:
        """The value at this path, or MISSING when any step is absent or the wrong shape."""
        if len(self.parts) == 1 and type(doc) is dict:  # the common case, on every import row
            return doc.get(self.parts[0], MISSING)
        node = doc
        for part in self.parts:
            if isinstance(node, Mapping):
                if part not in node:
                    return MISSING
                node = node[part]
            elif isinstance(node, Sequence) and not isinstance(node, str | bytes):
                if not part.isdigit():
                    return MISSING
                index = int(part)
                if index >= len(node):
                    return MISSING
                node = node[index]
            else:
                return MISSING
        return node

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Fan:
    """A selector step over every element of an array, optionally only those with key == value."""

    key: str | None = None
    value: str | None = None

    def keeps(self, element: JsonValue) -> bool:
        if self.key is None:
            return True
        return isinstance(element, Mapping) and element.get(self.key) == self.value


def _parse_fan(segment: str, text: str) -> Fan:
    if segment == "*":
        return Fan()
    if not (segment.startswith("*[") and segment.endswith("]") and "=" in segment):
        raise ValueError(f"a fan-out step is '*' or '*[key=value]', not {segment!r} in {text!r}")
    key, value = segment[2:-1].split("=", 1)
    if not key:
        raise ValueError(f"empty key in {segment!r} of {text!r}")
    return Fan(key, value)


@dataclass(frozen=True, slots=True)
class Selector:
    """A field path that may fan out over arrays: ``/message/contents/*[type=text]/text``.

    Without a ``*`` step it reads one value, exactly like ``FieldPath``. With one,
    it reads a list: every element of the array (or only those whose ``key`` equals
    ``value``), each followed down the rest of the path. The Agent Framework keeps
    message text in such an array of typed parts.
    """

    text: str
    steps: tuple[str | Fan, ...]

    @classmethod
    def parse(cls, text: str) -> Selector:
        FieldPath.parse(text)  # same outer rules: leading '/', no empty segment
        steps: list[str | Fan] = []
        for raw in text[1:].split("/"):
            if raw.startswith("*"):
                steps.append(_parse_fan(raw, text))
            else:
                steps.append(raw.replace("~1", "/").replace("~0", "~"))
        if isinstance(steps[0], Fan):
            raise ValueError(f"a selector starts with a field name: {text!r}")
        return cls(text, tuple(steps))

    @property
    def top(self) -> str:
        first = self.steps[0]
        assert isinstance(first, str)
        return first

    @property
    def fans_out(self) -> bool:
        return any(isinstance(step, Fan) for step in self.steps)

    def select(self, doc: JsonValue) -> JsonValue:
        """One value (no fan-out step), a list of values (fan-out), or MISSING.

        A fan-out over an array that exists but has no matching element gives an
        empty list, not MISSING: "this message has no text parts" is not malformed.
        """
        steps = self.steps
        if len(steps) == 1 and type(doc) is dict:  # the usual: one field of an object
            return doc.get(steps[0], MISSING)
        return _walk(doc, steps)

    def __str__(self) -> str:
        return self.text


def _walk(node: JsonValue, steps: tuple[str | Fan, ...]) -> JsonValue:
    for position, step in enumerate(steps):
        if isinstance(step, Fan):
            if not isinstance(node, Sequence) or isinstance(node, str | bytes):
                return MISSING
            rest = steps[position + 1 :]
            found: list[JsonValue] = []
            for element in node:
                if step.keeps(element):
                    value = _walk(element, rest)
                    if value is MISSING:
                        continue
                    if isinstance(value, list) and any(isinstance(s, Fan) for s in rest):
                        found.extend(value)
                    else:
                        found.append(value)
            return found
        if isinstance(node, Mapping):
            if step not in node:
                return MISSING
            node = node[step]
        elif isinstance(node, Sequence) and not isinstance(node, str | bytes):
            if not step.isdigit() or int(step) >= len(node):
                return MISSING
            node = node[int(step)]
        else:
            return MISSING
    return node
