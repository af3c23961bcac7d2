"""Logs through the real ``LogsQueryClient``: one ``query_workspace`` call per question,
what each sends, the tables probe and the AzureDiagnostics fallback, cells as plain
values, and every failure a problem on the answers it concerns."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from cosmem_tui.model import Key, Kind, Scope
from cosmem_tui.model.telemetry import (
    LOG_COLUMNS,
    KeyLevel,
    LogName,
    LogQuery,
    MetricQuery,
    ProblemKind,
    Span,
)
from cosmem_tui.sources.monitor import kql
from cosmem_tui.sources.monitor.kql import AGGREGATED, LogMode, RequestLog, query_text
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.conftest import ANCHOR
from tests.sources.monitor.azure_fake import (
    WORKSPACE,
    AzureFake,
    FakeCredential,
    Reply,
    Sent,
    error_body,
    iso,
    metric,
    metrics_body,
    table,
    workspace_query,
)
from tests.sources.monitor.conftest import FrozenClock, Opener
from tests.sources.monitor.test_kql import lex

SPAN = Span(ANCHOR - 15 * 60, ANCHOR)
# CDBDataPlaneRequests.PartitionId: the physical partition's GUID, not a range id.
PARTITION_GUID = "5f0a3e2c-8b1d-4c6e-9f7a-2d3c4b5a6e7f"
RS, AD = LogMode.RESOURCE_SPECIFIC, LogMode.AZURE_DIAGNOSTICS
PROBE_NEWEST = ANCHOR - 20  # the probe's Newest: ingestion 20 s behind the window's end
TYPES = {
    "Key": "string",
    "Partition": "string",
    "PartitionId": "string",
    "Partitions": "long",
    "RU": "real",
    "PeakRUps": "real",
    "PartitionRU": "real",
    "PartitionPeakRUps": "real",
    "Keys": "long",
    "PartitionIds": "dynamic",
    "TimeGenerated": "datetime",
    "OperationName": "string",
    "Throttled": "long",
    "Minutes": "long",
    "Requests": "long",
    "Unattributed": "long",
    "ConsoleRequests": "long",
    "ConsoleRU": "real",
    "SizeKb": "long",
    "Table": "string",
    "Rows": "long",
    "Newest": "datetime",
}
ALL_TABLES = {
    "CDBPartitionKeyRUConsumption": 5200,
    "CDBDataPlaneRequests": 91000,
    "CDBPartitionKeyStatistics": 12,
}
ROWS: dict[LogName, list[list[Any]]] = {
    LogName.KEY_USAGE: [
        ['["contoso"]', "2", 3, 1812.5, 240.0, 1500.0, 200.0, 57, '["0","2","1"]'],
        ["[42]", "0", 1, 90.25, 12.0, 90.25, 12.0, 57, '["0"]'],
    ],
    LogName.PARTITION_USAGE: [["2", 2100.0, 260.5, 9], ["0", 120.0, 14.0, 48]],
    LogName.THROTTLES: [
        ["2026-11-29T23:58:00Z", "Query", PARTITION_GUID, 17, 1],
        ["2026-11-29T23:59:00Z", "Read", PARTITION_GUID, 4, 1],
    ],
    LogName.KEY_THROTTLES: [['["contoso"]', 900, 21]],
    LogName.REQUEST_TOTALS: [[1200, 33, 12, 40, 96.25]],
    LogName.KEY_STORAGE: [['["contoso"]', 5_242_880]],
}


def which(text: str) -> tuple[LogName, LogMode]:
    """Which question, in which dialect, a text asks (the text ends with its file; an
    aggregated request log's texts are resource-specific)."""
    for mode in (AD, RS):
        for name in LogName:
            if text.endswith(query_text(name, mode) + "\n"):
                return name, mode
    for name in AGGREGATED:
        if text.endswith(query_text(name, RS, RequestLog.AGGREGATED_5M) + "\n"):
            return name, RS
    raise AssertionError(f"not one of the console's texts: {text[-200:]}")


def request_log(text: str) -> str | None:
    """The aggregated table a text reads (``let p_requests = …;``), or None."""
    found = re.search(r"^let p_requests = (\w+);$", text, re.MULTILINE)
    return found.group(1) if found else None


RESOURCE_TABLES = (
    "CDBPartitionKeyRUConsumption",
    "CDBDataPlaneRequests",
    "CDBPartitionKeyStatistics",
    "CDBDataPlaneRequests5M",
    "CDBDataPlaneRequests15M",
)


def result(name: LogName, rows: list[list[Any]]) -> dict[str, Any]:
    return {"tables": [table([(c, TYPES[c]) for c in LOG_COLUMNS[name]], rows)]}


class Workspace:
    """A Log Analytics workspace behind its query endpoint: which tables hold rows, and
    what each question answers (per question, optionally per dialect)."""

    def __init__(self, tables: dict[str, int] | None = None, mode: LogMode = RS) -> None:
        self.tables = ALL_TABLES if tables is None else tables
        self.mode = mode  # the dialect whose tables exist in this workspace
        self.special: dict[LogName, Callable[[], Reply]] = {}
        self.asked: list[tuple[LogName, LogMode, dict[str, Any]]] = []

    def answer(self, text: str, request: dict[str, Any]) -> Reply:
        name, mode = which(text)
        self.asked.append((name, mode, request))
        if name in self.special:
            return self.special[name]()
        if name is LogName.TABLES:
            rows = [[t, n, iso(PROBE_NEWEST)] for t, n in self.tables.items()]
            return Reply(200, result(name, rows))
        unknown = "AzureDiagnostics" if mode is AD and mode is not self.mode else None
        if mode is RS:  # a table the workspace never received does not resolve
            named = [t for t in RESOURCE_TABLES if re.search(rf"\b{t}\b", text)]
            unknown = next((t for t in named if t not in self.tables), None)
        if unknown is not None:
            return Reply(
                400,
                error_body(
                    "BadArgumentError",
                    "The request had some invalid properties",
                    f"'{name.value}': Failed to resolve table expression named '{unknown}'",
                ),
            )
        return Reply(200, result(name, ROWS[name]))

    def responder(self) -> Any:
        return workspace_query(self.answer)


def ask(*names: LogName, **fields: Any) -> list[LogQuery]:
    return [LogQuery(name, SPAN, **fields) for name in names]


def sent_questions(fake: AzureFake) -> list[tuple[LogName, LogMode]]:
    """What each logs request asked, in the order they reached the service (concurrent
    calls may arrive in any order: compare them sorted)."""
    return [which(s.json()["query"]) for s in fake.requests_to("logs")]


async def test_each_question_and_the_probe_is_its_own_query_call(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger, credential: FakeCredential
):
    """``query_workspace`` per question (the ``$batch`` endpoint is deprecated), all of
    them in one round, each a call of its own in the ledger."""
    workspace = Workspace()
    fake.answer("logs", workspace.responder())
    source = await open_source()
    usage, throttles = await source.logs(ask(LogName.KEY_USAGE, LogName.THROTTLES))

    sent = fake.requests_to("logs")
    assert sorted(which(s.json()["query"])[0] for s in sent) == sorted(
        [LogName.KEY_USAGE, LogName.THROTTLES, LogName.TABLES]
    )
    assert set(credential.scopes) == {("https://api.loganalytics.io/.default",)}
    for one in sent:
        assert one.method == "POST"
        assert one.url == f"https://api.loganalytics.io/v1/workspaces/{WORKSPACE}/query"
        assert "$batch" not in one.url
        assert one.headers["Prefer"] == "wait=30"
        body = one.json()
        text = body["query"]
        probe = which(text)[0] is LogName.TABLES  # it looks back a day, not the window
        start = ANCHOR - 24 * 3600 if probe else SPAN.start
        assert body["timespan"] == f"{iso(start)}/{iso(SPAN.end)}"
        assert 'let p_database = "memory";\nlet p_container = "turns";\n' in text
        assert text.startswith('let p_resource_id = "/subscriptions/')

    assert usage.problem is None and throttles.problem is None
    assert usage.table is not None and usage.table.columns == LOG_COLUMNS[LogName.KEY_USAGE]
    assert usage.table.rows[0] == (
        '["contoso"]',
        "2",
        3,
        1812.5,
        240.0,
        1500.0,
        200.0,
        57,
        ["0", "2", "1"],  # a dynamic cell, decoded from its JSON text
    )
    assert usage.table.records()[1]["Key"] == "[42]"  # the key's JSON text: 42 stays a number
    # No time in the rows: the probe says how far the tables it reads were ingested.
    assert usage.as_of == PROBE_NEWEST
    assert throttles.table is not None
    assert throttles.table.rows == (
        (ANCHOR - 120.0, "Query", PARTITION_GUID, 17, 1),  # datetimes as epoch seconds
        (ANCHOR - 60.0, "Read", PARTITION_GUID, 4, 1),
    )
    assert throttles.as_of == ANCHOR - 60
    about = source.about
    assert (about.log_mode, about.has_logs, about.workspace_id) == (RS.value, True, WORKSPACE)
    assert about.label == "Azure Monitor · agentmem" and about.min_refresh_s == 60

    records = ledger.records()
    assert sorted(r.operation for r in records) == [
        "logs: key_usage",
        "logs: tables",
        "logs: throttles",
    ]
    assert len({r.call for r in records}) == 3  # three calls, not one
    for record in records:
        assert (record.kind, record.scope, record.unit, record.status) == (
            Kind.MONITOR,
            Scope.LOGS,
            "call",
            200,
        )
    targets = {r.operation: r.target for r in records}
    assert targets["logs: key_usage"] == "key_usage by tenant"
    assert ledger.totals().request_units == 0


async def test_no_more_than_five_queries_are_in_flight_at_once(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    """Log Analytics runs five queries of a user at a time and queues the rest: twelve
    questions and the probe go out together, never more than five in flight."""
    workspace = Workspace()
    lock = threading.Lock()
    flight = {"now": 0, "most": 0}
    answer = workspace.responder()

    def slow(sent: Sent) -> Reply:
        with lock:
            flight["now"] += 1
            flight["most"] = max(flight["most"], flight["now"])
        time.sleep(0.05)  # long enough for the others to arrive if they were sent
        try:
            return answer(sent)
        finally:
            with lock:
                flight["now"] -= 1

    fake.answer("logs", slow)
    source = await open_source()
    questions = [LogQuery(LogName.KEY_USAGE, SPAN, top=5 + i) for i in range(12)]
    answers = await source.logs(questions)
    assert all(a.problem is None for a in answers)
    assert len(fake.requests_to("logs")) == 13
    assert 1 < flight["most"] <= 5
    assert len(ledger.records()) == 13


async def test_dynamic_cells_are_decoded_and_nulls_stay_null(open_source: Opener, fake: AzureFake):
    workspace = Workspace()
    columns = [("Key", "dynamic"), ("SizeKb", "long")]
    workspace.special[LogName.KEY_STORAGE] = lambda: Reply(
        200,
        {"tables": [table(columns, [['["contoso","t-1"]', 2048], ['{"odd": [1, 2.5]}', None]])]},
    )
    fake.answer("logs", workspace.responder())
    source = await open_source()
    (storage,) = await source.logs(ask(LogName.KEY_STORAGE, level=KeyLevel.KEY))
    assert storage.table is not None
    assert storage.table.rows == ((["contoso", "t-1"], 2048), ({"odd": [1, 2.5]}, None))


def with_partial_usage() -> Workspace:
    """A workspace whose key usage comes back cut short (a partial result): one row, and
    the error beside it."""
    workspace = Workspace()
    partial = result(LogName.KEY_USAGE, ROWS[LogName.KEY_USAGE][:1])
    partial["error"] = error_body(
        "PartialError",
        "There were some errors when processing your query.",
        "Query result set has exceeded the internal data size limit",
    )["error"]
    workspace.special[LogName.KEY_USAGE] = lambda: Reply(200, partial)
    return workspace


async def test_a_partial_result_keeps_its_rows_and_says_so(open_source: Opener, fake: AzureFake):
    fake.answer("logs", with_partial_usage().responder())
    source = await open_source()
    (usage,) = await source.logs(ask(LogName.KEY_USAGE))
    assert usage.table is not None and len(usage.table.rows) == 1
    assert usage.problem is not None and usage.problem.kind is ProblemKind.PARTIAL
    assert "exceeded the internal data size limit" in usage.problem.message
    assert usage.problem.about == "logs: key_usage"


async def test_tables_without_rows_name_the_category_to_enable(
    open_source: Opener, fake: AzureFake
):
    workspace = Workspace(tables={"CDBPartitionKeyRUConsumption": 10})
    fake.answer("logs", workspace.responder())
    source = await open_source()
    names = [LogName.KEY_USAGE, LogName.THROTTLES, LogName.KEY_THROTTLES, LogName.KEY_STORAGE]
    usage, throttles, key_throttles, storage = await source.logs(ask(*names))
    assert usage.problem is None
    # What a question needs, and what to send for it: the aggregated request log first
    # where it is enough (Microsoft's recommendation, far cheaper than per request).
    expected = {
        "logs: throttles": (
            "DataPlaneRequests",
            "DataPlaneRequests5M (aggregated; or DataPlaneRequests, per request)",
        ),
        "logs: key_throttles": ("DataPlaneRequests", "DataPlaneRequests"),
        "logs: key_storage": ("PartitionKeyStatistics", "PartitionKeyStatistics"),
    }
    for answer in (throttles, key_throttles, storage):
        problem = answer.problem
        assert problem is not None and problem.kind is ProblemKind.NO_CATEGORY
        category, send = expected[problem.about]
        assert f"no {category} logs from agentmem" in problem.message
        assert f"send the {send} diagnostic category" in problem.fix
        assert "resource-specific" in problem.fix
        assert answer.table is None


async def test_the_probe_looks_back_a_day_so_a_quiet_window_is_not_a_missing_category(
    open_source: Opener, fake: AzureFake
):
    """The tables probe counts the last 24 h, not the window: an account whose requests
    log last wrote two hours ago has the category enabled; its 15 minutes are quiet."""
    workspace = Workspace()
    two_hours_ago = ANCHOR - 7200

    def logged_two_hours_ago() -> Reply:
        (request,) = [r for n, _, r in workspace.asked if n is LogName.TABLES][-1:]
        start = request["body"]["timespan"].split("/")[0]
        rows = ALL_TABLES if start <= iso(two_hours_ago) else {}
        return Reply(
            200, result(LogName.TABLES, [[t, n, iso(two_hours_ago)] for t, n in rows.items()])
        )

    workspace.special[LogName.TABLES] = logged_two_hours_ago
    workspace.special[LogName.THROTTLES] = lambda: Reply(200, result(LogName.THROTTLES, []))
    fake.answer("logs", workspace.responder())
    source = await open_source()
    (throttles,) = await source.logs(ask(LogName.THROTTLES))
    assert throttles.problem is None, throttles.problem
    assert throttles.table is not None and throttles.table.rows == ()
    (probe,) = [r for n, _, r in workspace.asked if n is LogName.TABLES]
    assert probe["body"]["timespan"] == f"{iso(ANCHOR - 24 * 3600)}/{iso(ANCHOR)}"


async def test_a_short_tables_question_is_not_taken_for_the_probe(
    open_source: Opener, fake: AzureFake
):
    workspace = Workspace()
    fake.answer("logs", workspace.responder())
    source = await open_source()
    await source.logs(ask(LogName.TABLES))  # 15 minutes: the probe goes beside it
    spans = sorted(r["body"]["timespan"] for n, _, r in workspace.asked if n is LogName.TABLES)
    assert spans == sorted(
        [f"{iso(SPAN.start)}/{iso(SPAN.end)}", f"{iso(ANCHOR - 24 * 3600)}/{iso(ANCHOR)}"]
    )


async def test_an_empty_workspace_answers_no_category_everywhere(
    open_source: Opener, fake: AzureFake
):
    workspace = Workspace(tables={})
    fake.answer("logs", workspace.responder())
    source = await open_source()
    answers = await source.logs(ask(LogName.KEY_USAGE, LogName.PARTITION_USAGE))
    assert all(a.problem and a.problem.kind is ProblemKind.NO_CATEGORY for a in answers)
    assert "PartitionKeyRUConsumption" in answers[0].problem.message  # type: ignore[union-attr]
    assert source.about.log_mode == ""
    assert len(fake.requests_to("logs")) == 3  # nothing to fall back to: no second round


async def test_azurediagnostics_only_switches_to_the_legacy_texts_and_remembers(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    workspace = Workspace(
        tables={
            "AzureDiagnostics/PartitionKeyRUConsumption": 800,
            "AzureDiagnostics/DataPlaneRequests": 9000,
        },
        mode=AD,
    )
    fake.answer("logs", workspace.responder())
    source = await open_source()
    usage, storage = await source.logs(ask(LogName.KEY_USAGE, LogName.KEY_STORAGE))
    assert usage.problem is None and usage.table is not None
    assert usage.table.rows[0][0] == '["contoso"]'
    assert storage.problem is not None and storage.problem.kind is ProblemKind.NO_CATEGORY
    assert source.about.log_mode == "AzureDiagnostics"
    asked = sent_questions(fake)
    assert sorted(asked[:3]) == sorted(
        [(LogName.KEY_USAGE, RS), (LogName.KEY_STORAGE, RS), (LogName.TABLES, AD)]
    )
    assert sorted(asked[3:]) == sorted([(LogName.KEY_USAGE, AD), (LogName.KEY_STORAGE, AD)])

    (throttles,) = await source.logs(ask(LogName.THROTTLES))
    assert throttles.problem is None
    # Known now: one round, the legacy texts at once.
    assert sorted(sent_questions(fake)[5:]) == sorted(
        [(LogName.THROTTLES, AD), (LogName.TABLES, AD)]
    )
    statuses = [r.status for r in ledger.records()]
    # The first round's resource-specific texts fail to resolve the tables (400).
    assert statuses.count(400) == 2 and statuses.count(200) == 5


AGGREGATED_5M_ONLY = {
    "CDBPartitionKeyRUConsumption": 5200,
    "CDBPartitionKeyStatistics": 12,
    "CDBDataPlaneRequests5M": 300,  # the request log aggregated: no per-request table
}


def asks_for_the_per_request_log(problem: Any) -> bool:
    return problem is not None and bool(
        re.search(r"send the [^;]*\bDataPlaneRequests\b(?!5M|15M)", problem.fix)
    )


async def test_an_aggregated_request_log_answers_the_429s_and_is_never_told_to_log_more(
    open_source: Opener, fake: AzureFake
):
    """Microsoft recommends DataPlaneRequests5M / 15M over the per-request log: a
    workspace that has only those gets THROTTLES and REQUEST_TOTALS from them, is told
    what they cannot say (429s per key need activity ids and keys), and is never told
    to enable the expensive per-request category."""
    workspace = Workspace(tables=AGGREGATED_5M_ONLY)
    fake.answer("logs", workspace.responder())
    source = await open_source()
    names = [LogName.THROTTLES, LogName.REQUEST_TOTALS, LogName.KEY_THROTTLES, LogName.KEY_USAGE]
    throttles, totals, key_throttles, usage = await source.logs(ask(*names))
    assert throttles.problem is None and throttles.table is not None
    assert totals.problem is None and totals.table is not None
    assert usage.problem is None
    problem = key_throttles.problem
    assert problem is not None and problem.kind is ProblemKind.NOT_LOGGED
    assert "aggregated (CDBDataPlaneRequests5M)" in problem.message
    assert "429s cannot be told per key" in problem.message
    for answer in (throttles, totals, key_throttles, usage):
        assert not asks_for_the_per_request_log(answer.problem), answer.problem
    # The first round guessed the per-request log (it fails to resolve); the probe said
    # which log there is, and what it answers was asked again of it.
    texts = [s.json()["query"] for s in fake.requests_to("logs")]
    again = [t for t in texts[5:]]
    assert sorted(which(t)[0] for t in again) == sorted([LogName.THROTTLES, LogName.REQUEST_TOTALS])
    assert {request_log(t) for t in again} == {"CDBDataPlaneRequests5M"}
    assert all("let p_bin = 5m;" in t and "let p_minutes = 5;" in t for t in again)

    # Known now: one round, the aggregated texts at once, nothing refused.
    sent = len(fake.requests_to("logs"))
    (throttles,) = await source.logs(ask(LogName.THROTTLES))
    assert throttles.problem is None
    texts = [s.json()["query"] for s in fake.requests_to("logs")[sent:]]
    assert sorted(which(t)[0] for t in texts) == sorted([LogName.THROTTLES, LogName.TABLES])
    (text,) = [t for t in texts if which(t)[0] is LogName.THROTTLES]
    assert request_log(text) == "CDBDataPlaneRequests5M"


async def test_the_15_minute_log_is_read_where_it_is_the_only_one(
    open_source: Opener, fake: AzureFake
):
    workspace = Workspace(tables={"CDBPartitionKeyRUConsumption": 5, "CDBDataPlaneRequests15M": 9})
    fake.answer("logs", workspace.responder())
    source = await open_source()
    await source.logs(ask(LogName.THROTTLES))
    (totals,) = await source.logs(ask(LogName.REQUEST_TOTALS))
    assert totals.problem is None
    text = fake.requests_to("logs")[-2:]
    (sent,) = [s.json()["query"] for s in text if which(s.json()["query"])[0] is not LogName.TABLES]
    assert request_log(sent) == "CDBDataPlaneRequests15M" and "let p_bin = 15m;" in sent


async def test_the_per_request_log_is_read_where_there_are_both(
    open_source: Opener, fake: AzureFake
):
    """Per-request rows tell more (activity ids, keys): with both, they are read."""
    workspace = Workspace(tables={**ALL_TABLES, "CDBDataPlaneRequests5M": 300})
    fake.answer("logs", workspace.responder())
    source = await open_source()
    throttles, keys = await source.logs(ask(LogName.THROTTLES, LogName.KEY_THROTTLES))
    assert throttles.problem is None and keys.problem is None
    assert all(request_log(s.json()["query"]) is None for s in fake.requests_to("logs"))
    assert len(fake.requests_to("logs")) == 3  # no second round


async def test_legacy_per_request_logs_beside_an_aggregated_table_keep_the_legacy_texts(
    open_source: Opener, fake: AzureFake
):
    """The aggregated tables are resource-specific only: a workspace whose per-request
    logs go to AzureDiagnostics reads those, and its 5M table does not make it look
    resource-specific."""
    workspace = Workspace(
        tables={
            "AzureDiagnostics/PartitionKeyRUConsumption": 800,
            "AzureDiagnostics/DataPlaneRequests": 9000,
            "CDBDataPlaneRequests5M": 40,
        },
        mode=AD,
    )
    fake.answer("logs", workspace.responder())
    source = await open_source()
    usage, throttles = await source.logs(ask(LogName.KEY_USAGE, LogName.THROTTLES))
    assert usage.problem is None and throttles.problem is None
    assert source.about.log_mode == "AzureDiagnostics"
    last = [which(s.json()["query"]) for s in fake.requests_to("logs")[3:]]
    assert sorted(last) == sorted([(LogName.KEY_USAGE, AD), (LogName.THROTTLES, AD)])


async def test_nothing_but_the_aggregated_log_for_the_keys_names_the_ru_log(
    open_source: Opener, fake: AzureFake
):
    """Without the RU log, per-key questions still ask for PartitionKeyRUConsumption —
    and the 429 questions stay answered from the aggregated log."""
    workspace = Workspace(tables={"CDBDataPlaneRequests5M": 300})
    fake.answer("logs", workspace.responder())
    source = await open_source()
    usage, throttles = await source.logs(ask(LogName.KEY_USAGE, LogName.THROTTLES))
    assert usage.problem is not None and usage.problem.kind is ProblemKind.NO_CATEGORY
    assert "PartitionKeyRUConsumption" in usage.problem.fix
    assert throttles.problem is None
    assert source.about.log_mode == RS.value


async def test_one_failed_item_leaves_the_others_and_says_what_the_service_said(
    open_source: Opener, fake: AzureFake
):
    workspace = Workspace()
    workspace.special[LogName.PARTITION_USAGE] = lambda: Reply(
        400,
        error_body(
            "BadArgumentError",
            "The request had some invalid properties",
            "'where' operator: Failed to resolve column or scalar expression named "
            "'requestCharge_x'",
        ),
    )
    fake.answer("logs", workspace.responder())
    source = await open_source()
    usage, partitions = await source.logs(ask(LogName.KEY_USAGE, LogName.PARTITION_USAGE))
    assert usage.problem is None
    problem = partitions.problem
    assert problem is not None and problem.kind is ProblemKind.QUERY_ERROR
    assert "Failed to resolve column or scalar expression named 'requestCharge_x'" in (
        problem.message
    )  # the innermost message, not "invalid properties"
    assert problem.about == "logs: partition_usage"


async def test_a_service_message_echoing_a_hostile_name_stays_inert(
    open_source: Opener, fake: AzureFake
):
    workspace = Workspace()
    echoed = "Failed to resolve 'acme\x1b[2J\x07'\nsecond line"
    workspace.special[LogName.KEY_USAGE] = lambda: Reply(
        400, error_body("BadArgumentError", "invalid", echoed)
    )
    fake.answer("logs", workspace.responder())
    source = await open_source()
    (usage,) = await source.logs(ask(LogName.KEY_USAGE))
    assert usage.problem is not None
    assert "\x1b" not in usage.problem.message and "\x07" not in usage.problem.message
    assert "acme\\x1b[2J\\x07" in usage.problem.message
    assert "second line" not in usage.problem.message


async def test_a_throttled_item_holds_logs_off(
    open_source: Opener, fake: AzureFake, clock: FrozenClock
):
    workspace = Workspace()
    workspace.special[LogName.KEY_USAGE] = lambda: Reply(
        429,
        error_body(
            "ThrottledError", "Your request was throttled", "too many requests from this user"
        ),
    )
    fake.answer("logs", workspace.responder())
    source = await open_source()
    usage, throttles = await source.logs(ask(LogName.KEY_USAGE, LogName.THROTTLES))
    assert usage.problem is not None and usage.problem.kind is ProblemKind.THROTTLED
    assert throttles.problem is None
    clock.advance(10)
    (held,) = await source.logs(ask(LogName.THROTTLES))
    assert held.problem is not None and held.problem.kind is ProblemKind.THROTTLED
    assert len(fake.requests_to("logs")) == 3  # the round's three calls, then none


class Phases:
    """A responder that answers every request with the current phase's reply (concurrent
    calls arrive in any order: each phase answers all of them alike)."""

    def __init__(self, *phases: Reply | Callable[[Sent], Reply]) -> None:
        self.phases = list(phases)
        self.now = 0

    def __call__(self, sent: Sent) -> Reply:
        phase = self.phases[self.now]
        return phase(sent) if callable(phase) else phase


async def test_a_throttled_round_holds_logs_off_but_not_metrics(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger, clock: FrozenClock
):
    workspace = Workspace()
    busy = Reply(429, error_body("ThrottledError", "Too many requests"), {"Retry-After": "30"})
    phases = Phases(busy, workspace.responder())
    fake.answer("logs", phases)
    body = metrics_body(SPAN.start, SPAN.end, metric("TotalRequests", "Count", []))
    fake.answer("metrics", Reply(200, body))
    source = await open_source()
    answers = await source.logs(ask(LogName.KEY_USAGE, LogName.THROTTLES))
    for answer in answers:
        assert answer.problem is not None and answer.problem.kind is ProblemKind.THROTTLED
        assert answer.problem.retry_after_s == 30.0
    phases.now = 1
    clock.advance(15)
    (held,) = await source.logs(ask(LogName.KEY_USAGE))
    assert held.problem is not None and held.problem.retry_after_s == 15.0
    assert len(fake.requests_to("logs")) == 3  # a second call within 30 s sends nothing
    (metrics,) = await source.metrics([MetricQuery("req", ("TotalRequests",), "Count", 60, SPAN)])
    assert metrics.problem is None  # metrics are held off on their own, not with logs
    clock.advance(16)
    (usage,) = await source.logs(ask(LogName.KEY_USAGE))
    assert usage.problem is None and len(fake.requests_to("logs")) == 5
    assert ledger.totals().monitor_throttled == 3


async def test_denied_calls_name_the_workspace_role(open_source: Opener, fake: AzureFake):
    phases = Phases(
        Reply(
            401, error_body("AuthorizationRequiredError", "Valid authentication was not provided")
        ),
        Reply(
            403,
            error_body(
                "InsufficientAccessError", "The provided credentials have insufficient access"
            ),
        ),
    )
    fake.answer("logs", phases)
    source = await open_source()
    (unauthorized,) = await source.logs(ask(LogName.KEY_USAGE))
    phases.now = 1
    (forbidden,) = await source.logs(ask(LogName.KEY_USAGE))
    assert unauthorized.problem is not None
    assert unauthorized.problem.kind is ProblemKind.UNAUTHORIZED
    assert f"Log Analytics Reader on the workspace {WORKSPACE}" in unauthorized.problem.fix
    assert forbidden.problem is not None and forbidden.problem.kind is ProblemKind.FORBIDDEN
    assert "insufficient access" in forbidden.problem.message


async def test_a_refused_query_is_a_query_error_with_the_innermost_message(
    open_source: Opener, fake: AzureFake
):
    fake.answer(
        "logs",
        Reply(
            400,
            error_body(
                "BadArgumentError",
                "The request had some invalid properties",
                "Query contains too many requests",
            ),
        ),
    )
    source = await open_source()
    answers = await source.logs(ask(LogName.KEY_USAGE, LogName.THROTTLES))
    for answer in answers:
        assert answer.problem is not None and answer.problem.kind is ProblemKind.QUERY_ERROR
        assert "too many requests" in answer.problem.message


async def test_without_a_workspace_every_log_answer_says_how_to_add_one(
    open_source: Opener, fake: AzureFake
):
    body = metrics_body(SPAN.start, SPAN.end, metric("TotalRequests", "Count", []))
    fake.answer("metrics", Reply(200, body))
    source = await open_source(workspace_id=None)
    answers = await source.logs(ask(LogName.KEY_USAGE, LogName.TABLES))
    for answer in answers:
        assert answer.problem is not None and answer.problem.kind is ProblemKind.NO_WORKSPACE
        assert "--workspace-id / COSMEM_WORKSPACE_ID" in answer.problem.fix
    assert fake.requests_to("logs") == []
    assert source.about.has_logs is False
    (metrics,) = await source.metrics([MetricQuery("req", ("TotalRequests",), "Count", 60, SPAN)])
    assert metrics.problem is None


async def test_each_question_carries_its_own_top(open_source: Opener, fake: AzureFake):
    workspace = Workspace()
    fake.answer("logs", workspace.responder())
    source = await open_source()
    questions = [LogQuery(LogName.KEY_USAGE, SPAN, top=5 + i) for i in range(12)]
    answers = await source.logs(questions)
    assert all(a.problem is None for a in answers)
    tops = [
        int(line.split("=")[1].strip(" ;"))
        for s in fake.requests_to("logs")
        for line in s.json()["query"].splitlines()
        if line.startswith("let p_top")
    ]
    assert sorted(tops) == sorted([5 + i for i in range(12)] + [100])  # and the probe's


async def test_the_callers_tables_question_is_the_probe(open_source: Opener, fake: AzureFake):
    workspace = Workspace()
    fake.answer("logs", workspace.responder())
    source = await open_source()
    day = Span(ANCHOR - 24 * 3600, ANCHOR)
    tables, usage = await source.logs([LogQuery(LogName.TABLES, day), *ask(LogName.KEY_USAGE)])
    assert len(fake.requests_to("logs")) == 2  # a day's tables question: the probe itself
    assert tables.table is not None
    assert {row[0]: row[1] for row in tables.table.rows} == ALL_TABLES
    assert {row[2] for row in tables.table.rows} == {PROBE_NEWEST}
    assert usage.problem is None


async def test_a_tables_question_cut_short_is_not_the_probe(open_source: Opener, fake: AzureFake):
    workspace = Workspace()
    fake.answer("logs", workspace.responder())
    source = await open_source()
    tables, usage = await source.logs(
        [LogQuery(LogName.TABLES, SPAN, top=1), *ask(LogName.KEY_USAGE)]
    )
    assert sorted(name for name, _ in sent_questions(fake)) == sorted(
        [LogName.TABLES, LogName.KEY_USAGE, LogName.TABLES]
    )
    assert tables.problem is None and usage.problem is None


async def test_a_hostile_tenant_reaches_the_service_as_one_literal(
    open_source: Opener, fake: AzureFake
):
    workspace = Workspace()
    fake.answer("logs", workspace.responder())
    source = await open_source()
    hostile = 'x" | take 1000000 //\n\\"\r'
    await source.logs(ask(LogName.KEY_USAGE, level=KeyLevel.KEY, tenant=Key.of(hostile)))
    (text,) = [
        s.json()["query"]
        for s in fake.requests_to("logs")
        if which(s.json()["query"])[0] is LogName.KEY_USAGE
    ]
    tenant_lines = [line for line in text.splitlines() if line.startswith("let p_tenant")]
    assert len(tenant_lines) == 1
    strings = [value for kind, value in lex(tenant_lines[0]) if kind == "string"]
    assert json.loads(strings[0]) == [hostile]
    assert "take 1000000" not in "".join(v for k, v in lex(text) if k == "code")


async def test_columns_other_than_the_contracts_are_refused(open_source: Opener, fake: AzureFake):
    workspace = Workspace()
    workspace.special[LogName.KEY_STORAGE] = lambda: Reply(
        200, {"tables": [table([("PartitionKey", "string"), ("SizeKb", "long")], [["x", 1]])]}
    )
    fake.answer("logs", workspace.responder())
    source = await open_source()
    (storage,) = await source.logs(ask(LogName.KEY_STORAGE))
    assert storage.problem is not None and storage.problem.kind is ProblemKind.QUERY_ERROR
    assert "returned columns PartitionKey, SizeKb; expected Key, SizeKb" in storage.problem.message
    assert storage.table is None


async def test_the_workspace_refuses_what_log_analytics_refuses(
    open_source: Opener, fake: AzureFake, monkeypatch: pytest.MonkeyPatch
):
    """The fake runs every text through Microsoft's parser first: a text Log Analytics
    would reject (here the old ``top`` with two sort keys) is a query error, as on a real
    workspace, never rows."""
    original = kql.load_query

    def old_throttles(dialect: str, name: str) -> str:
        text = original(dialect, name)
        if name == "throttles":
            text = text.replace(
                "| sort by TimeGenerated desc, Throttled desc\n| take p_top",
                "| top p_top by TimeGenerated desc, Throttled desc",
            )
        return text

    monkeypatch.setattr(kql, "load_query", old_throttles)
    workspace = Workspace()
    fake.answer("logs", workspace.responder())
    source = await open_source()
    usage, throttles = await source.logs(ask(LogName.KEY_USAGE, LogName.THROTTLES))
    assert usage.problem is None and usage.table is not None
    problem = throttles.problem
    assert problem is not None and problem.kind is ProblemKind.QUERY_ERROR
    assert "KS198" in problem.message and "The incomplete fragment is unexpected" in problem.message
    assert throttles.table is None
    assert [name for name, _, _ in workspace.asked] == [LogName.KEY_USAGE, LogName.TABLES]
