"""Log questions → KQL aggregations in Log Analytics, one ``query_workspace`` each.

All ``LogQuery``s of one call go out together, each its own ``query_workspace`` call
(concurrently, at most ``CONCURRENT`` at a time: Log Analytics runs five queries of a
user at once and queues the rest), with the TABLES probe beside them unless the caller
asked for it. The ``$batch`` endpoint ``query_batch`` used is deprecated (support ends
31 March 2028, "migrate batch and beta"); separate calls are still one round per
refresh, and each is one call in the ledger, under its own deadline. The probe counts,
for this account over the last ``PROBE_LOOKBACK_S`` (24 h, not the window: a quiet
quarter of an hour is not a category that was never enabled), the rows of each
diagnostic table. From it:

* the **mode**: resource-specific tables (``CDB*``) when they hold rows, else the legacy
  ``AzureDiagnostics`` table when it holds Cosmos rows — then the questions are asked
  again in that dialect, and the mode is remembered for the next calls;
* the **request log**: the per-request one (``DataPlaneRequests``) when it holds rows,
  else the aggregated ``CDBDataPlaneRequests5M`` / ``15M`` (Microsoft's recommendation,
  learn "Monitor data using aggregated diagnostics logs"), from which the questions it
  can answer (``AGGREGATED``: THROTTLES, REQUEST_TOTALS) are asked; the others need
  activity ids and keys, and say so (NOT_LOGGED) — a workspace with the aggregated
  logs is never told to enable the expensive per-request category;
* **NO_CATEGORY** for a question whose table held nothing in those 24 h: the answer
  names the diagnostic category to send to the workspace.

Every text aggregates where the logs are and ends in ``top N``: no raw log rows are
downloaded. Cells come back as plain values (datetimes as epoch seconds, ``dynamic``
cells decoded from their JSON text); a partial result keeps its rows and says PARTIAL;
a failed item says what the service said, innermost message first.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from azure.monitor.query import (
    LogsQueryPartialResult,
    LogsQueryResult,
    LogsTable,
)

from cosmem_tui.model.telemetry import (
    LOG_COLUMNS,
    LogAnswer,
    LogName,
    LogQuery,
    LogTable,
    ProblemKind,
    Span,
    TelemetryProblem,
)
from cosmem_tui.sources.monitor.calls import MonitorCalls
from cosmem_tui.sources.monitor.clients import MonitorClients
from cosmem_tui.sources.monitor.failures import MonitorFailure, Service, one_line
from cosmem_tui.sources.monitor.kql import (
    AGGREGATED,
    PER_REQUEST_CATEGORIES,
    Category,
    KqlError,
    LogMode,
    RequestLog,
    needs,
    render,
)
from cosmem_tui.sources.monitor.metrics import span_datetimes
from cosmem_tui.sources.monitor.settings import ENV, MonitorSettings

# Queries in flight at once: Log Analytics runs five of a user concurrently and queues
# the others (learn "Azure Monitor service limits", log queries).
CONCURRENT = 5
PROBE_TOP = 100
# How far back the probe looks for each table's rows: logs arrive minutes late and an
# idle account writes none for a while, so a window's emptiness says nothing of the
# diagnostic setting; a day without a single row does.
PROBE_LOOKBACK_S = 24 * 3600
ItemResult = LogsQueryResult | LogsQueryPartialResult | MonitorFailure


def about(name: LogName) -> str:
    return f"logs: {name.value}"


@dataclass(frozen=True, slots=True)
class Dialect:
    """Where a workspace keeps the logs: which kind of table, and which request log."""

    mode: LogMode = LogMode.RESOURCE_SPECIFIC
    requests: RequestLog = RequestLog.PER_REQUEST

    def requests_for(self, name: LogName) -> RequestLog:
        """The request log ``name`` is asked of (the per-request one, unless it is one of
        the questions an aggregated log answers and that is the log there is)."""
        return self.requests if name in AGGREGATED else RequestLog.PER_REQUEST

    def needs(self, name: LogName) -> tuple[Category, ...]:
        return needs(name, self.requests_for(name))


@dataclass(frozen=True, slots=True)
class TableCounts:
    """What the TABLES probe found: rows per table (``AzureDiagnostics/<Category>``)."""

    rows: Mapping[str, int]
    newest: Mapping[str, float] = field(default_factory=dict)  # latest log time per table

    def has(self, category: Category, mode: LogMode) -> bool:
        return self.rows.get(category.table_in(mode), 0) > 0

    def as_of(self, name: LogName, dialect: Dialect) -> float | None:
        """How far ingestion has got in the tables a question reads: the oldest of their
        newest times (a join is only as fresh as its staler side)."""
        times = [self.newest.get(c.table_in(dialect.mode)) for c in dialect.needs(name)]
        known = [t for t in times if t is not None]
        return min(known) if known and len(known) == len(times) else None

    def mode(self) -> LogMode | None:
        for mode in LogMode:  # resource-specific first: Microsoft's recommendation
            if any(self.has(category, mode) for category in PER_REQUEST_CATEGORIES):
                return mode
        if self.aggregated() is not None:  # only the aggregated request log
            return LogMode.RESOURCE_SPECIFIC
        return None

    def aggregated(self) -> RequestLog | None:
        """The aggregated request log with rows (the finer first), or None."""
        for log in (RequestLog.AGGREGATED_5M, RequestLog.AGGREGATED_15M):
            if self.has(log.category, LogMode.RESOURCE_SPECIFIC):
                return log
        return None

    def dialect(self) -> Dialect | None:
        mode = self.mode()
        if mode is None:
            return None
        if self.has(Category.DATA_PLANE, mode):
            return Dialect(mode, RequestLog.PER_REQUEST)
        return Dialect(mode, self.aggregated() or RequestLog.PER_REQUEST)

    def missing(self, name: LogName, dialect: Dialect) -> tuple[Category, ...]:
        return tuple(c for c in dialect.needs(name) if not self.has(c, dialect.mode))


def no_workspace(query: LogQuery) -> LogAnswer:
    return LogAnswer(
        query,
        problem=TelemetryProblem(
            ProblemKind.NO_WORKSPACE,
            "no Log Analytics workspace configured: per-key RU, 429s by key and storage "
            "by key come from the account's diagnostic logs",
            f"set --workspace-id / {ENV['workspace_id']} to the workspace that receives "
            "the account's diagnostic logs",
            about(query.name),
        ),
    )


def no_category(
    query: LogQuery, missing: Sequence[Category], settings: MonitorSettings
) -> LogAnswer:
    names = " and ".join(c.value for c in missing)
    sends = names
    if query.name in AGGREGATED and Category.DATA_PLANE in missing:
        # What these need the aggregated log gives, at a fraction of the per-request one's
        # cost: Microsoft's recommendation, so the fix names it first.
        others = [c.value for c in missing if c is not Category.DATA_PLANE]
        sends = " and ".join(
            [*others, "DataPlaneRequests5M (aggregated; or DataPlaneRequests, per request)"]
        )
    return LogAnswer(
        query,
        problem=TelemetryProblem(
            ProblemKind.NO_CATEGORY,
            f"no {names} logs from {settings.account} in workspace {settings.workspace_id} "
            "in the last 24 h",
            f"send the {sends} diagnostic category of {settings.account} to this workspace "
            "(diagnostic setting, destination table: resource-specific); logs arrive "
            "minutes after it is saved",
            about(query.name),
        ),
    )


def not_logged(query: LogQuery, log: RequestLog, settings: MonitorSettings) -> LogAnswer:
    """A question the workspace's aggregated request log cannot answer (it has no activity
    ids and no keys). Never a fix that enables the per-request category: the workspace
    chose the aggregated one, as Microsoft recommends."""
    table = log.category.table
    return LogAnswer(
        query,
        problem=TelemetryProblem(
            ProblemKind.NOT_LOGGED,
            f"{settings.account} logs its requests aggregated ({table}), which name no "
            "request and no partition key: 429s cannot be told per key",
            "the window's 429s are counted from the aggregated log; the per-key column stays blank",
            about(query.name),
        ),
    )


def cell(value: Any, kind: str) -> Any:
    """One cell as plain data: datetimes → epoch seconds, ``dynamic`` JSON text → value."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.timestamp()
    if kind == "dynamic" and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def to_table(name: LogName, tables: Sequence[LogsTable]) -> LogTable:
    expected = LOG_COLUMNS[name]
    if not tables:
        raise MonitorFailure(ProblemKind.QUERY_ERROR, "Log Analytics answered without a table")
    table = tables[0]
    columns = tuple(table.columns)
    if columns != expected:
        raise MonitorFailure(
            ProblemKind.QUERY_ERROR,
            f"the {name.value} query returned columns {', '.join(columns)}; "
            f"expected {', '.join(expected)}",
            "the query text is the console's: report it",
        )
    kinds = list(table.columns_types)
    rows = tuple(
        tuple(cell(value, kind) for value, kind in zip(row, kinds, strict=True))
        for row in table.rows
    )
    return LogTable(columns, rows)


