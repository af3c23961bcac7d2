"""Lifecycle questions on a Cosmos container: TTL summaries and lists, pushed to the service.

Every number is a ``SELECT VALUE COUNT(1) … WHERE`` aggregate (``queries/cosmos/
ttl_count.sql``) whose condition ``ttl_sql`` writes from the model's TTL rules: the
cross-partition form the SDK merges itself, so it is the same on one range or many.
A thread is one partition (its full key), a tenant a key prefix, the container every
physical partition in turn (feed ranges, each request recorded with scope ``range``),
all through the store's one runner, under the session's budget. Lists read only the
projected fields they show.

What it costs: a TTL condition is no index lookup, so each class or forecast count
reads every item of its scope. A summary therefore starts with the scope's size (an
index-served ``COUNT(1)``, cheap at any size): each later count is estimated from it
before it is sent, a question at the budget says what the rest of the summary needs,
and ``ttl_summary_estimate`` says what a summary will cost before it starts (the
question before the container's fan-out).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cosmem_tui.model import (
    MISSING,
    JsonValue,
    Scope,
    ThreadRef,
    TtlClass,
)
from cosmem_tui.model import resolve_ttl as resolve
from cosmem_tui.model.lifecycle import (
    FORECAST_HORIZONS,
    LifecycleItem,
    TtlItems,
    TtlScope,
    TtlSelection,
    TtlSummary,
)
from cosmem_tui.schemas import Schema, SchemaError
from cosmem_tui.schemas.summary import order_and_text
from cosmem_tui.sources.cosmos import ttl_sql
from cosmem_tui.sources.cosmos.calls import Route
from cosmem_tui.sources.cosmos.store_part import StorePart, int_value
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.store import check_ttl_list

SIZE = "ttl-size"  # the scope's item count (index-served)
COUNT = "ttl-count"  # a class or forecast count: reads every item of the scope
LAST_WRITE = "ttl-last-write"  # the newest _ts: one read from the top of its index
ITEMS = "ttl-items"  # a lifecycle list
SIZE_REUSE_S = 60.0  # a scope's size, counted for a summary, estimates its lists this long


@dataclass(frozen=True, slots=True)
class SummaryPlan:
    """The counts a summary sends for a container's TTL setting, known before the first."""

    classes: tuple[TtlClass, ...]  # classes that can occur (the others cost no request)
    expiring: tuple[TtlClass, ...]  # of those, the ones that can expire: a forecast each

    @classmethod
    def of(cls, default_ttl: int | None) -> SummaryPlan:
        horizon = FORECAST_HORIZONS[0]
        classes = tuple(c for c in TtlClass if ttl_sql.class_condition(c, default_ttl) != "false")
        expiring = tuple(
            c
            for c in classes
            if not ttl_sql.class_expiring_between(c, default_ttl, 0, horizon).never
        )
        return cls(classes, expiring)

    def counts(self, present: tuple[TtlClass, ...] | None = None) -> int:
        """Scanning counts: every class, and each horizon of the classes that can expire
        (``present``: of those, the ones found to have items; None: all of them)."""
        forecast = [c for c in self.expiring if present is None or c in present]
        return len(self.classes) + len(forecast) * len(FORECAST_HORIZONS)


def scan_estimate_ru(ledger: RequestLedger, counts: int, sizes: list[int]) -> float:
    """``counts`` scanning counts over scopes (ranges) of these sizes, each read whole."""
    return sum(counts * ledger.estimate_ru(COUNT, scanned=size) for size in sizes)


