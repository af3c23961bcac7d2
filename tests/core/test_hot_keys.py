"""The hot-keys report: the joins of the log aggregations and the shares made of them."""

from __future__ import annotations

from typing import Any

from cosmem_tui.core.hot_keys import HotKeysService
from cosmem_tui.core.hot_keys_notes import skew_headline
from cosmem_tui.core.hot_keys_report import parse_key
from cosmem_tui.core.telemetry_reader import TelemetryReader
from cosmem_tui.core.throughput import CAPACITY, NORMALIZED_BY_RANGE, RU, Container
from cosmem_tui.model import FrozenClock, Key, RequestCharge, Scope
from cosmem_tui.model.telemetry import (
    LOG_COLUMNS,
    KeyLevel,
    KeyUsage,
    LogAnswer,
    LogName,
    LogQuery,
    LogTable,
    MetricAnswer,
    MetricPoint,
    MetricQuery,
    PartitionUsage,
    ProblemKind,
    Series,
    TelemetryProblem,
    Window,
)
from tests.core.scripted_telemetry import ScriptedTelemetry

NOW = 1_800_000_030.0


def table(name: LogName, *rows: tuple[Any, ...]) -> LogTable:
    return LogTable(LOG_COLUMNS[name], tuple(rows))


USAGE = table(
    LogName.KEY_USAGE,
    # Key, Partition, Partitions, RU, PeakRUps, PartitionRU, PartitionPeakRUps, Keys,
    # PartitionIds
    ('["contoso"]', "2", 2, 6300.0, 1200.0, 5800.0, 950.0, 5, ["1", "2"]),
    ('["fabrikam"]', "1", 1, 2000.0, 120.0, 2000.0, 120.0, 5, ["1"]),
    ("[42]", "2", 1, 1000.0, 80.0, 1000.0, 80.0, 5, ["2"]),  # a numeric tenant stays a number
)
PARTITIONS = table(
    LogName.PARTITION_USAGE,
    # Partition, RU, PeakRUps, Keys
    ("2", 8000.0, 1000.0, 3),
    ("1", 2000.0, 200.0, 2),
)
THROTTLES = table(LogName.KEY_THROTTLES, ('["contoso"]', 900, 42))
STORAGE = table(LogName.KEY_STORAGE, ('["contoso"]', 2_500_000))
# Requests, Throttled, Unattributed, ConsoleRequests, ConsoleRU: 42 of the 60 429s were
# logged with contoso's key; the console's own 25 requests cost 80 RU.
TOTALS = table(LogName.REQUEST_TOTALS, (1500, 60, 18, 25, 80.0))


def logs(query: LogQuery) -> LogAnswer:
    tables = {
        LogName.KEY_USAGE: USAGE,
        LogName.PARTITION_USAGE: PARTITIONS,
        LogName.KEY_THROTTLES: THROTTLES,
        LogName.KEY_STORAGE: STORAGE,
        LogName.REQUEST_TOTALS: TOTALS,
    }
    return LogAnswer(query, tables[query.name], as_of=NOW - 40)


def metrics(query: MetricQuery) -> MetricAnswer:
    def one(metric: str, value: float, **dims: str) -> Series:
        return Series(
            metric,
            query.aggregation,
            "Count",
            tuple((k.lower(), v) for k, v in dims.items()),
            (MetricPoint(query.span.end - 300, value),),
        )

    if query.name == RU:  # which regions: the account's one (East US, its write region)
        return MetricAnswer(query, (one("TotalRequestUnits", 60_000.0, Region="East US"),))
    if query.name == CAPACITY:
        return MetricAnswer(query, (one("ProvisionedThroughput", 4000.0),))
    if query.name == NORMALIZED_BY_RANGE:  # four ranges exist; two had keyed requests
        return MetricAnswer(
            query,
            tuple(
                one("NormalizedRUConsumption", 10.0, PartitionKeyRangeId=str(i)) for i in range(4)
            ),
        )
    raise AssertionError(query.name)


def service(telemetry: ScriptedTelemetry, **kwargs: Any) -> HotKeysService:
    clock = FrozenClock(NOW)
    return HotKeysService(
        TelemetryReader(telemetry, clock), clock, Container("memory", "turns"), **kwargs
    )


