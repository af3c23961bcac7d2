"""The browse columns, each a widget that owns its loading, its errors and its states.

Every column shows one of: *loading* (what it is waiting for), *empty* ("no threads",
"no turns match 'x' (24 loaded; Esc clears)"), *failed* (the whole message, wrapped,
with the fix and ``r``), or *partial* ("300 of 376 loaded — 1 page failed"): never a
spinner that hides an error, never an old error after a successful reload. Columns
tell the screen what the user should read in the status line (``Status``) and what
they loaded (for the breadcrumbs) by messages; the screen owns the levels and the
layout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from textual import on
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from cosmem_tui.core.browse import BrowseService, TurnDetail, TurnPage
from cosmem_tui.core.directory import Listing
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line, visible
from cosmem_tui.core.thread_search import ThreadSearch
from cosmem_tui.core.turn_gaps import missing_total
from cosmem_tui.core.turn_window import Side, TurnKey, TurnWindow
from cosmem_tui.model import Key, Meter, Thread, ThreadRef, Turn
from cosmem_tui.model.lifecycle import horizon_label
from cosmem_tui.model.telemetry import HotKeysReport, KeyLevel, Window
from cosmem_tui.model.ttl import format_duration
from cosmem_tui.schemas import Granularity, ValueType
from cosmem_tui.ui.actions import show_key
from cosmem_tui.ui.browse.thread_search import HitCursor, jump, mark
from cosmem_tui.ui.detail import RawItem, raw_item, render_detail
from cosmem_tui.ui.host import Host
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import cost_text, plain
from cosmem_tui.ui.rows import (
    THREAD_COLUMNS,
    TOP_THREAD_COLUMNS,
    TURN_COLUMNS,
    KeyRows,
    TenantLoad,
    ThreadRows,
    TurnRows,
    tenant_columns,
    turn_name,
)
from cosmem_tui.ui.telemetry import hot_keys_of, problem_text
from cosmem_tui.ui.widgets.long_static import LongStatic
from cosmem_tui.ui.widgets.row_list import Cell, RowList

TURN_PAGE_SIZE = 100
EXPIRES_COLUMN = next(i for i, c in enumerate(TURN_COLUMNS) if c.title == "EXPIRES")
TIME_ORDERS = (ValueType.ISO8601, ValueType.EPOCH_S, ValueType.EPOCH_MS, ValueType.EPOCH_NS)
RETRY = "r retries"
LOAD_WINDOW = Window.M15  # the tenant list's RU% and ▲: load over the last 15 minutes
LOAD_STALE_S = 60.0  # shown again after this long, the list asks for fresher load


class Status(Message):
    """A line for the view's status bar (the whole of it is also in the column)."""

    def __init__(self, text: str, *, error: bool = False) -> None:
        super().__init__()
        self.text = text
        self.error = error


def failed_text(what: str, error: str) -> str:
    return f"{what} failed: {visible(error)}\n\n{RETRY}"


# -- the top list: tenants (or threads, on schemas without tenants) ---------------------------


