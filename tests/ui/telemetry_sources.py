"""Telemetry sources for the view tests: the demo's simulator seen through, and a key table.

* ``Watched`` wraps a real source (the demo's simulated workload): it records every
  question and answers the ones it is told to with a problem, as Azure Monitor would
  (a 401, a missing workspace) — the rest of the answers are the simulator's own.
* ``KeyTable`` answers from a ranked list of tenants at once (hostile names, 100,000
  keys): the simulator models a workload, which is not what a scale test measures.

Either goes under the real services (``TelemetryReader``, ``ThroughputService``,
``HotKeysService``) through ``services``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

from cosmem_tui.compose import telemetry_services
from cosmem_tui.core.hot_keys import HotKeysService
from cosmem_tui.core.session import TelemetryServices
from cosmem_tui.core.throughput import Container
from cosmem_tui.model import Clock, Scalar
from cosmem_tui.model.telemetry import (
    LOG_COLUMNS,
    NORMALIZED_RU,
    PROVISIONED_THROUGHPUT,
    AccountFacts,
    KeyLevel,
    LogAnswer,
    LogName,
    LogQuery,
    LogTable,
    MetricAnswer,
    MetricPoint,
    MetricQuery,
    Series,
    TelemetryAbout,
    TelemetryProblem,
)
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.telemetry import Telemetry


def services(
    source: Telemetry, clock: Clock, where: Container, *, top: int | None = None
) -> TelemetryServices:
    """The session's telemetry services over ``source`` (``top``: keys per hot-keys table)."""
    made = telemetry_services(source, clock, where)
    if top is not None:
        made = replace(made, hot_keys=HotKeysService(made.reader, clock, where, top=top))
    return made


class Watched:
    """A source seen through: every question recorded, some answered with a problem."""

    def __init__(
        self,
        inner: Telemetry,
        problems: Mapping[str, TelemetryProblem] | None = None,
        *,
        delay_s: float = 0.0,
        gate: asyncio.Event | None = None,
    ) -> None:
        self.inner = inner
        self.problems = dict(problems or {})  # "metrics: latency" → the problem it answers
        self.delay_s = delay_s
        self.gate = gate  # metrics wait for it: a fetch held out as long as a test needs
        self.asked: list[MetricQuery | LogQuery] = []

    @property
    def about(self) -> TelemetryAbout:
        return self.inner.about

    @property
    def ledger(self) -> RequestLedger:
        return self.inner.ledger

    async def metrics(self, queries: Sequence[MetricQuery]) -> list[MetricAnswer]:
        self.asked.extend(queries)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.gate is not None:
            await self.gate.wait()
        answers = await self.inner.metrics(queries)
        return [
            MetricAnswer(q, problem=p) if (p := self.problems.get(f"metrics: {q.name}")) else a
            for q, a in zip(queries, answers, strict=True)
        ]

    async def logs(self, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        self.asked.extend(queries)
        answers = await self.inner.logs(queries)
        return [
            LogAnswer(q, problem=p) if (p := self.problems.get(f"logs: {q.name.value}")) else a
            for q, a in zip(queries, answers, strict=True)
        ]

    async def account(self, database: str | None, container: str | None) -> AccountFacts:
        return await self.inner.account(database, container)

    def windows(self) -> list[float]:
        """The span (seconds) of each metrics question asked, in order."""
        return [q.span.seconds for q in self.asked if isinstance(q, MetricQuery)]

    async def close(self) -> None:
        await self.inner.close()


class KeyTable:
    """Tenants ranked by RU (the first spends most), each with a few threads; 4 partitions."""

    PARTITIONS = 4
    THREADS = 3

    def __init__(self, tenants: Sequence[Scalar], clock: Clock) -> None:
        self.tenants = list(tenants)
        self._ledger = RequestLedger(clock=clock)
        self._about = TelemetryAbout(label="key table", simulated=True, min_refresh_s=0.0)

    @property
    def about(self) -> TelemetryAbout:
        return self._about

    @property
    def ledger(self) -> RequestLedger:
        return self._ledger

    @staticmethod
    def ru(rank: int) -> float:
        return 1_000_000.0 / rank**1.07

    async def account(self, database: str | None, container: str | None) -> AccountFacts:
        return AccountFacts(regions=("East US",), write_region="East US")

    async def metrics(self, queries: Sequence[MetricQuery]) -> list[MetricAnswer]:
        answers = []
        for q in queries:
            if PROVISIONED_THROUGHPUT in q.metrics:
                found = (self._flat(q, PROVISIONED_THROUGHPUT, 4000.0),)
            elif NORMALIZED_RU in q.metrics:
                found = tuple(
                    self._flat(q, NORMALIZED_RU, 50.0, ("partitionkeyrangeid", str(p)))
                    for p in range(self.PARTITIONS)
                )
            else:
                found = ()
            answers.append(MetricAnswer(q, found))
        return answers

    @staticmethod
    def _flat(q: MetricQuery, metric: str, value: float, *dims: tuple[str, str]) -> Series:
        starts = range(int(q.span.start), int(q.span.end), q.grain_s)
        points = tuple(MetricPoint(float(at), value) for at in starts)
        return Series(metric, q.aggregation, "Count", dims, points)

    async def logs(self, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        return [self._log(q) for q in queries]

    def _keys(self, q: LogQuery) -> list[tuple[list[Scalar], float, str]]:
        """(key values, RU, partition) of what ``q`` asks about, by RU."""
        found = []
        for rank, tenant in enumerate(self.tenants, start=1):
            if q.tenant is not None and tenant != q.tenant.value:
                continue
            partition = str(rank % self.PARTITIONS)
            if q.level is KeyLevel.TENANT and q.tenant is None:
                found.append(([tenant], self.ru(rank), partition))
            else:
                for n in range(self.THREADS):
                    found.append(([tenant, f"thr-{n}"], self.ru(rank) / 2 ** (n + 1), partition))
        return found

    def _log(self, q: LogQuery) -> LogAnswer:
        columns = LOG_COLUMNS[q.name]
        keys = self._keys(q)
        rows: list[tuple[object, ...]]
        if q.name is LogName.KEY_USAGE:
            rows = [
                tuple(
                    {
                        "Key": json.dumps(k),
                        "Partition": p,
                        "Partitions": 1,
                        "RU": ru,
                        "PeakRUps": ru / 300,
                        "PartitionRU": ru,
                        "PartitionPeakRUps": ru / 300,
                        "Keys": len(keys),
                        "PartitionIds": [p],
                    }[column]
                    for column in columns
                )
                for k, ru, p in keys[: q.top]
            ]
        elif q.name is LogName.PARTITION_USAGE:
            each = sum(ru for _, ru, _ in keys) / self.PARTITIONS
            rows = [
                (str(p), each, each / 300, len(keys) // self.PARTITIONS)
                for p in range(self.PARTITIONS)
            ]
        elif q.name is LogName.KEY_THROTTLES:
            rows = [(json.dumps(k), 1000, 40) for k, _, _ in keys[:3]]
        elif q.name is LogName.KEY_STORAGE:
            rows = [(json.dumps(k), 50_000 // n) for n, (k, _, _) in enumerate(keys[:5], 1)]
        elif q.name is LogName.REQUEST_TOTALS:  # three keys' 120 429s, and 30 of no key
            rows = [(5000, 150, 30, 0, 0.0)]
        else:
            rows = []
        return LogAnswer(q, LogTable(columns, tuple(rows)), as_of=q.span.end - 30)

    async def close(self) -> None:
        return None
