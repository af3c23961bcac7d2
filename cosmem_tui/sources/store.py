"""The MemoryStore contract: what every backend (local workspace, Cosmos) must answer.

Behaviour the contract suite pins down for every backend:

* expired items (``now >= _ts + effective ttl``) are invisible everywhere;
* top-level keys (tenants, or threads on schemas without tenants) are listed page by
  page with a resumable cursor, every key exactly once, typed (``42`` is not ``"42"``);
  ``key_counts`` counts one of them (visible items, newest write, threads or
  short/long-term items); the threads of a tenant come with their counts;
* turns come in the schema's order (undefined < null < numbers < strings, then
  ``id``), in pages of at most ``MAX_PAGE_SIZE`` with an opaque continuation;
  ``newest_first`` walks the same order backwards;
* list pages carry only the projected fields (never embeddings);
* ``search_turns`` pages the items of one thread whose text (where the schema reads
  it: ``sources/text_search.py``, in every message and part however long the item's
  arrays) contains a text, ignoring case, and no others, in the order of
  ``page_turns``, projected alike: one single-partition query, parameterised, paged
  with an opaque continuation (a page may be empty while more follow);
* ``read_item`` returns the whole item with its system properties, or raises NotFound;
* ``sample_items`` returns the most recently written visible items, whole, from any
  partition (a cross-partition request), stopping at ``limit`` items or once the
  request charge reaches ``max_request_units`` (always at least one item if any);
* ``sample_shapes`` measures recent items where they are (size, vector lengths, messages)
  and returns their shapes, never the items: the advisor's sample, bounded like
  ``sample_items``;
* for session-granularity schemas a thread's ``items`` counts the messages in its
  session documents (what the turn list will show), not the documents;
* ``ttl_summary`` counts a scope's visible items by TTL class and how many expire
  within each forecast horizon, with aggregate queries (never by listing the items):
  a thread is one partition, a tenant a key prefix, the container a fan-out over
  every physical partition, recorded as such;
* ``ttl_summary_estimate`` says what ``ttl_summary`` will cost from the scope's size
  (counted first, cheaply), within half again of what it then costs;
* ``ttl_items`` lists the first ``limit`` items of one lifecycle selection of a tenant
  or thread (the soonest to expire within ``within`` seconds, the long-term kinds,
  the items whose ttl drifts from their kind's) with the full count; the classes and
  expiry follow ``model/ttl.py`` exactly, from ``_ts``;
* ``read_changes`` reads the change feed of a scope (the container, a tenant's key
  prefix, a thread) in a mode (``model/changes.py``) from a start or a continuation:
  changes in commit order, built by ``sources/changes.py``, at most ``max_items``; a
  mode or start the backend cannot serve raises ``FeedUnavailable`` with the fix;
* every request passes the store's request ledger.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from cosmem_tui.model.lifecycle import ScopeLevel, TtlSelection

if TYPE_CHECKING:  # the contract's types: naming the contract loads none of them
    from cosmem_tui.model import (
        ContainerProperties,
        Item,
        ItemShape,
        Key,
        KeyCounts,
        KeyPage,
        Page,
        Thread,
        ThreadRef,
    )
    from cosmem_tui.model.changes import ChangePage, FeedMode, FeedStart
    from cosmem_tui.model.lifecycle import TtlItems, TtlScope, TtlSummary
    from cosmem_tui.model.recall import ItemLookup, RecallAnswer, RecallQuery
    from cosmem_tui.schemas import Schema
    from cosmem_tui.sources.request_ledger import RequestLedger

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 1000


def check_page_size(page_size: int) -> int:
    if page_size < 1:
        raise ValueError(f"page size must be at least 1, got {page_size}")
    return min(page_size, MAX_PAGE_SIZE)


def check_ttl_list(scope: TtlScope, selection: TtlSelection, within: int | None, limit: int) -> int:
    """``ttl_items``' arguments, refused alike by every backend; the page size to use."""
    if scope.level is ScopeLevel.CONTAINER:
        raise ValueError("lifecycle lists are scoped to a tenant or a thread")
    if selection is TtlSelection.EXPIRING and (within is None or within < 1):
        raise ValueError("expiring items need a horizon (within, in seconds)")
    return check_page_size(limit)


