"""Prepare a query for range-local execution: parse, compile, and plan its access path.

Preparation decides, once per query text, parameters and container (cached), how a
range will produce the query's rows — its *mode*:

* ``plain`` — documents in ``(epk, seq)`` order (filters, projections, TOP, OFFSET).
* ``index`` — an ORDER BY on one indexed path, or a DISTINCT whose rows depend on one
  indexed path only: walk that path's sorted index.
* ``sorted`` / ``group`` / ``aggregate`` / ``subquery`` — computed from all candidates.

It also splits the WHERE clause into the conjuncts an index can serve (``path op
constant``, IN, BETWEEN, STARTSWITH, IS_STRING and the other type checks) with the key
interval each admits, and the rest; and decides whether building a row needs the
document itself. Those decisions are what ``charges`` bills. As on the service, an
ORDER BY needs a range index on its path (and several paths a composite index).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from tests.fake_cosmos import continuation, search
from tests.fake_cosmos.sql_ast import (
    ArrayLit,
    Between,
    Binary,
    Call,
    Expr,
    In,
    Literal,
    ObjectLit,
    Param,
    Query,
    conjuncts,
    property_path,
    query_aggregates,
    references,
    select_exprs,
    walk,
)
from tests.fake_cosmos.sql_eval import Compiler, Fn, compile_projection
from tests.fake_cosmos.sql_parser import SqlError, parse
from tests.fake_cosmos.store import Container
from tests.fake_cosmos.values import (
    RANK_ARRAY,
    RANK_BOOL,
    RANK_NULL,
    RANK_NUMBER,
    RANK_OBJECT,
    RANK_STRING,
    UNDEFINED,
    rank,
    rank_ceiling,
    rank_floor,
    sort_key,
)

_FLIP = {"=": "=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
_TYPE_CHECKS = {  # function: the type ranks it admits (first, last)
    "IS_NULL": (RANK_NULL, RANK_NULL),
    "IS_BOOL": (RANK_BOOL, RANK_BOOL),
    "IS_NUMBER": (RANK_NUMBER, RANK_NUMBER),
    "IS_STRING": (RANK_STRING, RANK_STRING),
    "IS_DEFINED": (RANK_NULL, RANK_OBJECT),
    "IS_PRIMITIVE": (RANK_NULL, RANK_STRING),
}


@dataclass(frozen=True)
class Bound:
    key: Any
    inclusive: bool


@dataclass
class IndexFilter:
    """A WHERE conjunct the index can serve: ``path op constant`` (and IN, BETWEEN,
    STARTSWITH), with the key interval it admits."""

    path: tuple[str | int, ...]
    fn: Fn
    lo: Bound | None
    hi: Bound | None


def _empty_bounds() -> tuple[Bound, Bound]:
    return Bound((99,), True), Bound((0,), True)


def _bounds_for(op: str, value: Any) -> tuple[Bound | None, Bound | None]:
    if value is UNDEFINED:
        return _empty_bounds()
    key, r = sort_key(value), rank(value)
    if op == "=":
        return Bound(key, True), Bound(key, True)
    if r >= RANK_ARRAY:
        return _empty_bounds()
    if op == ">":
        return Bound(key, False), Bound(rank_ceiling(r), False)
    if op == ">=":
        return Bound(key, True), Bound(rank_ceiling(r), False)
    if op == "<":
        return Bound(rank_floor(r), True), Bound(key, False)
    return Bound(rank_floor(r), True), Bound(key, True)


def _tighter_lo(a: Bound | None, b: Bound | None) -> Bound | None:
    if a is None or b is None:
        return a or b
    if a.key != b.key:
        return a if a.key > b.key else b
    return a if not a.inclusive else b


def _tighter_hi(a: Bound | None, b: Bound | None) -> Bound | None:
    if a is None or b is None:
        return a or b
    if a.key != b.key:
        return a if a.key < b.key else b
    return a if not a.inclusive else b


def _is_constant(expr: Expr) -> bool:
    return isinstance(expr, Literal | Param)


@dataclass
class Prepared:
    """A parsed and compiled query, ready to run pages against ranges."""

    text: str
    params: dict[str, Any]
    query: Query
    fingerprint: str
    mode: str
    projection: Fn
    index_filters: list[IndexFilter]
    residual: list[Fn]
    needs_doc: bool
    top: int | None
    offset: int | None
    limit: int | None
    agg_args: list[tuple[str, Fn]] = field(default_factory=list)
    group_fns: list[Fn] = field(default_factory=list)
    order_fns: list[tuple[Fn, bool]] = field(default_factory=list)
    walk_path: tuple[str | int, ...] | None = None
    walk_desc: bool = False
    inner: Prepared | None = None

    @property
    def cap(self) -> int | None:
        """Rows of the whole result (TOP, or OFFSET + LIMIT); None: unbounded."""
        if self.top is not None:
            return self.top
        if self.limit is not None:
            return (self.offset or 0) + self.limit
        return None

    def walk_bounds(self) -> tuple[Bound | None, Bound | None]:
        lo: Bound | None = None
        hi: Bound | None = None
        for f in self.index_filters:
            if f.path == self.walk_path:
                lo, hi = _tighter_lo(lo, f.lo), _tighter_hi(hi, f.hi)
        return lo, hi


def _count(compiler: Compiler, expr: Expr | None, clause: str) -> int | None:
    if expr is None:
        return None
    value = compiler.constant(expr)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SqlError(f"The {clause} value must be a non-negative integer, got {value!r}.")
    return value


def _has_composite(container: Container, order: list[tuple[tuple[str | int, ...], bool]]) -> bool:
    for composite in container.indexing_policy.get("compositeIndexes") or ():
        spec = []
        for entry in composite:
            steps = tuple(s for s in str(entry.get("path", "")).strip("/").split("/") if s)
            spec.append((steps, str(entry.get("order", "ascending")).lower() == "descending"))
        wanted = [(tuple(str(s) for s in p), d) for p, d in order]
        if spec == wanted or spec == [(p, not d) for p, d in wanted]:
            return True
    return False


def prepare(text: str, params: dict[str, Any], container: Container) -> Prepared:
    query = parse(text)
    return _prepare(query, text, params, container)


def _prepare(query: Query, text: str, params: dict[str, Any], container: Container) -> Prepared:
    alias = query.from_alias
    context = search.SearchContext.of(container.extra, container.vector_quantum)
    search.check_query(query, context, alias)
    compiler = Compiler(alias, params, context)
    over_docs = query.from_query is None

    # WHERE: index-served conjuncts and the rest
    index_filters: list[IndexFilter] = []
    residual: list[Fn] = []
    for conj in conjuncts(query.where):
        if isinstance(conj, Literal) and conj.value is True:
            continue  # the SDK's formattable ORDER BY filter, replaced by `true`
        if any(isinstance(n, Call) and n.is_aggregate for n in walk(conj)):
            raise SqlError("Aggregate functions are not allowed in the WHERE clause.")
        found = _index_filter(conj, alias, compiler, container) if over_docs else None
        if found is not None:
            index_filters.append(found)
        else:
            residual.append(compiler.compile(conj))

    projection = compile_projection(query, compiler)
    aggregates = query_aggregates(query)
    agg_args = [
        (call.name, compiler.compile(call.args[0]))
        for call, _slot in sorted(compiler.agg_slots.items(), key=lambda kv: kv[1])
    ]
    group_fns = [compiler.compile(g) for g in query.group_by]
    # ORDER BY RANK is never run range-locally: the route answers it with a query plan.
    order_fns = [
        (_unranked if o.rank else compiler.compile_order(o.expr), o.descending)
        for o in query.order_by
    ]
    for i, item in enumerate(query.order_by):
        expr = item.expr
        if isinstance(expr, Call) and expr.name in (search.VECTOR, search.VECTOR_SCORE):
            # closest first whatever is written; an item without a score is not ranked
            distance = context.distance_of(expr, alias, None)
            fn = order_fns[i][0]
            order_fns[i] = (fn, search.larger_is_closer(distance))
            residual.append(_scored(fn))
        elif isinstance(expr, Call) and expr.name == search.TEXT_SCORE:
            residual.append(_scored(order_fns[i][0]))
    if query.select_star and query.group_by:
        raise SqlError("'SELECT *' is not valid with GROUP BY.")
    if query.group_by and query.order_by:
        raise SqlError("ORDER BY over a GROUP BY query is not supported.")
    if aggregates and not query.group_by:
        for expr in select_exprs(query):
            stripped = _without_aggregates(expr)
            if references(stripped, alias)[0] or references(stripped, alias)[1]:
                raise SqlError(
                    "Property reference outside an aggregate requires a GROUP BY clause."
                )

    top = _count(compiler, query.top, "TOP")
    offset = _count(compiler, query.offset, "OFFSET")
    limit = _count(compiler, query.limit, "LIMIT")

    mode = "plain"
    walk_path: tuple[str | int, ...] | None = None
    walk_desc = False
    select_paths: set[tuple[str | int, ...]] = set()
    select_other = query.select_star
    for expr in select_exprs(query):
        paths, other = references(expr, alias)
        select_paths |= paths
        select_other = select_other or other
    inner: Prepared | None = None
    if not over_docs:
        assert query.from_query is not None
        inner = _prepare(query.from_query, text, params, container)
        mode = "subquery"
    elif query.group_by:
        mode = "group"
    elif aggregates:
        mode = "aggregate"
    elif query.order_by:
        order_paths = [property_path(o.expr, alias) for o in query.order_by]
        if len(order_paths) == 1 and order_paths[0] is not None:
            path = order_paths[0]
            if not container.indexed(path):
                raise SqlError(
                    "Order-by item requires a range index to be defined on the "
                    "corresponding index path."
                )
            distinct_ok = not select_other and select_paths <= {path, ("_rid",)}
            if not query.distinct or distinct_ok:
                mode, walk_path, walk_desc = "index", path, query.order_by[0].descending
            else:
                mode = "sorted"
        else:
            if all(p is not None for p in order_paths) and not _has_composite(
                container,
                [(p, o.descending) for p, o in zip(order_paths, query.order_by, strict=True) if p],
            ):
                raise SqlError(
                    "The order by query does not have a corresponding composite index "
                    "that it can be served from."
                )
            mode = "sorted"
    elif query.distinct:
        if not select_other and len(select_paths) == 1:
            (path,) = select_paths
            if container.indexed(path):
                mode, walk_path = "index", path
            else:
                mode = "sorted"
        else:
            mode = "sorted"

    # Does building a row need the document itself (beyond the walked index value)?
    row_exprs: list[Expr] = [*select_exprs(query), *query.group_by]
    row_exprs += [o.expr for o in query.order_by]
    needs_doc = query.select_star
    for expr in row_exprs:
        paths, other = references(expr, alias)
        served = {walk_path, ("_rid",)} if walk_path is not None else {("_rid",)}
        if other or (paths - served):
            needs_doc = True
    return Prepared(
        text=text,
        params=params,
        query=query,
        fingerprint=continuation.fingerprint(text, params),
        mode=mode,
        projection=projection,
        index_filters=index_filters,
        residual=residual,
        needs_doc=needs_doc,
        top=top,
        offset=offset,
        limit=limit,
        agg_args=agg_args,
        group_fns=group_fns,
        order_fns=order_fns,
        walk_path=walk_path,
        walk_desc=walk_desc,
        inner=inner,
    )


def _unranked(row: Any, aggs: Any) -> Any:
    return UNDEFINED


def _scored(fn: Fn) -> Fn:
    """A filter keeping the rows a search function scores (a number)."""
    return lambda row, aggs: isinstance(fn(row, aggs), int | float) or UNDEFINED


def _without_aggregates(expr: Expr) -> Expr:
    """The expression with aggregate calls replaced by a literal (to find stray paths)."""
    if isinstance(expr, Call) and expr.is_aggregate:
        return Literal(0)
    if isinstance(expr, ObjectLit):
        return ObjectLit(tuple((k, _without_aggregates(v)) for k, v in expr.entries))
    if isinstance(expr, ArrayLit):
        return ArrayLit(tuple(_without_aggregates(i) for i in expr.items))
    if isinstance(expr, Binary):
        return Binary(expr.op, _without_aggregates(expr.left), _without_aggregates(expr.right))
    if isinstance(expr, Call):
        return Call(expr.name, tuple(_without_aggregates(a) for a in expr.args))
    return expr


def _index_filter(
    conj: Expr, alias: str, compiler: Compiler, container: Container
) -> IndexFilter | None:
    path: tuple[str | int, ...] | None = None
    lo: Bound | None = None
    hi: Bound | None = None
    if isinstance(conj, Binary) and conj.op in _FLIP:
        left, right, op = conj.left, conj.right, conj.op
        if _is_constant(left) and not _is_constant(right):
            left, right, op = right, left, _FLIP[op]
        path = property_path(left, alias)
        if path is None or not _is_constant(right):
            return None
        lo, hi = _bounds_for(op, compiler.constant(right))
    elif isinstance(conj, Between) and not conj.negated:
        path = property_path(conj.value, alias)
        if path is None or not (_is_constant(conj.low) and _is_constant(conj.high)):
            return None
        low, high = compiler.constant(conj.low), compiler.constant(conj.high)
        if rank(low) != rank(high) or rank(low) >= RANK_ARRAY or low is UNDEFINED:
            lo, hi = _empty_bounds()
        else:
            lo, hi = Bound(sort_key(low), True), Bound(sort_key(high), True)
    elif isinstance(conj, In) and not conj.negated:
        path = property_path(conj.needle, alias)
        if path is None or not all(_is_constant(o) for o in conj.options):
            return None
    elif isinstance(conj, Call) and conj.name == "STARTSWITH" and len(conj.args) == 2:
        path = property_path(conj.args[0], alias)
        if path is None or not _is_constant(conj.args[1]):
            return None
        prefix = compiler.constant(conj.args[1])
        if not isinstance(prefix, str):
            lo, hi = _empty_bounds()
        elif prefix:
            upper = prefix[:-1] + chr(min(ord(prefix[-1]) + 1, 0x10FFFF))
            lo, hi = Bound((RANK_STRING, prefix), True), Bound((RANK_STRING, upper), False)
        else:
            lo, hi = Bound(rank_floor(RANK_STRING), True), Bound(rank_ceiling(RANK_STRING), False)
    elif isinstance(conj, Call) and conj.name in _TYPE_CHECKS and len(conj.args) == 1:
        # the index knows each value's type: IS_STRING(p) is the string slice of p's index
        path = property_path(conj.args[0], alias)
        first, last = _TYPE_CHECKS[conj.name]
        lo, hi = Bound(rank_floor(first), True), Bound(rank_ceiling(last), False)
    else:
        return None
    if path is None or not container.indexed(path):
        return None
    return IndexFilter(path, compiler.compile(conj), lo, hi)


# -- compile cache ------------------------------------------------------------------------

_CACHE: OrderedDict[tuple[str, str, str, str], Prepared] = OrderedDict()
_CACHE_SIZE = 256
_CACHE_LOCK = threading.Lock()  # several fakes (threads) may share the process


def prepared_for(text: str, params: dict[str, Any], container: Container) -> Prepared:
    """``prepare``, memoised per container, indexing policy, text and parameters (a
    paged query is prepared once, not once per page)."""
    policy = json.dumps(container.indexing_policy, sort_keys=True)
    key = (container.rid, policy, text, json.dumps(params, sort_keys=True, default=str))
    with _CACHE_LOCK:
        found = _CACHE.get(key)
        if found is not None:
            _CACHE.move_to_end(key)
            return found
    found = prepare(text, params, container)
    with _CACHE_LOCK:
        _CACHE[key] = found
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return found
