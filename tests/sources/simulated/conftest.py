"""The demo workspace's keys and workload, and a simulated telemetry source over them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from cosmem_tui.core.demo.manifest import DemoManifest
from cosmem_tui.model import FrozenClock, Key
from cosmem_tui.sources.local import Workspace
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.simulated import SimulatedTelemetry, Workload, WorkloadKey
from cosmem_tui.sources.simulated.workspace_keys import read_keys
from tests.conftest import ANCHOR

START = ANCHOR  # the demo workspace (and so its workload) is anchored here
BURST = START + 45  # when the hot tenant's first burst after the anchor begins


@pytest.fixture(scope="session")
def demo_keys(demo_workspace: tuple[Path, DemoManifest]) -> list[WorkloadKey]:
    workspace = Workspace.open(demo_workspace[0])
    try:
        return read_keys(workspace, START)
    finally:
        workspace.close()


@pytest.fixture(scope="session")
def demo_workload(demo_keys: list[WorkloadKey], demo_workspace) -> Workload:
    return Workload(demo_keys, hot_tenant=demo_workspace[1].hot_tenant, anchor=START)


@pytest.fixture
def hot(demo_workload: Workload) -> Key:
    assert demo_workload.hot_tenant == Key.of("contoso")
    return demo_workload.hot_tenant


def main_partition(workload: Workload, tenant: Key) -> int:
    """Where a tenant has most of its demand."""
    shares = workload.tenant_partitions(tenant)
    return max(sorted(shares), key=lambda p: shares[p])


@dataclass
class Simulated:
    telemetry: SimulatedTelemetry
    ledger: RequestLedger
    clock: FrozenClock
    workspace: Workspace


@pytest.fixture
async def simulated(demo_workspace) -> AsyncIterator[Callable[..., Simulated]]:
    """Make a simulated source over the demo workspace, its clock at ``at``."""
    made: list[Simulated] = []

    def make(at: float, *, seed: int | None = None) -> Simulated:
        workspace = Workspace.open(demo_workspace[0])
        clock = FrozenClock(at)
        ledger = RequestLedger(clock=clock)
        extra = {} if seed is None else {"seed": seed}
        telemetry = SimulatedTelemetry.from_workspace(
            workspace,
            hot_tenant=demo_workspace[1].hot_tenant,
            ledger=ledger,
            clock=clock,
            anchor=START,
            **extra,
        )
        made.append(Simulated(telemetry, ledger, clock, workspace))
        return made[-1]

    yield make
    for one in made:
        await one.telemetry.close()
        one.workspace.close()
