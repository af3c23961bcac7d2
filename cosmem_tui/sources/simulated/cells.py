"""One physical partition over one minute: what it served and refused, as a ``Cell``.

The arithmetic of the workload (see ``workload``): given the minute's levels (RU/s per
unit of share of each steady component), the hot tenant's burst and the partition's
per-second noise, a cell holds what the partition served and refused, and the same
per unit of share for each component and class of keys.

* ``whole``: a minute whose levels hold in every second. Served RU in second s is
  min(D × v_s, budget), so the minute serves D × Σ min(v_s, budget / D): one bisection
  over the minute's sorted noise (``NoiseVector.served``).
* ``walk``: seconds one by one (a burst ramping, or part of a minute).
"""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.sources.simulated.operations import (
    BURST,
    REQUESTS_PER_RU,
    RU_SHARE,
    STEADY,
    latency_factor,
)
from cosmem_tui.sources.simulated.rhythm import MINUTE_S, NoisePool, NoiseVector


class Cell:
    """One physical partition over one minute (or part of one): what it served and refused.

    ``unit_*`` are per unit of share: a key's value is its share times the entry of its
    component (``unit_served``, ``unit_throttled``) or class (``unit_peak``).
    """

    __slots__ = (
        "_headroom",
        "_kept",
        "_noise",
        "burst",
        "capacity",
        "latency",
        "levels",
        "load",
        "ok",
        "peak",
        "rejected",
        "ru",
        "seconds",
        "served",
        "throttled",
        "throttled_seconds",
        "unit_peak",
        "unit_served",
        "unit_throttled",
    )

    seconds: int  # seconds covered
    capacity: float  # RU the budget allowed in those seconds
    served: float  # RU served
    throttled: float  # RU asked for and refused (429: no RU consumed)
    peak: float  # the most RU served in one second
    load: float  # the highest per-second demand over the budget (1.0 = the whole budget)
    throttled_seconds: int  # seconds whose demand exceeded the budget
    unit_served: tuple[float, ...]  # per component
    unit_throttled: tuple[float, ...]  # per component
    unit_peak: tuple[float, ...]  # per class
    ok: tuple[int, ...]  # served requests, by operation
    rejected: tuple[int, ...]  # 429s, by operation
    ru: tuple[float, ...]  # RU served, by operation
    latency: float  # server-side latency factor (× each operation's idle latency)
    levels: list[float]  # the minute's steady levels (RU/s per unit share, by component)
    burst: float | tuple[float, ...]  # the burst per unit share: steady, or each second's
    _kept: tuple[float, ...] | None
    _noise: NoiseVector | None
    _headroom: float

    def kept(self) -> tuple[float, ...]:
        """Each covered second's noise factor times the part of its demand served: a
        class's RU per unit share in that second is its level (plus the burst, for the
        hot tenant) times this."""
        if self._kept is None:
            assert self._noise is not None
            h = self._headroom
            self._kept = tuple([v if v < h else h for v in self._noise.factors])
        return self._kept

    @property
    def utilisation(self) -> float:
        """Served RU over what the budget allowed in the covered seconds (0..1)."""
        return self.served / self.capacity if self.capacity > 0 else 0.0


@dataclass(frozen=True, slots=True)
class _Sums:
    """What a minute adds up to, before it is shared out over components and operations."""

    seconds: int
    served: float = 0.0
    refused: float = 0.0
    peak: float = 0.0
    load: float = 0.0
    over: int = 0
    served_factor: float = 0.0  # Σ noise × served fraction (steady components scale by it)
    refused_factor: float = 0.0
    burst_served: float = 0.0  # Σ burst level × noise × served fraction (per unit share)
    burst_refused: float = 0.0
    top: float = 0.0  # max noise × served fraction: a steady class's peak per unit level
    hot_top: float = 0.0  # the hot class's peak second, per unit share


