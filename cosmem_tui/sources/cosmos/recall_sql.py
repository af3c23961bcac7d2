"""The slots and @parameters of the recall probes (``queries/cosmos/recall_*.sql``).

Paths (the embedding, the text, the filters' fields) become property references
through ``sql.prop``, JSON-quoted from validated field paths, so a field name can never
become SQL; every value (the vector, the key terms, k, the filters' values, the scope's
key) travels as an ``@parameter``. The scope condition is the one the store's other
queries use (``{{partition_filter}}`` for a thread, the tenant equality for a tenant).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cosmem_tui.model.recall import FilterOp, ProbeMode, RecallFilter, RecallQuery
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.cosmos.sql import object_of, prop

QUERY_OF_MODE = {
    ProbeMode.VECTOR: "recall_vector",
    ProbeMode.EXACT: "recall_vector",
    ProbeMode.TEXT: "recall_text",
    ProbeMode.HYBRID: "recall_hybrid",
}


@dataclass
class ProbeText:
    """What one probe fills in: its query file, its slots and its parameters."""

    name: str
    slots: dict[str, str]
    parameters: list[dict[str, Any]] = field(default_factory=list)


def identity(schema: Schema) -> str:
    """``{{recall_identity}}``: an object of the top-level fields naming the item's thread."""
    tops = [p.top for p in schema.thread_paths]
    if schema.tenant is not None:
        tops.append(schema.tenant.top)
    return object_of(tops)


def filter_condition(rule: RecallFilter, index: int) -> tuple[str, list[dict[str, Any]]]:
    """One filter as SQL (Cosmos semantics: undefined is not null) and its parameters."""
    path = prop(rule.path)
    names = [f"@f{index}_{i}" for i in range(len(rule.values))]
    parameters = [{"name": n, "value": v} for n, v in zip(names, rule.values, strict=True)]
    listed = f"{path} IN ({', '.join(names)})"
    if rule.op is FilterOp.IN:
        return (listed if names else "false"), parameters
    if rule.op is FilterOp.NOT_IN:
        if not names:
            return "true", []
        return f"(NOT IS_DEFINED({path}) OR NOT ({listed}))", parameters
    if rule.op is FilterOp.ABSENT:
        return f"(NOT IS_DEFINED({path}) OR IS_NULL({path}))", []
    return f"(IS_DEFINED({path}) AND NOT IS_NULL({path}))", []


def probe_text(
    base: Mapping[str, str],
    query: RecallQuery,
    scope_where: str,
    scope_parameters: Sequence[Mapping[str, Any]],
) -> ProbeText:
    """The query file, slots and parameters of one probe over one scope condition
    (``base``: the schema's slots, ``query_slots``, which name the thread's fields)."""
    conditions = [scope_where] if scope_where else []
    parameters: list[dict[str, Any]] = [dict(p) for p in scope_parameters]
    for i, rule in enumerate(query.filters):
        text, named = filter_condition(rule, i)
        conditions.append(text)
        parameters += named
    parameters.append({"name": "@k", "value": query.k})
    slots = {
        **base,
        "where": " AND ".join(conditions) if conditions else "true",
        "brute": ", true" if query.mode is ProbeMode.EXACT else "",
    }
    if query.mode is not ProbeMode.TEXT:
        assert query.vector_path is not None and query.vector is not None  # RecallQuery checks
        slots["vector"] = prop(query.vector_path)
        parameters.append({"name": "@v", "value": list(query.vector)})
    if query.mode in (ProbeMode.TEXT, ProbeMode.HYBRID):
        slots["text"] = prop(query.text_paths[0])
        terms = [f"@t{i}" for i in range(len(query.terms))]
        slots["terms"] = ", ".join(terms)
        parameters += [{"name": n, "value": t} for n, t in zip(terms, query.terms, strict=True)]
    return ProbeText(QUERY_OF_MODE[query.mode], slots, parameters)
