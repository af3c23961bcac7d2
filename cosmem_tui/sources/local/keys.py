"""Derived columns of a local workspace: partition key, scoping keys, sort key, expiry."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from cosmem_tui.model import MISSING, JsonValue, resolve_ttl
from cosmem_tui.profiles import FieldPath, Schema

# Cosmos orders values of different types: undefined < null < boolean < number < string
# < array < object. The rank column reproduces that so SQLite sorts the way Cosmos does.
RANK_UNDEFINED, RANK_NULL, RANK_BOOL, RANK_NUMBER, RANK_STRING, RANK_ARRAY, RANK_OBJECT = range(7)


def order_key(value: JsonValue) -> tuple[int, int | float | str]:
    if value is MISSING:
        return RANK_UNDEFINED, 0
    if value is None:
        return RANK_NULL, 0
    if isinstance(value, bool):
        return RANK_BOOL, int(value)
    if isinstance(value, int | float):
        return RANK_NUMBER, value
    if isinstance(value, str):
        return RANK_STRING, value
    if isinstance(value, list):
        return RANK_ARRAY, 0
    return RANK_OBJECT, 0


def key_text(value: JsonValue) -> str | None:
    """A partition-level value as the text the workspace indexes (None when absent)."""
    if value is MISSING:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def pk_text(values: tuple[JsonValue, ...]) -> str:
    return json.dumps(list(values), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class DerivedKeys:
    tenant_key: str | None
    thread_key: str | None
    order_rank: int
    order_value: int | float | str


def schema_signature(schema: Schema) -> str:
    """What the derived columns depend on; a change means they must be recomputed."""
    return json.dumps(
        [
            schema.tenant.text if schema.tenant else None,
            schema.thread.text,
            schema.order.path.text if schema.order else None,
        ]
    )


def derive_keys(schema: Schema, body: Mapping[str, JsonValue]) -> DerivedKeys:
    tenant = key_text(schema.tenant.get(body)) if schema.tenant else None
    thread = key_text(schema.thread.get(body))
    rank, value = order_key(schema.order.path.get(body) if schema.order else MISSING)
    return DerivedKeys(tenant, thread, rank, value)


def partition_key_of(
    paths: tuple[FieldPath, ...], body: Mapping[str, JsonValue]
) -> tuple[JsonValue, ...]:
    return tuple(p.get(body) for p in paths)


def item_expiry(body: Mapping[str, JsonValue], ts: int, default_ttl: int | None) -> int | None:
    return resolve_ttl(body.get("ttl", MISSING), ts, default_ttl).expires_at
