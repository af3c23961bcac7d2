"""Cross-partition query plans, as the gateway hands them to the SDK.

A cross-partition query (no partition key, no range id) that needs merging across
partitions — DISTINCT, TOP, ORDER BY, aggregates, GROUP BY, OFFSET/LIMIT — is refused
with ``400`` / ``x-ms-substatus: 1004`` ("cannot be directly served by the gateway");
the SDK then asks for a *query plan* (``x-ms-cosmos-is-query-plan-request: True``) and
runs the plan's ``rewrittenQuery`` against every overlapping range itself. The plan
format is the service's ``partitionedQueryExecutionInfoVersion`` 2:

* ORDER BY → ``SELECT c._rid, [{"item": <expr>}, …] AS orderByItems, <row> AS payload
  FROM c WHERE ({documentdb-formattableorderbyquery-filter}) AND (<filter>) ORDER BY …``
  (no ``_rid`` under DISTINCT, which would defeat it); the SDK substitutes ``true``.
* ``SELECT VALUE AGG(x)`` → ``SELECT VALUE [{"item": AGG(x)}] …`` (AVG as
  ``{"sum": SUM(x), "count": COUNT(x)}``), the shape the SDK's aggregators consume.
* OFFSET n LIMIT m → per-range ``TOP n+m``; the SDK skips and limits.
* Anything else runs unchanged per range (``rewrittenQuery`` empty).

A feature missing from ``x-ms-cosmos-supported-query-features`` (azure-cosmos 4.17.1
does not list GroupBy or MultipleAggregates) is refused the way the service refuses
it. ``queryRanges`` is the whole key space, or the EPK point / prefix range when the
filter pins the partition key with equalities.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fake_cosmos import hybrid_plan, search
from tests.fake_cosmos.ranges import MAX_EPK, MIN_EPK, KeyDefinition
from tests.fake_cosmos.sql_ast import (
    ArrayLit,
    Binary,
    Call,
    Expr,
    Ident,
    Literal,
    Member,
    ObjectLit,
    OrderItem,
    Param,
    Query,
    Raw,
    SelectItem,
    conjuncts,
    property_path,
    query_aggregates,
)
from tests.fake_cosmos.sql_eval import Compiler, output_names
from tests.fake_cosmos.sql_text import expr_text, query_text

FILTER_PLACEHOLDER = "{documentdb-formattableorderbyquery-filter}"
_AGG_NAMES = {"COUNT": "Count", "MIN": "Min", "MAX": "Max", "SUM": "Sum", "AVG": "Average"}


class PlanRefused(ValueError):
    """The query uses a feature the client did not declare: 400 BadRequest."""


def needs_plan(query: Query) -> bool:
    """Whether a cross-partition query must go through the SDK's pipelined path."""
    if query.from_query is not None and needs_plan(query.from_query):
        return True
    return bool(
        query.distinct
        or query.top is not None
        or query.order_by
        or query.group_by
        or query.offset is not None
        or query_aggregates(query)
    )


def features(query: Query) -> list[str]:
    used: list[str] = []
    aggregates = query_aggregates(query)
    if query.distinct:
        used.append("Distinct")
    if query.top is not None:
        used.append("Top")
    if search.ranked(query):
        used.append("HybridSearch")
    elif search.vector_order(query) is not None:
        used.append("NonStreamingOrderBy")
    elif query.order_by:
        used.append("OrderBy")
        if len(query.order_by) > 1:
            used.append("MultipleOrderBy")
    if aggregates:
        used.append("Aggregate")
        if len(aggregates) > 1:
            used.append("MultipleAggregates")
    if query.group_by:
        used.append("GroupBy")
    if query.offset is not None:
        used.append("OffsetAndLimit")
    if query.from_query is not None:
        used += [f for f in features(query.from_query) if f not in used]
    return used


def check_supported(query: Query, header: str | None) -> None:
    if header is None:
        return
    supported = {f.strip() for f in header.split(",") if f.strip()}
    missing = [f for f in features(query) if f not in supported]
    if missing:
        lines = "\r\n".join(
            f"Query contained {f}, which the calling client does not support." for f in missing
        )
        raise PlanRefused(
            "Query contains 1 or more unsupported features. Upgrade your SDK to a version "
            f"that does support the requested features:\r\n{lines}"
        )


def _with_filter(where: Expr | None) -> Expr:
    placeholder = Raw(f"({FILTER_PLACEHOLDER})")
    return placeholder if where is None else Binary("AND", placeholder, where)


def _payload(query: Query) -> Expr:
    if query.select_star:
        return Ident(query.from_alias)
    if query.select_value is not None:
        return query.select_value
    names = output_names(query)
    return ObjectLit(tuple(zip(names, (i.expr for i in query.select_items), strict=True)))


