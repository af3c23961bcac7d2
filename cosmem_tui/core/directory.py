"""The top-level list (tenants, or threads without a tenant level): names first, counts on demand.

Listing every key of a large account costs requests in proportion to its keys; counting
every key costs far more. So:

* **names** are listed range by range (``MemoryStore.list_keys``), resumable, and cached
  on disk per account/container (``ListingCache``) with their age; a listing that
  stops early (budget, failure) says how far it got and resumes from its cursor. A
  reload asks only for keys written since the last listing.
* **counts** are fetched only for the rows someone looks at (the rows on screen, or the
  rows a runbook asks for), one key at a time, cached, each failing on its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from cosmem_tui.model import Clock, Key, KeyCounts
from cosmem_tui.sources.errors import BudgetSpent, RequestTimedOut, ServerSilent, StoreError
from cosmem_tui.sources.store import MemoryStore

CACHE_VERSION = 1
SINCE_MARGIN_S = 300  # a reload re-reads 5 more minutes of writes: clocks differ
COUNTS_MAX_AGE_S = 600.0  # counts older than this are fetched again on reload


@dataclass(frozen=True)
class Listing:
    """The names known so far, and whether they are all of them."""

    keys: tuple[Key, ...] = ()
    cursor: str | None = None  # where an unfinished listing resumes (None: finished or new)
    complete: bool = False
    listed_at: float | None = None  # epoch seconds the last full or incremental listing began
    ranges_done: int = 0
    ranges_total: int = 0
    from_cache: bool = False  # loaded from disk, not (yet) refreshed in this session
    stopped: str | None = None  # why an unfinished listing stopped (budget, an error)
    needed_ru: float | None = None  # budget a stopped listing needed to go on
    failure: StoreError | None = field(default=None, compare=False)  # what stopped it

    def age_s(self, now: float) -> float | None:
        return None if self.listed_at is None else max(0.0, now - self.listed_at)


@dataclass
class CountState:
    counts: KeyCounts | None = None
    error: str | None = None  # why there are no counts ("budget spent", a failure)
    at: float = 0.0  # when counted (monotonic)
    request_units: float = 0.0  # what counting this key cost
    stale: bool = False  # a reload found writes since: count again when shown
    silent: bool = False  # not counted: the account stopped answering (said once, apart)


class ListingCache:
    """Names of one container's top-level keys on disk, so a restart does not re-list them."""

    def __init__(self, root: Path, cache_id: str, level: str) -> None:
        digest = hashlib.sha256(f"{cache_id}\0{level}".encode()).hexdigest()[:24]
        self.path = root / f"{digest}.json"
        self.cache_id = cache_id
        self.level = level

    def load(self) -> Listing | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") != CACHE_VERSION or data.get("id") != self.cache_id:
                return None
            keys = tuple(Key(k) if isinstance(k, list) else Key.of(k) for k in data["keys"])
            return Listing(
                keys=keys,
                cursor=data.get("cursor"),
                complete=bool(data["complete"]),
                listed_at=float(data["listed_at"]),
                ranges_done=int(data.get("ranges_done", 0)),
                ranges_total=int(data.get("ranges_total", 0)),
                from_cache=True,
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None  # no cache, or one we cannot read: list again

    def save(self, listing: Listing) -> None:
        data = {
            "version": CACHE_VERSION,
            "id": self.cache_id,
            "level": self.level,
            "keys": [k.json_value() for k in listing.keys],
            "cursor": listing.cursor,
            "complete": listing.complete,
            "listed_at": listing.listed_at,
            "ranges_done": listing.ranges_done,
            "ranges_total": listing.ranges_total,
        }
        temp = self.path.with_suffix(f".{os.getpid()}.tmp")
        try:
            # Tenant names are the account's data: the folder and file are the user's alone.
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_private(temp, json.dumps(data, ensure_ascii=False))
            os.replace(temp, self.path)  # a crash never leaves half a cache
        except OSError as exc:
            with contextlib.suppress(OSError):  # a full disk: no half-written temp left
                temp.unlink(missing_ok=True)
            raise CacheUnwritable(
                f"the name cache cannot be written ({self.path.parent}: "
                f"{exc.strerror or exc}); names are listed again next time"
            ) from None


class CacheUnwritable(Exception):
    """The listing cache could not be saved: a warning, never a failed listing."""

    @property
    def message(self) -> str:
        return str(self.args[0])


def write_private(path: Path, text: str) -> None:
    """Create (or replace the contents of) ``path`` readable by its owner alone, 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


@dataclass
class KeyDirectory:
    store: MemoryStore
    clock: Clock
    cache_root: Path | None = None  # None: never cache on disk
    listing: Listing = field(default_factory=Listing)
    _counts: dict[Key, CountState] = field(default_factory=dict)
    _counting: set[Key] = field(default_factory=set)  # asked for, answer not yet in
    cache_problem: str | None = None  # why the names could not be saved (said once)

    def __post_init__(self) -> None:
        cache_id = self.store.cache_id
        self._cache: ListingCache | None = None
        if cache_id is not None and self.cache_root is not None:
            schema = self.store.schema
            level = (schema.tenant or schema.thread).text
            self._cache = ListingCache(self.cache_root, cache_id, level)

    # -- names ----------------------------------------------------------------------------

    def cached(self) -> Listing | None:
        """The names from the last run, without asking the account (None: none on disk)."""
        if self._cache is None:
            return None
        cached = self._cache.load()
        if cached is not None:
            self.listing = cached
        return cached

    async def list(
        self,
        *,
        fresh: bool = False,
        progress: Callable[[Listing], None] | None = None,
    ) -> Listing:
        """Names of every top-level key: resume an unfinished listing, else refresh.

        ``fresh``: list from scratch. Otherwise a finished listing is brought up to date
        with the keys written since it began (cheap), and an unfinished one resumes.
        A listing the budget (or a failure) stops is returned with ``stopped`` set.
        """
        current = self.listing
        if fresh or (not current.complete and current.cursor is None):
            current = Listing()
        if current.complete and current.listed_at is not None:
            return await self._refresh(current, progress)
        return await self._resume(current, progress)

    async def _resume(
        self, current: Listing, progress: Callable[[Listing], None] | None
    ) -> Listing:
        started = current.listed_at if current.cursor is not None else self.clock.now()
        keys = set(current.keys)
        cursor = current.cursor
        listing = replace(current, listed_at=started, from_cache=False, stopped=None)
        while True:
            try:
                page = await self.store.list_keys(cursor)
            except StoreError as exc:
                listing = self._stopped(listing, exc)
                break
            keys.update(page.keys)
            cursor = page.cursor
            listing = replace(
                listing,
                keys=tuple(sorted(keys)),
                cursor=cursor,
                complete=cursor is None,
                ranges_done=page.ranges_done,
                ranges_total=page.ranges_total,
            )
            if progress is not None:
                progress(listing)
            if cursor is None:
                break
        self._publish(listing)
        return listing

    async def _refresh(
        self, current: Listing, progress: Callable[[Listing], None] | None
    ) -> Listing:
        """Keys written since the last listing began: the only ones that can be new."""
        assert current.listed_at is not None
        started = self.clock.now()
        since = int(current.listed_at) - SINCE_MARGIN_S
        keys = set(current.keys)
        cursor: str | None = None
        touched: set[Key] = set()
        listing = replace(current, from_cache=False, stopped=None)
        while True:
            try:
                page = await self.store.list_keys(cursor, since=since)
            except StoreError as exc:
                listing = self._stopped(listing, exc)
                break
            touched.update(page.keys)
            cursor = page.cursor
            if cursor is None:
                keys |= touched
                listing = replace(listing, keys=tuple(sorted(keys)), listed_at=started)
                break
        for key in touched:  # written since: their counts may have moved
            state = self._counts.get(key)
            if state is not None:
                state.stale = True
        if progress is not None:
            progress(listing)
        self._publish(listing)
        return listing

    def _stopped(self, listing: Listing, exc: StoreError) -> Listing:
        needed = exc.needed_ru if isinstance(exc, BudgetSpent) else None
        return replace(listing, stopped=exc.message, needed_ru=needed, failure=exc)

    def _publish(self, listing: Listing) -> None:
        self.listing = listing
        if self._cache is not None and listing.listed_at is not None:
            try:
                self._cache.save(listing)
            except CacheUnwritable as exc:  # a read-only listing goes on without it
                self.cache_problem = exc.message

    def forget(self, key: Key) -> None:
        """A key found empty (every item expired): drop it from the names."""
        self.listing = replace(self.listing, keys=tuple(k for k in self.listing.keys if k != key))

    # -- counts ---------------------------------------------------------------------------

    def count_state(self, key: Key) -> CountState | None:
        return self._counts.get(key)

    def needs_count(self, key: Key) -> bool:
        if key in self._counting:
            return False  # already on its way: never count one key twice at once
        state = self._counts.get(key)
        if state is None or state.stale:
            return True
        if state.error is not None:
            return False  # failed: shown as "—" with the reason until a reload
        return time.monotonic() - state.at > COUNTS_MAX_AGE_S

    def forget_counts(self, keys: Iterable[Key]) -> None:
        """Count these again when asked (the user asked to count them now)."""
        for key in keys:
            state = self._counts.get(key)
            if state is not None:
                state.stale = True

    def invalidate_failures(self) -> None:
        """A reload: rows that failed (or were past the budget) are tried again."""
        for state in self._counts.values():
            if state.error is not None:
                state.stale = True

    async def count(self, key: Key, *, background: bool = True) -> CountState:
        """Count one key; never raises a StoreError. Background work stops quietly at the
        budget; a foreground count (the user asked) asks before passing it."""
        ledger = self.store.ledger
        self._counting.add(key)
        try:
            with ledger.meter() as cost:
                try:
                    counts = await self.store.key_counts(key, background=background)
                except BudgetSpent:
                    state = CountState(error="budget spent", at=time.monotonic())
                except StoreError as exc:
                    # Refused at once, or the count that met the silence: the session
                    # says that once, not once a key.
                    silent = isinstance(exc, ServerSilent) or (
                        isinstance(exc, RequestTimedOut) and ledger.silent
                    )
                    state = CountState(error=exc.message, at=time.monotonic(), silent=silent)
                else:
                    state = CountState(counts=counts, at=time.monotonic())
        finally:
            self._counting.discard(key)
        state.request_units = cost.request_units
        self._counts[key] = state
        return state

    async def count_all(self, keys: Iterable[Key]) -> dict[Key, CountState]:
        """Count each key in turn (the store's background slots keep concurrency low)."""
        return {key: await self.count(key) for key in keys}
