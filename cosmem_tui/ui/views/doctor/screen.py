"""The doctor view (``:doctor``, ``D``): what this account lets the console do, and the fixes.

One row per capability — its verdict (works, degraded, blocked, unknown), its name and
the one line of evidence that decides it — and, for the selected row, every check it
rests on: what was read, at what cost, what it found and the exact fix. Above the list:
the counts, what the check cost, and the notes (the demo says it is the demo). It runs
when first shown and again on ``r``; it is not live (each run reads metadata again).

Evidence quotes what services said (a 403's message names a principal and a resource),
which is data: every cell passes ``safe_cells``, the detail is plain ``Text``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from rich.text import Text
from textual.widgets import Static

from cosmem_tui.core import records
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.model import Meter
from cosmem_tui.model.doctor import CapabilityRow, CheckStatus, DoctorReport, Verdict
from cosmem_tui.ui.check_report import CheckReportScreen
from cosmem_tui.ui.shared_actions import view_bindings
from cosmem_tui.ui.view import VIEW_CSS
from cosmem_tui.ui.views.doctor.spec import SPEC
from cosmem_tui.ui.widgets.cells import safe_cells
from cosmem_tui.ui.widgets.row_list import Cell, Column, Tone

DOCTOR_COLUMNS = (
    Column("VERDICT", 9),
    Column("CAPABILITY", 31, drop_order=1),
    Column("EVIDENCE", min_width=20),
)
TONES: dict[Verdict, Tone] = {
    Verdict.WORKS: "good",
    Verdict.DEGRADED: "warn",
    Verdict.BLOCKED: "bad",
    Verdict.UNKNOWN: "dim",
}
# A check's status in a word and a mark (the word is there for a monochrome terminal).
MARKS = {
    CheckStatus.OK: "✓ ok",
    CheckStatus.MISSING: "✗ missing",
    CheckStatus.UNKNOWN: "? unknown",
    CheckStatus.NOTE: "· note",
}


def capability_title(row: CapabilityRow) -> str:
    """Its name, and whether the demo's simulator answers it or it is not built yet."""
    tags = [t for t, on_ in (("sim", row.simulated), ("next", row.upcoming)) if on_]
    return " · ".join((row.title, *tags))


class CapabilityRows:
    def __init__(self, rows: tuple[CapabilityRow, ...]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, index: int) -> list[Cell]:
        r = self.rows[index]
        return safe_cells(
            [
                (r.verdict.value, TONES[r.verdict]),
                (capability_title(r), "accent" if r.asked else ""),
                (r.evidence, "dim" if r.verdict is Verdict.WORKS else ""),
            ]
        )

    def search_text(self, index: int) -> str:
        r = self.rows[index]
        return " ".join((r.verdict.value, r.title, r.evidence, r.fix))


def summary_lines(report: DoctorReport, cost: Meter) -> list[str]:
    counts = ", ".join(f"{report.count(v)} {v.value}" for v in Verdict if report.count(v))
    sim = " sim" if cost.simulated else ""
    first = (
        f"{counts} · {one_line(report.label)} · this check: {cost.requests:,} requests, "
        f"{cost.request_units:,.1f} RU{sim}"
    )
    blocked = [r.title for r in report.blocked_asked()]
    second = (
        f"blocked, and this session asks for it: {', '.join(blocked)}"
        if blocked
        else "; ".join(report.notes) or "every capability this session asks for can run"
    )
    return [first, second]


def detail_text(row: CapabilityRow) -> Text:
    text = Text()
    asked = " · this session asks for it" if row.asked else ""
    text.append(f"{row.verdict.value} · {row.title}{asked}\n", style="bold")
    if row.fix:
        text.append("fix ", style="bold")
        text.append(one_line(row.fix) + "\n")
    for check in row.checks:
        text.append(f"{MARKS[check.status]} ", style="bold")
        text.append(f"{one_line(check.title)} ({check.need.value}): ")
        text.append(one_line(check.evidence))
        text.append(f" · {check.cost.describe()}\n", style="dim")
        if check.fix and check.fix != row.fix and check.status is not CheckStatus.OK:
            text.append("    fix ", style="bold")
            text.append(one_line(check.fix) + "\n")
    return text


class DoctorScreen(CheckReportScreen[DoctorReport, CapabilityRow]):
    VIEW = SPEC.name
    BINDINGS: ClassVar = view_bindings(SPEC)
    SUMMARY_ID, LIST_ID, DETAIL_ID = "doctor-summary", "capabilities", "capability"
    COLUMNS = DOCTOR_COLUMNS
    NOUN = "capabilities"
    LIST_TITLE = "capabilities, as this account lets the console use them"
    DETAIL_TITLE = "what it rests on"
    CHECKING = "checking what this account lets the console do…"
    RUNNING = "checking: the data plane, Azure Resource Manager, metrics and logs…"
    EMPTY = "no capability to report"
    SELECT = "select a capability to see what it rests on"
    CAUSE = "doctor: check the account"
    TABLE_NAME, TABLE_FIELDS = "doctor", records.DOCTOR_FIELDS  # as ``cosmem doctor --json``

    DEFAULT_CSS = (
        VIEW_CSS
        + """
    DoctorScreen { layout: vertical; }
    #doctor-summary { height: 2; padding: 0 1; color: $text-muted; text-wrap: nowrap;
                      text-overflow: ellipsis; }
    #capabilities { height: 1fr; max-height: 14; border: round $panel-lighten-2;
                    border-title-color: $text; border-subtitle-color: $text-muted; }
    #capabilities:focus { border: round $accent; }
    #capability { height: 1fr; min-height: 7; border: round $panel-lighten-2; padding: 0 1;
                  overflow-y: auto; }
    """
    )

    def compose_summary(self) -> Static:
        return Static(id=self.SUMMARY_ID)

    def show_summary(self, text: str) -> None:
        self.query_one(f"#{self.SUMMARY_ID}", Static).update(
            Text(text, no_wrap=True, overflow="ellipsis")
        )

    def check_for(self, session: Session) -> Callable[[], Awaitable[DoctorReport]] | str:
        doctor = session.doctor
        if doctor is None:
            return "no doctor for this session"
        demo = session.is_demo

        async def check() -> DoctorReport:
            return await doctor.run(demo=demo)

        return check

    def items_of(self, report: DoctorReport) -> tuple[CapabilityRow, ...]:
        return report.rows

    def rows_for(self, items: tuple[CapabilityRow, ...]) -> CapabilityRows:
        return CapabilityRows(items)

    def summary_lines(self, report: DoctorReport, cost: Meter) -> list[str]:
        return summary_lines(report, cost)

    def detail_text(self, item: CapabilityRow) -> Text:
        return detail_text(item)

    def record(self, item: CapabilityRow) -> dict[str, Any]:
        return records.doctor_record(item)

    def action_run_doctor(self) -> None:
        self.run_check()