async def test_rows_and_shares():
    report = await service(ScriptedTelemetry(metrics=metrics, logs=logs)).report(Window.M15)

    assert [row.key for row in report.rows] == [Key.of("contoso"), Key.of("fabrikam"), Key.of(42)]
    contoso = report.rows[0]
    assert report.total_ru == 10_000.0  # the container's RU: the partitions' sum
    assert contoso.share == 0.63
    # its busiest second on partition 2 alone (950, not 1,200 over both partitions)
    # against 4,000 RU/s over the four ranges the metrics know (not the two in the logs)
    assert contoso.partition_share == 950.0 / 1000.0
    assert contoso.peak_ru_s == 1200.0 and contoso.partition_ru == 5800.0
    assert (contoso.partition, contoso.partitions) == ("2", 2)
    assert contoso.partition_ids == ("2", "1")  # both named, the main one first
    assert contoso.throttled == 42 and contoso.storage_kb == 2_500_000
    fabrikam = report.rows[1]
    assert fabrikam.throttled == 0  # absent from a complete answer: none
    assert fabrikam.storage_kb is None  # not among the largest keys: not known
    assert report.provisioned_ru_s == 4000.0
    assert [(p.partition, p.budget_ru_s) for p in report.partitions] == [
        ("2", 1000.0),
        ("1", 1000.0),
    ]
    assert report.keys_total == 5
    assert report.caveats[0] == "top 3 of 5 keys by RU"
    # The per-key column counts 429s where logged; the window's others are said apart.
    assert (report.throttled_total, report.unattributed) == (60, 18)
    assert report.throttle_note == (
        "429 LOGGED: a key's 429s whose request the RU log names (distinct requests); "
        "18 of the window's 60 429s name no key"
    )
    assert report.throttle_note in report.caveats
    assert (
        report.headline == "contoso = 72 % of RU on partition 2, 63 % of the container's RU in 15m"
    )
    assert report.data_as_of == NOW - 40
    assert not any("lag" in c or "arrive" in c for c in report.caveats)  # the lag note's


async def test_the_newest_minutes_of_a_logs_window_are_marked_incomplete():
    """Resource logs arrive 3–10 min after the requests (learn "Log data ingestion
    time"): of a 15-minute window ending now, the newest 10 minutes may be incomplete —
    two-thirds of it — and the report says so, with where the logs stop."""
    report = await service(ScriptedTelemetry(metrics=metrics, logs=logs)).report(Window.M15)
    assert report.incomplete_from == NOW - 600
    assert report.lag_note == (
        "logs arrive 3–10 min after the requests: the newest 10 min (67 % of the window) "
        "may be incomplete; data as of 07:59:50 UTC"
    )
    day = await service(ScriptedTelemetry(metrics=metrics, logs=logs)).report(Window.H24)
    assert day.incomplete_from == NOW - 600
    assert "the newest 10 min (1 % of the window)" in day.lag_note

    def stale(query: LogQuery) -> LogAnswer:  # ingestion stopped 20 min ago
        return LogAnswer(query, logs(query).table, as_of=NOW - 1200)

    behind = await service(ScriptedTelemetry(metrics=metrics, logs=stale)).report(Window.M15)
    assert behind.incomplete_from == NOW - 1200 + 300  # never before the window starts
    assert "the newest 15 min (100 % of the window)" in behind.lag_note


async def test_a_source_whose_logs_arrive_sooner_marks_less():
    """The simulator's logs are there 30 s after the requests: only that is marked."""
    scripted = ScriptedTelemetry(metrics=metrics, logs=logs, log_delay_s=(30.0, 30.0))
    report = await service(scripted).report(Window.M15)
    assert report.incomplete_from == NOW - 40  # where its logs stop, 40 s back
    assert report.lag_note.startswith(
        "logs arrive 30 s after the requests: the newest 40 s (4 % of the window)"
    )


