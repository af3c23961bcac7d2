"""Query routes: query plans, range-targeted, partition-key and cross-partition queries.

* ``x-ms-documentdb-partitionkeyrangeid`` (+ optional ``x-ms-start-epk`` /
  ``x-ms-end-epk``): one physical range, executed range-locally. An unknown range id
  answers 410 / 1002 (the range was split), which makes the SDK reload its routing map.
* ``x-ms-documentdb-partitionkey``: one logical partition (a hierarchical prefix is an
  EPK range that may span ranges).
* neither: a cross-partition query. One that needs a plan answers 400 / 1004; a simple
  one is fanned out range by range by the gateway with a composite continuation.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fake_cosmos import charges, query_plan, search
from tests.fake_cosmos.charges import Meter
from tests.fake_cosmos.continuation import decode_composite, encode_composite
from tests.fake_cosmos.query_exec import Scope, prepared_for, run_page
from tests.fake_cosmos.ranges import MAX_EPK
from tests.fake_cosmos.sql_parser import parse
from tests.fake_cosmos.store import Container, PartitionRange
from tests.fake_cosmos.wire import (
    Ctx,
    Env,
    HttpError,
    Reply,
    budget,
    params_dict,
    query_of,
    range_header,
)


def plan(env: Env, ctx: Ctx, container: Container) -> Reply:
    text, params = query_of(ctx.body, "query")
    if text is None:
        raise HttpError(400, "The query body is missing.")
    query = parse(text)
    try:
        query_plan.check_supported(query, ctx.header("x-ms-cosmos-supported-query-features"))
    except query_plan.PlanRefused as exc:
        raise HttpError(400, str(exc)) from exc
    plan = query_plan.build(query, params_dict(params), container.key, search_context(container))
    return Reply(200, plan, charges.QUERY_PLAN_RU)


def search_context(container: Container) -> search.SearchContext:
    return search.SearchContext.of(container.extra, container.vector_quantum)


def query(env: Env, ctx: Ctx, container: Container, *, text_override: str | None = None) -> Reply:
    text, params = (text_override, []) if text_override is not None else query_of(ctx.body, "query")
    if text is None:
        raise HttpError(400, "The query body is missing.")
    params_map = params_dict(params)
    prepared = prepared_for(text, params_map, container)
    now = env.store.now()
    max_items = ctx.max_items()
    token = ctx.header("x-ms-continuation")
    range_id = range_header(ctx.headers)
    pk_header = ctx.header("x-ms-documentdb-partitionkey")
    key = container.key
    if search.ranked(prepared.query):
        # ORDER BY RANK needs global statistics and rank fusion: only the SDK's hybrid
        # search pipeline runs it, from the plan, whatever partition is named.
        raise not_servable(env, ctx, prepared.query, params_map, container)
    if range_id is not None:
        rng = container.range_by_id(range_id)
        if rng is None:
            raise HttpError(
                410,
                f"The partition key range {range_id!r} is gone (it was split or merged).",
                sub_status=1002,
            )
        lo = max(ctx.header("x-ms-start-epk") or rng.min, rng.min)
        end = ctx.header("x-ms-end-epk")
        hi = rng.max if end is None else min(end, rng.max)
        scope = Scope(container, rng, now, lo=lo, hi=None if hi == MAX_EPK else hi)
        if pk_header is not None:
            values = key.parse_header(pk_header)
            if key.is_prefix(values):
                plo, phi = key.prefix_range(values)
                scope.lo, scope.hi = (
                    max(scope.lo, plo),
                    phi if scope.hi is None else min(scope.hi, phi),
                )
            else:
                scope.point = key.epk(values)
        return range_page(env, container, prepared, scope, max_items, token)
    if pk_header is not None:
        values = key.parse_header(pk_header)
        if not key.is_prefix(values):
            epk = key.epk(values)
            rng = container.range_for(epk)
            scope = Scope(container, rng, now, point=epk)
            return range_page(env, container, prepared, scope, max_items, token)
        plo, phi = key.prefix_range(values)
        targets = container.overlapping(plo, phi)
        if len(targets) == 1:
            scope = Scope(container, targets[0], now, lo=plo, hi=phi)
            return range_page(env, container, prepared, scope, max_items, token)
        if query_plan.needs_plan(prepared.query):
            raise not_servable(env, ctx, prepared.query, params_map, container)
        return fan_out(env, container, prepared, max_items, token, plo, phi)
    if not ctx.flag("x-ms-documentdb-query-enablecrosspartition"):
        raise HttpError(
            400,
            "Cross partition query is required but disabled. Please set "
            "x-ms-documentdb-query-enablecrosspartition to true, specify "
            "x-ms-documentdb-partitionkey, or revise your query to avoid this exception.",
        )
    if query_plan.needs_plan(prepared.query):
        raise not_servable(env, ctx, prepared.query, params_map, container)
    return fan_out(env, container, prepared, max_items, token, "", MAX_EPK)


def read_feed(env: Env, ctx: Ctx, container: Container) -> Reply:
    """``GET …/docs`` (read_all_items): a ``SELECT * FROM c`` the gateway serves."""
    ctx.headers.setdefault("x-ms-documentdb-query-enablecrosspartition", "true")
    return query(env, ctx, container, text_override="SELECT * FROM c")


def not_servable(
    env: Env, ctx: Ctx, query: Any, params: dict[str, Any], container: Container
) -> HttpError:
    plan = query_plan.build(query, params, container.key, search_context(container))
    body = query_plan.not_servable_body(plan, ctx.entry.activity_id)
    return HttpError(400, body["message"], sub_status=1004, body=body)


def range_page(
    env: Env,
    container: Container,
    prepared: Any,
    scope: Scope,
    max_items: int | None,
    token: str | None,
) -> Reply:
    rng = scope.range
    budget(env, container, rng)
    page = run_page(prepared, scope, max_items, token, max_visits=env.max_visits_per_page)
    return page_reply(env, container, rng, page.rows, page.meter, page.token)


def page_reply(
    env: Env,
    container: Container,
    rng: PartitionRange,
    rows: list[Any],
    meter: Meter,
    token: str | None,
) -> Reply:
    meter.result_bytes = len(
        json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    )
    charge = meter.charge()
    env.faults.consume(container.rid, rng.id, charge)
    body = {"_rid": container.rid, "Documents": rows, "_count": len(rows)}
    headers = {"x-ms-item-count": str(len(rows)), "x-ms-documentdb-partitionkeyrangeid": rng.id}
    return Reply(
        200, body, charge, headers, item_count=len(rows), continuation=token, range_id=rng.id
    )


def fan_out(
    env: Env,
    container: Container,
    prepared: Any,
    max_items: int | None,
    token: str | None,
    lo: str,
    hi: str,
) -> Reply:
    """The gateway's own cross-partition execution: one range per request, in EPK
    order, with a composite continuation naming the range to resume."""
    inner: str | None = None
    start = lo
    if token:
        entries = decode_composite(token)
        inner, start, _ = entries[0]
    rng = container.range_for(start)
    scope_lo = max(start, rng.min, lo)
    scope_hi = rng.max if hi == MAX_EPK else min(rng.max, hi)
    scope = Scope(
        container,
        rng,
        env.store.now(),
        lo=scope_lo,
        hi=None if scope_hi == MAX_EPK else scope_hi,
    )
    budget(env, container, rng)
    page = run_page(prepared, scope, max_items, inner, max_visits=env.max_visits_per_page)
    out: str | None = None
    if page.token is not None:
        out = encode_composite([(page.token, scope_lo, rng.max)])
    elif rng.max != MAX_EPK and rng.max < hi:
        nxt = container.range_for(rng.max)
        out = encode_composite([(None, nxt.min, nxt.max)])
    return page_reply(env, container, rng, page.rows, page.meter, out)
