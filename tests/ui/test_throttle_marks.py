"""The console's own 429s on screen: each told by its cause, and said to be the console's.

The header's count and countdown and the request ledger are the 429s the account
answered this session; the throughput view's are the account's (Azure Monitor). The
cause comes from the answer's sub-status (``model.substatus``).
"""

from __future__ import annotations

from cosmem_tui.model import FrozenClock, Kind, RequestCharge, Scope, Throttling
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.ui.views.requests.screen import (
    LedgerRows,
    LedgerSnapshot,
    record_cells,
    summary_lines,
)
from cosmem_tui.ui.widgets.header import Chrome, header_parts, throttle_mark


def answer(status: int, sub_status: int | None = None) -> RequestCharge:
    return RequestCharge(
        operation="list-keys",
        scope=Scope.RANGE,
        request_units=0.0 if status == 429 else 2.0,
        duration_ms=3.0,
        item_count=0,
        status=status,
        simulated=False,
        kind=Kind.QUERY,
        sub_status=sub_status,
    )


def session(*answers: RequestCharge) -> RequestLedger:
    ledger = RequestLedger(clock=FrozenClock(0.0), budget_ru=100.0)
    for each in answers:
        ledger.record(each)
    return ledger


def test_the_countdown_names_the_cause_of_the_429_that_set_it():
    metadata = Throttling("list-keys", "tenants", 1, 600.0, 0.6, sub_status=3201)
    assert throttle_mark(0.6, metadata) == "429 metadata rate · holding off 0.6 s"
    budget = Throttling("list-keys", "tenants", 1, 600.0, 0.6, sub_status=3200)
    assert throttle_mark(1.25, budget) == "429 RU budget · holding off 1.2 s"
    assert throttle_mark(0.4, None) == "429 · holding off 0.4 s"  # no sub-status, as before
    odd = Throttling("list-keys", "tenants", 1, 5.0, 0.1, sub_status=3999)
    assert throttle_mark(0.1, odd) == "429 sub-status 3999 · holding off 0.1 s"
    assert throttle_mark(0.0, budget) == ""  # over: no mark


def test_the_ledger_keeps_the_last_throttle_with_its_cause():
    ledger = RequestLedger(clock=FrozenClock(0.0))
    seen: list[Throttling] = []
    ledger.subscribe_throttle(seen.append)
    ledger.note_throttle("list-keys", "tenants", 1, 5.0, sub_status=3092)
    assert ledger.last_throttle() == seen[0]
    assert seen[0].cause.label == "transient service error"
    assert seen[0].describe() == "429 transient service error on list-keys: holding off 5 ms"


def test_the_header_says_the_429s_are_the_consoles():
    ledger = session(answer(429, 3200), answer(429, 3201), answer(200))
    parts = header_parts(Chrome(source="cosmos", totals=ledger.totals()))
    assert [p.text for p in parts if p.name == "throttled"] == ["2×429 to cosmem"]


def test_the_ledger_shows_each_429_by_its_cause_and_counts_them_apart():
    ledger = session(
        answer(429, 3200), answer(429, 3201), answer(429, 3201), answer(429, 3214),
        answer(429), answer(410, 1002), answer(200),
    )  # fmt: skip
    rows = LedgerRows(ledger.records())
    statuses = [record_cells(r)[2][0] for r in ledger.records()]
    assert statuses == ["429 RU", "429 meta", "429 meta", "429 hotkey", "429", "410/1002", "200"]
    assert all(len(s) <= 10 for s in statuses)  # the STATUS column
    first = summary_lines(LedgerSnapshot(tuple(ledger.records()), ledger.totals()))[0]
    assert "5×429 to the console (2 metadata requests throttled, 1 RU budget exceeded, " in first
    assert "1 hot partition key, 1 without a sub-status)" in first
    # `/` finds a request by its cause's words and by the SDKs' name for it.
    meta = rows.index_of(2)
    assert meta is not None
    assert "metadata requests throttled" in rows.search_text(meta)
    assert "GatewayThrottled" in rows.search_text(meta)
    gone = rows.index_of(6)
    assert gone is not None and "PartitionKeyRangeGone" in rows.search_text(gone)
