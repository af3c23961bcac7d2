"""The keys of a local workspace, as the simulated workload needs them.

One grouped query (``queries/local/telemetry_keys.sql``): each partition key with
items visible at the session's start, its item count (the key's weight: demand follows
size, Zipf-like in the demo) and its bytes (what storage statistics report). About
70 ms on the demo workspace (54,000 items, 1,600 keys); the telemetry source runs it
once, on its first call, off the event loop.
"""

from __future__ import annotations

import json

from cosmem_tui.model import Scalar
from cosmem_tui.sources.errors import WorkspaceError
from cosmem_tui.sources.local.workspace_file import WorkspaceFile
from cosmem_tui.sources.simulated.keyset import WorkloadKey

DEFAULT_PARTITIONS = 4  # a workspace that does not say how many physical partitions it has


def read_keys(workspace: WorkspaceFile, at: float) -> list[WorkloadKey]:
    """Every partition key with items visible at ``at``: its item count and bytes."""
    keys: list[WorkloadKey] = []
    for pk, items, size in workspace.query("telemetry_keys", {"now": int(at)}):
        values = json.loads(pk)
        if not isinstance(values, list) or not values:  # the builder writes JSON arrays
            raise WorkspaceError(f"{workspace.path}: a stored partition key is not an array")
        keys.append(WorkloadKey(tuple(_scalar(v) for v in values), float(items), int(size or 0)))
    return keys


def _scalar(value: object) -> Scalar:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))  # kept as its text


def physical_partitions(workspace: WorkspaceFile) -> int:
    """The partition count the workspace records (the demo says 4), else the default."""
    recorded = workspace.meta("physical_partitions")
    try:
        count = int(recorded) if recorded else DEFAULT_PARTITIONS
    except ValueError:
        count = DEFAULT_PARTITIONS
    return count if count >= 1 else DEFAULT_PARTITIONS
