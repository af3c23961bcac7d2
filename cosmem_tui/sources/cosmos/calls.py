"""The one runner every Cosmos call goes through: budget, hold-off, deadline, retry, ledger.

A *call* is one logical request of the console — one page of a query, one point read,
one metadata read. ``CosmosCalls.call`` runs it:

1. asks the ledger's budget (``admit``): background work stops quietly at the budget, a
   foreground action asks once;
2. waits for the session's hold-off gate (after a 429 everyone waits; while throttled,
   one request at a time);
3. sends it with the SDK making exactly one attempt (see ``account``); every HTTP
   response becomes a ledger record (``wire``), and an attempt without an answer gets
   a record too (cancelled, or no answer);
4. on a 429 goes back to 2 — a throttled call is retried after the hold-off until its
   deadline, never by a count that bad luck can exhaust; on a 410/1002 the SDK could
   not resolve itself (a saved position in a range that a split or merge retired), it
   refreshes the partition-range map once and tries again;
5. gives up at the deadline (``asyncio.timeout``: azure-cosmos 4.17 never applies its
   client-level ``timeout=`` to operations and checks a per-call one only between
   attempts), as ``RequestTimedOut``. An attempt still without an answer then (no 429
   either) means the account stopped answering: the ledger is told
   (``note_silence``), so background calls are refused at once rather than each
   waiting out a deadline of its own, until an answer comes.

The partition-range map is the SDK's own, read once and kept: the SDK refreshes one
container's map itself when a request meets a split (410/1002), and a forced refresh
(``read_feed_ranges(force_refresh=True)``) replaces the whole map of the client — every
container's — so the console forces one only when a call still meets a gone range.

A page's charge is known only once it is answered; the store says what a page must
read (``scanned``) where it knows, so its estimate scales with the work, and the
The ledger marks an answer that still took the session past its budget (an overrun).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any, TypeVar

from azure.cosmos.aio import ContainerProxy

from cosmem_tui.model import Scope, throttle_cause
from cosmem_tui.sources.cosmos import wire
from cosmem_tui.sources.cosmos.failures import WAIT_FIX, is_range_gone, translate
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.errors import RequestTimedOut, Throttled, WritesNotAllowed
from cosmem_tui.sources.request_ledger import RequestLedger

T = TypeVar("T")
Parameters = Sequence[Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Route:
    """Where a query goes: one logical partition, a key prefix, or one physical range."""

    scope: Scope
    partition_key: Any = None  # a value, or a list of values (hierarchical / prefix)
    feed_range: Mapping[str, Any] | None = None

    def options(self) -> dict[str, Any]:
        if self.partition_key is not None:
            return {"partition_key": self.partition_key}
        if self.feed_range is not None:
            return {"feed_range": dict(self.feed_range)}
        return {}


@dataclass(frozen=True, slots=True)
class QueryPage:
    rows: list[Any]
    continuation: str | None
    cost_ru: float = 0.0  # what this page's requests cost (query plans included)


def _answered(exc: BaseException) -> bool:
    """Did the failing request get an HTTP answer (already in the ledger)?"""
    return isinstance(getattr(exc, "status_code", None), int)


class CosmosCalls:
    def __init__(self, ledger: RequestLedger, settings: CosmosSettings, container: ContainerProxy):
        self.ledger = ledger
        self.settings = settings
        self.container = container

    async def call(
        self,
        operation: str,
        scope: Scope,
        target: str,
        send: Callable[[], Awaitable[T]],
        *,
        background: bool = False,
        estimate_ru: float | None = None,
        remaining_ru: float | None = None,
        not_found: str | None = None,
        budgeted: bool = True,
        write: bool = False,
        item_id: str | None = None,
        refresh_when_gone: bool = True,
    ) -> T:
        """Run ``send`` (which makes SDK requests) as one call; see the module docstring.

        ``write``: the call changes data. Refused unless the session allows writes, and
        only its requests may carry a write verb (``wire.on_request``). After a 429 it is
        tried again like any call: a throttled write was not executed, and it goes
        If-Match, so it can never apply twice. ``item_id``: the item a point operation
        addresses; a write of it may go to that item's URL only. ``refresh_when_gone``:
        on a 410/1002, refresh the partition-range map once and try again."""
        ledger = self.ledger
        if write:
            ledger.check_write(operation, target)
        call_id = ledger.next_call()
        admission = None
        if budgeted:
            admission = await ledger.admit(
                operation,
                target,
                background=background,
                estimate_ru=estimate_ru,
                remaining_ru=remaining_ru,
                call=call_id,
            )
        cause = ledger.cause()
        pending: wire.Binding | None = None
        deadline = asyncio.timeout(self.settings.timeout_s)
        last_429: int | None = None  # the sub-status of the last 429: what the fix is
        stale = False  # a 410/1002 came back: refresh the ranges before the next attempt
        try:
            async with deadline:
                attempt = 0
                while True:
                    attempt += 1
                    if stale:
                        await self.feed_ranges(background=background, refresh=True)
                        stale, refresh_when_gone = False, False  # once per call
                    async with AsyncExitStack() as stack:
                        if background:
                            await stack.enter_async_context(ledger.background_slot())
                            # It may have waited for a slot behind a request that never
                            # got its answer: an account that stopped answering is not
                            # sent more background work.
                            ledger.check_silence(operation, target)
                        await stack.enter_async_context(ledger.hold_off.turn())
                        binding = wire.Binding(
                            ledger,
                            operation,
                            scope,
                            target,
                            call_id,
                            attempt,
                            background,
                            cause,
                            write=write,
                            item_id=item_id,
                        )
                        pending = binding
                        with wire.bind(binding):
                            try:
                                result = await send()
                            except asyncio.CancelledError:
                                raise
                            except Exception as exc:
                                pending = None
                                if not _answered(exc) and not isinstance(exc, WritesNotAllowed):
                                    binding.no_answer(cancelled=False)
                                if refresh_when_gone and is_range_gone(exc):
                                    stale = True  # a saved position outlived a split
                                    continue
                                error = translate(exc, self.settings, not_found=not_found)
                                if error is None:
                                    raise
                                if isinstance(error, Throttled):
                                    last_429 = error.sub_status
                                    continue  # the hold-off gate is set: wait, then again
                                raise error from None
                        pending = None
                        return result
        except asyncio.CancelledError:
            if pending is not None:
                pending.no_answer(cancelled=True)  # the user moved on: the answer is unused
            raise
        except TimeoutError:
            if not deadline.expired():
                raise
            throttled = ledger.hold_off.is_throttled
            if pending is not None:
                pending.no_answer(cancelled=False)
                if not throttled:  # no answer at all, not even a 429: it went silent
                    ledger.note_silence(
                        f"{self.settings.account} stopped answering (no answer to "
                        f"{operation} within {self.settings.timeout_s:g} s)"
                    )
            # The fix differs: a storm is told by its cause (only an RU budget wants
            # more RU/s), silence wants a longer --timeout.
            if throttled:
                last = ledger.last_throttle()
                code = last_429 if last_429 is not None else (last.sub_status if last else None)
                told = throttle_cause(code or None)
                fix = f" (the account kept answering {told.describe()}); {told.fix}"
            else:
                fix = f"; {WAIT_FIX}"
            raise RequestTimedOut(
                f"{self.settings.account} did not answer {operation} within "
                f"{self.settings.timeout_s:g} s{fix}"
            ) from None
        finally:
            if admission is not None:
                ledger.settle(admission)  # every answer of the call is in

    async def page(
        self,
        query: str,
        route: Route,
        *,
        operation: str,
        target: str,
        parameters: Parameters = (),
        page_size: int,
        continuation: str | None = None,
        background: bool = False,
        remaining_ru: float | None = None,
        estimate_ru: float | None = None,
        scanned: int | None = None,
        learn: bool = False,
        priority: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> QueryPage:
        """One page of a query (one call; the SDK may send more than one request for it).

        ``scanned``: how many items the page must read, when the store knows (its
        estimate then scales with them; ``estimate_ru`` overrides); ``learn``: it reads
        exactly those, so its answer teaches the ledger what reading an item costs.
        ``priority``: this call's priority instead of the session's (recall probes go at
        Low); ``options``: further SDK keywords of this query."""
        sdk_options = {**route.options(), **(options or {})}
        sent_priority = priority or self.settings.priority
        if estimate_ru is None and scanned is not None:
            estimate_ru = self.ledger.estimate_ru(operation, scanned=scanned)

        container: Any = self.container  # the SDK's overloads cannot type a **options route

        async def send() -> QueryPage:
            pages: Any = container.query_items(
                query,
                parameters=[dict(p) for p in parameters],
                max_item_count=page_size,
                priority=sent_priority,
                **sdk_options,
            ).by_page(continuation)
            try:
                page = await pages.__anext__()
            except StopAsyncIteration:
                return QueryPage([], None)
            rows = [row async for row in page]
            return QueryPage(rows, pages.continuation_token or None)

        with self.ledger.meter() as cost:
            page = await self.call(
                operation,
                route.scope,
                target,
                send,
                background=background,
                estimate_ru=estimate_ru,
                remaining_ru=remaining_ru,
            )
        if learn and scanned:
            self.ledger.learn_scan(operation, scanned, cost.request_units)
        return QueryPage(page.rows, page.continuation, cost.request_units)

    async def feed_ranges(
        self, *, background: bool = False, refresh: bool = False
    ) -> list[dict[str, Any]]:
        """The container's physical partitions as feed ranges, from the SDK's map (read
        from the service the first time only). ``refresh``: read it again first — the
        SDK then replaces the routing map of every container of the client, so only
        when a call met a range that is gone."""

        async def send() -> list[dict[str, Any]]:
            ranges = self.container.read_feed_ranges(force_refresh=refresh)
            return [dict(r) async for r in ranges]

        return await self.call(
            "refresh-ranges" if refresh else "read-ranges",
            Scope.METADATA,
            "partition key ranges (a range was gone)" if refresh else "partition key ranges",
            send,
            background=background,
            estimate_ru=0.0,
            refresh_when_gone=False,
        )
