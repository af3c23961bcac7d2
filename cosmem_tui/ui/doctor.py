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

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import Static

from cosmem_tui.core import records
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.model import Meter
from cosmem_tui.model.doctor import CapabilityRow, CheckStatus, DoctorReport, Verdict
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.rows import safe_cells
from cosmem_tui.ui.table_export import ShownTable
from cosmem_tui.ui.view import VIEW_CSS, ViewScreen, view_bindings
from cosmem_tui.ui.widgets.row_list import Cell, Column, RowList, Tone

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


class DoctorScreen(ViewScreen):
    VIEW = "doctor"
    BINDINGS: ClassVar = view_bindings("doctor")

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

    def __init__(self) -> None:
        super().__init__()
        self.loader = Loader(self, "doctor")
        self.report: DoctorReport | None = None
        self.rows = CapabilityRows(())
        self._shown = False
        self._ran = False

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield Static(id="doctor-summary")
        yield RowList(
            DOCTOR_COLUMNS,
            id="capabilities",
            empty_text="checking what this account lets the console do…",
            noun="capabilities",
        )
        yield Static(id="capability")
        yield from self.compose_chrome_bottom()

    def on_mount(self) -> None:
        super().on_mount()
        rows = self.query_one("#capabilities", RowList)
        rows.set_title("capabilities, as this account lets the console use them")
        self.query_one("#capability", Static).border_title = plain("what it rests on")
        self.set_focus(rows)

    def session_ready(self, session: Session) -> None:
        if self._shown:
            self.run_check()

    def on_screen_resume(self) -> None:
        self._shown = True
        if not self._ran and self.session is not None:
            self.run_check()

    def on_screen_suspend(self) -> None:
        self._shown = False

    # -- running the doctor ------------------------------------------------------------------

    def run_check(self) -> None:
        session = self.session
        if session is None:
            return
        doctor = session.doctor
        if doctor is None:
            self.set_status("no doctor for this session", error=True)
            return
        self._ran = True
        self.loader.bump()
        self.set_status("checking: the data plane, Azure Resource Manager, metrics and logs…")
        demo = session.is_demo

        async def check() -> DoctorReport:
            return await doctor.run(demo=demo)

        self.loader.start(
            session,
            check,
            self._show,
            lambda error: self.set_status(error, error=True),
            cause="doctor: check the account",
        )

    def _show(self, report: DoctorReport, cost: Meter) -> None:
        self.report = report
        self.rows = CapabilityRows(report.rows)
        rows = self.query_one("#capabilities", RowList)
        rows.update_source(self.rows, empty_text="no capability to report")
        lines = summary_lines(report, cost)
        self.query_one("#doctor-summary", Static).update(
            Text("\n".join(one_line(line) for line in lines), no_wrap=True, overflow="ellipsis")
        )
        rows.border_subtitle = plain(f"{len(report.rows)} capabilities")
        self.set_status("")
        self._show_row(rows.current_index)

    @on(RowList.Highlighted, "#capabilities")
    def _highlighted(self, message: RowList.Highlighted) -> None:
        self._show_row(message.index)

    def _show_row(self, index: int | None) -> None:
        detail = self.query_one("#capability", Static)
        if index is None or index >= len(self.rows):
            detail.update(Text("select a capability to see what it rests on"))
            return
        detail.update(detail_text(self.rows.rows[index]))

    # -- actions ---------------------------------------------------------------------------

    def action_run_doctor(self) -> None:
        self.run_check()

    def shown_table(self) -> ShownTable | None:
        """The capabilities, as ``cosmem doctor --json`` writes them."""
        rows = self.rows.rows
        return ShownTable(
            "doctor",
            records.DOCTOR_FIELDS,
            self.query_one("#capabilities", RowList),
            lambda i, _fmt: records.doctor_record(rows[i]),
        )

    def refocus(self) -> None:
        self.set_focus(self.query_one("#capabilities", RowList))
