"""A recursive-descent parser for the Cosmos SQL subset (see ``sql_ast``).

Grammar (keywords case-insensitive)::

    query    := SELECT [DISTINCT] [TOP n] [DISTINCT] projection FROM source
                [WHERE expr] [GROUP BY expr, …] [ORDER BY expr [ASC|DESC], …]
                [OFFSET n LIMIT m]
    projection := '*' | VALUE expr | expr [[AS] alias], …
    source   := name [[AS] alias] | '(' query ')' [[AS] alias]
    expr     := or ['?' expr ':' expr] | or '??' expr

Precedence, lowest first: ternary, ``??``, OR, AND, NOT, comparison / IN / BETWEEN,
``||``, ``+ -``, ``* / %``, unary ``- + ~``, member access. Anything outside the
subset (JOIN, LIKE, EXISTS, UDFs…) raises ``SqlError`` so the server answers 400,
as the service does for a query it cannot compile.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

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
    OrderItem,
    Param,
    Query,
    SelectItem,
    Ternary,
    Unary,
)
from tests.fake_cosmos.values import UNDEFINED


class SqlError(ValueError):
    """The query is not valid (or not in the subset): the service answers 400."""


KEYWORDS = frozenset(
    [
        "SELECT",
        "FROM",
        "WHERE",
        "AND",
        "OR",
        "NOT",
        "IN",
        "BETWEEN",
        "VALUE",
        "DISTINCT",
        "TOP",
        "ORDER",
        "BY",
        "GROUP",
        "ASC",
        "DESC",
        "AS",
        "OFFSET",
        "LIMIT",
        "TRUE",
        "FALSE",
        "NULL",
        "UNDEFINED",
        "JOIN",
        "LIKE",
        "EXISTS",
        "ARRAY",
        "ESCAPE",
        "UDF",
    ]
)

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|--[^\n]*)
  | (?P<number>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<param>@[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<op>!=|<>|<=|>=|\|\||\?\?|[=<>+\-*/%(),.\[\]{}:?~])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # number, string, param, ident, op, end
    text: str
    at: int

    def is_kw(self, *words: str) -> bool:
        return self.kind == "ident" and self.text.upper() in words

    def is_op(self, *ops: str) -> bool:
        return self.kind == "op" and self.text in ops


_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n"}
_ESCAPES |= {"r": "\r", "t": "\t"}


def _unquote(text: str) -> str:
    body = text[1:-1]
    if text[0] == '"':
        try:
            return str(json.loads(text))
        except json.JSONDecodeError:
            pass
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6]):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
            continue
        if nxt not in _ESCAPES:
            raise SqlError(f"invalid escape sequence \\{nxt} in a string literal")
        out.append(_ESCAPES[nxt])
        i += 2
    return "".join(out)


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        if text.startswith("/*", pos):
            end = text.find("*/", pos + 2)
            if end < 0:
                raise SqlError("unterminated comment")
            pos = end + 2
            continue
        match = _TOKEN.match(text, pos)
        if match is None:
            raise SqlError(f"Syntax error, invalid token near '{text[pos : pos + 10]}'.")
        kind = match.lastgroup or ""
        if kind != "ws":
            tokens.append(Token(kind, match.group(), pos))
        pos = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    # -- token helpers ------------------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def fail(self, what: str | None = None) -> SqlError:
        near = self.tok.text or "end of query"
        return SqlError(what or f"Syntax error, incorrect syntax near '{near}'.")

    def accept_kw(self, *words: str) -> bool:
        if self.tok.is_kw(*words):
            self.pos += 1
            return True
        return False

    def expect_kw(self, word: str) -> None:
        if not self.accept_kw(word):
            raise self.fail()

    def accept_op(self, *ops: str) -> str | None:
        if self.tok.is_op(*ops):
            return self.advance().text
        return None

    def expect_op(self, op: str) -> None:
        if self.accept_op(op) is None:
            raise self.fail()

    def name(self) -> str:
        """An identifier that is not a keyword (an alias)."""
        token = self.tok
        if token.kind != "ident" or token.text.upper() in KEYWORDS:
            raise self.fail()
        self.pos += 1
        return token.text

    # -- query ----------------------------------------------------------------------------

    def query(self) -> Query:
        self.expect_kw("SELECT")
        distinct = self.accept_kw("DISTINCT")
        top: Expr | None = None
        if self.accept_kw("TOP"):
            top = self.count_operand("TOP")
        if not distinct:
            distinct = self.accept_kw("DISTINCT")
        star = False
        value: Expr | None = None
        items: list[SelectItem] = []
        if self.accept_op("*"):
            star = True
        elif self.accept_kw("VALUE"):
            value = self.expr()
        else:
            items.append(self.select_item())
            while self.accept_op(","):
                items.append(self.select_item())
        self.expect_kw("FROM")
        from_query: Query | None = None
        if self.accept_op("("):
            from_query = self.query()
            self.expect_op(")")
            from_name = ""
            alias = "__subquery"
        else:
            from_name = self.name()
            alias = from_name
        if self.accept_kw("AS") or (
            self.tok.kind == "ident" and self.tok.text.upper() not in KEYWORDS
        ):
            alias = self.name()
        if self.tok.is_kw("JOIN"):
            raise SqlError("JOIN is not supported by the fake gateway")
        if self.tok.is_kw("IN"):
            raise SqlError("FROM … IN iteration is not supported by the fake gateway")
        where = self.expr() if self.accept_kw("WHERE") else None
        group: list[Expr] = []
        if self.accept_kw("GROUP"):
            self.expect_kw("BY")
            group.append(self.expr())
            while self.accept_op(","):
                group.append(self.expr())
        order: list[OrderItem] = []
        if self.accept_kw("ORDER"):
            self.expect_kw("BY")
            order.append(self.order_item())
            while self.accept_op(","):
                order.append(self.order_item())
        offset: Expr | None = None
        limit: Expr | None = None
        if self.accept_kw("OFFSET"):
            offset = self.count_operand("OFFSET")
            self.expect_kw("LIMIT")
            limit = self.count_operand("LIMIT")
        return Query(
            select_star=star,
            select_value=value,
            select_items=tuple(items),
            distinct=distinct,
            top=top,
            from_name=from_name,
            from_alias=alias,
            from_query=from_query,
            where=where,
            group_by=tuple(group),
            order_by=tuple(order),
            offset=offset,
            limit=limit,
        )

    def count_operand(self, clause: str) -> Expr:
        token = self.tok
        if token.kind == "number" and token.text.isdigit():
            self.pos += 1
            return Literal(int(token.text))
        if token.kind == "param":
            self.pos += 1
            return Param(token.text)
        raise self.fail(f"{clause} expects a non-negative integer or a parameter.")

    def select_item(self) -> SelectItem:
        expr = self.expr()
        alias: str | None = None
        if self.accept_kw("AS") or (
            self.tok.kind == "ident" and self.tok.text.upper() not in KEYWORDS
        ):
            alias = self.name()
        return SelectItem(expr, alias)

    def order_item(self) -> OrderItem:
        nxt = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else None
        if self.tok.is_kw("RANK") and nxt is not None and nxt.kind == "ident":
            self.pos += 1  # ORDER BY RANK <scoring function>: no direction
            return OrderItem(self.expr(), False, rank=True)
        expr = self.expr()
        if self.accept_kw("DESC"):
            return OrderItem(expr, True)
        self.accept_kw("ASC")
        return OrderItem(expr, False)

    # -- expressions, lowest precedence first ------------------------------------------

    def expr(self) -> Expr:
        cond = self.coalesce()
        if self.accept_op("?"):
            then = self.expr()
            self.expect_op(":")
            other = self.expr()
            return Ternary(cond, then, other)
        return cond

    def coalesce(self) -> Expr:
        left = self.disjunction()
        if self.accept_op("??"):
            return Binary("??", left, self.coalesce())
        return left

    def disjunction(self) -> Expr:
        left = self.conjunction()
        while self.accept_kw("OR"):
            left = Binary("OR", left, self.conjunction())
        return left

    def conjunction(self) -> Expr:
        left = self.negation()
        while self.accept_kw("AND"):
            left = Binary("AND", left, self.negation())
        return left

    def negation(self) -> Expr:
        if self.accept_kw("NOT"):
            return Unary("NOT", self.negation())
        return self.comparison()

    def comparison(self) -> Expr:
        left = self.concat()
        while True:
            op = self.accept_op("=", "!=", "<>", "<", ">", "<=", ">=")
            if op is not None:
                left = Binary("!=" if op == "<>" else op, left, self.concat())
                continue
            negated = False
            if self.tok.is_kw("NOT") and self.peek().is_kw("IN", "BETWEEN", "LIKE"):
                self.pos += 1
                negated = True
            if self.accept_kw("IN"):
                self.expect_op("(")
                options = [self.expr()]
                while self.accept_op(","):
                    options.append(self.expr())
                self.expect_op(")")
                left = In(left, tuple(options), negated)
                continue
            if self.accept_kw("BETWEEN"):
                low = self.concat()
                self.expect_kw("AND")
                high = self.concat()
                left = Between(left, low, high, negated)
                continue
            if self.tok.is_kw("LIKE"):
                raise SqlError("LIKE is not supported by the fake gateway")
            if negated:
                raise self.fail()
            return left

    def concat(self) -> Expr:
        left = self.additive()
        while self.accept_op("||"):
            left = Binary("||", left, self.additive())
        return left

    def additive(self) -> Expr:
        left = self.multiplicative()
        while True:
            op = self.accept_op("+", "-")
            if op is None:
                return left
            left = Binary(op, left, self.multiplicative())

    def multiplicative(self) -> Expr:
        left = self.unary()
        while True:
            op = self.accept_op("*", "/", "%")
            if op is None:
                return left
            left = Binary(op, left, self.unary())

    def unary(self) -> Expr:
        op = self.accept_op("-", "+", "~")
        if op is not None:
            operand = self.unary()
            value = operand.value if isinstance(operand, Literal) else None
            if op == "-" and isinstance(value, int | float) and not isinstance(value, bool):
                return Literal(-value)
            return Unary(op, operand)
        return self.postfix()

    def postfix(self) -> Expr:
        node = self.primary()
        while True:
            if self.accept_op("."):
                token = self.tok
                if token.kind != "ident":
                    raise self.fail()
                self.pos += 1
                node = Member(node, token.text)
            elif self.accept_op("["):
                index = self.expr()
                self.expect_op("]")
                if isinstance(index, Literal) and isinstance(index.value, str):
                    node = Member(node, index.value, quoted=True)
                else:
                    node = Index(node, index)
            else:
                return node

    def primary(self) -> Expr:
        token = self.tok
        if token.kind == "number":
            self.pos += 1
            text = token.text
            if re.fullmatch(r"\d+", text):
                return Literal(int(text))
            return Literal(float(text))
        if token.kind == "string":
            self.pos += 1
            return Literal(_unquote(token.text))
        if token.kind == "param":
            self.pos += 1
            return Param(token.text)
        if token.is_op("("):
            self.pos += 1
            if self.tok.is_kw("SELECT"):
                raise SqlError("scalar subqueries are not supported by the fake gateway")
            inner = self.expr()
            self.expect_op(")")
            return inner
        if token.is_op("{"):
            return self.object_literal()
        if token.is_op("["):
            self.pos += 1
            items: list[Expr] = []
            if not self.accept_op("]"):
                items.append(self.expr())
                while self.accept_op(","):
                    items.append(self.expr())
                self.expect_op("]")
            return ArrayLit(tuple(items))
        if token.kind == "ident":
            upper = token.text.upper()
            if upper == "TRUE":
                self.pos += 1
                return Literal(True)
            if upper == "FALSE":
                self.pos += 1
                return Literal(False)
            if upper == "NULL":
                self.pos += 1
                return Literal(None)
            if upper == "UNDEFINED":
                self.pos += 1
                return Literal(UNDEFINED)
            if upper in ("EXISTS", "ARRAY", "UDF"):
                raise SqlError(f"{upper} is not supported by the fake gateway")
            if self.peek().is_op("("):
                return self.call()
            if upper in KEYWORDS:
                raise self.fail()
            self.pos += 1
            return Ident(token.text)
        raise self.fail()

    def call(self) -> Call:
        name = self.advance().text.upper()
        self.expect_op("(")
        args: list[Expr] = []
        if not self.accept_op(")"):
            if self.tok.is_kw("SELECT"):
                raise SqlError("subqueries as arguments are not supported by the fake gateway")
            args.append(self.expr())
            while self.accept_op(","):
                args.append(self.expr())
            self.expect_op(")")
        return Call(name, tuple(args))

    def object_literal(self) -> ObjectLit:
        self.expect_op("{")
        entries: list[tuple[str, Expr]] = []
        if not self.accept_op("}"):
            while True:
                token = self.advance()
                if token.kind == "string":
                    key = _unquote(token.text)
                elif token.kind == "ident":
                    key = token.text
                else:
                    raise self.fail()
                self.expect_op(":")
                entries.append((key, self.expr()))
                if self.accept_op("}"):
                    break
                self.expect_op(",")
        return ObjectLit(tuple(entries))


def parse(text: str) -> Query:
    """Parse one query; raises ``SqlError`` with a service-like message."""
    parser = _Parser(text)
    query = parser.query()
    if parser.tok.kind != "end":
        raise parser.fail()
    return query


def parse_expr(text: str) -> Expr:
    parser = _Parser(text)
    expr = parser.expr()
    if parser.tok.kind != "end":
        raise parser.fail()
    return expr
