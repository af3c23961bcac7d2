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
from textual.timer import Timer
from textual.widgets import Static

from cosmem_tui.core.browse import TurnDetail, TurnPage
from cosmem_tui.core.directory import Listing
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.core.turn_window import Side, TurnKey, TurnWindow
from cosmem_tui.model import (
    BudgetQuestion,
    Key,
    Thread,
    ThreadRef,
    Turn,
)
from cosmem_tui.model.ttl import format_duration
from cosmem_tui.schemas import ValueType
from cosmem_tui.ui.commands import (
    Mistake,
    OpenTenant,
    OpenThread,
    Quit,
    ShowHelp,
    ShowTenants,
    parse_command,
)
from cosmem_tui.ui.confirm import ConfirmBudget
from cosmem_tui.ui.detail import render_detail
from cosmem_tui.ui.keys import BROWSE_KEYS, LIST_KEYS
from cosmem_tui.ui.messages import (
    Charged,
    Counted,
    Level,
    Loaded,
    LoadFailed,
    NamesListed,
    SourceNotice,
    ThrottleNotice,
    cost_text,
    describe_error,
    plain,
)
from cosmem_tui.ui.rows import (
    TENANT_COLUMNS,
    THREAD_COLUMNS,
    TOP_THREAD_COLUMNS,
    TURN_COLUMNS,
    KeyRows,
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
COUNTDOWN_TICK_S = 0.2  # the hold-off countdown in the header, only while holding off


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
        self.tenant: Key | None = None
        self.thread: ThreadRef | None = None
        self.window: TurnWindow | None = None
        # The open turn, by key: its row moves as items expire or arrive and walks merge.
        self.detail_key: TurnKey | None = None
        self._follow_end = False  # End was the last move: stay on the newest turn
        self._reload_target: ReloadTarget | None = None
        self.detail: TurnDetail | None = None
        self.generation = {level: 0 for level in Level}
        self.fetching: set[Side] = set()
        self.keys: KeyRows | None = None  # the top-level list (tenants, or threads)
        self.threads: list[Thread] = []
        self._count_wanted: list[Key] = []  # rows on screen whose counts are missing
        self._counting = False
        self._pending_status: tuple[str, bool] | None = None
        self._countdown: Timer | None = None

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
        session.gateway.set_confirmer(self._confirm_budget)
        self.run_worker(self._fetch_container, group="container", exit_on_error=False)
        self.level = Level.TENANTS
        tenants = self.query_one("#tenants", RowList)
        if session.schema.has_tenant_level:
            tenants.columns = list(tenant_columns(session.schema.tenant_label))
        else:
            tenants.columns = list(TOP_THREAD_COLUMNS)
        tenants.border_title = plain(self._top_label)
        cached = session.service.directory.cached()
        if cached is not None:
            self._show_names(cached)
        self._load_tenants()
        self._layout()
        if session.notes:
            self.set_status("; ".join(session.notes))

    @property
    def _top_label(self) -> str:
        """What the first list holds: "tenants", "users", or "threads" without tenants."""
        assert self.session is not None
        schema = self.session.schema
        return f"{schema.tenant_label}s" if schema.has_tenant_level else "threads"

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
            self.query_one(SessionHeader).show(totals=self.session.gateway.totals())

    def on_throttle_notice(self, message: ThrottleNotice) -> None:
        """A 429: count down the session's hold-off in the header until it is over."""
        self._show_hold_off()
        if self._countdown is None:
            self._countdown = self.set_interval(COUNTDOWN_TICK_S, self._show_hold_off)

    def _show_hold_off(self) -> None:
        if self.session is None:
            return
        pause = self.session.gateway.throttle_pause_s()
        header = self.query_one(SessionHeader)
        if pause > 0:
            header.show(throttle=f"429 · holding off {pause:.1f} s")
            return
        header.show(throttle="")
        if self._countdown is not None:
            self._countdown.stop()
            self._countdown = None

    def on_source_notice(self, message: SourceNotice) -> None:
        self.set_status(message.text)

    async def _confirm_budget(self, request: BudgetQuestion) -> bool:
        """The Gateway's confirmer: a modal, awaited by the worker that wants to go on."""
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def done(result: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(result))

        self.app.push_screen(ConfirmBudget(request), done)
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
            return [("tenants", "32" if wide else "26"), ("threads", "1fr")]
        if level is Level.TURNS:
            if not has_tenants:  # the top list holds the threads
                return [("tenants", "30" if wide else "24"), ("turns", "1fr")]
            if wide:
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
        parts = [self._top_label]
        if self.tenant is not None and self.level >= Level.THREADS:
            parts.append(self.tenant.text)
        if self.thread is not None and self.level >= Level.TURNS:
            parts.append(self.thread.thread.text)
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

    def _load_tenants(self, *, fresh: bool = False) -> None:
        """List the top-level names (resuming or refreshing what is known), page by page."""
        assert self.session is not None
        self._bump(Level.TENANTS)
        generation = self.generation[Level.TENANTS]
        directory = self.session.service.directory
        tenants = self.query_one("#tenants", RowList)
        tenants.border_subtitle = plain("listing…")
        if self.keys is None:
            tenants.set_source(
                KeyRows([], directory, self.session.clock, tenants=True),
                empty_text=f"listing {self._top_label}…",
            )

        def progress(listing: Listing) -> None:
            self.post_message(NamesListed(generation, listing, final=False))

        async def work() -> None:
            with self.session.gateway.caused_by(f"browse: list {self._top_label}"):  # type: ignore[union-attr]
                listing = await directory.list(fresh=fresh, progress=progress)
            self.post_message(NamesListed(generation, listing, final=True))

        self.run_worker(work, group="tenants", exclusive=True, exit_on_error=False)

    def _show_names(self, listing: Listing) -> None:
        """Put the names known so far on screen, keeping the cursor on its row."""
        assert self.session is not None
        tenants = self.query_one("#tenants", RowList)
        current = None
        if self.keys is not None and (index := tenants.current_index) is not None:
            current = self.keys.keys[index] if index < len(self.keys.keys) else None
        self.keys = KeyRows(
            listing.keys,
            self.session.service.directory,
            self.session.clock,
            tenants=self.session.schema.has_tenant_level,
        )
        filter_text = tenants.filter_text
        empty = f"no {self._top_label}" if listing.complete else f"listing {self._top_label}…"
        tenants.set_source(self.keys, empty_text=empty)
        if filter_text:
            tenants.set_filter(filter_text)
        if current is not None and (index := self.keys.index_of(current)) is not None:
            tenants.select_index(index)
        count = f"{len(listing.keys):,}" if listing.complete else f"{len(listing.keys):,}+"
        tenants.border_title = plain(f"{self._top_label} ({count})")

    def on_names_listed(self, message: NamesListed) -> None:
        if message.generation != self.generation[Level.TENANTS] or self.session is None:
            return
        listing = message.listing
        self._show_names(listing)
        tenants = self.query_one("#tenants", RowList)
        if not message.final:
            ranges = (
                f" · partition {listing.ranges_done}/{listing.ranges_total}"
                if listing.ranges_total > 1
                else ""
            )
            tenants.border_subtitle = plain(f"listing…{ranges}")
            return
        age = listing.age_s(self.session.clock.now())
        listed = "" if age is None or age < 60 else f" · names {format_duration(age)} old"
        tenants.border_subtitle = plain(
            f"{'partial' if not listing.complete else 'listed'}{listed}"
        )
        notes = "".join(f" · {note}" for note in self.session.listing_notes())
        if listing.stopped is not None:
            where = (
                f" ({listing.ranges_done} of {listing.ranges_total} partitions)"
                if listing.ranges_total
                else ""
            )
            self.set_status(
                f"{len(listing.keys):,} {self._top_label} listed{where}, then the listing "
                f"stopped: {listing.stopped} · r goes on",
                error=True,
            )
        else:
            self.set_status(
                f"{len(listing.keys):,} {self._top_label} · counts come as rows are shown · "
                f"expired items are hidden{notes}"
            )
        self._want_counts(tenants.shown_indices())

    @on(RowList.RowsShown, "#tenants")
    def _tenant_rows_shown(self, event: RowList.RowsShown) -> None:
        self._want_counts(event.indices)

    def _want_counts(self, indices: tuple[int, ...]) -> None:
        """Count the rows on screen that have no counts yet (one background worker)."""
        if self.session is None or self.keys is None:
            return
        directory = self.session.service.directory
        keys = self.keys.keys
        self._count_wanted = [
            keys[i] for i in indices if i < len(keys) and directory.needs_count(keys[i])
        ]
        if self._count_wanted and not self._counting:
            self._counting = True
            self.run_worker(self._count_rows, group="counts", exit_on_error=False)

    async def _count_rows(self) -> None:
        assert self.session is not None
        directory = self.session.service.directory

        async def lane() -> None:
            while self._count_wanted:
                key = self._count_wanted.pop(0)
                if not directory.needs_count(key):
                    continue
                with self.session.gateway.caused_by(f"browse: count {self._top_label}"):  # type: ignore[union-attr]
                    state = await directory.count(key)
                self.post_message(Counted(key, state))

        try:
            await asyncio.gather(lane(), lane())  # the gateway keeps background work at two
        finally:
            self._counting = False

    def on_counted(self, message: Counted) -> None:
        if self.keys is None:
            return
        self.keys.counts_changed()
        tenants = self.query_one("#tenants", RowList)
        tenants.refresh()
        if message.state.error == "budget spent":
            self.set_status(
                "counts stop at the session's RU budget: rows past it show — · "
                "c counts the rows on screen anyway (asks first)",
                error=False,
            )
        if self._count_wanted and not self._counting:
            self._want_counts(tenants.shown_indices())

    def _open_threads(self, tenant: Key | str) -> None:
        """Open a tenant's threads: a Key from the list, or the text a person typed."""
        assert self.session is not None
        self._bump(Level.THREADS)
        self.tenant = tenant if isinstance(tenant, Key) else None
        self.thread = None
        self.threads = []
        threads = self.query_one("#threads", RowList)
        threads.set_source(ThreadRows([], self.session.clock), empty_text="loading threads…")
        name = tenant.text if isinstance(tenant, Key) else tenant
        threads.border_title = plain(f"threads of {name}")
        threads.border_subtitle = plain("loading…")
        self.level = Level.THREADS
        self._layout()
        service = self.session.service

        async def fetch() -> tuple[Key, list[Thread]]:
            if isinstance(tenant, Key):
                return tenant, await service.threads(tenant)
            return await service.threads_named(tenant)

        self._start(Level.THREADS, fetch, group="threads")

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
        if message.level is Level.THREADS:
            self.tenant, self.threads = message.value
            self._update_crumbs()
            threads = self.query_one("#threads", RowList)
            threads.set_source(ThreadRows(self.threads, clock), empty_text="no threads")
            assert self.tenant is not None
            label = f"threads of {self.tenant.text}"
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
            if index is None or self.keys is None:
                return
            key = self.keys.keys[index]
            if self.session.schema.has_tenant_level:
                self._open_threads(key)
            else:  # the top list holds threads: open its turns
                state = self.session.service.directory.count_state(key)
                known = state.counts.items if state is not None and state.counts else None
                self._open_turns(ThreadRef(None, key), known)
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
        if self.level > Level.TENANTS:
            self.level = Level(self.level - 1)
            if self.level is Level.THREADS and not self.session.schema.has_tenant_level:
                self.level = Level.TENANTS  # the top list holds the threads
            self._layout()

    def action_reload(self) -> None:
        self._keys_to_the_bar()
        if self.session is None:
            return
        if self.level is Level.TENANTS:
            self.session.service.directory.invalidate_failures()
            self._load_tenants()
        elif self.level is Level.THREADS and self.tenant is not None:
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
        current = self.tenant.text if self.tenant is not None else None
        command = parse_command(line, self.session.schema, current)
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
                self._select_key_row(tenant)
                self._open_threads(tenant)
            case OpenThread(tenant, thread, tenant_given):
                self._open_named_thread(tenant, thread, tenant_given=tenant_given)
            case Mistake(message):
                self.set_status(message, error=True)

    def _open_named_thread(self, tenant: str | None, thread: str, *, tenant_given: bool) -> None:
        """``:thread [TENANT] ID``: resolve the typed names to keys, then open the turns."""
        assert self.session is not None
        service = self.session.service
        if tenant_given and tenant is not None:
            self._select_key_row(tenant)
            self._open_threads(tenant)
        current = self.tenant if not tenant_given else None

        async def resolve() -> ThreadRef:
            if current is not None:
                return ThreadRef(current, self.session.schema.parse_thread(thread))  # type: ignore[union-attr]
            return await service.resolve(tenant, thread)

        async def work() -> None:
            try:
                ref = await resolve()
            except Exception as exc:
                self.post_message(
                    LoadFailed(Level.TURNS, self.generation[Level.TURNS], describe_error(exc))
                )
                return
            self.call_later(self._open_resolved, ref)

        self.run_worker(work, group="resolve", exclusive=True, exit_on_error=False)

    def _open_resolved(self, ref: ThreadRef) -> None:
        known = next((t for t in self.threads if t.ref == ref), None)
        self._open_turns(ref, known.items if known else None)

    def _select_key_row(self, text: str) -> None:
        if self.keys is None:
            return
        for index, key in enumerate(self.keys.keys):
            if key.text == text or key == Key.of(text):
                self.query_one("#tenants", RowList).select_index(index)
                return
