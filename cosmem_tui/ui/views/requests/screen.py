"""The request ledger view (``:requests``, ``R``): every request this session made, live.

For the on-call engineer: what did the console send, why (the view and action that
caused it), where (point / single-partition / prefix / cross-partition / metadata),
what came back (200, a 429 with its cause — ``429 RU`` an RU budget, ``429 meta`` the
metadata rate, ``429 svc`` a transient service error… —, cancelled, no answer), what
it cost, how long it took, and
the activity id to quote to support — newest first, filterable, with totals by scope
and by action and the budget left.

It is the first live view: the platform's refresh loop reads the ledger every few
seconds while the view is on screen (not while hidden, paused, or behind a modal).
Rows are keyed by the ledger's record number, so the cursor stays on its request as
new ones arrive, and an idle ledger redraws nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult

from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.model import RequestCharge, SessionTotals, sub_status_name, throttle_cause
from cosmem_tui.model.times import utc_text
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.refresh import RefreshLoop
from cosmem_tui.ui.shared_actions import view_bindings
from cosmem_tui.ui.table_export import ShownTable
from cosmem_tui.ui.view import VIEW_CSS, ViewScreen
from cosmem_tui.ui.views.requests.spec import SPEC
from cosmem_tui.ui.widgets.cells import safe_cells
from cosmem_tui.ui.widgets.hint_line import FittedLine
from cosmem_tui.ui.widgets.row_list import Cell, Column, RowList

SCOPE_SHORT = {
    "metadata": "metadata",
    "point": "point",
    "single-partition": "partition",
    "prefix": "prefix",
    "range": "range",
    "cross-partition": "fan-out",
    "metrics": "metrics",
    "logs": "logs",
}

# Narrow terminals drop the activity id first and the cause last: why a request was
# sent is what an on-call engineer reads the ledger for.
LEDGER_COLUMNS = (
    Column("#", 6, "right", drop_order=4),
    Column("TIME", 8),
    Column("STATUS", 10),
    Column("RU", 7, "right"),
    Column("MS", 6, "right", drop_order=3),
    Column("SCOPE", 9, drop_order=2),
    Column("OPERATION", 14),
    Column("CAUSE", 22, drop_order=1),
    Column("TARGET", min_width=12),
    Column("ACTIVITY", 8, drop_order=5),
)


LEDGER_TITLE = "requests, newest first"


def clock_of_day(epoch: float) -> str:
    return utc_text(epoch, "%H:%M:%S") if epoch else "—"


def status_text(record: RequestCharge) -> str:
    """``200``, ``429 RU`` / ``429 meta`` (a 429 by its cause), ``410/1002``, ``cancelled``."""
    if record.cancelled or not record.status:
        return record.outcome
    if record.status == 429:
        return f"429 {throttle_cause(record.sub_status).tag}".rstrip()
    if record.sub_status:
        return f"{record.status}/{record.sub_status}"
    return record.outcome


def status_cell(record: RequestCharge) -> Cell:
    text = status_text(record)
    if record.cancelled or not record.status:
        return text, "dim"
    if record.status == 429:
        return text, "bad"
    if record.status >= 400:
        return text, "warn"
    return text, ""


def _charge_cell(record: RequestCharge) -> Cell:
    if record.unit != "RU":  # a monitoring call: billed per call, no RU
        return record.unit, "dim"
    return f"{record.request_units:,.1f}", "dim" if record.simulated else ""


def record_cells(record: RequestCharge) -> list[Cell]:
    retry = f" (try {record.attempt})" if record.attempt > 1 else ""
    return safe_cells(
        [
            (f"{record.seq:,}", "dim"),
            (clock_of_day(record.at), "dim"),
            status_cell(record),
            _charge_cell(record),
            (f"{record.duration_ms:,.0f}", "dim"),
            (SCOPE_SHORT.get(record.scope.value, record.scope.value), "dim"),
            (record.operation + retry, ""),
            (record.cause or "—", "accent" if record.cause else "dim"),
            (record.target or "—", ""),
            ((record.activity_id or "—")[:8], "dim"),
        ]
    )


def throttled_text(totals: SessionTotals) -> str:
    """The console's own 429s by cause: ``3×429 to the console (2 RU budget exceeded,
    1 metadata requests throttled)`` — not the account's, which :throttle shows."""
    counts = totals.throttle_causes()
    named = [
        f"{n:,} {cause.label if cause.sub_status is not None else 'without a sub-status'}"
        for cause, n in counts
    ]
    said = any(cause.sub_status is not None for cause, _ in counts)
    return f"{totals.throttled:,}×429 to the console" + (f" ({', '.join(named)})" if said else "")


