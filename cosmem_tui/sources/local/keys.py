"""Derived columns of a local workspace: partition key, scoping keys, sort key, expiry."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from cosmem_tui.model import MISSING, InvalidKey, JsonValue, Key
from cosmem_tui.model.ordering import order_key
from cosmem_tui.model.ttl import valid_item_ttl
from cosmem_tui.schemas import FieldPath, Schema

# One encoder for every compact dump: json.dumps with options builds a new one per call,
# which dominated the cost of an import.
COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def key_text(value: JsonValue) -> str | None:
    """A tenant value as the text the workspace indexes (``Key.text``; None when it has none).

    The text keeps the JSON type: the number 42 is ``42``, the string "42" is ``"42"``.
    """
    try:
        return Key.of(value).text
    except InvalidKey:
        return None  # absent, or an object/array: not an addressable tenant


def pk_text(values: tuple[JsonValue, ...]) -> str:
    """Canonical JSON of a partition key value (compact, non-ASCII kept as is)."""
    if all(type(v) is str and _plain(v) for v in values):
        return '["' + '","'.join(values) + '"]'  # exactly what the encoder writes, faster
    return COMPACT.encode(list(values))


def _plain(text: str) -> bool:
    """Text JSON writes unchanged between quotes: printable ASCII without " or \\."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


@dataclass(frozen=True, slots=True)
class DerivedKeys:
    tenant_key: str | None
    thread_key: str | None
    order_rank: int
    order_value: int | float | str


def schema_signature(schema: Schema) -> str:
    """What the derived columns depend on; a change means they must be recomputed."""
    parts: list[str | list[str] | None] = [
        "keys/2",  # key texts keep their JSON type (42 vs "42"): older columns are recomputed
        schema.tenant.text if schema.tenant else None,
        schema.thread.text,
        schema.order.path.text if schema.order else None,
    ]
    if schema.thread_parents:
        parts.append([p.text for p in schema.thread_parents])
    return json.dumps(parts)


def derive_keys(schema: Schema, body: Mapping[str, JsonValue]) -> DerivedKeys:
    tenant = key_text(schema.tenant.get(body)) if schema.tenant else None
    thread = schema.thread_key(body)
    rank, value = order_key(schema.order.path.get(body) if schema.order else MISSING)
    return DerivedKeys(tenant, thread, rank, value)


def partition_key_of(
    paths: tuple[FieldPath, ...], body: Mapping[str, JsonValue]
) -> tuple[JsonValue, ...]:
    return tuple(p.get(body) for p in paths)


def item_expiry(body: Mapping[str, JsonValue], ts: int, default_ttl: int | None) -> int | None:
    """``resolve_ttl(…).expires_at`` without building an ItemTtl (this runs per stored row)."""
    if default_ttl is None:
        return None
    own = valid_item_ttl(body.get("ttl", MISSING))
    effective = own if own is not None else default_ttl
    return None if effective == -1 else ts + effective


def sqlite_json_path(path: FieldPath) -> str:
    """The SQLite JSON path of a field path: /messages -> $."messages" (a bound value)."""
    steps = []
    for part in path.parts:
        if part.isdigit():
            steps.append(f"[{part}]")
        else:
            steps.append('."' + part.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return "$" + "".join(steps)
