"""What happened to one item or one thread: the change feed read for it, as a timeline.

One scoped read series (the thread's partition key, or the tenant's key prefix when
the only position saved is the tenant's), never a container fan-out for one thread;
every page through the store, so through the ledger and the budget, and at most
``max_reads`` pages (the request budget: a history that stops says so).

* **All versions and deletes** (where the container offers it) starts only now or from
  a saved position: the history reads from the oldest one kept for its scope
  (``core/feed_bookmarks.py``) and is silent before it. With none kept, it reads from
  now, saves that position, and says the history starts here.
* **Latest version** (the fallback when the store raises ``FeedUnavailable``, with its
  reason and fix): the thread's versions from the feed's beginning; no deletes, so no
  expiry's purge. What the item itself says (a point read) completes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from cosmem_tui.core.feed_bookmarks import Bookmark, FeedBookmarks, feed_identity
from cosmem_tui.core.history_timeline import timeline
from cosmem_tui.model import MISSING, Clock, ThreadRef
from cosmem_tui.model.changes import (
    Change,
    ChangePage,
    FeedMode,
    FeedStart,
    FeedUnavailable,
)
from cosmem_tui.model.history import (
    History,
    HistoryNote,
    ItemNow,
    ItemState,
    NoteKind,
)
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.times import iso_utc
from cosmem_tui.model.ttl import resolve_ttl
from cosmem_tui.sources.changes import in_scope
from cosmem_tui.sources.errors import BadRequest, BudgetSpent, NotFound, ServerSilent
from cosmem_tui.sources.store import MemoryStore

if TYPE_CHECKING:
    from cosmem_tui.core.session import Session

MAX_READS: Final = 20  # pages of the feed one history reads at most
PAGE_SIZE: Final = 500  # changes a page asks for


def _when(epoch: int | None) -> str:
    return iso_utc(epoch) or "an unknown time"


@dataclass
class _Read:
    """The pages of one read series, as they come."""

    changes: list[Change] = field(default_factory=list)
    reads: int = 0
    request_units: float = 0.0
    retained_since: int | None = None
    continuation: str | None = None
    complete: bool = False
    stopped: str | None = None


@dataclass
class HistoryService:
    """Reads histories of one container's items (the TUI's panel and ``cosmem history``)."""

    store: MemoryStore
    clock: Clock
    bookmarks: FeedBookmarks
    max_reads: int = MAX_READS
    page_size: int = PAGE_SIZE

    async def history(
        self, ref: ThreadRef, item_id: str | None = None, *, background: bool = False
    ) -> History:
        """The timeline of one item (``item_id``) or of the whole thread ``ref``."""
        now = int(self.clock.now())
        props = await self.store.container_properties()
        default_ttl = props.default_ttl
        notes: list[HistoryNote] = []
        since: int | None
        try:
            read, since, mode = await self._all_versions(ref, item_id, now, notes, background)
            invisible = fix = None
        except FeedUnavailable as unavailable:
            invisible, fix = unavailable.reason, unavailable.fix
            read, since, mode = await self._latest(ref, item_id, unavailable, notes, background)
        if read.stopped is not None:
            notes.append(HistoryNote(NoteKind.STOPPED, read.stopped))
        if read.retained_since is not None:
            notes.append(
                HistoryNote(
                    NoteKind.RETENTION,
                    f"the feed holds changes from {_when(read.retained_since)} on (its "
                    "retention window, or where its log begins): nothing before can be told",
                    read.retained_since,
                )
            )
        item = await self._item_now(ref, item_id, default_ttl) if item_id is not None else None
        events = timeline(read.changes, default_ttl)
        return History(
            ref=ref,
            item_id=item_id,
            mode=mode,
            read_at=now,
            events=events,
            notes=tuple(notes),
            since=since,
            retained_since=read.retained_since,
            complete=read.complete,
            requests=read.reads,
            request_units=read.request_units,
            container_default_ttl=default_ttl,
            item=item,
            invisible=invisible,
            fix=fix,
            gone=frozenset(e.item_id for e in events if e.op.removes),
        )

    # -- all versions and deletes ---------------------------------------------------------

    def _position(self, ref: ThreadRef) -> tuple[Bookmark | None, TtlScope]:
        """The oldest position saved for the thread, else for its tenant (one prefix
        read); a container-wide position is never read for one thread."""
        thread_scope = TtlScope.of_thread(ref)
        mark = self.bookmarks.oldest(thread_scope, FeedMode.ALL_VERSIONS)
        if mark is not None or ref.tenant is None:
            return mark, thread_scope
        tenant_scope = TtlScope.of_tenant(ref.tenant)
        tenant_mark = self.bookmarks.oldest(tenant_scope, FeedMode.ALL_VERSIONS)
        if tenant_mark is not None:
            return tenant_mark, tenant_scope
        return None, thread_scope

    async def _all_versions(
        self,
        ref: ThreadRef,
        item_id: str | None,
        now: int,
        notes: list[HistoryNote],
        background: bool,
    ) -> tuple[_Read, int, FeedMode]:
        mode = FeedMode.ALL_VERSIONS
        mark, scope = self._position(ref)
        if mark is not None:
            try:
                read = await self._series(
                    scope, mode, ref, item_id, None, mark.continuation, background
                )
            except BadRequest as exc:  # a position the feed no longer serves
                self.bookmarks.forget(scope, mode, mark.continuation)
                notes.append(
                    HistoryNote(
                        NoteKind.RETENTION,
                        f"the feed position saved {_when(mark.saved_at)} no longer reads "
                        f"({exc}): it is forgotten",
                        mark.saved_at,
                    )
                )
                mark, scope = None, TtlScope.of_thread(ref)
            else:
                self._note_position(mark, scope, read, notes)
                if read.continuation is not None and read.complete:
                    self.bookmarks.save(scope, mode, read.continuation, now, by="history")
                return read, mark.saved_at, mode
        # Nothing saved: the feed can only be read from now. Save where now is, so the
        # next history of this thread sees what happens from here on.
        read = await self._series(scope, mode, ref, item_id, FeedStart.now(), None, background)
        saved = read.continuation is not None and self.bookmarks.save(
            scope, mode, read.continuation, now, by="history"
        )
        tail = (
            "a position is saved now, so the next history sees what happens from here on"
            if saved
            else self.bookmarks.problem or "no position is kept for this session"
        )
        if self.bookmarks.oldest(TtlScope.container(), mode) is not None:
            tail += (
                " (the position saved for the whole container is not read for one thread: "
                "it would read every change of the container)"
            )
        notes.append(
            HistoryNote(
                NoteKind.SILENT,
                f"nothing before {_when(now)}: the all-versions feed starts only now or "
                f"from a saved position, and none was saved for this thread; {tail}",
                now,
            )
        )
        return read, now, mode

    @staticmethod
    def _note_position(
        mark: Bookmark, scope: TtlScope, read: _Read, notes: list[HistoryNote]
    ) -> None:
        widest = "" if scope.thread is not None else " (read through its tenant's position)"
        notes.append(
            HistoryNote(
                NoteKind.SILENT,
                f"nothing before {_when(mark.saved_at)}: the oldest feed position the console "
                f"saved for this thread{widest}",
                mark.saved_at,
            )
        )
        if read.retained_since is not None and read.retained_since > mark.saved_at:
            notes.append(
                HistoryNote(
                    NoteKind.RETENTION,
                    f"the position saved {_when(mark.saved_at)} is older than the feed's "
                    f"retention: changes before {_when(read.retained_since)} are gone",
                    read.retained_since,
                )
            )

    # -- latest version -------------------------------------------------------------------

    async def _latest(
        self,
        ref: ThreadRef,
        item_id: str | None,
        unavailable: FeedUnavailable,
        notes: list[HistoryNote],
        background: bool,
    ) -> tuple[_Read, int | None, FeedMode]:
        """All versions are not offered: what latest-version mode still tells."""
        mode = FeedMode.LATEST
        scope = TtlScope.of_thread(ref)
        try:
            read = await self._series(
                scope, mode, ref, item_id, FeedStart.beginning(), None, background
            )
        except FeedUnavailable as latest:
            why = unavailable if latest.reason == unavailable.reason else latest
            notes.append(
                HistoryNote(
                    NoteKind.INVISIBLE,
                    f"the change feed cannot be read: {why.reason} — {why.fix}",
                )
            )
            return _Read(complete=True), None, mode
        notes.append(
            HistoryNote(
                NoteKind.INVISIBLE,
                f"deletes and TTL expirations are invisible: {unavailable.reason} — "
                f"{unavailable.fix}; latest-version mode holds only the newest version of "
                "each item still there (no earlier versions, no deletes or purges, and a "
                "create is not told from a replace)",
            )
        )
        return read, None, mode

    # -- one read series ------------------------------------------------------------------

    async def _series(
        self,
        scope: TtlScope,
        mode: FeedMode,
        ref: ThreadRef,
        item_id: str | None,
        start: FeedStart | None,
        continuation: str | None,
        background: bool,
    ) -> _Read:
        read = _Read(continuation=continuation)
        while True:
            if read.reads >= self.max_reads:
                read.stopped = (
                    f"the history stopped after {read.reads} reads of the feed (its request "
                    "budget): later changes are not in it"
                )
                return read
            try:
                page = await self._page(scope, mode, start, read.continuation, background)
            except (BudgetSpent, ServerSilent) as exc:
                if read.reads == 0:
                    raise
                read.stopped = f"the history stopped early: {exc}"
                return read
            start = None
            read.reads += 1
            read.request_units += page.request_units
            if page.retained_since is not None:
                read.retained_since = page.retained_since
            read.changes.extend(
                c
                for c in page.changes
                if in_scope(c, None, ref) and (item_id is None or c.item_id == item_id)
            )
            if page.continuation is not None:
                read.continuation = page.continuation
            if page.not_modified or page.continuation is None:
                read.complete = True
                return read

    async def _page(
        self,
        scope: TtlScope,
        mode: FeedMode,
        start: FeedStart | None,
        continuation: str | None,
        background: bool,
    ) -> ChangePage:
        if continuation is not None:
            return await self.store.read_changes(
                scope,
                mode=mode,
                continuation=continuation,
                max_items=self.page_size,
                background=background,
            )
        return await self.store.read_changes(
            scope, mode=mode, start=start, max_items=self.page_size, background=background
        )

    # -- the item now ---------------------------------------------------------------------

    async def _item_now(self, ref: ThreadRef, item_id: str, default_ttl: int | None) -> ItemNow:
        try:
            item = await self.store.read_item(ref, item_id)
        except NotFound:
            return ItemNow(ItemState.ABSENT)
        except (BudgetSpent, ServerSilent) as exc:
            return ItemNow(ItemState.UNKNOWN, detail=str(exc))
        raw = item.body.get("ttl", MISSING)
        ttl = resolve_ttl(raw, item.ts, default_ttl)
        return ItemNow(
            ItemState.PRESENT,
            ts=item.ts,
            ttl=None if raw is MISSING else raw,
            expires_at=ttl.expires_at,
            ttl_effective=ttl.effective,
        )


def history_service(session: Session, cache_root: Path | None = None) -> HistoryService:
    """The histories of the session's container, with the feed positions kept in the
    user cache dir (``cache_root`` for a test)."""
    from cosmem_tui.core.session import cache_dir

    store = session.store
    root = cache_root if cache_root is not None else cache_dir()
    bookmarks = FeedBookmarks(root, feed_identity(store))
    return HistoryService(store, session.clock, bookmarks)
