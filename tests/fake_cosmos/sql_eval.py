"""Compile Cosmos SQL expressions into Python closures and evaluate them.

Each expression becomes ``fn(row, aggs)``: ``row`` is the value bound to the FROM
alias (a document) and ``aggs`` the finished aggregate values of the row's group
(``None`` outside aggregate queries). Compiling once per query and parameter set keeps
per-document evaluation cheap enough for tens of thousands of documents.

Semantics follow the service: undefined propagates through operators and function
calls, comparisons across types are undefined (``"42" = 42`` keeps no row), AND / OR
are three-valued with undefined, and WHERE keeps a row only when its filter is exactly
``true``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from tests.fake_cosmos import search
from tests.fake_cosmos.search import SearchContext
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
    Ternary,
    Unary,
    property_path,
)
from tests.fake_cosmos.sql_parser import SqlError
from tests.fake_cosmos.values import (
    RANK_ARRAY,
    UNDEFINED,
    compare,
    equals,
    finite,
    is_number,
    rank,
    sort_key,
    to_json_number,
)

Fn = Callable[[Any, Any], Any]


def get_path(value: Any, steps: tuple[str | int, ...]) -> Any:
    for step in steps:
        if type(step) is str:
            if type(value) is not dict:
                return UNDEFINED
            value = value.get(step, UNDEFINED)
        else:
            if type(value) is not list or not 0 <= step < len(value):  # type: ignore[operator]
                return UNDEFINED
            value = value[step]  # type: ignore[index]
    return value


def _truth_and(a: Any, b: Any) -> Any:
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return UNDEFINED


def _truth_or(a: Any, b: Any) -> Any:
    if a is True or b is True:
        return True
    if a is False and b is False:
        return False
    return UNDEFINED


def _truth_not(a: Any) -> Any:
    if a is True:
        return False
    if a is False:
        return True
    return UNDEFINED


def _ordered(op: str) -> Callable[[Any, Any], Any]:
    tests: dict[str, Callable[[int], bool]] = {
        "<": lambda c: c < 0,
        ">": lambda c: c > 0,
        "<=": lambda c: c <= 0,
        ">=": lambda c: c >= 0,
    }
    test = tests[op]

    def apply(a: Any, b: Any) -> Any:
        result = compare(a, b)
        return UNDEFINED if result is None else test(result)

    return apply


def _not_equals(a: Any, b: Any) -> Any:
    return _truth_not(equals(a, b))


def _arith(op: str) -> Callable[[Any, Any], Any]:
    def apply(a: Any, b: Any) -> Any:
        if not (is_number(a) and is_number(b)):
            return UNDEFINED
        if op == "+":
            return finite(a + b)
        if op == "-":
            return finite(a - b)
        if op == "*":
            return finite(a * b)
        if b == 0:
            return UNDEFINED
        if op == "/":
            return to_json_number(finite(a / b))
        return to_json_number(math.fmod(a, b))

    return apply


def _concat(a: Any, b: Any) -> Any:
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    return UNDEFINED


def _coalesce(a: Any, b: Any) -> Any:
    return b if a is UNDEFINED else a


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "=": equals,
    "!=": _not_equals,
    "<": _ordered("<"),
    ">": _ordered(">"),
    "<=": _ordered("<="),
    ">=": _ordered(">="),
    "+": _arith("+"),
    "-": _arith("-"),
    "*": _arith("*"),
    "/": _arith("/"),
    "%": _arith("%"),
    "||": _concat,
}


# -- scalar functions -------------------------------------------------------------------


def _contains(s: Any, sub: Any, ignore_case: Any = False) -> Any:
    if not (isinstance(s, str) and isinstance(sub, str)):
        return UNDEFINED
    if ignore_case is True:
        return sub.casefold() in s.casefold()
    return sub in s


def _startswith(s: Any, sub: Any, ignore_case: Any = False) -> Any:
    if not (isinstance(s, str) and isinstance(sub, str)):
        return UNDEFINED
    if ignore_case is True:
        return s.casefold().startswith(sub.casefold())
    return s.startswith(sub)


def _endswith(s: Any, sub: Any, ignore_case: Any = False) -> Any:
    if not (isinstance(s, str) and isinstance(sub, str)):
        return UNDEFINED
    if ignore_case is True:
        return s.casefold().endswith(sub.casefold())
    return s.endswith(sub)


def _array_contains(arr: Any, needle: Any, partial: Any = False) -> Any:
    if type(arr) is not list or needle is UNDEFINED:
        return UNDEFINED
    for item in arr:
        if partial is True and type(item) is dict and type(needle) is dict:
            if all(k in item and equals(item[k], v) is True for k, v in needle.items()):
                return True
        elif equals(item, needle) is True:
            return True
    return False


def _substring(s: Any, start: Any, length: Any) -> Any:
    if not (isinstance(s, str) and is_number(start) and is_number(length)):
        return UNDEFINED
    begin = max(int(start), 0)
    return s[begin : begin + max(int(length), 0)]


def _to_string(value: Any) -> Any:
    if value is UNDEFINED:
        return UNDEFINED
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _num1(fn: Callable[[float], Any]) -> Callable[[Any], Any]:
    def apply(value: Any) -> Any:
        return to_json_number(fn(value)) if is_number(value) else UNDEFINED

    return apply


def _string1(fn: Callable[[str], Any]) -> Callable[[Any], Any]:
    def apply(value: Any) -> Any:
        return fn(value) if isinstance(value, str) else UNDEFINED

    return apply


def _concat_all(*parts: Any) -> Any:
    if all(isinstance(p, str) for p in parts):
        return "".join(parts)
    return UNDEFINED


def _index_of(s: Any, sub: Any, start: Any = 0) -> Any:
    if not (isinstance(s, str) and isinstance(sub, str) and is_number(start)):
        return UNDEFINED
    return s.find(sub, int(start))


def _replace(s: Any, old: Any, new: Any) -> Any:
    if not all(isinstance(v, str) for v in (s, old, new)):
        return UNDEFINED
    return s.replace(old, new)


SCALAR_FUNCTIONS: dict[str, tuple[Callable[..., Any], tuple[int, ...]]] = {
    "IS_DEFINED": (lambda v: v is not UNDEFINED, (1,)),
    "IS_NULL": (lambda v: v is None, (1,)),
    "IS_NUMBER": (is_number, (1,)),
    "IS_STRING": (lambda v: isinstance(v, str), (1,)),
    "IS_BOOL": (lambda v: isinstance(v, bool), (1,)),
    "IS_ARRAY": (lambda v: type(v) is list, (1,)),
    "IS_OBJECT": (lambda v: type(v) is dict, (1,)),
    "IS_PRIMITIVE": (lambda v: v is not UNDEFINED and rank(v) < RANK_ARRAY, (1,)),
    "ARRAY_LENGTH": (lambda v: len(v) if type(v) is list else UNDEFINED, (1,)),
    "ARRAY_CONTAINS": (_array_contains, (2, 3)),
    "CONTAINS": (_contains, (2, 3)),
    "STARTSWITH": (_startswith, (2, 3)),
    "ENDSWITH": (_endswith, (2, 3)),
    "LOWER": (_string1(str.lower), (1,)),
    "UPPER": (_string1(str.upper), (1,)),
    "LENGTH": (_string1(len), (1,)),
    "LTRIM": (_string1(str.lstrip), (1,)),
    "RTRIM": (_string1(str.rstrip), (1,)),
    "TRIM": (_string1(str.strip), (1,)),
    "CONCAT": (_concat_all, (2, 3, 4, 5, 6, 7, 8)),
    "SUBSTRING": (_substring, (3,)),
    "INDEX_OF": (_index_of, (2, 3)),
    "REPLACE": (_replace, (3,)),
    "TOSTRING": (_to_string, (1,)),
    "ABS": (_num1(abs), (1,)),
    "FLOOR": (_num1(math.floor), (1,)),
    "CEILING": (_num1(math.ceil), (1,)),
    "ROUND": (_num1(lambda v: math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)), (1,)),
}


# -- aggregates ---------------------------------------------------------------------------


class Accumulator:
    """One aggregate over the rows of a group."""

    def add(self, value: Any) -> None:
        raise NotImplementedError

    def result(self) -> Any:
        raise NotImplementedError


class CountAcc(Accumulator):
    def __init__(self) -> None:
        self.n = 0

    def add(self, value: Any) -> None:
        if value is not UNDEFINED:
            self.n += 1

    def result(self) -> Any:
        return self.n


class SumAcc(Accumulator):
    """SUM / AVG: numbers only; any other defined value makes the result undefined."""

    def __init__(self, average: bool) -> None:
        self.average = average
        self.total: float | int = 0
        self.n = 0
        self.poisoned = False

    def add(self, value: Any) -> None:
        if value is UNDEFINED:
            return
        if not is_number(value):
            self.poisoned = True
            return
        self.total += value
        self.n += 1

    def result(self) -> Any:
        if self.poisoned or self.n == 0:
            return UNDEFINED  # as on Cosmos: an aggregate over nothing has no value
        if self.average:
            return to_json_number(self.total / self.n)
        return to_json_number(self.total)


class ExtremeAcc(Accumulator):
    """MIN / MAX in the cross-type order; arrays and objects make it undefined."""

    def __init__(self, largest: bool) -> None:
        self.largest = largest
        self.best: Any = UNDEFINED
        self.best_key: tuple[Any, ...] | None = None
        self.poisoned = False

    def add(self, value: Any) -> None:
        if value is UNDEFINED:
            return
        if rank(value) >= RANK_ARRAY:
            self.poisoned = True
            return
        key = sort_key(value)
        if (
            self.best_key is None
            or (self.largest and key > self.best_key)
            or (not self.largest and key < self.best_key)
        ):
            self.best, self.best_key = value, key

    def result(self) -> Any:
        return UNDEFINED if self.poisoned else self.best


class CountIfAcc(Accumulator):
    """COUNTIF(condition): the rows whose condition is exactly true."""

    def __init__(self) -> None:
        self.n = 0

    def add(self, value: Any) -> None:
        if value is True:
            self.n += 1

    def result(self) -> Any:
        return self.n


def new_accumulator(name: str) -> Accumulator:
    if name == "COUNT":
        return CountAcc()
    if name == "COUNTIF":
        return CountIfAcc()
    if name in ("SUM", "AVG"):
        return SumAcc(average=name == "AVG")
    return ExtremeAcc(largest=name == "MAX")


# -- the compiler -------------------------------------------------------------------------


class Compiler:
    """Compiles the expressions of one query for one parameter set."""

    def __init__(
        self, alias: str, params: Mapping[str, Any], search: SearchContext | None = None
    ) -> None:
        self.alias = alias
        self.params = params
        self.agg_slots: dict[Call, int] = {}
        self.search = search  # the container's vector and full-text policies

    def compile_order(self, expr: Expr) -> Fn:
        """An ORDER BY item: a VectorDistance there ranks through the vector index."""
        if isinstance(expr, Call) and expr.name == search.VECTOR:
            args = [self.compile(a) for a in expr.args]
            return search.compile_call(
                self.search, self.alias, expr, args, self.constant, ordering=True
            )
        return self.compile(expr)

    def param(self, name: str) -> Any:
        if name not in self.params:
            raise SqlError(f"The parameter '{name}' was not supplied.")
        return self.params[name]

    def constant(self, expr: Expr) -> Any:
        """The value of a literal or parameter (TOP / OFFSET / LIMIT operands)."""
        if isinstance(expr, Literal):
            return expr.value
        if isinstance(expr, Param):
            return self.param(expr.name)
        raise SqlError("expected a literal or a parameter")

    def aggregate_slot(self, call: Call) -> int:
        if call not in self.agg_slots:
            self.agg_slots[call] = len(self.agg_slots)
        return self.agg_slots[call]

    def compile(self, expr: Expr) -> Fn:
        if isinstance(expr, Literal):
            value = expr.value
            return lambda row, aggs: value
        if isinstance(expr, Param):
            value = self.param(expr.name)
            return lambda row, aggs: value
        if isinstance(expr, Ident):
            if expr.name != self.alias:
                raise SqlError(f"Identifier '{expr.name}' could not be resolved.")
            return lambda row, aggs: row
        path = property_path(expr, self.alias)
        if path is not None:
            return self._path(path)
        if isinstance(expr, Member):
            base = self.compile(expr.base)
            name = expr.name
            return lambda row, aggs: get_path(base(row, aggs), (name,))
        if isinstance(expr, Index):
            base = self.compile(expr.base)
            index = self.compile(expr.index)

            def dynamic_index(row: Any, aggs: Any) -> Any:
                key = index(row, aggs)
                if isinstance(key, bool) or not isinstance(key, int | str):
                    return UNDEFINED
                return get_path(base(row, aggs), (key,))

            return dynamic_index
        if isinstance(expr, Unary):
            return self._unary(expr)
        if isinstance(expr, Binary):
            return self._binary(expr)
        if isinstance(expr, Ternary):
            cond, then, other = map(self.compile, (expr.cond, expr.then, expr.other))
            return lambda row, aggs: (
                then(row, aggs) if cond(row, aggs) is True else other(row, aggs)
            )
        if isinstance(expr, In):
            return self._in(expr)
        if isinstance(expr, Between):
            value, low, high = map(self.compile, (expr.value, expr.low, expr.high))
            ge, le = _BINARY[">="], _BINARY["<="]
            negated = expr.negated

            def between(row: Any, aggs: Any) -> Any:
                v = value(row, aggs)
                result = _truth_and(ge(v, low(row, aggs)), le(v, high(row, aggs)))
                return _truth_not(result) if negated else result

            return between
        if isinstance(expr, Call):
            return self._call(expr)
        if isinstance(expr, ObjectLit):
            entries = [(key, self.compile(value)) for key, value in expr.entries]

            def build_object(row: Any, aggs: Any) -> Any:
                out = {}
                for key, fn in entries:
                    v = fn(row, aggs)
                    if v is not UNDEFINED:
                        out[key] = v
                return out

            return build_object
        if isinstance(expr, ArrayLit):
            items = [self.compile(item) for item in expr.items]

            def build_array(row: Any, aggs: Any) -> Any:
                return [v for v in (fn(row, aggs) for fn in items) if v is not UNDEFINED]

            return build_array
        raise SqlError(f"unsupported expression {type(expr).__name__}")

    def _path(self, path: tuple[str | int, ...]) -> Fn:
        if len(path) == 1 and type(path[0]) is str:
            name = path[0]
            return lambda row, aggs: row.get(name, UNDEFINED) if type(row) is dict else UNDEFINED
        return lambda row, aggs: get_path(row, path)

    def _unary(self, expr: Unary) -> Fn:
        operand = self.compile(expr.operand)
        if expr.op == "NOT":
            return lambda row, aggs: _truth_not(operand(row, aggs))
        if expr.op == "-":

            def negate(row: Any, aggs: Any) -> Any:
                v = operand(row, aggs)
                return -v if is_number(v) else UNDEFINED

            return negate
        if expr.op == "~":

            def invert(row: Any, aggs: Any) -> Any:
                v = operand(row, aggs)
                return ~int(v) if is_number(v) else UNDEFINED

            return invert

        def plus(row: Any, aggs: Any) -> Any:
            v = operand(row, aggs)
            return v if is_number(v) else UNDEFINED

        return plus

    def _binary(self, expr: Binary) -> Fn:
        left = self.compile(expr.left)
        right = self.compile(expr.right)
        if expr.op == "AND":

            def conj(row: Any, aggs: Any) -> Any:
                a = left(row, aggs)
                if a is False:
                    return False
                return _truth_and(a, right(row, aggs))

            return conj
        if expr.op == "OR":

            def disj(row: Any, aggs: Any) -> Any:
                a = left(row, aggs)
                if a is True:
                    return True
                return _truth_or(a, right(row, aggs))

            return disj
        if expr.op == "??":
            return lambda row, aggs: _coalesce(left(row, aggs), right(row, aggs))
        op = _BINARY[expr.op]
        return lambda row, aggs: op(left(row, aggs), right(row, aggs))

    def _in(self, expr: In) -> Fn:
        needle = self.compile(expr.needle)
        options = [self.compile(o) for o in expr.options]
        negated = expr.negated

        def member_of(row: Any, aggs: Any) -> Any:
            v = needle(row, aggs)
            result: Any = False
            for option in options:
                result = _truth_or(result, equals(v, option(row, aggs)))
                if result is True:
                    break
            return _truth_not(result) if negated else result

        return member_of

    def _call(self, expr: Call) -> Fn:
        if expr.is_aggregate:
            if len(expr.args) != 1:
                raise SqlError(f"The aggregate function '{expr.name}' takes one argument.")
            slot = self.aggregate_slot(expr)

            def aggregate_value(row: Any, aggs: Any) -> Any:
                if aggs is None:
                    raise SqlError("aggregate outside an aggregate query")
                return aggs[slot]

            return aggregate_value
        if expr.name in search.SEARCH_FUNCTIONS:
            args = [self.compile(a) for a in expr.args]
            return search.compile_call(self.search, self.alias, expr, args, self.constant)
        found = SCALAR_FUNCTIONS.get(expr.name)
        if found is None:
            raise SqlError(f"'{expr.name}' is not a recognized built-in function name.")
        fn, arities = found
        if len(expr.args) not in arities:
            raise SqlError(
                f"The {expr.name} function requires {' or '.join(map(str, arities))} argument(s)."
            )
        args = [self.compile(a) for a in expr.args]
        if len(args) == 1:
            only = args[0]
            return lambda row, aggs: fn(only(row, aggs))
        return lambda row, aggs: fn(*(a(row, aggs) for a in args))


def output_names(query: Query) -> list[str]:
    """The property names of a ``SELECT a, b …`` row: aliases, the last member name of a
    path, the alias itself for a bare ``c``, and ``$1``, ``$2`` … for the rest."""
    names: list[str] = []
    unnamed = 0
    for item in query.select_items:
        if item.alias is not None:
            name = item.alias
        elif isinstance(item.expr, Member | Ident):
            name = item.expr.name
        else:
            unnamed += 1
            name = f"${unnamed}"
        if name in names:
            raise SqlError(f"Duplicate select-list property name '{name}'.")
        names.append(name)
    return names


def compile_projection(query: Query, compiler: Compiler) -> Fn:
    """The row a query returns for one document (or group): UNDEFINED drops the row."""
    if query.select_star:
        return lambda row, aggs: row
    if query.select_value is not None:
        return compiler.compile(query.select_value)
    names = output_names(query)
    fns = [compiler.compile(item.expr) for item in query.select_items]
    pairs = list(zip(names, fns, strict=True))

    def build_row(row: Any, aggs: Any) -> Any:
        out = {}
        for name, fn in pairs:
            v = fn(row, aggs)
            if v is not UNDEFINED:
                out[name] = v
        return out

    return build_row
