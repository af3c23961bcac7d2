"""Erasing a thread: delete its items one by one, then list it again to say what remains.

An erase is the one write that runs long (thousands of items, minutes), so it is where
the audit trail is most at risk. Its rules:

- The budget is asked once, for the whole estimate (``WritePlan.estimate_ru``).
- The thread is listed with single-partition queries, a page at a time, asking again
  after each page (deleted items are gone) and leaving out the ids it met and could not
  delete, so a page of them never hides the items behind it.
- Each delete is announced in the audit log before it is sent (``Log.intent``) and its
  result appended after it: a process killed mid-request still leaves the request in
  the log. A 404 for an item just listed is *not* "already gone" (an id the URL cannot
  address answers 404 too): the listing at the end decides.
- It stops at the first conflict (412), failure or request without an answer (the
  service may have applied it: "unknown", settled by the listing at the end), at more
  items than confirmed, and between two requests when interrupted (SIGTERM, SIGHUP,
  ctrl+c). Cancelled mid-request, it still writes its closing line.
- When it ends it counts and lists the thread again: "erased" only when nothing
  remains; otherwise what remains, by id, and why.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from dataclasses import dataclass, field, replace

from cosmem_tui.core.audit import AuditFailed
from cosmem_tui.core.write_log import Interrupt, Log, Progress
from cosmem_tui.model import MISSING, Meter
from cosmem_tui.model.writes import ItemOutcome, ItemWrite, WriteOutcome, WritePlan, WriteStatus
from cosmem_tui.sources.errors import (
    BudgetSpent,
    Conflict,
    ConnectionFailed,
    InvalidItemId,
    NotFound,
    StoreError,
)
from cosmem_tui.sources.item_ids import item_id_problem
from cosmem_tui.sources.writer import MemoryWriter, ThreadItem

REMAINING_NAMED = 20  # ids of what remains that the closing line and the message name


@dataclass
class _Remaining:
    """The thread as listed after the erase: how many items, the first ids (None: unknown)."""

    count: int | None
    ids: tuple[str, ...] = ()
    error: str = ""


@dataclass
class _Progress:
    writes: list[ItemWrite] = field(default_factory=list)
    skip: list[str] = field(default_factory=list)  # met, not deleted: left out of listings
    reasons: dict[str, str] = field(default_factory=dict)  # why each skipped id stayed
    status: WriteStatus = WriteStatus.DONE
    message: str = ""

    @property
    def deleted(self) -> list[str]:
        return [w.item_id for w in self.writes if w.outcome is ItemOutcome.DELETED]

    @property
    def unknown(self) -> list[str]:
        return [w.item_id for w in self.writes if w.outcome is ItemOutcome.UNKNOWN]

    def stop(self, status: WriteStatus, message: str) -> None:
        self.status, self.message = status, message


class Erase:
    def __init__(
        self,
        writer: MemoryWriter,
        plan: WritePlan,
        log: Log,
        progress: Progress | None,
        interrupt: Interrupt,
        page: int,
    ) -> None:
        self.writer = writer
        self.ledger = writer.ledger
        self.page = page
        self.plan = plan
        self.log = log
        self.progress = progress
        self.interrupt = interrupt
        self.state = _Progress()

    async def run(self) -> WriteOutcome:
        plan, ledger = self.plan, self.ledger
        try:
            await ledger.admit(
                "erase-thread",
                plan.thread_label,
                background=False,
                estimate_ru=plan.estimate_ru,
                remaining_ru=plan.estimate_ru,
            )
        except BudgetSpent as exc:
            return WriteOutcome(plan, WriteStatus.DECLINED, (), exc.message)
        self.log.line(event="erase-start", items=plan.items, estimate_ru=plan.estimate_ru)
        with ledger.meter() as total:
            try:
                await self._delete_all()
            except asyncio.CancelledError:
                # The console is going away mid-request: the log still gets its end.
                self.state.stop(WriteStatus.STOPPED, "cancelled while a delete was in flight")
                with suppress(AuditFailed):
                    self._close(_Remaining(None, error="not listed: cancelled"), total)
                raise
            remaining = await self._remaining()
            self._settle_unknown(remaining)
        message = self._message(remaining)
        status = self._status(remaining)
        self.state.message = message
        self._close(remaining, total, status)
        return WriteOutcome(
            plan,
            status,
            tuple(self.state.writes),
            message,
            simulated=total.simulated,
            remaining=remaining.count,
            remaining_ids=remaining.ids,
            unknown_ids=tuple(self.state.unknown),
        )

    # -- the deletes ----------------------------------------------------------------------

    async def _delete_all(self) -> None:
        state, plan = self.state, self.plan
        while state.status is WriteStatus.DONE:
            if self._interrupted():
                return
            try:
                batch = await self.writer.thread_items(plan.ref, self.page, skip=tuple(state.skip))
            except StoreError as exc:
                state.stop(WriteStatus.STOPPED, f"listing the thread failed: {exc.message}")
                return
            if not batch:
                return
            for item in batch:
                if self._interrupted():
                    return
                if len(state.deleted) >= plan.items:
                    state.stop(
                        WriteStatus.STOPPED,
                        f"stopped after the {plan.items:,} items confirmed: the thread holds "
                        "more (written since); erase it again for the rest",
                    )
                    return
                write = await self._delete(item)
                state.writes.append(write)
                if self.progress is not None:
                    with suppress(OSError):  # a progress line is not worth the erase
                        self.progress(len(state.deleted), plan.items)
                if state.status is not WriteStatus.DONE:
                    return

    def _interrupted(self) -> bool:
        reason = self.interrupt.reason
        if reason is None:
            return False
        self.state.stop(WriteStatus.STOPPED, f"stopped by {reason} before the next delete")
        return True

    async def _delete(self, item: ThreadItem) -> ItemWrite:
        """One item: refused before sending, or announced, sent and its result logged."""
        state = self.state
        problem = item_id_problem(item.id)
        if problem is not None:  # nothing is sent: the URL would not be the item's
            state.skip.append(item.id)
            state.reasons[item.id] = problem
            self._result(item, 0, ItemOutcome.REFUSED, 0.0, False, problem)
            return ItemWrite(item.id, 0, 0.0, item.ttl, None, item.etag, "", ItemOutcome.REFUSED)
        self.log.intent("delete", item.id, item.etag)
        outcome, http, reason = ItemOutcome.DELETED, 204, ""
        with self.ledger.meter() as cost:
            try:
                await self.writer.delete_item(item.id, item.partition_key, etag=item.etag)
            except asyncio.CancelledError:
                self._result(
                    item,
                    0,
                    ItemOutcome.UNKNOWN,
                    cost.request_units,
                    cost.simulated,
                    "cancelled while the delete was in flight: check the item",
                )
                raise
            except Conflict:
                outcome, http = ItemOutcome.CONFLICT, 412
                state.stop(
                    WriteStatus.CONFLICT,
                    f"item {item.id} changed after it was listed (412): the erase stopped",
                )
            except NotFound:
                # Listed a moment ago: expired meanwhile, deleted by someone else — or an
                # id the service cannot address. The listing at the end tells which.
                outcome, http = ItemOutcome.NOT_FOUND, 404
                reason = "the delete answered 404 for an item listed a moment ago"
                state.skip.append(item.id)
                state.reasons[item.id] = reason
            except InvalidItemId as exc:
                outcome, http, reason = ItemOutcome.REFUSED, 0, exc.message
                state.skip.append(item.id)
                state.reasons[item.id] = reason
            except BudgetSpent as exc:
                outcome, http, reason = ItemOutcome.REFUSED, 0, exc.message
                state.stop(WriteStatus.STOPPED, exc.message)
            except ConnectionFailed as exc:
                outcome, http = ItemOutcome.UNKNOWN, 0
                reason = f"no answer: the delete may have been applied ({exc.message})"
                state.stop(
                    WriteStatus.UNKNOWN,
                    f"no answer to the delete of item {item.id}: the erase stopped",
                )
            except StoreError as exc:
                outcome, http, reason = ItemOutcome.FAILED, exc.status, exc.message
                state.stop(
                    WriteStatus.FAILED,
                    f"deleting item {item.id} failed: {exc.message}; the erase stopped",
                )
        self._result(item, http, outcome, cost.request_units, cost.simulated, reason)
        return ItemWrite(item.id, http, cost.request_units, item.ttl, None, item.etag, "", outcome)

    def _result(
        self,
        item: ThreadItem,
        http: int,
        outcome: ItemOutcome,
        request_units: float,
        simulated: bool,
        reason: str,
    ) -> None:
        self.log.result(
            "delete",
            item.id,
            status=http,
            outcome=outcome,
            reason=reason or None,
            item_partition_key=list(item.partition_key),
            before_ttl=None if item.ttl is MISSING else item.ttl,
            before_ttl_present=item.ttl is not MISSING,
            etag_before=item.etag,
            request_units=round(request_units, 2),
            simulated=simulated,
        )

    # -- the check at the end ---------------------------------------------------------------

    async def _remaining(self) -> _Remaining:
        """Count and list the thread again (two single-partition queries)."""
        ref = self.plan.ref
        try:
            count = await self.writer.count_thread(ref)
            listed = await self.writer.thread_items(ref, REMAINING_NAMED) if count else []
        except StoreError as exc:
            return _Remaining(None, error=exc.message)
        return _Remaining(count, tuple(i.id for i in listed))

    def _settle_unknown(self, remaining: _Remaining) -> None:
        """A delete without an answer is settled by the listing: absent means deleted."""
        if remaining.count is None:
            return
        complete = remaining.count <= len(remaining.ids)
        for n, write in enumerate(self.state.writes):
            if write.outcome is not ItemOutcome.UNKNOWN:
                continue
            if write.item_id in remaining.ids:
                settled, why = ItemOutcome.FAILED, "listed again after the erase: not deleted"
            elif complete:
                settled, why = ItemOutcome.DELETED, "not listed again after the erase: deleted"
            else:
                continue  # beyond the ids listed: still unknown
            self.log.verify(write.item_id, settled, why)
            self.state.writes[n] = replace(write, outcome=settled)

    # -- what to say --------------------------------------------------------------------------

    def _status(self, remaining: _Remaining) -> WriteStatus:
        state = self.state
        if state.unknown:
            return WriteStatus.UNKNOWN
        if state.status is WriteStatus.UNKNOWN:  # the one unknown delete was settled
            return WriteStatus.STOPPED
        if state.status is not WriteStatus.DONE:
            return state.status
        if remaining.count is None:
            return WriteStatus.UNKNOWN
        return WriteStatus.DONE if remaining.count == 0 else WriteStatus.INCOMPLETE

    def _message(self, remaining: _Remaining) -> str:
        state, plan = self.state, self.plan
        deleted = len(state.deleted)
        parts = [
            f"erased {plan.thread_label}: {deleted:,} items deleted"
            if state.status is WriteStatus.DONE
            else f"{state.message} ({deleted:,} of {plan.items:,} items deleted)"
        ]
        if state.unknown:
            parts.append(
                "no answer for the delete of "
                + ", ".join(repr(i) for i in state.unknown)
                + ": it may have been deleted — check before erasing again"
            )
        if remaining.count is None:
            parts.append(f"listing the thread again failed ({remaining.error}): check what remains")
        elif remaining.count:
            parts.append(f"{remaining.count:,} items remain: {self._named(remaining)}")
        return "; ".join(parts)

    def _named(self, remaining: _Remaining) -> str:
        named = []
        for item_id in remaining.ids:
            why = self.state.reasons.get(item_id)
            named.append(f"{item_id!r} ({why})" if why else repr(item_id))
        more = (remaining.count or 0) - len(remaining.ids)
        return ", ".join(named) + (f" and {more:,} more" if more > 0 else "")

    def _close(
        self,
        remaining: _Remaining,
        total: Meter,
        status: WriteStatus | None = None,
    ) -> None:
        state, plan = self.state, self.plan
        self.log.line(
            event="erase-thread",
            ids=state.deleted,
            deleted=len(state.deleted),
            confirmed=plan.items,
            unknown=state.unknown,
            not_deleted=[{"id": i, "reason": r} for i, r in state.reasons.items()],
            remaining=remaining.count,
            remaining_ids=list(remaining.ids),
            interrupted=self.interrupt.reason,
            outcome=(status or state.status).value,
            message=state.message,
            request_units=round(total.request_units, 2),
            simulated=total.simulated,
        )
