"""Vector and full-text search in the fake: VectorDistance, FullTextScore, RRF, ORDER BY RANK.

What the service documents (learn: VectorDistance, FullTextScore, ORDER BY RANK, RRF):

* ``VectorDistance(a, b[, bruteForce[, options]])`` scores two vectors with the
  distance function of the container's vector embedding policy for the path (options'
  ``distanceFunction`` overrides it); cosine and dot product rank larger first,
  euclidean smaller first. A value that is not a one-dimensional numeric array gives no
  score (undefined), and so — an assumption, see ``docs/azure-assumptions.md`` — does a
  vector whose length is not the policy's ``dimensions``. ``ORDER BY VectorDistance``
  ranks closest first whatever direction is written, and leaves out items without a
  score.
* ``FullTextScore(path, term, …)`` is a BM25 score, allowed only in ``ORDER BY RANK``
  or as an argument of ``RRF``, never projected; it needs the path in the container's
  full-text policy. ``ORDER BY RANK`` needs a scoring function.
* Ranked queries are served through the SDK's hybrid search pipeline: the gateway's
  query plan carries a global statistics query and one component query per scoring
  function (``_FullTextScore`` with the statistics filled in, ``_VectorScore``); the SDK
  fuses the components' ranks itself (RRF, constant 60 in azure-cosmos' source).

**Approximate index** (``vector_quantum`` on a container, a fixture option): without
brute force, VectorDistance scores (and so ranks) vectors rounded to multiples of the
quantum (the query's and the item's), as a quantised index does. The order can then
differ from the exact order, deterministically, so recall@k < 1 is testable;
``VectorDistance(…, true)`` always reads the vectors themselves.

Text analysis is the fake's own: lower-cased runs of letters and digits, no stemming,
no stop words. BM25 with k1 = 1.2, b = 0.75 over the statistics the SDK gathers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.fake_cosmos.sql_ast import Call, Expr, Literal, ObjectLit, Query, property_path, walk
from tests.fake_cosmos.sql_parser import SqlError
from tests.fake_cosmos.values import UNDEFINED, is_number

VECTOR = "VECTORDISTANCE"
VECTOR_SCORE = "_VECTORSCORE"  # the component query's spelling (hybrid plans)
TEXT = "FULLTEXTSCORE"
TEXT_SCORE = "_FULLTEXTSCORE"  # with the global statistics filled in
RRF = "RRF"
CONTAINS = "FULLTEXTCONTAINS"
WORD_COUNT = "_FULLTEXTWORDCOUNT"
SCORING = frozenset({VECTOR, TEXT, RRF})
SEARCH_FUNCTIONS = frozenset({VECTOR, VECTOR_SCORE, TEXT, TEXT_SCORE, RRF, CONTAINS, WORD_COUNT})
K1, B = 1.2, 0.75

Fn = Callable[[Any, Any], Any]
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


class SearchError(SqlError):
    """A search query the service refuses (400)."""


@dataclass(frozen=True)
class VectorPolicy:
    distance: str  # cosine, dotproduct, euclidean (lower case)
    dimensions: int | None


@dataclass
class SearchContext:
    """A container's vector and full-text policies, as the query engine reads them."""

    vectors: dict[tuple[str | int, ...], VectorPolicy] = field(default_factory=dict)
    text_paths: set[tuple[str | int, ...]] = field(default_factory=set)
    quantum: float | None = None  # the approximate index's rounding (None: exact)

    @classmethod
    def of(cls, extra: Mapping[str, Any], quantum: float | None = None) -> SearchContext:
        vectors: dict[tuple[str | int, ...], VectorPolicy] = {}
        policy = extra.get("vectorEmbeddingPolicy") or {}
        for entry in policy.get("vectorEmbeddings") or []:
            dims = entry.get("dimensions")
            vectors[_steps(str(entry.get("path", "")))] = VectorPolicy(
                str(entry.get("distanceFunction", "cosine")).lower(),
                dims if isinstance(dims, int) else None,
            )
        text = extra.get("fullTextPolicy") or {}
        paths = {_steps(str(e.get("path", ""))) for e in text.get("fullTextPaths") or []}
        return cls(vectors, paths, quantum)

    def distance_of(self, call: Call, alias: str, options: Any = None) -> str:
        if isinstance(options, dict) and isinstance(options.get("distanceFunction"), str):
            return str(options["distanceFunction"]).lower()
        path = property_path(call.args[0], alias) if call.args else None
        policy = self.vectors.get(path) if path is not None else None
        return policy.distance if policy is not None else "cosine"

    def dimensions_of(self, call: Call, alias: str) -> int | None:
        path = property_path(call.args[0], alias) if call.args else None
        policy = self.vectors.get(path) if path is not None else None
        return policy.dimensions if policy is not None else None


def _steps(path: str) -> tuple[str | int, ...]:
    return tuple(int(p) if p.isdigit() else p for p in path.strip("/").split("/") if p)


