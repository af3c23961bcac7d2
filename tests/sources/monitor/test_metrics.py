"""Metrics through the real ``MetricsClient``: what each call sends, what comes back, what
the ledger keeps, and how failures and throttling become problems (never exceptions)."""

from __future__ import annotations

import time

import pytest
import requests

from cosmem_tui.model import FrozenClock, Kind, Scope
from cosmem_tui.model.telemetry import (
    MetricPoint,
    MetricQuery,
    ProblemKind,
    Span,
)
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.conftest import ANCHOR
from tests.sources.monitor.azure_fake import (
    RESOURCE_ID,
    SUBSCRIPTION,
    AzureFake,
    FakeCredential,
    Reply,
    error_body,
    iso,
    metric,
    metrics_body,
)
from tests.sources.monitor.conftest import Opener

SPAN = Span(ANCHOR - 15 * 60, ANCHOR)
BUCKETS = [SPAN.start + 60 * i for i in range(15)]


def throttles_query(**changes: object) -> MetricQuery:
    fields: dict[str, object] = {
        "name": "throttles",
        "metrics": ("TotalRequests",),
        "aggregation": "Count",
        "grain_s": 60,
        "span": SPAN,
        "where": (("StatusCode", "429"),),
        "split": ("OperationType",),
    }
    fields.update(changes)
    return MetricQuery(**fields)  # type: ignore[arg-type]


def ru_body() -> Reply:
    points = [(at, {"total": 60.0 * (i + 1)}) for i, at in enumerate(BUCKETS)]
    body = metrics_body(SPAN.start, SPAN.end, metric("TotalRequestUnits", "Count", [({}, points)]))
    return Reply(200, body)


async def test_a_split_query_sends_the_getbatch_call_and_maps_every_series(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger, credential: FakeCredential
):
    # Azure leaves empty buckets without an aggregation; some are missing altogether
    by_query = [(BUCKETS[0], {"count": 4.0}), (BUCKETS[1], {}), (BUCKETS[5], {"count": 0.0})]
    by_read = [(at, {}) for at in BUCKETS[:-1]] + [(BUCKETS[-1], {"count": 2.0})]
    series = [
        ({"operationtype": "Query"}, by_query),
        ({"OperationType": "Read", "statuscode": "429"}, by_read),
    ]
    body = metrics_body(SPAN.start, SPAN.end, metric("TotalRequests", "Count", series))
    fake.answer("metrics", Reply(200, body, headers={"x-ms-request-id": "req-1"}))
    source = await open_source()
    (answer,) = await source.metrics([throttles_query()])

    (sent,) = fake.requests_to("metrics")
    assert sent.method == "POST"
    assert sent.host == "eastus.metrics.monitor.azure.com"  # the regional host
    assert sent.path == f"/subscriptions/{SUBSCRIPTION}/metrics:getBatch"
    assert sent.params["metricnamespace"] == "Microsoft.DocumentDB/databaseAccounts"
    assert sent.params["metricnames"] == "TotalRequests"
    assert sent.params["interval"] == "PT1M"
    assert sent.params["aggregation"] == "Count"
    assert sent.params["filter"] == (
        "DatabaseName eq 'memory' and CollectionName eq 'turns' and StatusCode eq '429' "
        "and OperationType eq '*'"
    )
    assert sent.params["top"] == "500"  # a split asks for more than Azure's 10
    # the span of the question, not this machine's clock
    assert sent.params["starttime"] == iso(SPAN.start) == "2026-11-29T23:45:00.000Z"
    assert sent.params["endtime"] == iso(SPAN.end) == "2026-11-30T00:00:00.000Z"
    assert sent.json() == {"resourceids": [RESOURCE_ID]}
    assert sent.headers["Authorization"] == "Bearer fake-token"
    assert credential.scopes == [("https://metrics.monitor.azure.com/.default",)]

    assert answer.problem is None
    query_series, read_series = sorted(answer.series, key=lambda s: s.dimensions)
    assert query_series.dimensions == (("operationtype", "Query"),)
    assert read_series.dimensions == (("operationtype", "Read"), ("statuscode", "429"))
    assert query_series.metric == "TotalRequests"
    assert query_series.unit == "Count" and query_series.aggregation == "Count"
    assert [p.at for p in query_series.points] == BUCKETS  # one point per bucket
    values = [p.value for p in query_series.points]
    assert values[:2] == [4.0, None] and values[5] == 0.0  # a real zero stays zero
    assert values.count(None) == 13  # empty and missing buckets are None, never 0
    assert read_series.latest() == MetricPoint(BUCKETS[-1], 2.0)
    assert read_series.total() == 2.0

    (record,) = ledger.records()
    assert record.kind is Kind.MONITOR and record.scope is Scope.METRICS
    assert (record.unit, record.request_units, record.status) == ("call", 0.0, 200)
    assert record.operation == "metrics: throttles" and record.target == "TotalRequests"
    assert (record.attempt, record.at, record.activity_id) == (1, ANCHOR, "req-1")
    totals = ledger.totals()
    assert totals.request_units == 0 and totals.monitor_calls == 1


