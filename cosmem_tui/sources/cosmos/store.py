"""The MemoryStore over a real Cosmos DB for NoSQL container (async azure-cosmos).

Read-only: no write operation exists here. Every call goes through ``CosmosCalls``
(budget, hold-off, deadline, one ledger record per HTTP response). The store states
each query (``queries/cosmos/``) and where it goes (``Route``), the runner pages it,
and the store maps the rows:

* top-level keys: per physical partition (``listing``), never a cross-partition DISTINCT;
* counts of one key: index-served aggregates scoped to the key (prefix or full key);
* threads of a tenant: grouped by the service, one prefix query per page;
* turns: single-partition pages in the schema's order, full key in WHERE and in
  ``partition_key=``, projected (never an embedding);
* recall probes (``recall``): the memory system's retrieval query at Low priority;
* the change feed (``change_feed``): a thread's key, a tenant's prefix or every feed
  range, in either mode, at Low priority.

Visibility is the service's business (expired items are already gone from its answers).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from cosmem_tui.model import MISSING, ContainerProperties, Item, JsonValue, Key, Scope, ThreadRef
from cosmem_tui.model.telemetry import ContainerStorage
from cosmem_tui.schemas import FieldPath, Schema, SchemaError
from cosmem_tui.sources.cosmos.account import CosmosAccount
from cosmem_tui.sources.cosmos.calls import CosmosCalls, Parameters, Route
from cosmem_tui.sources.cosmos.change_feed import ChangeFeedReads
from cosmem_tui.sources.cosmos.container import check_schema_fits, container_properties
from cosmem_tui.sources.cosmos.item_reads import ItemReads
from cosmem_tui.sources.cosmos.key_listings import KeyListings
from cosmem_tui.sources.cosmos.lifecycle import LifecycleQueries
from cosmem_tui.sources.cosmos.listing import KeyLister, Strategy
from cosmem_tui.sources.cosmos.query_slots import query_slots, search_condition, thread_parameters
from cosmem_tui.sources.cosmos.recall import RecallQueries
from cosmem_tui.sources.cosmos.region import write_region
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.cosmos.sql import render
from cosmem_tui.sources.cosmos.storage import container_storage
from cosmem_tui.sources.cosmos.ttl_sql import expiring_condition
from cosmem_tui.sources.cosmos.turn_pages import TurnPages
from cosmem_tui.sources.errors import NotFound
from cosmem_tui.sources.request_ledger import RequestLedger


class CosmosStore(
    KeyListings, TurnPages, ItemReads, LifecycleQueries, RecallQueries, ChangeFeedReads
):
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

    def _turn_parameters(self, ref: ThreadRef) -> tuple[dict[str, Any], ...]:
        return thread_parameters(self._schema, ref)

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

    async def close(self) -> None:
        await self._account.close()
