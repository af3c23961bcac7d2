"""Guarded writes: what a write will change (the plan the user confirms) and what it did.

A plan is made from a fresh read: each item's ttl and ETag as they are now. The write
is then sent *If-Match* that ETag, so an item someone changed in between is reported
(412), never overwritten. An erase plan counts the thread's items; the erase deletes
them one by one, each If-Match the ETag its page returned, and stops at the first
conflict.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cosmem_tui.model.entities import JsonValue, PartitionKeyValue, ThreadRef


class WriteAction(StrEnum):
    PIN = "pin"  # ttl -1: long-term memory, never expires
    SET_TTL = "set-ttl"  # a new ttl in seconds
    ERASE_THREAD = "erase-thread"  # delete every item of one thread (a deletion request)


class WriteStatus(StrEnum):
    DONE = "done"
    CONFLICT = "conflict"  # 412: the item changed after it was read; nothing overwritten
    NOT_FOUND = "not-found"  # gone (deleted or expired) since it was read
    DECLINED = "declined"  # the user said no (or the budget question was declined)
    STOPPED = "stopped"  # an erase stopped early (more items than confirmed, a failure)
    INCOMPLETE = "incomplete"  # an erase ran through, but the thread still holds items
    UNKNOWN = "unknown"  # no answer: the service may or may not have applied the write
    FAILED = "failed"


class ItemOutcome(StrEnum):
    """What became of one item's request, as the audit log records it."""

    WRITTEN = "done"  # a ttl change the service applied
    DELETED = "deleted"  # 204
    NOT_FOUND = "not-found"  # 404 for an item just read or listed: not proof it is gone
    CONFLICT = "conflict"  # 412
    REFUSED = "refused"  # not sent: an id no point operation can address
    UNKNOWN = "unknown"  # sent, and no answer came: check the item
    FAILED = "failed"  # the service answered with an error


@dataclass(frozen=True, slots=True)
class TtlChange:
    """One item's ttl, as read and as it will be written."""

    item_id: str
    partition_key: PartitionKeyValue
    etag: str  # as read: the write goes If-Match this
    ts: int  # _ts as read
    before: JsonValue  # the raw ttl, or MISSING
    after: int


@dataclass(frozen=True, slots=True)
class WritePlan:
    action: WriteAction
    ref: ThreadRef
    thread_label: str  # "tenant contoso / thread thr-…", as the user reads it
    where: str  # "account/database/container", or the workspace file
    default_ttl: int | None  # the container's DefaultTimeToLive (None: TTL off)
    changes: tuple[TtlChange, ...] = ()  # pin, set-ttl: the one item
    items: int = 0  # how many items change (an erase: as counted now)
    estimate_ru: float = 0.0  # what the writes are expected to cost


@dataclass(frozen=True, slots=True)
class ItemWrite:
    """One item written (or refused) as the audit log records it."""

    item_id: str
    status: int  # HTTP status: 200/204 done, 412 conflict, 404 not found, 0 not sent / no answer
    request_units: float
    before: JsonValue = None  # ttl before (MISSING when it had none); deletes: as listed
    after: JsonValue = None  # ttl after; deletes: None
    etag_before: str = ""
    etag_after: str = ""
    outcome: ItemOutcome = ItemOutcome.FAILED


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    plan: WritePlan
    status: WriteStatus
    writes: tuple[ItemWrite, ...]  # every request made, in order
    message: str  # one line for the user
    simulated: bool = False  # charges modelled (the local workspace)
    # An erase lists the thread again when it ends: how many items it still holds
    # (None: that listing failed), and the first of their ids.
    remaining: int | None = 0
    remaining_ids: tuple[str, ...] = ()
    unknown_ids: tuple[str, ...] = ()  # sent without an answer, and not settled by a re-read

    @property
    def done_ids(self) -> tuple[str, ...]:
        done = (ItemOutcome.WRITTEN, ItemOutcome.DELETED)
        return tuple(w.item_id for w in self.writes if w.outcome in done)

    @property
    def request_units(self) -> float:
        return sum(w.request_units for w in self.writes)
