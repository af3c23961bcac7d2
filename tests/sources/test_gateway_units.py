"""Monitoring calls are in the ledger, but never in the RU total or the account's 429s."""

from __future__ import annotations

import pytest

from cosmem_tui.model import FrozenClock, Kind, RequestCharge, Scope, Silence
from cosmem_tui.sources.errors import BudgetSpent, ServerSilent
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.ui.views.requests.screen import LedgerSnapshot, record_cells, summary_lines


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
    ledger = RequestLedger(clock=FrozenClock(0.0), budget_ru=100.0)
    ledger.record(charge(200, ru=2.5))
    ledger.record(charge(429, ru=0.0))
    ledger.record(charge(200, unit="call", scope=Scope.METRICS))
    ledger.record(charge(529, unit="call", scope=Scope.METRICS))
    ledger.record(charge(429, unit="call", scope=Scope.LOGS))

    totals = ledger.totals()
    assert totals.requests == 5
    assert totals.request_units == 2.5 and ledger.spent_ru == 2.5
    assert totals.throttled == 1  # only the account's own 429
    assert (totals.monitor_calls, totals.monitor_throttled) == (3, 2)
    assert totals.by_scope[Scope.METRICS] == 2 and totals.by_scope[Scope.LOGS] == 1

    first = summary_lines(LedgerSnapshot(tuple(ledger.records()), totals))[0]
    assert first == (
        "5 requests · 2.5 RU of a 100 RU budget, 97.5 left · 1×429 to the console · "
        "3 monitor calls, 2 throttled"
    )
    cells = record_cells(ledger.records()[2])
    assert cells[3][0] == "call"  # no RU column value pretending to be 0 RU
    assert cells[5][0] == "metrics"


def query(
    ru: float, *, call: int = 0, status: int = 200, operation: str = "search-turns"
) -> RequestCharge:
    return RequestCharge(
        operation=operation,
        scope=Scope.PARTITION,
        request_units=ru,
        duration_ms=5.0,
        item_count=0,
        status=status,
        simulated=False,
        kind=Kind.QUERY,
        call=call,
    )


async def test_an_answer_that_passes_the_budget_it_was_admitted_under_is_an_overrun():
    ledger = RequestLedger(clock=FrozenClock(0.0), budget_ru=20.0)
    seen: list[RequestCharge] = []
    ledger.subscribe(seen.append)
    admission = await ledger.admit("search-turns", "thread t", background=False, call=7)
    assert admission.estimate_ru == 3.0  # nothing measured yet: the default guess
    ledger.record(query(12.0, call=7))  # within the budget: no overrun yet
    ledger.record(query(126.0, call=7))  # the same call's next response passes it
    ledger.settle(admission)
    assert [(r.over_budget, r.admitted_ru) for r in seen] == [(False, 3.0), (True, 3.0)]
    (overrun,) = ledger.overruns()
    assert (overrun.cost_ru, overrun.spent_ru, overrun.budget_ru) == (138.0, 138.0, 20.0)
    assert overrun.describe() == (
        "search-turns (thread t) was let through at about 3.0 RU and cost 138.0 RU: the "
        "session has spent 138.0 RU of its 20 RU budget"
    )
    assert ledger.totals().overruns == 1
    # Past the budget, what comes next is asked about (or refused), never let through.
    with pytest.raises(BudgetSpent):
        await ledger.admit("search-turns", "thread t", background=False)


async def test_without_a_budget_nothing_is_an_overrun():
    ledger = RequestLedger(clock=FrozenClock(0.0))
    await ledger.admit("search-turns", "thread t", background=False, call=1)
    ledger.record(query(5000.0, call=1))
    assert ledger.overruns() == [] and not ledger.records()[-1].over_budget


async def test_background_work_of_unknown_cost_waits_for_clear_room():
    ledger = RequestLedger(clock=FrozenClock(0.0), budget_ru=100.0)
    for _ in range(26):
        ledger.record(query(3.0, operation="list-keys"))
    ledger.record(query(2.0))  # search-turns is measured now; 20 RU are left
    with pytest.raises(BudgetSpent) as refused:
        await ledger.admit("count-tenant", "tenant a", background=True)
    assert "its cost is not known yet" in refused.value.message
    await ledger.admit("search-turns", "thread t", background=True)  # known: 2 RU fits
    await ledger.admit("count-tenant", "tenant a", background=False)  # the user asked


async def test_work_of_several_calls_needs_the_room_once():
    ledger = RequestLedger(clock=FrozenClock(0.0), budget_ru=100.0)
    for _ in range(35):
        ledger.record(query(2.0, operation="list-keys"))  # 30 RU left: clear room
    with ledger.room_for(["count-tenant", "count-tenant-threads"], "tenant a", background=True):
        await ledger.admit("count-tenant", "tenant a", background=True)
        ledger.record(query(12.0, operation="count-tenant"))  # 18 RU left now
        await ledger.admit("count-tenant-threads", "tenant a", background=True)
    with pytest.raises(BudgetSpent):  # on its own, an unknown kind waits for clear room
        await ledger.admit("count-tenant-last-write", "tenant a", background=True)


async def test_work_that_cannot_finish_is_refused_as_a_whole():
    ledger = RequestLedger(clock=FrozenClock(0.0), budget_ru=100.0)
    ledger.record(query(90.0))
    with (
        pytest.raises(BudgetSpent),
        ledger.room_for(["search-turns"] * 4, "tenant a", background=True),
    ):
        pass  # four calls of about 90 RU each could never fit in what is left


def test_estimates_scale_with_what_a_call_reads():
    ledger = RequestLedger(clock=FrozenClock(0.0), budget_ru=1000.0)
    ledger.record(query(2.5))  # the cheapest answered page: the floor
    assert ledger.estimate_ru("ttl-count", scanned=1000) == pytest.approx(2.5 + 40.0)
    ledger.learn_scan("ttl-count", 1000, 32.5)  # measured: 0.03 RU an item
    assert ledger.estimate_ru("ttl-count", scanned=3000) == pytest.approx(92.5)
    assert ledger.estimate_ru("search-turns", scanned=3000) == pytest.approx(92.5)


async def test_a_silent_account_gets_no_background_work_until_it_answers():
    ledger = RequestLedger(clock=FrozenClock(0.0), budget_ru=1000.0)
    heard: list[Silence] = []
    ledger.subscribe_silence(heard.append)
    ledger.note_silence("acct stopped answering (no answer to count-tenant within 30 s)")
    ledger.note_silence("acct stopped answering (no answer to list-keys within 30 s)")
    assert ledger.silent and ledger.totals().silent
    with pytest.raises(ServerSilent) as refused:
        await ledger.admit("count-tenant", "tenant a", background=True)
    assert refused.value.message == (
        "count-tenant (tenant a) not sent: acct stopped answering (no answer to count-tenant "
        "within 30 s); background work is stopped until the account answers a request again"
    )
    await ledger.admit("list-keys", "tenants", background=False)  # a user action tries
    ledger.record(query(0.0, status=0))  # no answer again: still silent
    assert ledger.silent
    ledger.record(query(2.5))
    assert not ledger.silent
    await ledger.admit("count-tenant", "tenant a", background=True)
    assert [h.silent for h in heard] == [True, False]  # said once, and once that it is over
