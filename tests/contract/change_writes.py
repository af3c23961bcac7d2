"""Writes the change feed contract makes on each backend, as another client of the container would.

The console itself is read-only; the change feed suite (``test_changes.py``) needs items
created, replaced, deleted and purged by TTL while it reads. Each backend says how: the
local workspace through its change log's batches (``WorkspaceWriter.changes``, the demo
workload's path), a Cosmos backend through the SDK, one item at a time in order, as an
agent writes (the fake gateway's TTL purge is its own step; the npm peer has no
all-versions mode, so it has no purge to let run).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from cosmem_tui.model import FrozenClock, JsonValue
from cosmem_tui.sources.cosmos.store import CosmosStore
from cosmem_tui.sources.local import LocalStore
from cosmem_tui.sources.local.change_log import Written
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from cosmem_tui.sources.store import MemoryStore
from tests.contract.backends import Backend, CosmosBackend, LocalBackend


class ChangeWrites(Protocol):
    retention_s: int  # the backend's history window, in seconds
    all_versions: bool  # the backend serves the all-versions-and-deletes mode
    # A position older than the window: False, the history before it is silent (and the
    # page says since when, ``retained_since``); True, the service refuses to resume
    # (400, ``FeedUnavailable``: start again from now), as Cosmos DB does.
    refuses_past_retention: bool

    async def create(self, *bodies: Mapping[str, Any]) -> None:
        """Create the items (one batch where the backend has batches)."""
        ...

    async def replace(self, body: Mapping[str, Any]) -> None: ...

    async def delete(self, partition_key: Sequence[JsonValue], item_id: str) -> None: ...

    async def purge_expired(self) -> int:
        """Let the backend's TTL purge run now; how many items it purged."""
        ...

    async def close(self) -> None: ...


class LocalChangeWrites:
    """The demo workload's path: ``WorkspaceWriter.changes`` batches at the backend's clock."""

    def __init__(self, store: LocalStore, clock: FrozenClock) -> None:
        self._writer = WorkspaceWriter.open(store.workspace.path)
        self._schema = store.schema
        self._clock = clock
        self.retention_s = self._writer.retention_s
        self.all_versions = True
        self.refuses_past_retention = False
        self.written: list[Written] = []

    def _batch(self, write: Any) -> None:
        with self._writer.changes(self._schema, int(self._clock.now())) as batch:
            write(batch)
            self.written.extend(batch.written)

    async def create(self, *bodies: Mapping[str, Any]) -> None:
        await asyncio.to_thread(self._batch, lambda b: [b.create(body) for body in bodies])

    async def replace(self, body: Mapping[str, Any]) -> None:
        await asyncio.to_thread(self._batch, lambda b: b.replace(body))

    async def delete(self, partition_key: Sequence[JsonValue], item_id: str) -> None:
        await asyncio.to_thread(self._batch, lambda b: b.delete(tuple(partition_key), item_id))

    async def purge_expired(self) -> int:
        before = len(self.written)
        await asyncio.to_thread(self._batch, lambda b: b.purge_expired(1000))
        return len(self.written) - before

    async def close(self) -> None:
        await asyncio.to_thread(self._writer.close)


class CosmosChangeWrites:
    """Writes through the SDK, as another client of the container (the store reads only)."""

    def __init__(self, backend: CosmosBackend, store: CosmosStore) -> None:
        settings = store.settings
        self._container = backend.client.get_database_client(
            settings.database
        ).get_container_client(settings.container)
        self._backend = backend
        self._database, self._name = settings.database, settings.container
        fake = getattr(backend, "fake", None)
        self.all_versions = fake is not None  # the npm peer serves latest version only
        self.refuses_past_retention = True
        self.retention_s = FAKE_RETENTION_S if fake is not None else 0

    async def create(self, *bodies: Mapping[str, Any]) -> None:
        for body in bodies:  # in order: the feed's order is the writes'
            await self._container.create_item(dict(body))

    async def replace(self, body: Mapping[str, Any]) -> None:
        await self._container.replace_item(str(body["id"]), dict(body))

    async def delete(self, partition_key: Sequence[JsonValue], item_id: str) -> None:
        await self._container.delete_item(item_id, partition_key=list(partition_key))

    async def purge_expired(self) -> int:
        fake = getattr(self._backend, "fake", None)
        if fake is None:
            raise NotImplementedError("the npm peer has no TTL purge of its own to run")
        return int(fake.purge(self._database, self._name))

    async def close(self) -> None:
        return None


# The fake gateway's containers in this suite: a week of history (as the local default)
# and TTL purges 20 s after expiry.
FAKE_RETENTION_S = 7 * 24 * 3600
FAKE_PURGE_LAG_S = 20.0


def change_writes(backend: Backend, store: MemoryStore) -> ChangeWrites:
    if isinstance(backend, LocalBackend) and isinstance(store, LocalStore):
        return LocalChangeWrites(store, backend.clock)
    if isinstance(backend, CosmosBackend) and isinstance(store, CosmosStore):
        fake = getattr(backend, "fake", None)
        if fake is not None:
            feed = fake.container(store.settings.database, store.settings.container).feed
            feed.retention_s, feed.purge_lag_s = FAKE_RETENTION_S, FAKE_PURGE_LAG_S
        return CosmosChangeWrites(backend, store)
    raise NotImplementedError(f"no change feed writes for the {backend.name} backend yet")
