"""The one door every store request goes through: the session's ledger, budget and hold-off.

* **Ledger.** One ``RequestCharge`` per HTTP response — query pages, the SDK's query
  plans and partition-range reads, retries, errors — plus one record for a request
  whose answer never came (timed out, cancelled). On the local workspace, where there
  is no HTTP, a backend opens ``request()`` per modelled request. Records carry the
  logical call they belong to, the attempt, the scope, and the action that caused
  them (``cause``). Listeners (the header, the ledger view) see each record.
* **Budget.** One RU budget per session covers *every* request. Before each call a
  backend asks ``admit``: background work (counts, detection samples) stops quietly
  with ``BudgetSpent`` once the next page would pass the budget; a foreground action
  asks the installed confirmer once, saying what the rest of it will cost, and a yes
  raises the budget by that much. A call's cost is known only once it is answered, so
  estimates scale with what the call must read (``estimate_ru(scanned=…)``, learned
  from the session's own answers), background work whose cost is not known yet waits
  for clear room, and a call that still took the session past its budget is an
  *overrun*: its records are marked ``over_budget`` and ``overruns()`` lists it, so the
  header, the CLI and the ``--ledger`` file can say so.
* **Silence.** A request that gets no answer within its deadline (and no 429 either)
  means the account stopped answering: background work is refused at once
  (``ServerSilent``) instead of each request waiting out its own deadline, the
  listeners hear it once, and the first answer to a foreground action ends it.
* **Hold-off.** Every 429 sets the shared gate (``HoldOff``); each call awaits it, so a
  throttled account sees one probing request at a time and never a retry storm. Each
  429 is counted by its sub-status (``model.substatus``: an RU budget, the metadata
  rate, a transient service error, a throughput bucket, a hot key…), and the last one
  is kept, so the header and the failure texts name the cause and its own fix. These
  are the console's own 429s, not the account's (those come from Azure Monitor).
* **Writes.** A session is read-only unless it was opened with ``writes_allowed``
  (``--allow-writes``). A backend declares every write-capable call (``check_write``,
  ``request(..., write=True)``) and the request ledger refuses it otherwise, before anything
  is sent; the Cosmos wire guard (``cosmos/wire.py``) refuses any write verb that was
  not declared.

The budget (``request_budget``) and the silence and hold-off bookkeeping
(``silence_holdoff``) are mixins of ``RequestLedger`` over its one lock and state.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import threading
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import TypeVar

from cosmem_tui.model import (
    Clock,
    Kind,
    Meter,
    Overrun,
    RequestCharge,
    Scope,
    SessionTotals,
    Silence,
    SystemClock,
    Throttling,
)
from cosmem_tui.sources.errors import StoreError, Throttled, WritesNotAllowed
from cosmem_tui.sources.holdoff import HoldOff
from cosmem_tui.sources.request_budget import (
    _CAUSE,
    _OVER,
    Admission,
    Confirmer,
    RequestBudget,
    check_budget,
)
from cosmem_tui.sources.silence_holdoff import SilenceAndHoldOff, SilenceListener, ThrottleListener

Listener = Callable[[RequestCharge], None]
_L = TypeVar("_L")

RU = "RU"  # the unit of Cosmos charges; monitoring calls record their own unit ("call")

_COSTED = (Kind.QUERY, Kind.POINT, Kind.LOCAL, Kind.WRITE)  # what estimates learn from
# Meters follow the asyncio task (contextvars are copied into tasks and into to_thread
# calls), so concurrent UI workers each see only their own cost (causes: request_budget).
_ACTIVE_METERS: ContextVar[tuple[Meter, ...]] = ContextVar("cosmem_meters", default=())


class RequestTicket:
    """Filled in by a local backend while its modelled request runs."""

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


class RequestLedger(RequestBudget, SilenceAndHoldOff):
    def __init__(
        self,
        *,
        history: int = 5000,
        budget_ru: float | None = None,
        hold_off: HoldOff | None = None,
        clock: Clock | None = None,
        writes_allowed: bool = False,
    ) -> None:
        # Record times come from the session's clock (frozen in tests and snapshots).
        self.clock: Clock = clock or SystemClock()
        self.timer: Callable[[], float] = getattr(self.clock, "perf", time.perf_counter)
        self._budget_ru = check_budget(budget_ru)  # what background work may spend
        self._granted_ru = 0.0  # what the user allowed foreground actions beyond it
        self._budget_step = self._budget_ru or 0.0  # a yes grants at least one more budget
        self.hold_off = hold_off or HoldOff()
        self._writes_allowed = writes_allowed  # fixed for the session's life
        self._confirmer: Confirmer | None = None
        self._throttle_listeners: list[ThrottleListener] = []
        self._notice_listeners: list[Callable[[str], None]] = []
        self._records: deque[RequestCharge] = deque(maxlen=history)
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self._calls = itertools.count(1)
        self._requests = 0
        self._request_units = 0.0
        self._simulated = False
        self._throttled = 0
        self._throttled_by: dict[int | None, int] = {}
        self._last_throttle: Throttling | None = None
        self._cancelled = 0
        self._monitor_calls = 0
        self._monitor_throttled = 0
        self._by_scope: dict[Scope, int] = {}
        self._cost_by_operation: dict[str, tuple[int, float]] = {}
        self._scan_rates: dict[str, tuple[int, float]] = {}  # RU per item read, measured
        self._query_floor: float | None = None  # the cheapest answered query page seen
        self._admitted: dict[int, Admission] = {}  # calls under way, by call id
        self._overruns: dict[int, Overrun] = {}  # by call id (or record seq), in order
        self._silence: str | None = None  # why the account is taken to be silent
        self._silence_listeners: list[SilenceListener] = []
        self._background: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Semaphore
        ] = weakref.WeakKeyDictionary()

    # -- the ledger ---------------------------------------------------------------------

    def next_call(self) -> int:
        """A number for one logical call (a page, a point read): its responses share it."""
        return next(self._calls)

    @staticmethod
    def cause() -> str:
        return _CAUSE.get()

    @staticmethod
    @contextmanager
    def caused_by(cause: str) -> Iterator[None]:
        """Label the requests made inside this block with the action that made them."""
        token = _CAUSE.set(cause)
        try:
            yield
        finally:
            _CAUSE.reset(token)

    @asynccontextmanager
    async def request(
        self,
        operation: str,
        scope: Scope,
        *,
        target: str = "",
        write: bool = False,
        background: bool = False,
    ) -> AsyncIterator[RequestTicket]:
        """One modelled request of a backend without HTTP (the local workspace).

        ``write``: the request changes data; refused (nothing recorded) unless the
        session allows writes. ``background``: recorded as background work, as the
        Cosmos wire records a call admitted as such."""
        if write:
            self.check_write(operation, target)
        ticket = RequestTicket()
        started = self.timer()
        cancelled = False
        try:
            yield ticket
        except StoreError as exc:
            ticket.status = exc.status
            if isinstance(exc, Throttled):
                ticket.retry_after_ms = exc.retry_after_ms
            raise
        except asyncio.CancelledError:
            cancelled = True
            ticket.status = 0
            raise
        except Exception:
            ticket.status = 0 if ticket.status == 200 else ticket.status  # 0: no answer
            raise
        finally:
            self.record(
                RequestCharge(
                    operation=operation,
                    scope=scope,
                    request_units=ticket.request_units,
                    duration_ms=(self.timer() - started) * 1000.0,
                    item_count=ticket.items,
                    status=ticket.status,
                    simulated=ticket.simulated,
                    target=target,
                    activity_id=ticket.activity_id,
                    retry_after_ms=ticket.retry_after_ms,
                    kind=Kind.WRITE if write else Kind.LOCAL,
                    call=self.next_call(),
                    cancelled=cancelled,
                    cause=_CAUSE.get(),
                    at=self.clock.now(),
                    background=background,
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

    def record(self, record: RequestCharge) -> None:
        """Add one request to the ledger (called by backends, once per HTTP response)."""
        for meter in _ACTIVE_METERS.get():
            meter.add(record)
        heard: Silence | None = None
        with self._lock:
            self._requests += 1
            record = dataclasses.replace(record, seq=self._requests)
            if record.unit == RU:
                self._request_units += record.request_units
                self._simulated = self._simulated or record.simulated
                if record.status == 429:
                    self._throttled += 1
                    cause = record.sub_status or None  # 0 and absent say the same: nothing
                    self._throttled_by[cause] = self._throttled_by.get(cause, 0) + 1
                record = self._check_overrun(record)
                if record.kind is Kind.QUERY and record.status == 200 and record.request_units:
                    floor = self._query_floor
                    self._query_floor = min(floor or record.request_units, record.request_units)
                if record.status > 0 and self._silence is not None:
                    self._silence = None  # an answer: the account is there again
                    heard = Silence(False, "the account answers again")
            else:  # monitoring calls: counted, never in the RU total or the account's 429s
                self._monitor_calls += 1
                if record.status in (429, 529):
                    self._monitor_throttled += 1
            self._records.append(record)
            self._by_scope[record.scope] = self._by_scope.get(record.scope, 0) + 1
            if record.cancelled:
                self._cancelled += 1
            if record.kind in _COSTED and 200 <= record.status < 300:
                count, total = self._cost_by_operation.get(record.operation, (0, 0.0))
                self._cost_by_operation[record.operation] = (
                    count + 1,
                    total + record.request_units,
                )
            listeners = list(self._listeners)
            silence_listeners = list(self._silence_listeners) if heard is not None else []
        for listener in listeners:
            listener(record)
        for hear in silence_listeners:
            assert heard is not None
            hear(heard)

    def _check_overrun(self, record: RequestCharge) -> RequestCharge:
        """Mark a response that took the session past the budget its call was admitted
        under (the lock is held; ``_request_units`` already includes it)."""
        admission = self._admitted.get(record.call) if record.call else None
        if admission is not None:
            admission.cost_ru += record.request_units
            record = dataclasses.replace(record, admitted_ru=admission.estimate_ru)
            limit = admission.limit_ru
        else:
            limit = self._foreground_budget()
        if limit is None or record.request_units <= 0 or self._request_units <= limit + _OVER:
            return record
        key = record.call or -record.seq
        self._overruns[key] = Overrun(
            operation=admission.operation if admission is not None else record.operation,
            target=admission.target if admission is not None else record.target,
            admitted_ru=admission.estimate_ru if admission is not None else None,
            cost_ru=admission.cost_ru if admission is not None else record.request_units,
            spent_ru=self._request_units,
            budget_ru=limit,
            background=record.background,
            cause=record.cause,
        )
        return dataclasses.replace(record, over_budget=True)

    def overruns(self) -> list[Overrun]:
        """Every call that took the session past its budget without a question, in order."""
        with self._lock:
            return list(self._overruns.values())

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._add(self._listeners, listener)

    def _add(self, listeners: list[_L], listener: _L) -> Callable[[], None]:
        with self._lock:
            listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in listeners:
                    listeners.remove(listener)

        return unsubscribe

    def totals(self) -> SessionTotals:
        with self._lock:
            return SessionTotals(
                requests=self._requests,
                request_units=self._request_units,
                simulated=self._simulated,
                by_scope=dict(self._by_scope),
                throttled=self._throttled,
                budget_ru=self._foreground_budget(),
                cancelled=self._cancelled,
                monitor_calls=self._monitor_calls,
                monitor_throttled=self._monitor_throttled,
                overruns=len(self._overruns),
                silent=self._silence is not None,
                throttled_by=dict(  # most first; ties by code, none said last
                    sorted(
                        self._throttled_by.items(),
                        key=lambda kv: (-kv[1], kv[0] is None, kv[0] or 0),
                    )
                ),
            )

    def records(self) -> list[RequestCharge]:
        with self._lock:
            return list(self._records)

    # -- writes -------------------------------------------------------------------------

    @property
    def writes_allowed(self) -> bool:
        return self._writes_allowed

    def check_write(self, operation: str, target: str) -> None:
        """Every write-capable call declares itself here first: refused in a read-only
        session (the default), before any request is made."""
        if not self._writes_allowed:
            raise WritesNotAllowed(
                f"{operation} ({target}) refused: this session is read-only; "
                "start cosmem with --allow-writes to change data"
            )

    # -- notices (sign-in prompts and the like) -----------------------------------------

    def subscribe_notice(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Lines the user must read while a request waits, e.g. a device-code sign-in prompt."""
        return self._add(self._notice_listeners, listener)

    def notice(self, text: str) -> None:
        with self._lock:
            listeners = list(self._notice_listeners)
        for listener in listeners:
            listener(text)
