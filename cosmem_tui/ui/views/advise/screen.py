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

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from rich.text import Text

from cosmem_tui.core import records
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.model import AdviceReport, Finding, Meter, Severity
from cosmem_tui.model.telemetry import HotKeysReport, Window
from cosmem_tui.ui.actions import show_key
from cosmem_tui.ui.check_report import CheckReportScreen
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.shared_actions import view_bindings
from cosmem_tui.ui.view import VIEW_CSS
from cosmem_tui.ui.views.advise.spec import SPEC
from cosmem_tui.ui.widgets.cells import safe_cells
from cosmem_tui.ui.widgets.row_list import Cell, Column, Tone

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


class AdviseScreen(CheckReportScreen[AdviceReport, Finding]):
    VIEW = SPEC.name
    BINDINGS: ClassVar = view_bindings(SPEC)
    SUMMARY_ID, LIST_ID, DETAIL_ID = "advice-summary", "findings", "finding"
    COLUMNS = FINDING_COLUMNS
    NOUN = "findings"
    LIST_TITLE = "findings, worst first"
    DETAIL_TITLE = "evidence and fix"
    CHECKING = "checking the container…"
    RUNNING = "checking the container: properties, a sample of item shapes, key counts…"
    EMPTY = "no findings: nothing to fix"
    SELECT = "select a finding to see its evidence and fix"
    CAUSE = "advise: check the container"
    TABLE_NAME, TABLE_FIELDS = "findings", records.ADVICE_FIELDS  # as ``cosmem advise`` writes

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

    def dress_panes(self) -> None:
        # The pane is cut on a small terminal: the row detail has the finding whole.
        key = show_key(self.cosmem.registry.first_key("list.detail"))
        self.detail.border_subtitle = plain(f"{key} shows it whole" if key else "")

    def check_for(self, session: Session) -> Callable[[], Awaitable[AdviceReport]] | str:
        advisor = session.advisor
        if advisor is None:
            return "no advisor for this session (no memory store)"

        async def check() -> AdviceReport:
            return await advisor.advise(load=await self._load(session))

        return check

    async def _load(self, session: Session) -> HotKeysReport | None:
        """With telemetry, RU per tenant feeds the hotspot rule; without, it is skipped."""
        if session.hot_keys is None:
            return None
        try:
            return await session.hot_keys.report(Window.M15)
        except Exception:  # telemetry is a bonus here: the rules run without it
            return None

    def items_of(self, report: AdviceReport) -> tuple[Finding, ...]:
        return report.findings

    def rows_for(self, items: tuple[Finding, ...]) -> FindingRows:
        return FindingRows(items)

    def summary_lines(self, report: AdviceReport, cost: Meter) -> list[str]:
        return summary_lines(report, cost)

    def detail_text(self, item: Finding) -> Text:
        return detail_text(item)

    def record(self, item: Finding) -> dict[str, Any]:
        return records.advice_record(item)

    def action_run_advisor(self) -> None:
        self.run_check()
