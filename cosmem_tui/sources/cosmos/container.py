"""What ``container.read()`` says about a container, and whether the schema fits it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition
from cosmem_tui.schemas import Schema, all_schemas
from cosmem_tui.sources.errors import PartitionKeyMismatch


def container_properties(database: str, raw: Mapping[str, Any]) -> ContainerProperties:
    key = raw.get("partitionKey") or {}
    paths = tuple(str(p) for p in key.get("paths") or ())
    kind = str(key.get("kind") or ("MultiHash" if len(paths) > 1 else "Hash"))
    default_ttl = raw.get("defaultTtl")
    return ContainerProperties(
        database=database,
        container=str(raw.get("id", "")),
        partition_key=PartitionKeyDefinition(paths, kind, int(key.get("version") or 1)),
        default_ttl=default_ttl if isinstance(default_ttl, int) else None,
        indexing_policy=dict(raw.get("indexingPolicy") or {}),
        vector_embedding_policy=raw.get("vectorEmbeddingPolicy"),
        full_text_policy=raw.get("fullTextPolicy"),
    )


def _describe(paths: tuple[str, ...]) -> str:
    return PartitionKeyDefinition(paths, "MultiHash" if len(paths) > 1 else "Hash").describe()


def check_schema_fits(schema: Schema, props: ContainerProperties, user_dir: Any = None) -> None:
    """Raise a message naming both keys when the schema cannot address this container's items."""
    actual = props.partition_key.paths
    if actual == tuple(schema.partition_key):
        return
    fitting = sorted(
        name for name, s in all_schemas(user_dir).items() if tuple(s.partition_key) == actual
    )
    hint = (
        f"; schemas for this key: {', '.join(fitting)} (pick one with --schema, or leave "
        "--schema out to detect it)"
        if fitting
        else "; describe it in a schema file (see docs/schemas.md) and pass --schema"
    )
    raise PartitionKeyMismatch(
        f"container {props.database}/{props.container} is partitioned by {_describe(actual)} "
        f"but schema {schema.name} expects {_describe(tuple(schema.partition_key))}{hint}"
    )
