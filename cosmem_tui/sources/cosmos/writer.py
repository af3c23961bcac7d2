"""Guarded writes on a Cosmos container (--allow-writes): a ttl patch and a delete, If-Match.

Built by ``compose`` only for a session that allows writes, with its own container
handle on the session's account; the ``CosmosStore`` stays read-only. Every write is a
declared write call (``CosmosCalls.call(write=True)``: the request ledger refuses it in a
read-only session and the wire guard refuses any write verb not declared), goes under
the session's budget and ledger, and carries ``If-Match``: a 412 becomes ``Conflict``
and nothing is overwritten. The thread's items are listed with single-partition
queries (the full key in WHERE and in ``partition_key=``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from azure.core import MatchConditions

from cosmem_tui.model import MISSING, ContainerProperties, PartitionKeyValue, Scope, ThreadRef
from cosmem_tui.schemas import FieldPath, Schema
from cosmem_tui.sources.cosmos.account import CosmosAccount
from cosmem_tui.sources.cosmos.calls import CosmosCalls, Route
from cosmem_tui.sources.cosmos.identity import identity
from cosmem_tui.sources.cosmos.query_slots import item_reference, query_slots, thread_parameters
from cosmem_tui.sources.cosmos.sql import render
from cosmem_tui.sources.item_ids import check_item_id
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.writer import ERASE_PAGE, ThreadItem, WriteAck


class CosmosWriter:
    def __init__(
        self,
        account: CosmosAccount,
        schema: Schema,
        container: Callable[[], Awaitable[ContainerProperties]],
        credential: Any = None,
    ) -> None:
        settings = account.settings
        account.ledger.check_write("open for writing", settings.describe())
        self._account = account
        self._settings = settings
        self._schema = schema
        self._container_properties = container  # the store's (read once, shared)
        self._credential = credential
        self._proxy = account.container(settings.database, settings.container)
        self._calls = CosmosCalls(account.ledger, settings, self._proxy)
        self._slots = query_slots(schema)
        self._props: ContainerProperties | None = None
        self._identity: str | None = None

    @property
    def ledger(self) -> RequestLedger:
        return self._account.ledger

    @property
    def where(self) -> str:
        s = self._settings
        return f"{s.account}/{s.database}/{s.container}"

    @property
    def account(self) -> str:
        return self._settings.account

    async def identity(self) -> str:
        if self._identity is None:
            self._identity = await identity(self._settings, self._credential)
        return self._identity

    async def _key_argument(self, partition_key: PartitionKeyValue) -> Any:
        if self._props is None:
            self._props = await self._container_properties()
            paths = [FieldPath.parse(p) for p in self._props.partition_key.paths]
            self._slots["item_ref"] = item_reference(paths)
        values = list(partition_key)
        return values if self._props.partition_key.hierarchical else values[0]

    async def set_ttl(
        self, item_id: str, partition_key: PartitionKeyValue, ttl: int, *, etag: str
    ) -> WriteAck:
        check_item_id(item_id, "set-ttl")
        key = await self._key_argument(partition_key)
        proxy: Any = self._proxy

        async def send() -> Any:
            return await proxy.patch_item(
                item=item_id,
                partition_key=key,
                patch_operations=[{"op": "set", "path": "/ttl", "value": ttl}],
                etag=etag,
                match_condition=MatchConditions.IfNotModified,
                priority=self._settings.priority,
            )

        with self.ledger.meter() as cost:
            body = await self._calls.call(
                "set-ttl",
                Scope.POINT,
                f"{item_id} ttl {ttl}",
                send,
                not_found=f"no item {item_id!r} (deleted or expired since it was read)",
                write=True,
                item_id=item_id,
            )
        etag_after = body.get("_etag") if isinstance(body, Mapping) else None
        return WriteAck(200, str(etag_after) if etag_after else None, cost.request_units)

    async def delete_item(
        self, item_id: str, partition_key: PartitionKeyValue, *, etag: str
    ) -> WriteAck:
        check_item_id(item_id, "delete")
        key = await self._key_argument(partition_key)
        proxy: Any = self._proxy

        async def send() -> None:
            await proxy.delete_item(
                item=item_id,
                partition_key=key,
                etag=etag,
                match_condition=MatchConditions.IfNotModified,
                priority=self._settings.priority,
            )

        with self.ledger.meter() as cost:
            await self._calls.call(
                "delete-item",
                Scope.POINT,
                item_id,
                send,
                not_found=f"no item {item_id!r} (deleted or expired since it was listed)",
                write=True,
                item_id=item_id,
            )
        return WriteAck(204, None, cost.request_units)

    async def _thread_route(self, ref: ThreadRef) -> Route:
        values = self._schema.partition_key_for(ref)
        return Route(Scope.PARTITION, partition_key=await self._key_argument(values))

    async def count_thread(self, ref: ThreadRef) -> int:
        route = await self._thread_route(ref)
        page = await self._calls.page(
            render("thread_item_count", self._slots),
            route,
            operation="count-thread",
            target=ref.describe(self._schema.tenant_label),
            parameters=thread_parameters(self._schema, ref),
            page_size=1,
        )
        counts = [v for v in page.rows if isinstance(v, int) and not isinstance(v, bool)]
        return sum(counts)

    async def thread_items(
        self, ref: ThreadRef, limit: int = ERASE_PAGE, *, skip: Sequence[str] = ()
    ) -> list[ThreadItem]:
        route = await self._thread_route(ref)
        assert self._props is not None
        arity = len(self._props.partition_key.paths)
        page = await self._calls.page(
            render("thread_items", self._slots),
            route,
            operation="list-thread-items",
            target=ref.describe(self._schema.tenant_label),
            parameters=(
                *thread_parameters(self._schema, ref),
                {"name": "@limit", "value": limit},
                {"name": "@skip", "value": list(skip)},
            ),
            page_size=limit,
        )
        return [
            ThreadItem(
                str(row.get("id", "")),
                tuple(row.get(f"pk{i}") for i in range(arity)),
                str(row.get("etag", "")),
                row.get("ttl", MISSING),
            )
            for row in page.rows
            if isinstance(row, Mapping)
        ]

    async def close(self) -> None:
        return None  # the account (client) belongs to the session's store