class KeyColumn(RowList):
    """Names first, page by page; counts for the rows on screen, each on its own."""

    def __init__(self) -> None:
        super().__init__(tenant_columns("tenant"), id="tenants", empty_text="loading tenants…")
        self.session: Session | None = None
        self.rows: KeyRows | None = None
        self.listing: Listing | None = None
        self.loader = Loader(self, "tenants")
        self.load_loader = Loader(self, "tenant-load")
        self.tenant_load: TenantLoad | None = None
        self.load_asked_at: float | None = None
        self._wanted: list[Key] = []
        self._counting = False
        # The tenants' load is asked once the first screen is listed and counted: on start
        # the names and counts come first (the telemetry answer competes for the CPU).
        self._load_after_counts = False

    @property
    def label(self) -> str:
        """What it holds: "tenants", "users", or "threads" without a tenant level."""
        if self.session is None:
            return "tenants"
        schema = self.session.schema
        return f"{schema.tenant_label}s" if schema.has_tenant_level else "threads"

    @property
    def service(self) -> BrowseService:
        assert self.session is not None
        return self.session.service

    def begin(self, session: Session) -> None:
        self.session = session
        self.tenant_load = None
        self.load_asked_at = None
        self._show_columns()
        self.noun = self.label
        self.set_title(self.label)
        cached = self.service.directory.cached()
        if cached is not None:
            self._show(cached)
        self.load()
        self._load_after_counts = True

    def _show_columns(self) -> None:
        assert self.session is not None
        schema = self.session.schema
        self.set_columns(
            tenant_columns(schema.tenant_label, self.tenant_load)
            if schema.has_tenant_level
            else TOP_THREAD_COLUMNS
        )

    # -- load: each tenant's share of the RU, when the session has telemetry ----------------

    @property
    def has_load(self) -> bool:
        """Telemetry is configured and its first key level is this list's tenants."""
        session = self.session
        if session is None or hot_keys_of(session) is None:
            return False
        schema = session.schema
        return schema.tenant is not None and schema.partition_key[:1] == (schema.tenant.text,)

    def ask_load(self, *, unless_fresh: bool = False) -> None:
        """Ask the hot-keys service for the tenants' RU in the last 15 minutes."""
        if not self.has_load:
            return
        assert self.session is not None
        session, service = self.session, hot_keys_of(self.session)
        assert service is not None
        now = session.clock.now()
        asked = self.load_asked_at
        if unless_fresh and asked is not None and now - asked < LOAD_STALE_S:
            return
        self.load_asked_at = now
        self.load_loader.bump()
        self.load_loader.start(
            session,
            lambda: service.report(LOAD_WINDOW, level=KeyLevel.TENANT),
            lambda report, _cost: self._load_arrived(report),
            lambda error: self.post_message(Status(f"tenant load: {error} · ▲ marks items")),
            cause="browse: tenant load",
        )

    def _load_arrived(self, report: HotKeysReport) -> None:
        self.tenant_load = TenantLoad.of(report)
        self._show_columns()
        if self.rows is not None:
            self.rows.set_load(self.tenant_load)
        self.refresh()
        if self.tenant_load is None:
            why = "; ".join(problem_text(p) for p in report.problems) or "no keyed requests"
            self.post_message(Status(f"tenant load unknown ({why}) · ▲ marks items"))

    def key_at(self, index: int | None) -> Key | None:
        if index is None or self.rows is None or index >= len(self.rows.keys):
            return None
        return self.rows.keys[index]

    @property
    def current_key(self) -> Key | None:
        return self.key_at(self.current_index)

    # -- names ---------------------------------------------------------------------------

    def load(self, *, fresh: bool = False) -> None:
        """List the names (resuming or refreshing what is known); counts follow the screen."""
        assert self.session is not None
        generation = self.loader.bump()
        directory = self.service.directory
        self.border_subtitle = plain("listing…")
        if self.rows is None:
            self.set_source(
                KeyRows([], directory, self.session.clock, tenants=True, load=self.tenant_load),
                empty_text=f"listing {self.label}…",
            )
        self.clear_message()

        def progress(listing: Listing) -> None:
            self.call_later(self._progress, generation, listing)

        self.loader.start(
            self.session,
            lambda: directory.list(fresh=fresh, progress=progress),
            lambda listing, _cost: self._listed(listing),
            self._failed,
            cause=f"browse: list {self.label}",
        )

    def _progress(self, generation: int, listing: Listing) -> None:
        if generation != self.loader.generation:
            return
        self._show(listing)
        ranges = (
            f" · partition {listing.ranges_done}/{listing.ranges_total}"
            if listing.ranges_total > 1
            else ""
        )
        self.border_subtitle = plain(f"listing…{ranges}")

    def _show(self, listing: Listing) -> None:
        """The names known so far, the cursor kept on its row."""
        assert self.session is not None
        self.listing = listing
        current = self.current_key
        self.rows = KeyRows(
            listing.keys,
            self.service.directory,
            self.session.clock,
            tenants=self.session.schema.has_tenant_level,
            load=self.tenant_load,
        )
        empty = f"no {self.label}" if listing.complete else f"listing {self.label}…"
        self.update_source(self.rows, empty_text=empty)
        if current is not None and (index := self.rows.index_of(current)) is not None:
            self.select_index(index)
        count = f"{len(listing.keys):,}" if listing.complete else f"{len(listing.keys):,}+"
        self.set_title(self.label, count)

    def _listed(self, listing: Listing) -> None:
        assert self.session is not None
        self._show(listing)
        age = listing.age_s(self.session.clock.now())
        listed = "" if age is None or age < 60 else f" · names {format_duration(age)} old"
        state = "listed" if listing.complete else "partial"
        self.border_subtitle = plain(f"{state}{listed}")
        notes = "".join(f" · {note}" for note in self.session.listing_notes())
        if listing.stopped is not None:
            where = (
                f" ({listing.ranges_done} of {listing.ranges_total} partitions)"
                if listing.ranges_total
                else ""
            )
            message = (
                f"{len(listing.keys):,} {self.label} listed{where}, then the listing stopped: "
                f"{listing.stopped} · r goes on"
            )
            if not listing.keys:  # nothing at all: a failure, said in the pane itself
                self.border_subtitle = plain("failed")
                self.show_message(failed_text(f"listing {self.label}", listing.stopped))
                message = f"listing {self.label} failed: {listing.stopped} · {RETRY}"
            self.post_message(Status(message, error=True))
        else:
            self.post_message(
                Status(
                    f"{len(listing.keys):,} {self.label} · counts come as rows are shown · "
                    f"expired items are hidden{notes}"
                )
            )
        self.want_counts(self.shown_indices())
        self._ask_load_when_counted()

    def _failed(self, error: str) -> None:
        self.border_subtitle = plain("failed")
        if self.row_count == 0:
            self.show_message(failed_text(f"listing {self.label}", error))
        self.post_message(Status(f"{error} · {RETRY}", error=True))
        self._ask_load_when_counted()

    def _ask_load_when_counted(self) -> None:
        if self._load_after_counts and not self._counting:
            self._load_after_counts = False
            self.ask_load()

    # -- counts ---------------------------------------------------------------------------

    @on(RowList.RowsShown)
    def _rows_shown(self, event: RowList.RowsShown) -> None:
        self.want_counts(event.indices)

    def want_counts(self, indices: tuple[int, ...], *, foreground: bool = False) -> None:
        """Count the rows on screen that have no counts yet (one worker, two lanes)."""
        if self.session is None or self.rows is None:
            return
        directory = self.service.directory
        keys = self.rows.keys
        self._wanted = [
            keys[i] for i in indices if i < len(keys) and directory.needs_count(keys[i])
        ]
        if self._wanted and not self._counting:
            self._counting = True
            self.run_worker(self._count_rows, group="counts", exit_on_error=False)

    async def _count_rows(self) -> None:
        assert self.session is not None
        directory = self.service.directory
        ledger = self.session.ledger

        async def lane() -> None:
            while self._wanted:
                key = self._wanted.pop(0)
                if not directory.needs_count(key):
                    continue
                with ledger.caused_by(f"browse: count {self.label}"):
                    state = await directory.count(key)
                self.call_later(self._counted, state.error)

        try:
            await asyncio.gather(lane(), lane())  # the ledger keeps background work at two
        finally:
            self._counting = False
            self.call_later(self._ask_load_when_counted)

    def _counted(self, error: str | None) -> None:
        if self.rows is None:
            return
        self.rows.counts_changed()
        self.refresh()
        if error == "budget spent":
            self.post_message(
                Status(
                    "counts stop at the session's RU budget: rows past it show — · "
                    "c counts the rows on screen anyway (asks first)"
                )
            )
        if self._wanted and not self._counting:
            self.want_counts(self.shown_indices())

    def count_shown_now(self) -> None:
        """``c``: count the rows on screen in the foreground (past the budget, it asks)."""
        if self.session is None or self.rows is None:
            return
        directory = self.service.directory
        keys = [self.rows.keys[i] for i in self.shown_indices() if i < len(self.rows.keys)]
        directory.forget_counts(keys)

        async def count() -> int:
            done = 0
            for key in keys:
                state = await directory.count(key, background=False)
                done += state.counts is not None
            return done

        self.loader.start(
            self.session,
            count,
            lambda done, cost: self._counted_now(done, len(keys), cost),
            self._failed,
            cause=f"browse: count {self.label} on screen",
            group="count-now",
        )

    def _counted_now(self, done: int, asked: int, cost: Meter) -> None:
        if self.rows is not None:
            self.rows.counts_changed()
        self.refresh()
        self.post_message(Status(f"counted {done} of {asked} rows on screen ({cost_text(cost)})"))


