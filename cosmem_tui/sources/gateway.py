"""The one door every store request goes through.

It times each request, records its scope, item count, status and request charge
(measured from ``x-ms-request-charge`` on Cosmos, modelled and marked simulated
on the local workspace), keeps the session totals, and tells listeners (the UI
header) about each new record. Backends open one ``request()`` per wire request,
so a query of five pages is five records.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar

from cosmem_tui.model import Meter, RequestCharge, Scope, SessionTotals
from cosmem_tui.sources.errors import StoreError, Throttled

Listener = Callable[[RequestCharge], None]


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
    def __init__(self, *, history: int = 1000) -> None:
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
            )

    def records(self) -> list[RequestCharge]:
        with self._lock:
            return list(self._records)