@runtime_checkable
class MemoryStore(Protocol):
    @property
    def schema(self) -> Schema: ...

    @property
    def ledger(self) -> RequestLedger: ...

    @property
    def label(self) -> str:
        """Where the data is, for the header: a workspace path or an account/container."""
        ...

    @property
    def simulated(self) -> bool:
        """True when request charges are modelled rather than measured."""
        ...

    async def container_properties(self) -> ContainerProperties: ...

    @property
    def cache_id(self) -> str | None:
        """Where listings of this container may be cached between runs (None: never)."""
        ...

    def listing_notes(self) -> list[str]:
        """What the user should know about how listings were made (fallbacks taken)."""
        ...

    async def list_keys(self, cursor: str | None = None, *, since: int | None = None) -> KeyPage:
        """One call's worth of top-level keys; pass the returned cursor for the next.

        ``since`` (epoch seconds): only keys with an item written after it (a reload)."""
        ...

    async def key_counts(self, key: Key, *, background: bool = True) -> KeyCounts:
        """Counts of one top-level key: background work, it stops quietly at the budget."""
        ...

    async def list_threads(self, tenant: Key) -> list[Thread]:
        """The threads of one tenant, with their counts (schemas with a tenant level)."""
        ...

    async def page_turns(
        self,
        ref: ThreadRef,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        newest_first: bool = False,
    ) -> Page[Item]: ...

    async def search_turns(
        self,
        ref: ThreadRef,
        text: str,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> Page[Item]:
        """One page of the thread's items whose text contains ``text`` (ignoring case),
        oldest first; foreground work (past the budget it asks)."""
        ...

    async def read_item(self, ref: ThreadRef, item_id: str) -> Item: ...

    async def sample_items(self, limit: int, *, max_request_units: float) -> list[Item]:
        """A few recent items for schema detection, bounded by count and by charge."""
        ...

    async def sample_shapes(self, limit: int, *, max_request_units: float) -> list[ItemShape]:
        """The shapes of recent items for the advisor (projected: no embedding is read)."""
        ...

    async def ttl_summary(self, scope: TtlScope, now: int) -> TtlSummary:
        """Items of ``scope`` by TTL class and the expiry forecast, as of ``now``."""
        ...

    async def ttl_summary_estimate(self, scope: TtlScope, now: int) -> float:
        """What ``ttl_summary(scope, now)`` is expected to cost (RU), for the question
        before it: the scope's size is counted (an index-served count, part of the
        summary's own work), the rest is estimated from it."""
        ...

    async def ttl_items(
        self,
        scope: TtlScope,
        now: int,
        selection: TtlSelection,
        *,
        limit: int,
        within: int | None = None,
    ) -> TtlItems:
        """The first ``limit`` items of a lifecycle selection of a tenant or a thread.

        ``within`` (seconds, for ``EXPIRING``): items expiring in ``(now, now + within]``,
        soonest first. ``LONG_TERM`` and ``DRIFT`` come newest write first."""
        ...

    async def recall(self, query: RecallQuery) -> RecallAnswer:
        """One recall probe, the query the memory system runs (``model/recall.py``).

        One query: single-partition for a thread, the key prefix for a tenant, a
        cross-partition fan-out for the container (the caller asks before sending one).
        Hits come ranked as the query ranks them, at most ``query.k``, never carrying an
        embedding; foreground work at low priority, every request through the ledger."""
        ...

    async def lookup_item(self, scope: TtlScope, item_id: str) -> ItemLookup:
        """Find one item by id within a tenant or a thread: its whole body (a point read
        once its thread is known; a projected id query within the tenant's key prefix
        first when only the tenant is), or where it was when it has expired and the
        backend still holds it, or nothing."""
        ...

    async def read_changes(
        self,
        scope: TtlScope,
        *,
        mode: FeedMode,
        start: FeedStart | None = None,
        continuation: str | None = None,
        max_items: int = 100,
        background: bool = True,
    ) -> ChangePage:
        """One read of the change feed of ``scope``: from ``continuation`` when given
        (opaque, from a previous page), else from ``start`` (now by default).

        Changes come oldest first, at most ``max_items``; ``not_modified`` when nothing
        changed since the continuation. Background work by default (a tail's poll: past
        the budget it stops quietly); every request through the ledger, at low priority.
        Raises ``FeedUnavailable`` for a mode the container does not offer, and
        ``ValueError`` for a start the mode does not allow (all versions: only now)."""
        ...

    async def close(self) -> None: ...
