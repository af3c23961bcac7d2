"""Guarded writes as use cases: plan (a fresh read), confirm (the caller), apply, audit.

Only a session opened with ``--allow-writes`` has a ``WriteService``. Each write is
made in two steps, so the user confirms exactly what will change:

1. **plan** reads what the write depends on, now: the item (a point read: its ttl, its
   ``_ts``, its ETag) for a pin or a new ttl; the thread's item count for an erase, with
   what it is expected to cost. ``describe_plan`` says in plain lines what changes and
   how many items.
2. **apply** makes the writes, each If-Match the ETag that was read: an item changed in
   between comes back 412 and is reported (``WriteStatus.CONFLICT``), never
   overwritten. An erase (``core/erase.py``) asks the budget once for its whole
   estimate, pages through the thread with single-partition queries, deletes item by
   item, and lists the thread again at the end to report what remains.

Every request is announced in the audit log (``core/audit.py``) before it is sent (an
*intent* line) and its result appended after; a request whose intent cannot be logged
is not sent. A write that got no answer is recorded as unknown — the service may have
applied it — and read again to settle it. An ``Interrupt`` (SIGTERM, SIGHUP, ctrl+c)
stops an erase between two requests, never inside one, and the closing line is
written.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from cosmem_tui.core.audit import AuditFailed, AuditLog
from cosmem_tui.core.errors import UnknownItem, UnknownThread, WriteRefused
from cosmem_tui.core.text import visible
from cosmem_tui.core.write_log import Interrupt, Log, Progress
from cosmem_tui.model import MISSING, Clock, JsonValue, ThreadRef, resolve_ttl
from cosmem_tui.model.ttl import MAX_TTL, format_duration, ttl_json, valid_item_ttl
from cosmem_tui.model.writes import (
    ItemOutcome,
    ItemWrite,
    TtlChange,
    WriteAction,
    WriteOutcome,
    WritePlan,
    WriteStatus,
)
from cosmem_tui.sources.errors import (
    BudgetSpent,
    Conflict,
    ConnectionFailed,
    InvalidItemId,
    NotFound,
    StoreError,
)
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.store import MemoryStore
from cosmem_tui.sources.writer import ERASE_PAGE, MemoryWriter

WRITE_ESTIMATE_RU = 10.0  # a ttl change rewrites a small item
DELETE_ESTIMATE_RU = 6.0  # deleting a small item


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
            f"about {plan.estimate_ru:,.0f} RU; each item is deleted If-Match its ETag, the "
            "erase stops at the first item changed meanwhile, and the thread is listed "
            "again at the end to show what remains"
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


def typed_consent(typed: str, thread_id: str) -> bool:
    """An erase is confirmed by typing the thread's id (or its escaped form, for an id
    holding control characters); surrounding blanks do not count."""
    answer = typed.strip()
    return bool(answer) and answer in (thread_id.strip(), visible(thread_id).strip())


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
    def ledger(self) -> RequestLedger:
        return self.writer.ledger

    def _label(self, ref: ThreadRef) -> str:
        return ref.describe(self.store.schema.tenant_label)

    # -- plans ----------------------------------------------------------------------------

    async def plan_ttl(
        self,
        ref: ThreadRef,
        item_id: str,
        ttl: int,
        action: WriteAction = WriteAction.SET_TTL,
        *,
        listed: bool = False,
    ) -> WritePlan:
        """``listed``: the id comes from a row the console showed (so a 404 means it is
        gone since), not from what someone typed (then it may never have existed)."""
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
            if listed:
                raise UnknownItem(
                    f"item {item_id!r} is gone from {self._label(ref)} (expired or deleted "
                    "since it was listed)"
                ) from None
            raise UnknownItem(f"no item {item_id!r} in {self._label(ref)}") from None
        change = TtlChange(
            item.id, item.partition_key, item.etag, item.ts, item.body.get("ttl", MISSING), ttl
        )
        estimate = max(WRITE_ESTIMATE_RU, self.ledger.estimate_ru("set-ttl"))
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

    async def plan_pin(self, ref: ThreadRef, item_id: str, *, listed: bool = False) -> WritePlan:
        return await self.plan_ttl(ref, item_id, -1, WriteAction.PIN, listed=listed)

    async def plan_erase(self, ref: ThreadRef) -> WritePlan:
        container = await self.store.container_properties()
        count = await self.writer.count_thread(ref)
        if count == 0:
            raise UnknownThread(f"{self._label(ref)} has no items: nothing to erase")
        per_item = max(DELETE_ESTIMATE_RU, self.ledger.estimate_ru("delete-item"))
        pages = -(-count // self.erase_page) + 2  # the last, empty page; the check after
        listing = max(3.0, self.ledger.estimate_ru("list-thread-items"))
        listing += max(1.0, self.ledger.estimate_ru("count-thread")) / pages
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

    async def apply(
        self,
        plan: WritePlan,
        progress: Progress | None = None,
        interrupt: Interrupt | None = None,
    ) -> WriteOutcome:
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
        log = Log(self.audit, self.clock, base)
        try:
            if plan.action is WriteAction.ERASE_THREAD:
                from cosmem_tui.core.erase import Erase  # only an erase needs it

                erase = Erase(
                    self.writer, plan, log, progress, interrupt or Interrupt(), self.erase_page
                )
                return await erase.run()
            return await self._set_ttl(plan, log)
        except AuditFailed as exc:  # part-way: stop at once, and say so
            raise WriteRefused(
                f"{exc.message}: stopped there, before the next request; the result of the "
                "last request sent may be missing from the log (its intent line is there)"
            ) from None

    async def _set_ttl(self, plan: WritePlan, log: Log) -> WriteOutcome:
        change = plan.changes[0]
        log.intent(plan.action.value, change.item_id, change.etag, requested_ttl=change.after)
        outcome, http, etag_after, message = ItemOutcome.WRITTEN, 200, "", ""
        with self.ledger.meter() as cost:
            try:
                ack = await self.writer.set_ttl(
                    change.item_id, change.partition_key, change.after, etag=change.etag
                )
                etag_after = ack.etag or ""
                message = f"{plan.action.value}: item {change.item_id} now has ttl {change.after}"
            except asyncio.CancelledError:
                log.result(
                    plan.action.value,
                    change.item_id,
                    status=0,
                    outcome=ItemOutcome.UNKNOWN,
                    reason="cancelled while the request was in flight: check the item",
                )
                raise
            except BudgetSpent as exc:
                log.result(
                    plan.action.value,
                    change.item_id,
                    status=0,
                    outcome=ItemOutcome.REFUSED,
                    reason=exc.message,
                )
                return WriteOutcome(plan, WriteStatus.DECLINED, (), exc.message)
            except Conflict:
                outcome, http = ItemOutcome.CONFLICT, 412
                message = (
                    f"item {change.item_id} changed after it was read (412): nothing was "
                    "written; read it again and retry"
                )
            except NotFound:
                outcome, http = ItemOutcome.NOT_FOUND, 404
                message = (
                    f"item {change.item_id} is gone (deleted or expired since it was read): "
                    "nothing written"
                )
            except InvalidItemId as exc:
                outcome, http, message = ItemOutcome.REFUSED, 0, exc.message
            except ConnectionFailed as exc:
                outcome, http = ItemOutcome.UNKNOWN, 0
                message = f"no answer to the write of item {change.item_id}: {exc.message}"
            except StoreError as exc:
                outcome, http = ItemOutcome.FAILED, exc.status
                message = f"the write failed: {exc.message}"
        write = ItemWrite(
            change.item_id,
            http,
            cost.request_units,
            change.before,
            change.after,
            change.etag,
            etag_after,
            outcome,
        )
        log.result(
            plan.action.value,
            change.item_id,
            status=http,
            outcome=outcome,
            reason=message if outcome is not ItemOutcome.WRITTEN else None,
            item_partition_key=list(change.partition_key),
            before_ttl=None if change.before is MISSING else change.before,
            before_ttl_present=change.before is not MISSING,
            after_ttl=change.after if outcome is ItemOutcome.WRITTEN else None,
            requested_ttl=change.after,
            etag_before=change.etag,
            etag_after=etag_after or None,
            request_units=round(cost.request_units, 2),
            simulated=cost.simulated,
        )
        if outcome is ItemOutcome.UNKNOWN:
            write, message = await self._settle_ttl(plan, write, message, log)
        status = {
            ItemOutcome.WRITTEN: WriteStatus.DONE,
            ItemOutcome.CONFLICT: WriteStatus.CONFLICT,
            ItemOutcome.NOT_FOUND: WriteStatus.NOT_FOUND,
            ItemOutcome.UNKNOWN: WriteStatus.UNKNOWN,
        }.get(write.outcome, WriteStatus.FAILED)
        return WriteOutcome(
            plan,
            status,
            (write,),
            message,
            simulated=cost.simulated,
            unknown_ids=(change.item_id,) if status is WriteStatus.UNKNOWN else (),
        )

    async def _settle_ttl(
        self, plan: WritePlan, write: ItemWrite, message: str, log: Log
    ) -> tuple[ItemWrite, str]:
        """A ttl write got no answer: read the item again to learn whether it was applied."""
        change = plan.changes[0]
        try:
            item = await self.store.read_item(plan.ref, change.item_id)
        except StoreError as exc:
            log.verify(change.item_id, ItemOutcome.UNKNOWN, f"the re-read failed: {exc.message}")
            return write, (
                f"{message}; the write may have been applied, and reading the item again "
                f"failed too: check item {change.item_id} before writing again"
            )
        ttl = item.body.get("ttl", MISSING)
        if item.etag != change.etag and ttl == change.after and not isinstance(ttl, bool):
            log.verify(change.item_id, ItemOutcome.WRITTEN, "a re-read shows the new ttl")
            settled = replace(write, outcome=ItemOutcome.WRITTEN, etag_after=item.etag)
            return settled, (
                f"{plan.action.value}: item {change.item_id} now has ttl {change.after} "
                "(the write got no answer; a re-read shows it was applied)"
            )
        if item.etag == change.etag:
            log.verify(change.item_id, ItemOutcome.FAILED, "a re-read shows the item unchanged")
            return replace(write, outcome=ItemOutcome.FAILED), (
                f"{message}; a re-read shows item {change.item_id} unchanged: nothing was written"
            )
        log.verify(change.item_id, ItemOutcome.CONFLICT, "the item changed, not to this ttl")
        return replace(write, outcome=ItemOutcome.CONFLICT), (
            f"{message}; a re-read shows item {change.item_id} changed by someone else: "
            "read it again"
        )
