"""Top-level keys on Cosmos (tenants, or threads without a tenant level), the counts of
one key, and the threads of a tenant: index-served aggregates scoped to the key, grouped
by the service where it can (a scan of one row per item where it cannot)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cosmem_tui.model import (
    MISSING,
    ContainerProperties,
    JsonValue,
    Key,
    KeyCounts,
    KeyPage,
    Scope,
    Thread,
    ThreadRef,
    TtlState,
    resolve_ttl,
)
from cosmem_tui.schemas import Schema, SchemaError
from cosmem_tui.sources.cosmos.calls import Parameters, Route
from cosmem_tui.sources.cosmos.listing import KeyLister
from cosmem_tui.sources.cosmos.query_slots import _MESSAGES
from cosmem_tui.sources.cosmos.store_part import StorePart, int_value
from cosmem_tui.sources.errors import BadRequest

# A tenant's counts, one operation per query (each with its own measured cost).
_TENANT_COUNTS = ("count-tenant", "count-tenant-last-write", "count-tenant-threads")


class KeyListings(StorePart):
    """The keys-and-threads half of ``CosmosStore`` (a mixin: it uses the store's runner)."""

    if TYPE_CHECKING:  # provided by CosmosStore
        _lister: KeyLister
        _grouping_rejected: bool
        _subquery_rejected: bool

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
            items = sum(v for v in counted_items if int_value(v) is not None)
            if items == 0:
                return KeyCounts(items=0, last_activity=None, threads=0)
            stamps = [v for v in await values("tenant_last_write", "count-tenant-last-write")]
            stamps = [v for v in stamps if int_value(v) is not None]
            if not self._subquery_rejected:
                try:
                    counted = await values("tenant_thread_count", "count-tenant-threads")
                    threads = sum(v for v in counted if int_value(v) is not None)
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
        items = int_value(row.get("items")) or 0
        expiring = int_value(row.get("expiring")) or 0
        return KeyCounts(
            items=items,
            last_activity=int_value(row.get("last")),
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
            group[0] += int_value(row.get("items")) or 0
            group[1] += int_value(row.get("expiring")) or 0
            group[2] = max(group[2], int_value(row.get("last")) or 0)
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
