"""The advisor's sample on Cosmos: item shapes measured by the service, not items.

One projection per item: id, ``_ts``, ``ttl``, the partition key values, the item's
JSON length (``LENGTH(ToString(c))``, characters), the schema's time, kind and
messages-count fields, and for each candidate vector path its length when it holds an
array of numbers. An embedding is measured where it is and never sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cosmem_tui.model import MISSING, ItemShape
from cosmem_tui.sources.cosmos.sql import prop
from cosmem_tui.sources.shapes import ShapeSpec


def shape_projection(spec: ShapeSpec) -> str:
    """The ``{{shape}}`` slot: an object literal of measures (keys are ours, fixed)."""
    entries = [
        '"id": c["id"]',
        '"ts": c["_ts"]',
        '"ttl": c["ttl"]',
        '"size": LENGTH(ToString(c))',
    ]
    entries += [f'"pk{i}": {prop(p)}' for i, p in enumerate(spec.partition_key)]
    if spec.created is not None:
        entries.append(f'"created": {prop(spec.created)}')
    if spec.kind is not None:
        entries.append(f'"kind": {prop(spec.kind)}')
    if spec.messages is not None:
        entries.append(f'"messages": ARRAY_LENGTH({prop(spec.messages)})')
    for i, path in enumerate(spec.vectors):
        # Two plain measures rather than one conditional: an undefined one is left out of
        # the answer, and flat expressions parse fast everywhere (the test peer too).
        ref = prop(path)
        entries.append(f'"v{i}": ARRAY_LENGTH({ref})')
        entries.append(f'"n{i}": IS_NUMBER({ref}[0])')
    return "{" + ", ".join(entries) + "}"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def shape_from_row(row: Mapping[str, Any], spec: ShapeSpec) -> ItemShape:
    vectors = []
    for i, path in enumerate(spec.vectors):
        dims = _int(row.get(f"v{i}"))
        if dims and row.get(f"n{i}") is True:  # an array of numbers: an embedding
            vectors.append((path.text, dims))
    return ItemShape(
        id=str(row.get("id", "")),
        partition_key=tuple(row.get(f"pk{i}") for i in range(len(spec.partition_key))),
        ts=_int(row.get("ts")) or 0,
        ttl=row.get("ttl", MISSING),
        size=_int(row.get("size")),
        created=row.get("created", MISSING),
        kind=row.get("kind", MISSING),
        messages=_int(row.get("messages")),
        vectors=tuple(vectors),
    )
