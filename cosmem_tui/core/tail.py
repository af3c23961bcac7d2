"""The change-feed tail: who is writing a scope, how fast, and what each write was.

A ``Tail`` reads the change feed of a scope (the container, a tenant's key prefix, a
thread) in one mode, from its own continuation, one poll at a time — the caller (the
``:tail`` view's refresh loop, ``cosmem tail``) decides when. A poll is background work:
each page is one request through the store's ledger, admitted against the session's
budget; at the budget the tail stops quietly and says so (``stopped``), and while the
session is held off after a 429 a poll sends nothing and says how long to wait.

A poll reads pages until the feed has nothing more now (a 304, or a short page) or
``max_pages`` pages, so a busy scope is read in one poll rather than falling behind one
page per interval. What it read goes into a bounded window of rows (``TailWindow``:
newest first, each ``(lsn, id)`` once) and the last minute's rates (``RateMeter``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cosmem_tui.core.feed_bookmarks import FeedBookmarks, feed_identity
from cosmem_tui.core.tail_rate import DEFAULT_FLOOD_SHARE, RateMeter, RateSummary
from cosmem_tui.core.tail_window import DEFAULT_WINDOW_ROWS, TailWindow
from cosmem_tui.model import Clock
from cosmem_tui.model.changes import (
    MAX_CHANGES_PER_READ,
    Change,
    FeedMode,
    FeedStart,
)
from cosmem_tui.model.lifecycle import ScopeLevel, TtlScope
from cosmem_tui.sources.errors import BudgetSpent
from cosmem_tui.sources.store import MemoryStore

MAX_PAGES_PER_POLL: Final = 10  # 10,000 changes a poll at most: a backlog takes a few polls
TAIL_CAUSE: Final = "tail: poll"

# What latest-version mode cannot show, and what shows it (``cosmem doctor`` checks both).
LATEST_MODE_NOTE: Final = "latest-version change feed: deletes and TTL expirations are not visible"
ALL_VERSIONS_NEEDS: Final = (
    "it needs continuous backup and enableAllVersionsAndDeletesChangeFeed on the account "
    "(cosmem doctor checks both)"
)
LATEST_MODE_FIX: Final = (
    f"all versions and deletes mode shows them (--mode all): {ALL_VERSIONS_NEEDS}"
)


def mode_note(mode: FeedMode) -> str | None:
    """What a tail in ``mode`` cannot see, and the fix; None when it sees everything."""
    if mode.sees_deletes:
        return None
    return f"{LATEST_MODE_NOTE} — {LATEST_MODE_FIX}"


def check_start(mode: FeedMode, start: FeedStart) -> FeedStart:
    """A start the mode allows, else a ``ValueError`` that says what it allows."""
    if not start.allowed_in(mode):
        raise ValueError(
            f"the all versions and deletes change feed starts only now (or from a saved "
            f"continuation), not {start.describe()}: use --since now, or --mode latest "
            "to read from the beginning or a time"
        )
    return start


@dataclass(frozen=True, slots=True)
class TailPoll:
    """What one poll did: the new changes (newest first) and what reading them cost."""

    fresh: tuple[Change, ...] = ()
    pages: int = 0
    request_units: float = 0.0
    not_modified: bool = False
    held_off_s: float = 0.0  # > 0: the session is held off, nothing was sent
    stopped: str | None = None  # the tail has stopped (the budget): why
    retained_since: int | None = None


class Tail:
    def __init__(
        self,
        store: MemoryStore,
        scope: TtlScope,
        mode: FeedMode,
        *,
        clock: Clock,
        start: FeedStart | None = None,
        window_rows: int = DEFAULT_WINDOW_ROWS,
        flood_share: float = DEFAULT_FLOOD_SHARE,
        max_items: int = MAX_CHANGES_PER_READ,
        max_pages: int = MAX_PAGES_PER_POLL,
        bookmarks: FeedBookmarks | None = None,
    ) -> None:
        self.store = store
        # Where an all-versions tail leaves its first position, so a later history of
        # this container can read from there (all versions cannot start in the past).
        self.bookmarks = bookmarks
        self.bookmarked = False
        self.scope = scope
        self.mode = mode
        self.clock = clock
        self.start = check_start(mode, start or FeedStart.now())
        self.window = TailWindow(window_rows)
        self.rates = RateMeter(clock.now(), flood_share)
        self.max_items = max_items
        self.max_pages = max_pages
        self.continuation: str | None = None
        self.stopped: str | None = None
        # After a stop at the budget the user chose to go on: polls are then foreground
        # work, admitted under what the user grants (the ledger asks again when it is spent).
        self.granted = False
        self.polls = 0  # polls that sent at least one request
        self.pages = 0
        self.request_units = 0.0
        self.changes = 0  # new changes, ever (the window keeps the newest)
        self.retained_since: int | None = None

    @property
    def note(self) -> str | None:
        return mode_note(self.mode)

    def resume(self) -> None:
        """Poll again after a stop at the budget, from the same continuation: as
        foreground work from now on, so the ledger asks the user before it goes past the
        budget (a yes grants a budget step; a no stops the tail again, nothing sent)."""
        self.stopped = None
        self.granted = True

    async def poll(self) -> TailPoll:
        """Read what the scope's feed has now (at most ``max_pages`` pages).

        Raises ``FeedUnavailable`` when the container offers no such feed, and any other
        ``StoreError`` a read meets (the caller shows it and polls again later)."""
        if self.stopped is not None:
            return TailPoll(stopped=self.stopped)
        ledger = self.store.ledger
        pause = ledger.throttle_pause_s()
        if pause > 0:
            return TailPoll(held_off_s=pause)
        batches: list[list[Change]] = []  # each page's new changes, newest first
        pages = 0
        charge = 0.0
        not_modified = False
        with ledger.caused_by(TAIL_CAUSE):
            while pages < self.max_pages:
                try:
                    page = await self.store.read_changes(
                        self.scope,
                        mode=self.mode,
                        start=self.start if self.continuation is None else None,
                        continuation=self.continuation,
                        max_items=self.max_items,
                        background=not self.granted,
                    )
                except BudgetSpent as exc:
                    self.stopped = f"stopped at the session's RU budget: {exc.message}"
                    break
                pages += 1
                charge += page.request_units
                if page.continuation is not None:
                    self.continuation = page.continuation
                if page.retained_since is not None:
                    self.retained_since = page.retained_since
                batches.append(self.window.add(page.changes))
                if page.not_modified or len(page.changes) < self.max_items:
                    not_modified = page.not_modified
                    break
                if ledger.throttle_pause_s() > 0:
                    break  # a 429 on the way: the rest waits for the next poll
        self._bookmark()
        newest_first = [change for batch in reversed(batches) for change in batch]
        self.rates.add(newest_first, self.clock.now())
        if pages:
            self.polls += 1
        self.pages += pages
        self.request_units += charge
        self.changes += len(newest_first)
        return TailPoll(
            tuple(newest_first),
            pages,
            charge,
            not_modified,
            stopped=self.stopped,
            retained_since=self.retained_since,
        )

    def _bookmark(self) -> None:
        if self.bookmarked or self.bookmarks is None or self.continuation is None:
            return
        if self.mode is FeedMode.ALL_VERSIONS:
            self.bookmarks.save(
                self.scope, self.mode, self.continuation, int(self.clock.now()), by="tail"
            )
        self.bookmarked = True  # once per tail: the oldest position is the useful one

    def summary(self) -> RateSummary:
        """The last minute's rates; a flood is looked for only over the whole container
        (a tenant's own tail is all that tenant)."""
        floods = self.scope.level is ScopeLevel.CONTAINER
        return self.rates.summary(self.clock.now(), floods=floods)


def tail_bookmarks(store: MemoryStore, root: Path | None = None) -> FeedBookmarks:
    """The feed positions of the store's container, in the user cache dir (as the
    history reads them; ``root`` for a test)."""
    from cosmem_tui.core.session import cache_dir

    return FeedBookmarks(root if root is not None else cache_dir(), feed_identity(store))
