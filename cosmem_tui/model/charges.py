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
