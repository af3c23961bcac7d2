"""The turns of a thread (browse's third column), paged lazily from both ends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from textual import on
from textual.message import Message

from cosmem_tui.core.browse import TurnPage
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line, visible
from cosmem_tui.core.thread_search import ThreadSearch
from cosmem_tui.core.turn_gaps import missing_total
from cosmem_tui.core.turn_window import Side, TurnKey, TurnWindow
from cosmem_tui.model import Clock, Meter, ThreadRef, Turn
from cosmem_tui.model.lifecycle import horizon_label
from cosmem_tui.schemas import Granularity, ValueType
from cosmem_tui.ui.actions import show_key
from cosmem_tui.ui.host import Host
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import cost_text, plain
from cosmem_tui.ui.views.browse.gap_history import GapHistory
from cosmem_tui.ui.views.browse.rows import (
    TURN_COLUMNS,
    TurnRows,
    turn_name,
)
from cosmem_tui.ui.views.browse.status import RETRY, Status, failed_text
from cosmem_tui.ui.views.browse.thread_search import HitCursor, jump, mark
from cosmem_tui.ui.widgets.row_list import Cell, RowList

TURN_PAGE_SIZE = 100
EXPIRES_COLUMN = next(i for i, c in enumerate(TURN_COLUMNS) if c.title == "EXPIRES")
TIME_ORDERS = (ValueType.ISO8601, ValueType.EPOCH_S, ValueType.EPOCH_MS, ValueType.EPOCH_NS)


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

    def __init__(
        self,
        column: TurnColumn,
        window: TurnWindow,
        clock: Clock,
        *,
        positional: bool = False,
        gaps: bool = False,
    ) -> None:
        super().__init__(window, clock, positional=positional, gaps=gaps)
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
        self.gap_history = GapHistory(self, self.redraw)  # what the markers can say

    def redraw(self) -> None:
        self.refresh()

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
        self.gap_history.open(ref, session.clock)
        self.rows.gap_words = self.gap_history.words
        history_key = cast(Host, self.app).registry.first_key("browse.history")
        self.rows.gap_key = show_key(history_key) if history_key else ""
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
        window, service = self.window, self.session.browse
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
            if self.rows.gaps and self.session is not None:
                self.gap_history.gaps_found(self.session)
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

    # -- whole-thread search (thread_search.py) -------------------------------

    def start_search(self, text: str) -> str:
        """Search the open thread on the server and go to the first hit; the status."""
        if self.session is None or self.window is None:
            return "open a thread to search it"
        try:
            self.hits = HitCursor(ThreadSearch(self.session.browse, self.window.ref, text))
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