class LifecycleQueries(StorePart):
    """The lifecycle half of ``CosmosStore`` (a mixin: it uses the store's runner)."""

    if TYPE_CHECKING:  # provided by CosmosStore
        _slots: dict[str, str]
        _scope_sizes: dict[TtlScope, tuple[float, _Size]]

    # -- where a lifecycle query goes --------------------------------------------------------

    def _ttl_scope(self, scope: TtlScope) -> tuple[Route | None, str, list[dict[str, Any]]]:
        """(route, scope condition, its parameters); route None: each physical range."""
        schema = self._schema
        if scope.thread is not None:
            values = schema.partition_key_for(scope.thread)
            route = Route(Scope.PARTITION, partition_key=self._partition_key_argument(values))
            where = self._slots["partition_filter"]
            return route, where, list(self._turn_parameters(scope.thread))
        if scope.tenant is not None:
            if not schema.has_tenant_level:
                raise SchemaError(f"schema {schema.name} has no {schema.tenant_label}s")
            parameters = [{"name": "@tenant", "value": scope.tenant.value}]
            where = f"{self._slots['tenant']} = @tenant"
            return self._tenant_route(scope.tenant), where, parameters
        return None, "", []

    async def _ttl_count(
        self,
        scope: TtlScope,
        condition: ttl_sql.Condition,
        *,
        what: str,
        size: _Size | None = None,
        operation: str = COUNT,
        remaining_ru: float | None = None,
    ) -> int:
        """A COUNT of the scope's items meeting ``condition``; ``size``: the scope's size,
        so the count is estimated by what it reads (None: it is the size count)."""
        route, where, parameters = self._ttl_scope(scope)
        text = f"{where} AND ({condition.text})" if where else condition.text
        target = f"{what} in {scope.describe(self._schema.tenant_label)}"
        total = 0
        async for value in self._rows(
            "ttl_count",
            route,
            operation=operation,
            target=target,
            parameters=[*parameters, *condition.parameters],
            slots={"where": text},
            scanned=size.scanned if size is not None else None,
            remaining_ru=remaining_ru,
        ):
            total += int_value(value) or 0  # one value per range the query visited
        return total

    async def _scope_size(self, scope: TtlScope, *, fresh: bool = False) -> _Size:
        """How many visible items the scope holds, per request it takes (an index-served
        count: what every TTL count after it reads). Only estimates rest on it, so the
        lists after a summary reuse the summary's for a minute (``fresh``: count now)."""
        known = self._scope_sizes.get(scope)
        if not fresh and known is not None and time.monotonic() - known[0] < SIZE_REUSE_S:
            return known[1]
        route, where, parameters = self._ttl_scope(scope)
        sizes = [
            int_value(value) or 0
            async for value in self._rows(
                "ttl_count",
                route,
                operation=SIZE,
                target=f"items in {scope.describe(self._schema.tenant_label)}",
                parameters=parameters,
                slots={"where": where or "true"},
            )
        ]
        size = _Size(tuple(sizes), route is None)
        self._scope_sizes[scope] = (time.monotonic(), size)
        return size

    async def ttl_summary_estimate(self, scope: TtlScope, now: int) -> float:
        """What ``ttl_summary(scope, now)`` will cost: the scope's size counted first
        (cheap; it is part of the summary's own work), then its counts estimated by what
        each reads, at the rate this session has measured."""
        props = await self._ready()
        size = await self._scope_size(scope)
        plan = SummaryPlan.of(props.default_ttl)
        ledger: RequestLedger = self.ledger
        return (
            ledger.estimate_ru(SIZE) * len(size.sizes)
            + scan_estimate_ru(ledger, plan.counts(), list(size.sizes))
            + ledger.estimate_ru(LAST_WRITE) * len(size.sizes)
        )

    # -- the summary -------------------------------------------------------------------------

    async def ttl_summary(self, scope: TtlScope, now: int) -> TtlSummary:
        """Items by TTL class and the forecast: the scope's size, then one COUNT per class
        and per horizon (each estimated from the size), then the newest write."""
        props = await self._ready()
        default_ttl = props.default_ttl
        plan = SummaryPlan.of(default_ttl)
        size = await self._scope_size(scope, fresh=True)
        if size.total == 0:  # nothing visible: every count is 0, no request needed
            return TtlSummary.of(scope, now, default_ttl, {}, {}, None)
        left = plan.counts()  # scanning counts still to send, for a question at the budget

        def rest() -> float:
            """What the summary needs after the next count (at the rate measured so far)."""
            per_count = scan_estimate_ru(self.ledger, 1, list(size.sizes))
            return per_count * (left - 1) + self.ledger.estimate_ru(LAST_WRITE)

        classes: dict[TtlClass, int] = dict.fromkeys(TtlClass, 0)
        for ttl_class in plan.classes:  # the others cannot occur here: no request
            text = ttl_sql.class_condition(ttl_class, default_ttl)
            classes[ttl_class] = await self._ttl_count(
                scope,
                ttl_sql.Condition(text),
                what=f"ttl class {ttl_class.value}",
                size=size,
                remaining_ru=rest(),
            )
            left -= 1
        present = tuple(c for c in plan.classes if classes[c])
        left = plan.counts(present) - len(plan.classes)
        forecast: dict[TtlClass, dict[int, int]] = {c: {} for c in TtlClass}
        for ttl_class in plan.expiring:
            for horizon in FORECAST_HORIZONS:
                if not classes[ttl_class]:
                    forecast[ttl_class][horizon] = 0  # none of them here: no request
                    continue
                condition = ttl_sql.class_expiring_between(
                    ttl_class, default_ttl, now, now + horizon
                )
                forecast[ttl_class][horizon] = await self._ttl_count(
                    scope,
                    condition,
                    what=f"{ttl_class.value} expiring within {horizon} s",
                    size=size,
                    remaining_ru=rest(),
                )
                left -= 1
        return TtlSummary.of(
            scope, now, default_ttl, classes, forecast, await self._ttl_last_write(scope)
        )

    async def _ttl_last_write(self, scope: TtlScope) -> int | None:
        route, where, parameters = self._ttl_scope(scope)
        stamps = [
            stamp
            async for value in self._rows(
                "ttl_last_write",
                route,
                operation=LAST_WRITE,
                target=f"newest write in {scope.describe(self._schema.tenant_label)}",
                parameters=parameters,
                slots={"where": where or "true"},
            )
            if (stamp := int_value(value)) is not None
        ]
        return max(stamps, default=None)

    # -- the lists ---------------------------------------------------------------------------

    async def ttl_items(
        self,
        scope: TtlScope,
        now: int,
        selection: TtlSelection,
        *,
        limit: int,
        within: int | None = None,
    ) -> TtlItems:
        limit = check_ttl_list(scope, selection, within, limit)
        props = await self._ready()
        default_ttl = props.default_ttl
        schema = self._schema
        if selection is TtlSelection.EXPIRING:
            assert within is not None
            condition = ttl_sql.expiring_between(default_ttl, now, now + within)
            if condition.text == "false":
                return TtlItems(selection, (), 0)
            size = await self._scope_size(scope)
            found = [
                item
                async for item in self._ttl_rows(scope, condition, "ttl_rows", selection, 0, size)
            ]
            found.sort(key=_expiry_order)
            return TtlItems(selection, tuple(found[:limit]), len(found))
        if selection is TtlSelection.LONG_TERM:
            condition = ttl_sql.kind_condition(schema, schema.long_term_kinds, "lk")
        else:
            condition = ttl_sql.drift_condition(schema, default_ttl)
        if condition.text == "false":
            return TtlItems(selection, (), 0)
        size = await self._scope_size(scope)
        count = await self._ttl_count(scope, condition, what=selection.value, size=size)
        if count == 0:
            return TtlItems(selection, (), 0)
        found = [
            item
            async for item in self._ttl_rows(
                scope, condition, "ttl_rows_newest", selection, limit, size
            )
        ]
        # Each range the prefix spans answers its own TOP: keep the newest overall.
        found.sort(key=lambda i: (-i.ttl.last_write, i.item_id))
        return TtlItems(selection, tuple(found[:limit]), count)

    async def _ttl_rows(
        self,
        scope: TtlScope,
        condition: ttl_sql.Condition,
        name: str,
        selection: TtlSelection,
        limit: int,
        size: _Size | None = None,
    ) -> AsyncIterator[LifecycleItem]:
        schema = self._schema
        props = await self._ready()
        route, where, parameters = self._ttl_scope(scope)
        text = f"{where} AND ({condition.text})" if where else condition.text
        if limit:
            parameters = [*parameters, {"name": "@limit", "value": limit}]
        lifetimes = schema.lifetimes()
        async for row in self._rows(
            name,
            route,
            operation=ITEMS,
            target=f"{selection.value} in {scope.describe(schema.tenant_label)}",
            parameters=[*parameters, *condition.parameters],
            slots={"where": text},
            scanned=size.scanned if size is not None else None,
        ):
            if isinstance(row, Mapping):
                yield _lifecycle_item(schema, row, props.default_ttl, lifetimes)


