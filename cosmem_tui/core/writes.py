"""Guarded writes as use cases: plan (a fresh read), confirm (the caller), apply, audit.

Only a session opened with ``--allow-writes`` has a ``WriteService``. Each write is
made in two steps, so the user confirms exactly what will change:

1. **plan** reads what the write depends on, now: the item (a point read: its ttl, its
   ``_ts``, its ETag) for a pin or a new ttl; the thread's item count for an erase, with
   what it is expected to cost. ``describe_plan`` says in plain lines what changes and
   how many items.
2. **apply** makes the writes, each If-Match the ETag that was read: an item changed in
   between comes back 412 and is reported (``WriteStatus.CONFLICT``), never
   overwritten. An erase asks the budget once for its whole estimate, then pages
   through the thread with single-partition queries and deletes item by item; it stops
   at the first conflict, and at more items than the user confirmed.

Every request made is written to the audit log (``core/audit.py``) as it happens; if the
log cannot be written, no write is made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cosmem_tui.core.audit import AuditFailed, AuditLog, iso_now
from cosmem_tui.core.errors import UnknownItem, UnknownThread, WriteRefused
from cosmem_tui.model import MISSING, Clock, JsonValue, ThreadRef, resolve_ttl
from cosmem_tui.model.ttl import MAX_TTL, format_duration, ttl_json, valid_item_ttl
from cosmem_tui.model.writes import (
    ItemWrite,
    TtlChange,
    WriteAction,
    WriteOutcome,
    WritePlan,
    WriteStatus,
)
from cosmem_tui.sources.errors import BudgetSpent, Conflict, NotFound, StoreError
from cosmem_tui.sources.gateway import Gateway
from cosmem_tui.sources.store import MemoryStore
from cosmem_tui.sources.writer import ERASE_PAGE, MemoryWriter, ThreadItem

WRITE_ESTIMATE_RU = 10.0  # a ttl change rewrites a small item
DELETE_ESTIMATE_RU = 6.0  # deleting a small item
Progress = Callable[[int, int], None]  # (deleted so far, confirmed total)


def _ttl_text(raw: JsonValue) -> str:
    return "absent" if raw is MISSING else ttl_json(raw, 24)


def _expiry(raw: JsonValue, ts: float, default_ttl: int | None, now: float) -> str:
    ttl = resolve_ttl(raw, int(ts), default_ttl)
    if ttl.expires_at is None:
        return "never expires" if default_ttl is not None else "never expires (TTL off)"
    left = ttl.expires_at - now
    return "expired" if left <= 0 else f"expires in {format_duration(left)}"


def describe_plan(plan: WritePlan, now: float, audit: str = "") -> list[str]:
    """What the write changes, in lines the user confirms (item text is the caller's to
    escape: ids and keys come from data)."""
    lines: list[str] = []
    if plan.action is WriteAction.ERASE_THREAD:
        lines.append(
            f"ERASE {plan.thread_label}: delete all {plan.items:,} items of this thread "
            "(a deletion request)"
        )
        lines.append(
            f"about {plan.estimate_ru:,.0f} RU; each item is deleted If-Match its ETag, and the "
            "erase stops at the first item changed meanwhile"
        )
        lines.append("this cannot be undone")
    else:
        change = plan.changes[0]
        verb = (
            "PIN as long-term memory (ttl -1)"
            if plan.action is WriteAction.PIN
            else f"SET ttl {change.after} ({format_duration(change.after)} after the write)"
        )
        lines.append(f"{verb}: 1 item in {plan.thread_label}")
        before = _expiry(change.before, change.ts, plan.default_ttl, now)
        after = _expiry(change.after, now, plan.default_ttl, now)
        lines.append(
            f"item {change.item_id}: ttl {_ttl_text(change.before)} → {change.after}; "
            f"now {before} → {after}"
        )
        if plan.default_ttl is None:
            lines.append(
                "TTL is off on this container: an item ttl is ignored until TTL is turned on"
            )
        lines.append(
            "the write sets the item's _ts to now (every write restarts its TTL clock); sent "
            f"If-Match {change.etag}: if the item changes first, nothing is written"
        )
    lines.append(f"in {plan.where}" + (f" · audit log {audit}" if audit else ""))
    return lines


class WriteService:
    def __init__(
        self,
        writer: MemoryWriter,
        store: MemoryStore,
        clock: Clock,
        audit: AuditLog,
        *,
        erase_page: int = ERASE_PAGE,
    ) -> None:
        self.writer = writer
        self.store = store
        self.clock = clock
        self.audit = audit
        self.erase_page = erase_page

    @property
    def gateway(self) -> Gateway:
        return self.writer.gateway

    def _label(self, ref: ThreadRef) -> str:
        return ref.describe(self.store.schema.tenant_label)

    # -- plans ----------------------------------------------------------------------------

    async def plan_ttl(
        self, ref: ThreadRef, item_id: str, ttl: int, action: WriteAction = WriteAction.SET_TTL
    ) -> WritePlan:
        if isinstance(ttl, bool) or valid_item_ttl(ttl) is None:
            raise WriteRefused(
                f"ttl {ttl!r} is not one the service accepts: -1 (never) or 1..{MAX_TTL} seconds"
            )
        if ttl == -1:
            action = WriteAction.PIN
        container = await self.store.container_properties()
        try:
            item = await self.store.read_item(ref, item_id)
        except NotFound:
            raise UnknownItem(
                f"item {item_id!r} is gone from {self._label(ref)} (expired or deleted)"
            ) from None
        change = TtlChange(
            item.id, item.partition_key, item.etag, item.ts, item.body.get("ttl", MISSING), ttl
        )
        estimate = max(WRITE_ESTIMATE_RU, self.gateway.estimate_ru("set-ttl"))
        return WritePlan(
            action,
            ref,
            self._label(ref),
            self.writer.where,
            container.default_ttl,
            (change,),
            1,
            estimate,
        )

    async def plan_pin(self, ref: ThreadRef, item_id: str) -> WritePlan:
        return await self.plan_ttl(ref, item_id, -1, WriteAction.PIN)

    async def plan_erase(self, ref: ThreadRef) -> WritePlan:
        container = await self.store.container_properties()
        count = await self.writer.count_thread(ref)
        if count == 0:
            raise UnknownThread(f"{self._label(ref)} has no items: nothing to erase")
        per_item = max(DELETE_ESTIMATE_RU, self.gateway.estimate_ru("delete-item"))
        pages = -(-count // self.erase_page) + 1
        listing = max(3.0, self.gateway.estimate_ru("list-thread-items"))
        return WritePlan(
            WriteAction.ERASE_THREAD,
            ref,
            self._label(ref),
            self.writer.where,
            container.default_ttl,
            (),
            count,
            count * per_item + pages * listing,
        )

    # -- applying -------------------------------------------------------------------------

    async def apply(self, plan: WritePlan, progress: Progress | None = None) -> WriteOutcome:
        try:
            self.audit.check()
        except AuditFailed as exc:
            raise WriteRefused(f"{exc.message}: nothing was written") from None
        base = {
            "who": await self.writer.identity(),
            "account": self.writer.account,
            "container": self.writer.where,
            "action": plan.action.value,
            "tenant": plan.ref.tenant.json_value() if plan.ref.tenant is not None else None,
            "thread": plan.ref.thread.json_value(),
            "partition_key": list(self.store.schema.partition_key_for(plan.ref)),
        }
        try:
            if plan.action is WriteAction.ERASE_THREAD:
                return await self._erase(plan, base, progress)
            return await self._set_ttl(plan, base)
        except AuditFailed as exc:  # part-way: stop at once, and say so
            raise WriteRefused(
                f"{exc.message}: stopped there; the last write may be missing from the log"
            ) from None

    def _log(self, base: dict[str, Any], **fields: Any) -> None:
        self.audit.append({"at": iso_now(self.clock.now()), **base, **fields})

    async def _set_ttl(self, plan: WritePlan, base: dict[str, Any]) -> WriteOutcome:
        change = plan.changes[0]
        status, http, etag_after, message = WriteStatus.DONE, 200, "", ""
        with self.gateway.meter() as cost:
            try:
                ack = await self.writer.set_ttl(
                    change.item_id, change.partition_key, change.after, etag=change.etag
                )
                etag_after = ack.etag or ""
                message = f"{plan.action.value}: item {change.item_id} now has ttl {change.after}"
            except BudgetSpent as exc:
                return WriteOutcome(plan, WriteStatus.DECLINED, (), exc.message)
            except Conflict:
                status, http = WriteStatus.CONFLICT, 412
                message = (
                    f"item {change.item_id} changed after it was read (412): nothing was "
                    "written; read it again and retry"
                )
            except NotFound:
                status, http = WriteStatus.NOT_FOUND, 404
                message = f"item {change.item_id} is gone (expired or deleted): nothing written"
            except StoreError as exc:
                status, http = WriteStatus.FAILED, exc.status
                message = f"the write failed: {exc.message}"
        write = ItemWrite(
            change.item_id,
            http,
            cost.request_units,
            change.before,
            change.after,
            change.etag,
            etag_after,
        )
        self._log(
            base,
            event=plan.action.value,
            id=change.item_id,
            ids=[change.item_id],
            item_partition_key=list(change.partition_key),
            before_ttl=None if change.before is MISSING else change.before,
            before_ttl_present=change.before is not MISSING,
            after_ttl=change.after if status is WriteStatus.DONE else None,
            requested_ttl=change.after,
            status=http,
            outcome=status.value,
            etag_before=change.etag,
            etag_after=etag_after or None,
            request_units=round(cost.request_units, 2),
            simulated=cost.simulated,
        )
        return WriteOutcome(plan, status, (write,), message, simulated=cost.simulated)

    async def _erase(
        self, plan: WritePlan, base: dict[str, Any], progress: Progress | None
    ) -> WriteOutcome:
        try:
            await self.gateway.admit(
                "erase-thread",
                plan.thread_label,
                background=False,
                estimate_ru=plan.estimate_ru,
                remaining_ru=plan.estimate_ru,
            )
        except BudgetSpent as exc:
            return WriteOutcome(plan, WriteStatus.DECLINED, (), exc.message)
        self._log(base, event="erase-start", items=plan.items, estimate_ru=plan.estimate_ru)
        writes: list[ItemWrite] = []
        handled: set[str] = set()
        deleted = 0
        status, message = WriteStatus.DONE, ""
        with self.gateway.meter() as total:
            while status is WriteStatus.DONE:
                try:
                    batch = [
                        i
                        for i in await self.writer.thread_items(plan.ref, self.erase_page)
                        if i.id not in handled
                    ]
                except StoreError as exc:
                    status = WriteStatus.STOPPED
                    message = f"listing the thread failed: {exc.message}"
                    break
                if not batch:
                    break
                for item in batch:
                    if deleted >= plan.items:
                        status = WriteStatus.STOPPED
                        message = (
                            f"stopped after the {plan.items:,} items confirmed: the thread holds "
                            "more (written since); erase it again for the rest"
                        )
                        break
                    handled.add(item.id)
                    status, message = await self._delete(item, base, writes)
                    deleted += 1 if writes[-1].status == 204 else 0
                    if progress is not None:
                        progress(deleted, plan.items)
                    if status is not WriteStatus.DONE:
                        break
        done = [w.item_id for w in writes if w.status == 204]
        if status is WriteStatus.DONE:
            message = f"erased {plan.thread_label}: {len(done):,} items deleted"
        elif done:
            message += f" ({len(done):,} of {plan.items:,} items were deleted before it)"
        self._log(
            base,
            event="erase-thread",
            ids=done,
            deleted=len(done),
            confirmed=plan.items,
            outcome=status.value,
            message=message,
            request_units=round(total.request_units, 2),
            simulated=total.simulated,
        )
        return WriteOutcome(plan, status, tuple(writes), message, simulated=total.simulated)

    async def _delete(
        self, item: ThreadItem, base: dict[str, Any], writes: list[ItemWrite]
    ) -> tuple[WriteStatus, str]:
        status, http, message = WriteStatus.DONE, 204, ""
        with self.gateway.meter() as cost:
            try:
                await self.writer.delete_item(item.id, item.partition_key, etag=item.etag)
            except Conflict:
                status, http = WriteStatus.CONFLICT, 412
                message = f"item {item.id} changed after it was listed (412): the erase stopped"
            except NotFound:
                http = 404  # already gone (expired, or deleted by someone else): go on
            except BudgetSpent as exc:
                return WriteStatus.STOPPED, exc.message
            except StoreError as exc:
                status, http = WriteStatus.FAILED, exc.status
                message = f"deleting item {item.id} failed: {exc.message}; the erase stopped"
        writes.append(ItemWrite(item.id, http, cost.request_units, item.ttl, None, item.etag))
        self._log(
            base,
            event="delete",
            id=item.id,
            ids=[item.id],
            item_partition_key=list(item.partition_key),
            before_ttl=None if item.ttl is MISSING else item.ttl,
            before_ttl_present=item.ttl is not MISSING,
            status=http,
            outcome={204: "deleted", 404: "already-gone", 412: "conflict"}.get(http, "failed"),
            etag_before=item.etag,
            request_units=round(cost.request_units, 2),
            simulated=cost.simulated,
        )
        return status, message
