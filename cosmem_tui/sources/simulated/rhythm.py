"""How demand moves in time: a daily swing, a slow wobble, per-second noise, and bursts.

Everything here is a closed-form function of (seed, time) — no state, no random
generator walked in order — so any second or minute can be asked for in any order and
always gives the same number.

* ``mix`` is a 64-bit integer hash (the splitmix64 finaliser) of a few integers: the
  source of every "random" choice that depends on time.
* ``NoisePool`` holds a few hundred seeded vectors of 60 per-second factors (mean 1);
  each (partition, minute) picks one by ``mix``. Each vector is also kept sorted with
  prefix sums, so the RU a partition serves in a whole minute under its budget is found
  by one bisection instead of 60 steps (see ``NoiseVector.served``).
* ``Profile`` is a group of tenants that share a daily rhythm (a time zone, a habit).
* ``BurstSchedule`` is when the hot tenant bursts: a few times in the day before the
  workload's anchor (when its workspace was made), then from shortly after it, again and
  again. The anchor is the workspace's, never a process's start, so every process that
  reads the workspace — the console, ``cosmem hot`` a minute later — sees one history.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from dataclasses import dataclass

DAY_S = 86_400
MINUTE_S = 60
# Simulated logs are queryable this long after the requests they describe: shorter than
# Azure's 3–10 min so the demo's incident shows at once; the screen says which it is.
LOG_LAG_S = 30
_MASK = (1 << 64) - 1


def mix(*parts: int) -> int:
    """A well-spread 64-bit hash of integers (splitmix64's finaliser, chained)."""
    h = 0x9E3779B97F4A7C15
    for part in parts:
        h = (h ^ (part & _MASK)) * 0xBF58476D1CE4E5B9 & _MASK
        h = (h ^ (h >> 27)) * 0x94D049BB133111EB & _MASK
        h ^= h >> 31
    return h


def unit(*parts: int) -> float:
    """A number in [0, 1) from ``mix``."""
    return (mix(*parts) >> 11) / float(1 << 53)


class NoiseVector:
    """Sixty per-second demand factors (mean 1), in time order and sorted."""

    __slots__ = ("factors", "peak", "prefix", "sorted", "total")

    def __init__(self, factors: list[float]) -> None:
        self.factors = tuple(factors)
        self.sorted = tuple(sorted(factors))
        prefix = [0.0]
        for value in self.sorted:
            prefix.append(prefix[-1] + value)
        self.prefix = tuple(prefix)
        self.total = prefix[-1]
        self.peak = self.sorted[-1]

    def served(self, headroom: float) -> tuple[float, int]:
        """Σ min(factor, headroom) over the minute, and how many seconds exceeded it.

        ``headroom`` is the budget divided by the minute's mean demand: a second whose
        factor is above it asked for more than the partition could serve.
        """
        below = bisect_right(self.sorted, headroom)
        over = len(self.sorted) - below
        return self.prefix[below] + headroom * over, over


class NoisePool:
    """Seeded per-second noise vectors; a (partition, minute) picks one by hash."""

    def __init__(self, seed: int, size: int = 251, sigma: float = 0.2) -> None:
        rng = random.Random(seed)
        vectors = []
        for _ in range(size):
            factors = [math.exp(rng.gauss(0.0, sigma)) for _ in range(MINUTE_S)]
            for _ in range(rng.choice((0, 0, 1, 2))):  # the odd spike: a client retrying
                factors[rng.randrange(MINUTE_S)] *= rng.uniform(1.3, 1.7)
            mean = sum(factors) / MINUTE_S
            vectors.append(NoiseVector([f / mean for f in factors]))
        self._vectors = tuple(vectors)
        self._seed = seed

    def vector(self, partition: int, minute: int) -> NoiseVector:
        return self._vectors[mix(self._seed, 0x5EC0, partition, minute) % len(self._vectors)]


@dataclass(frozen=True, slots=True)
class Profile:
    """A daily rhythm shared by a group of tenants: RU/s per unit of share at a time."""

    peak_hour: float  # UTC hour of the daily high
    swing: float  # the daily high is 1 + swing times the mean, the low 1 - swing
    wobble_periods: tuple[float, float]  # minutes: slow drifts over the day
    wobble_phases: tuple[float, float]
    salt: int

    @classmethod
    def seeded(cls, seed: int, index: int) -> Profile:
        def u(n: int) -> float:
            return unit(seed, 0x9F0F, index, n)

        return cls(
            peak_hour=(13.0 + 7.0 * index + 3.0 * u(1)) % 24.0,
            swing=0.3 + 0.2 * u(2),
            wobble_periods=(35.0 + 60.0 * u(3), 150.0 + 200.0 * u(4)),
            wobble_phases=(2 * math.pi * u(5), 2 * math.pi * u(6)),
            salt=mix(seed, 0x5A17, index),
        )

    def level(self, minute: int) -> float:
        """The demand factor of ``minute`` (mean about 1 over a day)."""
        t = minute * MINUTE_S + MINUTE_S / 2
        day = math.cos(2 * math.pi * (t % DAY_S / DAY_S - self.peak_hour / 24.0))
        p1, p2 = self.wobble_periods
        f1, f2 = self.wobble_phases
        drift = 0.5 * (
            math.sin(2 * math.pi * minute / p1 + f1) + math.sin(2 * math.pi * minute / p2 + f2)
        )
        jitter = unit(self.salt, minute) - 0.5
        return (1.0 + self.swing * day) * math.exp(0.12 * drift + 0.1 * jitter)


@dataclass(frozen=True, slots=True)
class Burst:
    start: float  # epoch seconds
    end: float
    level: float  # RU/s at the plateau


RAMP_UP_S = 10.0  # a burst reaches its plateau in seconds
RAMP_DOWN_S = 30.0  # and fades more slowly (clients back off)


class BurstSchedule:
    """When the hot tenant bursts, and how hard (RU/s over its usual demand).

    A few bursts in the day before ``anchor`` (so a 24 h window has shape), then one
    ``first_after_s`` after it and again every ``every_s``, for as long as time runs.
    """

    HISTORY_HOURS = (2.4, 6.3, 9.8, 14.2, 19.6, 23.1)

    def __init__(
        self,
        seed: int,
        anchor: float,
        level: float,
        *,
        first_after_s: float,
        every_s: float,
        length_s: float,
    ) -> None:
        self.anchor = anchor
        self.level = level
        self.first_after_s = first_after_s
        self.every_s = every_s
        self.length_s = length_s
        self._seed = seed
        history = []
        for index, hours in enumerate(self.HISTORY_HOURS):
            start = anchor - hours * 3600 + (unit(seed, 0xB0, index) - 0.5) * 1800
            length = 180 + 360 * unit(seed, 0xB1, index)
            strength = 0.55 + 0.75 * unit(seed, 0xB2, index)
            history.append(Burst(float(int(start)), float(int(start + length)), level * strength))
        self._history = tuple(history)

    def _recurring_burst(self, k: int) -> Burst:
        start = self.anchor + self.first_after_s + k * self.every_s
        # The first burst after the anchor is the full one; later ones vary a little.
        strength = 1.0 if k == 0 else 0.85 + 0.35 * unit(self._seed, 0xB3, k)
        return Burst(start, start + self.length_s, self.level * strength)

    def overlapping(self, t0: float, t1: float) -> list[Burst]:
        """The bursts that touch [t0, t1)."""
        found = [b for b in self._history if b.start < t1 and b.end > t0]
        first = self.anchor + self.first_after_s
        if t1 > first and self.every_s > 0:
            k0 = max(0, math.floor((t0 - first - self.length_s) / self.every_s))
            k1 = math.floor((t1 - first) / self.every_s)
            for k in range(k0, k1 + 1):
                burst = self._recurring_burst(k)
                if burst.start < t1 and burst.end > t0:
                    found.append(burst)
        return found

    @staticmethod
    def at(bursts: list[Burst], second: float) -> float:
        """RU/s of the given bursts in the second starting at ``second``."""
        total = 0.0
        for b in bursts:
            if b.start <= second < b.end:
                ramp = min(1.0, (second - b.start + 1) / RAMP_UP_S, (b.end - second) / RAMP_DOWN_S)
                total += b.level * ramp
        return total

    def steady(self, t0: float, t1: float) -> float | None:
        """The burst RU/s if it is the same in every second of [t0, t1), else None."""
        total = 0.0
        for b in self.overlapping(t0, t1):
            if b.start + RAMP_UP_S - 1 <= t0 and t1 - 1 <= b.end - RAMP_DOWN_S:
                total += b.level
            else:
                return None
        return total
