"""The browse view: tenants → threads → turns → one turn, as Miller columns.

The screen composes the columns and runs the keys; its levels, their layout and the
breadcrumbs are ``levels.py``, the guarded writes ``writes.py``, opening what a
command or another view names ``named.py``. Each column (``tenants.py``,
``threads.py``, ``turns.py``, ``detail_pane.py``) owns its loading, its errors and its
states. Keys are priority bindings from the action registry: they run inside the
app's key loop, one key fully handled before the next, so a burst (a paste, a slow
SSH link) never races a focus change; while the command bar is open they step aside
(``ViewScreen.check_action``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from cosmem_tui.core.session import Session
from cosmem_tui.model import Meter, ThreadRef
from cosmem_tui.model.lifecycle import FORECAST_HORIZONS, TtlScope
from cosmem_tui.ui.actions import show_key
from cosmem_tui.ui.commands import Mistake
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.shared_actions import view_bindings
from cosmem_tui.ui.view import VIEW_CSS
from cosmem_tui.ui.views.browse.commands import (
    EraseThread,
    NarrowExpiring,
    OpenTenant,
    OpenThread,
    Pin,
    SearchThread,
    SetTtl,
    ShowTenants,
)
from cosmem_tui.ui.views.browse.history import BrowseHistory
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.named import BrowseByName
from cosmem_tui.ui.views.browse.spec import SPEC
from cosmem_tui.ui.views.browse.status import Status
from cosmem_tui.ui.views.browse.tenants import FirstScreenCounted, KeyColumn
from cosmem_tui.ui.views.browse.thread_search import jump
from cosmem_tui.ui.views.browse.threads import ThreadsFailed, ThreadsLoaded
from cosmem_tui.ui.views.browse.turns import TurnColumn, TurnsChanged, TurnsFailed
from cosmem_tui.ui.views.browse.writes import BrowseWrites
from cosmem_tui.ui.widgets.row_list import RowList

if TYPE_CHECKING:  # export and copy load on their first use (e, y, v)
    from cosmem_tui.ui.table_export import ShownTable

EXPIRING_STEPS = FORECAST_HORIZONS[:3]  # x: 1 h, 24 h, 7 d
COUNTDOWN_REFRESH_S = 30.0  # "expires in" columns move on without a request


class BrowseScreen(BrowseHistory, BrowseWrites, BrowseByName):
    VIEW = SPEC.name
    BINDINGS: ClassVar = view_bindings(SPEC)

    DEFAULT_CSS = (
        VIEW_CSS
        + """
    BrowseScreen { layout: vertical; }
    #crumbs { height: 1; padding: 0 1; color: $text-muted; }
    #columns { height: 1fr; }
    #columns > * { height: 1fr; border: round $panel-lighten-2; border-title-color: $text;
                   border-subtitle-color: $text-muted; display: none; }
    #columns > *:focus { border: round $accent; }
    #detail { background: $surface; padding: 0 1; }
    """
    )

    def __init__(self) -> None:
        super().__init__()
        self.copy_loader = Loader(self, "copy")  # y on a turn: its raw item, one point read

    # -- composition -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield Static(id="crumbs")
        with Horizontal(id="columns"):
            yield KeyColumn()
        yield from self.compose_chrome_bottom()

    def on_mount(self) -> None:
        self.top.border_title = plain("tenants")
        super().on_mount()
        self.set_interval(COUNTDOWN_REFRESH_S, self._refresh_countdowns)
        self.layout_columns()

    # -- the session ------------------------------------------------------------------------

    def session_ready(self, session: Session) -> None:
        """The session is open: load the first list."""
        self.level = Level.TENANTS
        self.top.begin(session)
        self.layout_columns()

    def on_resize(self) -> None:
        self.layout_columns()

    def on_screen_resume(self) -> None:
        if self.session is not None:
            self.top.ask_load(unless_fresh=True)  # back from another view: load moves on

    # -- messages from the columns --------------------------------------------------------

    @on(Status)
    def _status(self, message: Status) -> None:
        self.set_status(message.text, error=message.error)

    @on(FirstScreenCounted)
    def _first_screen_counted(self) -> None:
        # The columns not shown yet and the command bar are mounted once the first data
        # is on the terminal, not while it is on its way (each is also mounted at once
        # when asked for first: ``thread_column``, ``mount_bar``).
        self.call_after_refresh(self._mount_hidden_parts)

    @on(ThreadsLoaded)
    def _threads_loaded(self) -> None:
        self._update_crumbs()

    @on(ThreadsFailed)
    def _threads_failed(self) -> None:
        if self.level is Level.THREADS and not self.thread_column.threads:
            self.level = Level.TENANTS  # nothing to show: back where the user was
            self.layout_columns()

    @on(TurnsChanged)
    def _turns_changed(self) -> None:
        if self.level is Level.DETAIL:
            self.detail_pane.follow_label()
            self._update_crumbs()

    @on(TurnsFailed)
    def _turns_failed(self, message: TurnsFailed) -> None:
        if message.nothing_loaded and self.level is Level.TURNS:
            has_threads = self.thread_column.threads or self.thread_column.tenant is not None
            self.level = Level.THREADS if has_threads else self.level
            self.layout_columns()

    def _refresh_countdowns(self) -> None:
        if self.level >= Level.TURNS:
            self.turn_column.refresh()
        if self.level is Level.DETAIL:
            self.detail_pane.render_turn()

    # -- actions ------------------------------------------------------------------------

    def move(self, action: str) -> None:
        if self.level is Level.TURNS:
            self.turn_column.moved(action)
        if self.level is Level.DETAIL:
            detail = {
                "cursor_down": "scroll_down",
                "cursor_up": "scroll_up",
                "page_down": "scroll_page_down",
                "page_up": "scroll_page_up",
                "first": "scroll_home",
                "last": "scroll_end",
            }[action]
            getattr(self.detail_pane, detail)(animate=False)
            return
        column: RowList = {
            Level.TENANTS: self.top,
            Level.THREADS: self.thread_column,
            Level.TURNS: self.turn_column,
        }[self.level]
        getattr(column, f"action_{action}")()

    def action_open(self) -> None:
        if self.session is None:
            return
        if self.level is Level.TENANTS:
            key = self.top.current_key
            if key is None:
                return
            if self.session.schema.has_tenant_level:
                self.open_threads(key)
            else:  # the top list holds threads: open its turns
                state = self.session.browse.directory.count_state(key)
                known = state.counts.items if state is not None and state.counts else None
                self.open_turns(ThreadRef(None, key), known)
        elif self.level is Level.THREADS:
            thread = self.thread_column.current_thread
            if thread is not None:
                self.open_turns(thread.ref, thread.items)
        elif self.level is Level.TURNS:
            turn = self.turn_column.current_turn
            if turn is not None:
                self.open_detail(turn.key)

    def narrowed(self) -> bool:
        focused = self.focused
        if isinstance(focused, TurnColumn) and (
            focused.hits is not None or focused.expiring_within is not None
        ):
            return True
        return super().narrowed()

    def clear_narrowing(self) -> bool:
        """The filter first, then a thread search, then the ``x`` narrowing."""
        if super().clear_narrowing():
            return True
        focused = self.focused
        if isinstance(focused, TurnColumn) and focused.leave_search():
            self.set_status("")
            return True
        if isinstance(focused, TurnColumn) and focused.expiring_within is not None:
            self._narrow_expiring(None)
            return True
        return False

    def action_row_detail(self) -> None:
        """``v``: the row's every field in a list; in an open turn, the turn in full."""
        if self.level is Level.DETAIL:
            self.read_all()
        else:
            super().action_row_detail()

    def read_all(self) -> None:
        """The open turn in full, page by page (the detail cuts long texts)."""
        detail = self.detail_pane.detail
        if detail is None or detail.turn.key != self.detail_pane.key:
            self.set_status("the turn is not read yet: v reads it in full once it is shown")
            return
        from cosmem_tui.ui.views.browse.reader import TextReader, full_text

        title = self.turn_column.turn_label(detail.turn.key)
        self.app.push_screen(TextReader(title, full_text(detail)))

    def action_count_shown(self) -> None:
        if self.level is Level.TENANTS:
            self.top.count_shown_now()

    def action_narrow_expiring(self) -> None:
        """``x``: the turns expiring within 1 h, then 24 h, then 7 d, then all again."""
        if self.level < Level.TURNS:
            self._narrow_expiring(None)
            return
        steps = [*EXPIRING_STEPS, None]
        current = self.turn_column.expiring_within
        self._narrow_expiring(steps[(steps.index(current) + 1) % len(steps)])

    def _narrow_expiring(self, within: int | None) -> None:
        if self.session is None:
            return
        if self.level < Level.TURNS:
            self.set_status("only a thread's turns narrow to what expires: open a thread first")
            return
        if self.level is Level.DETAIL:
            self.level = Level.TURNS
            self.layout_columns()
        status = self.turn_column.narrow_expiring(within)
        self.set_status(status)
        self.show_hints()
        if within is not None:
            self._count_expiring_in_thread(within)

    def _count_expiring_in_thread(self, within: int) -> None:
        """The thread's own count (one single-partition aggregate), beside the loaded rows."""
        assert self.session is not None
        column = self.turn_column
        ref = column.ref
        if ref is None or column.window is None or column.window.complete:
            return  # every row is loaded: the rows are the count
        service = self.session.lifecycle

        async def count() -> int:
            summary = await service.store.ttl_summary(TtlScope.of_thread(ref), service.now())
            return summary.within(within)

        def counted(total: int, _cost: Meter) -> None:
            if column.expiring_within == within and column.ref == ref:
                self.set_status(column.narrow_status(within, thread_total=total))

        column.loader.start(
            self.session,
            count,
            counted,
            lambda error: self.set_status(error, error=True),
            cause="browse: count expiring turns",
            group="expiring-count",
        )

    # -- export and copy (export.py) --------------------------------------------

    def shown_table(self) -> ShownTable | None:
        """The focused column's rows: tenants, threads, or the turns loaded (also from the
        detail, whose turn is one of them)."""
        if self.session is None:
            return None
        from cosmem_tui.ui.views.browse.export import key_table, thread_table, turn_table

        if self.level is Level.TENANTS:
            return key_table(self.top)
        if self.level is Level.THREADS:
            return thread_table(self.thread_column)
        return turn_table(self.turn_column, self.session.clock.now())

    def action_copy_row(self) -> None:
        """``y``: a turn (in the list or the detail) is copied as its raw item."""
        if self.session is None or self.level < Level.TURNS:
            super().action_copy_row()
            return
        if self.level is Level.DETAIL:
            pane = self.detail_pane
            detail = pane.detail
            if detail is not None and pane.key is not None and detail.turn.key == pane.key:
                from cosmem_tui.ui.table_export import copy_json

                copy_json(self, f"item {detail.turn.item_id}", dict(detail.item.body))
                return
            key = pane.key
        else:
            key = self.turn_column.turn_under_cursor()
        ref = self.turn_column.ref
        if key is None or ref is None:
            self.set_status("nothing to copy: no turn selected", error=True)
            return
        from cosmem_tui.ui.views.browse.export import copy_item

        copy_item(self, self.copy_loader, self.session, ref, key)

    def hint_applies(self, action_id: str) -> bool:
        """Open only where there is a row to open."""
        if action_id == "browse.open":
            return self.level < Level.DETAIL
        if action_id == "browse.recall_like":
            return self.level >= Level.TURNS
        return super().hint_applies(action_id)

    def action_show_tenants(self) -> None:
        self.level = Level.TENANTS
        self.layout_columns()

    def filter_note(self, target: RowList) -> str:
        if target.id != "turns":
            return ""
        key = show_key(self.cosmem.registry.first_key("browse.search"))
        return f"{self.turn_column.partial_note()} · {key} searches the whole thread"

    # -- whole-thread search -------------------------------------------------------------

    def action_search_thread(self) -> None:
        """Search the open thread on the server for the turn list's filter text."""
        if self.level is not Level.TURNS:
            self.set_status("open a thread to search it: / filters, then S searches")
            return
        text = self.turn_column.filter_text
        if not text:
            self.set_status("type / and the text first (or :search TEXT)")
            return
        self._search_thread(text)

    def _search_thread(self, text: str) -> None:
        if self.level < Level.TURNS or self.turn_column.window is None:
            self.set_status("open a thread to search it", error=True)
            return
        self.level = Level.TURNS
        self.layout_columns()
        self.set_status(self.turn_column.start_search(text))
        self.show_hints()

    def action_next_hit(self) -> None:
        if self.level is Level.TURNS:
            self.set_status(jump(self.turn_column, 1))

    def action_previous_hit(self) -> None:
        if self.level is Level.TURNS:
            self.set_status(jump(self.turn_column, -1))

    # -- into the recall view (m: what does this recall? W: why not this?) -----------------

    def focused_turn(self) -> tuple[ThreadRef, str] | None:
        """The turn the keys act on: the open one, else the one under the cursor."""
        ref = self.turn_column.ref if self.level >= Level.TURNS else None
        if ref is None:
            return None
        key = self.detail_pane.key if self.level is Level.DETAIL else None
        key = key or self.turn_column.turn_under_cursor()
        return (ref, key[0]) if key is not None else None

    def _recall(self, *, expected: bool) -> None:
        turn = self.focused_turn()
        if turn is None:
            self.set_status("open a thread and pick a turn first: recall starts from a turn")
            return
        self.cosmem.recall_turn(*turn, expected=expected)

    def action_recall_like(self) -> None:
        self._recall(expected=False)

    def action_why_not(self) -> None:
        self._recall(expected=True)

    # -- commands --------------------------------------------------------------------------

    def run_view_command(self, line: str) -> None:
        """``:tenant NAME``, ``:thread [TENANT] ID``, ``:tenants`` … (see ``commands.py``)."""
        if self.session is None:
            return
        current = self.tenant.text if self.tenant is not None else None
        command = self.cosmem.registry.parse(line, self.VIEW, self.session.schema, current)
        match command:
            case None:
                return
            case ShowTenants():
                self.action_show_tenants()
            case OpenTenant(tenant):
                self.open_named_tenant(tenant)
            case OpenThread(tenant, thread, tenant_given):
                self._open_named_thread(tenant, thread, tenant_given=tenant_given)
            case Pin():
                self._write_ttl(-1)
            case SetTtl(seconds):
                self._write_ttl(seconds)
            case EraseThread():
                self.action_erase_thread()
            case NarrowExpiring(within):
                self._narrow_expiring(within)
            case SearchThread(text):
                self._search_thread(text)
            case Mistake(message):
                self.set_status(message, error=True)
            case _:
                self.cosmem.run_command(line)