# -- the threads of a tenant ---------------------------------------------------------------


class ThreadsLoaded(Message):
    def __init__(self, tenant: Key) -> None:
        super().__init__()
        self.tenant = tenant


class ThreadsFailed(Message):
    pass


class ThreadColumn(RowList):
    def __init__(self) -> None:
        super().__init__(THREAD_COLUMNS, id="threads", empty_text="no threads", noun="threads")
        self.session: Session | None = None
        self.tenant: Key | None = None
        self.threads: list[Thread] = []
        self.loader = Loader(self, "threads")
        self.wanted: Key | None = None  # the thread to highlight once listed (":thread ID")

    def open(self, session: Session, tenant: Key | str) -> None:
        """A tenant's threads: a Key from the list, or the text a person typed."""
        self.session = session
        self.loader.bump()
        self.tenant = tenant if isinstance(tenant, Key) else None
        self.threads = []
        self.wanted = None
        self.set_source(ThreadRows([], session.clock), empty_text="loading threads…")
        name = tenant.text if isinstance(tenant, Key) else tenant
        self.set_title(f"threads of {one_line(name, exact=True)}")
        self.border_subtitle = plain("loading…")
        service = session.service

        async def fetch() -> tuple[Key, list[Thread]]:
            if isinstance(tenant, Key):
                return tenant, await service.threads(tenant)
            return await service.threads_named(tenant)

        self.loader.start(session, fetch, self._loaded, self._failed, cause="browse: open a tenant")

    def show_found(self, session: Session, value: tuple[Key, list[Thread]], cost: Meter) -> None:
        """A tenant's threads already listed (``:tenant NAME`` found it first)."""
        self.session = session
        self.loader.bump()
        self.wanted = None
        self.clear_message()
        self._loaded(value, cost)

    def _loaded(self, value: tuple[Key, list[Thread]], cost: Meter) -> None:
        assert self.session is not None
        self.tenant, self.threads = value
        self.set_source(ThreadRows(self.threads, self.session.clock), empty_text="no threads")
        self.set_title(
            f"threads of {one_line(self.tenant.text, exact=True)}", f"{len(self.threads):,}"
        )
        if self.wanted is not None:
            self.select_thread(self.wanted)
        self.border_subtitle = plain(cost_text(cost))
        self.post_message(Status(""))
        self.post_message(ThreadsLoaded(self.tenant))

    def _failed(self, error: str) -> None:
        self.border_subtitle = plain("failed")
        self.show_message(failed_text("opening the tenant", error))
        self.post_message(Status(f"{error} · {RETRY}", error=True))
        self.post_message(ThreadsFailed())

    def select_thread(self, thread: Key) -> None:
        """Highlight ``thread``'s row; if the list is still loading, once it is listed."""
        self.wanted = thread
        index = next((i for i, t in enumerate(self.threads) if t.ref.thread == thread), None)
        if index is not None:
            self.wanted = None
            self.select_index(index)

    @property
    def current_thread(self) -> Thread | None:
        index = self.current_index
        return self.threads[index] if index is not None and index < len(self.threads) else None


