"""One ``MetricQuery`` → one getBatch call (``MetricsClient.query_resources``) → ``Series``.

The call asks for the query's metrics over its span (tz-aware start and end, never a
``timedelta``: that would be measured on this machine's clock), at its grain, with its
one aggregation and one dimension filter in the getBatch grammar: ``Name eq 'value'``
pins a dimension, ``Name eq '*'`` splits by it. Azure answers at most ``top`` series per
metric (10 unless asked): a split asks for more, and an answer that fills the limit is
marked PARTIAL — a silently short list is worse than an error.

Each timeseries becomes one ``Series``: dimension names lower-cased and sorted, one
point per grain bucket with the requested aggregation, ``None`` where a bucket is empty.
A query at ``database_level`` is filtered by its database alone: a shared offer's
metrics exist only at database granularity. The answer's ``resource_region`` (where
Azure Monitor says the data is kept) goes back to the caller, which checks it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from azure.monitor.querymetrics import MetricsQueryResult

from cosmem_tui.model.telemetry import (
    COLLECTION,
    DATABASE,
    MetricPoint,
    MetricQuery,
    ProblemKind,
    Series,
    Span,
    TelemetryProblem,
)
from cosmem_tui.sources.monitor.calls import MonitorCalls
from cosmem_tui.sources.monitor.clients import MonitorClients
from cosmem_tui.sources.monitor.failures import MonitorFailure, Service
from cosmem_tui.sources.monitor.settings import NAMESPACE

# The aggregations getBatch knows, by the MetricValue attribute that carries each.
AGGREGATIONS = {
    "total": ("Total", "total"),
    "count": ("Count", "count"),
    "maximum": ("Maximum", "maximum"),
    "minimum": ("Minimum", "minimum"),
    "average": ("Average", "average"),
}
SPLIT_MAX_RESULTS = 500  # series per metric when a query splits and names no limit
_DIMENSION = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _rejected(message: str) -> MonitorFailure:
    return MonitorFailure(
        ProblemKind.QUERY_ERROR, message, "this query is the console's: report it"
    )


def _dimension(name: str) -> str:
    if not _DIMENSION.match(name):
        raise _rejected(f"{name!r} is not a metric dimension name")
    return name


def quote(value: str) -> str:
    """A dimension value in the filter grammar: quotes doubled, and ``(``, ``)`` and
    ``%`` written the way getBatch wants them (``%2528``, ``%2529``, ``%2525``)."""
    if not value.isprintable():
        raise _rejected(f"cannot filter metrics by a value with control characters: {value!r}")
    text = value.replace("%", "%2525").replace("(", "%2528").replace(")", "%2529")
    return "'" + text.replace("'", "''") + "'"


def filter_text(query: MetricQuery, database: str | None, container: str | None) -> str | None:
    """The dimension filter of ``query`` (None: no filter, one series per metric)."""
    clauses = []
    if database:
        clauses.append(f"{DATABASE} eq {quote(database)}")
    if container:
        clauses.append(f"{COLLECTION} eq {quote(container)}")
    clauses += [f"{_dimension(name)} eq {quote(value)}" for name, value in query.where]
    clauses += [f"{_dimension(name)} eq '*'" for name in query.split]
    return " and ".join(clauses) or None


def max_results(query: MetricQuery, filter: str | None) -> int | None:
    """``top`` for the call: only with a filter; raised above Azure's 10 for a split."""
    if filter is None:
        return None
    if query.max_results is not None:
        return query.max_results
    return SPLIT_MAX_RESULTS if query.split else None


def span_datetimes(span: Span) -> tuple[datetime, datetime]:
    return datetime.fromtimestamp(span.start, UTC), datetime.fromtimestamp(span.end, UTC)


