"""The change-feed tail view (``:tail``, ``C``): turns as they are written, live.

For the on-call engineer's "are turns still being written, by whom, how fast, and is
one tenant flooding?": the change feed of the container, a tenant or a thread, newest
first — time, operation (create / replace / write / delete / expired (TTL)), tenant,
thread, id, order, role and a one-line preview, the RU each change cost — under a rate
line (changes per second over the last minute, the top writers, a flood warning).

It follows what browse has selected when it is shown (the open thread, else the open
or highlighted tenant), or what ``:tail TENANT [THREAD]`` names. Each poll is the
``Tail``'s (``core/tail.py``): background work through the ledger, stopped quietly at
the budget, held off after a 429; the refresh loop polls each second while the view is
on screen and not paused (``p``); ``f`` tails the whole container (where a flood
shows). ``m`` switches between the latest-version feed (no
deletes: the view says so and what would show them) and all versions and deletes.

Only new rows cost: a row's cells are made once, and when the cursor is off the newest
row (someone is reading) the rows on screen stay where they are as new ones arrive
above them, so the terminal is written to only where something changed. Under a flood
(more new rows a poll than the list shows) the polls are spaced to ``FLOOD_POLL_S``, as
each one repaints a screenful; every poll's rows still appear at once.
"""

from __future__ import annotations

from typing import ClassVar, Final

from textual.app import ComposeResult

from cosmem_tui.core.session import Session
from cosmem_tui.core.tail import ALL_VERSIONS_NEEDS, Tail, TailPoll, tail_bookmarks
from cosmem_tui.core.tail_rate import DEFAULT_FLOOD_SHARE
from cosmem_tui.core.text import one_line
from cosmem_tui.model.changes import Change, FeedMode, FeedUnavailable
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.times import utc_text
from cosmem_tui.ui.commands import Mistake
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.refresh import RefreshLoop
from cosmem_tui.ui.scope_names import resolve_scope_names
from cosmem_tui.ui.shared_actions import view_bindings
from cosmem_tui.ui.table_export import ShownTable
from cosmem_tui.ui.view import VIEW_CSS, ViewScreen
from cosmem_tui.ui.views.tail.rows import (
    TAIL_COLUMNS,
    TAIL_RECORD_FIELDS,
    TailList,
    TailRows,
    rate_line,
)
from cosmem_tui.ui.views.tail.spec import SPEC
from cosmem_tui.ui.widgets.hint_line import FittedLine
from cosmem_tui.ui.widgets.row_list import RowList

POLL_S: Final = 1.0  # lag from write to row: about a poll, at the 2 s goal's half
# Under a flood (a poll brought more new rows than the list shows) every row on screen is
# new at each poll, so each poll repaints a screenful: the next poll waits this long
# instead, for fewer bytes a second while the lag stays under 2 s (a poll and its read).
FLOOD_POLL_S: Final = 1.6
POLL_FLOOR_S: Final = 1.0
COST_EVERY_S: Final = 15.0


