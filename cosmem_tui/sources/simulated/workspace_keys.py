"""The keys of a local workspace, as the simulated workload needs them.

One grouped query (``queries/local/telemetry_keys.sql``): each partition key with
items visible at a time, its item count (the key's weight: demand follows size,
Zipf-like in the demo) and its bytes (what storage statistics report). About 70 ms on
the demo workspace (54,000 items, 1,600 keys), run off the event loop.

The workload is anchored to the workspace (``workspace_anchor``): its keys and weights
are those visible at the anchor, so every process reading the workspace builds the same
workload whenever it starts. Storage is read again as time goes on (``storage_at``):
items expire, and a size the statistics report must be one the workspace still holds.
"""

from __future__ import annotations

import json

from cosmem_tui.model import Scalar
from cosmem_tui.sources.errors import WorkspaceError
from cosmem_tui.sources.local.workspace_file import WorkspaceFile
from cosmem_tui.sources.simulated.keyset import WorkloadKey
from cosmem_tui.sources.simulated.placement import key_json

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


def storage_at(workspace: WorkspaceFile, at: float) -> dict[str, int]:
    """Bytes per key (by its JSON array text) of the items visible at ``at``."""
    return {key_json(k.values): k.size_bytes or 0 for k in read_keys(workspace, at)}


def workspace_anchor(workspace: WorkspaceFile) -> int:
    """When the workspace's history starts: the demo's build minute (its manifest), an
    import's time, else its newest write (a workspace that records neither), else 0.

    Read from the file, never from a clock, so the console and every ``cosmem``
    command over the same workspace simulate one and the same account."""
    for recorded in (_manifest_anchor(workspace), workspace.meta("imported_at")):
        if recorded is not None and recorded.strip().isdigit():
            return int(recorded)
    rows = workspace.query("newest_write", {})
    newest = rows[0][0] if rows else None
    return int(newest) if isinstance(newest, int) else 0


def _manifest_anchor(workspace: WorkspaceFile) -> str | None:
    raw = workspace.meta("demo_manifest")
    try:
        anchor = json.loads(raw).get("anchor") if raw else None
    except (ValueError, AttributeError):
        return None
    return str(anchor) if type(anchor) is int else None


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
