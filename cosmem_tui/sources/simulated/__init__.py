"""The simulated telemetry of the embedded default: a deterministic live workload.

* ``workload``: the model (pure): demand per key and second, served or throttled per
  physical partition, in per-minute ``cells``; ``keyset`` and ``placement`` place the
  keys, ``rhythm`` moves demand in time, ``operations`` turns RU into requests;
* ``metrics`` / ``logs``: the answers, in Azure Monitor's shapes (``usage`` sums spans);
* ``telemetry``: ``SimulatedTelemetry``, the ``Telemetry`` source over a workspace;
* ``synthetic``: key sets of any size, for benchmarks.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cosmem_tui.sources.simulated.synthetic import synthetic_keys
    from cosmem_tui.sources.simulated.telemetry import SimulatedTelemetry
    from cosmem_tui.sources.simulated.workload import (
        DEFAULT_SEED,
        Workload,
        WorkloadKey,
        WorkloadShape,
    )

# Names load on first use (PEP 562): a session imports the package for its telemetry
# source, and the workload model is only needed once the first question is answered.
_HOMES = {
    "DEFAULT_SEED": "workload",
    "SimulatedTelemetry": "telemetry",
    "Workload": "workload",
    "WorkloadKey": "workload",
    "WorkloadShape": "workload",
    "synthetic_keys": "synthetic",
}
__all__ = [
    "DEFAULT_SEED",
    "SimulatedTelemetry",
    "Workload",
    "WorkloadKey",
    "WorkloadShape",
    "synthetic_keys",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value
