"""What the simulated telemetry is pointed at: a workspace, whose own keys it loads.

The embedded default has no Azure Monitor: a simulated workload over the workspace's
keys stands in (labelled "simulated" wherever it is shown). Opened by
``backend.open_simulated``, registered for this class in ``sources/telemetry_backends.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.model import Key, Scalar
from cosmem_tui.sources.local.workspace_file import WorkspaceFile


@dataclass(frozen=True)
class SimulatedSettings:
    workspace: WorkspaceFile  # open, and the session's store's: the simulator never closes it
    # The tenant that bursts: the demo manifest's (None: the largest tenant plays the part).
    hot_tenant: Scalar | Key | None = None

    @property
    def database(self) -> str:
        return self.workspace.container.database

    @property
    def container(self) -> str:
        return self.workspace.container.container
