"""Hand-built telemetry reports and services that answer with them, for the view tests.

The reports have the shapes the core services build (see ``model/telemetry.py``): a
burst of a hot tenant from ``burst`` on, its physical partition at 100 % and 429s on
queries from then; the services count what they were asked, so tests can prove when a
view fetched and with which window.
"""

from __future__ import annotations

from dataclasses import replace

from cosmem_tui.model import Key
from cosmem_tui.model.telemetry import (
    HotKeysReport,
    KeyLevel,
    KeyUsage,
    MetricPoint,
    OperationThrottles,
    PartitionUsage,
    RangeLoad,
    Span,
    TelemetryAbout,
    TelemetryProblem,
    ThroughputReport,
    Window,
)

SIMULATED = TelemetryAbout(label="simulated workload", simulated=True, min_refresh_s=1.0)


def minutes(span: Span, value) -> tuple[MetricPoint, ...]:  # type: ignore[no-untyped-def]
    starts = range(int(span.start), int(span.end), 60)
    return tuple(MetricPoint(float(at), value(at)) for at in starts)


def throughput_report(
    now: float,
    window: Window = Window.M15,
    *,
    burst: float | None = None,
    problems: tuple[TelemetryProblem, ...] = (),
) -> ThroughputReport:
    end = (now // 60) * 60
    span = Span(end - window.seconds, end)
    burst = burst if burst is not None else end - 5 * 60

    def hot(at: float) -> bool:
        return at >= burst

    ru = minutes(span, lambda at: 1150.0 if hot(at) else 420.0)
    ranges = tuple(
        RangeLoad(str(n), points, max(p.value or 0 for p in points))
        for n, points in (
            (0, minutes(span, lambda at: 38.0)),
            (1, minutes(span, lambda at: 100.0 if hot(at) else 41.0)),
            (2, minutes(span, lambda at: 22.0)),
            (3, minutes(span, lambda at: None if at < span.start + 120 else 30.0)),
        )
    )
    queries = minutes(span, lambda at: 60.0 if hot(at) else None)
    upserts = minutes(span, lambda at: 12.0 if hot(at) else None)
    throttles = (
        OperationThrottles("Query", queries, int(sum(p.value or 0 for p in queries))),
        OperationThrottles("Upsert", upserts, int(sum(p.value or 0 for p in upserts))),
    )
    throttled = sum(t.total for t in throttles)
    status = (("200", 41_000), ("201", 3_100), ("404", 12), ("429", throttled))
    requests = sum(n for _, n in status)
    return ThroughputReport(
        window=window,
        span=span,
        source=SIMULATED,
        ru_per_s=ru,
        provisioned_ru_s=1000.0,
        autoscale=False,
        capacity=minutes(span, lambda at: 1000.0),
        ranges=ranges,
        throttles=throttles,
        status_totals=status,
        latency_ms=minutes(span, lambda at: 9.5 if hot(at) else 3.2),
        requests=requests,
        throttled=throttled,
        data_as_of=end,
        headline=(
            f"{throttled:,} × 429 of {requests:,} requests in {window.label}; "
            "partition 1 at 100 % since 23:55 UTC; busiest minute 1,150 of 1,000 RU/s (115.0 %)"
        ),
        problems=problems,
    )


def usage(
    key: Key, ru: float, total: float, *, partition: str = "1", throttled: int | None = 0
) -> KeyUsage:
    return KeyUsage(
        key=key,
        ru=ru,
        peak_ru_s=ru / 300,
        share=ru / total,
        partition=partition,
        partitions=1,
        partition_share=(ru / 300) / 250,
        throttled=throttled,
        storage_kb=int(ru) if ru > 10_000 else None,
    )


def hot_report(
    now: float,
    window: Window = Window.M15,
    *,
    names: tuple[str, ...] = ("contoso", "northwind", "fabrikam", "tailspin"),
    tenant: Key | None = None,
    problems: tuple[TelemetryProblem, ...] = (),
    rows: tuple[KeyUsage, ...] | None = None,
) -> HotKeysReport:
    span = Span(now - window.seconds, now)
    if rows is None:
        weights = [600_000.0 / (n + 1) ** 2 for n in range(len(names))]
        total = sum(weights)
        if tenant is None:
            rows = tuple(
                usage(Key.of(name), ru, total, throttled=900 if n == 0 else 0)
                for n, (name, ru) in enumerate(zip(names, weights, strict=True))
            )
        else:
            rows = tuple(
                usage(Key.of(tenant.value, f"thr-{n}"), ru / 10, total)
                for n, ru in enumerate(weights)
            )
    total = sum(r.ru for r in rows) or 1.0
    return HotKeysReport(
        window=window,
        span=span,
        source=SIMULATED,
        level=KeyLevel.KEY if tenant is not None else KeyLevel.TENANT,
        tenant=tenant,
        rows=rows,
        total_ru=total,
        keys_total=len(rows),
        provisioned_ru_s=1000.0,
        partitions=(PartitionUsage("1", total, 300.0, 250.0, len(rows)),),
        headline=f"{rows[0].key.text if rows else '—'} = 63 % of RU on partition 1",
        data_as_of=now - 30,
        caveats=("logs lag 20 s – 3 min", "storage: only the largest keys are logged"),
        problems=problems,
    )


class ThroughputStub:
    """Answers with ``throughput_report`` at the session clock's time; counts the asks."""

    def __init__(self, clock, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self.clock = clock
        self.kwargs = kwargs
        self.asked: list[Window] = []
        self.about = SIMULATED

    async def report(self, window: Window) -> ThroughputReport:
        self.asked.append(window)
        return throughput_report(self.clock.now(), window, **self.kwargs)


class HotKeysStub:
    def __init__(self, clock, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self.clock = clock
        self.kwargs = kwargs
        self.asked: list[tuple[Window, KeyLevel, Key | None]] = []
        self.about = SIMULATED

    async def report(
        self, window: Window, *, level: KeyLevel = KeyLevel.TENANT, tenant: Key | None = None
    ) -> HotKeysReport:
        self.asked.append((window, level, tenant))
        report = hot_report(self.clock.now(), window, tenant=tenant, **self.kwargs)
        return replace(report, level=KeyLevel.KEY if tenant is not None else level)
