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