async def test_a_tenants_storage_is_a_lower_bound_where_it_is_many_keys():
    """PartitionKeyStatistics logs only the largest keys of each partition: a tenant of a
    hierarchical key is the sum of those of its keys that were logged, at least that much
    (shown as if whole, it read "1.5 MB" for a tenant holding 15 MB)."""
    scripted = ScriptedTelemetry(metrics=metrics, logs=logs)

    def contoso(levels: int | None, **ask: Any) -> Any:
        hot = service(scripted)
        hot.where = Container("memory", "turns", key_levels=levels)
        return hot.report(Window.M15, **ask)

    for levels in (2, None):  # hierarchical, or not known: a lower bound
        (row, *_rest) = (await contoso(levels)).rows
        assert row.storage_kb == 2_500_000 and row.storage_lower_bound
    (row, *_rest) = (await contoso(1)).rows  # the tenant is the whole key: its own estimate
    assert row.storage_kb == 2_500_000 and not row.storage_lower_bound
    keys = await contoso(2, tenant=Key.of("contoso"))  # a whole key's own estimate
    assert not any(r.storage_lower_bound for r in keys.rows)
    assert not (await contoso(2)).rows[1].storage_lower_bound  # no storage: no bound


def test_the_headline_names_the_first_row_and_then_the_busiest_partitions_owner():
    def row(name: str, ru: float, partition: str, partition_ru: float) -> KeyUsage:
        return KeyUsage(
            Key.of("acme", name), ru, ru / 60, ru / 10_000, partition, 1, partition_ru,
            None, None, None,
        )  # fmt: skip

    rows = [row("thr-a", 3000.0, "2", 3000.0), row("thr-b", 2500.0, "1", 2500.0)]
    calm = (
        PartitionUsage("1", 4000.0, 500.0, 1000.0, 9),
        PartitionUsage("2", 6000.0, 400.0, 1000.0, 9),
    )
    assert skew_headline(rows, calm, Window.M15, []) == (
        '["acme","thr-a"] = 50 % of RU on partition 2, 30 % of the container\'s RU in 15m'
    )  # partition 1's busiest second is half its budget: nothing more to say
    busy = (PartitionUsage("1", 4000.0, 990.0, 1000.0, 9), calm[1])
    assert skew_headline(rows, busy, Window.M15, []) == (
        '["acme","thr-a"] = 50 % of RU on partition 2, 30 % of the container\'s RU in 15m; '
        'partition 1 is the busiest: ["acme","thr-b"] = 62 % of its RU'
    )


async def test_the_questions_asked():
    telemetry = ScriptedTelemetry(metrics=metrics, logs=logs)
    await service(telemetry, top=500).report(Window.H1, tenant=Key.of("contoso"))

    asked = {q.name: q for q in telemetry.asked if isinstance(q, LogQuery)}
    assert set(asked) == {
        LogName.KEY_USAGE,
        LogName.PARTITION_USAGE,
        LogName.KEY_THROTTLES,
        LogName.KEY_STORAGE,
        LogName.REQUEST_TOTALS,
    }
    usage = asked[LogName.KEY_USAGE]
    assert usage.level is KeyLevel.KEY and usage.tenant == Key.of("contoso") and usage.top == 500
    assert usage.span.end == NOW and usage.span.seconds == 3600  # logs: up to now
    # The partitions' totals are the container's, whatever tenant is drilled into, and so
    # are the window's 429s: the tenant of one no key is logged for is not known.
    assert asked[LogName.PARTITION_USAGE].tenant is None
    assert asked[LogName.REQUEST_TOTALS].tenant is None
    # Storage statistics come now and then, not per request: the last day's, not the hour's.
    storage = asked[LogName.KEY_STORAGE]
    assert storage.span.end == NOW and storage.span.seconds == 24 * 3600
    # Every question is the write region's: the logs by region_key, the metrics as the
    # metrics spell it; the RU by region is what the region was chosen from.
    assert {q.region for q in asked.values()} == {"eastus"}
    metric_asked = {q.name: q for q in telemetry.asked if isinstance(q, MetricQuery)}
    assert set(metric_asked) == {RU, CAPACITY, NORMALIZED_BY_RANGE}
    assert metric_asked[RU].split == ("Region",)
    assert ("Region", "East US") in metric_asked[NORMALIZED_BY_RANGE].where


async def test_429s_not_known_when_the_join_failed():
    failed = TelemetryProblem(
        ProblemKind.NO_CATEGORY, "no DataPlaneRequests", about="logs: key_throttles"
    )

    def no_requests_log(query: LogQuery) -> LogAnswer:
        if query.name == LogName.KEY_THROTTLES:
            return LogAnswer(query, problem=failed)
        return logs(query)

    report = await service(ScriptedTelemetry(metrics=metrics, logs=no_requests_log)).report(
        Window.M15
    )
    assert [row.throttled for row in report.rows] == [None, None, None]
    assert report.problems == (failed,)
    assert report.rows  # the rest of the table stands


