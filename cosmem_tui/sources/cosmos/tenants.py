"""Tenants of a container: names by one cached cross-partition query, counts by prefix queries.

Cross-partition GROUP BY does not exist in the Python SDK, so the names come from
``SELECT DISTINCT VALUE`` (the one fan-out of the browse path: budgeted, cached for a
few minutes) and each tenant is then counted with queries scoped to its prefix key.
Where a service rejects DISTINCT (some emulators and the test peer answer 400), the
same answers come from a paged projection de-duplicated here, under the RU budget,
and ``distinct_fallback`` says so for the header.

Counting queries may reach several physical partitions of a tenant's prefix; each
answers for its own range, so counts are summed, maxima maxed and thread sets merged.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from cosmem_tui.model import Scope, Tenant
from cosmem_tui.sources.cosmos.calls import QueryRunner
from cosmem_tui.sources.errors import BadRequest

NAMES_CACHE_S = 300.0  # tenants come and go slowly; a reload after this re-lists them
COUNT_CONCURRENCY = 8  # prefix queries in flight at once while counting tenants
OPERATION = "list-tenants"

Route = Callable[[str], tuple[Scope, Any]]


def key_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class TenantDirectory:
    def __init__(self, runner: QueryRunner, tenant_label: str, route: Route) -> None:
        self._runner = runner
        self._tenant_label = tenant_label
        self._route = route
        self._names: list[str] | None = None
        self._names_at = 0.0
        self.distinct_rejected = False

    async def list(self) -> list[Tenant]:
        names = await self._cached_names()
        semaphore = asyncio.Semaphore(COUNT_CONCURRENCY)

        async def count(name: str) -> Tenant | None:
            async with semaphore:
                return await self._count(name)

        found = await gather_all([count(name) for name in names])
        return [t for t in found if t is not None]

    async def _cached_names(self) -> list[str]:
        fresh = time.monotonic() - self._names_at < NAMES_CACHE_S
        if self._names is None or not fresh:
            names = await self._distinct(
                "tenants", (), Scope.CROSS_PARTITION, None, target="all tenants", budgeted=True
            )
            self._names = sorted(names)
            self._names_at = time.monotonic()
        return self._names

    async def _distinct(
        self,
        kind: str,
        parameters: tuple[dict[str, Any], ...],
        scope: Scope,
        partition_key: Any,
        *,
        target: str,
        budgeted: bool = False,
    ) -> set[str]:
        """Distinct values of ``<kind>_distinct.sql``, or of ``<kind>_scan.sql`` de-duplicated."""
        query_args = {
            "operation": OPERATION,
            "scope": scope,
            "target": target,
            "parameters": parameters,
            "partition_key": partition_key,
            "budgeted": budgeted,
        }
        if not self.distinct_rejected:
            try:
                rows = self._runner.rows(f"{kind}_distinct", **query_args)
                return {key_text(v) async for v in rows if v not in ({}, None)}
            except BadRequest:
                self.distinct_rejected = True  # this service has no DISTINCT: stop asking
        rows = self._runner.rows(f"{kind}_scan", **query_args)
        return {key_text(v) async for v in rows if v not in ({}, None)}

    async def _count(self, name: str) -> Tenant | None:
        scope, partition_key = self._route(name)
        parameters = ({"name": "@tenant", "value": name},)
        target = f"{self._tenant_label} {name}"

        async def values(query: str) -> list[Any]:
            return [
                v
                async for v in self._runner.rows(
                    query,
                    operation=OPERATION,
                    scope=scope,
                    target=target,
                    parameters=parameters,
                    partition_key=partition_key,
                )
            ]

        items = sum(v for v in await values("tenant_item_count") if isinstance(v, int))
        if items == 0:
            return None  # every item expired since the names were listed
        stamps = [v for v in await values("tenant_last_write") if isinstance(v, int)]
        threads = await self._distinct(
            "tenant_threads", parameters, scope, partition_key, target=target
        )
        return Tenant(name, len(threads), items, max(stamps) if stamps else None)


async def gather_all(awaitables: list[Awaitable[Any]]) -> list[Any]:
    """Like ``asyncio.gather``, but the first failure cancels the rest (no stray requests)."""
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
