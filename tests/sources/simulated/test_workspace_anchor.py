"""Where a workspace's simulated history starts: recorded in the file, never a clock."""

from __future__ import annotations

from pathlib import Path

from cosmem_tui.cli import main
from cosmem_tui.sources.local import Workspace
from cosmem_tui.sources.simulated.workspace_keys import workspace_anchor
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange


def anchor_of(path: Path) -> int:
    workspace = Workspace.open(path)
    try:
        return workspace_anchor(workspace)
    finally:
        workspace.close()


def test_the_demo_is_anchored_where_it_was_built(demo_path: Path):
    assert anchor_of(demo_path) == ANCHOR


def test_an_imported_workspace_is_anchored_at_its_import(tmp_path: Path):
    exported = tmp_path / "items.jsonl"
    exported.write_text('{"id": "a", "tenantId": "t", "threadId": "x", "_ts": 1700000000}\n')
    path = tmp_path / "imported.sqlite"
    assert main(["import", str(exported), "--workspace", str(path), "--schema", "lab"]) == 0
    workspace = Workspace.open(path)
    try:
        recorded = int(workspace.meta("imported_at") or 0)
    finally:
        workspace.close()
    assert recorded > 0 and anchor_of(path) == recorded


def test_a_workspace_that_records_nothing_is_anchored_at_its_newest_write(tmp_path: Path):
    items = [exchange("t", "x", i, _ts=ANCHOR - 3600 * i, _etag=f'"{i}"') for i in range(3)]
    path = build_workspace(tmp_path / "plain.sqlite", items, now=ANCHOR)
    assert anchor_of(path) == ANCHOR  # the newest _ts, whatever the time is now
    empty = build_workspace(tmp_path / "empty.sqlite", [], now=ANCHOR)
    assert anchor_of(empty) == 0
