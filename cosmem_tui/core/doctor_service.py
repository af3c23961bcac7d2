"""Gathering the doctor's evidence: every read metadata only, each one metered.

``DoctorService.run`` asks, in order and each through the session's ledger (so under
its budget, hold-offs and deadlines):

1. the data plane (``AccessProbe``): the account document, the container's properties,
   a point read and a count of a key no item has — or, on a workspace, its properties;
2. Azure Resource Manager (``AccountInspector``, with ``--resource-id``): the account's
   features, the container's offer (skipped on a serverless account, which has none)
   and the diagnostic settings;
3. the telemetry the session already has (``TelemetryReader``, answers reused for a
   minute): one metrics call (RU of the last five whole minutes, filtered to the
   container: does Monitoring Reader hold?) and the logs' table probe over 24 hours
   (which tables hold this account's rows: a quiet hour is not a missing category).

What each read cost is kept with it, so the report says what every verdict rests on.
Nothing raises for what a service answers: a refusal is evidence.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from cosmem_tui.core.doctor import diagnose
from cosmem_tui.core.telemetry_reader import TelemetryReader, span_ending
from cosmem_tui.model import Clock, Meter
from cosmem_tui.model.doctor import (
    AccessReport,
    AccountFeatures,
    Cost,
    DoctorEvidence,
    DoctorReport,
    ReadFailure,
    Reading,
    SessionFacts,
    TelemetryKind,
)
from cosmem_tui.model.telemetry import (
    TOTAL_REQUEST_UNITS,
    LogName,
    LogQuery,
    MetricQuery,
    ProblemKind,
    Span,
    TelemetryProblem,
    Window,
)
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.inspection import AccessProbe, AccountInspector, InspectionFailed
from cosmem_tui.sources.request_ledger import RequestLedger

T = TypeVar("T")

METRICS_SPAN_S = 300  # the last five whole minutes: enough to see the call answer
TABLES_WINDOW = Window.H24  # a quiet hour has no rows; a day of none is telling
TABLES_TOP = 100

_FAILURE_KINDS = {
    ProblemKind.UNAUTHORIZED: "unauthorized",
    ProblemKind.FORBIDDEN: "forbidden",
    ProblemKind.UNREACHABLE: "unreachable",
    ProblemKind.THROTTLED: "throttled",
    ProblemKind.NO_WORKSPACE: "not-configured",
    ProblemKind.NOT_CONFIGURED: "not-configured",
    ProblemKind.NOT_COSMOS: "not-found",
}


def failure_of(problem: TelemetryProblem) -> ReadFailure:
    return ReadFailure(_FAILURE_KINDS.get(problem.kind, "error"), problem.message, problem.fix)


class DoctorService:
    def __init__(
        self,
        facts: SessionFacts,
        ledger: RequestLedger,
        clock: Clock,
        *,
        access: AccessProbe | None = None,
        inspector: AccountInspector | None = None,
        telemetry: TelemetryReader | None = None,
        schema: Schema | None = None,
        schema_note: str = "",
        user_dir: Path | None = None,
    ) -> None:
        self.facts = facts
        self.ledger = ledger
        self.clock = clock
        self.access = access
        self.inspector = inspector
        self.telemetry = telemetry
        self.schema = schema
        self.schema_note = schema_note
        self.user_dir = user_dir

    async def run(self, *, demo: bool | None = None) -> DoctorReport:
        """Read the evidence and diagnose it. ``demo``: the session is the embedded demo
        (the app knows it better than the options the session was opened with)."""
        facts = self.facts if demo is None else replace(self.facts, demo=demo)
        access = await self._access()
        schema, note, key = self._schema(access.value if access is not None else None)
        account = offer = diagnostics = None
        if self.inspector is not None:
            inspector = self.inspector
            account = await self._read(
                "the account in Azure Resource Manager (its properties)", inspector.features
            )
            features: AccountFeatures | None = account.value
            if features is None or not features.serverless:
                offer = await self._read(
                    "the container's offer in Azure Resource Manager",
                    lambda: inspector.offer(self.facts.database, self.facts.container),
                )
            diagnostics = await self._read(
                "the account's diagnostic settings", inspector.diagnostic_settings
            )
        metrics, tables = await self._telemetry()
        evidence = DoctorEvidence(
            session=facts,
            access=access,
            schema=schema,
            schema_note=note,
            schema_key=key,
            # Where the schema's retrieval (or its guess) looks for the embedding.
            embedding_path=(
                self.schema.how_it_retrieves.embedding.text if self.schema is not None else None
            ),
            account=account,
            offer=offer,
            diagnostics=diagnostics,
            metrics=metrics,
            tables=tables,
        )
        return diagnose(evidence, at=self.clock.now())

    # -- the reads ------------------------------------------------------------------------

    async def _read(self, what: str, read: Callable[[], Awaitable[T]]) -> Reading[T]:
        with self.ledger.meter() as meter:
            try:
                value = await read()
            except InspectionFailed as exc:
                return Reading(what, failure=exc.failure, cost=Cost.of(meter))
        return Reading(what, value, cost=Cost.of(meter))

    async def _access(self) -> Reading[AccessReport] | None:
        if self.access is None:
            return None
        report = await self._read("the data plane", self.access.probe)
        value = report.value
        failure = value.container_failure if value is not None else None
        return Reading(report.what, value, failure if value is None else None, report.cost)

    def _schema(self, access: AccessReport | None) -> tuple[str | None, str, tuple[str, ...]]:
        """The schema the items are read with; without one, the one the container's key
        and name single out (no item is read to detect it)."""
        if self.schema is not None:
            return self.schema.name, self.schema_note, tuple(self.schema.partition_key)
        container = access.container if access is not None else None
        if container is not None:
            from cosmem_tui.core.schema_choice import decided_by_metadata, facts_of
            from cosmem_tui.schemas import all_schemas

            known = decided_by_metadata(all_schemas(self.user_dir), facts_of(container))
            if known is not None:
                return (
                    known.name,
                    "singled out by the container's key and name",
                    tuple(known.partition_key),
                )
        return (
            None,
            "no schema named, and the container's properties single none out: the console "
            "detects one from a sample when it opens (the doctor reads no item)",
            (),
        )

    async def _telemetry(
        self,
    ) -> tuple[Reading[int] | None, Reading[tuple[tuple[str, int], ...]] | None]:
        reader = self.telemetry
        if reader is None or self.facts.telemetry is TelemetryKind.NONE:
            return None, None
        now = self.clock.now()
        span = span_ending(now, Window.M15, whole_minutes=True)
        query = MetricQuery(
            "doctor",
            (TOTAL_REQUEST_UNITS,),
            "Total",
            60,
            Span(span.end - METRICS_SPAN_S, span.end),
            self.facts.database,
            self.facts.container,
        )
        what = "one metrics call (TotalRequestUnits, last 5 minutes)"
        with self.ledger.meter() as meter:
            (answer,) = await reader.metrics(Window.M15, [query])
        metrics: Reading[int] = (
            Reading(_reused(what, meter), failure=failure_of(answer.problem), cost=Cost.of(meter))
            if answer.problem is not None
            else Reading(_reused(what, meter), len(answer.series), cost=Cost.of(meter))
        )
        if self.facts.telemetry is TelemetryKind.AZURE and not self.facts.workspace_id:
            return metrics, None
        probe = LogQuery(
            LogName.TABLES,
            span_ending(now, TABLES_WINDOW, whole_minutes=False),
            self.facts.database,
            self.facts.container,
            top=TABLES_TOP,
        )
        what = "the workspace's table probe (rows of each Cosmos DB table, 24 h)"
        with self.ledger.meter() as meter:
            (logs,) = await reader.logs(TABLES_WINDOW, [probe])
        if logs.problem is not None and logs.table is None:
            tables: Reading[tuple[tuple[str, int], ...]] = Reading(
                _reused(what, meter), failure=failure_of(logs.problem), cost=Cost.of(meter)
            )
        else:
            rows = logs.table.records() if logs.table is not None else []
            counted = tuple(
                (str(r.get("Table")), int(r.get("Rows") or 0)) for r in rows if r.get("Table")
            )
            tables = Reading(_reused(what, meter), counted, cost=Cost.of(meter))
        return metrics, tables


def _reused(what: str, meter: Meter) -> str:
    """A telemetry answer the session's reader kept (under a minute old) costs nothing."""
    return what if meter.requests else f"{what} (reused: answered under a minute ago)"
