"""The one door every store request goes through.

It times each request, records its scope, item count, status and request charge
(measured from ``x-ms-request-charge`` on Cosmos, modelled and marked simulated
on the local workspace), keeps the session totals, and tells listeners (the UI
header) about each new record. Backends open one ``request()`` per wire request,
so a query of five pages is five records.

It is also where the console behaves as a careful guest on a production account:

* a per-session RU budget: a cross-partition query runs only when it is budgeted
  (the one listing the browse path needs) and the budget is not spent, or when the
  user confirms it through the confirmer the UI or CLI installs;
* throttling: backends report each 429 the service answers (``note_throttle``),
  listeners show "throttled, retrying in N ms", and ``throttle_pause_s()`` tells
  the console's own pollers how long to hold off.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar

from cosmem_tui.model import (
    FanOutRequest,
    Meter,
    RequestCharge,
    Scope,
    SessionTotals,
    Throttling,
)
from cosmem_tui.sources.errors import CrossPartitionDeclined, StoreError, Throttled

Listener = Callable[[RequestCharge], None]
ThrottleListener = Callable[[Throttling], None]
Confirmer = Callable[[FanOutRequest], Awaitable[bool]]

DEFAULT_RU_BUDGET = 400.0  # per session; a DISTINCT over a mid-size container fits in it


# Meters follow the asyncio task (contextvars are copied into tasks and threads'
# run_in_executor contexts), so concurrent UI workers each see only their own cost.
_ACTIVE_METERS: ContextVar[tuple[Meter, ...]] = ContextVar("cosmem_meters", default=())


class RequestTicket:
    """Filled in by the backend while its request runs."""

    __slots__ = ("activity_id", "items", "request_units", "retry_after_ms", "simulated", "status")

    def __init__(self) -> None:
        self.request_units = 0.0
        self.items = 0
        self.status = 200
        self.simulated = False
        self.activity_id: str | None = None
        self.retry_after_ms: float | None = None

    def charge(self, request_units: float, *, simulated: bool = False) -> None:
        self.request_units += request_units
        self.simulated = self.simulated or simulated


class Gateway:
    def __init__(self, *, history: int = 1000, budget_ru: float | None = None) -> None:
        self._budget_ru = budget_ru  # None: no budget (the local workspace models charges)
        self._budget_step = budget_ru
        self._confirmer: Confirmer | None = None
        self._approved: set[tuple[str, str]] = set()
        self._throttle_listeners: list[ThrottleListener] = []
        self._notice_listeners: list[Callable[[str], None]] = []
        self._throttled_until = 0.0  # time.monotonic() before which pollers hold off
        self._records: deque[RequestCharge] = deque(maxlen=history)
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self._requests = 0
        self._request_units = 0.0
        self._simulated = False
        self._throttled = 0
        self._by_scope: dict[Scope, int] = {}

    @asynccontextmanager
    async def request(
        self, operation: str, scope: Scope, *, target: str = ""
    ) -> AsyncIterator[RequestTicket]:
        ticket = RequestTicket()
        started = time.perf_counter()
        try:
            yield ticket
        except StoreError as exc:
            ticket.status = exc.status
            if isinstance(exc, Throttled):
                ticket.retry_after_ms = exc.retry_after_ms
            raise
        except Exception:
            ticket.status = 0 if ticket.status == 200 else ticket.status  # 0: no answer
            raise
        finally:
            self._record(
                RequestCharge(
                    operation=operation,
                    scope=scope,
                    request_units=ticket.request_units,
                    duration_ms=(time.perf_counter() - started) * 1000.0,
                    item_count=ticket.items,
                    status=ticket.status,
                    simulated=ticket.simulated,
                    target=target,
                    activity_id=ticket.activity_id,
                    retry_after_ms=ticket.retry_after_ms,
                )
            )

    @contextmanager
    def meter(self) -> Iterator[Meter]:
        meter = Meter()
        token = _ACTIVE_METERS.set((*_ACTIVE_METERS.get(), meter))
        try:
            yield meter
        finally:
            _ACTIVE_METERS.reset(token)

    def _record(self, record: RequestCharge) -> None:
        for meter in _ACTIVE_METERS.get():
            meter.add(record)
        with self._lock:
            self._records.append(record)
            self._requests += 1
            self._request_units += record.request_units
            self._simulated = self._simulated or record.simulated
            self._by_scope[record.scope] = self._by_scope.get(record.scope, 0) + 1
            if record.status == 429:
                self._throttled += 1
            listeners = list(self._listeners)
        for listener in listeners:
            listener(record)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def totals(self) -> SessionTotals:
        with self._lock:
            return SessionTotals(
                requests=self._requests,
                request_units=self._request_units,
                simulated=self._simulated,
                by_scope=dict(self._by_scope),
                throttled=self._throttled,
                budget_ru=self._budget_ru,
            )

    def records(self) -> list[RequestCharge]:
        with self._lock:
            return list(self._records)

    # -- the RU budget and cross-partition confirmation ---------------------------------

    @property
    def budget_ru(self) -> float | None:
        return self._budget_ru

    def set_confirmer(self, confirmer: Confirmer | None) -> None:
        """Who to ask before an unbudgeted cross-partition query (None: refuse them all)."""
        self._confirmer = confirmer

    def _spent(self) -> float:
        with self._lock:
            return self._request_units

    async def authorize_fan_out(self, operation: str, target: str, *, budgeted: bool) -> None:
        """Call before the first page of a cross-partition query; raises when not allowed.

        ``budgeted`` marks the one fan-out the browse path is built on (listing the
        top level); it runs without asking while the session budget lasts. Anything
        else is asked about once per operation and target for the session.
        """
        if budgeted:
            await self.check_budget(operation, target)
            return
        if (operation, target) in self._approved:
            return
        await self._ask(operation, target, budget_reached=False)
        self._approved.add((operation, target))

    async def check_budget(self, operation: str, target: str) -> None:
        """Call before each further page of a cross-partition scan: ask once the budget is spent."""
        if self._budget_ru is None or self._spent() < self._budget_ru:
            return
        await self._ask(operation, target, budget_reached=True)
        with self._lock:  # the user said go on: one more budget's worth
            self._budget_ru = self._request_units + (self._budget_step or 0.0)

    async def _ask(self, operation: str, target: str, *, budget_reached: bool) -> None:
        request = FanOutRequest(operation, target, self._spent(), self._budget_ru, budget_reached)
        if self._confirmer is None or not await self._confirmer(request):
            if budget_reached:
                raise CrossPartitionDeclined(
                    f"stopped {operation} ({target}): the session's RU budget of "
                    f"{self._budget_ru:,.0f} RU is spent ({request.spent_ru:,.1f} RU)"
                )
            raise CrossPartitionDeclined(
                f"not running {operation} ({target}): it is a cross-partition query "
                "and was not confirmed"
            )

    # -- throttling ----------------------------------------------------------------------

    def subscribe_throttle(self, listener: ThrottleListener) -> Callable[[], None]:
        with self._lock:
            self._throttle_listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._throttle_listeners:
                    self._throttle_listeners.remove(listener)

        return unsubscribe

    def note_throttle(self, event: Throttling) -> None:
        """A backend saw a 429: remember how long to hold off and tell the listeners."""
        wait_s = (event.retry_after_ms or 0.0) / 1000.0
        with self._lock:
            self._throttled_until = max(self._throttled_until, time.monotonic() + wait_s)
            listeners = list(self._throttle_listeners)
        for listener in listeners:
            listener(event)

    def throttle_pause_s(self) -> float:
        """Seconds the console's own polling should still wait (0 when not throttled)."""
        with self._lock:
            return max(0.0, self._throttled_until - time.monotonic())

    # -- notices (sign-in prompts and the like) ------------------------------------------

    def subscribe_notice(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Lines the user must read while a request waits, e.g. a device-code sign-in prompt."""
        with self._lock:
            self._notice_listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._notice_listeners:
                    self._notice_listeners.remove(listener)

        return unsubscribe

    def notice(self, text: str) -> None:
        with self._lock:
            listeners = list(self._notice_listeners)
        for listener in listeners:
            listener(text)
