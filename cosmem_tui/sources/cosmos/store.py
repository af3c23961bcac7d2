"""The MemoryStore over a real Cosmos DB for NoSQL container (async azure-cosmos).

Read-only: no write operation exists here. Every request passes the Gateway (see
``calls``). Partition keys are always in the WHERE clause *and* passed as
``partition_key=``: the full key for one thread, the prefix ``[tenant]`` for the
threads of a tenant on a hierarchical container. Visibility is the service's
business (expired items are already gone from its answers); the clock here is the
system clock, used only for countdowns on screen.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cosmem_tui.model import (
    MISSING,
    ContainerProperties,
    Item,
    JsonValue,
    Page,
    Scope,
    Tenant,
    Thread,
    ThreadRef,
    TtlState,
    resolve_ttl,
)
from cosmem_tui.profiles import FieldPath, Granularity, Schema, SchemaError
from cosmem_tui.sources.cosmos.account import CosmosAccount
from cosmem_tui.sources.cosmos.calls import QueryRunner, call
from cosmem_tui.sources.cosmos.container import check_schema_fits, container_properties
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.cosmos.sql import object_of, prop
from cosmem_tui.sources.cosmos.tenants import TenantDirectory
from cosmem_tui.sources.errors import BadRequest
from cosmem_tui.sources.gateway import Gateway
from cosmem_tui.sources.store import DEFAULT_PAGE_SIZE, check_page_size

_TOKEN_PREFIX = "C1."
_EMPTY_PAGES_MAX = 20  # the service may answer empty pages with a continuation; skip them
_MESSAGES = "__cosmem_messages"  # thread listings of session schemas: messages per document


def query_slots(schema: Schema | None) -> dict[str, str]:
    """The property references the query files need, for this schema."""
    if schema is None:
        return {}  # a probe that only samples items, to detect the schema
    thread_tops = [p.top for p in schema.thread_paths]
    activity = object_of([*thread_tops, "_ts", "ttl"])
    if schema.granularity is Granularity.SESSION and schema.messages is not None:
        # A session document holds many turns; the list counts turns, as the local store does.
        count = f"ARRAY_LENGTH({prop(schema.messages)})"
        activity = activity[:-1] + f", {json.dumps(_MESSAGES)}: {count}}}"
    slots = {
        "thread_identity": object_of(thread_tops),
        "thread_activity": activity,
        "projection": object_of([*schema.list_projection(), "_ts", "_etag"]),
        "partition_filter": " AND ".join(
            [f"{prop(path)} = @pk{i}" for i, path in enumerate(schema.partition_key)]
            # A thread field outside the key (a LangChain session's id) filters the partition.
            + [f"{prop(path)} = @th{i}" for i, path in enumerate(_unkeyed_thread_paths(schema))]
        ),
        "order": prop(schema.order.path) if schema.order is not None else prop("/id"),
    }
    if schema.tenant is not None:
        slots["tenant"] = prop(schema.tenant)
    return slots


def _unkeyed_thread_paths(schema: Schema) -> list[FieldPath]:
    return [p for p in schema.thread_paths if p.text not in schema.partition_key]


def _encode_token(direction: str, token: str) -> str:
    raw = json.dumps([direction, token], separators=(",", ":")).encode("utf-8")
    return _TOKEN_PREFIX + base64.urlsafe_b64encode(raw).decode("ascii")


def _decode_token(direction: str, text: str) -> str:
    try:
        if not text.startswith(_TOKEN_PREFIX):
            raise ValueError("not a cosmem Cosmos token")
        made_for, token = json.loads(base64.urlsafe_b64decode(text[len(_TOKEN_PREFIX) :]))
        if made_for != direction or not isinstance(token, str):
            raise ValueError("made for the other direction")
        return token
    except (ValueError, binascii.Error, TypeError) as exc:
        raise BadRequest(f"invalid continuation token ({exc})") from None


class CosmosStore:
    """Reads one container. Exposes no write operations: the console is read-only."""

    def __init__(
        self,
        account: CosmosAccount,
        schema: Schema | None,
        *,
        schema_dir: Path | None = None,
    ) -> None:
        settings = account.settings
        self._account = account
        self._settings = settings
        # None: a probe that may only read the container and sample items (schema detection).
        self._schema_or_none = schema
        self._schema_dir = schema_dir
        self._container = account.container(settings.database, settings.container)
        self._runner = QueryRunner(account.gateway, settings, self._container, query_slots(schema))
        label = schema.tenant_label if schema is not None else "tenant"
        self._tenants = TenantDirectory(self._runner, label, self._tenant_route)
        self._props: ContainerProperties | None = None
        self._reading = asyncio.Lock()  # the UI's header and list workers ask at once

    @classmethod
    def open(
        cls,
        settings: CosmosSettings,
        schema: Schema | None,
        *,
        gateway: Gateway | None = None,
        schema_dir: Path | None = None,
        transport: Any = None,
        credential: Any = None,
    ) -> CosmosStore:
        """Build the client (no request yet: the first call connects)."""
        gateway = gateway or Gateway(budget_ru=settings.ru_budget)
        account = CosmosAccount(settings, gateway, transport=transport, credential=credential)
        if settings.allow_cross_partition:

            async def approve(_request: object) -> bool:
                return True

            gateway.set_confirmer(approve)
        return cls(account, schema, schema_dir=schema_dir)

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
    def gateway(self) -> Gateway:
        return self._account.gateway

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
    def distinct_fallback(self) -> bool:
        """True once the service rejected DISTINCT and listings de-duplicate client-side."""
        return self._tenants.distinct_rejected

    # -- the container --------------------------------------------------------------------

    async def container_properties(self) -> ContainerProperties:
        async with self._reading:
            return await self._read_container()

    async def _read_container(self) -> ContainerProperties:
        if self._props is None:
            await self._account.connect()
            settings = self._settings
            missing = (
                f"container {settings.container!r} not found in database {settings.database!r}"
            )
            async with call(
                self.gateway,
                settings,
                "read-container",
                Scope.METADATA,
                f"{settings.database}/{settings.container}",
                not_found=missing,
            ):
                try:
                    raw = await self._container.read()
                except Exception as exc:
                    if getattr(exc, "status_code", None) == 404:
                        await self._explain_missing_container()
                    raise
            self._props = container_properties(settings.database, raw)
        return self._props

    async def _explain_missing_container(self) -> None:
        """A 404 on the container: say whether the database itself is missing."""
        settings = self._settings
        database = self._account.client.get_database_client(settings.database)
        async with call(
            self.gateway,
            settings,
            "read-database",
            Scope.METADATA,
            settings.database,
            not_found=f"database {settings.database!r} not found on {settings.account}",
        ):
            await database.read()

    async def _ready(self) -> ContainerProperties:
        """The container's properties, once it is known that the schema fits them."""
        props = await self.container_properties()
        check_schema_fits(self._schema, props, self._schema_dir)
        return props

    def _partition_key_argument(self, values: tuple[JsonValue, ...]) -> Any:
        assert self._props is not None
        return list(values) if self._props.partition_key.hierarchical else values[0]

    def _tenant_route(self, tenant: str) -> tuple[Scope, Any]:
        """How a query scoped to one tenant is routed: by prefix key when the key starts with it."""
        assert self._schema.tenant is not None
        paths = self._schema.partition_key
        if paths[0] != self._schema.tenant.text:
            return Scope.CROSS_PARTITION, None
        if len(paths) == 1:
            return Scope.PARTITION, tenant
        return Scope.PREFIX, [tenant]

    # -- listings ---------------------------------------------------------------------------

    async def list_tenants(self) -> list[Tenant]:
        if not self._schema.has_tenant_level:
            raise SchemaError(f"schema {self._schema.name} has no tenant level")
        await self._ready()
        return await self._tenants.list()

    async def list_threads(self, tenant: str | None) -> list[Thread]:
        props = await self._ready()
        if self._schema.has_tenant_level:
            if tenant is None:
                raise SchemaError(f"schema {self._schema.name} needs a {self._schema.tenant_label}")
            scope, partition_key = self._tenant_route(tenant)
            rows = self._runner.rows(
                "threads_of_tenant",
                operation="list-threads",
                scope=scope,
                target=f"{self._schema.tenant_label} {tenant}",
                parameters=({"name": "@tenant", "value": tenant},),
                partition_key=partition_key,
            )
        else:
            rows = self._runner.rows(
                "threads_all",
                operation="list-threads",
                scope=Scope.CROSS_PARTITION,
                target="all threads",
                budgeted=True,  # the top-level listing of a schema without tenants
            )
        threads: dict[str, _ThreadTally] = {}
        async for row in rows:
            if not isinstance(row, Mapping):
                continue
            name = self._schema.thread_key(row)
            if name is None:
                continue
            tally = threads.setdefault(name, _ThreadTally())
            messages = row.get(_MESSAGES)
            weight = max(1, messages) if isinstance(messages, int) else 1
            tally.add(row, props.default_ttl, weight)
        return [tally.thread(ThreadRef(tenant, n), self._schema) for n, tally in threads.items()]

    async def page_turns(
        self,
        ref: ThreadRef,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        newest_first: bool = False,
    ) -> Page[Item]:
        limit = check_page_size(page_size)
        await self._ready()
        values = self._schema.partition_key_for(ref)
        direction = "newest" if newest_first else "oldest"
        token = _decode_token(direction, continuation) if continuation is not None else None
        parameters = tuple({"name": f"@pk{i}", "value": v} for i, v in enumerate(values))
        by_path = dict(
            zip(
                (p.text for p in self._schema.thread_paths),
                self._schema.thread_values(ref),
                strict=True,
            )
        )
        parameters += tuple(
            {"name": f"@th{i}", "value": by_path[p.text]}
            for i, p in enumerate(_unkeyed_thread_paths(self._schema))
        )
        for _ in range(_EMPTY_PAGES_MAX):
            page = await self._runner.page(
                f"turns_{direction}_first",
                operation="turns-page",
                scope=Scope.PARTITION,
                target=ref.describe(self._schema.tenant_label),
                parameters=parameters,
                partition_key=self._partition_key_argument(values),
                page_size=limit,
                continuation=token,
            )
            token = page.continuation
            if page.rows or token is None:
                break
        items = tuple(self._item(row) for row in page.rows if isinstance(row, Mapping))
        return Page(items, _encode_token(direction, token) if token is not None else None)

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
        await self._ready()
        values = self._schema.partition_key_for(ref)
        where = ref.describe(self._schema.tenant_label)
        async with call(
            self.gateway,
            self._settings,
            "read-item",
            Scope.POINT,
            f"{item_id} in {ref.describe()}",
            not_found=f"no item {item_id!r} in {where}",
        ) as ticket:
            body = await self._container.read_item(
                item=item_id, partition_key=self._partition_key_argument(values)
            )
            ticket.items = 1
        return self._item(dict(body))

    async def sample_items(self, limit: int, *, max_request_units: float) -> list[Item]:
        """The newest items of the container, whole: a bounded cross-partition read."""
        if limit < 1:
            raise ValueError(f"sample size must be at least 1, got {limit}")
        await self.container_properties()
        target = f"{limit} recent items"
        # Bounded by its own RU cap, so it counts as budgeted (no confirmation needed).
        await self.gateway.authorize_fan_out("sample-items", target, budgeted=True)
        kept: list[Item] = []
        spent = 0.0
        continuation: str | None = None
        with self.gateway.meter() as meter:
            while len(kept) < limit and (not kept or spent < max_request_units):
                page = await self._runner.page(
                    "sample_items",
                    operation="sample-items",
                    scope=Scope.CROSS_PARTITION,
                    target=target,
                    parameters=({"name": "@limit", "value": limit},),
                    page_size=limit,
                    continuation=continuation,
                )
                spent = meter.request_units
                kept.extend(self._item(row) for row in page.rows if isinstance(row, Mapping))
                continuation = page.continuation
                if continuation is None:
                    break
        return kept[:limit]

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
            pseudo=schema.sentinels.get(ref.thread),
        )
