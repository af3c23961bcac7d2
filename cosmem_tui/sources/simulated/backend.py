"""The simulator as a telemetry backend: how a session opens it from ``SimulatedSettings``.

Registered for ``SimulatedSettings`` in ``sources/telemetry_backends.py``. Opening sends
nothing and reads nothing yet (the workload loads on the first question), so it is a
plain function: a workspace session opens synchronously.
"""

from __future__ import annotations

from cosmem_tui.sources.simulated.settings import SimulatedSettings
from cosmem_tui.sources.telemetry import OpenedTelemetry, TelemetryOpening


def open_simulated(settings: SimulatedSettings, lent: TelemetryOpening) -> OpenedTelemetry:
    """The demo's live workload: its hot tenant bursts every 15 minutes from a little
    after the workspace was built. Anchored to the workspace, not to this session: the
    console and every ``cosmem`` command see the same incident at the same time."""
    from cosmem_tui.sources.simulated.telemetry import SimulatedTelemetry

    telemetry = SimulatedTelemetry.from_workspace(
        settings.workspace, hot_tenant=settings.hot_tenant, ledger=lent.ledger, clock=lent.clock
    )
    return OpenedTelemetry(
        telemetry,
        "simulated",  # TelemetryKind.SIMULATED
        "the simulated workload",
        sign_in="local",
        names={"database": settings.database, "container": settings.container},
    )
