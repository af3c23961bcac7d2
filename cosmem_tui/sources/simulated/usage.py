"""Per-key and per-partition figures over a span: what the simulated logs aggregate.

A span's cells are summed once per (partition, component) — a few dozen numbers —
and each key's figures are then its share times its class's sums, so the cost of an
answer grows with the keys, not with keys × seconds. Whole hours of whole minutes
are summed once and kept (they never change), so a 24 h span costs about 24 additions
plus its ragged ends; only the top rows asked for become row objects.

Conventions (the same as the KQL a monitoring source runs over the RU log):

* ``ru``: RU served (a throttled request consumes none);
* ``peak``: the most RU the key spent in one second, over every partition it is on
  (a tenant on two partitions: both partitions' RU of that second, added);
* ``partition``: where the key spent most; ``partitions``: how many it spent RU on;
* ``requests`` / ``throttled``: its requests and 429s, from its RU through the
  operation mixes (fractional until a row is written, then rounded).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from cosmem_tui.model import Key
from cosmem_tui.sources.simulated.cells import Cell
from cosmem_tui.sources.simulated.operations import BURST, REQUESTS_PER_RU_ALL, STEADY
from cosmem_tui.sources.simulated.rhythm import MINUTE_S
from cosmem_tui.sources.simulated.workload import Workload

HOUR_S = 3600
KEPT_HOURS = 4 * 24
KEPT_SPANS = 8


Straddlers = Sequence[tuple[int, int, tuple[tuple[int, float], ...]]]  # tenant, class, spread


class SpanTotals:
    """Cells summed per partition: per component and class (per unit share), and in all."""

    def __init__(
        self, partitions: int, components: int, classes: int, straddlers: Straddlers = ()
    ) -> None:
        self.straddlers = straddlers
        self.hot_class = classes - 1
        self.tenant_peaks: dict[int, float] = {}  # RU/s: the busiest second of each straddler
        self.minutes = 0  # minutes with data
        self.hours: set[int] = set()  # hours those minutes are in
        self.served = [[0.0] * components for _ in range(partitions)]  # per unit share
        self.throttled = [[0.0] * components for _ in range(partitions)]
        self.peak = [[0.0] * classes for _ in range(partitions)]  # per unit share
        self.partition_served = [0.0] * partitions
        self.partition_peak = [0.0] * partitions
        self.requests = 0  # every request, served or 429
        self.rejected = 0  # 429s

    def add(self, minute: int, cells: tuple[Cell, ...]) -> None:
        self.minutes += 1
        self.hours.add(minute * MINUTE_S // HOUR_S)
        for p, cell in enumerate(cells):
            served, throttled, peak = self.served[p], self.throttled[p], self.peak[p]
            for c, value in enumerate(cell.unit_served):
                served[c] += value
            for c, value in enumerate(cell.unit_throttled):
                throttled[c] += value
            for c, value in enumerate(cell.unit_peak):
                if value > peak[c]:
                    peak[c] = value
            self.partition_served[p] += cell.served
            if cell.peak > self.partition_peak[p]:
                self.partition_peak[p] = cell.peak
            rejected = sum(cell.rejected)
            self.requests += sum(cell.ok) + rejected
            self.rejected += rejected
        for t, cls, spread in self.straddlers:
            busiest = _straddler_peak(cells, cls, cls == self.hot_class, spread)
            if busiest > self.tenant_peaks.get(t, 0.0):
                self.tenant_peaks[t] = busiest

    def merge(self, other: SpanTotals) -> None:
        self.minutes += other.minutes
        self.hours |= other.hours
        for p in range(len(self.served)):
            for mine, theirs in (
                (self.served[p], other.served[p]),
                (self.throttled[p], other.throttled[p]),
            ):
                for c, value in enumerate(theirs):
                    mine[c] += value
            self.peak[p] = [max(a, b) for a, b in zip(self.peak[p], other.peak[p], strict=True)]
            self.partition_served[p] += other.partition_served[p]
            self.partition_peak[p] = max(self.partition_peak[p], other.partition_peak[p])
        self.requests += other.requests
        self.rejected += other.rejected
        for t, peak in other.tenant_peaks.items():
            if peak > self.tenant_peaks.get(t, 0.0):
                self.tenant_peaks[t] = peak


def _straddler_peak(
    cells: tuple[Cell, ...], cls: int, hot: bool, spread: tuple[tuple[int, float], ...]
) -> float:
    """The busiest second of a tenant on several partitions: its RU on each, added.

    In one second a class's RU per unit share on a partition is its level (plus the
    burst, for the hot tenant) times that partition's ``kept`` factor of the second."""
    first = cells[spread[0][0]]
    level = first.levels[cls]  # the hot class's steady level has the class's index too
    summed = [0.0] * first.seconds
    for p, share in spread:
        for i, kept in enumerate(cells[p].kept()):
            summed[i] += share * kept
    if not summed:
        return 0.0
    burst = first.burst if hot else 0.0
    if isinstance(burst, tuple):  # a ramping burst: its level changes with the second
        return max((level + b) * x for b, x in zip(burst, summed, strict=True))
    return (level + burst) * max(summed)


