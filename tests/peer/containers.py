"""Containers on the Cosmos peer for the backend's own tests.

``containers`` creates a fresh database and container per call and seeds it with the
SDK; everything is deleted when the test ends. ``open_store`` builds the product's
``CosmosStore`` on it, optionally through the fault proxy or a spying transport.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import pytest

from cosmem_tui.schemas import Schema, get_schema
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.helpers import exchange
from tests.peer.fixtures import Peer
from tests.peer.seeding import create_container, seed, seeding_client, unique_name

LAB = get_schema("lab")


def lab_dataset() -> list[dict[str, Any]]:
    """Three tenants of different sizes; acme/t1 is long enough to page."""
    items = [exchange("acme", "t1", i, ttl=3600, embedding=[0.5] * 8) for i in range(7)]
    items += [exchange("acme", "t2", i) for i in range(3)]
    items += [exchange("globex", f"g{n}", i) for n in range(3) for i in range(2)]
    items += [exchange("initech", "i1", 0, type="summary", ttl=-1)]
    return items


@dataclass(frozen=True)
class Seeded:
    endpoint: str
    key: str
    database: str
    container: str

    def settings(self, **changes: Any) -> CosmosSettings:
        base = CosmosSettings(
            endpoint=self.endpoint,
            database=self.database,
            container=self.container,
            auth=AuthMode.KEY,
            key=self.key,
            timeout_s=10.0,
        )
        return replace(base, **changes)


SeedFactory = Callable[..., Any]


@pytest.fixture
async def containers(cosmos_peer: Peer) -> AsyncIterator[SeedFactory]:
    client = seeding_client(cosmos_peer.endpoint, cosmos_peer.key)
    databases: list[str] = []

    async def make(
        items: Iterable[Mapping[str, Any]] | None = None,
        *,
        schema: Schema = LAB,
        paths: tuple[str, ...] | None = None,
        default_ttl: int | None = -1,
    ) -> Seeded:
        database = unique_name("cosmos-test")
        databases.append(database)
        _, container = await create_container(
            client,
            database,
            "memory",
            paths=paths or schema.partition_key,
            default_ttl=default_ttl,
        )
        await seed(container, lab_dataset() if items is None else items)
        return Seeded(cosmos_peer.endpoint, cosmos_peer.key, database, "memory")

    yield make
    for database in databases:
        await client.delete_database(database)
    await client.close()


@pytest.fixture
async def open_store() -> AsyncIterator[Callable[..., CosmosStore]]:
    stores: list[CosmosStore] = []

    def make(
        settings: CosmosSettings,
        schema: Schema | None = LAB,
        *,
        transport: Any = None,
        ledger: RequestLedger | None = None,
    ) -> CosmosStore:
        store = CosmosStore.open(settings, schema, ledger=ledger, transport=transport)
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()