def words(text: Any) -> list[str]:
    return _WORD.findall(text.lower()) if isinstance(text, str) else []


def larger_is_closer(distance: str) -> bool:
    return distance != "euclidean"


# -- scores ---------------------------------------------------------------------------------


def _vector(value: Any) -> list[float] | None:
    if type(value) is not list or not value:
        return None
    if not all(is_number(x) for x in value):
        return None  # a nested (multi-dimensional) array or mixed values: no score
    return [float(x) for x in value]


def vector_distance(
    a: Any, b: Any, distance: str, dimensions: int | None, quantum: float | None = None
) -> Any:
    left, right = _vector(a), _vector(b)
    if left is None or right is None or len(left) != len(right):
        return UNDEFINED
    if dimensions is not None and len(left) != dimensions:
        return UNDEFINED
    if quantum:
        left = [round(x / quantum) * quantum for x in left]
        right = [round(x / quantum) * quantum for x in right]
    if distance == "euclidean":
        return math.sqrt(math.fsum((x - y) ** 2 for x, y in zip(left, right, strict=True)))
    dot = math.fsum(x * y for x, y in zip(left, right, strict=True))
    if distance == "dotproduct":
        return dot
    norms = math.sqrt(math.fsum(x * x for x in left)) * math.sqrt(math.fsum(y * y for y in right))
    return dot / norms if norms else 0.0


def contains_term(text: Any, term: Any) -> bool:
    wanted = words(term)
    if not wanted:
        return False
    have = set(words(text))
    return all(w in have for w in wanted)


def bm25(text: Any, terms: list[Any], documents: Any, total_words: Any, hits: Any) -> Any:
    """BM25 of ``text`` for ``terms`` over the corpus statistics the SDK gathered."""
    tokens = words(text)
    if not tokens:
        return UNDEFINED
    n = float(documents) if is_number(documents) and documents > 0 else 1.0
    average = float(total_words) / n if is_number(total_words) and total_words > 0 else 1.0
    counts: dict[str, int] = {}
    for token in tokens:
        counts[token] = counts.get(token, 0) + 1
    score = 0.0
    for i, term in enumerate(terms):
        matched = words(term)
        if not matched:
            continue
        tf = min(counts.get(w, 0) for w in matched)
        if tf == 0:
            continue
        df = hits[i] if isinstance(hits, list) and i < len(hits) and is_number(hits[i]) else 1
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(tokens) / average))
    return score if score > 0 else UNDEFINED


# -- compiling the calls ---------------------------------------------------------------------


def compile_call(
    search: SearchContext | None,
    alias: str,
    call: Call,
    args: list[Fn],
    constant: Callable[[Expr], Any],
    *,
    ordering: bool = False,
) -> Fn:
    """The closure of one search function. ``ordering``: the call is an ORDER BY item, so
    a non-brute-force VectorDistance ranks through the approximate index when there is one."""
    context = search or SearchContext()
    name = call.name
    if name in (VECTOR, VECTOR_SCORE):
        if not 2 <= len(args) <= 4:
            raise SearchError(f"The {name} function requires 2 to 4 argument(s).")
        options = _options(call, constant)
        distance = context.distance_of(call, alias, options)
        if distance not in ("cosine", "dotproduct", "euclidean"):
            raise SearchError(f"Unknown distance function '{distance}' in VectorDistance.")
        dims = context.dimensions_of(call, alias)
        brute = len(call.args) > 2 and _literal_true(call.args[2], constant)
        # Without brute force the index answers, scores included (a quantised index
        # scores by its quantised vectors); bruteForce true reads the vectors themselves.
        quantum = None if brute else context.quantum
        a, b = args[0], args[1]
        last: list[Any] = [None, UNDEFINED]  # the row last scored and its score

        def score(row: Any, aggs: Any) -> Any:
            # ORDER BY asks twice per row (the filter that drops unscored rows, the sort
            # key): a long vector is scored once. ``last`` holds the row, so ``is`` is exact.
            if row is not last[0]:
                last[0] = row
                last[1] = vector_distance(a(row, aggs), b(row, aggs), distance, dims, quantum)
            return last[1]

        return score
    if name == CONTAINS:
        if len(args) != 2:
            raise SearchError("The FullTextContains function requires 2 argument(s).")
        _check_text_path(context, alias, call)
        text, term = args
        return lambda row, aggs: contains_term(text(row, aggs), term(row, aggs))
    if name == WORD_COUNT:
        if len(args) != 1:
            raise SearchError("The _FullTextWordCount function requires 1 argument(s).")
        only = args[0]
        return lambda row, aggs: len(words(only(row, aggs)))
    if name == TEXT_SCORE:
        if len(args) != 5:
            raise SearchError("The _FullTextScore function requires 5 argument(s).")
        text, terms, docs, total, hits = args

        def score(row: Any, aggs: Any) -> Any:
            wanted = terms(row, aggs)
            wanted = wanted if isinstance(wanted, list) else [wanted]
            return bm25(text(row, aggs), wanted, docs(row, aggs), total(row, aggs), hits(row, aggs))

        return score
    # FullTextScore and RRF are served only through the query plan (see check_query)
    raise SearchError(
        f"The {'FullTextScore' if name == TEXT else 'RRF'} function is only allowed in the "
        "ORDER BY RANK clause or as an argument of RRF."
    )