class LedgerRows:
    """The ledger newest first; rows are keyed by record number (``seq``)."""

    def __init__(self, records: Sequence[RequestCharge]) -> None:
        self.records = list(reversed(records))
        self._search: list[str | None] = [None] * len(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def row(self, index: int) -> list[Cell]:
        return record_cells(self.records[index])

    def search_text(self, index: int) -> str:
        """Every cell the row shows (its time, RU, latency, the 429's cause …), and what
        narrow columns hide: the scope's own name, the kind, the sub-status's name, the
        whole activity id."""
        found = self._search[index]
        if found is None:
            r = self.records[index]
            shown = " ".join(text for text, _tone in record_cells(r))
            why = throttle_cause(r.sub_status).label if r.status == 429 else ""
            found = " ".join(
                (shown, why, sub_status_name(r.status, r.sub_status), r.scope.value,
                 r.kind.value, r.cause, r.target, r.activity_id or "")
            )  # fmt: skip
            self._search[index] = found
        return found

    def index_of(self, seq: int) -> int | None:
        for index, record in enumerate(self.records):
            if record.seq == seq:
                return index
        return None

    @property
    def newest(self) -> int:
        return self.records[0].seq if self.records else 0


@dataclass(frozen=True)
class LedgerSnapshot:
    records: tuple[RequestCharge, ...]
    totals: SessionTotals


def summary_lines(snapshot: LedgerSnapshot, width_hint: int = 0) -> list[str]:
    """Totals: the session's, then by scope, then the costliest actions."""
    t = snapshot.totals
    unit = "RU sim" if t.simulated else "RU"
    budget = ""
    if t.budget_ru is not None:
        left = max(0.0, t.budget_ru - t.request_units)
        budget = f" of a {t.budget_ru:,.0f} RU budget, {left:,.1f} left"
    extra = []
    if t.throttled:
        extra.append(throttled_text(t))
    if t.cancelled:
        extra.append(f"{t.cancelled:,} cancelled")
    if t.monitor_calls:
        throttled = f", {t.monitor_throttled:,} throttled" if t.monitor_throttled else ""
        extra.append(f"{t.monitor_calls:,} monitor calls{throttled}")
    first = f"{t.requests:,} requests · {t.request_units:,.1f} {unit}{budget}"
    if extra:
        first += " · " + " · ".join(extra)
    by_scope: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    by_cause: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for r in snapshot.records:
        scope = by_scope[SCOPE_SHORT.get(r.scope.value, r.scope.value)]
        scope[0] += 1
        scope[1] += r.request_units
        cause = by_cause[r.cause or "(no action)"]
        cause[0] += 1
        cause[1] += r.request_units
    scopes = " · ".join(
        f"{name} {int(n):,} ({ru:,.1f})" for name, (n, ru) in sorted(by_scope.items())
    )
    top = sorted(by_cause.items(), key=lambda kv: -kv[1][1])[:4]
    causes = " · ".join(f"{name} {int(n):,} ({ru:,.1f})" for name, (n, ru) in top)
    shown = f" (last {len(snapshot.records):,})" if len(snapshot.records) < t.requests else ""
    return [
        first,
        f"by scope{shown}: {scopes or '—'}",
        f"by action{shown}: {causes or '—'}",
    ]


class RequestsScreen(ViewScreen):
    VIEW = SPEC.name
    BINDINGS: ClassVar = view_bindings(SPEC)

    DEFAULT_CSS = (
        VIEW_CSS
        + """
    RequestsScreen { layout: vertical; }
    #summary { height: 3; padding: 0 1; color: $text-muted; text-wrap: nowrap;
               text-overflow: ellipsis; }
    #ledger { height: 1fr; border: round $panel-lighten-2; border-title-color: $text;
              border-subtitle-color: $text-muted; }
    #ledger:focus { border: round $accent; }
    """
    )

    def __init__(self) -> None:
        super().__init__()
        self.loop: RefreshLoop[LedgerSnapshot] = RefreshLoop(
            self, self._fetch, self._show_snapshot, hold_off_s=self._hold_off, name="ledger"
        )
        self.rows = LedgerRows(())
        self._shown_newest = -1
        self._shown_budget: float | None = None
        self._subtitle = ""

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield FittedLine(id="summary")
        yield RowList(LEDGER_COLUMNS, id="ledger", empty_text="no requests yet", noun="requests")
        yield from self.compose_chrome_bottom()

    def on_mount(self) -> None:
        super().on_mount()
        ledger = self.query_one("#ledger", RowList)
        ledger.set_title(LEDGER_TITLE)
        self.set_focus(ledger)

    def session_ready(self, session: Session) -> None:
        if not self.loop.hidden:
            self.loop.refresh_now()

    # -- the refresh loop ------------------------------------------------------------------

    def on_screen_resume(self) -> None:
        self.loop.shown()

    def on_screen_suspend(self) -> None:
        self.loop.hidden_now()

    def _hold_off(self) -> float:
        return 0.0  # reading the ledger costs the account nothing: never held off

    async def _fetch(self) -> LedgerSnapshot:
        session = self.session
        if session is None:
            return LedgerSnapshot((), SessionTotals(0, 0.0, False, {}, 0))
        request_ledger = session.ledger
        return LedgerSnapshot(tuple(request_ledger.records()), request_ledger.totals())

    def _show_snapshot(self, snapshot: LedgerSnapshot) -> None:
        ledger = self.query_one("#ledger", RowList)
        newest = snapshot.records[-1].seq if snapshot.records else 0
        budget = snapshot.totals.budget_ru
        if newest == self._shown_newest and budget == self._shown_budget:
            self._show_loop_state()
            return  # nothing new: write nothing to the terminal
        self._shown_newest, self._shown_budget = newest, budget
        current = ledger.current_index
        keep = self.rows.records[current].seq if current is not None and self.rows.records else None
        self.rows = LedgerRows(snapshot.records)
        ledger.update_source(self.rows)
        # One count, in the title: "(25)", or "· 3 of 25" while a filter hides some.
        ledger.set_title(LEDGER_TITLE, f"{len(self.rows):,}")
        if keep is not None and (index := self.rows.index_of(keep)) is not None:
            ledger.select_index(index)
        lines = summary_lines(snapshot)
        self.query_one("#summary", FittedLine).show("\n".join(one_line(line) for line in lines))
        self._show_loop_state()

    def _show_loop_state(self) -> None:
        text = f"refresh {self.loop.describe()}"
        if text != self._subtitle:  # an unchanged title must not redraw the list
            self._subtitle = text
            self.query_one("#ledger", RowList).border_subtitle = plain(text)

    # -- actions ---------------------------------------------------------------------------

    def action_toggle_pause(self) -> None:
        paused = self.loop.toggle_pause()
        self._show_loop_state()
        self.set_status("paused: the list stays as it is (p resumes)" if paused else "")

    def action_refresh_now(self) -> None:
        self.loop.refresh_now()

    def refocus(self) -> None:
        self.set_focus(self.query_one("#ledger", RowList))

    def shown_table(self) -> ShownTable | None:
        """The ledger shown (newest first), each request as ``--ledger FILE`` writes it."""
        from cosmem_tui.core.ledger_file import FIELDS, ledger_record

        charges = self.rows.records
        return ShownTable(
            "requests",
            FIELDS,
            self.query_one("#ledger", RowList),
            lambda i, _fmt: ledger_record(charges[i]),
        )
