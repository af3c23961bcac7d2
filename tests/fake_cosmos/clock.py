"""The fake's injectable clock: ``_ts`` of every write and TTL expiry read it.

It starts at the real time (or where a test puts it) and moves only when told to, so
a test steps past an item's TTL instead of sleeping. Any object with ``now()`` works
in its place (``cosmem_tui.model.FrozenClock`` does).
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class ClockLike(Protocol):
    def now(self) -> float: ...


class FakeCosmosClock:
    """A stepable clock, safe to move from the test thread while the server reads it."""

    def __init__(self, at: float | None = None) -> None:
        self._at = float(time.time() if at is None else at)
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._at

    def advance(self, seconds: float) -> float:
        with self._lock:
            self._at += seconds
            return self._at

    def set(self, at: float) -> None:
        with self._lock:
            self._at = float(at)

    def __repr__(self) -> str:
        return f"GatewayClock({self._at!r})"
