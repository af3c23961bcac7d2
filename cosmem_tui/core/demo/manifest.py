"""What a demo workspace holds and where its notable threads are (its ``demo_manifest``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from cosmem_tui.sources.local.workspace import Workspace


@dataclass
class DemoManifest:
    seed: int
    anchor: int
    hot_tenant: str
    malformed: dict[str, str] = field(default_factory=dict)  # tenant, thread
    hostile: dict[str, str] = field(default_factory=dict)
    # The planted recall cases (``recall_cases.manifest_entry``): tenant, thread,
    # other_thread, k, query, and the id of the item for each why-not reason.
    recall: dict[str, str] = field(default_factory=dict)
    items: int = 0
    threads: int = 0


def read_manifest(workspace: Workspace) -> DemoManifest | None:
    raw = workspace.meta("demo_manifest")
    return DemoManifest(**json.loads(raw)) if raw else None
