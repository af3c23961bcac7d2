"""What a telemetry question can be asked: how far back it looks, how keys are grouped,
how many keys a table holds.

Apart from the telemetry model (which re-exports them) so the command line's options
and the tenant list's load window cost no more than these at start-up.
"""

from __future__ import annotations

from enum import Enum, StrEnum


class Window(Enum):
    """How far back a dashboard looks. Metrics are per minute (PT1M) in every window."""

    M15 = ("15m", 15 * 60)
    H1 = ("1h", 60 * 60)
    H24 = ("24h", 24 * 60 * 60)

    def __init__(self, label: str, seconds: int) -> None:
        self.label = label
        self.seconds = seconds

    @property
    def grain_s(self) -> int:
        return 60

    @classmethod
    def parse(cls, text: str) -> Window:
        for window in cls:
            if window.label == text.strip().lower():
                return window
        choices = ", ".join(w.label for w in cls)
        raise ValueError(f"unknown window {text!r}: choose one of {choices}")


class KeyLevel(StrEnum):
    """How partition keys are grouped: by tenant (the first level of a hierarchical key)
    or by the whole key (a thread)."""

    TENANT = "tenant"
    KEY = "key"


DEFAULT_KEYS_TOP = 10_000  # keys per hot-keys table: aggregated and cut where the logs live
