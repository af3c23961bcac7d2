"""``SimulatedTelemetry``: the Telemetry source of the embedded default.

It answers the questions the Azure Monitor source answers, in the same shapes
(``metrics.py``, ``logs.py``), from a simulated workload over the workspace's own keys
(``workload.py``), so the throughput and hot-tenant views move live with no account.
``about`` says it is simulated, and the screen says so.

* Time is the session's clock: nothing here reads the wall clock. The workload is
  anchored to the workspace (``workspace_keys.workspace_anchor``), not to the session:
  every process over one workspace tells one story.
* Every call is recorded in the session's ledger like a monitoring call (kind
  ``monitor``, unit ``call``, no RU, marked simulated), with the action that caused it.
* The keys are read on the first call (one grouped query, about 70 ms on the demo),
  off the event loop like every answer: constructing the source costs nothing.
* A failure is an answer with a problem, never an exception: an unsupported question
  gets the 400 Azure would give; a fault of the simulator, a problem saying so.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from cosmem_tui.model import Clock, Key, Kind, RequestCharge, Scalar, Scope
from cosmem_tui.model.telemetry import (
    AccountFacts,
    LogAnswer,
    LogQuery,
    MetricAnswer,
    MetricQuery,
    Offer,
    ProblemKind,
    TelemetryAbout,
    TelemetryProblem,
    ThroughputMode,
)
from cosmem_tui.sources.local.workspace_file import WorkspaceFile
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.simulated.problems import logs_about, metrics_about, simulator_failed
from cosmem_tui.sources.simulated.rhythm import LOG_LAG_S

if TYPE_CHECKING:  # the workload model loads on the first answer, not with the session
    from cosmem_tui.sources.simulated.logs import LogAnswers
    from cosmem_tui.sources.simulated.metrics import MetricAnswers
    from cosmem_tui.sources.simulated.workload import Workload, WorkloadShape

LABEL = "simulated workload"
MIN_REFRESH_S = 2.0  # the simulation moves every second; the refresh loop's floor is 2 s

_A = TypeVar("_A", MetricAnswer, LogAnswer)
_Q = TypeVar("_Q", MetricQuery, LogQuery)


@dataclass(frozen=True, slots=True)
class _Answers:
    metrics: MetricAnswers
    logs: LogAnswers
    database: str
    container: str


class SimulatedTelemetry:
    """The Telemetry protocol over a simulated workload (see the module docstring)."""

    def __init__(
        self, build: Callable[[], _Answers], *, ledger: RequestLedger, clock: Clock
    ) -> None:
        self._build = build
        self._ledger = ledger
        self._clock = clock
        self._answers: _Answers | None = None
        self._lock = threading.Lock()
        self._about = TelemetryAbout(
            label=LABEL,
            simulated=True,
            has_logs=True,
            log_mode="simulated",
            min_refresh_s=MIN_REFRESH_S,
            log_delay_s=(float(LOG_LAG_S), float(LOG_LAG_S)),
        )

    @classmethod
    def from_workspace(
        cls,
        workspace: WorkspaceFile,
        *,
        hot_tenant: Scalar | Key | None,
        ledger: RequestLedger,
        clock: Clock,
        anchor: float | None = None,
        seed: int | None = None,
        shape: WorkloadShape | None = None,
    ) -> SimulatedTelemetry:
        """The workload of a workspace's keys, read on the first call (see the module
        docstring). ``hot_tenant``: the demo manifest's (None: the largest tenant);
        ``anchor``: where its history starts (None: the one the workspace records)."""

        def build() -> _Answers:
            from cosmem_tui.sources.simulated.workload import DEFAULT_SEED, Workload, WorkloadShape
            from cosmem_tui.sources.simulated.workspace_keys import (
                physical_partitions,
                read_keys,
                storage_at,
                workspace_anchor,
            )

            start = workspace_anchor(workspace) if anchor is None else anchor
            keys = read_keys(workspace, start)
            chosen = shape or WorkloadShape(partitions=physical_partitions(workspace))
            workload = Workload(
                keys,
                hot_tenant=hot_tenant,
                seed=DEFAULT_SEED if seed is None else seed,
                anchor=start,
                shape=chosen,
            )
            names = workspace.container
            return _answers(
                workload,
                names.database,
                names.container,
                storage=lambda at: storage_at(workspace, at),
            )

        return cls(build, ledger=ledger, clock=clock)

    @classmethod
    def from_workload(
        cls,
        workload: Workload,
        *,
        ledger: RequestLedger,
        clock: Clock,
        database: str,
        container: str,
    ) -> SimulatedTelemetry:
        """Over a workload built elsewhere (a synthetic key set, a benchmark)."""
        answers = _answers(workload, database, container)
        return cls(lambda: answers, ledger=ledger, clock=clock)

    # -- the protocol ---------------------------------------------------------------------

    @property
    def about(self) -> TelemetryAbout:
        return self._about

    @property
    def ledger(self) -> RequestLedger:
        return self._ledger

    async def metrics(self, queries: Sequence[MetricQuery]) -> list[MetricAnswer]:
        asked = list(queries)
        now = self._clock.now()
        results = await self._run(asked, lambda a, q: a.metrics.answer(q, now), self._metric_failed)
        for query, (answer, ms) in zip(asked, results, strict=True):
            self._record(
                f"metrics: {query.name}",
                Scope.METRICS,
                ", ".join(query.metrics),
                len(answer.series),
                answer.problem,
                ms,
            )
        return [answer for answer, _ in results]

    async def logs(self, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        asked = list(queries)
        now = self._clock.now()
        results = await self._run(asked, lambda a, q: a.logs.answer(q, now), self._log_failed)
        for query, (answer, ms) in zip(asked, results, strict=True):
            target = f"{query.name.value} by {query.level.value}"
            if query.tenant is not None:
                target += f" of {query.tenant.text}"
            rows = len(answer.table.rows) if answer.table is not None else 0
            self._record(f"logs: {query.name.value}", Scope.LOGS, target, rows, answer.problem, ms)
        return [answer for answer, _ in results]

    async def account(self, database: str | None, container: str | None) -> AccountFacts:
        """One simulated region, and the container's own offer (the workload's shape),
        recorded like the ARM read it stands for."""
        started = self._ledger.timer()
        try:
            answers = await asyncio.to_thread(self._loaded)
        except Exception as exc:  # the workspace could not be read
            problem = simulator_failed("arm: account", exc)
            self._record("arm: account", Scope.METADATA, "account", 0, problem, 0.0)
            return AccountFacts(problems=(problem,))
        from cosmem_tui.sources.simulated.metrics import SIMULATED_REGION

        shape = answers.metrics.workload.shape
        offer = Offer(
            ThroughputMode.DEDICATED,
            float(shape.autoscale_max_ru_s or shape.provisioned_ru_s),
            autoscale=shape.autoscale_max_ru_s is not None,
            owner=f"container {answers.database}/{answers.container}",
        )
        ms = (self._ledger.timer() - started) * 1000.0
        self._record("arm: account", Scope.METADATA, "account", 1, None, ms)
        return AccountFacts(
            regions=(SIMULATED_REGION,),
            write_region=SIMULATED_REGION,
            metrics_region=SIMULATED_REGION,
            metrics_region_from="simulated",
            offer=offer,
        )

    async def close(self) -> None:
        """Let go of the workload and its cached minutes (the workspace is the store's)."""
        with self._lock:
            self._answers = None

    def workload(self) -> Workload:
        """The workload every answer comes from (loaded on first use, off the event loop):
        the demo's live writes follow its rhythm (``core/demo/live.py``)."""
        return self._loaded().metrics.workload

    # -- answering ------------------------------------------------------------------------

    def _loaded(self) -> _Answers:
        with self._lock:
            if self._answers is None:
                self._answers = self._build()
            return self._answers

    async def _run(
        self,
        queries: list[_Q],
        answer: Callable[[_Answers, _Q], _A],
        failed: Callable[[_Q, BaseException], _A],
    ) -> list[tuple[_A, float]]:
        timer = self._ledger.timer

        def work() -> list[tuple[_A, float]]:
            results: list[tuple[_A, float]] = []
            try:
                answers = self._loaded()
            except Exception as exc:  # the workspace could not be read: every answer says so
                return [(failed(query, exc), 0.0) for query in queries]
            for query in queries:
                started = timer()
                try:
                    result = answer(answers, query)
                except Exception as exc:  # a fault here must not take the other tiles down
                    result = failed(query, exc)
                results.append((result, (timer() - started) * 1000.0))
            return results

        return await asyncio.to_thread(work)

    @staticmethod
    def _metric_failed(query: MetricQuery, error: BaseException) -> MetricAnswer:
        return MetricAnswer(query, problem=simulator_failed(metrics_about(query.name), error))

    @staticmethod
    def _log_failed(query: LogQuery, error: BaseException) -> LogAnswer:
        return LogAnswer(query, problem=simulator_failed(logs_about(query.name.value), error))

    def _record(
        self,
        operation: str,
        scope: Scope,
        target: str,
        items: int,
        problem: TelemetryProblem | None,
        duration_ms: float,
    ) -> None:
        status = 200
        if problem is not None:
            status = 400 if problem.kind is ProblemKind.QUERY_ERROR else 500
        self._ledger.record(
            RequestCharge(
                operation=operation,
                scope=scope,
                request_units=0.0,
                duration_ms=duration_ms,
                item_count=items,
                status=status,
                simulated=True,
                target=target,
                kind=Kind.MONITOR,
                call=self._ledger.next_call(),
                cause=RequestLedger.cause(),
                at=self._clock.now(),
                unit="call",
            )
        )


def _answers(
    workload: Workload,
    database: str,
    container: str,
    *,
    storage: Callable[[float], Mapping[str, int]] | None = None,
) -> _Answers:
    from cosmem_tui.sources.simulated.logs import LogAnswers
    from cosmem_tui.sources.simulated.metrics import MetricAnswers

    return _Answers(
        MetricAnswers(workload, database=database, container=container),
        LogAnswers(workload, database=database, container=container, storage=storage),
        database,
        container,
    )
