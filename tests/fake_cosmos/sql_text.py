"""Print a syntax tree back to Cosmos SQL (for the query plan's ``rewrittenQuery``).

The output is fully parenthesised where precedence could matter; it only has to be
read back by ``sql_parser`` and by a person reading a request log.
"""

from __future__ import annotations

import json
import re

from tests.fake_cosmos.sql_ast import (
    ArrayLit,
    Between,
    Binary,
    Call,
    Expr,
    Ident,
    In,
    Index,
    Literal,
    Member,
    ObjectLit,
    Param,
    Query,
    Raw,
    Ternary,
    Unary,
)
from tests.fake_cosmos.values import UNDEFINED

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def literal(value: object) -> str:
    if value is UNDEFINED:
        return "undefined"
    return json.dumps(value, ensure_ascii=False)


def expr_text(expr: Expr) -> str:
    if isinstance(expr, Literal):
        return literal(expr.value)
    if isinstance(expr, Raw):
        return expr.text
    if isinstance(expr, Param):
        return expr.name
    if isinstance(expr, Ident):
        return expr.name
    if isinstance(expr, Member):
        base = expr_text(expr.base)
        if expr.quoted or not _PLAIN_NAME.fullmatch(expr.name):
            return f"{base}[{json.dumps(expr.name, ensure_ascii=False)}]"
        return f"{base}.{expr.name}"
    if isinstance(expr, Index):
        return f"{expr_text(expr.base)}[{expr_text(expr.index)}]"
    if isinstance(expr, Unary):
        sep = " " if expr.op == "NOT" else ""
        return f"({expr.op}{sep}{expr_text(expr.operand)})"
    if isinstance(expr, Binary):
        return f"({expr_text(expr.left)} {expr.op} {expr_text(expr.right)})"
    if isinstance(expr, Ternary):
        return f"({expr_text(expr.cond)} ? {expr_text(expr.then)} : {expr_text(expr.other)})"
    if isinstance(expr, In):
        options = ", ".join(expr_text(o) for o in expr.options)
        neg = "NOT " if expr.negated else ""
        return f"({expr_text(expr.needle)} {neg}IN ({options}))"
    if isinstance(expr, Between):
        neg = "NOT " if expr.negated else ""
        return (
            f"({expr_text(expr.value)} {neg}BETWEEN {expr_text(expr.low)} "
            f"AND {expr_text(expr.high)})"
        )
    if isinstance(expr, Call):
        return f"{expr.name}({', '.join(expr_text(a) for a in expr.args)})"
    if isinstance(expr, ObjectLit):
        entries = ", ".join(
            f"{json.dumps(k, ensure_ascii=False)}: {expr_text(v)}" for k, v in expr.entries
        )
        return "{" + entries + "}"
    if isinstance(expr, ArrayLit):
        return "[" + ", ".join(expr_text(i) for i in expr.items) + "]"
    raise TypeError(f"cannot print {type(expr).__name__}")


def query_text(query: Query) -> str:
    parts = ["SELECT"]
    if query.distinct:
        parts.append("DISTINCT")
    if query.top is not None:
        parts.append(f"TOP {expr_text(query.top)}")
    if query.select_star:
        parts.append("*")
    elif query.select_value is not None:
        parts.append(f"VALUE {expr_text(query.select_value)}")
    else:
        items = []
        for item in query.select_items:
            text = expr_text(item.expr)
            items.append(f"{text} AS {item.alias}" if item.alias else text)
        parts.append(", ".join(items))
    if query.from_query is not None:
        parts.append(f"FROM ({query_text(query.from_query)}) {query.from_alias}")
    elif query.from_alias != query.from_name:
        parts.append(f"FROM {query.from_name} {query.from_alias}")
    else:
        parts.append(f"FROM {query.from_name}")
    if query.where is not None:
        parts.append(f"WHERE {expr_text(query.where)}")
    if query.group_by:
        parts.append("GROUP BY " + ", ".join(expr_text(g) for g in query.group_by))
    if query.order_by:
        order = ", ".join(
            f"RANK {expr_text(o.expr)}"
            if o.rank
            else f"{expr_text(o.expr)} {'DESC' if o.descending else 'ASC'}"
            for o in query.order_by
        )
        parts.append(f"ORDER BY {order}")
    if query.offset is not None and query.limit is not None:
        parts.append(f"OFFSET {expr_text(query.offset)} LIMIT {expr_text(query.limit)}")
    return " ".join(parts)