def _options(call: Call, constant: Callable[[Expr], Any]) -> Any:
    if len(call.args) < 4:
        return None
    node = call.args[3]
    if isinstance(node, ObjectLit):
        return {k: v.value for k, v in node.entries if isinstance(v, Literal)}
    try:
        return constant(node)
    except Exception:
        raise SearchError("VectorDistance's options must be a constant object.") from None


def _literal_true(node: Expr, constant: Callable[[Expr], Any]) -> bool:
    try:
        value = constant(node)
    except Exception:
        raise SearchError("VectorDistance's bruteForce argument must be a constant.") from None
    if not isinstance(value, bool):
        raise SearchError("VectorDistance's bruteForce argument must be a boolean.")
    return value


def _check_text_path(context: SearchContext, alias: str, call: Call) -> None:
    path = property_path(call.args[0], alias) if call.args else None
    if path is None or path not in context.text_paths:
        shown = "/" + "/".join(str(p) for p in path) if path else "the first argument"
        raise SearchError(
            f"The path {shown} of {call.name} is not in the container's full-text policy "
            "(fullTextPolicy.fullTextPaths); full-text search needs it there and indexed."
        )


# -- what a query may say ----------------------------------------------------------------------


def ranked(query: Query) -> bool:
    """ORDER BY RANK: served only through the SDK's hybrid search pipeline."""
    return any(o.rank for o in query.order_by)


def vector_order(query: Query) -> Call | None:
    """The VectorDistance an ORDER BY (not RANK) ranks by, if any: a non-streaming ORDER BY."""
    for item in query.order_by:
        if not item.rank and isinstance(item.expr, Call) and item.expr.name == VECTOR:
            return item.expr
    return None


def check_query(query: Query, search: SearchContext | None, alias: str) -> None:
    """Refuse what the service refuses in a search query (raises SearchError)."""
    context = search or SearchContext()
    clauses: list[Expr] = []
    if query.select_value is not None:
        clauses.append(query.select_value)
    clauses += [i.expr for i in query.select_items]
    if query.where is not None:
        clauses.append(query.where)
    for clause in clauses:
        for node in walk(clause):
            if isinstance(node, Call) and node.name in (TEXT, RRF):
                raise SearchError(
                    f"The {'FullTextScore' if node.name == TEXT else 'RRF'} function is only "
                    "allowed in the ORDER BY RANK clause or as an argument of RRF; it cannot "
                    "be part of a projection or a filter."
                )
    for item in query.order_by:
        expr = item.expr
        scoring = isinstance(expr, Call) and expr.name in SCORING
        if item.rank and not scoring:
            raise SearchError(
                "ORDER BY RANK requires a scoring function (VectorDistance, FullTextScore or RRF)."
            )
        if not item.rank and isinstance(expr, Call) and expr.name in (TEXT, RRF):
            raise SearchError(f"{expr.name} can only be ordered by with ORDER BY RANK.")
        if item.rank and len(query.order_by) > 1:
            raise SearchError("ORDER BY RANK takes exactly one scoring function.")
        if item.rank:
            assert isinstance(expr, Call)
            for part in components(expr):
                if part.name == TEXT:
                    if len(part.args) < 2:
                        raise SearchError("FullTextScore requires a path and at least one term.")
                    _check_text_path(context, alias, part)
    for node in [n for c in clauses for n in walk(c)]:
        if isinstance(node, Call) and node.name == CONTAINS:
            _check_text_path(context, alias, node)


def components(expr: Call) -> list[Call]:
    """The scoring functions of a RANK expression (RRF's arguments, or the one function)."""
    if expr.name != RRF:
        return [expr]
    parts = [a for a in expr.args if isinstance(a, Call)]
    if not parts or any(p.name not in (VECTOR, TEXT) for p in parts):
        raise SearchError("RRF takes VectorDistance and FullTextScore arguments (and weights).")
    return parts


def rrf_weights(expr: Call, constant: Callable[[Expr], Any]) -> list[float]:
    """RRF's optional last argument, an array of component weights ([] when absent)."""
    if expr.name != RRF or not expr.args or isinstance(expr.args[-1], Call):
        return []
    value = constant(expr.args[-1]) if not hasattr(expr.args[-1], "items") else None
    if value is None:
        items = getattr(expr.args[-1], "items", ())
        value = [constant(i) for i in items]
    if not isinstance(value, list) or not all(is_number(w) for w in value):
        raise SearchError("RRF's weights must be an array of numbers.")
    return [float(w) for w in value]
