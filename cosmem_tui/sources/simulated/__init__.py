"""The simulated telemetry of the embedded default: a deterministic live workload.

* ``workload``: the model (pure): demand per key and second, served or throttled per
  physical partition, in per-minute ``cells``; ``keyset`` and ``placement`` place the
  keys, ``rhythm`` moves demand in time, ``operations`` turns RU into requests;
* ``metrics`` / ``logs``: the answers, in Azure Monitor's shapes (``usage`` sums spans);
* ``telemetry``: ``SimulatedTelemetry``, the ``Telemetry`` source over a workspace;
* ``synthetic``: key sets of any size, for benchmarks.
"""

from cosmem_tui.sources.simulated.synthetic import synthetic_keys
from cosmem_tui.sources.simulated.telemetry import SimulatedTelemetry
from cosmem_tui.sources.simulated.workload import (
    DEFAULT_SEED,
    Workload,
    WorkloadKey,
    WorkloadShape,
)

__all__ = [
    "DEFAULT_SEED",
    "SimulatedTelemetry",
    "Workload",
    "WorkloadKey",
    "WorkloadShape",
    "synthetic_keys",
]
