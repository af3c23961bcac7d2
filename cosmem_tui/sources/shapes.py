"""Item shapes for the advisor: which fields to measure, and measuring one item.

Both backends answer ``sample_shapes`` with the same ``ItemShape``s. Cosmos measures
where the items are (a projection: ``LENGTH(ToString(c))``, ``ARRAY_LENGTH`` of each
candidate vector), so no embedding crosses the wire; the local workspace measures the
stored JSON with ``shape_of``. ``ShapeSpec`` says what to measure for one schema and
container: the candidate vector paths (the usual names at the top level and inside the
first message, plus every path the container's vector policy names), the schema's
first time field, its kind field and its messages array.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from cosmem_tui.model import MISSING, ContainerProperties, Item, JsonValue
from cosmem_tui.model.advice import VECTOR_NAMES, ItemShape
from cosmem_tui.schemas import FieldPath, Schema


@dataclass(frozen=True, slots=True)
class ShapeSpec:
    partition_key: tuple[FieldPath, ...]
    vectors: tuple[FieldPath, ...]
    created: FieldPath | None
    kind: FieldPath | None
    messages: FieldPath | None


def _parsed(path: str) -> FieldPath | None:
    try:
        return FieldPath.parse(path)
    except ValueError:
        return None  # a policy path we cannot address (wildcards): nothing to measure


def policy_vector_paths(container: ContainerProperties) -> tuple[str, ...]:
    """The paths the container's vector embedding policy declares."""
    policy = container.vector_embedding_policy or {}
    entries = policy.get("vectorEmbeddings") if isinstance(policy, Mapping) else None
    paths = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, Mapping) and isinstance(entry.get("path"), str):
            paths.append(entry["path"])
    return tuple(paths)


def shape_spec(schema: Schema | None, container: ContainerProperties) -> ShapeSpec:
    candidates: list[str] = [f"/{name}" for name in VECTOR_NAMES]
    candidates += policy_vector_paths(container)
    messages = schema.messages if schema is not None else None
    if messages is not None:
        candidates += [f"{messages.text}/0/{name}" for name in VECTOR_NAMES]
    vectors = tuple(p for p in (_parsed(c) for c in dict.fromkeys(candidates)) if p is not None)
    pk = tuple(p for p in (_parsed(c) for c in container.partition_key.paths) if p is not None)
    return ShapeSpec(
        partition_key=pk,
        vectors=vectors,
        created=schema.timestamps[0].path if schema is not None and schema.timestamps else None,
        kind=schema.kind if schema is not None else None,
        messages=messages,
    )


def vector_length(value: JsonValue) -> int:
    """Dimensions of an embedding-like array (numbers), 0 when it is not one."""
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value[:4])
    ):
        return len(value)
    return 0


def shape_of(item: Item, spec: ShapeSpec, size: int | None) -> ItemShape:
    """The shape of one whole item (the local workspace, which stores items whole)."""
    body = item.body
    messages = spec.messages.get(body) if spec.messages is not None else MISSING
    vectors = []
    for path in spec.vectors:
        dims = vector_length(path.get(body))
        if dims:
            vectors.append((path.text, dims))
    return ItemShape(
        id=item.id,
        partition_key=item.partition_key,
        ts=item.ts,
        ttl=body.get("ttl", MISSING),
        size=size,
        created=spec.created.get(body) if spec.created is not None else MISSING,
        kind=spec.kind.get(body) if spec.kind is not None else MISSING,
        messages=len(messages) if isinstance(messages, list) else None,
        vectors=tuple(vectors),
    )


def json_size(body: Mapping[str, JsonValue]) -> int:
    """Bytes of an item as compact JSON (what Cosmos counts against its 2 MB)."""
    return len(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
