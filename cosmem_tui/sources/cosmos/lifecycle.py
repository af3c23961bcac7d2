"""Lifecycle questions on a Cosmos container: TTL summaries and lists, pushed to the service.

Every number is a ``SELECT VALUE COUNT(1) … WHERE`` aggregate (``queries/cosmos/
ttl_count.sql``) whose condition ``ttl_sql`` writes from the model's TTL rules: the
cross-partition form the SDK merges itself, so it is the same on one range or many.
A thread is one partition (its full key), a tenant a key prefix, the container every
physical partition in turn (feed ranges, each request recorded with scope ``range``),
all through the store's one runner, under the session's budget. Lists read only the
projected fields they show.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from cosmem_tui.model import (
    MISSING,
    ContainerProperties,
    JsonValue,
    Key,
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
from cosmem_tui.sources.cosmos.calls import Parameters, Route
from cosmem_tui.sources.store import check_ttl_list


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class LifecycleQueries:
    """The lifecycle half of ``CosmosStore`` (a mixin: it uses the store's runner)."""

    if TYPE_CHECKING:  # provided by CosmosStore
        _slots: dict[str, str]

        @property
        def _schema(self) -> Schema: ...

        async def _ready(self) -> ContainerProperties: ...

        def _tenant_route(self, tenant: Key) -> Route | None: ...

        def _turn_parameters(self, ref: ThreadRef) -> tuple[dict[str, Any], ...]: ...

        def _partition_key_argument(self, values: tuple[JsonValue, ...]) -> Any: ...

        def _rows(
            self,
            name: str,
            route: Route | None,
            *,
            operation: str,
            target: str,
            parameters: Parameters = (),
            background: bool = False,
            slots: Mapping[str, str] | None = None,
        ) -> AsyncIterator[Any]: ...

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
    ) -> int:
        route, where, parameters = self._ttl_scope(scope)
        text = f"{where} AND ({condition.text})" if where else condition.text
        target = f"{what} in {scope.describe(self._schema.tenant_label)}"
        total = 0
        async for value in self._rows(
            "ttl_count",
            route,
            operation="ttl-count",
            target=target,
            parameters=[*parameters, *condition.parameters],
            slots={"where": text},
        ):
            total += _number(value) or 0  # one value per range the query visited
        return total

    # -- the summary -------------------------------------------------------------------------

    async def ttl_summary(self, scope: TtlScope, now: int) -> TtlSummary:
        """Items by TTL class and the forecast: one COUNT per class and per horizon."""
        props = await self._ready()
        default_ttl = props.default_ttl
        classes: dict[TtlClass, int] = {}
        for ttl_class in TtlClass:
            text = ttl_sql.class_condition(ttl_class, default_ttl)
            if text == "false":
                classes[ttl_class] = 0  # impossible under this container's TTL: no request
                continue
            classes[ttl_class] = await self._ttl_count(
                scope, ttl_sql.Condition(text), what=f"ttl class {ttl_class.value}"
            )
        forecast: dict[TtlClass, dict[int, int]] = {}
        for ttl_class in TtlClass:
            forecast[ttl_class] = {}
            for horizon in FORECAST_HORIZONS:
                condition = ttl_sql.class_expiring_between(
                    ttl_class, default_ttl, now, now + horizon
                )
                if condition.never or classes[ttl_class] == 0:
                    forecast[ttl_class][horizon] = 0  # it cannot expire: no request
                    continue
                forecast[ttl_class][horizon] = await self._ttl_count(
                    scope, condition, what=f"{ttl_class.value} expiring within {horizon} s"
                )
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
                operation="ttl-count",
                target=f"newest write in {scope.describe(self._schema.tenant_label)}",
                parameters=parameters,
                slots={"where": where or "true"},
            )
            if (stamp := _number(value)) is not None
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
            found = [
                item async for item in self._ttl_rows(scope, condition, "ttl_rows", selection, 0)
            ]
            found.sort(key=_expiry_order)
            return TtlItems(selection, tuple(found[:limit]), len(found))
        if selection is TtlSelection.LONG_TERM:
            condition = ttl_sql.kind_condition(schema, schema.long_term_kinds, "lk")
        else:
            condition = ttl_sql.drift_condition(schema, default_ttl)
        if condition.text == "false":
            return TtlItems(selection, (), 0)
        count = await self._ttl_count(scope, condition, what=selection.value)
        if count == 0:
            return TtlItems(selection, (), 0)
        found = [
            item
            async for item in self._ttl_rows(scope, condition, "ttl_rows_newest", selection, limit)
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
            operation="ttl-items",
            target=f"{selection.value} in {scope.describe(schema.tenant_label)}",
            parameters=[*parameters, *condition.parameters],
            slots={"where": text},
        ):
            if isinstance(row, Mapping):
                yield _lifecycle_item(schema, row, props.default_ttl, lifetimes)


def _expiry_order(item: LifecycleItem) -> tuple[int, str, str]:
    ref = item.ref.describe() if item.ref is not None else ""
    return item.ttl.expires_at or 0, item.item_id, ref


def _lifecycle_item(
    schema: Schema,
    row: Mapping[str, JsonValue],
    default_ttl: int | None,
    lifetimes: Mapping[str, int],
) -> LifecycleItem:
    ts = _number(row.get("_ts")) or 0
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
