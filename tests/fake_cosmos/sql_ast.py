"""The syntax tree of the Cosmos SQL subset the fake understands.

Frozen dataclasses, so a parsed query can be cached, compared and printed back
(``sql_text``) when the query planner rewrites it for per-range execution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

AGGREGATES = frozenset({"COUNT", "COUNTIF", "MIN", "MAX", "SUM", "AVG"})


class Expr:
    """Base of every expression node."""


@dataclass(frozen=True)
class Literal(Expr):
    value: Any  # a JSON value, or values.UNDEFINED for the `undefined` keyword


@dataclass(frozen=True)
class Param(Expr):
    name: str  # with the leading "@"


@dataclass(frozen=True)
class Ident(Expr):
    """A bare identifier: the FROM alias (``c``)."""

    name: str


@dataclass(frozen=True)
class Member(Expr):
    """``base.name`` or ``base["name"]`` (``quoted`` remembers the spelling)."""

    base: Expr
    name: str
    quoted: bool = False


@dataclass(frozen=True)
class Index(Expr):
    """``base[expr]`` with a non-literal-string index (a number or an expression)."""

    base: Expr
    index: Expr


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # "-", "+", "NOT", "~"
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    op: str  # "=", "!=", "<", ">", "<=", ">=", "AND", "OR", "+", "-", "*", "/", "%", "||", "??"
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(frozen=True)
class In(Expr):
    needle: Expr
    options: tuple[Expr, ...]
    negated: bool = False


@dataclass(frozen=True)
class Between(Expr):
    value: Expr
    low: Expr
    high: Expr
    negated: bool = False


@dataclass(frozen=True)
class Call(Expr):
    name: str  # upper-cased
    args: tuple[Expr, ...]

    @property
    def is_aggregate(self) -> bool:
        return self.name in AGGREGATES


@dataclass(frozen=True)
class ObjectLit(Expr):
    entries: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class ArrayLit(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Raw(Expr):
    """Verbatim text, printed but never evaluated (the plan's filter placeholder)."""

    text: str


@dataclass(frozen=True)
class SelectItem:
    expr: Expr
    alias: str | None = None


@dataclass(frozen=True)
class OrderItem:
    expr: Expr
    descending: bool = False
    rank: bool = False  # ORDER BY RANK <scoring function>


@dataclass(frozen=True)
class Query:
    """``SELECT … FROM …`` with every optional clause."""

    select_star: bool = False
    select_value: Expr | None = None
    select_items: tuple[SelectItem, ...] = ()
    distinct: bool = False
    top: Expr | None = None  # Literal or Param
    from_name: str = "c"  # the collection name as written (`c`, `root`)
    from_alias: str = "c"  # what expressions call the row
    from_query: Query | None = None  # FROM (SELECT …) alias
    where: Expr | None = None
    group_by: tuple[Expr, ...] = ()
    order_by: tuple[OrderItem, ...] = ()
    offset: Expr | None = None
    limit: Expr | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def children(node: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of a node."""
    if isinstance(node, Member):
        return (node.base,)
    if isinstance(node, Index):
        return (node.base, node.index)
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Ternary):
        return (node.cond, node.then, node.other)
    if isinstance(node, In):
        return (node.needle, *node.options)
    if isinstance(node, Between):
        return (node.value, node.low, node.high)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, ObjectLit):
        return tuple(e for _, e in node.entries)
    if isinstance(node, ArrayLit):
        return node.items
    return ()


def walk(expr: Expr) -> list[Expr]:
    """Every node of an expression, pre-order (subqueries are not entered)."""
    out: list[Expr] = []
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(children(node)))
    return out


def aggregates_in(expr: Expr) -> list[Call]:
    return [n for n in walk(expr) if isinstance(n, Call) and n.is_aggregate]


def select_exprs(query: Query) -> list[Expr]:
    if query.select_value is not None:
        return [query.select_value]
    return [item.expr for item in query.select_items]


def query_aggregates(query: Query) -> list[Call]:
    found: list[Call] = []
    for expr in select_exprs(query):
        found.extend(aggregates_in(expr))
    return found


def references(expr: Expr, alias: str) -> tuple[set[tuple[str | int, ...]], bool]:
    """The property paths an expression reads, and whether it uses the row otherwise
    (a bare ``c``, a computed index)."""
    paths: set[tuple[str | int, ...]] = set()
    other = False
    stack = [expr]
    while stack:
        node = stack.pop()
        path = property_path(node, alias)
        if path is not None:
            paths.add(path)
            continue
        if isinstance(node, Ident):
            other = other or node.name == alias
            continue
        stack.extend(children(node))
    return paths, other


def conjuncts(expr: Expr | None) -> list[Expr]:
    """The operands of a top-level AND chain."""
    if expr is None:
        return []
    if isinstance(expr, Binary) and expr.op == "AND":
        return conjuncts(expr.left) + conjuncts(expr.right)
    return [expr]


def property_path(expr: Expr, alias: str) -> tuple[str | int, ...] | None:
    """``c.a["b"][0]`` → ("a", "b", 0); None unless a plain path from the alias."""
    steps: list[str | int] = []
    node = expr
    while True:
        if isinstance(node, Member):
            steps.append(node.name)
            node = node.base
        elif isinstance(node, Index) and isinstance(node.index, Literal):
            value = node.index.value
            if isinstance(value, bool) or not isinstance(value, int | str):
                return None
            steps.append(value)
            node = node.base
        elif isinstance(node, Ident):
            if node.name != alias or not steps:
                return None
            return tuple(reversed(steps))
        else:
            return None
