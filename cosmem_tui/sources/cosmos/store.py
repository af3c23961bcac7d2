"""The MemoryStore over a real Cosmos DB for NoSQL container (async azure-cosmos).

Read-only: no write operation exists here. Every call goes through ``CosmosCalls``
(budget, hold-off, deadline, one ledger record per HTTP response). The store states
each query (``queries/cosmos/``) and where it goes (``Route``), the runner pages it,
and the store maps the rows:

* top-level keys: per physical partition (``listing``), never a cross-partition DISTINCT;
* counts of one key: index-served aggregates scoped to the key (prefix or full key);
* threads of a tenant: grouped by the service, one prefix query per page;
* turns: single-partition pages in the schema's order, full key in WHERE and in
  ``partition_key=``, projected (never an embedding).

Visibility is the service's business (expired items are already gone from its answers).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosmem_tui.model import (
    MISSING,
    ContainerProperties,
    Item,
    ItemShape,
    JsonValue,
    Key,
    KeyCounts,
    KeyPage,
    Page,
    PartitionKeyDefinition,
    Scope,
    Thread,
    ThreadRef,
    TtlState,
    resolve_ttl,
)
from cosmem_tui.model.telemetry import ContainerStorage
from cosmem_tui.schemas import FieldPath, Granularity, Schema, SchemaError
from cosmem_tui.sources.cosmos.account import CosmosAccount
from cosmem_tui.sources.cosmos.calls import CosmosCalls, Parameters, Route
from cosmem_tui.sources.cosmos.container import check_schema_fits, container_properties
from cosmem_tui.sources.cosmos.lifecycle import LifecycleQueries
from cosmem_tui.sources.cosmos.listing import KeyLister, Strategy
from cosmem_tui.sources.cosmos.region import write_region
from cosmem_tui.sources.cosmos.search_sql import text_match
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.cosmos.shapes import shape_from_row, shape_projection
from cosmem_tui.sources.cosmos.sql import object_of, prop, render
from cosmem_tui.sources.cosmos.storage import container_storage
from cosmem_tui.sources.cosmos.ttl_sql import expiring_condition
from cosmem_tui.sources.errors import BadRequest, NotFound
from cosmem_tui.sources.item_ids import check_item_id
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.shapes import ShapeSpec, shape_spec
from cosmem_tui.sources.store import DEFAULT_PAGE_SIZE, check_page_size
from cosmem_tui.sources.text_search import check_search_text, item_matches, search_targets

_TOKEN_PREFIX = "C1."
_EMPTY_PAGES_MAX = 20  # the service may answer empty pages with a continuation; skip them
SIZE = "thread-size"  # a thread's item count (index-served): what a search reads
# A tenant's counts, one operation per query (each with its own measured cost).
_TENANT_COUNTS = ("count-tenant", "count-tenant-last-write", "count-tenant-threads")
_MESSAGES = "__cosmem_messages"  # scan fallback of session schemas: messages per document


def query_slots(schema: Schema | None) -> dict[str, str]:
    """The property references the query files need, for this schema."""
    if schema is None:
        return {}  # a probe that only samples items, to detect the schema
    thread_tops = [p.top for p in schema.thread_paths]
    activity = object_of([*thread_tops, "_ts", "ttl"])
    session = schema.granularity is Granularity.SESSION and schema.messages is not None
    weight = "1"
    if session:
        assert schema.messages is not None
        # A session document holds many turns; lists count turns, as the local store does.
        count = f"ARRAY_LENGTH({prop(schema.messages)})"
        activity = activity[:-1] + f", {json.dumps(_MESSAGES)}: {count}}}"
        weight = f"(IS_ARRAY({prop(schema.messages)}) AND {count} > 0 ? {count} : 1)"
    top = schema.tenant if schema.tenant is not None else schema.thread
    slots = {
        "top_key": prop(top),
        "thread_identity": object_of(thread_tops),
        # One thread field: its values themselves, which DISTINCT reads from its index.
        "thread_distinct": (
            f"c[{json.dumps(thread_tops[0])}]"
            if len(set(thread_tops)) == 1
            else object_of(thread_tops)
        ),
        "thread_activity": activity,
        "thread_select": ", ".join(f"{prop(p)} AS t{i}" for i, p in enumerate(schema.thread_paths)),
        "thread_group": ", ".join(prop(p) for p in schema.thread_paths),
        "weight": weight,
        "expiring": "false",  # replaced once the container's DefaultTimeToLive is known
        "projection": object_of([*schema.list_projection(), "_ts", "_etag"]),
        "partition_filter": " AND ".join(
            [f"{prop(path)} = @pk{i}" for i, path in enumerate(schema.partition_key)]
            # A thread field outside the key (a LangChain session's id) filters the partition.
            + [f"{prop(path)} = @th{i}" for i, path in enumerate(_unkeyed_thread_paths(schema))]
        ),
        "order": prop(schema.order.path) if schema.order is not None else prop("/id"),
        # Lifecycle lists: the key fields, the kind field, _ts and ttl (ttl_rows*.sql),
        # and what a turn list row reads (order, text), so a row says what the item is.
        "lifecycle_projection": object_of(
            [
                "id",
                *thread_tops,
                *([schema.tenant.top] if schema.tenant is not None else []),
                *([schema.kind.top] if schema.kind is not None else []),
                *schema.list_projection(),
                "_ts",
                "ttl",
            ]
        ),
        "since_where": "",  # key listings: filled with the _ts filter of a reload
        "since_and": "",
    }
    if schema.tenant is not None:
        slots["tenant"] = prop(schema.tenant)
    # The advisor's sample and an erase's listing; the store refines {{shape}} with the
    # vector paths the container's policy declares once it has read the container.
    key_paths = [FieldPath.parse(p) for p in schema.partition_key]
    slots["shape"] = shape_projection(shape_spec(schema, _keyed_by(schema)))
    slots["item_ref"] = item_reference(key_paths)
    slots["text_match"] = search_condition(schema)[0]
    return slots


def search_condition(schema: Schema) -> tuple[str, Parameters]:
    """Thread search's ``{{text_match}}`` and the guard parameters it names: CONTAINS
    over where the schema reads text, or an array longer than that reaches."""
    return text_match(*search_targets(schema))


def _keyed_by(schema: Schema) -> ContainerProperties:
    """A container as the schema expects it (its key; no policies known yet)."""
    paths = tuple(schema.partition_key)
    kind = "MultiHash" if len(paths) > 1 else "Hash"
    return ContainerProperties("", "", PartitionKeyDefinition(paths, kind), None)


def item_reference(key_paths: Sequence[FieldPath]) -> str:
    """The ``{{item_ref}}`` slot: what an erase needs of each item (never its content)."""
    entries = ['"id": c["id"]', '"etag": c["_etag"]', '"ttl": c["ttl"]']
    entries += [f'"pk{i}": {prop(p)}' for i, p in enumerate(key_paths)]
    return "{" + ", ".join(entries) + "}"


def _unkeyed_thread_paths(schema: Schema) -> list[FieldPath]:
    return [p for p in schema.thread_paths if p.text not in schema.partition_key]


def thread_parameters(schema: Schema, ref: ThreadRef) -> tuple[dict[str, Any], ...]:
    """The @parameters of ``{{partition_filter}}`` for one thread."""
    values = schema.partition_key_for(ref)
    parameters = tuple({"name": f"@pk{i}", "value": v} for i, v in enumerate(values))
    by_path = dict(
        zip((p.text for p in schema.thread_paths), schema.thread_values(ref), strict=True)
    )
    return parameters + tuple(
        {"name": f"@th{i}", "value": by_path[p.text]}
        for i, p in enumerate(_unkeyed_thread_paths(schema))
    )


@dataclass(frozen=True, slots=True)
class _Scan:
    """A query that reads a whole thread to answer few rows (a search): how many items it
    reads in all, and what its pages have cost so far, carried in its continuation."""

    items: int
    spent_ru: float = 0.0
    pages: int = 0

    def estimate_ru(self, ledger: RequestLedger, operation: str) -> float:
        """The next page: at most what reading the rest of the thread costs."""
        whole = ledger.estimate_ru(operation, scanned=self.items)
        floor = ledger.estimate_ru(operation, scanned=0)
        return floor + max(0.0, whole - floor - (self.spent_ru - floor * self.pages))

    def after(self, cost_ru: float) -> _Scan:
        return _Scan(self.items, self.spent_ru + cost_ru, self.pages + 1)


def _encode_token(direction: str, token: str, scan: _Scan | None = None) -> str:
    body: list[Any] = [direction, token]
    if scan is not None:
        body += [scan.items, round(scan.spent_ru, 2), scan.pages]
    raw = json.dumps(body, separators=(",", ":")).encode("utf-8")
    return _TOKEN_PREFIX + base64.urlsafe_b64encode(raw).decode("ascii")


def _decode_token(direction: str, text: str) -> tuple[str, _Scan | None]:
    try:
        if not text.startswith(_TOKEN_PREFIX):
            raise ValueError("not a cosmem Cosmos token")
        made_for, token, *scan = json.loads(base64.urlsafe_b64decode(text[len(_TOKEN_PREFIX) :]))
        if made_for != direction or not isinstance(token, str):
            raise ValueError("made for the other direction")
        if not scan:
            return token, None
        items, spent, pages = scan
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in scan):
            raise ValueError("not a scan's progress")
        return token, _Scan(int(items), float(spent), int(pages))
    except (ValueError, binascii.Error, TypeError) as exc:
        raise BadRequest(f"invalid continuation token ({exc})") from None


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class CosmosStore(LifecycleQueries):
    """Reads one container. Exposes no write operations: the console is read-only."""

    def __init__(
        self,
        account: CosmosAccount,
        schema: Schema | None,
        *,
        schema_dir: Path | None = None,
        key_strategy: Strategy = Strategy.AUTO,
    ) -> None:
        settings = account.settings
        self._account = account
        self._settings = settings
        # None: a probe that may only read the container and sample items (schema detection).
        self._schema_or_none = schema
        self._schema_dir = schema_dir
        self._container = account.container(settings.database, settings.container)
        self._calls = CosmosCalls(account.ledger, settings, self._container)
        self._slots = query_slots(schema)
        # The guard values of the slot's condition, for every page of a thread search.
        self._search_guards = search_condition(schema)[1] if schema is not None else ()
        label = f"{schema.tenant_label}s" if schema is not None and schema.tenant else "threads"
        self._lister = KeyLister(self._calls, self._slots, label, key_strategy)
        self._grouping_rejected = False  # the service answered 400 to GROUP BY
        self._subquery_rejected = False  # … and to a count of DISTINCT values
        self._props: ContainerProperties | None = None
        self._scope_sizes = {}  # lifecycle: each scope's size and when it was counted
        self._reading = asyncio.Lock()  # the UI's header and list workers ask at once

    @classmethod
    def open(
        cls,
        settings: CosmosSettings,
        schema: Schema | None,
        *,
        ledger: RequestLedger | None = None,
        schema_dir: Path | None = None,
        transport: Any = None,
        credential: Any = None,
        key_strategy: Strategy = Strategy.AUTO,
    ) -> CosmosStore:
        """A store with its own client (tests, benchmarks); sessions share one per account.

        ``credential`` defaults to the settings' key (key and connection-string auth).
        """
        ledger = ledger or RequestLedger(budget_ru=settings.ru_budget)
        if credential is None:
            if settings.key is None:
                raise ValueError("CosmosStore.open needs a credential or a key in the settings")
            credential = settings.key
        account = CosmosAccount(settings, ledger, credential, transport=transport)
        return cls(account, schema, schema_dir=schema_dir, key_strategy=key_strategy)

    def with_schema(self, schema: Schema) -> CosmosStore:
        """The same account and container read with ``schema`` (after detection)."""
        store = CosmosStore(self._account, schema, schema_dir=self._schema_dir)
        store._props = self._props
        return store

    # -- what the header shows ------------------------------------------------------------

    @property
    def schema(self) -> Schema:
        return self._schema

    @property
    def _schema(self) -> Schema:
        if self._schema_or_none is None:
            raise SchemaError("no schema chosen yet for this container")
        return self._schema_or_none

    @property
    def ledger(self) -> RequestLedger:
        return self._account.ledger

    @property
    def label(self) -> str:
        # The header adds database/container from the container's own properties.
        return f"cosmos {self._settings.endpoint.rstrip('/')}"

    @property
    def simulated(self) -> bool:
        return False

    @property
    def settings(self) -> CosmosSettings:
        return self._settings

    @property
    def cache_id(self) -> str | None:
        """Where listings of this container may be cached: account/database/container."""
        s = self._settings
        return f"{s.account}/{s.database}/{s.container}"

    def listing_notes(self) -> list[str]:
        notes = []
        if self._lister.distinct_rejected:
            notes.append(
                "this service rejects SELECT DISTINCT: keys were listed by a loose index scan "
                "(one request per key)"
            )
        if self._grouping_rejected:
            notes.append(
                "this service rejects GROUP BY: threads were counted from one row per item"
            )
        return notes

    # -- the container --------------------------------------------------------------------

    async def container_properties(self) -> ContainerProperties:
        async with self._reading:
            return await self._read_container()

    async def _read_container(self) -> ContainerProperties:
        if self._props is None:
            settings = self._settings
            missing = (
                f"container {settings.container!r} not found in database {settings.database!r}"
            )

            async def read() -> dict[str, Any]:
                await self._account.enter()
                try:
                    return dict(await self._container.read())
                except Exception as exc:
                    if getattr(exc, "status_code", None) == 404:
                        await self._explain_missing_container()
                    raise

            raw = await self._calls.call(
                "read-container",
                Scope.METADATA,
                f"{settings.database}/{settings.container}",
                read,
                not_found=missing,
                budgeted=False,  # metadata: nothing can be done without it
            )
            self._props = container_properties(settings.database, raw)
            self._slots["expiring"] = expiring_condition(self._props.default_ttl)
        return self._props

    async def account_region(self) -> str | None:
        """The account's first write region, as region hosts spell it ("eastus"): where
        Azure Monitor's regional metrics host for it lives (one account read)."""

        async def read() -> Any:
            await self._account.enter()
            # azure.cosmos.aio exposes the account read only under this name
            return await self._account.client._get_database_account()

        account = await self._calls.call(
            "read-account", Scope.METADATA, self._settings.account, read, budgeted=False
        )
        return write_region(getattr(account, "WritableLocations", None) or [])

    async def range_storage(self, *, background: bool = False) -> ContainerStorage:
        """Storage per physical partition and the container's totals, from one container
        read with statistics and quota info (no Log Analytics needed)."""
        settings = self._settings

        async def read() -> tuple[dict[str, Any], dict[str, Any]]:
            await self._account.enter()
            body = await self._container.read(
                populate_partition_key_range_statistics=True, populate_quota_info=True
            )
            return dict(body), dict(body.get_response_headers())

        body, headers = await self._calls.call(
            "read-storage",
            Scope.METADATA,
            f"{settings.database}/{settings.container}",
            read,
            background=background,
        )
        return container_storage(body, headers)

    async def _explain_missing_container(self) -> None:
        """A 404 on the container: say whether the database itself is missing."""
        settings = self._settings
        database = self._account.client.get_database_client(settings.database)
        try:
            await database.read()
        except Exception as exc:
            if getattr(exc, "status_code", None) == 404:
                raise NotFound(
                    f"database {settings.database!r} not found on {settings.account}"
                ) from None
            raise

    async def _ready(self) -> ContainerProperties:
        """The container's properties, once it is known that the schema fits them."""
        props = await self.container_properties()
        check_schema_fits(self._schema, props, self._schema_dir)
        return props

    def _partition_key_argument(self, values: tuple[JsonValue, ...]) -> Any:
        assert self._props is not None
        return list(values) if self._props.partition_key.hierarchical else values[0]

    def _tenant_route(self, tenant: Key) -> Route | None:
        """How a query scoped to one tenant is routed (None: it must visit every range)."""
        assert self._schema.tenant is not None
        paths = self._schema.partition_key
        if paths[0] != self._schema.tenant.text:
            return None
        if len(paths) == 1:
            return Route(Scope.PARTITION, partition_key=tenant.value)
        return Route(Scope.PREFIX, partition_key=[tenant.value])

    async def _rows(
        self,
        name: str,
        route: Route | None,
        *,
        operation: str,
        target: str,
        parameters: Parameters = (),
        background: bool = False,
        slots: Mapping[str, str] | None = None,
        scanned: int | Sequence[int] | None = None,
        remaining_ru: float | None = None,
    ) -> AsyncIterator[Any]:
        """Every row of a query; ``route`` None: each physical range in turn (explicitly).

        ``slots``: fragments this one query adds to the schema's (lifecycle conditions).
        ``scanned``: how many items the query must read (its scope's size, when known;
        one per range, in range order, when it visits each range): each page is
        estimated from it, and a range answered in one page teaches the ledger what
        reading an item costs. ``remaining_ru``: what the action still needs after this
        query, for a question at the budget."""
        query = render(name, {**self._slots, **slots} if slots else self._slots)
        routes: Sequence[Route]
        if route is None:
            ranges = await self._calls.feed_ranges(background=background)
            routes = [Route(Scope.RANGE, feed_range=r) for r in ranges]
        else:
            routes = [route]
        sizes: list[int | None]
        if scanned is None:
            sizes = [None] * len(routes)
        elif isinstance(scanned, int):  # one total for every range: each may read all of it
            sizes = [scanned] * len(routes)
        elif len(scanned) == len(routes):
            sizes = list(scanned)
        else:  # the ranges changed since they were counted: the largest, for each
            sizes = [max(scanned, default=0)] * len(routes)
        for each, size in zip(routes, sizes, strict=True):
            continuation: str | None = None
            while True:
                estimate = (
                    self.ledger.estimate_ru(operation, scanned=size) if size is not None else None
                )
                page = await self._calls.page(
                    query,
                    each,
                    operation=operation,
                    target=target,
                    parameters=parameters,
                    page_size=self._settings.scan_page_size,
                    continuation=continuation,
                    background=background,
                    estimate_ru=estimate,
                    remaining_ru=None if remaining_ru is None else remaining_ru + (estimate or 0),
                )
                exact = len(routes) == 1 or not isinstance(scanned, int)
                whole = continuation is None and page.continuation is None and exact
                if size and whole:  # one page read the whole range: a measured rate
                    self.ledger.learn_scan(operation, size, page.cost_ru)
                for row in page.rows:
                    yield row
                continuation = page.continuation
                if continuation is None:
                    break

    # -- top-level keys -------------------------------------------------------------------

    async def list_keys(self, cursor: str | None = None, *, since: int | None = None) -> KeyPage:
        """One call's worth of top-level keys (tenants, or threads without a tenant level);
        ``since``: only keys with an item written after that time (epoch seconds)."""
        await self._ready()
        return await self._lister.page(cursor, since=since)

    async def key_counts(self, key: Key, *, background: bool = True) -> KeyCounts:
        """Counts of one top-level key (background work: it stops quietly at the budget)."""
        props = await self._ready()
        if self._schema.has_tenant_level:
            return await self._tenant_counts(key, background)
        return await self._thread_counts(ThreadRef(None, key), props, background)

    async def _tenant_counts(self, tenant: Key, background: bool) -> KeyCounts:
        route = self._tenant_route(tenant)
        target = f"{self._schema.tenant_label} {tenant.text}"
        parameters = ({"name": "@tenant", "value": tenant.value},)

        async def values(name: str, operation: str, scanned: int | None = None) -> list[Any]:
            rows = self._rows(
                name,
                route,
                operation=operation,
                target=target,
                parameters=parameters,
                background=background,
                scanned=scanned,
            )
            return [v async for v in rows]

        # The item count and the newest write are index-served (a COUNT, one _ts read from
        # the top of its index), so they cost about the same for a tenant of any size; the
        # count says how much the thread count, which walks the tenant's threads, reads.
        # Each is its own operation, so each has its own measured cost.
        with self.ledger.room_for(_TENANT_COUNTS, target, background=background):
            counted_items = await values("tenant_item_count", "count-tenant")
            items = sum(v for v in counted_items if _number(v) is not None)
            if items == 0:
                return KeyCounts(items=0, last_activity=None, threads=0)
            stamps = [v for v in await values("tenant_last_write", "count-tenant-last-write")]
            stamps = [v for v in stamps if _number(v) is not None]
            if not self._subquery_rejected:
                try:
                    counted = await values("tenant_thread_count", "count-tenant-threads")
                    threads = sum(v for v in counted if _number(v) is not None)
                    return KeyCounts(items, max(stamps) if stamps else None, threads=threads)
                except BadRequest:  # no DISTINCT / subqueries here: stop asking
                    self._subquery_rejected = True
            scan = await values("tenant_threads_scan", "count-tenant-threads", scanned=items)
        seen = {json.dumps(v, sort_keys=True) for v in scan}
        threads = len(seen)
        return KeyCounts(
            items=items, last_activity=max(stamps) if stamps else None, threads=threads
        )

    async def _thread_counts(
        self, ref: ThreadRef, props: ContainerProperties, background: bool = True
    ) -> KeyCounts:
        values = self._schema.partition_key_for(ref)
        route = Route(Scope.PARTITION, partition_key=self._partition_key_argument(values))
        rows = [
            row
            async for row in self._rows(
                "thread_counts",
                route,
                operation="count-thread",
                target=ref.describe(self._schema.tenant_label),
                parameters=self._turn_parameters(ref),
                background=background,
            )
        ]
        row = rows[0] if rows and isinstance(rows[0], Mapping) else {}
        items = _number(row.get("items")) or 0
        expiring = _number(row.get("expiring")) or 0
        return KeyCounts(
            items=items,
            last_activity=_number(row.get("last")),
            short_term=expiring,
            long_term=items - expiring,
        )

    # -- threads of a tenant -------------------------------------------------------------

    async def list_threads(self, tenant: Key) -> list[Thread]:
        props = await self._ready()
        if not self._schema.has_tenant_level:
            raise SchemaError(f"schema {self._schema.name} has no {self._schema.tenant_label}s")
        route = self._tenant_route(tenant)
        target = f"{self._schema.tenant_label} {tenant.text}"
        parameters = ({"name": "@tenant", "value": tenant.value},)
        if not self._grouping_rejected:
            try:
                return await self._grouped_threads(tenant, route, target, parameters)
            except BadRequest:
                self._grouping_rejected = True  # this service has no GROUP BY: stop asking
        return await self._scanned_threads(tenant, route, target, parameters, props)

    async def _grouped_threads(
        self, tenant: Key, route: Route | None, target: str, parameters: Parameters
    ) -> list[Thread]:
        arity = len(self._schema.thread_paths)
        groups: dict[Key, list[int]] = {}  # items, expiring, newest _ts (0: none)
        rows = self._rows(
            "threads_of_tenant_grouped",
            route,
            operation="list-threads",
            target=target,
            parameters=parameters,
        )
        async for row in rows:
            if not isinstance(row, Mapping):
                continue
            parts = [row.get(f"t{i}", MISSING) for i in range(arity)]
            if any(p is MISSING or isinstance(p, list | dict) for p in parts):
                continue  # items without a thread (or a malformed one) are not a thread
            # The same group can come from two ranges (the prefix spans them): add up.
            group = groups.setdefault(Key(parts), [0, 0, 0])
            group[0] += _number(row.get("items")) or 0
            group[1] += _number(row.get("expiring")) or 0
            group[2] = max(group[2], _number(row.get("last")) or 0)
        return [
            Thread(
                ThreadRef(tenant, key),
                items=items,
                last_activity=last or None,
                short_term=expiring,
                long_term=items - expiring,
                pseudo=self._schema.sentinels.get(key.text),
            )
            for key, (items, expiring, last) in groups.items()
        ]

    async def _scanned_threads(
        self,
        tenant: Key,
        route: Route | None,
        target: str,
        parameters: Parameters,
        props: ContainerProperties,
    ) -> list[Thread]:
        tallies: dict[Key, _ThreadTally] = {}
        arity = len(self._schema.thread_paths)
        async for row in self._rows(
            "threads_of_tenant",
            route,
            operation="list-threads",
            target=target,
            parameters=parameters,
        ):
            if not isinstance(row, Mapping):
                continue
            parts = [p.get(row) for p in self._schema.thread_paths]
            if any(p is MISSING or isinstance(p, list | dict) for p in parts):
                continue
            key = Key(parts) if arity > 1 else Key.of(parts[0])
            tally = tallies.setdefault(key, _ThreadTally())
            messages = row.get(_MESSAGES)
            weight = max(1, messages) if isinstance(messages, int) else 1
            tally.add(row, props.default_ttl, weight)
        return [tally.thread(ThreadRef(tenant, k), self._schema) for k, tally in tallies.items()]

    # -- turns ----------------------------------------------------------------------------

    def _turn_parameters(self, ref: ThreadRef) -> tuple[dict[str, Any], ...]:
        return thread_parameters(self._schema, ref)

    async def page_turns(
        self,
        ref: ThreadRef,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        newest_first: bool = False,
    ) -> Page[Item]:
        direction = "newest" if newest_first else "oldest"
        return await self._thread_page(
            ref,
            f"turns_{direction}_first",
            direction,
            "turns-page",
            continuation=continuation,
            page_size=page_size,
        )

    async def search_turns(
        self,
        ref: ThreadRef,
        text: str,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> Page[Item]:
        """Items of one thread whose text contains ``text``, ignoring case: one
        single-partition query (``turns_matching.sql``), paged like ``page_turns``.
        It answers candidates (an item longer than the probes reach comes whatever its
        text); only those whose whole text holds ``text`` are kept."""
        check_search_text(text)
        scan = None
        # How much it reads is known before its first page, from the thread's size (a
        # cheap count); a session that cannot afford even that asks about the search.
        if continuation is None and self.ledger.affordable(self.ledger.estimate_ru(SIZE)):
            scan = _Scan(await self._thread_size(ref))
        return await self._thread_page(
            ref,
            "turns_matching",
            "search",
            "search-turns",
            continuation=continuation,
            page_size=page_size,
            parameters=(*self._search_guards, {"name": "@text", "value": text}),
            keep=lambda row: item_matches(self._schema, row, text),
            scan=scan,
        )

    async def _thread_size(self, ref: ThreadRef) -> int:
        """How many items a thread holds: one index-served single-partition count, so a
        query that reads the whole thread (a search) is estimated before it is sent."""
        await self._ready()
        values = self._schema.partition_key_for(ref)
        route = Route(Scope.PARTITION, partition_key=self._partition_key_argument(values))
        counted = self._rows(
            "thread_item_count",
            route,
            operation=SIZE,
            target=ref.describe(self._schema.tenant_label),
            parameters=self._turn_parameters(ref),
        )
        return sum([v async for v in counted if _number(v) is not None])

    async def _thread_page(
        self,
        ref: ThreadRef,
        query_name: str,
        token_kind: str,
        operation: str,
        *,
        continuation: str | None,
        page_size: int,
        parameters: Parameters = (),
        keep: Callable[[Mapping[str, JsonValue]], bool] | None = None,
        scan: _Scan | None = None,
    ) -> Page[Item]:
        """One page of a single-partition query over the thread's items (its parameters
        after the thread's), of the rows ``keep`` accepts; pages with none are skipped.

        ``scan``: the query reads the whole thread (a search): each page is estimated
        from what is left of it, not from the rows it returns."""
        limit = check_page_size(page_size)
        await self._ready()
        values = self._schema.partition_key_for(ref)
        token = None
        if continuation is not None:
            token, scan = _decode_token(token_kind, continuation)
        first = token is None
        route = Route(Scope.PARTITION, partition_key=self._partition_key_argument(values))
        query = render(query_name, self._slots)
        everything = (*self._turn_parameters(ref), *parameters)
        items: tuple[Item, ...] = ()
        for _ in range(_EMPTY_PAGES_MAX):
            estimate = scan.estimate_ru(self.ledger, operation) if scan is not None else None
            page = await self._calls.page(
                query,
                route,
                operation=operation,
                target=ref.describe(self._schema.tenant_label),
                parameters=everything,
                page_size=limit,
                continuation=token,
                estimate_ru=estimate,
                remaining_ru=estimate,
            )
            token = page.continuation
            if scan is not None:
                if first and token is None:  # one page read the whole thread: a rate
                    self.ledger.learn_scan(operation, scan.items, page.cost_ru)
                scan = scan.after(page.cost_ru)
            first = False
            items = tuple(
                self._item(row)
                for row in page.rows
                if isinstance(row, Mapping) and (keep is None or keep(row))
            )
            if items or token is None:
                break
        if token is None:
            return Page(items, None)
        return Page(items, _encode_token(token_kind, token, scan))

    def _item(self, body: Mapping[str, JsonValue]) -> Item:
        assert self._props is not None  # read before any item is
        key = tuple(FieldPath.parse(path).get(body) for path in self._props.partition_key.paths)
        ts = body.get("_ts")
        return Item(
            str(body.get("id", "")),
            tuple(None if v is MISSING else v for v in key),
            ts if isinstance(ts, int) else 0,
            str(body.get("_etag", "")),
            dict(body),
        )

    async def read_item(self, ref: ThreadRef, item_id: str) -> Item:
        check_item_id(item_id, "a point read")
        await self._ready()
        values = self._schema.partition_key_for(ref)
        where = ref.describe(self._schema.tenant_label)

        async def read() -> Any:
            return await self._container.read_item(
                item=item_id,
                partition_key=self._partition_key_argument(values),
                priority=self._settings.priority,
            )

        body = await self._calls.call(
            "read-item",
            Scope.POINT,
            f"{item_id} in {ref.describe()}",
            read,
            not_found=f"no item {item_id!r} in {where}",
        )
        return self._item(dict(body))

    async def sample_items(self, limit: int, *, max_request_units: float) -> list[Item]:
        """Recent items, whole, range by range until ``limit`` items or the RU cap."""
        if limit < 1:
            raise ValueError(f"sample size must be at least 1, got {limit}")
        await self.container_properties()
        query = render("sample_items", self._slots)
        kept: list[Item] = []
        with self.ledger.meter() as meter:
            for feed_range in await self._calls.feed_ranges(background=True):
                if len(kept) >= limit or (kept and meter.request_units >= max_request_units):
                    break
                page = await self._calls.page(
                    query,
                    Route(Scope.RANGE, feed_range=feed_range),
                    operation="sample-items",
                    target=f"{limit} recent items",
                    parameters=({"name": "@limit", "value": limit - len(kept)},),
                    page_size=limit - len(kept),
                    background=True,
                )
                kept.extend(self._item(row) for row in page.rows if isinstance(row, Mapping))
        return kept[:limit]

    async def sample_shapes(self, limit: int, *, max_request_units: float) -> list[ItemShape]:
        """Shapes of recent items (projected), the limit shared out over the ranges."""
        if limit < 1:
            raise ValueError(f"sample size must be at least 1, got {limit}")
        props = await self.container_properties()
        spec = shape_spec(self._schema_or_none, props)
        query = render("sample_shapes", {"shape": shape_projection(spec)})
        kept: dict[tuple[str, str], ItemShape] = {}
        with self.ledger.meter() as meter:
            ranges = await self._calls.feed_ranges(background=True)
            full: dict[int, int] = {}  # ranges that gave all they were asked: maybe more
            for done, feed_range in enumerate(ranges):
                if len(kept) >= limit or (kept and meter.request_units >= max_request_units):
                    break
                # An even share of what is left per range, so one range cannot fill it.
                quota = -(-(limit - len(kept)) // (len(ranges) - done))
                rows = await self._shape_rows(query, spec, feed_range, quota, limit)
                if len(rows) >= quota:
                    full[done] = quota
                for row in rows:
                    kept.setdefault((row.id, json.dumps(row.partition_key)), row)
            # Ranges with fewer items left room: ask the full ones for more (newest first
            # again, so their first rows repeat and are skipped).
            for index, asked in full.items():
                if len(kept) >= limit or meter.request_units >= max_request_units:
                    break
                more = asked + limit - len(kept)
                rows = await self._shape_rows(query, spec, ranges[index], more, limit)
                for row in rows:
                    kept.setdefault((row.id, json.dumps(row.partition_key)), row)
        return list(kept.values())[:limit]

    async def _shape_rows(
        self, query: str, spec: ShapeSpec, feed_range: Mapping[str, Any], count: int, limit: int
    ) -> list[ItemShape]:
        page = await self._calls.page(
            query,
            Route(Scope.RANGE, feed_range=feed_range),
            operation="sample-shapes",
            target=f"shapes of {limit} recent items",
            parameters=({"name": "@limit", "value": count},),
            page_size=count,
            background=True,
        )
        return [shape_from_row(r, spec) for r in page.rows if isinstance(r, Mapping)]

    async def close(self) -> None:
        await self._account.close()


class _ThreadTally:
    """Counts of one thread's visible items, built from the rows of its tenant's listing."""

    __slots__ = ("items", "last", "long_term", "short_term")

    def __init__(self) -> None:
        self.items = 0
        self.short_term = 0
        self.long_term = 0
        self.last: int | None = None

    def add(self, row: Mapping[str, JsonValue], default_ttl: int | None, weight: int) -> None:
        ts = row.get("_ts")
        stamp = ts if isinstance(ts, int) else 0
        self.items += weight
        self.last = stamp if self.last is None else max(self.last, stamp)
        ttl = resolve_ttl(row.get("ttl", MISSING), stamp, default_ttl)
        if ttl.state is TtlState.EXPIRES:
            self.short_term += weight
        else:
            self.long_term += weight

    def thread(self, ref: ThreadRef, schema: Schema) -> Thread:
        return Thread(
            ref,
            items=self.items,
            last_activity=self.last,
            short_term=self.short_term,
            long_term=self.long_term,
            pseudo=schema.sentinels.get(ref.thread.text),
        )