class TailScreen(ViewScreen):
    VIEW = SPEC.name
    BINDINGS: ClassVar = view_bindings(SPEC)

    DEFAULT_CSS = (
        VIEW_CSS
        + """
    TailScreen { layout: vertical; }
    #tail-rate { height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    #tail-mode { height: 2; padding: 0 1; color: $text-muted;
                 text-wrap: nowrap; text-overflow: ellipsis; }
    /* No side borders and no scrollbar: at 500 changes/s every row is new each second,
       and what a row costs the terminal beyond its text is what they would add to it. */
    #tail-list { height: 1fr; border-top: round $panel-lighten-2;
                 border-bottom: round $panel-lighten-2; border-title-color: $text;
                 border-subtitle-color: $text-muted; scrollbar-size-vertical: 0; }
    #tail-list:focus { border-top: round $accent; border-bottom: round $accent; }
    """
    )

    def __init__(self) -> None:
        super().__init__()
        # Not named ``loop``: a profile's refresh_s is for views that redraw, not the tail.
        self.poll_loop: RefreshLoop[TailPoll] = RefreshLoop(
            self,
            self._fetch,
            self._show_poll,
            interval_s=POLL_S,
            hold_off_s=self._hold_off,
            failed=self._failed,
            name="tail",
            floor_s=POLL_FLOOR_S,
        )
        # All versions where the container serves it (deletes and TTL purges are what a
        # tail is for); a refusal falls back to the latest version once, saying why.
        self.mode = FeedMode.ALL_VERSIONS
        self._mode_chosen = False  # the user pressed m: their mode stays, refused or not
        self.tail: Tail | None = None
        self.rows: TailRows | None = None
        self._followed: TtlScope | None = None
        self._pinned = False  # showing what :tail named, not browse's selection
        self._named: tuple[str, ...] | None = None
        self._shown_summary = ""
        self._cost: tuple[float, int, str] | None = None  # when the cost was said, its reads, what
        self._shown_subtitle = ""
        self._title_base = "tail"
        self._generation = 0

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield FittedLine(id="tail-rate")  # moves every poll: one line, alone
        yield FittedLine(id="tail-mode")  # what the mode cannot see: drawn once a tail
        yield TailList(
            TAIL_COLUMNS, id="tail-list", empty_text="waiting for changes…", noun="changes"
        )
        yield from self.compose_chrome_bottom()

    def on_mount(self) -> None:
        super().on_mount()
        self.set_focus(self.query_one("#tail-list", RowList))

    @property
    def listing(self) -> RowList:
        return self.query_one("#tail-list", RowList)

    # -- what to tail ----------------------------------------------------------------------

    def session_ready(self, session: Session) -> None:
        self.tail = None
        if self._named is not None:
            named, self._named = self._named, None
            self.open_with(named)
        elif self.is_current:
            self.follow_browse(force=True)

    def on_screen_resume(self) -> None:
        self.follow_browse()
        self.poll_loop.shown()

    def on_screen_suspend(self) -> None:
        self.poll_loop.hidden_now()  # nobody sees it: nothing is read

    def follow_browse(self, *, force: bool = False) -> None:
        """Tail what browse has selected, unless it has not changed since last followed."""
        if self.session is None:
            return
        selected = self.cosmem.browse_selection()
        if self._pinned and not force and selected == self._followed:
            return
        if force or selected != self._followed or self.tail is None:
            self._followed = selected
            self._pinned = False
            self.start(selected)

    def open_with(self, args: tuple[str, ...]) -> None:
        """``:tail [TENANT [THREAD]]``: the names, read as browse reads them."""
        if self.session is None:
            self._named = args
            return
        if not args:
            self.follow_browse(force=True)
            return
        self._followed = self.cosmem.browse_selection()
        self._pinned = True
        self._generation += 1
        generation = self._generation
        resolve_scope_names(
            self,
            self.session.lifecycle,
            args,
            group="tail-resolve",
            found=lambda scope: self._named_found(generation, scope),
            failed=lambda error: self._named_failed(generation, error),
        )

    def _named_found(self, generation: int, scope: TtlScope) -> None:
        if generation == self._generation:
            self.start(scope)

    def _named_failed(self, generation: int, error: str) -> None:
        if generation == self._generation:
            self.set_status(error, error=True)

    def start(self, scope: TtlScope) -> None:
        """A new tail of ``scope`` in the current mode, from now."""
        session = self.session
        if session is None:
            return
        self._generation += 1
        share = self.cosmem.tail_flood_share
        self.tail = Tail(
            session.store,
            scope,
            self.mode,
            clock=session.clock,
            flood_share=DEFAULT_FLOOD_SHARE if share is None else share,
            bookmarks=tail_bookmarks(session.store),
        )
        self.rows = TailRows(session.schema)
        listing = self.listing
        listing.set_source(self.rows, empty_text="waiting for changes…")
        listing.clear_message()
        label = session.schema.tenant_label
        mode = "latest version" if self.mode is FeedMode.LATEST else "all versions and deletes"
        self._title_base = f"tail of {scope.describe(label)} · {mode}, from now"
        listing.set_title(self._title_base)
        self._shown_summary = ""
        self._cost = None
        self._show_summary()
        self._show_mode()
        self.set_status("")
        self.poll_loop.changed()

    # -- the loop ----------------------------------------------------------------------------

    def _hold_off(self) -> float:
        session = self.session
        return session.ledger.throttle_pause_s() if session is not None else 0.0

    async def _fetch(self) -> TailPoll:
        tail = self.tail
        if tail is None:
            return TailPoll()
        return await tail.poll()

    def _show_poll(self, poll: TailPoll) -> None:
        tail, rows = self.tail, self.rows
        if tail is None or rows is None:
            return
        if poll.fresh:
            self._show_rows(rows, tail, len(poll.fresh))
        # Every poll's rows are shown at once; only the wait for the next one is longer.
        flooded = len(poll.fresh) > self.listing.rows_shown
        self.poll_loop.interval_s = FLOOD_POLL_S if flooded else POLL_S
        self._show_summary(fresh=bool(poll.fresh))
        self._show_subtitle(poll)
        if poll.stopped is not None:
            self.set_status(
                f"{poll.stopped} · ctrl+r goes on (asking before each budget step)", error=True
            )

    def _show_rows(self, rows: TailRows, tail: Tail, new: int) -> None:
        listing = self.listing
        current = listing.current_index
        reading = current is not None and listing.cursor > 0  # off the newest row
        keep = rows.changes[current].key if reading and current is not None else None
        top = listing.scroll_y
        rows.update(tail.window)
        listing.update_source(rows)
        if keep is not None and (index := rows.index_of(keep)) is not None:
            # Someone is reading: the rows on screen stay put, new ones arrive above.
            if not listing.filter_text:
                listing.scroll_to(y=top + new, animate=False, immediate=True)
            listing.select_index(index)
        label = f"{tail.window.added:,}" + (
            f", newest {len(tail.window):,} kept" if tail.window.dropped else ""
        )
        listing.set_title(self._title_base, label)

    def _show_summary(self, *, fresh: bool = False) -> None:
        tail, session = self.tail, self.session
        if tail is None or session is None:
            return
        rate = rate_line(tail.summary(), session.schema.tenant_label)
        # The cost is said again when rows come, or every COST_EVERY_S: an idle tail's
        # line then stays as it is (each empty read would otherwise redraw it). The
        # first read is said at once: "0 reads" on a tail that reads looks stalled.
        now = session.clock.now()
        first_read = self._cost is not None and self._cost[1] == 0 and tail.pages > 0
        if self._cost is None or fresh or first_read or now - self._cost[0] >= COST_EVERY_S:
            self._cost = (now, tail.pages, f"{tail.pages:,} reads, {tail.request_units:,.1f} RU")
        text = one_line(f"{rate} · {self._cost[2]}")
        if text != self._shown_summary:  # an unchanged line must not redraw
            self._shown_summary = text
            self.query_one("#tail-rate", FittedLine).show(text)

    def _show_mode(self) -> None:
        tail = self.tail
        if tail is None:
            return
        if tail.note is not None:  # what is invisible, then what shows it: two short lines
            lines = [
                "latest version: deletes and TTL expirations are not visible · m: all versions"
            ]
            lines.append(f"which {ALL_VERSIONS_NEEDS.removeprefix('it ')}")
        else:
            lines = ["all versions and deletes: creates, replaces, deletes and TTL purges"]
        shown = self.query_one("#tail-mode", FittedLine)
        shown.styles.height = len(lines)
        shown.show("\n".join(lines))

    def _show_subtitle(self, poll: TailPoll) -> None:
        tail = self.tail
        if tail is None:
            return
        if poll.held_off_s > 0:
            text = f"held off {poll.held_off_s:.1f} s (429)"
        elif tail.stopped is not None:
            text = "stopped at the budget · ctrl+r goes on"
        else:  # the cost moves every poll: it is in the summary, not in the list's border
            text = f"polls {self.poll_loop.describe()}"
        if text != self._shown_subtitle:
            self._shown_subtitle = text
            self.listing.border_subtitle = plain(text)

    def _failed(self, error: BaseException) -> None:
        from cosmem_tui.ui.messages import describe_error

        if isinstance(error, FeedUnavailable):
            fallback = error.mode is FeedMode.ALL_VERSIONS and not self._mode_chosen
            if fallback and self.tail is not None:
                self.mode = FeedMode.LATEST
                self.start(self.tail.scope)
                self.set_status(f"tailing the latest version: {one_line(error.reason)}")
                return
            self.poll_loop.hidden_now()  # asking again will not help: say what would
            self.listing.show_message(f"{error.reason}\n\n{error.fix}\n\nm switches the mode")
            self.set_status(one_line(error.reason), error=True)
            return
        self.set_status(f"a poll failed: {describe_error(error)} · polling again", error=True)

    # -- actions ---------------------------------------------------------------------------

    def action_toggle_pause(self) -> None:
        paused = self.poll_loop.toggle_pause()
        self._shown_subtitle = ""
        if self.tail is not None:
            self._show_subtitle(TailPoll())
        self.set_status("paused: nothing is read (p resumes)" if paused else "")

    def action_refresh_now(self) -> None:
        if self.tail is not None and self.tail.stopped is not None:
            self.tail.resume()
            self.set_status("")
        self.poll_loop.refresh_now()

    def action_tail_container(self) -> None:
        self._pinned = True
        self._followed = self.cosmem.browse_selection()
        self.start(TtlScope.container())

    def action_toggle_mode(self) -> None:
        self._mode_chosen = True
        self.mode = FeedMode.ALL_VERSIONS if self.mode is FeedMode.LATEST else FeedMode.LATEST
        if self.tail is not None:
            scope = self.tail.scope
            if self.poll_loop.hidden and self.is_current:
                self.poll_loop.shown()
            self.start(scope)

    def selected_change(self) -> Change | None:
        index = self.listing.current_index
        if self.rows is None or index is None or index >= len(self.rows):
            return None
        return self.rows.changes[index]

    def action_open_in_browse(self) -> None:
        change = self.selected_change()
        if change is None:
            return
        gone = self._removal_of(change)
        if gone is not None:
            how = "expired (TTL), purged" if gone.ttl_expired else "deleted"
            when = utc_text(gone.commit_time, "%H:%M:%S UTC")
            self.set_status(f"{one_line(change.item_id, 40, exact=True)} is gone: {how} at {when}")
            return
        if change.ref is None:
            self.set_status("this change's key names no thread of the schema", error=True)
            return
        self.cosmem.show_in_browse(change.ref, change.item_id)

    def _removal_of(self, change: Change) -> Change | None:
        """The removal of the change's item the window holds (the change itself, or newer)."""
        if change.op.removes:
            return change
        assert self.rows is not None
        for other in self.rows.changes:
            if other is change:
                return None  # newer rows come first: nothing newer removed it
            if other.item_id == change.item_id and other.ref == change.ref and other.op.removes:
                return other
        return None

    def run_view_command(self, line: str) -> None:
        match self.cosmem.registry.parse(line, self.VIEW):
            case Mistake(message):
                self.set_status(message, error=True)
            case _:
                pass

    def refocus(self) -> None:
        self.set_focus(self.listing)

    def shown_table(self) -> ShownTable | None:
        """The changes shown, newest first, each as ``cosmem tail --json`` writes it (with
        its role and preview)."""
        rows = self.rows
        if rows is None:
            return None
        return ShownTable(
            "tail", TAIL_RECORD_FIELDS, self.listing, lambda i, fmt: rows.record(i, fmt)
        )
