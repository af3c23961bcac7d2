"""``cosmem advise`` and the guarded write commands: formats, refusals, --yes, exit codes."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from cosmem_tui.sources.local.writer import LocalWriter
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    items = [exchange("acme", "t1", i, ttl=3600) for i in range(4)]
    items += [exchange("acme", "t2", 0)]
    return build_workspace(tmp_path / "w.sqlite", items, now=ANCHOR - 60)


def audit(isolated_user_dirs: Path) -> list[dict]:
    path = isolated_user_dirs / "data" / "cosmem" / "audit.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def ttl_of(path: Path, item_id: str) -> object:
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT body FROM items WHERE id = ?", (item_id,)).fetchone()
    return json.loads(row[0]).get("ttl") if row else "gone"


def on_a_terminal(monkeypatch: pytest.MonkeyPatch, answer: str) -> None:
    stdin = io.StringIO(answer + "\n")
    monkeypatch.setattr(stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)


# -- advise --------------------------------------------------------------------------------


def test_advise_json_on_the_demo(capsys, demo_path):
    code, out, err = run(capsys, "advise", "--workspace", str(demo_path), "--json")
    assert code == 0
    findings = json.loads(out)
    assert findings and all(
        set(f) == {"rule", "severity", "title", "evidence", "fix", "count", "examples"}
        for f in findings
    )
    rules = {f["rule"] for f in findings}
    assert {"partition-avoid-hotspots", "ttl-reset-by-rewrites", "index-composite"} <= rules
    hot = next(f for f in findings if f["rule"] == "partition-avoid-hotspots")
    assert "contoso" in hot["evidence"] and "contoso" in hot["examples"]
    assert [f["severity"] for f in findings] == sorted(
        (f["severity"] for f in findings), key=["high", "warn", "info"].index
    )
    assert "cosmem: advisor:" in err and "200 sampled items" in err
    assert "no telemetry" not in err  # the demo session has the simulated workload


def test_advise_csv_has_a_header_row_and_every_finding(capsys, demo_path):
    code, out, _ = run(capsys, "advise", "--workspace", str(demo_path), "--csv", "--no-counts")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and rows
    assert list(rows[0]) == ["rule", "severity", "title", "evidence", "fix", "count", "examples"]


def test_advise_of_an_empty_container_checks_the_properties_only(capsys, tmp_path):
    path = build_workspace(tmp_path / "e.sqlite", [exchange("a", "t", 0, ttl=1)], now=ANCHOR - 60)
    code, out, err = run(capsys, "advise", "--workspace", str(path), "--json")
    assert code == 0 and "0 sampled items" in err  # every item expired: nothing to sample
    assert [f["rule"] for f in json.loads(out)] == ["index-composite"]


# -- writes ----------------------------------------------------------------------------------


def test_writes_need_allow_writes(capsys, workspace, isolated_user_dirs):
    code, _, err = run(capsys, "pin", "acme", "t1", "t1-1", "--workspace", str(workspace), "--yes")
    assert code == 1 and "add --allow-writes" in err
    assert ttl_of(workspace, "t1-1") == 3600 and audit(isolated_user_dirs) == []


def test_writes_without_a_terminal_and_without_yes_are_refused(
    capsys, workspace, isolated_user_dirs
):
    args = ("erase-thread", "acme", "t1", "--workspace", str(workspace), "--allow-writes")
    code, out, err = run(capsys, *args)
    assert code == 1 and "no terminal to confirm on; add --yes" in err and out == ""
    assert ttl_of(workspace, "t1-0") == 3600 and audit(isolated_user_dirs) == []


def test_pin_with_yes(capsys, workspace, isolated_user_dirs):
    args = ("pin", "acme", "t1", "t1-1", "--workspace", str(workspace), "--allow-writes", "--yes")
    code, out, err = run(capsys, *args)
    assert code == 0 and "pin: item t1-1 now has ttl -1" in out
    assert "PIN as long-term memory" in err and "ttl 3600 → -1" in err
    assert "done: 1 item(s) written" in err
    assert ttl_of(workspace, "t1-1") == -1
    intent, line = audit(isolated_user_dirs)
    assert intent["event"] == "intent" and intent["id"] == line["id"]
    assert line["event"] == "pin" and line["ids"] == ["t1-1"]


def test_set_ttl_asks_on_a_terminal(capsys, workspace, isolated_user_dirs, monkeypatch):
    on_a_terminal(monkeypatch, "n")
    args = ("set-ttl", "acme", "t1", "t1-2", "86400", "--workspace", str(workspace))
    code, _, err = run(capsys, *args, "--allow-writes")
    assert code == 1 and "write this? [y/N]" in err and "nothing was written" in err
    assert ttl_of(workspace, "t1-2") == 3600 and audit(isolated_user_dirs) == []
    on_a_terminal(monkeypatch, "y")
    code, _, _ = run(capsys, *args, "--allow-writes")
    assert code == 0 and ttl_of(workspace, "t1-2") == 86_400


def test_a_bad_ttl_is_refused(capsys, workspace):
    for bad in ("0", "abc", "1.5"):
        args = ("set-ttl", "acme", "t1", "t1-2", bad, "--workspace", str(workspace))
        code, _, err = run(capsys, *args, "--allow-writes", "--yes")
        assert code == 1 and ("SECONDS must be a whole number" in err or "not one the" in err)
    assert ttl_of(workspace, "t1-2") == 3600


def test_erase_thread_with_yes(capsys, workspace, isolated_user_dirs):
    args = ("erase-thread", "acme", "t1", "--workspace", str(workspace), "--allow-writes", "--yes")
    code, out, err = run(capsys, *args)
    assert code == 0 and "4 items deleted" in out and "delete all 4 items" in err
    assert all(ttl_of(workspace, f"t1-{i}") == "gone" for i in range(4))
    assert ttl_of(workspace, "t2-0") is None  # the other thread is untouched
    assert sorted(audit(isolated_user_dirs)[-1]["ids"]) == [f"t1-{i}" for i in range(4)]


def test_a_concurrent_change_exits_4_and_writes_nothing(
    capsys, workspace, isolated_user_dirs, monkeypatch
):
    original = LocalWriter.set_ttl

    async def someone_else_first(self, item_id, partition_key, ttl, *, etag):  # type: ignore[no-untyped-def]
        other = WorkspaceWriter.open(workspace)
        other.set_ttl('["acme","t1"]', item_id, 42, etag=etag, now=ANCHOR)
        other.close()
        return await original(self, item_id, partition_key, ttl, etag=etag)

    monkeypatch.setattr(LocalWriter, "set_ttl", someone_else_first)
    args = ("pin", "acme", "t1", "t1-3", "--workspace", str(workspace), "--allow-writes", "--yes")
    code, out, _ = run(capsys, *args)
    assert code == 4 and "changed after it was read (412)" in out
    assert ttl_of(workspace, "t1-3") == 42
    assert audit(isolated_user_dirs)[-1]["outcome"] == "conflict"


def test_an_unknown_item_exits_1(capsys, workspace):
    args = ("pin", "acme", "t1", "nope", "--workspace", str(workspace), "--allow-writes", "--yes")
    code, _, err = run(capsys, *args)
    assert code == 1 and "no item 'nope' in tenant acme / thread t1" in err and "gone" not in err


def test_the_demo_copy_can_be_written(capsys, demo_path, tmp_path, manifest, isolated_user_dirs):
    copy = tmp_path / "demo.sqlite"
    shutil.copy(demo_path, copy)
    code, out, _ = run(
        capsys, "threads", manifest.hostile["tenant"], "--workspace", str(copy), "--json"
    )
    assert code == 0
    args = ("erase-thread", manifest.hostile["tenant"], manifest.hostile["thread"])
    code, out, _ = run(capsys, *args, "--workspace", str(copy), "--allow-writes", "--yes")
    assert code == 0 and "items deleted" in out
    assert "\x1b" not in out  # the hostile thread's name is escaped on the way out


def test_findings_quoting_hostile_keys_are_escaped(capsys, tmp_path):
    hostile = "evil\x1b]52;c;aGk=\x07[bold]\u202e"
    items = [exchange(hostile, f"t{i}", 0, ttl=3600) for i in range(30)]
    items += [exchange(f"t{i}", "x", 0, ttl=3600) for i in range(8)]
    path = build_workspace(tmp_path / "h.sqlite", items, now=ANCHOR - 60)
    code, out, err = run(capsys, "advise", "--workspace", str(path))
    assert code == 0 and "partition-avoid-hotspots" in out
    assert "\x1b" not in out + err and "\u202e" not in out + err and "\\x1b" in out
    code, out, _ = run(capsys, "advise", "--workspace", str(path), "--json")
    hot = next(f for f in json.loads(out) if f["rule"] == "partition-avoid-hotspots")
    assert hot["examples"][0] == hostile  # JSON decodes to the exact key
    assert "\x1b" not in out  # … and carries it escaped
