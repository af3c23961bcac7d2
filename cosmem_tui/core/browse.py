"""The browse use case: tenants → threads → turns → one item, shared by the TUI and the CLI."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, replace

from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.core.errors import UnknownItem, UnknownTenant, UnknownThread
from cosmem_tui.core.text import unescape_exact
from cosmem_tui.model import (
    Clock,
    ContainerProperties,
    Item,
    JsonValue,
    Key,
    Page,
    Thread,
    ThreadRef,
    Turn,
)
from cosmem_tui.schemas import Schema, turns_from_item
from cosmem_tui.sources.errors import NotFound
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.store import DEFAULT_PAGE_SIZE, MemoryStore


@dataclass(frozen=True, slots=True)
class TurnPage:
    """One page of a thread's turns, in the order the store walked them.

    ``sort_values`` runs beside ``turns``: the value the store ordered each turn's
    item by (the schema's order field as stored, or the id when the schema has
    none). A session's turns share their item's value; ``Turn.order`` cannot stand
    in for it, since there it is the message's place in the session.
    """

    turns: tuple[Turn, ...]
    continuation: str | None
    sort_values: tuple[JsonValue, ...]

    def __post_init__(self) -> None:
        if len(self.sort_values) != len(self.turns):
            raise ValueError("a turn page needs one sort value per turn")


@dataclass(frozen=True, slots=True)
class TurnDetail:
    ref: ThreadRef
    turn: Turn
    item: Item


class BrowseService:
    def __init__(self, store: MemoryStore, clock: Clock, directory: KeyDirectory | None = None):
        self.store = store
        self.clock = clock
        self.directory = directory or KeyDirectory(store, clock)
        self._container: ContainerProperties | None = None

    @property
    def schema(self) -> Schema:
        return self.store.schema

    @property
    def ledger(self) -> RequestLedger:
        return self.store.ledger

    @property
    def tenant_label(self) -> str:
        return self.schema.tenant_label

    async def container(self) -> ContainerProperties:
        if self._container is None:
            self._container = await self.store.container_properties()
        return self._container

    def key_candidates(self, text: str) -> list[Key]:
        """What a typed name may mean: its parsed key, then the plain string if different
        (``Key.readings``).

        ``42`` names the number 42; a tenant stored as the string "42" is written
        ``"42"``, but a person may type 42 for it, so that is tried second. Text that
        is no JSON scalar (``{"role": "system"}``) is only the string. A name as a
        table printed it — a backslash doubled, a control character as ``\\x1b`` — is
        also read with those escapes undone, so the printed text opens its key too.
        """
        candidates = list(Key.readings(text))
        printed = unescape_exact(text)  # the name as a table printed it, escapes undone
        if printed is not None:
            candidates += [k for k in Key.readings(printed) if k not in candidates]
        return candidates

    async def threads(self, tenant: Key) -> list[Thread]:
        """Threads of a tenant, most recently active first.

        Sentinel threads the schema names (AMT's ``__user_summary__`` …) are not
        conversations: they come labelled, after every real thread, never mixed in.
        """
        threads = await self.store.list_threads(tenant)
        if not threads:
            raise UnknownTenant(
                f"no {self.tenant_label} '{tenant.text}' with visible items in {self.store.label}"
            )
        sentinels = self.schema.sentinels
        labelled = [replace(t, pseudo=sentinels.get(t.name)) for t in threads]
        return sorted(
            labelled,
            key=lambda t: (t.pseudo is not None, t.pseudo or "", -(t.last_activity or 0), t.name),
        )

    async def resolve(self, tenant: Key | str | None, thread: str) -> ThreadRef:
        """The thread a person named by text (see ``key_candidates``), in a tenant named
        by text or already known (a Key: the tenant open in the console).

        Only a name that may mean two keys (``42``: the number, or the string "42")
        costs a look (one single-partition page of one turn) per candidate; the first
        that has turns wins.
        """
        tenants: list[Key | None]
        if tenant is None or isinstance(tenant, Key):
            tenants = [tenant]
        else:
            tenants = [*self.key_candidates(tenant)]
        threads = list(self.schema.thread_readings(thread))
        printed = unescape_exact(thread)  # the name as a table printed it, escapes undone
        if printed is not None:
            threads += [k for k in self.schema.thread_readings(printed) if k not in threads]
        refs = [ThreadRef(t, th) for t in tenants for th in threads]
        if len(refs) == 1:
            return refs[0]
        for ref in refs:
            page = await self.turns_page(ref, page_size=1)
            if page.turns:
                return ref
        return refs[0]  # none has turns: the first reading explains why

    async def threads_named(self, text: str) -> tuple[Key, list[Thread]]:
        """Threads of the tenant a person typed (see ``key_candidates``)."""
        candidates = self.key_candidates(text)
        for key in candidates:
            try:
                return key, await self.threads(key)
            except UnknownTenant:
                if key is candidates[-1]:
                    raise
        raise AssertionError("unreachable")

    async def turns_page(
        self,
        ref: ThreadRef,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        newest_first: bool = False,
    ) -> TurnPage:
        container = await self.container()
        page = await self.store.page_turns(
            ref, continuation=continuation, page_size=page_size, newest_first=newest_first
        )
        return self._turn_page(page, container, newest_first=newest_first)

    async def search_page(
        self,
        ref: ThreadRef,
        text: str,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> TurnPage:
        """One page of the store's search of a thread, as the turns of the items it found.

        An item is found when any of its text holds ``text``: not every turn of a
        session document need match, so the caller picks the turns it wants.
        """
        container = await self.container()
        page = await self.store.search_turns(
            ref, text, continuation=continuation, page_size=page_size
        )
        return self._turn_page(page, container, newest_first=False)

    def _turn_page(
        self, page: Page[Item], container: ContainerProperties, *, newest_first: bool
    ) -> TurnPage:
        turns: list[Turn] = []
        sort_values: list[JsonValue] = []
        order = self.schema.order
        for item in page.items:
            # A session document expands into its messages; walking backwards, they reverse too.
            expanded = turns_from_item(self.schema, item, container.default_ttl)
            turns.extend(reversed(expanded) if newest_first else expanded)
            # What the store sorted by: the raw field (not JSON-decoded), else the id.
            value = order.path.get(item.body) if order is not None else item.id
            sort_values.extend([value] * len(expanded))
        return TurnPage(tuple(turns), page.continuation, tuple(sort_values))

    async def first_page(
        self, ref: ThreadRef, *, page_size: int = DEFAULT_PAGE_SIZE, newest_first: bool = False
    ) -> TurnPage:
        """The first page of a thread, or UnknownThread/UnknownTenant when it has none."""
        page = await self.turns_page(ref, page_size=page_size, newest_first=newest_first)
        if not page.turns:
            await self._explain_missing_thread(ref)
        return page

    async def _explain_missing_thread(self, ref: ThreadRef) -> None:
        if ref.tenant is not None:
            await self.threads(ref.tenant)  # raises UnknownTenant if the tenant is empty
            raise UnknownThread(
                f"no thread '{ref.thread.text}' with visible items in "
                f"{self.tenant_label} '{ref.tenant.text}'"
            )
        raise UnknownThread(f"no thread {ref.thread.text} with visible items in {self.store.label}")

    async def iter_turns(
        self, ref: ThreadRef, *, page_size: int = 200, newest_first: bool = False
    ) -> AsyncGenerator[Turn, None]:
        """Every turn of a thread, page by page (never the whole thread in memory)."""
        page = await self.first_page(ref, page_size=page_size, newest_first=newest_first)
        while True:
            for turn in page.turns:
                yield turn
            if page.continuation is None:
                return
            page = await self.turns_page(
                ref,
                continuation=page.continuation,
                page_size=page_size,
                newest_first=newest_first,
            )

    async def last_turns(self, ref: ThreadRef, count: int) -> list[Turn]:
        """The newest ``count`` turns, oldest first."""
        newest: list[Turn] = []
        pages = self.iter_turns(ref, page_size=min(count, 500), newest_first=True)
        async with aclosing(pages):
            async for turn in pages:
                newest.append(turn)
                if len(newest) >= count:
                    break
        newest.reverse()
        return newest

    async def detail(self, ref: ThreadRef, item_id: str, part: int | None = None) -> TurnDetail:
        """The whole item (point read) and its turn view (``part``: a session's message)."""
        container = await self.container()
        try:
            item = await self.store.read_item(ref, item_id)
        except NotFound:
            raise UnknownItem(
                f"item {item_id!r} is gone from {ref.describe(self.tenant_label)} "
                "(expired or deleted)"
            ) from None
        turns = turns_from_item(self.schema, item, container.default_ttl)
        turn = next((t for t in turns if t.part == part), turns[0])
        return TurnDetail(ref, turn, item)
