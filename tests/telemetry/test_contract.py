"""The Telemetry contract: every source answers the same questions in the same shapes.

Runs once per backend in ``conftest.BACKENDS`` (the simulator; the Azure Monitor
source joins there), so a view never has to know which one it talks to.
"""

from __future__ import annotations

import json
import math

from cosmem_tui.model import Key, Kind, Scope
from cosmem_tui.model.telemetry import (
    LOG_COLUMNS,
    OPERATION_TYPE,
    PARTITION_KEY_RANGE,
    REGION,
    STATUS_CODE,
    TOTAL_REQUEST_UNITS,
    TOTAL_REQUESTS,
    KeyLevel,
    LogName,
    LogQuery,
    MetricQuery,
    ProblemKind,
    Span,
    ThroughputMode,
    region_key,
)
from tests.telemetry.conftest import ROW_ORDER, TelemetryBackend, console_metric_queries

LOG_QUESTIONS = [(name, level) for name in LOG_COLUMNS for level in KeyLevel]


def buckets(span: Span, grain: int) -> list[float]:
    first = math.floor(span.start / grain) * grain
    return [float(b) for b in range(first, math.ceil(span.end), grain)]


def unsupported(span: Span) -> list[MetricQuery]:
    return [
        MetricQuery("no-such-metric", ("NoSuchMetric",), "Total", 60, span),
        MetricQuery("bad-aggregation", (TOTAL_REQUESTS,), "Minimum", 60, span),
        MetricQuery(
            "bad-dimension", (TOTAL_REQUESTS,), "Count", 60, span, split=(PARTITION_KEY_RANGE,)
        ),
    ]


async def test_one_answer_per_question_in_the_order_asked(backend: TelemetryBackend):
    span = backend.busy
    metrics = console_metric_queries(span, backend.database, backend.container)
    asked = [metrics[2], *unsupported(span)[:1], metrics[0], metrics[3]]
    answers = await backend.telemetry.metrics(asked)
    assert [a.query for a in answers] == asked
    logs = [LogQuery(name, span, level=level) for name, level in LOG_QUESTIONS]
    log_answers = await backend.telemetry.logs(list(reversed(logs)))
    assert [a.query for a in log_answers] == list(reversed(logs))


async def test_series_have_one_point_per_bucket_over_the_span(backend: TelemetryBackend):
    for span in (backend.busy, Span(backend.busy.start + 17, backend.busy.end - 29)):
        answers = await backend.telemetry.metrics(
            console_metric_queries(span, backend.database, backend.container)
        )
        for answer in answers:
            assert answer.problem is None, answer.problem
            assert answer.series, answer.query.name
            expected = buckets(span, answer.query.grain_s)
            for series in answer.series:
                assert [p.at for p in series.points] == expected, answer.query.name
                assert series.metric in answer.query.metrics
                assert series.aggregation == answer.query.aggregation


async def test_empty_buckets_are_none_never_zero(backend: TelemetryBackend):
    now = backend.clock.now()
    span = Span(now - 600, now + 600)  # half of it has not happened yet
    answers = await backend.telemetry.metrics(
        console_metric_queries(span, backend.database, backend.container)
    )
    for answer in answers:
        for series in answer.series:
            for point in series.points:
                if point.at >= now:
                    assert point.value is None, (answer.query.name, point)
                if series.aggregation == "Count":
                    assert point.value != 0, (answer.query.name, point)  # no requests: None
    ru = answers[0].series[0]
    assert any(p.value for p in ru.points if p.at < now - 60), "the past has data"


