"""Which telemetry source opens for which settings: one registry line per backend.

A telemetry backend is three things: a package under ``sources/`` answering the
``Telemetry`` contract (``sources/telemetry.py``), a plain settings class saying what it
is pointed at (``TelemetrySettings``), and an opener, registered in ``BACKENDS`` below
against that class. ``cosmem_tui.compose`` opens whatever ``SessionOptions.telemetry``
holds through ``opener_for``, so a second source adds no line there (the only backend
compose names is the simulator: a workspace's own stand-in for Azure Monitor).

The opener gets what the session lends it (``TelemetryOpening``, in
``sources/telemetry.py``: the ledger every call is recorded in, the clock, the session's
credential, a way to ask the Cosmos account's region, and ``own`` for whatever it builds
for itself, such as its own sign-in) and answers ``OpenedTelemetry``: the source, and
what the session and the doctor say of it. The session closes the source itself; what
the opener ``own``s closes after it. An opener may be a plain function (the simulator
opens with the workspace, synchronously) or a coroutine function (Azure Monitor locates
the account first).

The openers' modules import nothing heavy at import time: every session that has
telemetry (the demo's included) imports this module while it opens.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from cosmem_tui.sources.monitor.backend import open_azure_monitor
from cosmem_tui.sources.monitor.settings import MonitorSettings
from cosmem_tui.sources.simulated.backend import open_simulated
from cosmem_tui.sources.simulated.settings import SimulatedSettings
from cosmem_tui.sources.telemetry import OpenedTelemetry, TelemetryOpening

Opener = Callable[[Any, TelemetryOpening], OpenedTelemetry | Awaitable[OpenedTelemetry]]

# One line per backend: its settings class and the opener for it.
BACKENDS: dict[type[Any], Opener] = {
    MonitorSettings: open_azure_monitor,
    SimulatedSettings: open_simulated,
}


def opener_for(settings: object) -> Opener:
    """The opener registered for ``settings``' class (or a class it derives from)."""
    for kind in type(settings).__mro__:
        opener = BACKENDS.get(kind)
        if opener is not None:
            return opener
    raise TypeError(
        f"no telemetry backend opens {type(settings).__name__}: "
        "register its opener in BACKENDS (cosmem_tui/sources/telemetry_backends.py)"
    )
