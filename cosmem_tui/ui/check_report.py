"""A view that runs one check and lists what it found, the selected row's detail below.

The advisor (``:advise``) and the doctor (``:doctor``) are this view: a summary line
pair, a list of rows (findings, capabilities), and a pane with the selected row's
evidence and fix. The check runs when the view is first shown with a session, again
on its ``r`` action, and never on its own (each run reads the account again, which
costs requests and RU). A subclass says what the check is, how a row reads and how a
row is written out; the running, the list and the pane are here, once.

Rows quote what the account holds or what services said, which is data: a subclass's
rows pass ``safe_cells`` and its detail is plain ``Text``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Generic, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.model import Meter
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.table_export import ShownTable
from cosmem_tui.ui.view import ViewScreen
from cosmem_tui.ui.widgets.hint_line import FittedLine
from cosmem_tui.ui.widgets.row_list import Column, RowList, RowSource

ReportT = TypeVar("ReportT")
ItemT = TypeVar("ItemT")


class CheckReportScreen(ViewScreen, Generic[ReportT, ItemT]):
    # The widgets' ids (the CSS and the tests name them) and the list's columns.
    SUMMARY_ID: ClassVar[str]
    LIST_ID: ClassVar[str]
    DETAIL_ID: ClassVar[str]
    COLUMNS: ClassVar[tuple[Column, ...]]
    NOUN: ClassVar[str]  # "findings": the list's count, the subtitle
    # What the list and the pane say before, during and after a run.
    LIST_TITLE: ClassVar[str]
    DETAIL_TITLE: ClassVar[str]
    CHECKING: ClassVar[str]  # the empty list while the first run is out
    RUNNING: ClassVar[str]  # the status line while a run is out
    EMPTY: ClassVar[str]  # the empty list after a run found nothing
    SELECT: ClassVar[str]  # the pane with no row selected
    CAUSE: ClassVar[str]  # the ledger's cause for the run's requests
    # How ``e`` / ``y`` write the rows: the file's stem and the records' keys.
    TABLE_NAME: ClassVar[str]
    TABLE_FIELDS: ClassVar[tuple[str, ...]]

    def __init__(self) -> None:
        super().__init__()
        self.loader = Loader(self, self.VIEW)
        self.report: ReportT | None = None
        self.items: tuple[ItemT, ...] = ()
        self.rows: RowSource = self.rows_for(())
        self._shown = False
        self._ran = False

    # -- what a subclass says ------------------------------------------------------------

    def check_for(self, session: Session) -> Callable[[], Awaitable[ReportT]] | str:
        """The run for this session, or why this session has none (an error status)."""
        raise NotImplementedError

    def items_of(self, report: ReportT) -> tuple[ItemT, ...]:
        raise NotImplementedError

    def rows_for(self, items: tuple[ItemT, ...]) -> RowSource:
        raise NotImplementedError

    def summary_lines(self, report: ReportT, cost: Meter) -> list[str]:
        raise NotImplementedError

    def detail_text(self, item: ItemT) -> Text:
        raise NotImplementedError

    def record(self, item: ItemT) -> dict[str, Any]:
        raise NotImplementedError

    def dress_panes(self) -> None:
        """Anything more the list or the pane say once mounted (a subtitle, say)."""

    def compose_summary(self) -> Static:
        """The two summary lines, fitted to the width by whole ``·`` parts."""
        return FittedLine(id=self.SUMMARY_ID)

    def show_summary(self, text: str) -> None:
        self.query_one(f"#{self.SUMMARY_ID}", FittedLine).show(text)

    # -- the view ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield self.compose_summary()
        yield RowList(self.COLUMNS, id=self.LIST_ID, empty_text=self.CHECKING, noun=self.NOUN)
        yield Static(id=self.DETAIL_ID)
        yield from self.compose_chrome_bottom()

    @property
    def row_list(self) -> RowList:
        return self.query_one(f"#{self.LIST_ID}", RowList)

    @property
    def detail(self) -> Static:
        return self.query_one(f"#{self.DETAIL_ID}", Static)

    def on_mount(self) -> None:
        # A subclass adds to this in ``dress_panes``, not by overriding it: Textual runs
        # every class's own ``on_mount`` as well as the ``super()`` chain, so an override
        # would run this twice.
        super().on_mount()
        self.row_list.set_title(self.LIST_TITLE)
        self.detail.border_title = plain(self.DETAIL_TITLE)
        self.dress_panes()
        self.set_focus(self.row_list)

    def session_ready(self, session: Session) -> None:
        if self._shown:
            self.run_check()

    def on_screen_resume(self) -> None:
        self._shown = True
        if not self._ran and self.session is not None:
            self.run_check()

    def on_screen_suspend(self) -> None:
        self._shown = False

    # -- running the check ---------------------------------------------------------------

    def run_check(self) -> None:
        session = self.session
        if session is None:
            return
        check = self.check_for(session)
        if isinstance(check, str):
            self.set_status(check, error=True)
            return
        self._ran = True
        self.loader.bump()
        self.set_status(self.RUNNING)
        self.loader.start(
            session,
            check,
            self._show,
            lambda error: self.set_status(error, error=True),
            cause=self.CAUSE,
        )

    def _show(self, report: ReportT, cost: Meter) -> None:
        self.report = report
        self.items = self.items_of(report)
        self.rows = self.rows_for(self.items)
        rows = self.row_list
        rows.update_source(self.rows, empty_text=self.EMPTY)
        lines = self.summary_lines(report, cost)
        self.show_summary("\n".join(one_line(line) for line in lines))
        rows.border_subtitle = plain(f"{len(self.items)} {self.NOUN}")
        self.set_status("")
        self._show_detail(rows.current_index)

    def on_row_list_highlighted(self, message: RowList.Highlighted) -> None:
        if message.row_list.id == self.LIST_ID:
            self._show_detail(message.index)

    def _show_detail(self, index: int | None) -> None:
        if index is None or index >= len(self.items):
            self.detail.update(Text(self.SELECT))
            return
        self.detail.update(self.detail_text(self.items[index]))

    # -- actions -------------------------------------------------------------------------

    def shown_table(self) -> ShownTable | None:
        items = self.items
        return ShownTable(
            self.TABLE_NAME,
            self.TABLE_FIELDS,
            self.row_list,
            lambda i, _fmt: self.record(items[i]),
        )

    def refocus(self) -> None:
        self.set_focus(self.row_list)
