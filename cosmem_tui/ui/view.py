"""What every view shares: the app's header, a status line, the hints, the ``:`` / ``/`` bar.

A view subclasses ``ViewScreen``, names itself (``VIEW``, its ``ViewSpec``'s name),
composes its body between the header and the status line, and reacts to the session
through ``session_ready``. Its key bindings come from its ``ViewSpec``
(``view_bindings`` in ``ui/shared_actions.py`` builds ``BINDINGS``), its footer hints
from the registry, and the command bar hands typed commands to the app, which parses
them against the same registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen

from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.ui.commands import Mistake
from cosmem_tui.ui.host import Host
from cosmem_tui.ui.widgets.command_bar import CommandBar
from cosmem_tui.ui.widgets.header import SessionHeader
from cosmem_tui.ui.widgets.hint_line import FittedLine, HintLine
from cosmem_tui.ui.widgets.row_list import RowList

if TYPE_CHECKING:  # export and copy load on their first use (e, y)
    from cosmem_tui.core.table_export import ExportTable
    from cosmem_tui.ui.table_export import ShownTable

VIEW_CSS = """
#status { height: 1; padding: 0 1; color: $text-muted; }
#status.error { color: $error; text-style: bold; }
#hints { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
"""


# Notices stack up from above the status line and the hints, never over them (the newest
# lowest, always in view; old ones leave at the top, and each expires). The app's CSS,
# not a view's DEFAULT_CSS (the rack's own default would win) nor a screen's CSS (each
# screen's CSS is a new stylesheet source: Textual re-parses every source when one joins).
APP_CSS = "ViewScreen > ToastRack { margin-bottom: 2; }"


NO_FIELDS = "no fields on this row: a title or a marker, or not loaded yet"
RUN_WHILE_TYPING = frozenset({"toggle_pause", "refresh_now"})  # see check_action


class ViewScreen(Screen[None]):
    VIEW: ClassVar[str] = ""

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        self._pending_status: tuple[str, bool] | None = None
        self._said: str | None = None  # an app line that outlives one clear (``say``)
        self._filter_target: RowList | None = None

    @property
    def cosmem(self) -> Host:
        """The app, as much of it as a view uses (see ``ui/host.py``)."""
        return cast(Host, self.app)

    # -- composition ----------------------------------------------------------------------

    def compose_chrome_top(self) -> ComposeResult:
        yield SessionHeader(id="header")

    def compose_chrome_bottom(self) -> ComposeResult:
        yield FittedLine(id="status")
        yield HintLine(id="hints")

    def on_mount(self) -> None:
        self.show_hints()
        if self._pending_status is not None:
            self.set_status(*self._pending_status)
        self.watch(self.app, "session", self._session_changed, init=True)

    def _session_changed(self, session: Session | None) -> None:
        if session is not None and session is not self.session:
            self.session = session
            self.session_ready(session)

    def session_ready(self, session: Session) -> None:
        """The session is open (called once per session, on the main thread)."""

    def mount_bar(self) -> None:
        if not self.query(CommandBar):
            self.mount(CommandBar(id="bar"))

    # -- the status line and the hints -----------------------------------------------------

    def show_hints(self) -> None:
        """The footer: the hints of the actions that do something here, now (again after
        whatever changes that: a level opened, a filter set or cleared)."""
        hints = self.query("#hints")
        if hints:
            parts = self.cosmem.registry.hint_parts(self.VIEW, self.hint_applies)
            hints.first(HintLine).show(parts)

    def hint_applies(self, action_id: str) -> bool:
        """Does the action do something in the view as it is now? (Its footer hint is
        shown only then; the help lists every action of the view.)"""
        if action_id == "list.back":
            return self.narrowed() or self.can_go_back()
        if action_id == "list.filter":
            return isinstance(self.focused, RowList)  # not in a turn's detail
        return True

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.show_hints()  # what the keys act on follows the focus

    def say(self, message: str) -> None:
        """A line the app must get read (an overrun, a silent account): shown now, and
        again in place of the one clear that follows (a list that finished loading
        clears the line, and may do so just after)."""
        self._said = message
        self.set_status(message, error=True)

    def set_status(self, message: str, error: bool = False) -> None:
        if not message and self._said:
            message, error, self._said = self._said, True, None
        statuses = self.query("#status")
        if not statuses:  # e.g. first-run progress posted before the view is composed
            self._pending_status = (message, error)
            return
        self._pending_status = None
        status = statuses.first(FittedLine)
        status.set_class(error, "error")
        status.show(one_line(message))  # whole parts that fit: never a word cut in half

    # -- the command / filter bar ----------------------------------------------------------

    @property
    def bar_is_open(self) -> bool:
        bars = self.query(CommandBar)
        return bool(bars) and bars.first().is_open

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Textual asks this before it runs an action bound here (a key, a palette pick):
        while the command bar is open, the keys it does not take itself (↓, PgDn…) step
        aside to it instead of moving or changing the view under it. The live loop's
        pause and refresh still run: it goes on while a command is typed."""
        return not self.bar_is_open or action in RUN_WHILE_TYPING

    def action_filter(self) -> None:
        focused = self.focused
        if isinstance(focused, RowList):
            self.mount_bar()
            self._filter_target = focused
            self.query_one(CommandBar).open("filter", focused.filter_text)
            self.refresh_bindings()  # the keys step aside now (check_action)

    def open_command_bar(self, typed: str = "") -> None:
        """``:``, with ``typed`` already written after it (a command's verb)."""
        self.mount_bar()
        self._filter_target = None
        self.query_one(CommandBar).open("command", typed)
        self.refresh_bindings()

    def bar_key(self, event: events.Key) -> bool:
        """Handle a key while the bar is open, synchronously (called from the app's key loop)."""
        bar = self.query_one(CommandBar)
        if event.key in ("enter", "escape"):
            self.close_bar(submitted=event.key == "enter")
            return True
        if not bar.edit(event):
            return False
        if bar.mode == "filter" and self._filter_target is not None:
            self._filter_target.set_filter(bar.value)
            self.show_filter_status(self._filter_target)
        return True

    def close_bar(self, *, submitted: bool) -> None:
        bar = self.query_one(CommandBar)
        bar.close()
        self.refresh_bindings()
        if bar.mode == "filter" and self._filter_target is not None:
            if not submitted:
                self._filter_target.set_filter("")
            self.show_filter_status(self._filter_target)
        self.refocus()  # focus goes back to the list, synchronously
        self.show_hints()  # what Esc does now depends on the filter (and the focus)
        if bar.mode == "command" and submitted:
            self.cosmem.run_command(bar.value)

    def refocus(self) -> None:
        """Give focus back to the view's main widget after the bar closes."""

    def show_filter_status(self, target: RowList) -> None:
        if not target.filter_text:
            self.set_status("")
            return
        if target.row_count == 0:
            self.set_status(target.empty_line())
            return
        self.set_status(
            f"filter /{one_line(target.filter_text)}: {target.row_count:,} rows"
            f"{self.filter_note(target)} · Esc clears"
        )

    def filter_note(self, target: RowList) -> str:
        return ""

    # -- back: one behaviour for every list (Esc, h, ←) -------------------------------------

    def action_back(self) -> None:
        """Esc: first clear what narrows the focused list (the ``/`` filter, then a view's
        own narrowing), then go up a level where the view has levels."""
        if self.clear_narrowing():
            self.show_hints()
            return
        self.go_back()
        self.show_hints()

    def narrowed(self) -> bool:
        """Is the focused list narrowed by something Esc clears?"""
        focused = self.focused
        return isinstance(focused, RowList) and bool(focused.filter_text)

    def clear_narrowing(self) -> bool:
        """Clear the focused list's filter (views add their own narrowing); False: none."""
        focused = self.focused
        if isinstance(focused, RowList) and focused.filter_text:
            focused.set_filter("")
            self.show_filter_status(focused)
            return True
        return False

    def can_go_back(self) -> bool:
        """Is there a level above this one (browse: the parent list)?"""
        return False

    def go_back(self) -> None:
        """Up a level (nothing to clear any more); a view without levels stays."""

    # -- moving in the focused list (the registry binds these keys for list views) ----------

    def move(self, action: str) -> None:
        focused = self.focused
        if isinstance(focused, RowList):
            getattr(focused, f"action_{action}")()

    def action_cursor_down(self) -> None:
        self.move("cursor_down")

    def action_cursor_up(self) -> None:
        self.move("cursor_up")

    def action_page_down(self) -> None:
        self.move("page_down")

    def action_page_up(self) -> None:
        self.move("page_up")

    def action_first(self) -> None:
        self.move("first")

    def action_last(self) -> None:
        self.move("last")

    # -- export and copy (``e`` / ``y``, ui/table_export.py) ----------------------------------

    def shown_table(self) -> ShownTable | None:
        """The table ``e`` exports and ``y`` copies a row of (None: the view shows none)."""
        return None

    def export_table(self) -> tuple[ExportTable, str] | None:
        """What ``e`` writes: the table, and a note when it is not whole."""
        from cosmem_tui.core.table_export import ExportTable

        shown = self.shown_table()
        if shown is None:
            return None
        return ExportTable(shown.name, shown.fields, shown.records), shown.partial

    def action_export_table(self) -> None:
        found = self.export_table() if self.session is not None else None
        if found is None or self.session is None:
            self.set_status("nothing to export here: no table in this view", error=True)
            return
        table, partial = found
        from cosmem_tui.ui.table_export import export_shown

        export_shown(self, table, partial, self.session.clock.now())

    def action_copy_row(self) -> None:
        shown = self.shown_table()
        if shown is None or shown.rows.current_index is None:
            self.set_status("nothing to copy: no row selected", error=True)
            return
        record = shown.current()
        if record is None:
            self.set_status(f"nothing to copy: {NO_FIELDS}", error=True)
            return
        from cosmem_tui.ui.table_export import copy_json

        copy_json(self, f"the {shown.name} row", record)

    def action_row_detail(self) -> None:
        """``v``: every field of the selected row (its record), scrollable, at any size."""
        shown = self.shown_table()
        index = shown.rows.current_index if shown is not None else None
        if shown is None or index is None:
            self.set_status("nothing to show: no row selected", error=True)
            return
        record = shown.record(index, "table")  # as the CLI's table has it: units in words
        if record is None:
            self.set_status(NO_FIELDS)
            return
        from cosmem_tui.ui.row_detail import RowDetail

        where = f"{shown.name} · row {shown.rows.cursor + 1:,} of {shown.rows.row_count:,}"
        self.app.push_screen(RowDetail(where, record))

    def open_with(self, args: tuple[str, ...]) -> None:
        """``:NAME ARGS``: what the view was asked to show (views without arguments say so)."""
        if args:
            self.set_status(f":{self.VIEW} takes no arguments", error=True)

    def run_view_command(self, line: str) -> None:
        """A ``:`` command the app did not handle itself (the view's own, or a mistake)."""
        command = self.cosmem.registry.parse(line, self.VIEW)
        if isinstance(command, Mistake):
            self.set_status(command.message, error=True)
