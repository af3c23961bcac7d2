"""The browse view: tenants → threads → turns → one turn, as Miller columns.

The screen owns the level, the layout, the breadcrumbs and the keys; each column
(``tenants.py``, ``threads.py``, ``turns.py``, ``detail_pane.py``) owns its loading,
its errors and its states. Keys are priority bindings from the action registry: they
run inside the app's key loop, one key fully handled before the next, so a burst (a
paste, a slow SSH link) never races a focus change; while the command bar is open
they step aside (``SkipAction``).
"""

from __future__ import annotations

from enum import IntEnum
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from cosmem_tui.core.lifecycle import LifecycleService
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.core.turn_window import TurnKey
from cosmem_tui.model import Key, Meter, Thread, ThreadRef
from cosmem_tui.model.lifecycle import FORECAST_HORIZONS, TtlScope
from cosmem_tui.ui.actions import show_key
from cosmem_tui.ui.commands import (
    EraseThread,
    Mistake,
    NarrowExpiring,
    OpenTenant,
    OpenThread,
    Pin,
    SearchThread,
    SetTtl,
    ShowTenants,
    parse_command,
)
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import describe_error, plain
from cosmem_tui.ui.table_export import ShownTable, copy_json
from cosmem_tui.ui.view import VIEW_CSS, ViewScreen, view_bindings
from cosmem_tui.ui.views.browse.detail_pane import DetailPane
from cosmem_tui.ui.views.browse.export import copy_item, key_table, thread_table, turn_table
from cosmem_tui.ui.views.browse.status import Status
from cosmem_tui.ui.views.browse.tenants import KeyColumn
from cosmem_tui.ui.views.browse.thread_search import jump
from cosmem_tui.ui.views.browse.threads import ThreadColumn, ThreadsFailed, ThreadsLoaded
from cosmem_tui.ui.views.browse.turns import TurnColumn, TurnsChanged, TurnsFailed
from cosmem_tui.ui.widgets.command_bar import CommandBar
from cosmem_tui.ui.widgets.row_list import RowList
from cosmem_tui.ui.write_flow import run_write

WIDE = 110  # columns from which a third Miller column fits
HUGE = 180  # columns from which the parents get room for their counts, and the detail
#            keeps the threads beside the turns
WRITE_ACTIONS = frozenset({"pin", "set_ttl", "erase_thread"})  # only with --allow-writes
EXPIRING_STEPS = FORECAST_HORIZONS[:3]  # x: 1 h, 24 h, 7 d
COUNTDOWN_REFRESH_S = 30.0  # "expires in" columns move on without a request


class Level(IntEnum):
    TENANTS = 0
    THREADS = 1
    TURNS = 2
    DETAIL = 3


