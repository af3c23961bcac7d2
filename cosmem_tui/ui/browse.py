"""The browse pane: tenants → threads → turns → one turn, as Miller columns.

Threading rule: workers only fetch and ``post_message`` a snapshot; the message
handlers (main thread) own every widget and every piece of screen state. A
generation number per level drops results that arrive after the user moved on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from cosmem_tui.core.browse import TurnDetail, TurnPage
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.core.turn_window import Side, TurnKey, TurnWindow
from cosmem_tui.model import (
    FanOutRequest,
    Tenant,
    Thread,
    ThreadRef,
    Turn,
)
from cosmem_tui.profiles import ValueType
from cosmem_tui.ui.commands import (
    Mistake,
    OpenTenant,
    OpenThread,
    Quit,
    ShowHelp,
    ShowTenants,
    parse_command,
)
from cosmem_tui.ui.confirm import ConfirmFanOut
from cosmem_tui.ui.detail import render_detail
from cosmem_tui.ui.keys import BROWSE_KEYS, LIST_KEYS
from cosmem_tui.ui.messages import (
    Charged,
    Level,
    Loaded,
    LoadFailed,
    SourceNotice,
    ThrottleNotice,
    cost_text,
    describe_error,
    plain,
)
from cosmem_tui.ui.rows import (
    TENANT_COLUMNS,
    THREAD_COLUMNS,
    TURN_COLUMNS,
    TenantRows,
    ThreadRows,
    TurnRows,
    tenant_columns,
)
from cosmem_tui.ui.widgets.command_bar import CommandBar
from cosmem_tui.ui.widgets.header import SessionHeader
from cosmem_tui.ui.widgets.row_list import RowList

log = logging.getLogger(__name__)

TURN_PAGE_SIZE = 100
TIME_ORDERS = (ValueType.ISO8601, ValueType.EPOCH_S, ValueType.EPOCH_MS, ValueType.EPOCH_NS)
WIDE = 110  # columns from which a third Miller column fits
COUNTDOWN_REFRESH_S = 30.0


@dataclass(frozen=True, slots=True)
class ReloadTarget:
    """The turn to return to after a reload, and where it was: ``distance`` rows from ``side``."""

    key: TurnKey | None  # None: the cursor was on a row not loaded yet
    side: Side
    distance: int


class BrowseScreen(Screen[None]):
    # Priority bindings run inside the App's key loop, one key fully handled before the
    # next is read; ordinary bindings go through the focused widget's queue, so a burst
    # of keys (a paste, a slow SSH link) would race a focus change. Every browse key is
    # therefore a priority binding that steps aside (SkipAction) while the bar is open.
    BINDINGS: ClassVar = [k.binding(priority=True) for k in (*LIST_KEYS, *BROWSE_KEYS)]

    DEFAULT_CSS = """
    BrowseScreen { layout: vertical; }
    #crumbs { height: 1; padding: 0 1; color: $text-muted; }
    #columns { height: 1fr; }
    #columns > * { height: 1fr; border: round $panel-lighten-2; border-title-color: $text;
                   border-subtitle-color: $text-muted; display: none; }
    #columns > *:focus { border: round $accent; }
    #detail { background: $surface; padding: 0 1; }
    #status { height: 1; padding: 0 1; color: $text-muted; }
    #status.error { color: $error; text-style: bold; }
    #hints { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        self.level = Level.TENANTS
        self.tenant: str | None = None
        self.thread: ThreadRef | None = None
        self.window: TurnWindow | None = None
        # The open turn, by key: its row moves as items expire or arrive and walks merge.
        self.detail_key: TurnKey | None = None
        self._follow_end = False  # End was the last move: stay on the newest turn
        self._reload_target: ReloadTarget | None = None
        self.detail: TurnDetail | None = None
        self.generation = {level: 0 for level in Level}
        self.fetching: set[Side] = set()
        self.tenants: list[Tenant] = []
        self.threads: list[Thread] = []
        self._pending_status: tuple[str, bool] | None = None

    # -- composition -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield SessionHeader(id="header")
        yield Static(id="crumbs")
        with Horizontal(id="columns"):
            yield RowList(TENANT_COLUMNS, id="tenants", empty_text="loading tenants…")
        yield Static(id="status")
        yield Static(
            Text(
                " ↑↓ jk move · ⏎ open · esc back · / filter · : command · ? help · q quit",
                no_wrap=True,
                overflow="ellipsis",
            ),
            id="hints",
        )

    def _mount_hidden_parts(self) -> None:
        """Mount what the first screen does not show, after it is painted (faster start)."""
        if self.query("#bar"):
            return
        columns = self.query_one("#columns")
        threads = RowList(THREAD_COLUMNS, id="threads", empty_text="no threads")
        turns = RowList(TURN_COLUMNS, id="turns", empty_text="no turns")
        detail = VerticalScroll(Static(id="detail-body"), id="detail", can_focus=True)
        for widget, title in ((threads, "threads"), (turns, "turns"), (detail, "turn")):
            widget.display = False
            widget.border_title = plain(title)
        columns.mount(threads, turns, detail)
        self.mount(CommandBar(id="bar"))

    def on_mount(self) -> None:
        self.query_one("#tenants", RowList).border_title = plain("tenants")
        self.call_after_refresh(self._mount_hidden_parts)
        self.set_interval(COUNTDOWN_REFRESH_S, self._refresh_countdowns)
        self._layout()
        if self._pending_status is not None:
            self.set_status(self._pending_status[0], error=self._pending_status[1])

    # -- session -----------------------------------------------------------------------

    def show_progress(self, message: str) -> None:
        self.set_status(message)

    def attach(self, session: Session) -> None:
        """The session is open: show where we are and load the first list."""
        if not session.schema.has_tenant_level:
            self._mount_hidden_parts()  # the thread list is the first list
        self.session = session
        self.query_one(SessionHeader).show(
            source=self._source_label(),
            schema=session.schema_label,
            totals=session.gateway.totals(),
        )
        session.gateway.subscribe(lambda record: self.post_message(Charged(record)))
        session.gateway.subscribe_throttle(lambda event: self.post_message(ThrottleNotice(event)))
        session.gateway.subscribe_notice(lambda text: self.post_message(SourceNotice(text)))
        session.gateway.set_confirmer(self._confirm_fan_out)
        self.run_worker(self._fetch_container, group="container", exit_on_error=False)
        if session.schema.has_tenant_level:
            self.level = Level.TENANTS
            tenants = self.query_one("#tenants", RowList)
            tenants.border_title = plain(f"{session.schema.tenant_label}s")
            tenants.columns = list(tenant_columns(session.schema.tenant_label))
            self._load_tenants()
        else:
            self.level = Level.THREADS
            self._open_threads(None)
        self._layout()
        if session.notes:
            self.set_status("; ".join(session.notes))

    def _source_label(self) -> str:
        assert self.session is not None
        return "demo workspace" if self.session.is_demo else self.session.store.label

    async def _fetch_container(self) -> None:
        assert self.session is not None
        try:
            container = await self.session.service.container()
        except Exception as exc:
            self.post_message(LoadFailed(Level.TENANTS, -1, describe_error(exc)))
            return
        self.app.call_later(self.query_one(SessionHeader).show, container=container)

    def on_charged(self, message: Charged) -> None:
        if self.session is not None:
            header = self.query_one(SessionHeader)
            if message.record.status == 200 and header.throttle:
                header.show(throttle="")  # an answer came through: no longer throttled
            header.show(totals=self.session.gateway.totals())

    def on_throttle_notice(self, message: ThrottleNotice) -> None:
        event = message.event
        self.query_one(SessionHeader).show(throttle=event.describe())
        if not event.retrying:  # keep the 429 up while the account asks us to wait
            wait_s = max(2.0, (event.retry_after_ms or 0.0) / 1000.0)
            self.set_timer(wait_s, self._clear_throttle)

    def _clear_throttle(self) -> None:
        if self.session is not None and self.session.gateway.throttle_pause_s() == 0:
            self.query_one(SessionHeader).show(throttle="")

    def on_source_notice(self, message: SourceNotice) -> None:
        self.set_status(message.text)

    async def _confirm_fan_out(self, request: FanOutRequest) -> bool:
        """The Gateway's confirmer: a modal, awaited by the worker that wants the query."""
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def done(result: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(result))

        self.app.push_screen(ConfirmFanOut(request), done)
        return await answer

    # -- layout ------------------------------------------------------------------------

    def on_resize(self) -> None:
        self._layout()

    def _columns_for_level(self) -> list[tuple[str, str]]:
        wide = self.size.width >= WIDE
        has_tenants = self.session is None or self.session.schema.has_tenant_level
        level = self.level
        if level is Level.TENANTS:
            return [("tenants", "1fr")]
        if level is Level.THREADS:
            if not has_tenants:
                return [("threads", "1fr")]
            return [("tenants", "32" if wide else "26"), ("threads", "1fr")]
        if level is Level.TURNS:
            if wide and has_tenants:
                return [("tenants", "22"), ("threads", "28"), ("turns", "1fr")]
            return [("threads", "30" if wide else "24"), ("turns", "1fr")]
        return [("turns", "50" if wide else "30"), ("detail", "1fr")]

    def _layout(self) -> None:
        shown = dict(self._columns_for_level())
        for widget in self.query_one("#columns").children:
            width = shown.get(widget.id or "")
            widget.display = width is not None
            if width is not None:
                widget.styles.width = width
        focus_id = {
            Level.TENANTS: "tenants",
            Level.THREADS: "threads",
            Level.TURNS: "turns",
            Level.DETAIL: "detail",
        }[self.level]
        if not self.bar_is_open:
            # Focus now, not on the next tick: keys that arrive in one burst (a paste, a
            # slow SSH link) must reach the list the user just opened.
            self.set_focus(self.query_one(f"#{focus_id}"))
        self._update_crumbs()

    def _update_crumbs(self) -> None:
        if self.session is None:
            return
        parts = (
            [f"{self.session.schema.tenant_label}s"]
            if self.session.schema.has_tenant_level
            else ["threads"]
        )
        if self.tenant is not None and self.level >= Level.THREADS:
            parts.append(self.tenant)
        if self.thread is not None and self.level >= Level.TURNS:
            parts.append(self.thread.thread)
        if self.level is Level.DETAIL and self.detail_key is not None:
            parts.append(self._turn_label(self.detail_key))
        self.query_one("#crumbs", Static).update(
            Text(" › ".join(one_line(p, 40) for p in parts), no_wrap=True, overflow="ellipsis")
        )

    def set_status(self, message: str, *, error: bool = False) -> None:
        if not self.is_mounted:  # e.g. first-run progress posted before the first paint
            self._pending_status = (message, error)
            return
        status = self.query_one("#status", Static)
        status.set_class(error, "error")
        status.update(Text(one_line(message), no_wrap=True, overflow="ellipsis"))

    # -- workers ----------------------------------------------------------------------

    def _start(
        self,
        level: Level,
        fetch: Callable[[], Awaitable[Any]],
        *,
        group: str,
        side: Side | None = None,
    ) -> None:
        """Run ``fetch`` in a worker that reports back with a message, never touching widgets."""
        assert self.session is not None
        generation = self.generation[level]
        gateway = self.session.gateway

        async def work() -> None:
            try:
                with gateway.meter() as cost:
                    value = await fetch()
            except Exception as exc:  # every failure becomes a line in the status bar
                self.post_message(LoadFailed(level, generation, describe_error(exc), side))
                return
            self.post_message(Loaded(level, generation, value, cost, side))

        self.run_worker(work, group=group, exclusive=True, exit_on_error=False)

    def _bump(self, level: Level) -> None:
        """Invalidate in-flight results of ``level`` and every level below it."""
        for lower in Level:
            if lower >= level:
                self.generation[lower] += 1
        if level <= Level.TURNS:
            self.fetching.clear()

    # -- loading each level -------------------------------------------------------------

    def _load_tenants(self) -> None:
        assert self.session is not None
        self._bump(Level.TENANTS)
        tenants = self.query_one("#tenants", RowList)
        tenants.border_subtitle = plain("loading…")
        self._start(Level.TENANTS, self.session.service.tenants, group="tenants")

    def _open_threads(self, tenant: str | None) -> None:
        assert self.session is not None
        self._bump(Level.THREADS)
        self.tenant = tenant
        self.thread = None
        self.threads = []
        threads = self.query_one("#threads", RowList)
        threads.set_source(ThreadRows([], self.session.clock), empty_text="loading threads…")
        label = f"threads of {tenant}" if tenant is not None else "threads"
        threads.border_title = plain(label)
        threads.border_subtitle = plain("loading…")
        self.level = Level.THREADS
        self._layout()
        service = self.session.service
        self._start(Level.THREADS, lambda: service.threads(tenant), group="threads")

    def _open_turns(
        self, ref: ThreadRef, expected: int | None, *, keep: ReloadTarget | None = None
    ) -> None:
        """Show a thread's turns; ``keep``: a reload, to come back to the same turn."""
        assert self.session is not None
        self._bump(Level.TURNS)
        self.workers.cancel_group(self, "turns-head")
        self.workers.cancel_group(self, "turns-tail")
        self.thread = ref
        self.window = TurnWindow(ref, expected)
        self._reload_target = keep
        if keep is None:
            self._follow_end = False
        turns = self.query_one("#turns", RowList)
        order = self.session.schema.order
        positional = order is not None and order.type in TIME_ORDERS
        rows = TurnRows(self.window, self.session.clock, positional=positional)
        turns.set_source(rows, empty_text="loading turns…")
        turns.border_title = plain(f"turns of {ref.thread}")
        turns.border_subtitle = plain("loading…")
        self.level = Level.TURNS
        self._layout()
        self._fetch_turns(Side.HEAD, first=True)
        if keep is not None and keep.side is Side.TAIL:
            self._fetch_turns(Side.TAIL)

    def _fetch_turns(self, side: Side, *, first: bool = False) -> None:
        assert self.session is not None and self.window is not None
        if side in self.fetching or (not first and not self.window.can_fetch(side)):
            return
        self.fetching.add(side)
        window, service = self.window, self.session.service
        continuation = window.continuation(side)
        newest_first = side is Side.TAIL

        async def fetch() -> TurnPage:
            if continuation is None and (first or newest_first):
                return await service.first_page(
                    window.ref, page_size=TURN_PAGE_SIZE, newest_first=newest_first
                )
            return await service.turns_page(
                window.ref,
                continuation=continuation,
                page_size=TURN_PAGE_SIZE,
                newest_first=newest_first,
            )

        self._start(Level.TURNS, fetch, group=f"turns-{side.value}", side=side)

    def _open_detail(self, key: TurnKey) -> None:
        """Open one turn (a point read of its item); ``key`` is (item id, part)."""
        assert self.session is not None and self.thread is not None
        self._bump(Level.DETAIL)
        self.detail_key = key
        self.detail = None
        self.level = Level.DETAIL
        self._title_detail()
        self._render_detail()
        self._layout()
        self.query_one("#detail", VerticalScroll).scroll_home(animate=False)
        service, ref = self.session.service, self.thread
        item_id, part = key
        self._start(Level.DETAIL, lambda: service.detail(ref, item_id, part), group="detail")

    def _turn_label(self, key: TurnKey) -> str:
        """The open turn's position now (rows move as walks merge), by its key."""
        index = self.window.index_of(key) if self.window is not None else None
        if index is None or self.window is None:
            return "turn"
        number = self.window.number(index)
        if number > 0:
            return f"turn #{number:,}"
        return "newest turn" if number == -1 else f"turn #{-number:,} from the newest"

    def _title_detail(self) -> None:
        if self.detail_key is not None:
            self.query_one("#detail").border_title = plain(self._turn_label(self.detail_key))

    def _render_detail(self, raw_status: str | None = None) -> None:
        if self.session is None or self.window is None or self.detail_key is None:
            return
        if self.detail is not None and self.detail.turn.key == self.detail_key:
            turn: Turn | None = self.detail.turn
        else:
            index = self.window.index_of(self.detail_key)
            turn = self.window.get(index) if index is not None else None
        if turn is None:
            return
        body = render_detail(turn, self.detail, self.session.clock.now(), raw_status=raw_status)
        self.query_one("#detail-body", Static).update(body)

    # -- results -----------------------------------------------------------------------

    def on_loaded(self, message: Loaded) -> None:
        if message.generation != self.generation[message.level] or self.session is None:
            return
        clock = self.session.clock
        if message.level is Level.TENANTS:
            self.tenants = message.value
            tenants = self.query_one("#tenants", RowList)
            tenants.set_source(TenantRows(self.tenants, clock), empty_text="no tenants")
            label = f"{self.session.schema.tenant_label}s"
            tenants.border_title = plain(f"{label} ({len(self.tenants)})")
            tenants.border_subtitle = plain(cost_text(message.cost))
            items = sum(t.items for t in self.tenants)
            notes = "".join(f" · {note}" for note in self.session.listing_notes())
            self.set_status(
                f"{items:,} visible items in {len(self.tenants)} "
                f"{self.session.schema.tenant_label}s · expired items are hidden{notes}"
            )
        elif message.level is Level.THREADS:
            self.threads = message.value
            threads = self.query_one("#threads", RowList)
            threads.set_source(ThreadRows(self.threads, clock), empty_text="no threads")
            label = f"threads of {self.tenant}" if self.tenant is not None else "threads"
            threads.border_title = plain(f"{label} ({len(self.threads)})")
            threads.border_subtitle = plain(cost_text(message.cost))
            self.set_status("")
        elif message.level is Level.TURNS and message.side is not None:
            self.fetching.discard(message.side)
            assert self.window is not None
            turns = self.query_one("#turns", RowList)
            current = self._turn_under_cursor()
            self.window.apply(message.side, message.value)
            turns.source_changed()
            self._place_cursor(current)
            total = self.window.estimated_total
            known = "?" if total is None else f"{total:,}"
            known = known if self.window.complete or total is None else f"~{known}"
            turns.border_subtitle = plain(
                f"{self.window.loaded:,} of {known} loaded · page: {cost_text(message.cost)}"
            )
            if self.level is Level.DETAIL:  # the open turn's row may have moved
                self._title_detail()
                self._update_crumbs()
        elif message.level is Level.DETAIL:
            self.detail = message.value
            self._render_detail()
            detail = self.query_one("#detail")
            detail.border_subtitle = plain(f"point read {cost_text(message.cost)}")

    def on_load_failed(self, message: LoadFailed) -> None:
        if message.generation not in (-1, self.generation[message.level]):
            return
        self.set_status(message.error, error=True)
        if message.level is Level.TENANTS:
            self.query_one("#tenants", RowList).border_subtitle = plain("failed")
        elif message.level is Level.THREADS:
            self.query_one("#threads", RowList).border_subtitle = plain("failed")
            if not self.threads and self.session and self.session.schema.has_tenant_level:
                self.level = Level.TENANTS
                self._layout()
        elif message.level is Level.TURNS:
            if message.side is not None:
                self.fetching.discard(message.side)
            self._reload_target = None
            self.query_one("#turns", RowList).border_subtitle = plain("failed")
            if self.window is not None and self.window.loaded == 0:
                self.level = (
                    Level.THREADS if self.threads or self.tenant is not None else self.level
                )
                self._layout()
        elif message.level is Level.DETAIL:
            self._render_detail(raw_status=message.error)

    @on(RowList.NeedRows, "#turns")
    def _need_turns(self, event: RowList.NeedRows) -> None:
        window = self.window
        if window is None:
            return
        side = window.side_for(event.index)
        if self._follow_end and event.index == len(window) - 1 and window.can_fetch(Side.TAIL):
            side = Side.TAIL  # End with an unknown total: the newest turns, not the next page
        if side is not None:
            self._fetch_turns(side)

    def _turn_under_cursor(self) -> TurnKey | None:
        index = self.query_one("#turns", RowList).current_index
        turn = self.window.get(index) if self.window is not None and index is not None else None
        return turn.key if turn is not None else None

    def _place_cursor(self, current: TurnKey | None) -> None:
        """After a page: keep the cursor on its turn, wherever that row is now."""
        assert self.window is not None
        window, turns = self.window, self.query_one("#turns", RowList)
        if self._reload_target is not None:
            self._seek(self._reload_target)
            return
        index = window.index_of(current) if current is not None else None
        if index is not None:
            before = turns.current_index
            if before is not None and index != before and not turns.filter_text:
                # Rows moved (a merge, a page above): move the view with them.
                y = max(0, int(turns.scroll_y) + index - before)
                turns.scroll_to(y=y, animate=False, immediate=True)
            if index != before:
                turns.select_index(index)
        elif self._follow_end:
            turns.action_last()

    def _seek(self, target: ReloadTarget) -> None:
        """A reload: page from the end the turn was near until it is found or passed."""
        assert self.window is not None
        window, turns = self.window, self.query_one("#turns", RowList)
        index = window.index_of(target.key) if target.key is not None else None
        if index is None:
            index = window.at_anchor(target.side, target.distance)
            if window.can_fetch(target.side) and window.loaded_from(target.side) <= target.distance:
                turns.move_cursor(index)
                self._fetch_turns(target.side)
                return
        self._reload_target = None
        turns.select_index(index)

    def _refresh_countdowns(self) -> None:
        if self.level >= Level.TURNS:
            self.query_one("#turns", RowList).refresh()
        if self.level is Level.DETAIL:
            self._render_detail()

    # -- actions ------------------------------------------------------------------------

    def _keys_to_the_bar(self) -> None:
        """Let keys through to the command bar while it is open."""
        if self.query_one(CommandBar).is_open:
            raise SkipAction()

    def _move(self, list_action: str, detail_action: str) -> None:
        self._keys_to_the_bar()
        if self.level is Level.TURNS:
            self._follow_end = list_action == "action_last"
            self._reload_target = None  # the user moved on: do not pull the cursor back
        if self.level is Level.DETAIL:
            getattr(self.query_one("#detail", VerticalScroll), detail_action)(animate=False)
            return
        list_id = {Level.TENANTS: "tenants", Level.THREADS: "threads", Level.TURNS: "turns"}
        getattr(self.query_one(f"#{list_id[self.level]}", RowList), list_action)()

    def action_cursor_down(self) -> None:
        self._move("action_cursor_down", "scroll_down")

    def action_cursor_up(self) -> None:
        self._move("action_cursor_up", "scroll_up")

    def action_page_down(self) -> None:
        self._move("action_page_down", "scroll_page_down")

    def action_page_up(self) -> None:
        self._move("action_page_up", "scroll_page_up")

    def action_first(self) -> None:
        self._move("action_first", "scroll_home")

    def action_last(self) -> None:
        self._move("action_last", "scroll_end")

    def action_open(self) -> None:
        self._keys_to_the_bar()
        if self.session is None:
            return
        if self.level is Level.TENANTS:
            index = self.query_one("#tenants", RowList).current_index
            if index is not None:
                self._open_threads(self.tenants[index].name)
        elif self.level is Level.THREADS:
            index = self.query_one("#threads", RowList).current_index
            if index is not None:
                thread = self.threads[index]
                self._open_turns(thread.ref, thread.items)
        elif self.level is Level.TURNS and self.window is not None:
            index = self.query_one("#turns", RowList).current_index
            turn = self.window.get(index) if index is not None else None
            if turn is not None:
                self._open_detail(turn.key)

    def action_back(self) -> None:
        self._keys_to_the_bar()
        focused = self.focused
        if isinstance(focused, RowList) and focused.filter_text:
            focused.set_filter("")
            self._show_filter_status(focused)
            return
        if self.session is None:
            return
        lowest = Level.TENANTS if self.session.schema.has_tenant_level else Level.THREADS
        if self.level > lowest:
            self.level = Level(self.level - 1)
            self._layout()

    def action_reload(self) -> None:
        self._keys_to_the_bar()
        if self.session is None:
            return
        if self.level is Level.TENANTS:
            self._load_tenants()
        elif self.level is Level.THREADS:
            self._open_threads(self.tenant)
        elif self.level is Level.TURNS and self.thread is not None and self.window is not None:
            self._open_turns(self.thread, self.window.expected_total, keep=self._reload_here())
        elif self.level is Level.DETAIL and self.detail_key is not None:
            self._open_detail(self.detail_key)

    def _reload_here(self) -> ReloadTarget | None:
        """Where the cursor is, in terms a fresh window can find again."""
        assert self.window is not None
        index = self.query_one("#turns", RowList).current_index
        if index is None:
            return None
        side, distance = self.window.anchor(index)
        return ReloadTarget(self._turn_under_cursor(), side, distance)

    def action_filter(self) -> None:
        self._keys_to_the_bar()
        focused = self.focused
        if isinstance(focused, RowList):
            self._filter_target = focused
            self.query_one(CommandBar).open("filter", focused.filter_text)

    def action_command(self) -> None:
        self._keys_to_the_bar()
        self._filter_target = None
        self.query_one(CommandBar).open("command")

    _filter_target: RowList | None = None

    @property
    def bar_is_open(self) -> bool:
        bars = self.query(CommandBar)
        return bool(bars) and bars.first().is_open

    def bar_key(self, event: events.Key) -> bool:
        """Handle a key while the bar is open, synchronously (called from the app's key loop)."""
        bar = self.query_one(CommandBar)
        if event.key in ("enter", "escape"):
            self._close_bar(submitted=event.key == "enter")
            return True
        if not bar.edit(event):
            return False
        if bar.mode == "filter" and self._filter_target is not None:
            self._filter_target.set_filter(bar.value)
            self._show_filter_status(self._filter_target)
        return True

    def _show_filter_status(self, target: RowList) -> None:
        if not target.filter_text:
            self.set_status("")
            return
        partial = (
            " (loaded rows only)"
            if target.id == "turns" and self.window is not None and not self.window.complete
            else ""
        )
        self.set_status(
            f"filter /{one_line(target.filter_text)}: {target.row_count:,} rows"
            f"{partial} · Esc clears"
        )

    def _close_bar(self, *, submitted: bool) -> None:
        bar = self.query_one(CommandBar)
        bar.close()
        if bar.mode == "filter" and self._filter_target is not None:
            if not submitted:
                self._filter_target.set_filter("")
            self._show_filter_status(self._filter_target)
        self._layout()  # focus goes back to the list, synchronously
        if bar.mode == "command" and submitted:
            self.run_command(bar.value)

    def run_command(self, line: str) -> None:
        """Run one command-mode line (see ``ui/commands.py``)."""
        if self.session is None:
            return
        command = parse_command(line, self.session.schema, self.tenant)
        match command:
            case None:
                return
            case Quit():
                self.app.exit()
            case ShowHelp():
                self.app.action_help()  # type: ignore[attr-defined]
            case ShowTenants():
                self.level = Level.TENANTS
                self._layout()
            case OpenTenant(tenant):
                self._select_tenant_row(tenant)
                self._open_threads(tenant)
            case OpenThread(tenant, thread, tenant_given):
                if tenant_given and tenant != self.tenant:
                    self._select_tenant_row(tenant or "")
                    self._open_threads(tenant)
                known = next(
                    (t for t in self.threads if t.name == thread and t.ref.tenant == tenant), None
                )
                self._open_turns(ThreadRef(tenant, thread), known.items if known else None)
            case Mistake(message):
                self.set_status(message, error=True)

    def _select_tenant_row(self, name: str) -> None:
        for index, tenant in enumerate(self.tenants):
            if tenant.name == name:
                self.query_one("#tenants", RowList).select_index(index)
                return
