"""The backends the MemoryStore contract suite runs against.

Each backend seeds a container from plain item dicts (the store assigns ``_ts`` and
``_etag`` at write time, as Cosmos does) and can let time pass: the local backend
advances its frozen clock, a live backend waits for real.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from cosmem_tui.model import FrozenClock
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.local import LocalStore
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.store import MemoryStore
from tests.helpers import build_workspace


class Backend(Protocol):
    name: str

    async def make_store(
        self,
        items: Iterable[Mapping[str, Any]],
        *,
        schema: Schema,
        default_ttl: int | None,
        policies: Mapping[str, Any] | None = None,
    ) -> MemoryStore:
        """``policies``: a Cosmos container's search policies (the SDK's
        ``vector_embedding_policy`` / ``full_text_policy`` options); a workspace has none."""
        ...

    async def advance(self, seconds: float) -> None: ...

    async def close(self) -> None: ...


class LocalBackend:
    name = "local"

    def __init__(self, tmp: Path, start: int) -> None:
        self.tmp = tmp
        self.clock = FrozenClock(start)
        self.stores: list[LocalStore] = []
        self._count = 0

    async def make_store(
        self,
        items: Iterable[Mapping[str, Any]],
        *,
        schema: Schema,
        default_ttl: int | None,
        policies: Mapping[str, Any] | None = None,
    ) -> MemoryStore:
        self._count += 1
        path = self.tmp / f"contract-{self._count}.sqlite"
        build_workspace(
            path, items, now=int(self.clock.now()), schema=schema, default_ttl=default_ttl
        )
        store = LocalStore.open(path, schema, ledger=RequestLedger(), clock=self.clock)
        self.stores.append(store)
        return store

    async def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)

    async def close(self) -> None:
        for store in self.stores:
            await store.close()


class CosmosBackend:
    """A fresh database and container per store on a Cosmos endpoint (the peer, or a real one).

    Items are seeded with the SDK, so the service assigns ``_ts``; the store under test
    is the product's own ``CosmosStore``. Time passes for real: ``advance`` sleeps, and
    expiry is the service's business (the peer's TTL is lazy, in whole seconds).
    """

    def __init__(self, name: str, endpoint: str, key: str) -> None:
        from tests.peer.seeding import seeding_client

        self.name = name
        self.endpoint = endpoint
        self.key = key
        self.client = seeding_client(endpoint, key)
        self.databases: list[str] = []
        self.stores: list[MemoryStore] = []

    async def make_store(
        self,
        items: Iterable[Mapping[str, Any]],
        *,
        schema: Schema,
        default_ttl: int | None,
        policies: Mapping[str, Any] | None = None,
    ) -> MemoryStore:
        from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
        from cosmem_tui.sources.cosmos.store import CosmosStore
        from tests.peer.seeding import create_container, seed, unique_name

        database = unique_name("contract")
        self.databases.append(database)
        _, container = await create_container(
            self.client,
            database,
            "memory",
            paths=schema.partition_key,
            default_ttl=default_ttl,
            policies=policies,
        )
        await seed(container, items)
        settings = CosmosSettings(
            endpoint=self.endpoint,
            database=database,
            container="memory",
            auth=AuthMode.KEY,
            key=self.key,
        )
        store = CosmosStore.open(settings, schema)
        self.stores.append(store)
        return store

    async def advance(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def close(self) -> None:
        for store in self.stores:
            await store.close()
        for database in self.databases:
            await self.client.delete_database(database)
        await self.client.close()
