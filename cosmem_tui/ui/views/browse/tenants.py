"""The top list of browse: tenants (or threads, on schemas without tenants)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import on
from textual.message import Message

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.directory import Listing
from cosmem_tui.core.session import Session
from cosmem_tui.model import Key, Meter
from cosmem_tui.model.telemetry_choices import KeyLevel, Window
from cosmem_tui.model.ttl import format_duration
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import cost_text, plain
from cosmem_tui.ui.views.browse.rows import (
    TOP_THREAD_COLUMNS,
    KeyRows,
    TenantLoad,
    tenant_columns,
)
from cosmem_tui.ui.views.browse.status import RETRY, Status, failed_text
from cosmem_tui.ui.widgets.row_list import RowList
from cosmem_tui.ui.workers import run_async

if TYPE_CHECKING:  # the telemetry model and services load once the session has opened
    from cosmem_tui.model.telemetry import HotKeysReport

LOAD_WINDOW = Window.M15  # the tenant list's RU% and ▲: load over the last 15 minutes
LOAD_STALE_S = 60.0  # shown again after this long, the list asks for fresher load


class FirstScreenCounted(Message):
    """The first screen of the list is shown and counted (or failed): the first data is
    on the terminal, and what the start put off may run."""


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
        return self.session.browse

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
        if session is None:
            return False
        from cosmem_tui.ui.telemetry.reports import hot_keys_of

        if hot_keys_of(session) is None:
            return False
        schema = session.schema
        return schema.tenant is not None and schema.partition_key[:1] == (schema.tenant.text,)

    def ask_load(self, *, unless_fresh: bool = False) -> None:
        """Ask the hot-keys service for the tenants' RU in the last 15 minutes."""
        if not self.has_load:
            return
        assert self.session is not None
        from cosmem_tui.ui.telemetry.reports import hot_keys_of

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
            self._load_failed,
            cause="browse: tenant load",
        )

    def _load_failed(self, error: str) -> None:
        self.post_message(Status(f"tenant load: {error} · ▲ marks items"))

    def _load_arrived(self, report: HotKeysReport) -> None:
        self.tenant_load = TenantLoad.of(report)
        self._show_columns()
        if self.rows is not None:
            self.rows.set_load(self.tenant_load)
        self.refresh()
        if self.tenant_load is None:
            from cosmem_tui.ui.telemetry.reports import problem_text

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
            self.post_message(FirstScreenCounted())
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
            run_async(self, self._count_rows, group="counts", exit_on_error=False)

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