def rewrite(query: Query, compiler: Compiler) -> str:
    """The per-range query of a plan ('' = run the original text)."""
    top: Expr | None = query.top
    if query.offset is not None and query.limit is not None:
        total = int(compiler.constant(query.offset)) + int(compiler.constant(query.limit))
        top = Literal(total)
    if query.order_by:
        items: list[SelectItem] = []
        if not query.distinct:
            items.append(SelectItem(Member(Ident(query.from_alias), "_rid")))
        order_items = ArrayLit(tuple(ObjectLit((("item", o.expr),)) for o in query.order_by))
        items.append(SelectItem(order_items, "orderByItems"))
        items.append(SelectItem(_payload(query), "payload"))
        rewritten = Query(
            select_items=tuple(items),
            distinct=query.distinct,
            top=top,
            from_name=query.from_name,
            from_alias=query.from_alias,
            from_query=query.from_query,
            where=_with_filter(query.where),
            order_by=tuple(OrderItem(o.expr, o.descending) for o in query.order_by),
        )
        return query_text(rewritten)
    aggregates = query_aggregates(query)
    if aggregates and query.select_value is not None and isinstance(query.select_value, Call):
        call = query.select_value
        if call.name == "AVG":
            arg = call.args[0]
            inner: Expr = ObjectLit(
                (("sum", Call("SUM", (arg,))), ("count", Call("COUNT", (arg,))))
            )
        else:
            inner = call
        rewritten = Query(
            select_value=ArrayLit((ObjectLit((("item", inner),)),)),
            from_name=query.from_name,
            from_alias=query.from_alias,
            from_query=query.from_query,
            where=query.where,
        )
        return query_text(rewritten)
    if query.offset is not None:
        rewritten = Query(
            select_star=query.select_star,
            select_value=query.select_value,
            select_items=query.select_items,
            distinct=query.distinct,
            top=top,
            from_name=query.from_name,
            from_alias=query.from_alias,
            from_query=query.from_query,
            where=query.where,
            group_by=query.group_by,
        )
        return query_text(rewritten)
    return ""


def _constant(expr: Expr, compiler: Compiler) -> tuple[bool, Any]:
    if isinstance(expr, Literal | Param):
        return True, compiler.constant(expr)
    return False, None


def query_ranges(query: Query, compiler: Compiler, key: KeyDefinition) -> list[dict[str, Any]]:
    """The EPK ranges the query can touch: a point or prefix when WHERE pins the key."""
    pinned: dict[tuple[str | int, ...], Any] = {}
    if query.from_query is None:
        for conj in conjuncts(query.where):
            if not (isinstance(conj, Binary) and conj.op == "="):
                continue
            for side, other in ((conj.left, conj.right), (conj.right, conj.left)):
                path = property_path(side, query.from_alias)
                ok, value = _constant(other, compiler)
                if path is not None and ok and not isinstance(value, dict | list):
                    pinned.setdefault(path, value)
    key_paths = [tuple(p.strip("/").split("/")) for p in key.paths]
    values: list[Any] = []
    for path in key_paths:
        if path not in pinned:
            break
        values.append(pinned[path])
    whole = {"min": MIN_EPK, "max": MAX_EPK, "isMinInclusive": True, "isMaxInclusive": False}
    if not values:
        return [whole]
    if len(values) == len(key_paths):
        epk = key.epk(values)
        return [{"min": epk, "max": epk, "isMinInclusive": True, "isMaxInclusive": True}]
    lo, hi = key.prefix_range(values)
    return [{"min": lo, "max": hi, "isMinInclusive": True, "isMaxInclusive": False}]


def build(
    query: Query, params: dict[str, Any], key: KeyDefinition, context: Any = None
) -> dict[str, Any]:
    """The ``partitionedQueryExecutionInfoVersion`` 2 document for a query (``context``:
    the container's ``search.SearchContext``, for vector and full-text queries)."""
    compiler = Compiler(query.from_alias, params, context)
    search.check_query(query, context, query.from_alias)
    if search.ranked(query):
        return {
            "partitionedQueryExecutionInfoVersion": 2,
            "hybridSearchQueryInfo": hybrid_plan.hybrid_info(query, compiler, context),
            "queryRanges": query_ranges(query, compiler, key),
        }
    vector = search.vector_order(query)
    aggregates = query_aggregates(query)
    top = compiler.constant(query.top) if query.top is not None else None
    offset = compiler.constant(query.offset) if query.offset is not None else None
    limit = compiler.constant(query.limit) if query.limit is not None else None
    distinct = "None"
    if query.distinct:
        distinct = "Ordered" if query.order_by else "Unordered"
    info: dict[str, Any] = {
        "distinctType": distinct,
        "top": top,
        "offset": offset,
        "limit": limit,
        "orderBy": (
            ["Descending" if o.descending else "Ascending" for o in query.order_by]
            if vector is None
            else [_vector_direction(vector, query, context)]
        ),
        "orderByExpressions": [expr_text(o.expr) for o in query.order_by],
        "groupByExpressions": [expr_text(g) for g in query.group_by],
        "groupByAliases": [],
        "aggregates": [_AGG_NAMES[a.name] for a in aggregates],
        "groupByAliasToAggregateType": {},
        "rewrittenQuery": rewrite(query, compiler),
        "hasSelectValue": query.select_value is not None,
        "dCountInfo": None,
        "hasNonStreamingOrderBy": vector is not None,
    }
    return {
        "partitionedQueryExecutionInfoVersion": 2,
        "queryInfo": info,
        "queryRanges": query_ranges(query, compiler, key),
    }


def _vector_direction(call: Call, query: Query, context: Any) -> str:
    """Closest first: descending similarity for cosine and dot product, else ascending."""
    ctx = context or search.SearchContext()
    closer = search.larger_is_closer(ctx.distance_of(call, query.from_alias, None))
    return "Descending" if closer else "Ascending"


def not_servable_body(plan: dict[str, Any], activity_id: str) -> dict[str, Any]:
    """The 400 / 1004 answer to a cross-partition query that needs a plan."""
    return {
        "code": "BadRequest",
        "message": (
            "The provided cross partition query can not be directly served by the gateway. "
            "This is a first chance (internal) exception that all newer clients will know how "
            "to handle gracefully. This exception is traced, but unless you see it bubble up "
            "as an exception (which only happens on older SDK clients), then you can safely "
            f"ignore this message.\r\nActivityId: {activity_id}, "
            "Microsoft.Azure.Documents.Common/2.14.0"
        ),
        "additionalErrorInfo": json.dumps(plan, separators=(",", ":")),
    }