def as_of(name: LogName, table: LogTable) -> float | None:
    """The newest log time in the answer, for the questions whose rows carry one."""
    if name is not LogName.THROTTLES:
        return None
    times = [t for t in (r[0] for r in table.rows) if isinstance(t, int | float)]
    return max(times) if times else None


def probe_counts(result: ItemResult | None) -> TableCounts | None:
    if not isinstance(result, LogsQueryResult):
        return None  # a failed or partial probe says nothing reliable
    try:
        table = to_table(LogName.TABLES, result.tables)
    except MonitorFailure:
        return None
    rows: dict[str, int] = {}
    newest: dict[str, float] = {}
    for name, count, latest in table.rows:
        if isinstance(name, str) and isinstance(count, int | float):
            rows[name] = int(count)
            if isinstance(latest, int | float):
                newest[name] = float(latest)
    return TableCounts(rows, newest)


def probe_span(spans: Sequence[Span]) -> Span:
    """The probe's span: ``PROBE_LOOKBACK_S`` up to the latest end asked (or all that
    was asked, when that reaches further back)."""
    end = max(s.end for s in spans)
    return Span(min(end - PROBE_LOOKBACK_S, *(s.start for s in spans)), end)


def is_probe(query: LogQuery) -> bool:
    """Whether a caller's TABLES question can serve as the probe: its top cannot cut the
    list of tables short (a missing row would read as a missing category) and it looks
    back as far as the probe does."""
    return (
        query.name is LogName.TABLES
        and query.top >= PROBE_TOP
        and query.span.seconds >= PROBE_LOOKBACK_S
    )


