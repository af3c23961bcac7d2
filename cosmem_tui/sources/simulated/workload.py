"""The simulated workload: RU demand per key and second, served or throttled per partition.

Pure (no I/O, no clock): every number is a function of (seed, keys, anchor, time), so
the same second always gives the same numbers, asked in any order or window, by any
process. The anchor is the workspace's (when it was built or imported, see
``workspace_keys.workspace_anchor``), never a process's start: a console opened at 21:33
and ``cosmem hot`` run at 21:34 see the same past and the same present.

**Demand.** Each key has a share of the container's demand (its weight, e.g. its item
count, over the total: Zipf-like for the demo's tenants). Tenants belong to a few
*profiles* (daily rhythms, ``rhythm.Profile``); the hot tenant has its own and, on top,
*bursts* (``rhythm.BurstSchedule``). A key's demand in second ``s`` of minute ``m`` is

    share(key) × level(profile of its tenant, m) × noise(partition, s)
    (+ share(key) / share(hot tenant) × burst(s) for the hot tenant's keys)

where ``noise`` is one factor per partition-second, shared by every key of that
partition. So within one partition-second every key's demand is the same multiple of
its share and its class's level: per-key numbers are shares of per-partition numbers,
and sums over keys equal the partition's exactly (up to float rounding).

**Serving.** A physical partition serves at most its budget (provisioned RU/s split
evenly over the partitions) in each second; demand above it is answered 429, and a
throttled request consumes no RU. Every key of the partition loses the same fraction
of its demand in that second. Requests follow from RU through the operation mixes
(``operations``); server-side latency rises with the partition's utilisation.

**Cost.** Work is per (partition, minute), never per key and second: a ``Cell`` holds
a minute's served and throttled RU, its peak second, its requests by operation, and
the same per unit of share for each class of keys (a profile, or the hot tenant), from
which any key's numbers are its share times its class's. In a minute where the burst
is steady (most minutes) a cell costs one bisection (``NoiseVector.served``); only
minutes where a burst ramps are walked second by second. Whole minutes are cached
(they never change); a partial minute (the current one, a log window's edges) is
computed each time it is asked.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from cosmem_tui.model import Key, Scalar
from cosmem_tui.sources.simulated.cells import Cell, CellMaker
from cosmem_tui.sources.simulated.keyset import KeySet, WorkloadKey
from cosmem_tui.sources.simulated.placement import key_json
from cosmem_tui.sources.simulated.rhythm import (
    DAY_S,
    MINUTE_S,
    BurstSchedule,
    NoisePool,
    Profile,
)

__all__ = ["DEFAULT_SEED", "SecondLoad", "Workload", "WorkloadKey", "WorkloadShape"]

DEFAULT_SEED = 20261130
CACHED_MINUTES = 4 * 1440  # whole minutes kept: a 24 h window four times over


@dataclass(frozen=True, slots=True)
class WorkloadShape:
    """The container and the knobs of its workload."""

    provisioned_ru_s: float = 4_000.0  # manual throughput
    autoscale_max_ru_s: float | None = None  # set: autoscale up to this (budget = max)
    partitions: int = 4
    base_utilisation: float = 0.25  # mean demand as a share of the budget, before bursts
    profiles: int = 4  # daily rhythms the other tenants are spread over
    burst_budgets: float = 2.0  # the hot tenant's burst, in partition budgets (RU/s)
    first_burst_after_s: float = 45.0  # after the anchor
    # Every 15 minutes for three and a half: whenever the console (or ``cosmem hot``)
    # looks, its default 15-minute window holds one burst and its 429s.
    burst_every_s: float = 900.0
    burst_length_s: float = 210.0
    history_s: float = 31 * DAY_S  # how far before the anchor data exists

    @property
    def throughput_ru_s(self) -> float:
        """What the container may serve per second (the autoscale max, or manual)."""
        return self.autoscale_max_ru_s or self.provisioned_ru_s


@dataclass(frozen=True, slots=True)
class SecondLoad:
    """One partition in one second (for checking the model against itself)."""

    demand: float
    served: float
    throttled: float
    budget: float


class Workload:
    """The simulated workload of one container, from its keys (see the module docstring)."""

    def __init__(
        self,
        keys: Sequence[WorkloadKey],
        *,
        hot_tenant: Scalar | Key | None,
        seed: int = DEFAULT_SEED,
        anchor: float,
        shape: WorkloadShape | None = None,
    ) -> None:
        self.shape = shape = shape or WorkloadShape()
        if shape.partitions < 1 or shape.throughput_ru_s <= 0:
            raise ValueError("a container needs at least one partition and some throughput")
        self.seed = seed
        self.anchor = float(anchor)
        self.partitions = shape.partitions
        self.partition_ids = tuple(str(p) for p in range(shape.partitions))
        self.budget_ru_s = shape.throughput_ru_s / shape.partitions
        self.first_second = math.floor(self.anchor - shape.history_s)

        self.keys = keys_ = KeySet(keys, shape.partitions)
        # Per key, in the key set's order (aliases, for the answers' loops).
        self.key_values = keys_.values
        self.key_weights = keys_.weights
        self.key_sizes = keys_.sizes
        self.key_shares = keys_.shares
        self.key_partitions = keys_.partition_of
        self.key_tenants = [keys_.tenants[t] for t in keys_.tenant_of]
        self.tenant_keys = {tenant: keys_.members[t] for t, tenant in enumerate(keys_.tenants)}
        self.hot_tenant = self._choose_hot(hot_tenant)

        # Classes: 0..profiles-1 the profiles, ``hot_class`` the hot tenant. Components:
        # the same, plus ``burst_component`` (the hot tenant's bursts, another family).
        self.profiles = shape.profiles
        self.hot_class = self.profiles
        self.burst_component = self.profiles + 1
        self._rhythms = tuple(Profile.seeded(seed, i) for i in range(self.profiles + 1))
        hot = -1 if self.hot_tenant is None else keys_.by_tenant[self.hot_tenant]
        self.tenant_classes = [
            self.hot_class if t == hot else position % self.profiles
            for t, position in enumerate(keys_.tenant_positions)
        ]
        self.key_classes = [self.tenant_classes[t] for t in keys_.tenant_of]
        # Tenants on more than one partition: their busiest second is summed across them.
        self.straddlers = [
            (t, self.tenant_classes[t], spread)
            for t, spread in enumerate(keys_.tenant_shares)
            if len(spread) > 1
        ]
        weights_by = [[0.0] * shape.partitions for _ in range(self.profiles + 2)]
        for share, cls, partition in zip(
            self.key_shares, self.key_classes, self.key_partitions, strict=True
        ):
            weights_by[cls][partition] += share
        weights_by[self.burst_component] = list(weights_by[self.hot_class])
        self.component_weights = tuple(tuple(row) for row in weights_by)
        self._partition_weights = tuple(
            tuple(row[p] for row in weights_by) for p in range(shape.partitions)
        )
        self.hot_share = sum(weights_by[self.hot_class])

        self._rate = shape.base_utilisation * shape.throughput_ru_s  # RU/s per unit share
        self.bursts = BurstSchedule(
            seed,
            self.anchor,
            shape.burst_budgets * self.budget_ru_s,
            first_after_s=shape.first_burst_after_s,
            every_s=shape.burst_every_s,
            length_s=shape.burst_length_s,
        )
        self._maker = CellMaker(
            budget_ru_s=self.budget_ru_s,
            partition_weights=self._partition_weights,
            profiles=self.profiles,
            noise=NoisePool(seed),
        )
        self._cache: dict[int, tuple[Cell, ...]] = {}
        self._lock = threading.Lock()

    # -- keys -----------------------------------------------------------------------------

    def _choose_hot(self, hot: Scalar | Key | None) -> Key | None:
        wanted = hot if isinstance(hot, Key) else (None if hot is None else Key.of(hot))
        if wanted is not None and wanted in self.keys.by_tenant:
            return wanted
        if not self.keys.tenants:
            return None
        # No hot tenant named (or not in this container): the largest one bursts.
        sizes = [sum(share for _, share in spread) for spread in self.keys.tenant_shares]
        t = max(range(len(sizes)), key=lambda t: (sizes[t], self.keys.tenants[t].sort_key()))
        return self.keys.tenants[t]

    def key_text(self, index: int) -> str:
        """The whole key as JSON array text (``["contoso","thr-1"]``)."""
        return self.keys.texts[index]

    @staticmethod
    def tenant_text(tenant: Key) -> str:
        """A tenant as the logs name it at tenant level: the first value (``["contoso"]``)."""
        return key_json(tenant.values)

    def tenant_partitions(self, tenant: Key) -> dict[int, float]:
        """The share of the container's demand a tenant has on each partition it touches."""
        t = self.keys.by_tenant.get(tenant)
        return {} if t is None else dict(self.keys.tenant_shares[t])

    # -- minutes --------------------------------------------------------------------------

    def cells(self, minute: int) -> tuple[Cell, ...] | None:
        """Every partition over a whole minute (None before the simulated history)."""
        if minute * MINUTE_S < self.first_second:
            return None
        cached = self._cache.get(minute)
        if cached is not None:
            return cached
        cells = self._compute(minute, 0, MINUTE_S)
        with self._lock:
            self._cache[minute] = cells
            while len(self._cache) > CACHED_MINUTES:
                del self._cache[next(iter(self._cache))]
        return cells

    def partial_cells(self, minute: int, lo: int, hi: int) -> tuple[Cell, ...] | None:
        """Every partition over seconds [lo, hi) of a minute (0 <= lo < hi <= 60)."""
        if lo == 0 and hi == MINUTE_S:
            return self.cells(minute)
        if minute * MINUTE_S + lo < self.first_second or lo >= hi:
            return None
        return self._compute(minute, lo, hi)

    def span(self, start: int, end: int) -> Iterator[tuple[int, tuple[Cell, ...]]]:
        """(minute, cells) covering the whole seconds [start, end), within the history."""
        start = max(start, self.first_second)
        minute = start // MINUTE_S
        while minute * MINUTE_S < end:
            t0 = minute * MINUTE_S
            lo, hi = max(0, start - t0), min(MINUTE_S, end - t0)
            cells = self.partial_cells(minute, lo, hi)
            if cells is not None:
                yield minute, cells
            minute += 1

    def walked_cells(self, minute: int) -> tuple[Cell, ...]:
        """A whole minute walked second by second, never cached (to check the bisection)."""
        return self._compute(minute, 0, MINUTE_S, slow=True)

    def second(self, partition: int, at: int) -> SecondLoad:
        """One partition in the second starting at ``at`` (walked, for checks)."""
        minute, offset = divmod(at, MINUTE_S)
        cell = self._compute(minute, offset, offset + 1, slow=True)[partition]
        return SecondLoad(
            cell.served + cell.throttled, cell.served, cell.throttled, self.budget_ru_s
        )

    def levels(self, minute: int) -> list[float]:
        """RU/s per unit of share of each steady component in ``minute`` (before noise)."""
        return [self._rate * rhythm.level(minute) for rhythm in self._rhythms]

    def burst_ru_s(self, at: float) -> float:
        """The hot tenant's burst demand (RU/s) in the second starting at ``at``."""
        return BurstSchedule.at(self.bursts.overlapping(at, at + 1), at)

    def _compute(self, minute: int, lo: int, hi: int, *, slow: bool = False) -> tuple[Cell, ...]:
        t0 = minute * MINUTE_S
        levels = self.levels(minute)
        steady = None if slow else self.bursts.steady(t0 + lo, t0 + hi)
        if steady is not None and (lo, hi) == (0, MINUTE_S):
            unit_burst = steady / self.hot_share if self.hot_share > 0 else 0.0
            return tuple(
                self._maker.whole(p, minute, levels, unit_burst) for p in range(self.partitions)
            )
        bursts = self.bursts.overlapping(t0 + lo, t0 + hi)
        per_second = [
            BurstSchedule.at(bursts, t0 + s) / self.hot_share if self.hot_share > 0 else 0.0
            for s in range(lo, hi)
        ]
        return tuple(
            self._maker.walk(p, minute, levels, per_second, lo, hi) for p in range(self.partitions)
        )

    # -- capacity -------------------------------------------------------------------------

    def provisioned_ru_s(self, cells: tuple[Cell, ...]) -> float:
        """What ProvisionedThroughput reports for a minute: the manual RU/s, or under
        autoscale the RU/s it scaled to (tenth of the max at least, in steps of 100)."""
        maximum = self.shape.autoscale_max_ru_s
        if maximum is None:
            return self.shape.provisioned_ru_s
        busiest = max((c.load for c in cells), default=0.0)
        scaled = math.ceil(min(1.0, busiest) * maximum / 100.0) * 100.0
        return float(max(maximum / 10.0, min(maximum, scaled)))