def own_request(at: float, ru: float) -> RequestCharge:
    return RequestCharge("turns-page", Scope.PARTITION, ru, 5.0, 10, 200, False, at=at)


async def test_the_consoles_own_load_is_told_beside_the_accounts():
    """The RU log has no UserAgent, so the keys' RU includes the console's own queries:
    the report carries them as the request log marks them (every cosmem console), and
    this session's own from its ledger."""
    scripted = ScriptedTelemetry(metrics=metrics, logs=logs, log_delay_s=(1.0, 1.0))
    scripted.ledger.record(own_request(NOW - 300, 12.5))
    scripted.ledger.record(own_request(NOW - 3600, 99.0))  # before the window
    report = await service(scripted).report(Window.M15)
    assert (report.console_requests, report.console_ru) == (25, 80.0)
    assert report.session_ru == 12.5
    assert not any("UserAgent" in c for c in report.caveats)  # the log marks them


async def test_a_request_log_that_does_not_mark_the_console_is_said():
    """Whether Cosmos DB logs the console's User-Agent suffix for a gateway-mode client
    is not documented: when the log shows none of this session's requests as the
    console's, the console's load is counted as the application's, and that is said."""
    unmarked = table(LogName.REQUEST_TOTALS, (1500, 60, 18, 0, 0.0))

    def no_mark(query: LogQuery) -> LogAnswer:
        if query.name == LogName.REQUEST_TOTALS:
            return LogAnswer(query, unmarked, as_of=NOW - 40)
        return logs(query)

    scripted = ScriptedTelemetry(metrics=metrics, logs=no_mark)
    scripted.ledger.record(own_request(NOW - 800, 3.0))  # old enough to be logged
    scripted.ledger.record(own_request(NOW - 60, 3.0))  # in the incomplete tail
    report = await service(scripted).report(Window.M15)
    assert report.caveats[0] == (
        "the request log shows none of this session's 1 request as the console's "
        "(UserAgent without 'cosmem/'): its own load counts as the application's here"
    )
    young = ScriptedTelemetry(metrics=metrics, logs=no_mark)
    young.ledger.record(own_request(NOW - 60, 3.0))  # not logged yet: nothing to say
    assert not any("UserAgent" in c for c in (await service(young).report(Window.M15)).caveats)


async def test_how_many_429s_name_no_key_is_not_guessed():
    """Without the totals (the question failed), the note says the 429s of no known key
    are not known — never that every 429 has its key."""
    failed = TelemetryProblem(ProblemKind.QUERY_ERROR, "400", about="logs: request_totals")

    def no_totals(query: LogQuery) -> LogAnswer:
        if query.name == LogName.REQUEST_TOTALS:
            return LogAnswer(query, problem=failed)
        return logs(query)

    report = await service(ScriptedTelemetry(metrics=metrics, logs=no_totals)).report(Window.M15)
    assert (report.throttled_total, report.unattributed) == (None, None)
    assert report.throttle_note.endswith("how many of the window's 429s name no key is not known")
    assert report.rows[0].throttled == 42  # the per-key column still stands
    assert failed in report.problems


async def test_no_workspace_leaves_an_empty_table_that_says_why():
    missing = TelemetryProblem(ProblemKind.NO_WORKSPACE, "no workspace", fix="--workspace-id")
    report = await service(
        ScriptedTelemetry(metrics=metrics, logs=lambda q: LogAnswer(q, problem=missing))
    ).report(Window.M15)
    assert report.rows == () and report.keys_total is None
    assert report.problems == (missing,)
    assert report.headline == "no per-key usage: see below"


def test_keys_from_the_logs():
    assert parse_key('["contoso","t-1"]') == Key.of("contoso", "t-1")
    assert parse_key("[42]") == Key.of(42)
    assert parse_key('["42"]') == Key.of("42")
    # Not a JSON array of scalars: shown as the text it came as, never dropped.
    assert parse_key('[{"a":1}]') == Key.of('[{"a":1}]')
    assert parse_key("[not json") == Key.of("[not json")
    assert parse_key(None) == Key.of(None)
    # The usual text, read by the decoder straight; the rest as json.loads reads it.
    assert parse_key(' ["contoso"] ') == Key.of("contoso")
    assert parse_key('["a\\"b"]') == Key.of('a"b')
    assert parse_key('["x"] trailing') == Key.of('["x"] trailing')


