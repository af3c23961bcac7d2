"""What the telemetry views (throughput, hot tenants) share of keys and ``:`` commands,
as plain data: the family ``telemetry`` a view takes in its ``ViewSpec.takes``
(``TelemetryScreen``, ``live_view.py``, runs them; ``commands.py`` reads their words)."""

from __future__ import annotations

from cosmem_tui.ui.actions import CommandSpec, UiAction
from cosmem_tui.ui.telemetry.commands import parse_region, parse_window

TELEMETRY = "telemetry"

TELEMETRY_ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "telemetry.window",
        "w",
        "cycle_window",
        "next window: 15 min, 1 h, 24 h",
        "Live",
        family=TELEMETRY,
        hint="window",
        hint_rank=3,
        commands=(CommandSpec(("window",), ("[15m|1h|24h]",), "the window (none: the next one)"),),
        parse=parse_window,
    ),
    UiAction(
        "telemetry.region",
        "z",
        "cycle_region",
        "next region: RU/s is provisioned per region, so load is shown one region at a "
        "time (the write region first)",
        "Live",
        family=TELEMETRY,
        hint="region",
        hint_rank=5,
        commands=(
            CommandSpec(
                ("region",), ("[NAME]",), "the region whose load is shown (none: the next)"
            ),
        ),
        parse=parse_region,
    ),
)
