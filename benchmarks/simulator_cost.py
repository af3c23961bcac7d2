"""What the simulated telemetry costs per refresh: the throughput and hot-tenant views.

    python benchmarks/simulator_cost.py [--workspace demo.sqlite] [--tenants 100000]

On the demo workspace (built in a temporary folder unless ``--workspace`` names one),
and then on a synthetic key set of ``--tenants`` tenants, prints the milliseconds of:

1. constructing the source (nothing is read yet), reading the keys (what its first
   call does: one grouped query) and building the workload;
2. the throughput view's metrics calls (RU, requests by status, 429s by operation,
   load per partition, capacity, latency) over 15 minutes and over 24 hours: on a
   fresh source (cold: every minute computed), asked again (warm: whole minutes are
   cached), and 2 s later (the refresh: only the current minute is new);
3. the hot-tenant view's log aggregations (tenants by RU, partitions, 429s per minute,
   429s per tenant, storage, tables) over the same windows.

Each source is new where it says cold, so a figure never rides on an earlier one's
cache. The clock is frozen at the workload's anchor plus five minutes (the hot tenant's
first burst is on). Asserts nothing. Goal: every answer well under a second.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cosmem_tui.core.demo.generator import build_demo_workspace
from cosmem_tui.core.demo.manifest import read_manifest
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import (
    AUTOSCALE_MAX_THROUGHPUT,
    NORMALIZED_RU,
    OPERATION_TYPE,
    PARTITION_KEY_RANGE,
    PROVISIONED_THROUGHPUT,
    SERVER_LATENCY_DIRECT,
    SERVER_LATENCY_GATEWAY,
    STATUS_CODE,
    TOTAL_REQUEST_UNITS,
    TOTAL_REQUESTS,
    KeyLevel,
    LogName,
    LogQuery,
    MetricQuery,
    Span,
    Window,
)
from cosmem_tui.sources.local import Workspace
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.simulated import SimulatedTelemetry, Workload, synthetic_keys
from cosmem_tui.sources.simulated.workspace_keys import read_keys

START = 1_795_996_800  # 2026-11-30T00:00:00Z: the workload's anchor
NOW = START + 300


def metric_queries(span: Span) -> list[MetricQuery]:
    ranges = (PARTITION_KEY_RANGE,)
    return [
        MetricQuery("ru", (TOTAL_REQUEST_UNITS,), "Total", 60, span),
        MetricQuery("requests", (TOTAL_REQUESTS,), "Count", 60, span, split=(STATUS_CODE,)),
        MetricQuery(
            "throttled",
            (TOTAL_REQUESTS,),
            "Count",
            60,
            span,
            where=((STATUS_CODE, "429"),),
            split=(OPERATION_TYPE,),
        ),
        MetricQuery("ranges", (NORMALIZED_RU,), "Maximum", 60, span, split=ranges, max_results=50),
        MetricQuery(
            "capacity", (PROVISIONED_THROUGHPUT, AUTOSCALE_MAX_THROUGHPUT), "Maximum", 300, span
        ),
        MetricQuery(
            "latency", (SERVER_LATENCY_GATEWAY, SERVER_LATENCY_DIRECT), "Average", 60, span
        ),
    ]


def log_queries(span: Span) -> list[LogQuery]:
    return [
        LogQuery(LogName.KEY_USAGE, span, level=KeyLevel.TENANT, top=50),
        LogQuery(LogName.PARTITION_USAGE, span),
        LogQuery(LogName.THROTTLES, span),
        LogQuery(LogName.KEY_THROTTLES, span, level=KeyLevel.TENANT, top=50),
        LogQuery(LogName.KEY_STORAGE, span, level=KeyLevel.TENANT, top=50),
        LogQuery(LogName.REQUEST_TOTALS, span),
        LogQuery(LogName.TABLES, span),
    ]


async def timed(source: SimulatedTelemetry, kind: str, window: Window, clock: FrozenClock) -> float:
    """Milliseconds for one refresh of the view's calls of this kind over ``window``."""
    span = Span(clock.now() - window.seconds, clock.now())
    started = time.perf_counter()
    if kind == "metrics":
        answers: list[Any] = await source.metrics(metric_queries(span))
    else:
        answers = await source.logs(log_queries(span))
    elapsed = (time.perf_counter() - started) * 1000
    problems = [a.problem for a in answers if a.problem is not None]
    if problems:
        raise SystemExit(f"the simulator answered with problems: {problems}")
    return elapsed


async def measure(label: str, make: Callable[[FrozenClock], SimulatedTelemetry]) -> None:
    print(f"\n{label}")
    for window in (Window.M15, Window.H24):
        calls = {"metrics": len(metric_queries(Span(0, 1))), "logs": len(log_queries(Span(0, 1)))}
        for kind in ("metrics", "logs"):
            clock = FrozenClock(NOW)
            source = make(clock)
            cold = await timed(source, kind, window, clock)
            warm = await timed(source, kind, window, clock)
            clock.advance(2)
            refresh = await timed(source, kind, window, clock)
            print(
                f"  {window.label:>4} {kind:<7} ({calls[kind]} calls): cold {cold:7.1f} ms"
                f"   warm {warm:7.1f} ms   2 s later {refresh:7.1f} ms"
            )
            await source.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, help="a demo workspace (default: build one)")
    parser.add_argument("--tenants", type=int, default=100_000, help="synthetic tenants")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        path = args.workspace
        if path is None:
            path = Path(folder) / "demo.sqlite"
            print(f"building the demo workspace in {folder} …")
            build_demo_workspace(path, START)
        workspace = Workspace.open(path)
        manifest = read_manifest(workspace)
        hot = manifest.hot_tenant if manifest else None

        started = time.perf_counter()
        keys = read_keys(workspace, START)
        read_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        workload = Workload(keys, hot_tenant=hot, anchor=START)
        build_ms = (time.perf_counter() - started) * 1000
        print(
            f"demo workspace: {len(workload.tenant_keys):,} tenants, {len(keys):,} keys,"
            f" {workload.partitions} partitions"
        )
        print(f"  reading the keys {read_ms:.1f} ms; building the workload {build_ms:.1f} ms")

        started = time.perf_counter()
        clock = FrozenClock(NOW)
        SimulatedTelemetry.from_workspace(
            workspace, hot_tenant=hot, ledger=RequestLedger(clock=clock), clock=clock, anchor=START
        )
        print(f"  constructing the source {(time.perf_counter() - started) * 1000:.2f} ms")

        def from_workspace(clock: FrozenClock) -> SimulatedTelemetry:
            return SimulatedTelemetry.from_workspace(
                workspace,
                hot_tenant=hot,
                ledger=RequestLedger(clock=clock),
                clock=clock,
                anchor=START,
            )

        await measure("demo workspace (cold includes reading the keys)", from_workspace)
        workspace.close()

    started = time.perf_counter()
    many = synthetic_keys(args.tenants)
    workload = Workload(many, hot_tenant="tenant-000001", anchor=START)
    build_ms = (time.perf_counter() - started) * 1000
    print(f"\nsynthetic: {args.tenants:,} tenants, {len(many):,} keys")
    print(f"  generating the keys and building the workload {build_ms:.1f} ms")

    def shared(clock: FrozenClock) -> SimulatedTelemetry:
        return SimulatedTelemetry.from_workload(
            Workload(many, hot_tenant="tenant-000001", anchor=START),
            ledger=RequestLedger(clock=clock),
            clock=clock,
            database="db",
            container="c",
        )

    await measure("synthetic (each source's workload is built before it is timed)", shared)


if __name__ == "__main__":
    asyncio.run(main())