def check(query: MetricQuery) -> str:
    """The aggregation's attribute name; raises for a query that cannot be sent."""
    if not query.metrics:
        raise _rejected("a metrics query needs at least one metric")
    if query.grain_s <= 0 or query.span.end <= query.span.start:
        raise _rejected(f"grain {query.grain_s} s over {query.span} is not a valid window")
    if query.aggregation.lower() not in AGGREGATIONS:
        raise _rejected(f"unknown aggregation {query.aggregation!r}")
    if query.max_results is not None and query.max_results <= 0:
        raise _rejected(f"max_results must be positive, not {query.max_results}")
    return AGGREGATIONS[query.aggregation.lower()][1]


def on_grid(points: list[MetricPoint], span: Span, grain_s: int) -> tuple[MetricPoint, ...]:
    """One point per grain bucket over the span (``None`` for a bucket Azure left out),
    when Azure's buckets sit on the grain; otherwise its points exactly as sent."""
    if any(p.at % grain_s for p in points):
        return tuple(sorted(points, key=lambda p: p.at))
    by_time = {p.at: p for p in points}
    first = math.floor(span.start / grain_s) * grain_s
    grid = [float(at) for at in range(int(first), math.ceil(span.end), grain_s)]
    filled = [by_time.pop(at, MetricPoint(at, None)) for at in grid]
    return tuple(sorted([*filled, *by_time.values()], key=lambda p: p.at))


def to_series(
    query: MetricQuery, results: Sequence[MetricsQueryResult], attribute: str
) -> tuple[Series, ...]:
    series = []
    for result in results:
        for metric in result.metrics:
            for element in metric.timeseries:
                dimensions = tuple(
                    sorted((str(k).lower(), str(v)) for k, v in element.metadata_values.items())
                )
                points = []
                for value in element.data:
                    raw: Any = getattr(value, attribute, None)
                    points.append(
                        MetricPoint(
                            value.timestamp.timestamp(), None if raw is None else float(raw)
                        )
                    )
                series.append(
                    Series(
                        metric=str(metric.name),
                        aggregation=query.aggregation,
                        unit=str(metric.unit or ""),
                        dimensions=dimensions,
                        points=on_grid(points, query.span, query.grain_s),
                    )
                )
    return tuple(series)


def cut_short(query: MetricQuery, series: Sequence[Series], top: int | None) -> str | None:
    """The metric whose series filled ``top`` (more may exist), if any."""
    if top is None:
        return None
    for metric in query.metrics:
        if sum(1 for s in series if s.metric.lower() == metric.lower()) >= top:
            return metric
    return None


async def query_metrics(
    query: MetricQuery,
    *,
    calls: MonitorCalls,
    clients: MonitorClients,
    region: str | None,
    resource_id: str,
    database: str | None,
    container: str | None,
) -> tuple[tuple[Series, ...], TelemetryProblem | None, str | None]:
    """Series for ``query`` (one getBatch call), a PARTIAL problem when cut short, and
    the region Azure Monitor says the data came from (None: it did not say)."""
    attribute = check(query)
    aggregation = AGGREGATIONS[query.aggregation.lower()][0]
    filter = filter_text(
        query,
        query.database or database,
        None if query.database_level else (query.container or container),
    )
    top = max_results(query, filter)
    client = clients.metrics(region)

    async def send() -> list[MetricsQueryResult]:
        return await client.query_resources(
            resource_ids=[resource_id],
            metric_namespace=NAMESPACE,
            metric_names=list(query.metrics),
            timespan=span_datetimes(query.span),
            granularity=timedelta(seconds=query.grain_s),
            aggregations=[aggregation],
            max_results=top,
            filter=filter,
        )

    results = await calls.run(
        Service.METRICS, f"metrics: {query.name}", ", ".join(query.metrics), send
    )
    series = to_series(query, results, attribute)
    short = cut_short(query, series, top)
    problem = None
    if short is not None:
        problem = TelemetryProblem(
            ProblemKind.PARTIAL,
            f"Azure Monitor returned {top} series of {short}, the most this call asked for: "
            "more may exist",
            "ask for more (max_results) or split by fewer dimensions",
            f"metrics: {query.name}",
        )
    regions = {str(r.resource_region) for r in results if getattr(r, "resource_region", None)}
    return series, problem, (regions.pop() if len(regions) == 1 else None)
