"""The container advisor view (``:advise``, ``A``): what is wrong with this container's design.

One finding per row — severity, the seed rule it comes from, what is wrong — and, for
the selected one, the evidence (counts, shares, example ids) and the fix. Above the
list: what the advisor read to say so (how many item shapes, what they cost, how many
keys were counted) and what it could not check. It runs when first shown and again
on ``r``; it is not live (each run reads a new sample, which costs RU).

Findings quote item ids and key values, which are data: every cell passes
``safe_cells`` and the detail is plain ``Text`` of escaped lines.
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
from cosmem_tui.model import AdviceReport, Finding, Meter, Severity
from cosmem_tui.model.telemetry import HotKeysReport, Window
from cosmem_tui.ui.actions import show_key
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.rows import safe_cells
from cosmem_tui.ui.table_export import ShownTable
from cosmem_tui.ui.view import VIEW_CSS, ViewScreen, view_bindings
from cosmem_tui.ui.widgets.hint_line import FittedLine
from cosmem_tui.ui.widgets.row_list import Cell, Column, RowList, Tone

FINDING_COLUMNS = (
    Column("SEV", 5),
    Column("RULE", 26, drop_order=1),
    Column("FINDING", min_width=20),
    Column("COUNT", 7, "right", drop_order=2),
)
TONES: dict[Severity, Tone] = {Severity.HIGH: "bad", Severity.WARN: "warn", Severity.INFO: "dim"}


class FindingRows:
    def __init__(self, findings: tuple[Finding, ...]) -> None:
        self.findings = findings

    def __len__(self) -> int:
        return len(self.findings)

    def row(self, index: int) -> list[Cell]:
        f = self.findings[index]
        count = f"{f.count:,}" if f.count is not None else "—"
        return safe_cells(
            [
                (f.severity.value, TONES[f.severity]),
                (f.rule, "accent"),
                (f.title, ""),
                (count, "dim"),
            ]
        )

    def search_text(self, index: int) -> str:
        f = self.findings[index]
        return " ".join((f.severity.value, f.rule, f.title, f.evidence, f.fix))


def summary_lines(report: AdviceReport, cost: Meter) -> list[str]:
    counts = ", ".join(
        f"{len(report.by_severity(s))} {s.value}" for s in Severity if report.by_severity(s)
    )
    sim = " sim" if cost.simulated else ""
    keys = (
        f" · {report.keys_listed:,} keys listed, {report.keys_counted:,} counted"
        if report.keys_listed is not None
        else ""
    )
    first = (
        f"{len(report.findings)} findings ({counts or 'none'}) · {report.sampled:,} item shapes "
        f"sampled{keys} · this check: {cost.requests:,} requests, {cost.request_units:,.1f} RU{sim}"
    )
    return [first, "; ".join(report.notes) or "every rule had what it needs"]


def detail_text(finding: Finding) -> Text:
    text = Text()
    text.append(f"{finding.severity.value} · {finding.rule}\n", style="bold")
    text.append(one_line(finding.title) + "\n")
    text.append("evidence ", style="bold")
    text.append(one_line(finding.evidence) + "\n")
    text.append("fix ", style="bold")
    text.append(one_line(finding.fix))
    if finding.examples:
        text.append("\nexamples ", style="bold")
        text.append(", ".join(one_line(e, 40) for e in finding.examples))
    return text


class AdviseScreen(ViewScreen):
    VIEW = "advise"
    BINDINGS: ClassVar = view_bindings("advise")

    DEFAULT_CSS = (
        VIEW_CSS
        + """
    AdviseScreen { layout: vertical; }
    #advice-summary { height: 2; padding: 0 1; color: $text-muted; text-wrap: nowrap;
                      text-overflow: ellipsis; }
    #findings { height: 1fr; border: round $panel-lighten-2; border-title-color: $text;
                border-subtitle-color: $text-muted; }
    #findings:focus { border: round $accent; }
    #finding { height: 9; border: round $panel-lighten-2; padding: 0 1; overflow-y: auto; }
    """
    )

    def __init__(self) -> None:
        super().__init__()
        self.loader = Loader(self, "advise")
        self.report: AdviceReport | None = None
        self.rows = FindingRows(())
        self._shown = False
        self._ran = False

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield FittedLine(id="advice-summary")
        yield RowList(
            FINDING_COLUMNS, id="findings", empty_text="checking the container…", noun="findings"
        )
        yield Static(id="finding")
        yield from self.compose_chrome_bottom()

    def on_mount(self) -> None:
        super().on_mount()
        findings = self.query_one("#findings", RowList)
        findings.set_title("findings, worst first")
        finding = self.query_one("#finding", Static)
        finding.border_title = plain("evidence and fix")
        # The pane is cut on a small terminal: the row detail has the finding whole.
        key = show_key(self.cosmem.registry.first_key("list.detail"))
        finding.border_subtitle = plain(f"{key} shows it whole" if key else "")
        self.set_focus(findings)

    def session_ready(self, session: Session) -> None:
        if self._shown:
            self.run_check()

    def on_screen_resume(self) -> None:
        self._shown = True
        if not self._ran and self.session is not None:
            self.run_check()

    def on_screen_suspend(self) -> None:
        self._shown = False

    # -- running the advisor ----------------------------------------------------------------

    def run_check(self) -> None:
        session = self.session
        if session is None:
            return
        advisor = session.advisor
        if advisor is None:
            self.set_status("no advisor for this session (no memory store)", error=True)
            return
        self._ran = True
        self.loader.bump()
        self.set_status("checking the container: properties, a sample of item shapes, key counts…")

        async def check() -> AdviceReport:
            return await advisor.advise(load=await self._load(session))

        self.loader.start(
            session,
            check,
            self._show,
            lambda error: self.set_status(error, error=True),
            cause="advise: check the container",
        )

    async def _load(self, session: Session) -> HotKeysReport | None:
        """With telemetry, RU per tenant feeds the hotspot rule; without, it is skipped."""
        if session.hot_keys is None:
            return None
        try:
            return await session.hot_keys.report(Window.M15)
        except Exception:  # telemetry is a bonus here: the rules run without it
            return None

    def _show(self, report: AdviceReport, cost: Meter) -> None:
        self.report = report
        self.rows = FindingRows(report.findings)
        findings = self.query_one("#findings", RowList)
        findings.update_source(self.rows, empty_text="no findings: nothing to fix")
        lines = summary_lines(report, cost)
        self.query_one("#advice-summary", FittedLine).show(
            "\n".join(one_line(line) for line in lines)
        )
        findings.border_subtitle = plain(f"{len(report.findings)} findings")
        self.set_status("")
        self._show_finding(findings.current_index)

    @on(RowList.Highlighted, "#findings")
    def _highlighted(self, message: RowList.Highlighted) -> None:
        self._show_finding(message.index)

    def _show_finding(self, index: int | None) -> None:
        detail = self.query_one("#finding", Static)
        if index is None or index >= len(self.rows):
            detail.update(Text("select a finding to see its evidence and fix"))
            return
        detail.update(detail_text(self.rows.findings[index]))

    # -- actions ---------------------------------------------------------------------------

    def action_run_advisor(self) -> None:
        self.run_check()

    def shown_table(self) -> ShownTable | None:
        """The findings, as ``cosmem advise`` writes them."""
        findings = self.rows.findings
        return ShownTable(
            "findings",
            records.ADVICE_FIELDS,
            self.query_one("#findings", RowList),
            lambda i, _fmt: records.advice_record(findings[i]),
        )

    def refocus(self) -> None:
        self.set_focus(self.query_one("#findings", RowList))
