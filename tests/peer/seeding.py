"""Create containers and seed items on a Cosmos endpoint with the SDK itself.

The console is read-only, so tests and benchmarks put data in place the way an
agent would: ``upsert_item`` through ``azure.cosmos.aio``. The service assigns
``_ts`` and ``_etag``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from azure.cosmos import PartitionKey
from azure.cosmos.aio import ContainerProxy, CosmosClient, DatabaseProxy

SEED_CONCURRENCY = 16


def seeding_client(endpoint: str, key: str) -> CosmosClient:
    return CosmosClient(endpoint, credential=key, retry_total=5)


def partition_key(paths: Sequence[str]) -> PartitionKey:
    if len(paths) > 1:
        return PartitionKey(path=list(paths), kind="MultiHash")
    return PartitionKey(path=paths[0])


def unique_name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


async def create_container(
    client: CosmosClient,
    database: str,
    container: str,
    *,
    paths: Sequence[str],
    default_ttl: int | None,
    policies: Mapping[str, Any] | None = None,
) -> tuple[DatabaseProxy, ContainerProxy]:
    """``policies``: the SDK's container options for search (``vector_embedding_policy``,
    ``full_text_policy``, ``indexing_policy``), as a memory container declares them."""
    db = await client.create_database_if_not_exists(database)
    options: dict[str, Any] = dict(policies or {})
    if default_ttl is not None:  # None: TTL off (no DefaultTimeToLive at all)
        options["default_ttl"] = default_ttl
    proxy = await db.create_container(container, partition_key=partition_key(paths), **options)
    return db, proxy


async def seed(
    container: ContainerProxy,
    items: Iterable[Mapping[str, Any]],
    *,
    concurrency: int = SEED_CONCURRENCY,
) -> int:
    """Upsert every item, ``concurrency`` at a time; returns how many were written."""
    queue: asyncio.Queue[Mapping[str, Any]] = asyncio.Queue()
    for item in items:
        queue.put_nowait(item)
    total = queue.qsize()

    async def worker() -> None:
        while True:
            try:
                item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await container.upsert_item(dict(item))

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return total
