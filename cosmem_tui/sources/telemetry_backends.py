"""Which telemetry source opens for which settings: one registry line per backend.

A telemetry backend is three things: a package under ``sources/`` answering the
``Telemetry`` contract (``sources/telemetry.py``), a plain settings class saying what it
is pointed at (``TelemetrySettings``), and an opener, registered in ``BACKENDS`` below
against that class with its command-line options and how they resolve
(``resolve_telemetry``, for the CLI to offer every backend's). ``cosmem_tui.compose``
opens whatever ``SessionOptions.telemetry`` holds through ``opener_for``, so a second
source adds no line there (the only backend compose names is the simulator: a
workspace's own stand-in for Azure Monitor).

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

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cosmem_tui.sources.monitor.backend import open_azure_monitor
from cosmem_tui.sources.monitor.settings import FLAGS as MONITOR_FLAGS
from cosmem_tui.sources.monitor.settings import MonitorSettings
from cosmem_tui.sources.monitor.settings import resolve as resolve_monitor
from cosmem_tui.sources.simulated.backend import open_simulated
from cosmem_tui.sources.simulated.settings import SimulatedSettings
from cosmem_tui.sources.telemetry import (
    Flag,
    OpenedTelemetry,
    TelemetryConfigError,
    TelemetryOpening,
    TelemetrySettings,
)

Opener = Callable[[Any, TelemetryOpening], OpenedTelemetry | Awaitable[OpenedTelemetry]]
# The backend's settings from the command line's values (by ``Flag.key``) over the
# environment (None: the process's); None when nothing names the backend.
Resolve = Callable[[Mapping[str, str | None], Mapping[str, str] | None], Any]


@dataclass(frozen=True)
class TelemetryBackend:
    """One registry line: what a backend is pointed at, how it opens, how it is named."""

    settings: type[Any]  # its ``TelemetrySettings`` class
    open: Opener
    title: str  # its options' heading ("Azure Monitor")
    flags: tuple[Flag, ...] = ()  # its command-line options, each with its variable
    resolve: Resolve | None = None  # None: never named on the command line (the simulator)


# One line per backend.
BACKENDS: tuple[TelemetryBackend, ...] = (
    TelemetryBackend(
        MonitorSettings, open_azure_monitor, "Azure Monitor", MONITOR_FLAGS, resolve_monitor
    ),
    TelemetryBackend(SimulatedSettings, open_simulated, "the simulated workload"),
)


def opener_for(settings: object) -> Opener:
    """The opener registered for ``settings``' class (or a class it derives from)."""
    for kind in type(settings).__mro__:
        for backend in BACKENDS:
            if backend.settings is kind:
                return backend.open
    raise TypeError(
        f"no telemetry backend opens {type(settings).__name__}: "
        "register it in BACKENDS (cosmem_tui/sources/telemetry_backends.py)"
    )


def resolve_telemetry(
    flags: Mapping[str, str | None], env: Mapping[str, str] | None = None
) -> TelemetrySettings | None:
    """The settings of the one backend the flags (over the environment) name; None when
    none is named. Each backend checks its own values (one-line ``TelemetryConfigError``);
    two named at once are refused: a session reads one telemetry source."""
    named = [
        (backend, settings)
        for backend in BACKENDS
        if backend.resolve is not None and (settings := backend.resolve(flags, env)) is not None
    ]
    if len(named) > 1:
        titles = " and ".join(backend.title for backend, _ in named)
        raise TelemetryConfigError(f"settings for {titles} given: choose one telemetry source")
    return named[0][1] if named else None