@dataclass(frozen=True, slots=True)
class _Size:
    """A scope's visible items, one count per request it takes (per range: the container)."""

    sizes: tuple[int, ...]
    per_range: bool

    @property
    def total(self) -> int:
        return sum(self.sizes)

    @property
    def scanned(self) -> int | tuple[int, ...]:
        """What a query over the scope reads: each range's items when it visits each
        range, else the whole scope (a prefix may span ranges: one request reads all)."""
        return self.sizes if self.per_range else self.total


def _expiry_order(item: LifecycleItem) -> tuple[int, str, str]:
    ref = item.ref.describe() if item.ref is not None else ""
    return item.ttl.expires_at or 0, item.item_id, ref


def _lifecycle_item(
    schema: Schema,
    row: Mapping[str, JsonValue],
    default_ttl: int | None,
    lifetimes: Mapping[str, int],
) -> LifecycleItem:
    ts = int_value(row.get("_ts")) or 0
    ttl = resolve(row.get("ttl", MISSING), ts, default_ttl)
    kind = schema.item_kind(row)
    thread = schema.thread_key_of(row)
    ref = None
    if thread is not None:
        tenant = schema.tenant_key_of(row) if schema.tenant is not None else None
        if schema.tenant is None or tenant is not None:
            ref = ThreadRef(tenant, thread)
    item_id = str(row.get("id", ""))
    order, text = order_and_text(schema, item_id, ts, row)
    return LifecycleItem(ref, item_id, kind, ttl, lifetimes.get(kind), order, text)