class LogsSource:
    def __init__(
        self, calls: MonitorCalls, clients: MonitorClients, settings: MonitorSettings
    ) -> None:
        self._calls = calls
        self._clients = clients
        self._settings = settings
        self.dialect: Dialect | None = None  # unknown until a probe found rows

    @property
    def mode(self) -> LogMode | None:
        return self.dialect.mode if self.dialect is not None else None

    async def answer(self, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        workspace = self._settings.workspace_id
        if workspace is None:
            return [no_workspace(q) for q in queries]
        if not queries:
            return []
        if self._calls.held_for(Service.LOGS) > 0:
            failure = self._calls.held(Service.LOGS)
            return [LogAnswer(q, problem=failure.problem(about(q.name))) for q in queries]
        asked = list(queries)
        # The caller's own TABLES question is the probe when it can be (``is_probe``).
        probe_at = next((i for i, q in enumerate(asked) if is_probe(q)), None)
        if probe_at is None:  # the console's own probe rides along, answered to no one
            asked.append(
                LogQuery(LogName.TABLES, probe_span([q.span for q in queries]), top=PROBE_TOP)
            )
            probe_at = len(asked) - 1
        dialect = self.dialect or Dialect()
        results = await self._ask(workspace, asked, dialect)
        counts = probe_counts(results[probe_at])
        found = counts.dialect() if counts is not None else None
        if found is not None and found != dialect:
            # Asked in the wrong dialect: again, the questions whose text differs.
            data = [
                i
                for i, q in enumerate(asked)
                if q.name is not LogName.TABLES
                and (found.mode, found.requests_for(q.name))
                != (dialect.mode, dialect.requests_for(q.name))
            ]
            again = await self._ask(workspace, [asked[i] for i in data], found)
            for i, result in zip(data, again, strict=True):
                results[i] = result
            dialect = found
        if found is not None:
            self.dialect = found
        return [self._answer(query, results[i], counts, dialect) for i, query in enumerate(queries)]

    def _answer(
        self,
        query: LogQuery,
        result: ItemResult | None,
        counts: TableCounts | None,
        dialect: Dialect,
    ) -> LogAnswer:
        if counts is not None and query.name is not LogName.TABLES:
            # Before the item's own failure: a table that was never created fails the
            # query ("failed to resolve table"), and the category is what to fix — or,
            # where the request log is only the aggregated one, what it cannot tell.
            missing = counts.missing(query.name, counts.dialect() or dialect)
            aggregated = counts.aggregated()
            if Category.DATA_PLANE in missing and aggregated is not None:
                return not_logged(query, aggregated, self._settings)
            if missing:
                return no_category(query, missing, self._settings)
        if isinstance(result, MonitorFailure):
            return LogAnswer(query, problem=result.problem(about(query.name)))
        try:
            answer = self._converted(query, result)
        except MonitorFailure as failure:
            return LogAnswer(query, problem=failure.problem(about(query.name)))
        if answer.as_of is None and counts is not None:
            # Aggregates carry no time of their own: the probe says how far the tables
            # they read have been ingested.
            answer = replace(answer, as_of=counts.as_of(query.name, dialect))
        return answer

    def _converted(self, query: LogQuery, result: ItemResult | None) -> LogAnswer:
        if isinstance(result, LogsQueryResult):
            table = to_table(query.name, result.tables)
            return LogAnswer(query, table, as_of=as_of(query.name, table))
        if isinstance(result, LogsQueryPartialResult):
            table = to_table(query.name, result.partial_data)
            said = one_line(getattr(result.partial_error, "message", "") or "")
            problem = TelemetryProblem(
                ProblemKind.PARTIAL,
                "Log Analytics returned part of the answer" + (f": {said}" if said else ""),
                "these rows are incomplete; a shorter window may answer in full",
                about(query.name),
            )
            return LogAnswer(query, table, problem, as_of(query.name, table))
        raise MonitorFailure(ProblemKind.QUERY_ERROR, "Log Analytics sent no answer for it")

    async def _ask(
        self, workspace: str, queries: Sequence[LogQuery], dialect: Dialect
    ) -> list[ItemResult | None]:
        """Each query's result (or the failure of its call), in order: every text sent at
        once, each in its own call."""
        results: list[ItemResult | None] = [None] * len(queries)
        sendable: list[tuple[int, str]] = []
        for i, query in enumerate(queries):
            try:
                text = render(
                    query,
                    dialect.mode,
                    resource_id=self._settings.resource_id,
                    database=query.database or self._settings.database,
                    container=query.container or self._settings.container,
                    requests=dialect.requests_for(query.name),
                )
            except KqlError as exc:
                results[i] = MonitorFailure(ProblemKind.QUERY_ERROR, str(exc))
                continue
            sendable.append((i, text))
        gate = asyncio.Semaphore(CONCURRENT)
        answers = await asyncio.gather(
            *(self._send(workspace, queries[i], text, gate) for i, text in sendable)
        )
        for (i, _), answer in zip(sendable, answers, strict=True):
            results[i] = answer
        return results

    async def _send(
        self, workspace: str, query: LogQuery, text: str, gate: asyncio.Semaphore
    ) -> ItemResult:
        client = self._clients.logs()

        async def send() -> LogsQueryResult | LogsQueryPartialResult:
            return await client.query_workspace(
                workspace,
                text,
                timespan=span_datetimes(query.span),
                server_timeout=max(1, int(self._settings.timeout_s)),
            )

        async with gate:
            try:
                return await self._calls.run(Service.LOGS, about(query.name), target(query), send)
            except MonitorFailure as failure:
                return failure


def target(query: LogQuery) -> str:
    """What a logs call asked, for the ledger (the simulator names its calls alike)."""
    text = f"{query.name.value} by {query.level.value}"
    return text + (f" of {query.tenant.text}" if query.tenant is not None else "")
