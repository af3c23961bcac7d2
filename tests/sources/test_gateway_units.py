"""Monitoring calls are in the ledger, but never in the RU total or the account's 429s."""

from __future__ import annotations

from cosmem_tui.model import FrozenClock, Kind, RequestCharge, Scope
from cosmem_tui.sources.gateway import Gateway
from cosmem_tui.ui.requests import LedgerSnapshot, record_cells, summary_lines


def charge(status: int, *, ru: float = 0.0, unit: str = "RU", scope: Scope = Scope.POINT):
    return RequestCharge(
        operation="metrics: ru" if unit != "RU" else "read-item",
        scope=scope,
        request_units=ru,
        duration_ms=5.0,
        item_count=0,
        status=status,
        simulated=False,
        kind=Kind.MONITOR if unit != "RU" else Kind.POINT,
        unit=unit,
    )


def test_monitor_calls_are_counted_apart():
    gateway = Gateway(clock=FrozenClock(0.0), budget_ru=100.0)
    gateway.record(charge(200, ru=2.5))
    gateway.record(charge(429, ru=0.0))
    gateway.record(charge(200, unit="call", scope=Scope.METRICS))
    gateway.record(charge(529, unit="call", scope=Scope.METRICS))
    gateway.record(charge(429, unit="call", scope=Scope.LOGS))

    totals = gateway.totals()
    assert totals.requests == 5
    assert totals.request_units == 2.5 and gateway.spent_ru == 2.5
    assert totals.throttled == 1  # only the account's own 429
    assert (totals.monitor_calls, totals.monitor_throttled) == (3, 2)
    assert totals.by_scope[Scope.METRICS] == 2 and totals.by_scope[Scope.LOGS] == 1

    first = summary_lines(LedgerSnapshot(tuple(gateway.records()), totals))[0]
    assert first == (
        "5 requests · 2.5 RU of a 100 RU budget, 97.5 left · 1×429 · 3 monitor calls, 2 throttled"
    )
    cells = record_cells(gateway.records()[2])
    assert cells[3][0] == "call"  # no RU column value pretending to be 0 RU
    assert cells[5][0] == "metrics"
