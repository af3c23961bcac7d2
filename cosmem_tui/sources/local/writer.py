"""Guarded writes on a local workspace (--allow-writes), so the demo can show them.

Reads (a thread's count, its items) go through the session's read-only ``Workspace``,
which knows the session's own keys; writes go through a ``WorkspaceWriter``, the one
``mode=rw`` handle, which exists only here. Each write is one modelled request in the
request ledger, declared as a write (refused in a read-only session), charged the way Cosmos
charges a write of that size, and conditional on the ETag the caller read.
"""

from __future__ import annotations

import asyncio
import getpass
import json
from collections.abc import Sequence
from typing import Any

from cosmem_tui.model import MISSING, Clock, PartitionKeyValue, Scope, ThreadRef
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.errors import StoreError
from cosmem_tui.sources.item_ids import check_item_id
from cosmem_tui.sources.local.charge import (
    REFUSED_RU,
    delete_charge,
    query_charge,
    write_charge,
)
from cosmem_tui.sources.local.keys import pk_text
from cosmem_tui.sources.local.workspace import Workspace
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.writer import ERASE_PAGE, ThreadItem, WriteAck


class LocalWriter:
    def __init__(
        self,
        workspace: Workspace,
        schema: Schema,
        *,
        ledger: RequestLedger,
        clock: Clock,
    ) -> None:
        ledger.check_write("open for writing", str(workspace.path))  # read-only: no handle
        self._workspace = workspace
        self._writer = WorkspaceWriter.open(workspace.path)
        self._schema = schema
        self._ledger = ledger
        self._clock = clock

    @property
    def ledger(self) -> RequestLedger:
        return self._ledger

    @property
    def where(self) -> str:
        return str(self._workspace.path)

    @property
    def account(self) -> str:
        return "local"

    async def identity(self) -> str:
        try:
            user = getpass.getuser()
        except (OSError, KeyError):  # no login name (a container without a passwd entry)
            user = "unknown user"
        return f"{user} (local workspace)"

    def _now(self) -> int:
        return int(self._clock.now())

    async def set_ttl(
        self, item_id: str, partition_key: PartitionKeyValue, ttl: int, *, etag: str
    ) -> WriteAck:
        check_item_id(item_id, "set-ttl")
        pk = pk_text(partition_key)
        async with self._ledger.request(
            "set-ttl", Scope.POINT, target=f"{item_id} ttl {ttl}", write=True
        ) as ticket:
            try:
                fresh, size = await asyncio.to_thread(
                    self._writer.set_ttl, pk, item_id, ttl, etag=etag, now=self._now()
                )
            except StoreError:
                ticket.charge(REFUSED_RU, simulated=True)  # a failed condition costs too
                raise
            ticket.items = 1
            ticket.charge(write_charge(size), simulated=True)
        self._workspace.refresh_item(pk, item_id)
        return WriteAck(200, fresh, ticket.request_units)

    async def delete_item(
        self, item_id: str, partition_key: PartitionKeyValue, *, etag: str
    ) -> WriteAck:
        check_item_id(item_id, "delete")
        pk = pk_text(partition_key)
        async with self._ledger.request(
            "delete-item", Scope.POINT, target=item_id, write=True
        ) as ticket:
            try:
                size = await asyncio.to_thread(
                    self._writer.delete, pk, item_id, etag=etag, now=self._now()
                )
            except StoreError:
                ticket.charge(REFUSED_RU, simulated=True)
                raise
            ticket.items = 1
            ticket.charge(delete_charge(size), simulated=True)
        self._workspace.refresh_item(pk, item_id)
        return WriteAck(204, None, ticket.request_units)

    def _thread_params(self, ref: ThreadRef) -> dict[str, Any]:
        self._schema.thread_values(ref)  # a composite thread must name all its values
        return {
            "thread": ref.thread.text,
            "tenant": ref.tenant.text if ref.tenant is not None else None,
            "now": self._now(),
        }

    async def count_thread(self, ref: ThreadRef) -> int:
        params = self._thread_params(ref)
        async with self._ledger.request(
            "count-thread", Scope.PARTITION, target=ref.describe(self._schema.tenant_label)
        ) as ticket:
            rows = await asyncio.to_thread(self._workspace.query, "thread_item_count", params)
            count = int(rows[0][0])
            ticket.items = 1
            ticket.charge(
                query_charge(Scope.PARTITION, returned=1, returned_bytes=16, scanned=count),
                simulated=True,
            )
        return count

    async def thread_items(
        self, ref: ThreadRef, limit: int = ERASE_PAGE, *, skip: Sequence[str] = ()
    ) -> list[ThreadItem]:
        params = {**self._thread_params(ref), "limit": limit, "skip": json.dumps(list(skip))}
        async with self._ledger.request(
            "list-thread-items", Scope.PARTITION, target=ref.describe(self._schema.tenant_label)
        ) as ticket:
            rows = await asyncio.to_thread(self._workspace.query, "thread_items", params)
            ticket.items = len(rows)
            ticket.charge(
                query_charge(Scope.PARTITION, returned=len(rows), returned_bytes=96 * len(rows)),
                simulated=True,
            )
        return [
            ThreadItem(item_id, tuple(json.loads(pk)), etag, json.loads(body).get("ttl", MISSING))
            for item_id, pk, etag, body in rows
        ]

    async def close(self) -> None:
        await asyncio.to_thread(self._writer.close)
