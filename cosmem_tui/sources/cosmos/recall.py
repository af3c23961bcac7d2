"""Recall probes on Cosmos: the memory system's own retrieval query, and where an item is.

A probe is one query (``queries/cosmos/recall_*.sql``) through the store's runner, so
the budget, the hold-off and one ledger record per HTTP response come with it; it goes
at **Low** priority (priority-based execution sheds it first under pressure, never the
agent's own traffic). Where it goes:

* a thread: its full partition key (``partition_key=``): one logical partition;
* a tenant that leads the key: the tenant equality in WHERE and no partition key, so the
  SDK asks the gateway for the query plan and runs its pipeline over exactly the ranges
  of the tenant's key prefix (the plan's ``queryRanges``), recorded as ``prefix``. The
  SDK's own prefix routing (``partition_key=[tenant]``) sends the query range by range
  and concatenates the pages, which for an ORDER BY over a tenant that spans two
  physical partitions is not one ranking — a silently wrong top k;
* the container (or a tenant that does not lead the key): a cross-partition fan-out,
  recorded as such (the caller asks before sending one).

Ranked queries (``ORDER BY RANK``) run through the SDK's hybrid search pipeline, which
gathers BM25 statistics first; they are asked for over the probe's own ranges
(``full_text_score_scope="Local"``), not over every partition of the container.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cosmem_tui.model import MISSING, Key, Scope, ThreadRef
from cosmem_tui.model.lifecycle import ScopeLevel, TtlScope
from cosmem_tui.model.recall import ItemLookup, ProbeMode, RecallAnswer, RecallHit, RecallQuery
from cosmem_tui.schemas import SchemaError
from cosmem_tui.sources.cosmos.calls import CosmosCalls, Route
from cosmem_tui.sources.cosmos.recall_sql import probe_text
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.cosmos.sql import render
from cosmem_tui.sources.cosmos.store_part import StorePart
from cosmem_tui.sources.errors import BadRequest, NotFound
from cosmem_tui.sources.item_ids import check_item_id

PROBE_PRIORITY = "Low"  # the SDK's spelling of priority-based execution's low tier
RECALL = "recall"
FIND_ITEM = "recall-find-item"
READ_ITEM = "recall-read-item"
POLICY_HINT = (
    "vector search needs the container's vector embedding policy and full-text search "
    "its full-text policy, on an account with those features on"
)


class RecallRefused(BadRequest):
    """The account (or a test peer) does not run the probe's query: one line, the
    service's own words and what the query needs. The test peer
    (@vercel/cosmosdb-server) refuses every VectorDistance ORDER BY and ORDER BY RANK
    this way (its engine cannot order by a function), and says so rather than rank."""


class RecallQueries(StorePart):
    """The recall half of ``CosmosStore`` (a mixin over its runner)."""

    if TYPE_CHECKING:  # provided by CosmosStore
        _calls: CosmosCalls
        _slots: dict[str, str]
        _settings: CosmosSettings
        _container: Any

    # -- where a probe goes ------------------------------------------------------------------

    def _recall_scope(self, scope: TtlScope) -> tuple[Route, str, list[dict[str, Any]]]:
        schema = self._schema
        if scope.thread is not None:
            values = schema.partition_key_for(scope.thread)
            route = Route(Scope.PARTITION, partition_key=self._partition_key_argument(values))
            return route, self._slots["partition_filter"], list(self._turn_parameters(scope.thread))
        if scope.tenant is not None:
            if not schema.has_tenant_level:
                raise SchemaError(f"schema {schema.name} has no {schema.tenant_label}s")
            where = f"{self._slots['tenant']} = @tenant"
            parameters = [{"name": "@tenant", "value": scope.tenant.value}]
            led = self._tenant_route(scope.tenant)
            if led is None:  # the tenant is not the key's first path: every range
                return Route(Scope.CROSS_PARTITION), where, parameters
            if led.scope is Scope.PARTITION:  # the tenant is the whole key
                return led, where, parameters
            return Route(Scope.PREFIX), where, parameters  # the plan narrows it to the prefix
        return Route(Scope.CROSS_PARTITION), "", []

    # -- the probe ---------------------------------------------------------------------------

    async def recall(self, query: RecallQuery) -> RecallAnswer:
        await self._ready()
        route, where, parameters = self._recall_scope(query.scope)
        probe = probe_text(self._slots, query, where, parameters)
        text = render(probe.name, probe.slots)
        options: dict[str, Any] = {}
        if query.mode in (ProbeMode.TEXT, ProbeMode.HYBRID):
            options["full_text_score_scope"] = "Local"
        target = f"{query.mode} top {query.k} in {query.scope.describe(self._schema.tenant_label)}"
        rows: list[Any] = []
        with self.ledger.meter() as cost:
            continuation: str | None = None
            while True:
                page = await self._probe_page(
                    text,
                    route,
                    operation=f"{RECALL}-{query.mode}",
                    target=target,
                    parameters=probe.parameters,
                    page_size=query.k,
                    continuation=continuation,
                    priority=PROBE_PRIORITY,
                    options=options,
                )
                rows += [r for r in page.rows if isinstance(r, Mapping)]
                continuation = page.continuation
                if continuation is None or len(rows) >= query.k:
                    break
        hits = tuple(self._hit(rank, row) for rank, row in enumerate(rows[: query.k], start=1))
        return RecallAnswer(query, hits, cost.request_units, cost.requests)

    async def _probe_page(self, text: str, route: Route, **kw: Any) -> Any:
        try:
            return await self._calls.page(text, route, **kw)
        except BadRequest as exc:
            said = exc.message.removeprefix("400 bad request: ")
            probe = str(kw.get("operation", RECALL)).removeprefix(f"{RECALL}-")
            raise RecallRefused(
                f"{self._settings.account} refused the {probe} recall probe ({said}); {POLICY_HINT}"
            ) from None

    def _hit(self, rank: int, row: Mapping[str, Any]) -> RecallHit:
        score = row.get("score")
        number = (
            float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None
        )
        thread = row.get("thread")
        return RecallHit(rank, str(row.get("id", "")), self._thread_of(thread), number)

    def _thread_of(self, fields: Any) -> ThreadRef:
        """The thread named by the projected key fields of an item."""
        schema = self._schema
        body = fields if isinstance(fields, Mapping) else {}
        key = schema.thread_key_of(body)
        if key is None:
            named = " / ".join(p.text for p in schema.thread_paths)
            raise SchemaError(f"an item the probe returned has no {named}")
        tenant: Key | None = None
        if schema.tenant is not None:
            value = schema.tenant.get(body)
            tenant = None if value is MISSING else Key.of(value)
        return ThreadRef(tenant, key)

    # -- one item by id ----------------------------------------------------------------------

    async def lookup_item(self, scope: TtlScope, item_id: str) -> ItemLookup:
        check_item_id(item_id, "a recall lookup")
        await self._ready()
        if scope.level is ScopeLevel.CONTAINER:
            raise ValueError("an item is looked up within a tenant or a thread")
        with self.ledger.meter() as cost:
            ref = (
                scope.thread
                if scope.thread is not None
                else await self._find_thread(scope, item_id)
            )
            body = await self._point_read(ref, item_id) if ref is not None else None
        if body is None:
            return ItemLookup(item_id, request_units=cost.request_units)
        return ItemLookup(item_id, self._item(body), ref, None, cost.request_units)

    async def _find_thread(self, scope: TtlScope, item_id: str) -> ThreadRef | None:
        assert scope.tenant is not None
        schema = self._schema
        if not schema.has_tenant_level:
            raise SchemaError(f"schema {schema.name} has no {schema.tenant_label}s")
        route = self._tenant_route(scope.tenant)
        if route is None:
            route = Route(Scope.CROSS_PARTITION)
        text = render("recall_find_in_tenant", self._slots)
        continuation: str | None = None
        while True:  # a page may be empty while more follow (one range after another)
            page = await self._calls.page(
                text,
                route,
                operation=FIND_ITEM,
                target=f"{item_id} in {scope.describe(schema.tenant_label)}",
                parameters=(
                    {"name": "@tenant", "value": scope.tenant.value},
                    {"name": "@id", "value": item_id},
                ),
                page_size=1,
                continuation=continuation,
                priority=PROBE_PRIORITY,
            )
            for row in page.rows:
                if isinstance(row, Mapping):
                    return self._thread_of(row.get("thread"))
            continuation = page.continuation
            if continuation is None:
                return None

    async def _point_read(self, ref: ThreadRef, item_id: str) -> dict[str, Any] | None:
        values = self._schema.partition_key_for(ref)

        async def read() -> Any:
            return await self._container.read_item(
                item=item_id,
                partition_key=self._partition_key_argument(values),
                priority=PROBE_PRIORITY,
            )

        try:
            body = await self._calls.call(
                READ_ITEM,
                Scope.POINT,
                f"{item_id} in {ref.describe()}",
                read,
                not_found=f"no item {item_id!r} in {ref.describe(self._schema.tenant_label)}",
            )
        except NotFound:
            return None  # gone (expired items are hidden at once) or never there
        return dict(body)
