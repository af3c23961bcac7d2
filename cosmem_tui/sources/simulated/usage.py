"""Per-key and per-partition figures over a span: what the simulated logs aggregate.

A span's cells are summed once per (partition, component) — a few hundred numbers for
a day — and each key's figures are then its share times its class's sums, so the cost
of a 24 h answer grows with the keys asked about, not with keys × seconds.

Conventions (the same as the KQL a monitoring source runs over the RU log):

* ``RU``: RU served (a throttled request consumes none);
* ``peak``: the most RU the key spent in one second on one physical partition (its
  per-partition peak, the one to hold against that partition's budget);
* ``partition``: where the key spent most; ``partitions``: how many it spent RU on;
* ``requests`` / ``throttled``: its requests and 429s, from its RU through the
  operation mixes (fractional until a row is written, then rounded).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cosmem_tui.model import Key
from cosmem_tui.sources.simulated.operations import REQUESTS_PER_RU_ALL, STEADY
from cosmem_tui.sources.simulated.workload import Workload


@dataclass
class SpanTotals:
    """A span's cells, summed per partition: per component, per class, and in all."""

    seconds: int = 0
    minutes: list[int] = field(default_factory=list)  # the minutes with data, in order
    served: list[list[float]] = field(default_factory=list)  # [partition][component], per share
    throttled: list[list[float]] = field(default_factory=list)  # [partition][component]
    peak: list[list[float]] = field(default_factory=list)  # [partition][class], per share
    partition_served: list[float] = field(default_factory=list)
    partition_peak: list[float] = field(default_factory=list)
    requests: int = 0  # every request, served or 429
    rejected: int = 0  # 429s
    queries: int = 0  # served queries (one runtime-statistics row each)


def span_totals(workload: Workload, start: int, end: int) -> SpanTotals:
    """Sum the whole seconds [start, end) (see ``Workload.span``)."""
    parts, components, classes = workload.partitions, workload.profiles + 2, workload.profiles + 1
    totals = SpanTotals(
        served=[[0.0] * components for _ in range(parts)],
        throttled=[[0.0] * components for _ in range(parts)],
        peak=[[0.0] * classes for _ in range(parts)],
        partition_served=[0.0] * parts,
        partition_peak=[0.0] * parts,
    )
    seconds = 0
    for minute, cells in workload.span(start, end):
        totals.minutes.append(minute)
        seconds += cells[0].seconds
        for p, cell in enumerate(cells):
            served, throttled, peak = totals.served[p], totals.throttled[p], totals.peak[p]
            for c, value in enumerate(cell.unit_served):
                served[c] += value
            for c, value in enumerate(cell.unit_throttled):
                throttled[c] += value
            for c, value in enumerate(cell.unit_peak):
                if value > peak[c]:
                    peak[c] = value
            totals.partition_served[p] += cell.served
            totals.partition_peak[p] = max(totals.partition_peak[p], cell.peak)
            totals.requests += sum(cell.ok) + sum(cell.rejected)
            totals.rejected += sum(cell.rejected)
            totals.queries += cell.ok[0]
    totals.seconds = seconds
    return totals


@dataclass
class KeyFigures:
    """One key (or one tenant: its keys together) over a span."""

    text: str  # the key as JSON array text
    ru_by_partition: dict[int, float]
    peak: float
    requests: float
    throttled: float

    @property
    def ru(self) -> float:
        return sum(self.ru_by_partition.values())

    @property
    def partition(self) -> int:
        """Where it spent most (the lowest partition on a tie)."""
        return max(sorted(self.ru_by_partition), key=lambda p: self.ru_by_partition[p])

    @property
    def partitions(self) -> int:
        return sum(1 for ru in self.ru_by_partition.values() if ru > 0)


class ClassSums:
    """Per (partition, class): RU, requests and 429s per unit of share over a span."""

    def __init__(self, workload: Workload, totals: SpanTotals) -> None:
        self.totals = totals
        hot, burst = workload.hot_class, workload.burst_component
        steady_rate, burst_rate = REQUESTS_PER_RU_ALL[STEADY], REQUESTS_PER_RU_ALL[1]
        self.ru: list[list[float]] = []
        self.requests: list[list[float]] = []
        self.throttled: list[list[float]] = []
        for served, throttled in zip(totals.served, totals.throttled, strict=True):
            ru = list(served[: hot + 1])
            ru[hot] += served[burst]
            lost = [value * steady_rate for value in throttled[: hot + 1]]
            lost[hot] += throttled[burst] * burst_rate
            asked = [value * steady_rate for value in served[: hot + 1]]
            asked[hot] += served[burst] * burst_rate
            self.ru.append(ru)
            self.throttled.append(lost)
            self.requests.append([a + b for a, b in zip(asked, lost, strict=True)])

    def figures(self, text: str, cls: int, shares: dict[int, float]) -> KeyFigures:
        """A key or tenant of class ``cls`` with these shares on these partitions."""
        return KeyFigures(
            text,
            {p: share * self.ru[p][cls] for p, share in shares.items()},
            max((share * self.totals.peak[p][cls] for p, share in shares.items()), default=0.0),
            sum(share * self.requests[p][cls] for p, share in shares.items()),
            sum(share * self.throttled[p][cls] for p, share in shares.items()),
        )


def key_figures(
    workload: Workload, sums: ClassSums, *, by_tenant: bool, tenant: Key | None
) -> list[KeyFigures]:
    """Every key (or tenant) with RU in the span, in no particular order."""
    if not sums.totals.minutes:
        return []
    indexes: Sequence[int] = (
        workload.tenant_keys.get(tenant, [])
        if tenant is not None
        else range(len(workload.key_values))
    )
    shares, partitions = workload.key_shares, workload.key_partitions
    classes = workload.key_classes
    rows: list[KeyFigures] = []
    if by_tenant:
        grouped: dict[Key, dict[int, float]] = {}
        for i in indexes:
            by_partition = grouped.setdefault(workload.key_tenants[i], {})
            by_partition[partitions[i]] = by_partition.get(partitions[i], 0.0) + shares[i]
        for name, by_partition in grouped.items():
            cls = classes[workload.tenant_keys[name][0]]
            rows.append(sums.figures(workload.tenant_text(name), cls, by_partition))
    else:
        for i in indexes:
            rows.append(sums.figures(workload.key_text(i), classes[i], {partitions[i]: shares[i]}))
    return [row for row in rows if row.ru > 0]
