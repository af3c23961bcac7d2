"""What the throughput view declares, as plain data (it has no actions of its own: the
telemetry window and region, the live loop, and export of its series)."""

from __future__ import annotations

from cosmem_tui.ui.actions import ViewSpec
from cosmem_tui.ui.shared_actions import LIVE, TABLES
from cosmem_tui.ui.telemetry.spec import TELEMETRY

SPEC = ViewSpec(
    "throttle",
    "Throughput",
    "T",
    "cosmem_tui.ui.views.throughput.screen:ThroughputScreen",
    "is the account throttling: RU/s against provisioned, partitions, 429s, live",
    takes=frozenset({TABLES, LIVE, TELEMETRY}),
)
