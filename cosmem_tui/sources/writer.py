"""The write contract: the few changes the console can make, only with --allow-writes.

A ``MemoryWriter`` exists only in a session opened with writes allowed (``compose``
builds one then, never otherwise), apart from the ``MemoryStore``, which stays
read-only. Every operation is a declared write (the request ledger refuses it in a read-only
session) and conditional: it names the ETag the caller read and fails with
``Conflict`` (412) when the item has changed since, so a concurrent change is
reported, never overwritten. A vanished item raises ``NotFound``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from cosmem_tui.model import JsonValue, PartitionKeyValue, ThreadRef
from cosmem_tui.sources.request_ledger import RequestLedger

ERASE_PAGE = 100  # items listed per single-partition query while erasing a thread


@dataclass(frozen=True, slots=True)
class WriteAck:
    """A write the service accepted: the item's new ETag (None after a delete)."""

    status: int
    etag: str | None
    request_units: float


@dataclass(frozen=True, slots=True)
class ThreadItem:
    """One item of a thread, as an erase lists it: enough to delete it If-Match."""

    id: str
    partition_key: PartitionKeyValue
    etag: str
    ttl: JsonValue  # raw, or MISSING


@runtime_checkable
class MemoryWriter(Protocol):
    @property
    def ledger(self) -> RequestLedger: ...

    @property
    def where(self) -> str:
        """The container written to, for the audit log: account/database/container or a file."""
        ...

    @property
    def account(self) -> str:
        """The account (or ``local``) for the audit log."""
        ...

    async def identity(self) -> str:
        """Who writes, for the audit log: the signed-in user, "account key", a local user."""
        ...

    async def set_ttl(
        self, item_id: str, partition_key: PartitionKeyValue, ttl: int, *, etag: str
    ) -> WriteAck:
        """Set the item's ttl, If-Match ``etag`` (the write also moves its ``_ts``)."""
        ...

    async def count_thread(self, ref: ThreadRef) -> int:
        """Visible items of one thread (one single-partition count)."""
        ...

    async def thread_items(
        self, ref: ThreadRef, limit: int = ERASE_PAGE, *, skip: Sequence[str] = ()
    ) -> list[ThreadItem]:
        """Up to ``limit`` of the thread's items now, leaving out the ids in ``skip``
        (one single-partition query)."""
        ...

    async def delete_item(
        self, item_id: str, partition_key: PartitionKeyValue, *, etag: str
    ) -> WriteAck:
        """Delete one item, If-Match ``etag``."""
        ...

    async def close(self) -> None: ...