class SpanSums:
    """``SpanTotals`` of any span of whole seconds, with whole hours kept."""

    def __init__(self, workload: Workload) -> None:
        self.workload = workload
        self._hours: dict[int, SpanTotals] = {}
        self._spans: dict[tuple[int, int], SpanTotals] = {}
        self._lock = threading.Lock()

    def _empty(self) -> SpanTotals:
        w = self.workload
        return SpanTotals(w.partitions, w.profiles + 2, w.profiles + 1, w.straddlers)

    def totals(self, start: int, end: int) -> SpanTotals:
        """The whole seconds [start, end) (see ``Workload.span``)."""
        kept = self._spans.get((start, end))
        if kept is not None:
            return kept
        w = self.workload
        totals = self._empty()
        at = max(start, w.first_second)
        while at < end:
            hour = at // HOUR_S
            if at == hour * HOUR_S and at + HOUR_S <= end:
                totals.merge(self._hour(hour))
                at += HOUR_S
                continue
            upto = min(end, (at // MINUTE_S + 1) * MINUTE_S)
            for minute, cells in w.span(at, upto):
                totals.add(minute, cells)
            at = upto
        with self._lock:
            self._spans[(start, end)] = totals
            while len(self._spans) > KEPT_SPANS:
                del self._spans[next(iter(self._spans))]
        return totals

    def _hour(self, hour: int) -> SpanTotals:
        kept = self._hours.get(hour)
        if kept is None:
            kept = self._empty()
            for minute, cells in self.workload.span(hour * HOUR_S, (hour + 1) * HOUR_S):
                kept.add(minute, cells)
            with self._lock:
                self._hours[hour] = kept
                while len(self._hours) > KEPT_HOURS:
                    del self._hours[next(iter(self._hours))]
        return kept


class ClassSums:
    """Per (partition, class): RU, requests and 429s per unit of share over a span."""

    def __init__(self, workload: Workload, totals: SpanTotals) -> None:
        self.totals = totals
        hot, burst = workload.hot_class, workload.burst_component
        steady_rate, burst_rate = REQUESTS_PER_RU_ALL[STEADY], REQUESTS_PER_RU_ALL[BURST]
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


@dataclass
class KeyFigures:
    """One key (or one tenant: its keys together) over a span."""

    text: str  # the key as JSON array text
    ru_by_partition: dict[int, float]
    peak: float  # its busiest second, all its partitions together
    requests: float
    throttled: float
    peak_by_partition: dict[int, float]  # its busiest second on each partition alone

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


class KeyTable:
    """The keys (or tenants) of a span as parallel lists, to rank before making rows."""

    def __init__(
        self, workload: Workload, sums: ClassSums, *, by_tenant: bool, tenant: Key | None
    ) -> None:
        keys = workload.keys
        self.sums = sums
        if by_tenant:
            chosen: Sequence[int] = range(len(keys.tenants))
            if tenant is not None:
                t = keys.by_tenant.get(tenant)
                chosen = [] if t is None else [t]
            self.tenants: list[int] | None = list(chosen)
            self.texts = [keys.tenant_texts[t] for t in chosen]
            self.classes = [workload.tenant_classes[t] for t in chosen]
            self.spreads = [keys.tenant_shares[t] for t in chosen]
        else:
            chosen = range(len(keys))
            if tenant is not None:
                t = keys.by_tenant.get(tenant)
                chosen = [] if t is None else keys.members[t]
            self.tenants = None
            self.texts = [keys.texts[i] for i in chosen]
            self.classes = [workload.key_classes[i] for i in chosen]
            self.spreads = [((keys.partition_of[i], keys.shares[i]),) for i in chosen]
        if not sums.totals.minutes:
            self.texts, self.classes, self.spreads = [], [], []
        self.ru = self._weighted(sums.ru)

    def _weighted(self, table: list[list[float]]) -> list[float]:
        return [
            sum(share * table[p][c] for p, share in spread)
            for c, spread in zip(self.classes, self.spreads, strict=True)
        ]

    def requests(self) -> tuple[list[float], list[float]]:
        """Requests and 429s of every row."""
        return self._weighted(self.sums.requests), self._weighted(self.sums.throttled)

    def figures(self, row: int) -> KeyFigures:
        c, spread = self.classes[row], self.spreads[row]
        requests, throttled = self.sums.requests, self.sums.throttled
        totals = self.sums.totals
        peak = max((share * totals.peak[p][c] for p, share in spread), default=0.0)
        if self.tenants is not None and len(spread) > 1:
            peak = totals.tenant_peaks.get(self.tenants[row], 0.0)
        return KeyFigures(
            self.texts[row],
            {p: share * self.sums.ru[p][c] for p, share in spread},
            peak,
            sum(share * requests[p][c] for p, share in spread),
            sum(share * throttled[p][c] for p, share in spread),
            {p: share * totals.peak[p][c] for p, share in spread},
        )