async def test_kept_answers_give_the_kept_report_and_new_ones_a_new_report():
    reader_clock = FrozenClock(NOW)
    telemetry = ScriptedTelemetry(metrics=metrics, logs=logs)
    hot = HotKeysService(
        TelemetryReader(telemetry, reader_clock), reader_clock, Container("memory", "turns")
    )
    first = await hot.report(Window.M15)
    reader_clock.advance(5)  # a refresh: the reader hands back the answers it keeps
    assert await hot.report(Window.M15) is first
    other = await hot.report(Window.H1)  # another question: its own report
    assert other is not first and other.window is Window.H1
    reader_clock.advance(60)  # the answers are old: asked again, joined again
    fresh = await hot.report(Window.M15)
    assert fresh is not first and fresh.rows == first.rows
    hot.reader.forget()  # ctrl+r
    assert await hot.report(Window.M15) is not fresh


async def test_equal_ru_is_in_key_order_whatever_order_the_logs_gave():
    tied = table(
        LogName.KEY_USAGE,
        ('["zeta"]', "1", 1, 500.0, 10.0, 500.0, 10.0, 5, ["1"]),
        ('["big"]', "1", 1, 900.0, 10.0, 900.0, 10.0, 5, ["1"]),
        ('["alpha"]', "1", 1, 500.0, 10.0, 500.0, 10.0, 5, ["1"]),
        ("[42]", "1", 1, 500.0, 10.0, 500.0, 10.0, 5, ["1"]),
        ('["omega"]', "1", 1, 100.0, 10.0, 100.0, 10.0, 5, ["1"]),
    )

    def with_ties(query: LogQuery) -> LogAnswer:
        if query.name is LogName.KEY_USAGE:
            return LogAnswer(query, tied)
        return logs(query)

    report = await service(ScriptedTelemetry(metrics=metrics, logs=with_ties)).report(Window.M15)
    # numbers before strings (Cosmos order), then by value
    assert [row.key.text for row in report.rows] == ["big", "42", "alpha", "zeta", "omega"]


async def test_a_split_partition_is_counted_once_in_the_budget():
    """Range 0 split into ranges 1 and 2 five minutes ago: the window has metrics and
    log rows for all three, but only two partitions share the 4,000 RU/s now."""
    split_at = NOW - 300

    def split_metrics(query: MetricQuery) -> MetricAnswer:
        if query.name != NORMALIZED_BY_RANGE:
            return metrics(query)
        start = int(query.span.start) // 60 * 60

        def series(range_id: str, first: float, last: float) -> Series:
            points = tuple(
                MetricPoint(float(at), 40.0 if first <= at < last else None)
                for at in range(start, int(query.span.end), 60)
            )
            return Series(
                "NormalizedRUConsumption",
                "Maximum",
                "Percent",
                (("partitionkeyrangeid", range_id),),
                points,
            )

        end = query.span.end
        return MetricAnswer(
            query,
            (series("0", start, split_at), series("1", split_at, end), series("2", split_at, end)),
        )

    split_partitions = table(
        LogName.PARTITION_USAGE,
        ("1", 5000.0, 900.0, 2),
        ("0", 3000.0, 700.0, 3),
        ("2", 2000.0, 200.0, 1),
    )

    def split_logs(query: LogQuery) -> LogAnswer:
        if query.name == LogName.PARTITION_USAGE:
            return LogAnswer(query, split_partitions, as_of=NOW - 40)
        return logs(query)

    report = await service(ScriptedTelemetry(metrics=split_metrics, logs=split_logs)).report(
        Window.M15
    )
    assert report.provisioned_ru_s == 4000.0
    assert {p.partition: p.budget_ru_s for p in report.partitions} == {
        "0": 2000.0,
        "1": 2000.0,
        "2": 2000.0,
    }
    # Without the metrics the logs cannot tell a parent from its children: every
    # partition they name counts.
    no_ranges = await service(
        ScriptedTelemetry(
            metrics=lambda q: metrics(q) if q.name == CAPACITY else MetricAnswer(q, ()),
            logs=split_logs,
        )
    ).report(Window.M15)
    assert {p.budget_ru_s for p in no_ranges.partitions} == {4000.0 / 3}


# -- what a report keeps: its rows by column, not the logs' answer --------------------------


