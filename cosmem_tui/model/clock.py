"""Injected time: every TTL countdown, expiry filter and the demo generator read a Clock.

Tests pass a FrozenClock so TTL maths, invisibility of expired items and
snapshots are deterministic.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the Unix epoch (UTC)."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    def perf(self) -> float:
        """A monotonic timer for durations (request latency in the ledger)."""
        return time.perf_counter()

    def __repr__(self) -> str:
        return "SystemClock()"


class FrozenClock:
    """A clock that only moves when told to."""

    def __init__(self, at: float) -> None:
        self._at = float(at)

    def now(self) -> float:
        return self._at

    def perf(self) -> float:
        """Durations are frozen too: a request takes 0 ms until the clock is advanced."""
        return self._at

    def advance(self, seconds: float) -> None:
        self._at += seconds

    def set(self, at: float) -> None:
        self._at = float(at)

    def __repr__(self) -> str:
        return f"FrozenClock({self._at!r})"
