"""The session's RU budget, the ``RequestLedger``'s admission half: what a call is
estimated to cost before it is sent (learned from the session's own answers), whether
it fits, the question a foreground action asks once it would not, and the room
background work must leave. See ``request_ledger`` for the whole door.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from cosmem_tui.model import BudgetQuestion
from cosmem_tui.sources.errors import BudgetSpent

Confirmer = Callable[[BudgetQuestion], Awaitable[bool]]

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

# Causes and planned work follow the asyncio task (contextvars are copied into tasks and
# into to_thread calls), so concurrent UI workers each see only their own.
_CAUSE: ContextVar[str] = ContextVar("cosmem_cause", default="")
_PLANNED: ContextVar[tuple[str, ...]] = ContextVar("cosmem_planned", default=())


def check_budget(budget_ru: float | None) -> float | None:
    """A session budget must be a positive number of RU (None: no budget)."""
    if budget_ru is not None and not budget_ru > 0:
        raise ValueError(f"the RU budget must be a positive number, not {budget_ru:g}")
    return budget_ru


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


class RequestBudget:
    """The budget half of ``RequestLedger`` (a mixin over the ledger's state and lock)."""

    if TYPE_CHECKING:  # provided by RequestLedger
        _lock: threading.Lock
        _budget_ru: float | None
        _granted_ru: float
        _budget_step: float
        _confirmer: Confirmer | None
        _request_units: float
        _admitted: dict[int, Admission]
        _cost_by_operation: dict[str, tuple[int, float]]
        _scan_rates: dict[str, tuple[int, float]]
        _query_floor: float | None
        _background: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]

        def check_silence(self, operation: str, target: str) -> None: ...

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