async def test_dimensions_are_lower_cased_sorted_and_as_asked(backend: TelemetryBackend):
    answers = await backend.telemetry.metrics(
        console_metric_queries(backend.busy, backend.database, backend.container)
    )
    for answer in answers:
        for series in answer.series:
            names = [name for name, _ in series.dimensions]
            assert names == sorted(names)
            assert all(name == name.lower() for name in names)
            for split in answer.query.split:
                assert series.dimension(split) is not None
    by_name = {a.query.name: a for a in answers}
    throttled = by_name["throttled"].series
    assert throttled, "the busy span has 429s"
    assert {s.dimension(STATUS_CODE) for s in throttled} == {"429"}
    assert len({s.dimension(OPERATION_TYPE) for s in throttled}) == len(throttled)
    statuses = {s.dimension(STATUS_CODE) for s in by_name["requests"].series}
    assert "429" in statuses and len(statuses) >= 2


async def test_max_results_keeps_the_top_series(backend: TelemetryBackend):
    span = backend.busy
    wide, narrow = await backend.telemetry.metrics(
        [
            MetricQuery("all", (TOTAL_REQUESTS,), "Count", 60, span, split=(STATUS_CODE,)),
            MetricQuery(
                "top", (TOTAL_REQUESTS,), "Count", 60, span, split=(STATUS_CODE,), max_results=1
            ),
        ]
    )
    assert len(wide.series) > 1 and wide.problem is None
    assert len(narrow.series) == 1
    assert narrow.series[0] == max(wide.series, key=lambda s: s.total() or 0)
    # A list the limit cut short says so (a silently short list is worse than an error).
    assert narrow.problem is not None and narrow.problem.kind is ProblemKind.PARTIAL
    assert narrow.problem.about == "metrics: top"


async def test_unsupported_questions_are_answered_with_problems(backend: TelemetryBackend):
    span = backend.busy
    good = MetricQuery("ru", (TOTAL_REQUEST_UNITS,), "Total", 60, span)
    answers = await backend.telemetry.metrics([*unsupported(span), good])
    for answer in answers[:-1]:
        assert answer.series == ()
        assert answer.problem is not None and answer.problem.kind is ProblemKind.QUERY_ERROR
        assert answer.problem.about == f"metrics: {answer.query.name}"
        assert answer.problem.message
    assert "NoSuchMetric" in answers[0].problem.message  # type: ignore[union-attr]
    assert answers[-1].problem is None and answers[-1].series  # the rest of the call stands


async def test_log_tables_have_exactly_the_fixed_columns(backend: TelemetryBackend):
    questions = [LogQuery(name, backend.busy, level=level) for name, level in LOG_QUESTIONS]
    for answer in await backend.telemetry.logs(questions):
        assert answer.problem is None, answer.problem
        assert answer.table is not None
        assert answer.table.columns == LOG_COLUMNS[answer.query.name]
        assert all(len(row) == len(answer.table.columns) for row in answer.table.rows)
        assert answer.table.rows or answer.query.name.value == "throttles", answer.query


async def test_log_rows_are_cut_to_top_in_the_documented_order(backend: TelemetryBackend):
    for top in (2, 5000):
        questions = [
            LogQuery(name, backend.busy, level=level, top=top) for name, level in LOG_QUESTIONS
        ]
        for answer in await backend.telemetry.logs(questions):
            assert answer.table is not None
            records = answer.table.records()
            assert len(records) <= top
            order = ROW_ORDER[answer.query.name]
            assert records == sorted(records, key=order), answer.query


async def test_keys_are_json_array_text_at_each_level(backend: TelemetryBackend):
    tenant_rows, key_rows = await backend.telemetry.logs(
        [LogQuery(LogName.KEY_USAGE, backend.busy, level=level) for level in KeyLevel]
    )
    assert tenant_rows.table is not None and key_rows.table is not None
    tenants = [json.loads(r["Key"]) for r in tenant_rows.table.records()]
    assert tenants and all(isinstance(t, list) and len(t) == 1 for t in tenants)
    keys = [json.loads(r["Key"]) for r in key_rows.table.records()]
    assert keys and all(isinstance(k, list) and len(k) >= 1 for k in keys)
    assert {json.dumps(k[:1]) for k in keys} <= {json.dumps(t) for t in tenants}

    first = Key(tenants[0])
    (drill,) = await backend.telemetry.logs(
        [LogQuery(LogName.KEY_USAGE, backend.busy, level=KeyLevel.KEY, tenant=first)]
    )
    assert drill.table is not None and drill.table.rows
    assert all(Key.of(json.loads(r["Key"])[0]) == first for r in drill.table.records())


