"""The writes of the simulated workload, per tenant and minute: one rhythm for two faces.

The metrics and logs count the requests of each operation from a minute's cells
(``cells.Cell``: RU served per unit of share, by component). This reads the same cells
and gives, for each tenant, the Create, Upsert and Delete requests it was served in that
minute — the numbers the hot-tenant log answers add up — so the demo's live workload
(``core/demo/live.py``), which writes a sample of them into the workspace, bursts when
and where the telemetry bursts. Pure, like the workload: a function of the minute.
"""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.sources.simulated.operations import (
    BURST,
    CREATE,
    DELETE,
    REQUESTS_PER_RU,
    STEADY,
    UPSERT,
)
from cosmem_tui.sources.simulated.workload import Workload


@dataclass(frozen=True, slots=True)
class TenantWrites:
    """What one tenant was served in one minute (requests, fractional as in the cells)."""

    tenant: int  # its index in ``workload.keys.tenants``
    creates: float
    upserts: float
    deletes: float


def tenant_writes(workload: Workload, minute: int) -> list[TenantWrites]:
    """Every tenant's served writes in ``minute`` (empty before the simulated history)."""
    cells = workload.cells(minute)
    if cells is None:
        return []
    hot, burst = workload.hot_class, workload.burst_component
    steady_rates, burst_rates = REQUESTS_PER_RU[STEADY], REQUESTS_PER_RU[BURST]
    found = []
    for t, spread in enumerate(workload.keys.tenant_shares):
        cls = workload.tenant_classes[t]
        steady = sum(share * cells[p].unit_served[cls] for p, share in spread)
        bursting = (
            sum(share * cells[p].unit_served[burst] for p, share in spread) if cls == hot else 0.0
        )
        found.append(
            TenantWrites(
                t,
                steady * steady_rates[CREATE] + bursting * burst_rates[CREATE],
                steady * steady_rates[UPSERT] + bursting * burst_rates[UPSERT],
                steady * steady_rates[DELETE] + bursting * burst_rates[DELETE],
            )
        )
    return found