async def test_splitting_by_partition_key_range_asks_for_many_series_and_says_when_cut(
    open_source: Opener, fake: AzureFake
):
    ranges = [
        ({"partitionkeyrangeid": str(r)}, [(BUCKETS[0], {"maximum": 10.0 * r})]) for r in range(3)
    ]
    body = metrics_body(SPAN.start, SPAN.end, metric("NormalizedRUConsumption", "Percent", ranges))
    fake.answer("metrics", Reply(200, body))
    source = await open_source(database=None)
    wide, capped = await source.metrics(
        [
            throttles_query(
                name="ranges",
                metrics=("NormalizedRUConsumption",),
                aggregation="Maximum",
                where=(),
                split=("PartitionKeyRangeId",),
            ),
            throttles_query(
                name="ranges-capped",
                metrics=("NormalizedRUConsumption",),
                aggregation="Maximum",
                where=(),
                split=("PartitionKeyRangeId",),
                max_results=3,
            ),
        ]
    )
    first, second = fake.requests_to("metrics")
    assert first.params["filter"] == "CollectionName eq 'turns' and PartitionKeyRangeId eq '*'"
    assert first.params["top"] == "500"
    assert second.params["top"] == "3"
    assert wide.problem is None and len(wide.series) == 3
    assert {s.dimension("PartitionKeyRangeId") for s in wide.series} == {"0", "1", "2"}
    assert capped.problem is not None and capped.problem.kind is ProblemKind.PARTIAL
    assert "returned 3 series of NormalizedRUConsumption" in capped.problem.message
    assert capped.problem.about == "metrics: ranges-capped"
    assert len(capped.series) == 3  # what came is kept


async def test_no_filter_sends_no_top_and_quotes_are_doubled_in_values(
    open_source: Opener, fake: AzureFake
):
    fake.answer("metrics", ru_body())
    source = await open_source(database=None, container=None)
    ru = MetricQuery("ru", ("TotalRequestUnits",), "Total", 60, SPAN)
    odd = MetricQuery(
        "odd", ("TotalRequestUnits",), "Total", 300, SPAN, database="it's (memory) 100%"
    )
    answers = await source.metrics([ru, odd])
    plain, quoted = fake.requests_to("metrics")
    assert "filter" not in plain.params and "top" not in plain.params
    assert plain.params["aggregation"] == "Total"
    assert quoted.params["interval"] == "PT5M"
    assert quoted.params["filter"] == "DatabaseName eq 'it''s %2528memory%2529 100%2525'"
    assert [p.value for p in answers[0].series[0].points][:2] == [60.0, 120.0]


@pytest.mark.parametrize(
    ("status", "body", "kind", "in_message", "in_fix"),
    [
        (
            400,
            error_body(
                "BadRequest",
                "Metric: TotalRequests does not support requested "
                "dimension combination: partitionkeyrangeid",
            ),
            ProblemKind.QUERY_ERROR,
            "does not support requested dimension combination",
            "",
        ),
        (
            401,
            error_body("InvalidAuthenticationToken", "The access token is invalid."),
            ProblemKind.UNAUTHORIZED,
            "401 unauthorized",
            "Monitoring Reader on the subscription "
            + SUBSCRIPTION
            + " — a resource-level role is not enough",
        ),
        (
            403,
            error_body("AuthorizationFailed", "The client does not have authorization"),
            ProblemKind.FORBIDDEN,
            "403 forbidden",
            "register the Microsoft.Insights resource provider",
        ),
        (503, b"<html>Service Unavailable</html>", ProblemKind.UNREACHABLE, "503 from", ""),
    ],
)
async def test_a_failed_call_is_a_problem_on_its_answer(
    open_source: Opener,
    fake: AzureFake,
    ledger: RequestLedger,
    status: int,
    body: object,
    kind: ProblemKind,
    in_message: str,
    in_fix: str,
):
    tries = 3 if status >= 500 else 1  # azure-core retries a 5xx twice more; a 4xx never
    fake.answer("metrics", *[Reply(status, body)] * tries, ru_body())
    source = await open_source()
    failed, fine = await source.metrics([throttles_query(name="ru"), throttles_query()])
    assert failed.series == ()
    assert failed.problem is not None
    assert failed.problem.kind is kind
    assert failed.problem.about == "metrics: ru"
    assert in_message in failed.problem.message
    assert in_fix in failed.problem.fix
    assert fine.problem is None  # one failed tile does not take the others down
    assert [r.status for r in ledger.records()] == [status] * tries + [200]  # every attempt
    assert {r.call for r in ledger.records()[:-1]} == {ledger.records()[0].call}


