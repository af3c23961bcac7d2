"""The lifecycle view (``:ttl``, ``L``): what expires, when, and why.

For support staff asked "why did the agent forget?": the container's TTL mode in
words, the items of a tenant or thread by TTL class, how many expire within the hour,
day, week and month, the soonest to expire, the long-term records, the threads idle
past the episode gap and the items whose lifetime is not the one their kind should
have. It follows what browse has selected (the open thread, else the open or
highlighted tenant) or what ``:ttl TENANT [THREAD]`` names; ``enter`` opens the row
in browse. The whole container is a fan-out over every physical partition: it is
counted only on ``f``, after the question that says what it costs. A report counted
in the last few minutes is shown again rather than counted again (the subtitle says
how old it is); ``r`` counts afresh.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult

from cosmem_tui.core import records
from cosmem_tui.core.lifecycle import LifecycleReport, LifecycleService
from cosmem_tui.core.session import Session
from cosmem_tui.core.table_export import ExportTable
from cosmem_tui.core.text import one_line
from cosmem_tui.model import Meter
from cosmem_tui.model.lifecycle import DEFAULT_IDLE_GAP_S, TtlScope
from cosmem_tui.model.times import utc_text
from cosmem_tui.model.ttl import format_duration
from cosmem_tui.ui.commands import Mistake
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import cost_text, plain
from cosmem_tui.ui.scope_names import resolve_scope_names
from cosmem_tui.ui.shared_actions import view_bindings
from cosmem_tui.ui.table_export import ShownTable
from cosmem_tui.ui.view import VIEW_CSS, ViewScreen
from cosmem_tui.ui.views.lifecycle.commands import SetIdleGap
from cosmem_tui.ui.views.lifecycle.rows import (
    LIFECYCLE_COLUMNS,
    LIFECYCLE_FIELDS,
    LifecycleRows,
    empty_text,
    entries,
    summary_lines,
)
from cosmem_tui.ui.views.lifecycle.spec import SPEC
from cosmem_tui.ui.widgets.hint_line import FittedLine
from cosmem_tui.ui.widgets.row_list import RowList


class LifecycleScreen(ViewScreen):
    VIEW = SPEC.name
    BINDINGS: ClassVar = view_bindings(SPEC)

    DEFAULT_CSS = (
        VIEW_CSS
        + """
    LifecycleScreen { layout: vertical; }
    #ttl-summary { height: 3; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    #ttl-list { height: 1fr; border: round $panel-lighten-2; border-title-color: $text;
                border-subtitle-color: $text-muted; }
    #ttl-list:focus { border: round $accent; }
    """
    )

    def __init__(self) -> None:
        super().__init__()
        self.loader = Loader(self, "lifecycle")
        self.idle_gap_s = DEFAULT_IDLE_GAP_S
        self.scope: TtlScope | None = None
        self.report: LifecycleReport | None = None
        self.rows = LifecycleRows([])
        self._followed: TtlScope | None = None  # browse's selection when last followed
        self._pinned = False  # showing what :ttl named, not what browse has selected
        self._named: tuple[str, ...] | None = None  # a :ttl argument waiting for the session

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield FittedLine(id="ttl-summary")
        yield RowList(LIFECYCLE_COLUMNS, id="ttl-list", empty_text="counting…")
        yield from self.compose_chrome_bottom()

    def on_mount(self) -> None:
        super().on_mount()
        self.set_focus(self.query_one("#ttl-list", RowList))

    @property
    def service(self) -> LifecycleService:
        assert self.session is not None
        service = self.session.lifecycle  # one per session: it keeps reports
        service.idle_gap_s = self.idle_gap_s
        return service

    # -- what to show -----------------------------------------------------------------------

    def session_ready(self, session: Session) -> None:
        if self._named is not None:
            named, self._named = self._named, None
            self.open_with(named)
        elif self.is_current:
            self.follow_browse(force=True)

    def on_screen_resume(self) -> None:
        self.follow_browse()

    def follow_browse(self, *, force: bool = False) -> None:
        """Show what browse has selected, unless it has not changed since last followed
        (a ``:ttl`` argument then stays)."""
        if self.session is None:
            return
        selected = self.cosmem.browse_selection()
        if force or selected != self._followed or self.scope is None:
            self._followed = selected
            self._pinned = False
            self.show(selected)

    def open_with(self, args: tuple[str, ...]) -> None:
        """``:ttl [TENANT [THREAD]]``: the names, read as browse reads them."""
        if self.session is None:
            self._named = args
            return
        if not args:
            self.follow_browse(force=self._pinned)  # :ttl alone: back to browse's selection
            return
        self._followed = self.cosmem.browse_selection()  # browse moving on follows again
        self._pinned = True
        generation = self.loader.bump()
        resolve_scope_names(
            self,
            self.service,
            args,
            group="ttl-resolve",
            found=lambda scope: self._named_found(generation, scope),
            failed=lambda error: self._named_failed(generation, error),
        )

    def _named_found(self, generation: int, scope: TtlScope) -> None:
        if generation == self.loader.generation:
            self.show(scope)

    def _named_failed(self, generation: int, error: str) -> None:
        if generation == self.loader.generation:
            self.set_status(error, error=True)

    def show(self, scope: TtlScope, *, container: bool = False, fresh: bool = False) -> None:
        """Count ``scope`` (the whole container only with ``container``: asked first),
        or show its report counted within the last few minutes, unless ``fresh``."""
        if self.session is None:
            return
        self.scope = scope
        service = self.service
        self.loader.bump()
        listing = self.query_one("#ttl-list", RowList)
        label = self.session.schema.tenant_label
        listing.set_title(f"lifecycle of {scope.describe(label)}")
        listing.border_subtitle = plain("counting…")
        listing.clear_message()
        self._summary([f"{scope.describe(label)} · counting…"])

        async def fetch() -> LifecycleReport | None:
            if container:
                kept = None if fresh else service.reusable(scope, lists=False)
                if kept is not None:
                    return kept  # counted a moment ago: no question, no request
                if not await service.ask_container():
                    return None
                return await service.container_report()
            return await service.report(scope, fresh=fresh)

        cause = "lifecycle: the whole container" if container else "lifecycle: count"
        self.loader.start(self.session, fetch, self._loaded, self._failed, cause=cause)

    def _loaded(self, report: LifecycleReport | None, cost: Meter) -> None:
        assert self.session is not None
        listing = self.query_one("#ttl-list", RowList)
        if report is None:  # the question was answered no: nothing was sent
            listing.border_subtitle = plain("not counted")
            self.set_status("the whole container was not counted (nothing sent)")
            if self.report is not None:
                self._show_report(self.report)
            return
        self.report = report
        self._show_report(report)
        stamp = utc_text(report.now, "%H:%M:%S UTC")
        if report.reused:  # nothing was sent: say how old the counts are
            age = format_duration(report.age_s(self.session.clock.now()))
            listing.border_subtitle = plain(f"as of {stamp} · reused, {age} old · r counts again")
        else:
            listing.border_subtitle = plain(f"as of {stamp} · {cost_text(cost)}")
        self.set_status("")

    def _show_report(self, report: LifecycleReport) -> None:
        assert self.session is not None
        listing = self.query_one("#ttl-list", RowList)
        current = listing.current_index
        keep = self.rows.entries[current].key if current is not None and self.rows.entries else None
        self.rows = LifecycleRows(entries(report, self.session.clock.now()))
        listing.set_source(self.rows, empty_text=empty_text(report))
        if keep is not None and (index := self.rows.index_of(keep)) is not None:
            listing.select_index(index)
        self._summary(summary_lines(report, self.session.schema.tenant_label))

    def _failed(self, error: str) -> None:
        listing = self.query_one("#ttl-list", RowList)
        listing.border_subtitle = plain("failed")
        if self.report is None or self.report.scope != self.scope:
            listing.set_source(LifecycleRows([]))
            listing.show_message(f"counting failed: {error}\n\nr retries")
        self.set_status(f"{error} · r retries", error=True)

    def _summary(self, lines: list[str]) -> None:
        self.query_one("#ttl-summary", FittedLine).show("\n".join(one_line(line) for line in lines))

    # -- actions ---------------------------------------------------------------------------

    def action_reload(self) -> None:
        if self.scope is not None:
            container = self.report is not None and self._container_counted()
            self.show(self.scope, container=container, fresh=True)

    def _container_counted(self) -> bool:
        report = self.report
        return (
            report is not None
            and report.summary is not None
            and report.scope == TtlScope.container()
            and self.scope == TtlScope.container()
        )

    def action_forecast_container(self) -> None:
        self._pinned = True
        self.show(TtlScope.container(), container=True)

    def action_open_in_browse(self) -> None:
        listing = self.query_one("#ttl-list", RowList)
        index = listing.current_index
        if index is None or index >= len(self.rows.entries):
            return
        entry = self.rows.entries[index]
        if entry.ref is None:
            return  # a section header, or an item without an addressable thread
        self.cosmem.show_in_browse(entry.ref, entry.item_id)

    def action_idle_gap_prompt(self) -> None:
        self.open_command_bar()

    def run_view_command(self, line: str) -> None:
        match self.cosmem.registry.parse(line, self.VIEW):
            case SetIdleGap(seconds):
                self.idle_gap_s = seconds
                self.set_status(f"idle gap {self.idle_gap_s:,} s")
                if self.scope is not None:
                    self.show(self.scope)
            case Mistake(message):
                self.set_status(message, error=True)
            case _:
                pass

    def refocus(self) -> None:
        self.set_focus(self.query_one("#ttl-list", RowList))

    def export_table(self) -> tuple[ExportTable, str] | None:
        """The TTL classes and forecast of the scope, as ``cosmem ttl`` writes them."""
        summary = self.report.summary if self.report is not None else None
        if summary is None:
            return None
        table = ExportTable(
            "ttl",
            records.TTL_FIELDS,
            lambda fmt: records.ttl_records(summary, typed=fmt == "json"),
        )
        return table, ""

    def shown_table(self) -> ShownTable | None:
        """The rows shown (``y`` copies one, ``v`` shows one): each item or idle thread
        with every field; section headers are no rows of it."""
        rows = self.rows
        return ShownTable(
            "lifecycle",
            LIFECYCLE_FIELDS,
            self.query_one("#ttl-list", RowList),
            lambda i, fmt: rows.record(i, fmt),
        )
