"""The browse view's levels: which columns show at which width, what has the focus,
the breadcrumbs, and opening, reloading and leaving a level.

``BrowseLevels`` is the base of ``BrowseScreen`` (``screen.py``); the guarded writes
(``writes.py``) and opening what a command names (``named.py``) build on it.
"""

from __future__ import annotations

from enum import IntEnum

from rich.text import Text
from textual.widgets import Static

from cosmem_tui.core.text import one_line
from cosmem_tui.core.turn_window import TurnKey, TurnWindow
from cosmem_tui.model import Key, ThreadRef, Turn
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.view import ViewScreen
from cosmem_tui.ui.views.browse.detail_pane import DetailPane
from cosmem_tui.ui.views.browse.rows import KeyRows
from cosmem_tui.ui.views.browse.tenants import KeyColumn
from cosmem_tui.ui.views.browse.threads import ThreadColumn
from cosmem_tui.ui.views.browse.turns import ReloadTarget, TurnColumn

WIDE = 110  # columns from which a third Miller column fits
HUGE = 180  # columns from which the parents get room for their counts, and the detail
#            keeps the threads beside the turns


class Level(IntEnum):
    TENANTS = 0
    THREADS = 1
    TURNS = 2
    DETAIL = 3


class BrowseLevels(ViewScreen):
    """The level shown and the columns it shows (the screen composes them)."""

    def __init__(self) -> None:
        super().__init__()
        self.level = Level.TENANTS

    def _mount_hidden_parts(self) -> None:
        """Mount what the first screen does not show, once its data is on it (faster start)."""
        columns = self.query_one("#columns")
        if self.query("#threads") or self._closing or not columns.is_attached:
            return  # mounted already, or the app is closing: it would mount into nothing
        threads, turns, detail = ThreadColumn(), TurnColumn(), DetailPane()
        for widget, title in ((threads, "threads"), (turns, "turns"), (detail, "turn")):
            widget.display = False
            widget.border_title = plain(title)
        self.query_one("#columns").mount(threads, turns, detail)
        self.mount_bar()

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
    def window(self) -> TurnWindow | None:  # for tests
        return self.turn_column.window

    @property
    def keys(self) -> KeyRows | None:  # for tests and benchmarks
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

    @property
    def top_label(self) -> str:
        return self.top.label

    # -- layout ------------------------------------------------------------------------

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

    # -- opening things -----------------------------------------------------------------

    def open_threads(self, tenant: Key | str) -> None:
        assert self.session is not None
        self.thread_column.open(self.session, tenant)
        self.level = Level.THREADS
        self.layout_columns()

    def open_turns(
        self, ref: ThreadRef, expected: int | None, *, keep: ReloadTarget | None = None
    ) -> None:
        assert self.session is not None
        self.turn_column.open(self.session, ref, expected, keep=keep)
        self.level = Level.TURNS
        self.layout_columns()

    def open_detail(self, key: TurnKey) -> None:
        assert self.session is not None
        column = self.turn_column
        ref = column.ref
        assert ref is not None and column.window is not None
        window = column.window

        def turn_of(k: TurnKey) -> Turn | None:
            index = window.index_of(k)
            return window.get(index) if index is not None else None

        self.detail_pane.open(self.session, ref, key, turn_of, column.turn_label)
        self.level = Level.DETAIL
        self.layout_columns()

    # -- going back and reloading a level ------------------------------------------------

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
        if self.session is None:
            return
        self.set_status("")  # an old error never outlives the reload that may fix it
        if self.level is Level.TENANTS:
            self.session.browse.directory.invalidate_failures()
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

    # -- rows picked by what they hold ---------------------------------------------------

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