class BrowseScreen(ViewScreen):
    VIEW = "browse"
    BINDINGS: ClassVar = view_bindings("browse")

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
        self.level = Level.TENANTS
        self.copy_loader = Loader(self, "copy")  # y on a turn: its raw item, one point read
        self.tenant_loader = Loader(self, "tenant")  # :tenant NAME, found before it is shown

    # -- composition -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield Static(id="crumbs")
        with Horizontal(id="columns"):
            yield KeyColumn()
        yield from self.compose_chrome_bottom()

    def _mount_hidden_parts(self) -> None:
        """Mount what the first screen does not show, after it is painted (faster start)."""
        if self.query("#threads"):
            return
        threads, turns, detail = ThreadColumn(), TurnColumn(), DetailPane()
        for widget, title in ((threads, "threads"), (turns, "turns"), (detail, "turn")):
            widget.display = False
            widget.border_title = plain(title)
        self.query_one("#columns").mount(threads, turns, detail)
        self.mount_bar()

    def on_mount(self) -> None:
        self.top.border_title = plain("tenants")
        super().on_mount()
        self.call_after_refresh(self._mount_hidden_parts)
        self.set_interval(COUNTDOWN_REFRESH_S, self._refresh_countdowns)
        self.layout_columns()

    # -- the columns ---------------------------------------------------------------------

    @property
    def top(self) -> KeyColumn:
        return self.query_one(KeyColumn)

    @property
    def thread_column(self) -> ThreadColumn:
        self._mount_hidden_parts()
        return self.query_one(ThreadColumn)

    @property
    def turn_column(self) -> TurnColumn:
        self._mount_hidden_parts()
        return self.query_one(TurnColumn)

    @property
    def detail_pane(self) -> DetailPane:
        self._mount_hidden_parts()
        return self.query_one(DetailPane)

    # What tests and the palette read of the current state.
    @property
    def tenant(self) -> Key | None:
        return self.thread_column.tenant if self.level >= Level.THREADS else None

    @property
    def thread(self) -> ThreadRef | None:
        return self.turn_column.ref if self.level >= Level.TURNS else None

    @property
    def window(self):  # type: ignore[no-untyped-def]  # the TurnWindow, for tests
        return self.turn_column.window

    @property
    def keys(self):  # type: ignore[no-untyped-def]  # the KeyRows, for tests and benchmarks
        return self.top.rows

    def lifecycle_scope(self) -> TtlScope:
        """What the lifecycle view follows: the open thread, else the open tenant, else the
        highlighted row of the top list (a tenant, or a thread without tenants)."""
        if self.session is None:
            return TtlScope.container()
        if self.level >= Level.TURNS and (ref := self.turn_column.ref) is not None:
            return TtlScope.of_thread(ref)
        if self.level >= Level.THREADS and (tenant := self.thread_column.tenant) is not None:
            return TtlScope.of_tenant(tenant)
        key = self.top.current_key
        if key is None:
            return TtlScope.container()
        if self.session.schema.has_tenant_level:
            return TtlScope.of_tenant(key)
        return TtlScope.of_thread(ThreadRef(None, key))

    def show_in_browse(self, ref: ThreadRef, item_id: str | None) -> None:
        """Open a thread (from another view), and one of its items when ``item_id`` is given."""
        if self.session is None:
            return
        if ref.tenant is not None:
            self._select_key_row(ref.tenant.text)
            self.open_threads(ref.tenant)
        self.open_turns(ref, None)
        if item_id is not None:
            self.open_detail((item_id, None))

    # -- the session ------------------------------------------------------------------------

    def session_ready(self, session: Session) -> None:
        """The session is open: load the first list."""
        self._mount_hidden_parts()
        self.level = Level.TENANTS
        self.top.begin(session)
        self.layout_columns()

    @property
    def top_label(self) -> str:
        return self.top.label

    # -- layout ------------------------------------------------------------------------

    def on_resize(self) -> None:
        self.layout_columns()

    def on_screen_resume(self) -> None:
        if self.session is not None:
            self.top.ask_load(unless_fresh=True)  # back from another view: load moves on

    def _columns_for_level(self) -> list[tuple[str, str]]:
        if self.size.width >= HUGE:
            return self._huge_columns()
        wide = self.size.width >= WIDE
        has_tenants = self.session is None or self.session.schema.has_tenant_level
        level = self.level
        if level is Level.TENANTS:
            return [("tenants", "1fr")]
        if level is Level.THREADS:
            return [("tenants", "32" if wide else "26"), ("threads", "1fr")]
        if level is Level.TURNS:
            if not has_tenants:  # the top list holds the threads
                return [("tenants", "30" if wide else "24"), ("turns", "1fr")]
            if wide:
                return [("tenants", "22"), ("threads", "28"), ("turns", "1fr")]
            return [("threads", "30" if wide else "24"), ("turns", "1fr")]
        return [("turns", "50" if wide else "30"), ("detail", "1fr")]

    def _huge_columns(self) -> list[tuple[str, str]]:
        """At 200×60: parents wide enough for their counts, the detail beside both lists."""
        has_tenants = self.session is None or self.session.schema.has_tenant_level
        level = self.level
        if level is Level.TENANTS:
            return [("tenants", "1fr")]
        if level is Level.THREADS:
            return [("tenants", "48"), ("threads", "1fr")]
        if level is Level.TURNS:
            if not has_tenants:
                return [("tenants", "48"), ("turns", "1fr")]
            return [("tenants", "40"), ("threads", "48"), ("turns", "1fr")]
        parent = "threads" if has_tenants else "tenants"
        return [(parent, "44"), ("turns", "72"), ("detail", "1fr")]

    def layout_columns(self) -> None:
        shown = dict(self._columns_for_level())
        for widget in self.query_one("#columns").children:
            width = shown.get(widget.id or "")
            widget.display = width is not None
            if width is not None:
                widget.styles.width = width
        self.refocus()
        self._update_crumbs()
        self.show_hints()

    def refocus(self) -> None:
        if self.bar_is_open:
            return
        focus_id = {
            Level.TENANTS: "tenants",
            Level.THREADS: "threads",
            Level.TURNS: "turns",
            Level.DETAIL: "detail",
        }[self.level]
        # Focus now, not on the next tick: keys that arrive in one burst (a paste, a
        # slow SSH link) must reach the list the user just opened.
        widgets = self.query(f"#{focus_id}")
        if widgets:
            self.set_focus(widgets.first())

    def _update_crumbs(self) -> None:
        if self.session is None:
            return
        parts = [self.top_label]
        # Keys as the lists show them (exact: a backslash as \\); the guard below keeps them.
        if self.level >= Level.THREADS and (tenant := self.thread_column.tenant) is not None:
            parts.append(one_line(tenant.text, exact=True))
        if self.level >= Level.TURNS and (ref := self.turn_column.ref) is not None:
            parts.append(one_line(ref.thread.text, exact=True))
        if self.level is Level.DETAIL and (key := self.detail_pane.key) is not None:
            parts.append(self.turn_column.turn_label(key))
        self.query_one("#crumbs", Static).update(
            Text(" › ".join(one_line(p, 40) for p in parts), no_wrap=True, overflow="ellipsis")
        )

    # -- messages from the columns --------------------------------------------------------

    @on(Status)
    def _status(self, message: Status) -> None:
        self.set_status(message.text, error=message.error)

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

    # -- opening things -----------------------------------------------------------------

    def open_threads(self, tenant: Key | str) -> None:
        assert self.session is not None
        self.thread_column.open(self.session, tenant)
        self.level = Level.THREADS
        self.layout_columns()

    def open_turns(self, ref: ThreadRef, expected: int | None, **keep) -> None:  # type: ignore[no-untyped-def]
        assert self.session is not None
        self.turn_column.open(self.session, ref, expected, **keep)
        self.level = Level.TURNS
        self.layout_columns()

    def open_detail(self, key: TurnKey) -> None:
        assert self.session is not None
        column = self.turn_column
        ref = column.ref
        assert ref is not None and column.window is not None
        window = column.window

        def turn_of(k: TurnKey):  # type: ignore[no-untyped-def]
            index = window.index_of(k)
            return window.get(index) if index is not None else None

        self.detail_pane.open(self.session, ref, key, turn_of, column.turn_label)
        self.level = Level.DETAIL
        self.layout_columns()

    # -- actions ------------------------------------------------------------------------

    def move(self, action: str) -> None:
        self.keys_to_the_bar()
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
        self.keys_to_the_bar()
        if self.session is None:
            return
        if self.level is Level.TENANTS:
            key = self.top.current_key
            if key is None:
                return
            if self.session.schema.has_tenant_level:
                self.open_threads(key)
            else:  # the top list holds threads: open its turns
                state = self.session.service.directory.count_state(key)
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

    def can_go_back(self) -> bool:
        return self.session is not None and self.level > Level.TENANTS

    def go_back(self) -> None:
        if not self.can_go_back():
            return
        assert self.session is not None
        self.level = Level(self.level - 1)
        if self.level is Level.THREADS and not self.session.schema.has_tenant_level:
            self.level = Level.TENANTS  # the top list holds the threads
        self.layout_columns()

    def action_reload(self) -> None:
        self.keys_to_the_bar()
        if self.session is None:
            return
        self.set_status("")  # an old error never outlives the reload that may fix it
        if self.level is Level.TENANTS:
            self.session.service.directory.invalidate_failures()
            self.top.load()
            self.top.ask_load()
        elif self.level is Level.THREADS and (tenant := self.thread_column.tenant) is not None:
            self.thread_column.open(self.session, tenant)
        elif self.level is Level.TURNS and (ref := self.turn_column.ref) is not None:
            window = self.turn_column.window
            expected = window.expected_total if window is not None else None
            self.open_turns(ref, expected, keep=self.turn_column.reload_here())
        elif self.level is Level.DETAIL and (key := self.detail_pane.key) is not None:
            self.open_detail(key)

    def action_row_detail(self) -> None:
        """``v``: the row's every field in a list; in an open turn, the turn in full."""
        if self.level is Level.DETAIL:
            self.read_all()
        else:
            super().action_row_detail()

    def read_all(self) -> None:
        """The open turn in full, page by page (the detail cuts long texts)."""
        self.keys_to_the_bar()
        detail = self.detail_pane.detail
        if detail is None or detail.turn.key != self.detail_pane.key:
            self.set_status("the turn is not read yet: v reads it in full once it is shown")
            return
        from cosmem_tui.ui.views.browse.reader import TextReader, full_text

        title = self.turn_column.turn_label(detail.turn.key)
        self.app.push_screen(TextReader(title, full_text(detail)))

    def action_count_shown(self) -> None:
        self.keys_to_the_bar()
        if self.level is Level.TENANTS:
            self.top.count_shown_now()

    def action_narrow_expiring(self) -> None:
        """``x``: the turns expiring within 1 h, then 24 h, then 7 d, then all again."""
        self.keys_to_the_bar()
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
        service = LifecycleService(self.session.store, self.session.service)

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

    # -- export and copy (ui/browse/export.py) --------------------------------------------

    def shown_table(self) -> ShownTable | None:
        """The focused column's rows: tenants, threads, or the turns loaded (also from the
        detail, whose turn is one of them)."""
        if self.session is None:
            return None
        if self.level is Level.TENANTS:
            return key_table(self.top)
        if self.level is Level.THREADS:
            return thread_table(self.thread_column)
        return turn_table(self.turn_column, self.session.clock.now())

    def action_copy_row(self) -> None:
        """``y``: a turn (in the list or the detail) is copied as its raw item."""
        self.keys_to_the_bar()
        if self.session is None or self.level < Level.TURNS:
            super().action_copy_row()
            return
        if self.level is Level.DETAIL:
            pane = self.detail_pane
            detail = pane.detail
            if detail is not None and pane.key is not None and detail.turn.key == pane.key:
                copy_json(self, f"item {detail.turn.item_id}", dict(detail.item.body))
                return
            key = pane.key
        else:
            key = self.turn_column.turn_under_cursor()
        ref = self.turn_column.ref
        if key is None or ref is None:
            self.set_status("nothing to copy: no turn selected", error=True)
            return
        copy_item(self, self.copy_loader, self.session, ref, key)

    def action_show_tenants(self) -> None:
        self.level = Level.TENANTS
        self.layout_columns()

    # -- guarded writes (only with --allow-writes) -----------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in WRITE_ACTIONS:  # not offered, not run: the session cannot write
            return self.session is not None and self.session.writes is not None
        return True

    def hint_applies(self, action_id: str) -> bool:
        """A hint only where its key does something: pin on a turn, erase on a thread,
        open where there is a row to open."""
        if action_id == "write.pin":
            return self.level >= Level.TURNS
        if action_id == "write.erase":
            return self.level >= Level.THREADS or (
                self.session is not None and not self.session.schema.has_tenant_level
            )
        if action_id == "browse.open":
            return self.level < Level.DETAIL
        return super().hint_applies(action_id)

    def target_item(self) -> tuple[ThreadRef, str] | None:
        """The turn a pin or a new ttl applies to: the current row, or the open turn."""
        if self.level is Level.DETAIL and (key := self.detail_pane.key) is not None:
            ref = self.turn_column.ref
            return (ref, key[0]) if ref is not None else None
        if self.level is Level.TURNS and (turn := self.turn_column.current_turn) is not None:
            ref = self.turn_column.ref
            return (ref, turn.item_id) if ref is not None else None
        return None

    def target_thread(self) -> ThreadRef | None:
        """The thread an erase applies to: the open one, or the current thread row."""
        if self.level >= Level.TURNS:
            return self.turn_column.ref
        if self.level is Level.THREADS and (thread := self.thread_column.current_thread):
            return thread.ref
        if self.level is Level.TENANTS and self.session is not None:
            key = self.top.current_key
            if key is not None and not self.session.schema.has_tenant_level:
                return ThreadRef(None, key)  # the top list holds the threads
        return None

    def action_pin(self) -> None:
        self.keys_to_the_bar()
        self._write_ttl(-1)

    def action_set_ttl(self) -> None:
        self.keys_to_the_bar()
        if self.target_item() is None:
            self.set_status("open a thread and pick a turn to give it a new ttl", error=True)
            return
        self.mount_bar()
        self.query_one(CommandBar).open("command", "set-ttl ")

    def _write_ttl(self, ttl: int) -> None:
        target = self.target_item()
        if target is None:
            self.set_status("open a thread and pick a turn first", error=True)
            return
        ref, item_id = target
        verb = "pin" if ttl == -1 else "set ttl"
        run_write(
            self,
            f"browse: {verb}",
            lambda writes: writes.plan_ttl(ref, item_id, ttl, listed=True),
            lambda outcome: self.action_reload(),
        )

    def action_erase_thread(self) -> None:
        self.keys_to_the_bar()
        ref = self.target_thread()
        if ref is None:
            self.set_status("pick a thread to erase", error=True)
            return
        run_write(
            self,
            "browse: erase thread",
            lambda writes: writes.plan_erase(ref),
            lambda outcome: self._erased(ref),
        )

    def _erased(self, ref: ThreadRef) -> None:
        """Back to the list the thread was in, reloaded."""
        if self.session is None:
            return
        if ref.tenant is not None and self.session.schema.has_tenant_level:
            self.open_threads(ref.tenant)
        else:
            self.level = Level.TENANTS
            self.layout_columns()
            self.session.service.directory.forget(ref.thread)
            self.top.load()

    def filter_note(self, target: RowList) -> str:
        if target.id != "turns":
            return ""
        key = show_key(self.cosmem.registry.first_key("browse.search"))
        return f"{self.turn_column.partial_note()} · {key} searches the whole thread"

    # -- whole-thread search -------------------------------------------------------------

    def action_search_thread(self) -> None:
        """Search the open thread on the server for the turn list's filter text."""
        self.keys_to_the_bar()
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
        self.keys_to_the_bar()
        if self.level is Level.TURNS:
            self.set_status(jump(self.turn_column, 1))

    def action_previous_hit(self) -> None:
        self.keys_to_the_bar()
        if self.level is Level.TURNS:
            self.set_status(jump(self.turn_column, -1))

    # -- commands --------------------------------------------------------------------------

    def run_view_command(self, line: str) -> None:
        """``:tenant NAME``, ``:thread [TENANT] ID``, ``:tenants`` (see ``ui/commands.py``)."""
        if self.session is None:
            return
        current = self.tenant.text if self.tenant is not None else None
        command = parse_command(line, self.cosmem.registry, self.VIEW, self.session.schema, current)
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

    def show_tenant(self, tenant: Key | str) -> None:
        """A tenant's threads, its row selected in the list: ``:tenant NAME`` (typed text)
        and the other views (a Key, which keeps its JSON type) both come here."""
        if self.session is None:
            return
        self._select_key_row(tenant)
        self.open_threads(tenant)

    def open_named_tenant(self, text: str) -> None:
        """``:tenant NAME``: list the tenant's threads first, then show them; a name
        that is no tenant says so and leaves the view where it was (an open thread
        stays open)."""
        assert self.session is not None
        session = self.session

        def found(value: tuple[Key, list[Thread]], cost: Meter) -> None:
            self._select_key_row(value[0])
            self.thread_column.show_found(session, value, cost)
            self.level = Level.THREADS
            self.layout_columns()

        def failed(error: str) -> None:
            self.set_status(error, error=True)

        self.tenant_loader.bump()
        self.set_status(f"looking for {session.schema.tenant_label} {one_line(text, 40)}…")
        self.tenant_loader.start(
            session,
            lambda: session.service.threads_named(text),
            found,
            failed,
            cause="browse: open a tenant",
        )

    def show_thread(self, ref: ThreadRef) -> None:
        """A thread's turns, named by keys (no lookup): its tenant's threads beside them."""
        if self.session is None:
            return
        if ref.tenant is not None:
            self.show_tenant(ref.tenant)
        else:
            self._select_key_row(ref.thread)
        self._open_resolved(ref)

    def _open_named_thread(self, tenant: str | None, thread: str, *, tenant_given: bool) -> None:
        """``:thread [TENANT] ID``: resolve the typed names to keys, then open the turns."""
        assert self.session is not None
        session = self.session
        if tenant_given and tenant is not None:
            self.show_tenant(tenant)
        current = self.tenant if not tenant_given else None

        async def resolve() -> None:
            try:  # the CLI's reading of names: the first that exists wins
                ref = await session.service.resolve(current or tenant, thread)
            except Exception as exc:
                self.call_later(self.set_status, describe_error(exc), True)
                return
            self.call_later(self._open_resolved, ref)

        self.run_worker(resolve, group="resolve", exclusive=True, exit_on_error=False)

    def _open_resolved(self, ref: ThreadRef) -> None:
        # The columns beside the turns highlight the thread opened (and its tenant), not
        # the rows the cursor was on before the command.
        if ref.tenant is not None:
            self._select_key_row(ref.tenant)
            if self.thread_column.tenant in (None, ref.tenant):
                self.thread_column.select_thread(ref.thread)
        else:
            self._select_key_row(ref.thread)
        threads = self.thread_column.threads
        known = next((t for t in threads if t.ref == ref), None)
        self.open_turns(ref, known.items if known else None)

    def _select_key_row(self, wanted: Key | str) -> None:
        rows = self.top.rows
        if rows is None:
            return
        # Typed text is read as the service reads it: the first reading listed wins.
        readings = (wanted,) if isinstance(wanted, Key) else Key.readings(wanted)
        for key in readings:
            for index, listed in enumerate(rows.keys):
                if listed == key:
                    self.top.select_index(index)
                    return
