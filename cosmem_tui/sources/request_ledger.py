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
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import threading
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import TypeVar

from cosmem_tui.model import (
    BudgetQuestion,
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
from cosmem_tui.sources.errors import (
    BudgetSpent,
    ServerSilent,
    StoreError,
    Throttled,
    WritesNotAllowed,
)
from cosmem_tui.sources.holdoff import HoldOff

Listener = Callable[[RequestCharge], None]
ThrottleListener = Callable[[Throttling], None]
SilenceListener = Callable[[Silence], None]
Confirmer = Callable[[BudgetQuestion], Awaitable[bool]]
_L = TypeVar("_L")

RU = "RU"  # the unit of Cosmos charges; monitoring calls record their own unit ("call")
DEFAULT_RU_BUDGET = 400.0  # per session: the first screens of a large account fit in it
DEFAULT_ESTIMATE_RU = 3.0  # a page's cost before the ledger has seen one of its kind
# What reading one item costs a query that must read the items of its scope (a filter or
# an aggregate the index cannot serve), until the session has measured its own: Cosmos
# charges about 0.03 RU per document loaded plus about 0.02 RU per KB of it.
DEFAULT_SCAN_RU_PER_ITEM = 0.04
# Background work whose cost the session has not seen yet is sent only while at least
# this share of the budget is left: its first answer can cost many times a guess.
UNKNOWN_COST_ROOM = 0.25
# Background work stops at this share of the budget: the rest is for what the user asks
# for, and it absorbs a background estimate that proves short.
BACKGROUND_SHARE = 0.9
BACKGROUND_CONCURRENCY = 2  # background calls in flight at once (counts, samples)
_OVER = 1e-9  # charges are sums of floats: "past the budget" means past it by more than this

# Meters and causes follow the asyncio task (contextvars are copied into tasks and into
# to_thread calls), so concurrent UI workers each see only their own cost.
_COSTED = (Kind.QUERY, Kind.POINT, Kind.LOCAL, Kind.WRITE)  # what estimates learn from
_ACTIVE_METERS: ContextVar[tuple[Meter, ...]] = ContextVar("cosmem_meters", default=())
_CAUSE: ContextVar[str] = ContextVar("cosmem_cause", default="")
_PLANNED: ContextVar[tuple[str, ...]] = ContextVar("cosmem_planned", default=())


def check_budget(budget_ru: float | None) -> float | None:
    """A session budget must be a positive number of RU (None: no budget)."""
    if budget_ru is not None and not budget_ru > 0:
        raise ValueError(f"the RU budget must be a positive number, not {budget_ru:g}")
    return budget_ru


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


@dataclasses.dataclass(slots=True)
class Admission:
    """One call let through by ``admit``: what it was expected to cost, under which
    budget, and what its answers have cost so far (the ledger adds them up)."""

    call: int
    operation: str
    target: str
    estimate_ru: float
    limit_ru: float | None  # the budget it was admitted under (None: no budget)
    background: bool
    cause: str = ""
    cost_ru: float = 0.0


class RequestLedger:
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
        self, operation: str, scope: Scope, *, target: str = "", write: bool = False
    ) -> AsyncIterator[RequestTicket]:
        """One modelled request of a backend without HTTP (the local workspace).

        ``write``: the request changes data; refused (nothing recorded) unless the
        session allows writes."""
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

    # -- the budget ---------------------------------------------------------------------

    @property
    def budget_ru(self) -> float | None:
        """The budget a foreground action may spend: the session's plus what was granted."""
        with self._lock:
            return self._foreground_budget()

    def _foreground_budget(self) -> float | None:
        return None if self._budget_ru is None else self._budget_ru + self._granted_ru

    @property
    def spent_ru(self) -> float:
        with self._lock:
            return self._request_units

    def set_budget(self, budget_ru: float | None) -> None:
        """A new session budget (the user raised it, or a profile set it)."""
        budget_ru = check_budget(budget_ru)
        with self._lock:
            self._budget_ru = budget_ru
            self._granted_ru = 0.0
            self._budget_step = budget_ru or 0.0

    def set_confirmer(self, confirmer: Confirmer | None) -> None:
        """Who to ask before a foreground action goes past the budget (None: refuse)."""
        self._confirmer = confirmer

    def estimate_ru(self, operation: str, *, scanned: int | None = None) -> float:
        """What one more page of ``operation`` is likely to cost.

        ``scanned``: how many items the page must read (a count, a search, a filter the
        index cannot serve): the cheapest page seen plus what reading that many items
        costs at the rate this session measured (``learn_scan``). Otherwise the
        operation's average so far, else the average answered request of the session,
        else a small default."""
        with self._lock:
            if scanned is not None:
                return self._floor() + self._scan_rate(operation) * max(0, scanned)
            count, total = self._cost_by_operation.get(operation, (0, 0.0))
            if not count:
                count = sum(c for c, _ in self._cost_by_operation.values())
                total = sum(t for _, t in self._cost_by_operation.values())
        return total / count if count else DEFAULT_ESTIMATE_RU

    def known_cost(self, operation: str) -> bool:
        """Has the session seen an answer to ``operation`` (so its estimate is measured)?"""
        with self._lock:
            return operation in self._cost_by_operation

    def _floor(self) -> float:
        return self._query_floor if self._query_floor is not None else DEFAULT_ESTIMATE_RU

    def _scan_rate(self, operation: str) -> float:
        count, total = self._scan_rates.get(operation, (0, 0.0))
        if not count:  # another operation's reads of the same items say as much
            count = sum(c for c, _ in self._scan_rates.values())
            total = sum(t for _, t in self._scan_rates.values())
        return total / count if count else DEFAULT_SCAN_RU_PER_ITEM

    def learn_scan(self, operation: str, scanned: int, cost_ru: float) -> None:
        """A call of ``operation`` read ``scanned`` items for ``cost_ru``: the rate the
        next estimates with ``scanned`` use (the page floor taken off)."""
        if scanned <= 0 or cost_ru <= 0:
            return
        with self._lock:
            rate = max(0.0, cost_ru - self._floor()) / scanned
            count, total = self._scan_rates.get(operation, (0, 0.0))
            self._scan_rates[operation] = (count + 1, total + rate)

    def affordable(self, estimate_ru: float, *, background: bool = False) -> bool:
        """Would work expected to cost ``estimate_ru`` stay within the budget?

        Background work stops at the session's budget; what the user granted a
        foreground action beyond it is that action's, not the background's.
        """
        with self._lock:
            budget = self._limit(background)
            return budget is None or self._committed() + estimate_ru <= budget + _OVER

    def left_ru(self, *, background: bool = False) -> float | None:
        """What is left of the budget work of this kind may spend (None: no budget)."""
        with self._lock:
            budget = self._limit(background)
            return None if budget is None else max(0.0, budget - self._committed())

    def _limit(self, background: bool) -> float | None:
        """What work of this kind may spend in all (the lock is held)."""
        if background:
            return None if self._budget_ru is None else self._budget_ru * BACKGROUND_SHARE
        return self._foreground_budget()

    def _committed(self) -> float:
        """Spent, plus what the calls under way were admitted at and have not yet cost
        (the lock is held): calls in flight at once share one budget."""
        pending = sum(max(0.0, a.estimate_ru - a.cost_ru) for a in self._admitted.values())
        return self._request_units + pending

    async def admit(
        self,
        operation: str,
        target: str,
        *,
        background: bool,
        estimate_ru: float | None = None,
        remaining_ru: float | None = None,
        call: int = 0,
    ) -> Admission:
        """Call before each call (page, read): returns when it may be sent, else raises.

        ``estimate_ru`` is this call's expected cost (default: the operation's average so
        far); ``remaining_ru`` what the whole action still needs, for the question a
        foreground action asks once the budget would be passed. ``call``: the call id
        its responses will carry, so the ledger can tell an answer that cost more than
        this admission and passed the budget (an overrun); ``settle`` ends it.
        """
        unknown = estimate_ru is None and not self.known_cost(operation)
        page = self.estimate_ru(operation) if estimate_ru is None else estimate_ru
        if background:
            self.check_silence(operation, target)
        if background and unknown and operation not in _PLANNED.get():
            self._check_room_for_unknown(operation, target, page)
        if not self.affordable(page, background=background):
            await self._refuse_or_ask(operation, target, page, remaining_ru, background)
        with self._lock:
            # An overrun passes the budget itself (background work stops a little before).
            limit = self._budget_ru if background else self._foreground_budget()
            admission = Admission(call, operation, target, page, limit, background, _CAUSE.get())
            if call:
                self._admitted[call] = admission
        return admission

    @contextmanager
    def room_for(
        self, operations: Sequence[str], target: str, *, background: bool
    ) -> Iterator[None]:
        """Background work of several calls (a key's counts), checked as a whole before
        the first: refused now if it could not finish within the budget, rather than
        spend on calls whose answers would be thrown away. Inside the block each call is
        still admitted on its own, but one of these operations with no measured cost yet
        is not refused again for want of room: the work as a whole had it."""
        self.check_room(operations, target, background=background)
        token = _PLANNED.set((*_PLANNED.get(), *operations))
        try:
            yield
        finally:
            _PLANNED.reset(token)

    def check_room(self, operations: Sequence[str], target: str, *, background: bool) -> None:
        """See ``room_for``."""
        if not background:
            return
        self.check_silence(operations[0], target)
        for operation in operations:
            if not self.known_cost(operation):
                self._check_room_for_unknown(operation, target, self.estimate_ru(operation))
        total = sum(self.estimate_ru(operation) for operation in operations)
        if not self.affordable(total, background=True):
            with self._lock:
                spent, budget = self._request_units, self._budget_ru or 0.0
            raise BudgetSpent(
                f"{operations[0]} ({target}) not sent: about {total:,.1f} RU would pass the "
                f"session's RU budget of {budget:,.0f} RU ({spent:,.1f} RU spent)",
                spent_ru=spent,
                budget_ru=budget,
                needed_ru=total,
            )

    def settle(self, admission: Admission) -> None:
        """The call is over: its answers are all in (see ``admit``)."""
        with self._lock:
            self._admitted.pop(admission.call, None)

    def _check_room_for_unknown(self, operation: str, target: str, page: float) -> None:
        """Background work of a kind not yet answered in this session goes only while the
        budget clearly has room: a first answer can cost many times any guess."""
        with self._lock:
            budget = self._budget_ru
            spent = self._committed()
        if budget is None or budget - spent >= UNKNOWN_COST_ROOM * budget:
            return
        raise BudgetSpent(
            f"{operation} ({target}) not sent: its cost is not known yet and only "
            f"{max(0.0, budget - spent):,.1f} of the session's {budget:,.0f} RU budget is left",
            spent_ru=spent,
            budget_ru=budget,
            needed_ru=max(page, UNKNOWN_COST_ROOM * budget),
        )

    async def _refuse_or_ask(
        self,
        operation: str,
        target: str,
        page: float,
        remaining_ru: float | None,
        background: bool,
    ) -> None:
        with self._lock:
            spent = self._request_units
            budget = (self._budget_ru if background else self._foreground_budget()) or 0.0
        needed = max(page, remaining_ru or 0.0)
        if background or self._confirmer is None:
            raise BudgetSpent(
                f"{operation} ({target}) stopped at the session's RU budget of {budget:,.0f} "
                f"RU ({spent:,.1f} RU spent): about {needed:,.0f} RU more would finish it",
                spent_ru=spent,
                budget_ru=budget,
                needed_ru=needed,
            )
        # Estimates of unfinished listings are guesses: a yes grants at least one more
        # session budget, so a long action asks a few times at most, never once per page.
        needed = max(needed, self._budget_step)
        question = BudgetQuestion(operation, target, spent, budget, needed)
        if not await self._confirmer(question):
            raise BudgetSpent(
                f"{operation} ({target}) not run: it needs about {needed:,.0f} RU and the "
                f"session has spent {spent:,.1f} of its {budget:,.0f} RU budget",
                spent_ru=spent,
                budget_ru=budget,
                needed_ru=needed,
            )
        with self._lock:  # yes: foreground actions may spend what the action said it needs
            self._granted_ru = max(budget, self._request_units) + needed - (self._budget_ru or 0.0)

    # -- silence ------------------------------------------------------------------------

    @property
    def silent(self) -> bool:
        """Has the account stopped answering (and not answered since)?"""
        with self._lock:
            return self._silence is not None

    @property
    def silence(self) -> str | None:
        """What was not answered, while the account is silent (None: it answers)."""
        with self._lock:
            return self._silence

    def note_silence(self, text: str) -> None:
        """A request got no answer within its deadline: background work stops until an
        answer comes (the listeners hear it once)."""
        with self._lock:
            if self._silence is not None:
                return
            self._silence = text
            listeners = list(self._silence_listeners)
        for listener in listeners:
            listener(Silence(True, text))

    def check_silence(self, operation: str, target: str) -> None:
        """Background work is not sent to an account that stopped answering."""
        with self._lock:
            text = self._silence
        if text is not None:
            raise ServerSilent(
                f"{operation} ({target}) not sent: {text}; background work is stopped "
                "until the account answers a request again"
            )

    def subscribe_silence(self, listener: SilenceListener) -> Callable[[], None]:
        return self._add(self._silence_listeners, listener)

    async def ask_first(
        self, operation: str, target: str, *, estimate_ru: float, reason: str
    ) -> bool:
        """Ask before an action the user must choose knowingly (a fan-out), whatever the
        budget. A yes lets foreground work spend what it said it needs, so ``admit`` does
        not ask again; with no one to ask (a headless pipe) the command itself is the
        consent, and the budget still stops it."""
        if self._confirmer is None:
            return True
        with self._lock:
            spent = self._request_units
            budget = self._foreground_budget()
        question = BudgetQuestion(operation, target, spent, budget or 0.0, estimate_ru, reason)
        if not await self._confirmer(question):
            return False
        with self._lock:
            if self._budget_ru is not None:
                needed = self._request_units + estimate_ru - self._budget_ru
                self._granted_ru = max(self._granted_ru, needed)
        return True

    # -- background work ----------------------------------------------------------------

    @asynccontextmanager
    async def background_slot(self) -> AsyncIterator[None]:
        """Background calls run few at a time, so they never crowd out what the user asked."""
        loop = asyncio.get_running_loop()
        with self._lock:
            slots = self._background.get(loop)
            if slots is None:
                slots = self._background[loop] = asyncio.Semaphore(BACKGROUND_CONCURRENCY)
        async with slots:
            yield

    # -- throttling ---------------------------------------------------------------------

    def subscribe_throttle(self, listener: ThrottleListener) -> Callable[[], None]:
        return self._add(self._throttle_listeners, listener)

    def note_throttle(
        self,
        operation: str,
        target: str,
        attempt: int,
        retry_after_ms: float | None,
        *,
        sub_status: int | None = None,
    ) -> None:
        """A 429 arrived: hold the whole session off and tell the listeners.

        ``sub_status``: the answer's x-ms-substatus, i.e. why it was throttled."""
        wait_s = self.hold_off.throttled(retry_after_ms)
        event = Throttling(operation, target, attempt, retry_after_ms, wait_s, sub_status)
        with self._lock:
            self._last_throttle = event
            listeners = list(self._throttle_listeners)
        for listener in listeners:
            listener(event)

    def last_throttle(self) -> Throttling | None:
        """The newest 429 of the session (None: none yet), with its cause."""
        with self._lock:
            return self._last_throttle

    def note_answer(self) -> None:
        """A response that is not a 429: the account serves us again."""
        self.hold_off.answered()

    def throttle_pause_s(self) -> float:
        """Seconds every call (and every live poller) still waits (0 when not throttled)."""
        return self.hold_off.pause_s()

    # -- notices (sign-in prompts and the like) -----------------------------------------

    def subscribe_notice(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Lines the user must read while a request waits, e.g. a device-code sign-in prompt."""
        return self._add(self._notice_listeners, listener)

    def notice(self, text: str) -> None:
        with self._lock:
            listeners = list(self._notice_listeners)
        for listener in listeners:
            listener(text)
