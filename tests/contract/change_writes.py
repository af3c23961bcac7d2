"""Writes the change feed contract makes on each backend, as another client of the container would.

The console itself is read-only; the change feed suite (``test_changes.py``) needs items
created, replaced, deleted and purged by TTL while it reads. Each backend says how: the
local workspace through its change log's batches (``WorkspaceWriter.changes``, the demo
workload's path), a Cosmos backend through the SDK (added with its change feed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from cosmem_tui.model import FrozenClock, JsonValue
from cosmem_tui.sources.local import LocalStore
from cosmem_tui.sources.local.change_log import Written
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from cosmem_tui.sources.store import MemoryStore
from tests.contract.backends import Backend, LocalBackend


class ChangeWrites(Protocol):
    retention_s: int  # the backend's history window, in seconds

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


def change_writes(backend: Backend, store: MemoryStore) -> ChangeWrites:
    if isinstance(backend, LocalBackend) and isinstance(store, LocalStore):
        return LocalChangeWrites(store, backend.clock)
    raise NotImplementedError(f"no change feed writes for the {backend.name} backend yet")
