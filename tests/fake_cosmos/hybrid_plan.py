"""The gateway's plan for an ``ORDER BY RANK`` query: ``hybridSearchQueryInfo``.

The shape is the one azure-cosmos' hybrid search pipeline reads
(``_execution_context/aio/hybrid_search_aggregator.py``) and the .NET SDK's query plan
baselines show: a global statistics query (run on every range: item count, words and
per-term hit counts of each full-text path), and one component query per scoring
function, ``SELECT TOP n c._rid, [{"item": <score>}] AS orderByItems, {"payload": <row>,
"componentScores": [...]} AS payload FROM c WHERE ({filter}) … ORDER BY <score>``, whose
placeholders the SDK fills with the statistics before it sends them range by range.
The SDK then fuses the ranks (RRF) itself. ``n`` is 12 × (skip + take): the service's
own choice is not documented; the .NET baselines show 120 for a TOP 10.
"""

from __future__ import annotations

from typing import Any

from tests.fake_cosmos import search
from tests.fake_cosmos.sql_ast import Call, Query
from tests.fake_cosmos.sql_eval import Compiler, output_names
from tests.fake_cosmos.sql_text import expr_text, literal

TOTAL_DOCS = "{documentdb-formattablehybridsearchquery-totaldocumentcount}"
FILTER = "{documentdb-formattableorderbyquery-filter}"
COMPONENT_TOP_FACTOR = 12
_WORST = "1.79769e+308"


def _word_count(i: int) -> str:
    return "{documentdb-formattablehybridsearchquery-totalwordcount-" + str(i) + "}"


def _hit_counts(i: int) -> str:
    return "{documentdb-formattablehybridsearchquery-hitcountsarray-" + str(i) + "}"


def _payload(query: Query) -> str:
    if query.select_star:
        return query.from_alias
    if query.select_value is not None:
        return expr_text(query.select_value)
    names = output_names(query)
    entries = [
        f"{literal(n)}: {expr_text(i.expr)}" for n, i in zip(names, query.select_items, strict=True)
    ]
    return "{" + ", ".join(entries) + "}"


def hybrid_info(query: Query, compiler: Compiler, context: Any) -> dict[str, Any]:
    ctx = context or search.SearchContext()
    alias = query.from_alias
    rank = query.order_by[0].expr
    assert isinstance(rank, Call)
    parts = search.components(rank)
    weights = search.rrf_weights(rank, compiler.constant)
    take = compiler.constant(query.top) if query.top is not None else None
    skip = None
    if query.limit is not None:
        take = compiler.constant(query.limit)
        skip = compiler.constant(query.offset) if query.offset is not None else None
    scores: list[str] = []
    directions: list[str] = []
    worst: list[str] = []
    statistics: list[str] = []
    text_index = 0
    for n, part in enumerate(parts):
        flip = n < len(weights) and weights[n] < 0
        if part.name == search.TEXT:
            path = expr_text(part.args[0])
            terms = [expr_text(t) for t in part.args[1:]]
            i = text_index
            text_index += 1
            scores.append(
                f"_FullTextScore({path}, [{', '.join(terms)}], {TOTAL_DOCS}, "
                f"{_word_count(i)}, {_hit_counts(i)})"
            )
            hits = ", ".join(f"COUNTIF(FullTextContains({path}, {t}))" for t in terms)
            # SUM over a range with no text has no value (in the fake as on Cosmos) and
            # the SDK adds the ranges' totals up: this plan says 0 there (the service's
            # own text, per the .NET baselines, has the bare SUM).
            statistics.append(
                f'{{"totalWordCount": (SUM(_FullTextWordCount({path})) ?? 0), '
                f'"hitCounts": [{hits}]}}'
            )
            descending, bad = True, "-1"
        else:
            scores.append(f"_VectorScore({', '.join(expr_text(a) for a in part.args)})")
            descending = search.larger_is_closer(ctx.distance_of(part, alias, None))
            bad = f"-{_WORST}" if descending else _WORST
        if flip:
            descending = not descending
        directions.append("Descending" if descending else "Ascending")
        worst.append(bad)
    component_scores = ", ".join(f"({s} ?? {w})" for s, w in zip(scores, worst, strict=True))
    where = f"({FILTER})"
    if query.where is not None:
        where += f" AND ({expr_text(query.where)})"
    top = None if take is None else COMPONENT_TOP_FACTOR * ((skip or 0) + take)
    infos = []
    for score, direction in zip(scores, directions, strict=True):
        text = (
            f"SELECT {'' if top is None else f'TOP {top} '}{alias}._rid, "
            f'[{{"item": {score}}}] AS orderByItems, '
            f'{{"payload": {_payload(query)}, "componentScores": [{component_scores}]}} '
            f"AS payload FROM {query.from_name or alias} {alias} WHERE {where} "
            f"ORDER BY {score} {'DESC' if direction == 'Descending' else 'ASC'}"
        )
        infos.append(
            {
                "distinctType": "None",
                "top": top,
                "offset": None,
                "limit": None,
                "orderBy": [direction],
                "orderByExpressions": [score],
                "groupByExpressions": [],
                "groupByAliases": [],
                "aggregates": [],
                "groupByAliasToAggregateType": {},
                "rewrittenQuery": text,
                "hasSelectValue": False,
                "dCountInfo": None,
                "hasNonStreamingOrderBy": True,
            }
        )
    stats_query = (
        f"SELECT COUNT(1) AS documentCount, [{', '.join(statistics)}] AS fullTextStatistics "
        f"FROM {query.from_name or alias} {alias}"
    )
    return {
        "globalStatisticsQuery": stats_query,
        "componentQueryInfos": infos,
        "componentWithoutPayloadQueryInfos": [],
        "projectionQueryInfo": None,
        "componentWeights": [abs(w) for w in weights],
        "skip": skip,
        "take": take,
        "requiresGlobalStatistics": text_index > 0,
    }
