"""Lifecycle questions on a local workspace: TTL summaries and lists, as SQL aggregates.

The queries (``queries/local/ttl_*.sql``) classify items with the same rules as
``model/ttl.py`` and read expiry from the derived ``expires_at`` column; this module
states their parameters and maps their rows. One modelled request per question, with
the scope a Cosmos container would need: the container is a fan-out, a tenant a key
prefix, a thread one partition.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from cosmem_tui.model import MISSING, JsonValue, Key, Scope, ThreadRef, TtlClass, resolve_ttl
from cosmem_tui.model.lifecycle import (
    FORECAST_HORIZONS,
    LifecycleItem,
    ScopeLevel,
    TtlItems,
    TtlScope,
    TtlSelection,
)
from cosmem_tui.schemas import Schema, SchemaError
from cosmem_tui.schemas.summary import order_and_text
from cosmem_tui.sources.local.keys import sqlite_json_path

SELECTION_QUERIES = {
    TtlSelection.EXPIRING: "ttl_items_expiring",
    TtlSelection.LONG_TERM: "ttl_items_long_term",
    TtlSelection.DRIFT: "ttl_items_drift",
}


def scope_parameters(schema: Schema, scope: TtlScope) -> dict[str, Any]:
    """:tenant and :thread for a scoped query (keys as the workspace stores them)."""
    if scope.level is ScopeLevel.CONTAINER:
        return {"tenant": None, "thread": None}
    if scope.level is ScopeLevel.TENANT and not schema.has_tenant_level:
        raise SchemaError(f"schema {schema.name} has no {schema.tenant_label}s")
    tenant = scope.tenant.text if scope.tenant is not None else None
    thread = scope.thread.thread.text if scope.thread is not None else None
    return {"tenant": tenant, "thread": thread}


def summary_parameters(now: int, default_ttl: int | None) -> dict[str, Any]:
    params: dict[str, Any] = {"now": now, "default_ttl": default_ttl}
    for n, horizon in enumerate(FORECAST_HORIZONS, start=1):
        params[f"until{n}"] = now + horizon
    return params


def summary_rows(
    rows: list[tuple[Any, ...]],
) -> tuple[dict[TtlClass, int], dict[TtlClass, dict[int, int]], int | None]:
    """Counts by class, each class's forecast and the newest write, from the rows."""
    classes: dict[TtlClass, int] = {}
    forecast: dict[TtlClass, dict[int, int]] = {}
    stamps = []
    for row in rows:
        ttl_class = TtlClass(row[0])
        classes[ttl_class] = int(row[1] or 0)
        forecast[ttl_class] = {
            horizon: int(row[2 + n] or 0) for n, horizon in enumerate(FORECAST_HORIZONS)
        }
        stamps.append(int(row[2 + len(FORECAST_HORIZONS)]))
    return classes, forecast, max(stamps, default=None)


def kind_parameters(schema: Schema) -> dict[str, Any]:
    """How the queries compute an item's kind (the schema's field, map and default)."""
    return {
        "kind_path": sqlite_json_path(schema.kind) if schema.kind is not None else None,
        "kind_map": json.dumps(dict(schema.kind_map)),
        "default_kind": schema.default_kind,
        "kinds": json.dumps(sorted(schema.long_term_kinds)),
        "lifetimes": json.dumps(schema.lifetimes()),
    }


_SCALARS: dict[str, Callable[[Any], JsonValue]] = {
    "null": lambda _v: None,
    "true": lambda _v: True,
    "false": lambda _v: False,
    "integer": lambda v: v,  # SQLite gives a float past the int64 range: still not valid
    "real": float,
    "text": str,
    "array": json.loads,  # json_extract returns arrays and objects as JSON text
    "object": json.loads,
}


def stored_ttl(json_type: str | None, value: Any) -> JsonValue:
    """The item's ttl as its JSON held it (MISSING when absent), from json_type/json_extract."""
    if json_type is None:
        return MISSING
    return _SCALARS[json_type](value)


def lifecycle_item(
    schema: Schema,
    row: tuple[Any, ...],
    default_ttl: int | None,
    lifetimes: Mapping[str, int],
) -> LifecycleItem:
    item_id, _pk, ts, tenant_key, thread_key, ttl_type, ttl_value, kind = row[:8]
    ref = None
    if thread_key is not None:
        tenant = Key.parse(tenant_key) if tenant_key is not None else None
        ref = ThreadRef(tenant, Key.parse(thread_key, len(schema.thread_paths)))
    ttl = resolve_ttl(stored_ttl(ttl_type, ttl_value), ts, default_ttl)
    body = json.loads(row[9]) if len(row) > 9 and row[9] is not None else {}
    order, text = order_and_text(schema, item_id, ts, body if isinstance(body, dict) else {})
    return LifecycleItem(ref, item_id, str(kind), ttl, lifetimes.get(str(kind)), order, text)


def items_from_rows(
    schema: Schema,
    selection: TtlSelection,
    rows: list[tuple[Any, ...]],
    default_ttl: int | None,
) -> TtlItems:
    lifetimes = schema.lifetimes()
    items = tuple(lifecycle_item(schema, row, default_ttl, lifetimes) for row in rows)
    total = int(rows[0][8]) if rows else 0
    return TtlItems(selection, items, total)


def scope_of_request(level: ScopeLevel, thread_scope: Scope) -> Scope:
    """What a Cosmos container would need for this scope (recorded in the ledger)."""
    if level is ScopeLevel.CONTAINER:
        return Scope.CROSS_PARTITION
    if level is ScopeLevel.TENANT:
        return Scope.PREFIX
    return thread_scope