async def test_log_answers_say_how_fresh_they_are(backend: TelemetryBackend):
    now = backend.clock.now()
    span = Span(now - 900, now)
    for answer in await backend.telemetry.logs([LogQuery(name, span) for name in LOG_COLUMNS]):
        assert answer.as_of is not None and span.start < answer.as_of <= now


async def test_every_call_is_in_the_ledger_as_a_call_never_in_the_ru_total(
    backend: TelemetryBackend,
):
    span = backend.busy
    console = console_metric_queries(span, backend.database, backend.container)
    metrics = [*console, *unsupported(span)]
    logs = [LogQuery(name, span) for name in LOG_COLUMNS]
    with backend.ledger.caused_by("contract: throughput"):
        await backend.telemetry.metrics(metrics)
        await backend.telemetry.logs(logs)
    records = backend.ledger.records()
    assert [r.operation for r in records] == [f"metrics: {q.name}" for q in metrics] + [
        f"logs: {q.name.value}" for q in logs
    ]
    for record in records:
        assert record.unit == "call"
        assert record.kind is Kind.MONITOR
        assert record.request_units == 0
        assert record.cause == "contract: throughput"
        assert record.at == backend.clock.now()
        metrics_call = record.operation.startswith("metrics")
        assert record.scope is (Scope.METRICS if metrics_call else Scope.LOGS)
    assert [r.status for r in records[len(metrics) - 3 : len(metrics)]] == [400, 400, 400]
    totals = backend.ledger.totals()
    assert totals.request_units == 0 and totals.throttled == 0
    assert totals.monitor_calls == len(metrics) + len(logs)


async def test_the_account_names_its_regions_and_the_answers_follow_them(
    backend: TelemetryBackend,
):
    """``account`` names the regions and the write region; a split by Region names the
    same ones, a Region filter answers that region alone, and a log question asked in a
    region reads only that region's rows."""
    facts = await backend.telemetry.account(backend.database, backend.container)
    assert facts.problems == ()
    assert facts.write_region is not None and facts.write_region in facts.regions
    assert facts.offer.mode is ThroughputMode.DEDICATED and facts.offer.ru_s
    (record,) = backend.ledger.records()
    assert (record.operation, record.scope, record.unit) == ("arm: account", Scope.METADATA, "call")

    span, where = backend.busy, {"database": backend.database, "container": backend.container}
    split = MetricQuery(
        "by-region", (TOTAL_REQUEST_UNITS,), "Total", 60, span, split=(REGION,), **where
    )
    home = MetricQuery(
        "home",
        (TOTAL_REQUEST_UNITS,),
        "Total",
        60,
        span,
        where=((REGION, facts.write_region),),
        **where,
    )
    away = MetricQuery(
        "away",
        (TOTAL_REQUEST_UNITS,),
        "Total",
        60,
        span,
        where=((REGION, "Mars Central"),),
        **where,
    )
    by_region, at_home, elsewhere = await backend.telemetry.metrics([split, home, away])
    named = {region_key(s.dimension(REGION) or "") for s in by_region.series}
    assert named == {region_key(r) for r in facts.regions}
    assert at_home.series and at_home.series[0].total()
    assert elsewhere.series == () and elsewhere.problem is None

    here, there = await backend.telemetry.logs(
        [
            LogQuery(LogName.KEY_USAGE, span, region=region_key(facts.write_region)),
            LogQuery(LogName.KEY_USAGE, span, region="marscentral"),
        ]
    )
    assert here.table is not None and here.table.rows
    assert there.table is not None and there.table.rows == ()