class Rows(list):  # type: ignore[type-arg]
    """The logs' rows, in a list that can be watched going away (a weak reference)."""


def many(count: int) -> LogTable:
    """``count`` tenants on four partitions: ties, a few on two partitions, a key that is
    not JSON, a total of keys the top cut (the answer's rows as a source gives them)."""
    rows = Rows(
        (
            f'["tenant-{n:06d}"]' if n != 7 else "[not json",
            str(n % 4),
            2 if n % 50 == 0 else 1,
            float(1_000_000 // (n + 1)),  # equal RU for neighbours further down: ties
            float(n % 97),
            float(1_000_000 // (n + 2)),
            float(n % 89),
            count * 2,
            [str(n % 4), str((n + 1) % 4)] if n % 50 == 0 else [str(n % 4)],
        )
        for n in range(count)
    )
    return LogTable(LOG_COLUMNS[LogName.KEY_USAGE], rows)  # type: ignore[arg-type]


async def test_the_report_keeps_no_answer_of_the_logs_and_holds_its_rows_by_column():
    """The logs' rows of 10,000 keys are gone once the report is made: the reader keeps
    an answer made of the report's own columns, and no row exists until it is read
    (before, the reader kept the logs' rows beside a report of 10,000 tuples)."""
    import gc
    import weakref

    from cosmem_tui.model.key_usage import KeyUsageTable, LogRows

    usage = many(10_000)
    watched = weakref.ref(usage.rows)  # type: ignore[arg-type]

    def answers(query: LogQuery) -> LogAnswer:
        nonlocal usage
        if query.name is LogName.KEY_USAGE and usage is not None:
            table, usage = usage, None  # handed over once, as Azure Monitor's answer is
            return LogAnswer(query, table, as_of=NOW - 40)
        return logs(query)

    def rows_alive() -> int:
        return sum(isinstance(o, KeyUsage) for o in gc.get_objects())

    telemetry = ScriptedTelemetry(metrics=metrics, logs=answers)
    hot = service(telemetry, top=10_000)
    gc.collect()
    before = rows_alive()  # other tests' own
    report = await hot.report(Window.M15)
    gc.collect()
    assert watched() is None  # nobody holds the logs' rows
    assert isinstance(report.rows, KeyUsageTable) and len(report.rows) == 10_000
    kept = [a for _, a in hot.reader._answers.values() if isinstance(a, LogAnswer)]
    usage_kept = [a for a in kept if a.query.name is LogName.KEY_USAGE]
    assert len(usage_kept) == 1 and usage_kept[0].table is not None
    assert isinstance(usage_kept[0].table.rows, LogRows)
    assert rows_alive() == before  # no row is made until it is read (before: 10,000)
    assert len({id(p) for p in report.rows.partition}) == 4  # one id object a partition
    assert await hot.report(Window.M15) is report  # a refresh: the kept report


async def test_a_kept_answer_joins_into_the_rows_the_logs_did():
    """Within the minute another answer may change (the metrics, a failed 429 count):
    the report is joined again from the answer the reader kept, the report's own
    columns, and its rows are those the logs' own rows give."""
    from dataclasses import replace

    from cosmem_tui.core.hot_keys import kept_usage
    from cosmem_tui.core.hot_keys_report import _Logs, build_report
    from cosmem_tui.model.telemetry import Span

    span = Span(NOW - 900, NOW)
    about = ScriptedTelemetry().about
    for level, key_levels in ((KeyLevel.TENANT, 2), (KeyLevel.KEY, 1)):
        query = LogQuery(LogName.KEY_USAGE, span, level=level)
        parts = LogAnswer(query, PARTITIONS)
        throttles = LogAnswer(query, THROTTLES)
        storage = LogAnswer(query, STORAGE)
        totals = LogAnswer(query, TOTALS)
        for usage in (LogAnswer(query, many(3_000)), LogAnswer(query, USAGE)):
            joined = _Logs(usage, parts, throttles, storage, totals)
            first = build_report(
                Window.M15, span, about, level, None, joined, [], key_levels=key_levels
            )
            again = build_report(
                Window.M15,
                span,
                about,
                level,
                None,
                replace(joined, usage=kept_usage(usage, first)),
                [],
                key_levels=key_levels,
            )
            assert tuple(again.rows) == tuple(first.rows)
            assert again.keys_total == first.keys_total and again.headline == first.headline