async def test_a_429_holds_metrics_off_until_retry_after_passes(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger, clock: FrozenClock
):
    fake.answer(
        "metrics",
        Reply(429, error_body("TooManyRequests", "Rate limit exceeded"), {"Retry-After": "30"}),
        ru_body(),
    )
    source = await open_source()
    (first,) = await source.metrics([throttles_query()])
    assert first.problem is not None and first.problem.kind is ProblemKind.THROTTLED
    assert first.problem.retry_after_s == 30.0
    assert len(fake.requests_to("metrics")) == 1  # a 30 s wait is not slept inside a refresh

    clock.advance(29)
    (held,) = await source.metrics([throttles_query()])
    assert held.problem is not None and held.problem.kind is ProblemKind.THROTTLED
    assert held.problem.retry_after_s == pytest.approx(1.0)
    assert len(fake.requests_to("metrics")) == 1  # nothing sent while held off

    assert ledger.throttle_pause_s() == 0  # the Cosmos account is not held off
    totals = ledger.totals()
    assert (totals.throttled, totals.monitor_throttled) == (0, 1)
    (record,) = ledger.records()
    assert record.status == 429 and record.retry_after_ms == 30_000

    clock.advance(2)
    (again,) = await source.metrics([throttles_query()])
    assert again.problem is None and len(fake.requests_to("metrics")) == 2


async def test_a_short_retry_after_is_waited_inside_the_call_and_every_attempt_recorded(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    fake.answer(
        "metrics",
        Reply(429, error_body("TooManyRequests", "slow down"), {"retry-after-ms": "10"}),
        ru_body(),
    )
    source = await open_source()
    (answer,) = await source.metrics([throttles_query()])
    assert answer.problem is None
    first, second = ledger.records()
    assert (first.status, first.attempt, second.status, second.attempt) == (429, 1, 200, 2)
    assert first.call == second.call
    (next_answer,) = await source.metrics([throttles_query()])
    assert next_answer.problem is None  # the success lifted any hold-off


async def test_a_529_without_retry_after_is_not_retried_and_holds_metrics_off(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger, clock: FrozenClock
):
    fake.answer(
        "metrics", Reply(529, error_body("ServerBusy", "metrics backend is throttling")), ru_body()
    )
    source = await open_source()
    (answer,) = await source.metrics([throttles_query()])
    assert answer.problem is not None and answer.problem.kind is ProblemKind.THROTTLED
    assert "529: Azure Monitor metrics is throttling" in answer.problem.message
    assert [(r.status, r.attempt) for r in ledger.records()] == [(529, 1)]
    clock.advance(20)
    (held,) = await source.metrics([throttles_query()])
    assert held.problem is not None and held.problem.kind is ProblemKind.THROTTLED
    assert len(fake.requests_to("metrics")) == 1  # held off for the default 30 s
    clock.advance(11)
    (again,) = await source.metrics([throttles_query()])
    assert again.problem is None


async def test_retry_after_answers_are_retried_at_most_twice(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    busy = Reply(503, error_body("ServiceUnavailable", "busy"), {"Retry-After": "0.01"})
    fake.answer("metrics", busy)
    source = await open_source()
    (answer,) = await source.metrics([throttles_query()])
    assert answer.problem is not None and answer.problem.kind is ProblemKind.UNREACHABLE
    assert [(r.status, r.attempt) for r in ledger.records()] == [(503, 1), (503, 2), (503, 3)]
    assert len({r.call for r in ledger.records()}) == 1  # one logical call


async def test_no_connection_is_unreachable_with_a_no_answer_record(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    fake.fail("metrics", requests.ConnectionError("Name or service not known"))
    source = await open_source()
    (answer,) = await source.metrics([throttles_query()])
    assert answer.problem is not None and answer.problem.kind is ProblemKind.UNREACHABLE
    assert "cannot reach Azure Monitor metrics" in answer.problem.message
    assert "SSL_CERT_FILE" in answer.problem.fix
    records = ledger.records()
    assert records and all(r.status == 0 and r.outcome == "no answer" for r in records)
    assert [r.attempt for r in records] == list(range(1, len(records) + 1)) and len(records) <= 3


async def test_a_call_past_its_deadline_is_unreachable(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    def slow(_sent: object) -> Reply:
        time.sleep(0.5)  # in the transport's worker thread: the answer comes too late
        return ru_body()

    fake.answer("metrics", slow)
    source = await open_source(timeout_s=0.1)
    (answer,) = await source.metrics([throttles_query()])
    assert answer.problem is not None and answer.problem.kind is ProblemKind.UNREACHABLE
    assert "did not answer within 0.1 s" in answer.problem.message
    (record,) = ledger.records()
    assert (record.status, record.cancelled, record.scope) == (0, False, Scope.METRICS)


async def test_a_query_that_cannot_be_sent_is_refused_without_a_request(
    open_source: Opener, fake: AzureFake
):
    source = await open_source()
    bad = [
        throttles_query(aggregation="Median"),
        throttles_query(split=("Operation Type",)),
        throttles_query(where=(("StatusCode", "42\n9"),)),
        throttles_query(metrics=()),
    ]
    answers = await source.metrics(bad)
    assert all(a.problem is not None and a.problem.kind is ProblemKind.QUERY_ERROR for a in answers)
    assert fake.requests_to("metrics") == []
