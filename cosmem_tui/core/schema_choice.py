"""Which schema a container is read with: named, recorded, derived, or detected.

``auto`` (the default for a workspace that records no schema) reads the container's
properties first: when they alone single out one schema (partition key *and* a
container or database name it is known by), no item is read. Otherwise it samples
a few recent items, bounded by ``SAMPLE_SIZE`` and ``SAMPLE_BUDGET_RU``, and scores
every schema (schemas/detect.py). ``generic`` derives a schema from the partition
key and the sample. The reason travels with the choice so the header can say why.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from cosmem_tui.model import ContainerProperties, JsonValue
from cosmem_tui.schemas import Schema, all_schemas, get_schema
from cosmem_tui.schemas.detect import ContainerFacts, detect_schema, rank
from cosmem_tui.schemas.generic import GENERIC, generic_definition
from cosmem_tui.schemas.schema import schema_from_mapping
from cosmem_tui.sources.local import Workspace
from cosmem_tui.sources.store import MemoryStore

AUTO = "auto"
SAMPLE_SIZE = 20
SAMPLE_BUDGET_RU = 25.0  # one small cross-partition page; vectors make items big

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SchemaChoice:
    schema: Schema
    reason: str  # "" when the user named the schema
    definition: Mapping[str, Any] | None = None  # derived schemas: the table to record

    @property
    def label(self) -> str:
        return f"{self.schema.name} ({self.reason})" if self.reason else self.schema.name


def facts_of(container: ContainerProperties, siblings: Sequence[str] = ()) -> ContainerFacts:
    return ContainerFacts(
        partition_key=tuple(container.partition_key.paths),
        container=container.container,
        database=container.database,
        siblings=tuple(siblings),
    )


def decided_by_metadata(schemas: Mapping[str, Schema], facts: ContainerFacts) -> Schema | None:
    """The one schema the container's properties point at by key and by name, if any."""
    fitting = [c for c in rank(schemas, facts, ()) if c.fits]
    if len(fitting) == 1 and len(fitting[0].evidence) > 1:
        return fitting[0].schema
    return None


def choose_for_sample(
    requested: str,
    facts: ContainerFacts,
    sample: Sequence[Mapping[str, JsonValue]],
    user_dir: Path | None,
) -> SchemaChoice:
    """Resolve ``requested`` (a name, ``auto`` or ``generic``) once items are at hand."""
    if requested == GENERIC:
        table = generic_definition(facts.partition_key, sample)
        schema = schema_from_mapping(table, "generic (derived)")
        return SchemaChoice(schema, schema.title, table)
    if requested != AUTO:
        return SchemaChoice(get_schema(requested, user_dir), "")
    detection = detect_schema(all_schemas(user_dir), facts, sample)
    if detection.schema.name != GENERIC:
        return SchemaChoice(detection.schema, detection.reason)
    # The same inputs derive the same table: record it so the workspace reopens alike.
    table = generic_definition(facts.partition_key, sample)
    return SchemaChoice(detection.schema, detection.reason, table)


async def choose_schema(
    requested: str, store: MemoryStore, user_dir: Path | None, siblings: Sequence[str] = ()
) -> SchemaChoice:
    """Resolve ``requested`` for a store (which may not have a schema yet: it only samples)."""
    if requested not in (AUTO, GENERIC):
        return SchemaChoice(get_schema(requested, user_dir), "")
    facts = facts_of(await store.container_properties(), siblings)
    if requested == AUTO:
        schemas = all_schemas(user_dir)
        known = decided_by_metadata(schemas, facts)
        if known is not None:
            reason = detect_schema({known.name: known}, facts, ()).reason
            return SchemaChoice(known, reason)
    sample = await store.sample_items(SAMPLE_SIZE, max_request_units=SAMPLE_BUDGET_RU)
    return choose_for_sample(requested, facts, [item.body for item in sample], user_dir)


def recorded_choice(workspace: Workspace, user_dir: Path | None) -> SchemaChoice | None:
    """The schema a workspace was built or imported with (and why), if it records one."""
    name = workspace.meta("schema")
    if not name:
        return None
    reason = workspace.meta("schema_reason") or ""
    definition = workspace.meta("schema_definition")
    if name == GENERIC and definition:
        table = json.loads(definition)
        return SchemaChoice(schema_from_mapping(table, f"{workspace.path} (recorded)"), reason)
    return SchemaChoice(get_schema(name, user_dir), reason)


def run_sync(work: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code, inside an event loop or not.

    Opening a session is synchronous (a UI thread worker, or the CLI before its first
    request); detection awaits the store, so it gets a loop of its own when needed.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, work).result()
