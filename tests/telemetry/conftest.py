"""The Telemetry sources the contract suite runs against, and what it asks them.

Each backend is a factory: given the test's fixture request it returns a
``TelemetryBackend`` (the source, its ledger and frozen clock, the container it
watches and a span in which it has request data). ``BACKENDS`` lists them; the
contract tests run once per entry.

The Azure Monitor source joins ``BACKENDS`` here: the real SDK clients
(``azure-monitor-querymetrics`` getBatch, ``azure-monitor-query`` logs) fed through an
injected azure-core transport that answers these same questions with canned,
realistic JSON (see /work/shared/facts/azure-monitor.md, section 2).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import (
    AUTOSCALE_MAX_THROUGHPUT,
    NORMALIZED_RU,
    OPERATION_TYPE,
    PARTITION_KEY_RANGE,
    PROVISIONED_THROUGHPUT,
    REGION,
    SERVER_LATENCY_DIRECT,
    SERVER_LATENCY_GATEWAY,
    STATUS_CODE,
    TOTAL_REQUEST_UNITS,
    TOTAL_REQUESTS,
    LogName,
    MetricQuery,
    Span,
)
from cosmem_tui.sources.local import Workspace
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.simulated import SimulatedTelemetry
from cosmem_tui.sources.telemetry import Telemetry
from tests.conftest import ANCHOR


@dataclass
class TelemetryBackend:
    name: str
    telemetry: Telemetry
    ledger: RequestLedger
    clock: FrozenClock
    database: str
    container: str
    busy: Span  # a span, ending at least a minute before now, with requests and 429s
    closers: list[Callable[[], None]] = field(default_factory=list)

    async def close(self) -> None:
        await self.telemetry.close()
        for close in self.closers:
            close()


async def simulated_backend(request: pytest.FixtureRequest) -> TelemetryBackend:
    """The simulator over the demo workspace, five minutes after the workspace's anchor
    (its hot tenant's first burst began 45 s in)."""
    path, manifest = request.getfixturevalue("demo_workspace")
    workspace = Workspace.open(path)
    clock = FrozenClock(ANCHOR + 300)
    ledger = RequestLedger(clock=clock)
    telemetry = SimulatedTelemetry.from_workspace(
        workspace, hot_tenant=manifest.hot_tenant, ledger=ledger, clock=clock, anchor=ANCHOR
    )
    return TelemetryBackend(
        "simulated",
        telemetry,
        ledger,
        clock,
        workspace.container.database,
        workspace.container.container,
        busy=Span(ANCHOR - 600, ANCHOR + 240),
        closers=[workspace.close],
    )


BACKENDS: dict[str, Callable[[pytest.FixtureRequest], Awaitable[TelemetryBackend]]] = {
    "simulated": simulated_backend,
    # "monitor": the Azure Monitor source over a canned transport (added with it).
}


@pytest.fixture(params=sorted(BACKENDS))
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[TelemetryBackend]:
    instance = await BACKENDS[request.param](request)
    yield instance
    await instance.close()


def console_metric_queries(span: Span, database: str, container: str) -> list[MetricQuery]:
    """The metrics calls the throughput view makes (one getBatch call each)."""
    common: dict[str, Any] = {"span": span, "database": database, "container": container}
    return [
        MetricQuery("ru", (TOTAL_REQUEST_UNITS,), "Total", 60, split=(REGION,), **common),
        MetricQuery(
            "requests", (TOTAL_REQUESTS,), "Count", 60, split=(STATUS_CODE, REGION), **common
        ),
        MetricQuery(
            "throttled",
            (TOTAL_REQUESTS,),
            "Count",
            60,
            where=((STATUS_CODE, "429"),),
            split=(OPERATION_TYPE,),
            **common,
        ),
        MetricQuery(
            "ranges",
            (NORMALIZED_RU,),
            "Maximum",
            60,
            split=(PARTITION_KEY_RANGE,),
            max_results=50,
            **common,
        ),
        MetricQuery(
            "capacity", (PROVISIONED_THROUGHPUT, AUTOSCALE_MAX_THROUGHPUT), "Maximum", 300, **common
        ),
        MetricQuery(
            "latency", (SERVER_LATENCY_GATEWAY, SERVER_LATENCY_DIRECT), "Average", 60, **common
        ),
    ]


# How each log aggregation orders its rows (what a top-N cut keeps): the KQL's ``top``
# and ``sort by … | take`` clauses. Ties beyond these keys may come in any order.
ROW_ORDER: dict[LogName, Callable[[dict[str, Any]], tuple[Any, ...]]] = {
    LogName.KEY_USAGE: lambda r: (-r["RU"],),
    LogName.PARTITION_USAGE: lambda r: (-r["RU"],),
    LogName.THROTTLES: lambda r: (-r["TimeGenerated"], -r["Throttled"]),
    LogName.KEY_THROTTLES: lambda r: (-r["Throttled"], -r["Requests"]),
    LogName.KEY_STORAGE: lambda r: (-r["SizeKb"],),
    LogName.REQUEST_TOTALS: lambda r: (),  # one row
    LogName.TABLES: lambda r: (-r["Rows"],),
}