class CellMaker:
    """Cells of one container: its per-partition budget, weights and noise."""

    def __init__(
        self,
        *,
        budget_ru_s: float,
        partition_weights: tuple[tuple[float, ...], ...],
        profiles: int,
        noise: NoisePool,
    ) -> None:
        self.budget_ru_s = budget_ru_s
        self._partition_weights = partition_weights  # [partition][component]
        self.profiles = profiles
        self._noise = noise

    def _steady_demand(self, p: int, levels: list[float]) -> float:
        weights = self._partition_weights[p][:-1]
        return sum([w * lv for w, lv in zip(weights, levels, strict=True)])

    def whole(self, p: int, minute: int, levels: list[float], unit_burst: float) -> Cell:
        """A whole minute whose levels hold every second: one bisection."""
        budget = self.budget_ru_s
        steady = self._steady_demand(p, levels)
        demand = steady + self._partition_weights[p][-1] * unit_burst
        if demand <= 0:
            idle = self._cell(p, levels, _Sums(MINUTE_S))
            idle.burst, idle._kept = unit_burst, (0.0,) * MINUTE_S
            return idle
        noise = self._noise.vector(p, minute)
        headroom = budget / demand
        served_factor, over = noise.served(headroom)
        refused_factor = noise.total - served_factor
        top = min(noise.peak, headroom)
        cell = self._make(
            p,
            levels,
            steady,
            MINUTE_S,
            demand * served_factor,
            demand * refused_factor,
            min(budget, demand * noise.peak),
            demand * noise.peak / budget,
            over,
            served_factor,
            refused_factor,
            unit_burst * served_factor,
            unit_burst * refused_factor,
            top,
            (levels[self.profiles] + unit_burst) * top,
        )
        cell.burst, cell._noise, cell._headroom = unit_burst, noise, headroom
        return cell

    def walk(
        self, p: int, minute: int, levels: list[float], unit_burst: list[float], lo: int, hi: int
    ) -> Cell:
        """Seconds [lo, hi) one by one (a ramping burst, or part of a minute)."""
        budget = self.budget_ru_s
        base = self._steady_demand(p, levels)
        burst_weight = self._partition_weights[p][-1]
        factors = self._noise.vector(p, minute).factors
        served = refused = peak = load = 0.0
        served_f = refused_f = burst_served = burst_refused = top = hot_top = 0.0
        over = 0
        hot_level = levels[self.profiles]
        kept_seconds: list[float] = []
        for s, b in zip(range(lo, hi), unit_burst, strict=True):
            v = factors[s]
            demand = (base + burst_weight * b) * v
            if demand <= 0:
                kept_seconds.append(0.0)
                continue
            got = min(demand, budget)
            kept = v * got / demand  # this second's noise factor, the served part
            kept_seconds.append(kept)
            lost = v - kept
            served += got
            refused += demand - got
            peak = max(peak, got)
            load = max(load, demand / budget)
            over += demand > budget
            served_f += kept
            refused_f += lost
            burst_served += b * kept
            burst_refused += b * lost
            top = max(top, kept)
            hot_top = max(hot_top, (hot_level + b) * kept)
        sums = _Sums(
            hi - lo,
            served=served,
            refused=refused,
            peak=peak,
            load=load,
            over=over,
            served_factor=served_f,
            refused_factor=refused_f,
            burst_served=burst_served,
            burst_refused=burst_refused,
            top=top,
            hot_top=hot_top,
        )
        cell = self._cell(p, levels, sums)
        cell.burst, cell._kept = tuple(unit_burst), tuple(kept_seconds)
        return cell

    def _cell(self, p: int, levels: list[float], sums: _Sums) -> Cell:
        """A cell from a minute's sums (see ``_make``)."""
        return self._make(
            p,
            levels,
            self._steady_demand(p, levels),
            sums.seconds,
            sums.served,
            sums.refused,
            sums.peak,
            sums.load,
            sums.over,
            sums.served_factor,
            sums.refused_factor,
            sums.burst_served,
            sums.burst_refused,
            sums.top,
            sums.hot_top,
        )

    def _make(
        self,
        p: int,
        levels: list[float],
        steady: float,
        seconds: int,
        served: float,
        refused: float,
        peak: float,
        load: float,
        over: int,
        served_factor: float,
        refused_factor: float,
        burst_served: float,
        burst_refused: float,
        top: float,
        hot_top: float,
    ) -> Cell:
        """A cell from a minute's sums: steady components scale by their level, and the
        steady family's RU is Σ weight × level × factor = ``steady`` × factor."""
        cell = Cell()
        cell.levels = levels
        cell._kept, cell._noise, cell._headroom = None, None, 0.0
        cell.seconds = seconds
        cell.capacity = capacity = self.budget_ru_s * seconds
        cell.served = served
        cell.throttled = refused
        cell.peak = peak
        cell.load = load
        cell.throttled_seconds = over
        cell.unit_served = (*[lv * served_factor for lv in levels], burst_served)
        cell.unit_throttled = (*[lv * refused_factor for lv in levels], burst_refused)
        cell.unit_peak = (*[lv * top for lv in levels[: self.profiles]], hot_top)
        burst_weight = self._partition_weights[p][-1]
        ok_steady, ok_burst = steady * served_factor, burst_weight * burst_served
        lost_steady, lost_burst = steady * refused_factor, burst_weight * burst_refused
        cell.ok = tuple([round(ok_steady * a + ok_burst * b) for a, b in _RATES])
        cell.rejected = tuple([round(lost_steady * a + lost_burst * b) for a, b in _RATES])
        cell.ru = tuple([ok_steady * a + ok_burst * b for a, b in _RU_SHARES])
        cell.latency = latency_factor(served / capacity if capacity > 0 else 0.0)
        return cell


# (steady, burst) pairs by operation: requests per RU, and share of the RU.
_RATES = tuple(zip(REQUESTS_PER_RU[STEADY], REQUESTS_PER_RU[BURST], strict=True))
_RU_SHARES = tuple(zip(RU_SHARE[STEADY], RU_SHARE[BURST], strict=True))
