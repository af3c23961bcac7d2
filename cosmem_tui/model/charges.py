"""What requests cost: running totals a session and a single view keep."""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.model.entities import RequestCharge, Scope


class Meter:
    """What the requests made inside one ``Gateway.meter()`` block cost."""

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
    throttled: int
    budget_ru: float | None = None  # the session's RU budget for cross-partition queries


def _wait(retry_after_ms: float | None) -> str:
    return f"{retry_after_ms:,.0f} ms" if retry_after_ms is not None else "a moment"


@dataclass(frozen=True, slots=True)
class Throttling:
    """The service answered 429 to one request: the SDK waits and retries, or gave up."""

    operation: str
    target: str
    attempt: int  # 1 for the first 429 this request met
    retry_after_ms: float | None  # what the service asked for (x-ms-retry-after-ms)
    retrying: bool  # False once the SDK's retries are spent

    def describe(self) -> str:
        if self.retrying:
            return f"throttled, retrying in {_wait(self.retry_after_ms)}"
        return f"429 after retries, retry after {_wait(self.retry_after_ms)}"


@dataclass(frozen=True, slots=True)
class FanOutRequest:
    """A cross-partition query that needs the user's go-ahead before it is sent."""

    operation: str
    target: str
    spent_ru: float  # what the session has spent so far
    budget_ru: float | None
    budget_reached: bool  # True: asked mid-way because the session budget is spent

    def describe(self) -> str:
        budget = f" of the {self.budget_ru:,.0f} RU budget" if self.budget_ru is not None else ""
        if self.budget_reached:
            return (
                f"{self.operation} ({self.target}) has used up the session's RU budget: "
                f"{self.spent_ru:,.1f} RU spent{budget}. Continue this cross-partition query?"
            )
        return (
            f"{self.operation} ({self.target}) is a cross-partition query: it reads every "
            f"partition of the container ({self.spent_ru:,.1f} RU spent so far{budget}). Run it?"
        )
