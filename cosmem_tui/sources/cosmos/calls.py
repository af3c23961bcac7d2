"""One Gateway ticket per SDK call: charge, status and throttling recorded, errors translated.

Every request the backend sends goes through ``call`` (a point read, a container
read) or ``fetch_page`` (one page of a query, which is one request on the wire), so
the Gateway holds one record per page, as the MemoryStore contract requires.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from azure.cosmos.aio import ContainerProxy

from cosmem_tui.model import Scope, Throttling
from cosmem_tui.sources.cosmos import wire
from cosmem_tui.sources.cosmos.failures import translate
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.cosmos.sql import render
from cosmem_tui.sources.errors import Throttled
from cosmem_tui.sources.gateway import Gateway, RequestTicket

Parameters = Sequence[dict[str, Any]]


@asynccontextmanager
async def call(
    gateway: Gateway,
    settings: CosmosSettings,
    operation: str,
    scope: Scope,
    target: str,
    *,
    not_found: str | None = None,
) -> AsyncIterator[RequestTicket]:
    async with gateway.request(operation, scope, target=target) as ticket:
        with wire.bind(ticket, gateway, operation, target) as binding:
            try:
                yield ticket
            except Exception as exc:
                error = translate(exc, settings, not_found=not_found)
                if error is None:
                    raise
                if isinstance(error, Throttled):
                    gateway.note_throttle(
                        Throttling(
                            operation,
                            target,
                            binding.throttles,
                            error.retry_after_ms,
                            retrying=False,
                        )
                    )
                if error is exc:
                    raise
                raise error from None


@dataclass(frozen=True, slots=True)
class QueryPage:
    rows: list[Any]
    continuation: str | None


async def fetch_page(
    gateway: Gateway,
    settings: CosmosSettings,
    container: ContainerProxy,
    *,
    operation: str,
    scope: Scope,
    target: str,
    query: str,
    parameters: Parameters = (),
    partition_key: Any = None,
    page_size: int,
    continuation: str | None = None,
) -> QueryPage:
    """One page of a query: exactly one Gateway record (and, warmed up, one request)."""
    options: dict[str, Any] = {"max_item_count": page_size}
    if partition_key is not None:
        options["partition_key"] = partition_key
    async with call(gateway, settings, operation, scope, target) as ticket:
        pages = container.query_items(query, parameters=list(parameters), **options).by_page(
            continuation
        )
        try:
            page = await pages.__anext__()
        except StopAsyncIteration:
            return QueryPage([], None)
        rows = [row async for row in page]
        ticket.items = len(rows)
        return QueryPage(rows, pages.continuation_token or None)


class QueryRunner:
    """Runs the named queries of ``queries/cosmos/`` against one container, page by page."""

    def __init__(
        self,
        gateway: Gateway,
        settings: CosmosSettings,
        container: ContainerProxy,
        slots: dict[str, str],
    ) -> None:
        self.gateway = gateway
        self.settings = settings
        self.container = container
        self.slots = slots

    async def page(
        self,
        name: str,
        *,
        operation: str,
        scope: Scope,
        target: str,
        parameters: Parameters = (),
        partition_key: Any = None,
        page_size: int | None = None,
        continuation: str | None = None,
    ) -> QueryPage:
        return await fetch_page(
            self.gateway,
            self.settings,
            self.container,
            operation=operation,
            scope=scope,
            target=target,
            query=render(name, self.slots),
            parameters=parameters,
            partition_key=partition_key,
            page_size=page_size or self.settings.scan_page_size,
            continuation=continuation,
        )

    async def rows(
        self,
        name: str,
        *,
        operation: str,
        scope: Scope,
        target: str,
        parameters: Parameters = (),
        partition_key: Any = None,
        budgeted: bool = False,
    ) -> AsyncIterator[Any]:
        """Every row of a query. A cross-partition one asks the Gateway first (budget or
        confirmation) and again before each further page once the budget is spent."""
        fan_out = scope is Scope.CROSS_PARTITION
        if fan_out:
            await self.gateway.authorize_fan_out(operation, target, budgeted=budgeted)
        continuation: str | None = None
        while True:
            page = await self.page(
                name,
                operation=operation,
                scope=scope,
                target=target,
                parameters=parameters,
                partition_key=partition_key,
                continuation=continuation,
            )
            for row in page.rows:
                yield row
            if page.continuation is None:
                return
            continuation = page.continuation
            if fan_out:
                await self.gateway.check_budget(operation, target)
