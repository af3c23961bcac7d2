"""The slots of the Cosmos query files (``queries/cosmos/``) for one schema, and the
@parameters that scope a query to one thread: shared by the store and the writer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition, ThreadRef
from cosmem_tui.schemas import FieldPath, Granularity, Schema
from cosmem_tui.sources.cosmos.calls import Parameters
from cosmem_tui.sources.cosmos.recall_sql import identity as recall_identity
from cosmem_tui.sources.cosmos.search_sql import text_match
from cosmem_tui.sources.cosmos.shapes import shape_projection
from cosmem_tui.sources.cosmos.sql import object_of, prop
from cosmem_tui.sources.shapes import shape_spec
from cosmem_tui.sources.text_search import search_targets

_MESSAGES = "__cosmem_messages"  # scan fallback of session schemas: messages per document


def query_slots(schema: Schema | None) -> dict[str, str]:
    """The property references the query files need, for this schema."""
    if schema is None:
        return {}  # a probe that only samples items, to detect the schema
    thread_tops = [p.top for p in schema.thread_paths]
    activity = object_of([*thread_tops, "_ts", "ttl"])
    session = schema.granularity is Granularity.SESSION and schema.messages is not None
    weight = "1"
    if session:
        assert schema.messages is not None
        # A session document holds many turns; lists count turns, as the local store does.
        count = f"ARRAY_LENGTH({prop(schema.messages)})"
        activity = activity[:-1] + f", {json.dumps(_MESSAGES)}: {count}}}"
        weight = f"(IS_ARRAY({prop(schema.messages)}) AND {count} > 0 ? {count} : 1)"
    top = schema.tenant if schema.tenant is not None else schema.thread
    slots = {
        "top_key": prop(top),
        "thread_identity": object_of(thread_tops),
        # One thread field: its values themselves, which DISTINCT reads from its index.
        "thread_distinct": (
            f"c[{json.dumps(thread_tops[0])}]"
            if len(set(thread_tops)) == 1
            else object_of(thread_tops)
        ),
        "thread_activity": activity,
        "thread_select": ", ".join(f"{prop(p)} AS t{i}" for i, p in enumerate(schema.thread_paths)),
        "thread_group": ", ".join(prop(p) for p in schema.thread_paths),
        "weight": weight,
        "expiring": "false",  # replaced once the container's DefaultTimeToLive is known
        "projection": object_of([*schema.list_projection(), "_ts", "_etag"]),
        "partition_filter": " AND ".join(
            [f"{prop(path)} = @pk{i}" for i, path in enumerate(schema.partition_key)]
            # A thread field outside the key (a LangChain session's id) filters the partition.
            + [f"{prop(path)} = @th{i}" for i, path in enumerate(_unkeyed_thread_paths(schema))]
        ),
        "order": prop(schema.order.path) if schema.order is not None else prop("/id"),
        # Lifecycle lists: the key fields, the kind field, _ts and ttl (ttl_rows*.sql),
        # and what a turn list row reads (order, text), so a row says what the item is.
        "lifecycle_projection": object_of(
            [
                "id",
                *thread_tops,
                *([schema.tenant.top] if schema.tenant is not None else []),
                *([schema.kind.top] if schema.kind is not None else []),
                *schema.list_projection(),
                "_ts",
                "ttl",
            ]
        ),
        "since_where": "",  # key listings: filled with the _ts filter of a reload
        "since_and": "",
    }
    if schema.tenant is not None:
        slots["tenant"] = prop(schema.tenant)
    # The advisor's sample and an erase's listing; the store refines {{shape}} with the
    # vector paths the container's policy declares once it has read the container.
    key_paths = [FieldPath.parse(p) for p in schema.partition_key]
    slots["shape"] = shape_projection(shape_spec(schema, _keyed_by(schema)))
    slots["item_ref"] = item_reference(key_paths)
    slots["text_match"] = search_condition(schema)[0]
    slots["recall_identity"] = recall_identity(schema)
    return slots


def search_condition(schema: Schema) -> tuple[str, Parameters]:
    """Thread search's ``{{text_match}}`` and the guard parameters it names: CONTAINS
    over where the schema reads text, or an array longer than that reaches."""
    return text_match(*search_targets(schema))


def _keyed_by(schema: Schema) -> ContainerProperties:
    """A container as the schema expects it (its key; no policies known yet)."""
    paths = tuple(schema.partition_key)
    kind = "MultiHash" if len(paths) > 1 else "Hash"
    return ContainerProperties("", "", PartitionKeyDefinition(paths, kind), None)


def item_reference(key_paths: Sequence[FieldPath]) -> str:
    """The ``{{item_ref}}`` slot: what an erase needs of each item (never its content)."""
    entries = ['"id": c["id"]', '"etag": c["_etag"]', '"ttl": c["ttl"]']
    entries += [f'"pk{i}": {prop(p)}' for i, p in enumerate(key_paths)]
    return "{" + ", ".join(entries) + "}"


def _unkeyed_thread_paths(schema: Schema) -> list[FieldPath]:
    return [p for p in schema.thread_paths if p.text not in schema.partition_key]


def thread_parameters(schema: Schema, ref: ThreadRef) -> tuple[dict[str, Any], ...]:
    """The @parameters of ``{{partition_filter}}`` for one thread."""
    values = schema.partition_key_for(ref)
    parameters = tuple({"name": f"@pk{i}", "value": v} for i, v in enumerate(values))
    by_path = dict(
        zip((p.text for p in schema.thread_paths), schema.thread_values(ref), strict=True)
    )
    return parameters + tuple(
        {"name": f"@th{i}", "value": by_path[p.text]}
        for i, p in enumerate(_unkeyed_thread_paths(schema))
    )
