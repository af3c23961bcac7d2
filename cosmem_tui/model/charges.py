"""What requests cost: running totals a session and a single view keep."""

from __future__ import annotations

from dataclasses import dataclass, field

from cosmem_tui.model.entities import RequestCharge, Scope
from cosmem_tui.model.substatus import ThrottleCause, throttle_cause


class Meter:
    """What the requests made inside one ``RequestLedger.meter()`` block cost."""

    __slots__ = ("request_units", "requests", "simulated")

    def __init__(self) -> None:
        self.requests = 0
        self.request_units = 0.0
        self.simulated = False

    def add(self, record: RequestCharge) -> None:
        self.requests += 1
        self.request_units += record.request_units
        self.simulated = self.simulated or record.simulated


@dataclass(frozen=True, slots=True)
class SessionTotals:
    requests: int
    request_units: float
    simulated: bool  # True if any charge in the total was modelled
    by_scope: dict[Scope, int]
    throttled: int  # every 429 the account answered the console, retried or not
    budget_ru: float | None = None  # the session's RU budget (None: no budget, local)
    cancelled: int = 0  # requests given up before their answer was used
    monitor_calls: int = 0  # Azure Monitor calls (metrics, logs): billed per call, no RU
    monitor_throttled: int = 0  # of those, answered 429 / 529
    overruns: int = 0  # calls that took the session past its budget without a question
    silent: bool = False  # the account stopped answering: background work is stopped
    # ``throttled`` by the 429's sub-status (None: the answer named none), most first.
    throttled_by: dict[int | None, int] = field(default_factory=dict)

    def throttle_causes(self) -> list[tuple[ThrottleCause, int]]:
        """The console's own 429s by cause, most first."""
        return [(throttle_cause(code), n) for code, n in self.throttled_by.items()]


def _wait(retry_after_ms: float | None) -> str:
    return f"{retry_after_ms:,.0f} ms" if retry_after_ms is not None else "a moment"


@dataclass(frozen=True, slots=True)
class Throttling:
    """The service answered 429: the whole console holds off, then the call is tried again."""

    operation: str
    target: str
    attempt: int  # the attempt that met this 429 (1 = the first try)
    retry_after_ms: float | None  # what the service asked for (x-ms-retry-after-ms)
    hold_off_s: float  # how long the console holds off (retry-after plus jitter)
    sub_status: int | None = None  # the 429's x-ms-substatus: its cause

    @property
    def cause(self) -> ThrottleCause:
        return throttle_cause(self.sub_status)

    def describe(self) -> str:
        return (
            f"429 {self.cause.label} on {self.operation}: holding off {_wait(self.retry_after_ms)}"
        )


@dataclass(frozen=True, slots=True)
class BudgetQuestion:
    """A foreground action that would take the session past its RU budget: ask first."""

    operation: str
    target: str
    spent_ru: float  # what the session has spent so far
    budget_ru: float  # the session's budget now
    estimate_ru: float  # what the rest of this action is expected to cost
    # Set for an action that asks before it starts whatever the budget (a fan-out):
    # why it asks, e.g. "a cross-partition aggregate: every physical partition".
    reason: str = ""

    def describe(self) -> str:
        if self.reason:
            budget = (
                f"of its {self.budget_ru:,.0f} RU budget" if self.budget_ru > 0 else "(no budget)"
            )
            return (
                f"{self.reason}: {self.operation} ({self.target}) costs about "
                f"{self.estimate_ru:,.0f} RU; the session has spent {self.spent_ru:,.1f} RU "
                f"{budget}. Go on?"
            )
        return (
            f"{self.operation} ({self.target}) needs about {self.estimate_ru:,.0f} RU more; "
            f"the session has spent {self.spent_ru:,.1f} of its {self.budget_ru:,.0f} RU "
            f"budget. Raise the budget by {self.estimate_ru:,.0f} RU and go on?"
        )


@dataclass(frozen=True, slots=True)
class Overrun:
    """A call that cost more than it was admitted at and took the session past the budget
    it was admitted under, without anyone being asked: what the budget could not stop."""

    operation: str
    target: str
    admitted_ru: float | None  # the estimate it was let through at (None: not admitted)
    cost_ru: float  # what the call cost
    spent_ru: float  # the session's total once it was answered
    budget_ru: float  # the budget the call was admitted under
    background: bool
    cause: str = ""

    def describe(self) -> str:
        admitted = (
            f"was let through at about {self.admitted_ru:,.1f} RU and "
            if self.admitted_ru is not None
            else ""
        )
        return (
            f"{self.operation} ({self.target}) {admitted}cost {self.cost_ru:,.1f} RU: the "
            f"session has spent {self.spent_ru:,.1f} RU of its {self.budget_ru:,.0f} RU budget"
        )


@dataclass(frozen=True, slots=True)
class Silence:
    """The account stopped answering (``silent``) or answers again."""

    silent: bool
    text: str