# -- the turns of a thread -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReloadTarget:
    """The turn to return to after a reload, and where it was: ``distance`` rows from ``side``."""

    key: TurnKey | None  # None: the cursor was on a row not loaded yet
    side: Side
    distance: int


class TurnsChanged(Message):
    """Pages arrived (rows may have moved): the detail's title follows its turn."""


class TurnsFailed(Message):
    def __init__(self, nothing_loaded: bool) -> None:
        super().__init__()
        self.nothing_loaded = nothing_loaded


class FailedTurnRows(TurnRows):
    """Turn rows whose unloaded placeholders say so when the page for them failed."""

    def __init__(self, column: TurnColumn, window: TurnWindow, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(window, *args, **kwargs)
        self.column = column

    def row(self, index: int) -> list[Cell] | None:
        cells = super().row(index)
        hits = self.column.hits
        if cells is None or hits is None or not hits.keys:
            return cells
        turn = self.turn_at(index)
        return mark(cells, turn is not None and turn.key in hits.keys)

    def placeholder(self, index: int) -> str | None:
        window_index = self.window_index(index)
        if window_index is None:
            return None
        side = self.window.side_for(window_index)
        failed = self.column.failed.get(side) if side is not None else None
        return f"page failed: {visible(failed)} · {RETRY}" if failed is not None else None


class TurnColumn(RowList):
    def __init__(self) -> None:
        super().__init__(TURN_COLUMNS, id="turns", empty_text="no turns", noun="turns")
        self.session: Session | None = None
        self.window: TurnWindow | None = None
        self.rows: TurnRows | None = None
        self.expiring_within: int | None = None  # the "expiring within" narrowing (seconds)
        self.loader = Loader(self, "turns")
        self.fetching: set[Side] = set()
        self.failed: dict[Side, str] = {}  # the pages that failed, by the end they came from
        self.follow_end = False  # End was the last move: stay on the newest turn
        self.reload_target: ReloadTarget | None = None
        self.hits: HitCursor | None = None  # a whole-thread search of the open thread

    @property
    def ref(self) -> ThreadRef | None:
        return self.window.ref if self.window is not None else None

    def open(
        self,
        session: Session,
        ref: ThreadRef,
        expected: int | None,
        *,
        keep: ReloadTarget | None = None,
    ) -> None:
        """Show a thread's turns; ``keep``: a reload, to come back to the same turn."""
        self.session = session
        self.loader.bump()
        self.fetching.clear()
        self.failed.clear()
        self.hits = None
        self.window = TurnWindow(ref, expected)
        self.reload_target = keep
        if keep is None:
            self.follow_end = False
        order = session.schema.order
        positional = order is not None and order.type in TIME_ORDERS
        # Missing turns can be counted only where the order is an integer sequence.
        gaps = (
            order is not None
            and order.type is ValueType.INT
            and session.schema.granularity is not Granularity.SESSION
        )
        self.rows = FailedTurnRows(
            self, self.window, session.clock, positional=positional, gaps=gaps
        )
        self.expiring_within = None
        self.set_source(self.rows, empty_text="loading turns…")
        self.set_title(f"turns of {one_line(ref.thread.text, exact=True)}")
        self.border_subtitle = plain("loading…")
        self.fetch(Side.HEAD, first=True)
        if keep is not None and keep.side is Side.TAIL:
            self.fetch(Side.TAIL)

    def _window_index(self, display: int | None) -> int | None:
        """The window row at a display row; a gap marker stands for the turn after it."""
        if display is None or self.rows is None:
            return None
        index = self.rows.window_index(display)
        if index is None:
            index = self.rows.window_index(display + 1)
        return index

    def _display_index(self, index: int) -> int:
        return self.rows.display_index(index) if self.rows is not None else index

    def reload_here(self) -> ReloadTarget | None:
        """Where the cursor is, in terms a fresh window can find again."""
        if self.window is None or (index := self._window_index(self.current_index)) is None:
            return None
        side, distance = self.window.anchor(index)
        return ReloadTarget(self.turn_under_cursor(), side, distance)

    def fetch(self, side: Side, *, first: bool = False) -> None:
        assert self.session is not None and self.window is not None
        if side in self.fetching or (not first and not self.window.can_fetch(side)):
            return
        if self.hits is not None and self.hits.busy:
            return  # a jump to a hit is paging the head: it asks again when it lands
        self.fetching.add(side)
        self.failed.pop(side, None)
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

        self.loader.start(
            self.session,
            fetch,
            lambda page, cost: self._page_loaded(side, page, cost),
            lambda error: self._page_failed(side, error),
            cause="browse: page turns",
            group=f"turns-{side.value}",
        )

    def _page_loaded(self, side: Side, page: TurnPage, cost: Meter) -> None:
        self.fetching.discard(side)
        assert self.window is not None
        current = self.turn_under_cursor()
        self.window.apply(side, page)
        self._window_grew()
        self._place_cursor(current)
        self._subtitle(f"page: {cost_text(cost)}")
        if not self.failed:
            self.post_message(Status(""))
        self.post_message(TurnsChanged())

    def _window_grew(self) -> None:
        """Pages were applied: the gaps are found again and the list follows its rows."""
        if self.rows is not None:
            self.rows.refresh_gaps()
        self.source_changed()

    def _subtitle(self, tail: str) -> None:
        assert self.window is not None
        total = self.window.estimated_total
        known = "?" if total is None else f"{total:,}"
        known = known if self.window.complete or total is None else f"~{known}"
        failed = f" — {len(self.failed)} page{'s' if len(self.failed) > 1 else ''} failed"
        self.border_subtitle = plain(
            f"{self.window.loaded:,} of {known} loaded{failed if self.failed else ''}"
            f"{self.missing_note()} · {tail}"
        )

    def missing_note(self) -> str:
        """`` · 11 missing``: turns the integer sequence lacks among the loaded rows."""
        if self.rows is None or not self.rows.gaps or self.window is None:
            return ""
        missing, lower_bound = missing_total(self.rows.gaps)
        at_least = "≥" if lower_bound or not self.window.complete else ""
        return f" · {at_least}{missing:,} missing"

    def _page_failed(self, side: Side, error: str) -> None:
        self.fetching.discard(side)
        self.reload_target = None
        self.failed[side] = error
        nothing = self.window is None or self.window.loaded == 0
        if nothing:
            self.border_subtitle = plain("failed")
            self.show_message(failed_text("reading the turns", error))
        else:
            self._subtitle(RETRY)
            self.refresh()  # the rows that page would fill now say it failed
        self.post_message(Status(f"{error} · {RETRY}", error=True))
        self.post_message(TurnsFailed(nothing))

    @on(RowList.NeedRows)
    def _need_rows(self, event: RowList.NeedRows) -> None:
        window = self.window
        index = self._window_index(event.index)
        if window is None or index is None:
            return
        side = window.side_for(index)
        if self.follow_end and index == len(window) - 1 and window.can_fetch(Side.TAIL):
            side = Side.TAIL  # End with an unknown total: the newest turns, not the next page
        if side is not None and side not in self.failed:  # a failed page waits for r
            self.fetch(side)

    def searchable_total(self) -> int:
        """A filter looks at the loaded turns only."""
        return self.window.loaded if self.window is not None else 0

    def turn_under_cursor(self) -> TurnKey | None:
        turn = self.current_turn
        return turn.key if turn is not None else None

    @property
    def current_turn(self) -> Turn | None:
        """The turn under the cursor (on a gap marker: the turn after the gap)."""
        index = self._window_index(self.current_index)
        return self.window.get(index) if self.window is not None and index is not None else None

    def _place_cursor(self, current: TurnKey | None) -> None:
        """After a page: keep the cursor on its turn, wherever that row is now."""
        assert self.window is not None
        window = self.window
        if self.reload_target is not None:
            self._seek(self.reload_target)
            return
        index = window.index_of(current) if current is not None else None
        if index is not None:
            index = self._display_index(index)
            before = self.current_index
            if before is not None and index != before and not self.filter_text:
                # Rows moved (a merge, a page above): move the view with them.
                y = max(0, int(self.scroll_y) + index - before)
                self.scroll_to(y=y, animate=False, immediate=True)
            if index != before:
                self.select_index(index)
        elif self.follow_end:
            self.action_last()

    def _seek(self, target: ReloadTarget) -> None:
        """A reload: page from the end the turn was near until it is found or passed."""
        assert self.window is not None
        window = self.window
        index = window.index_of(target.key) if target.key is not None else None
        if index is None:
            index = window.at_anchor(target.side, target.distance)
            if window.can_fetch(target.side) and window.loaded_from(target.side) <= target.distance:
                self.move_cursor(self._display_index(index))
                self.fetch(target.side)
                return
        self.reload_target = None
        self.select_index(self._display_index(index))

    def moved(self, action: str) -> None:
        """The user moved the cursor: End follows the newest turn, nothing pulls it back."""
        self.follow_end = action == "last"
        self.reload_target = None

    def turn_label(self, key: TurnKey) -> str:
        """A turn's name, as its row shows it: its order value as stored (``turn_name``);
        on a schema ordered by a time, its position now (rows move as walks merge)."""
        index = self.window.index_of(key) if self.window is not None else None
        if index is None or self.window is None:
            return "turn"
        turn = self.window.get(index)
        if turn is not None and (self.rows is None or not self.rows.positional):
            return turn_name(turn)
        number = self.window.number(index)
        if number > 0:
            return f"turn #{number:,}"
        return "newest turn" if number == -1 else f"turn #{-number:,} from the newest"

    @property
    def widen_key(self) -> str:
        """The key that widens the expiring narrowing, as the user has it bound."""
        key = cast(Host, self.app).registry.first_key("browse.expiring")
        return show_key(key) if key else ":expiring"

    def narrow_expiring(self, within: int | None) -> str:
        """Show only the loaded turns that expire within ``within`` s (None: all); the
        status line to show."""
        self.expiring_within = within
        rows = self.rows
        if within is None or rows is None:
            self.set_narrow(None)
            return ""
        self.set_narrow(
            lambda index: rows.expiring_within(index, within),
            f"expiring within {horizon_label(within)}",
            f"{self.widen_key} widens",
            column=EXPIRES_COLUMN,  # what it narrows to stays on screen at any width
        )
        return self.narrow_status(within)

    def narrow_status(self, within: int, *, thread_total: int | None = None) -> str:
        shown = self.row_count
        turns = "turn" if shown == 1 else "turns"
        line = f"expiring within {horizon_label(within)}: {shown:,} {turns}"
        if self.window is not None and not self.window.complete:
            line += " among the loaded rows"
            if thread_total is not None:
                line += f" (the thread has {thread_total:,} such items: scroll to load them)"
        return line + f" · {self.widen_key} widens · Esc clears"

    # -- whole-thread search (ui/browse/thread_search.py) -------------------------------

    def start_search(self, text: str) -> str:
        """Search the open thread on the server and go to the first hit; the status."""
        if self.session is None or self.window is None:
            return "open a thread to search it"
        try:
            self.hits = HitCursor(ThreadSearch(self.session.service, self.window.ref, text))
        except ValueError as exc:
            return f"search: {exc}"
        self.set_filter("")  # the server's hits, not the loaded rows' filter
        return jump(self, 1)

    def leave_search(self) -> bool:
        """Esc: forget the search (True if there was one)."""
        if self.hits is None:
            return False
        self.hits = None
        self.refresh()
        return True

    def apply_head_pages(self, pages: Sequence[TurnPage]) -> None:
        """The head pages a jump to a hit brought, applied in order, then the list follows
        once (a far hit may bring hundreds of pages)."""
        if not pages:
            return
        assert self.window is not None
        for page in pages:
            self.window.apply(Side.HEAD, page)
        self._window_grew()
        self._subtitle("to the hit")

    def show_turn(self, key: TurnKey) -> None:
        """Put the cursor on a loaded turn."""
        index = self.window.index_of(key) if self.window is not None else None
        self.follow_end = False
        self.reload_target = None
        if index is not None:
            self.select_index(self._display_index(index))
        self.refresh()
        self.post_message(TurnsChanged())

    def show_status(self, text: str, *, error: bool = False) -> None:
        self.refresh()  # the marks of hits that just became known
        self.post_message(Status(text, error=error))

    def partial_note(self) -> str:
        return " (loaded rows only)" if self.window is not None and not self.window.complete else ""


# -- one turn --------------------------------------------------------------------------------


class DetailPane(VerticalScroll):
    """One turn: transcript, TTL, problems and the raw item (one point read)."""

    def __init__(self) -> None:
        super().__init__(LongStatic(id="detail-body"), id="detail", can_focus=True)
        self.session: Session | None = None
        self.key: TurnKey | None = None
        self.detail: TurnDetail | None = None
        self.raw: RawItem | None = None  # self.detail's raw section, encoded once
        self.loader = Loader(self, "detail")
        self._turn_of: Callable[[TurnKey], Turn | None] = lambda _key: None
        self._label_of: Callable[[TurnKey], str] = lambda _key: "turn"

    def open(
        self,
        session: Session,
        ref: ThreadRef,
        key: TurnKey,
        turn_of: Callable[[TurnKey], Turn | None],
        label_of: Callable[[TurnKey], str],
    ) -> None:
        self.session = session
        self.loader.bump()
        self.key = key
        self.detail = None
        self.raw = None
        self._turn_of = turn_of
        self._label_of = label_of
        self.border_title = plain(label_of(key))
        self.border_subtitle = plain("point read…")
        self.render_turn()
        self.scroll_home(animate=False)
        service = session.service
        item_id, part = key

        async def fetch() -> tuple[TurnDetail, RawItem]:
            detail = await service.detail(ref, item_id, part)
            # Encoding a large item (indented JSON is Python's slow encoder) waits in a
            # thread, not on the screen: 50,000 messages take most of a second.
            return detail, await asyncio.to_thread(raw_item, detail)

        self.loader.start(session, fetch, self._loaded, self._failed, cause="browse: open a turn")

    def _loaded(self, loaded: tuple[TurnDetail, RawItem], cost: Meter) -> None:
        self.detail, self.raw = loaded
        self.render_turn()
        self.border_subtitle = plain(f"point read {cost_text(cost)}")
        self.post_message(Status(""))

    def _failed(self, error: str) -> None:
        self.border_subtitle = plain("failed")
        self.render_turn(raw_status=error)
        self.post_message(Status(f"{error} · {RETRY}", error=True))

    @property
    def read_key(self) -> str:
        """The key that reads a cut text in full, as the user has it bound."""
        key = cast(Host, self.app).registry.first_key("list.detail")
        return show_key(key) if key else "ctrl+p"

    def follow_label(self) -> None:
        """Rows moved (pages arrived): a turn named by its position is named anew."""
        if self.key is None:
            return
        label = plain(self._label_of(self.key))
        if label != self.border_title:
            self.border_title = label
            self.render_turn()

    def render_turn(self, raw_status: str | None = None) -> None:
        if self.session is None or self.key is None:
            return
        if self.detail is not None and self.detail.turn.key == self.key:
            turn: Turn | None = self.detail.turn
        else:
            turn = self._turn_of(self.key)
        if turn is None:
            return
        body = render_detail(
            turn,
            self.detail,
            self.session.clock.now(),
            raw_status=raw_status,
            read_key=self.read_key,
            label=self._label_of(self.key),
            raw=self.raw,
        )
        self.query_one("#detail-body", Static).update(body)
