"""The headless CLI: every output format, the error contract, and the real entry point."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cosmem_tui import __version__
from cosmem_tui.core.demo.hostile import HOSTILE_THREAD
from cosmem_tui.schemas import get_schema
from tests.helpers import build_workspace, exchange
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")


def test_tenants_json(capsys, demo_path):
    code, out, err = run(capsys, "tenants", "--workspace", str(demo_path), "--json")
    assert code == 0 and err == ""
    tenants = json.loads(out)
    assert len(tenants) == 48
    assert set(tenants[0]) >= {"tenant", "threads", "items", "last_activity"}
    assert tenants[0]["tenant"] == "contoso"
    assert tenants[0]["items"] == max(t["items"] for t in tenants)


def test_tenants_csv_and_table(capsys, demo_path):
    code, out, _ = run(capsys, "tenants", "--workspace", str(demo_path), "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 48 and rows[0]["tenant"] == "contoso"
    code, out, _ = run(capsys, "--workspace", str(demo_path), "tenants")
    lines = out.splitlines()
    assert lines[0].split() == ["TENANT", "THREADS", "ITEMS", "LAST_ACTIVITY"]
    assert lines[1].startswith("contoso") and len(lines) == 49


def test_threads_json(capsys, demo_path):
    code, out, _ = run(capsys, "threads", "contoso", "--workspace", str(demo_path), "--json")
    threads = json.loads(out)
    assert code == 0 and len(threads) == 402
    assert set(threads[0]) >= {"thread", "turns", "last_activity", "short_term", "long_term"}
    assert all(t["short_term"] + t["long_term"] == t["turns"] for t in threads)
    stamps = [t["last_activity"] for t in threads]
    assert stamps == sorted(stamps, reverse=True)  # most recently active first


def test_turns_json_keys_and_order(capsys, demo_path):
    _, out, _ = run(capsys, "threads", "contoso", "--workspace", str(demo_path), "--json")
    thread = json.loads(out)[0]["thread"]
    code, out, _ = run(capsys, "turns", "contoso", thread, "--workspace", str(demo_path), "--json")
    turns = json.loads(out)
    assert code == 0 and turns
    assert set(turns[0]) >= {"id", "order", "timestamp", "roles", "text", "ttl", "expires_at"}
    orders = [t["order"] for t in turns]
    assert orders == sorted(orders)
    code, out, _ = run(
        capsys, "turns", "contoso", thread, "--last", "3", "--workspace", str(demo_path), "--json"
    )
    assert [t["order"] for t in json.loads(out)] == orders[-3:]


def test_turns_csv_has_header_and_rows(capsys, demo_path, manifest):
    m = manifest.malformed
    code, out, _ = run(capsys, "turns", m["tenant"], m["thread"], "--workspace", str(demo_path),
                       "--csv")  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 13
    assert any("ttl: null" in r["problems"] for r in rows)
    assert rows[0]["order"] == ""  # the item without turnIndex sorts first, as on Cosmos


def test_hostile_text_never_reaches_stdout_raw(capsys, demo_path, manifest):
    tenant = manifest.hostile["tenant"]
    for fmt in ("--json", "--csv", None):
        args = ["turns", tenant, HOSTILE_THREAD, "--workspace", str(demo_path)]
        code, out, _ = run(capsys, *([*args, fmt] if fmt else args))
        assert code == 0
        for raw in ("\x1b", "\x9b", "\u202e", "\x07", "\x00"):
            assert raw not in out, (fmt, raw)
    code, out, _ = run(capsys, *args, "--json")
    texts = [t["messages"][0]["text"] for t in json.loads(out)]
    assert texts[1].startswith("\x1b[2J")  # JSON escapes decode back to the exact data


def test_unknown_names_are_one_line_errors(capsys, demo_path):
    code, out, err = run(capsys, "threads", "nobody", "--workspace", str(demo_path))
    assert code == 1 and out == ""
    assert err.startswith("cosmem: no tenant 'nobody'") and err.count("\n") == 1
    code, _, err = run(capsys, "turns", "contoso", "nope", "--workspace", str(demo_path))
    assert code == 1 and "no thread 'nope'" in err and "Traceback" not in err
    code, _, err = run(capsys, "tenants", "--workspace", "/nonexistent/x.sqlite")
    assert code == 1 and "no workspace at" in err
    code, _, err = run(capsys, "tenants", "--workspace", str(demo_path), "--schema", "nope")
    assert code == 1 and "unknown schema" in err


def test_schema_without_tenants(capsys, tmp_path, clock):
    path = build_workspace(
        tmp_path / "t.sqlite",
        [exchange(None, "s1", 0), exchange(None, "s1", 1), exchange(None, "s2", 0)],
        now=int(clock.now()),
        schema=get_schema("thread"),
    )
    code, out, _ = run(capsys, "threads", "--workspace", str(path), "--json")
    assert code == 0 and [t["thread"] for t in json.loads(out)] == ["s1", "s2"]
    assert "tenant" not in json.loads(out)[0]
    code, out, _ = run(capsys, "turns", "s1", "--workspace", str(path), "--json")
    assert [t["order"] for t in json.loads(out)] == [0, 1]
    code, _, err = run(capsys, "tenants", "--workspace", str(path))
    assert code == 1 and "no tenant level" in err
    code, _, err = run(capsys, "turns", "x", "s1", "--workspace", str(path))
    assert code == 1 and "usage" in err


def test_demo_command_creates_and_reuses(capsys, tmp_path):
    target = tmp_path / "d.sqlite"
    code, out, _ = run(capsys, "demo", "--workspace", str(target))
    assert code == 0 and target.exists() and "hot tenant: contoso" in out
    before = target.stat().st_mtime_ns
    code, out, _ = run(capsys, "demo", "--workspace", str(target))
    assert code == 0 and "--reset" in out and target.stat().st_mtime_ns == before
    code, out, _ = run(capsys, "demo", "--workspace", str(target), "--reset")
    assert code == 0 and target.stat().st_mtime_ns != before


def cosmem(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cosmem_tui", *args],
        capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_the_real_entry_point(demo_path):
    result = cosmem("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"cosmem {__version__}"
    result = cosmem("tenants", "--workspace", str(demo_path), "--json")
    assert result.returncode == 0 and len(json.loads(result.stdout)) == 48
    result = cosmem("threads", "nobody", "--workspace", str(demo_path))
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_default_workspace_lives_in_the_xdg_data_home(isolated_user_dirs):
    data = Path(os.environ["XDG_DATA_HOME"])
    result = cosmem("tenants", "--json")
    assert result.returncode == 0, result.stderr
    assert (data / "cosmem" / "demo.sqlite").is_file()
    assert "creating the demo workspace" in result.stderr
    again = cosmem("tenants", "--json")
    assert again.returncode == 0 and "creating" not in again.stderr


def test_a_demo_made_by_an_older_console_is_rebuilt_and_a_workspace_never_is(
    isolated_user_dirs, tmp_path
):
    import shutil
    import sqlite3

    from cosmem_tui.core.demo import GENERATION

    demo = Path(os.environ["XDG_DATA_HOME"]) / "cosmem" / "demo.sqlite"
    assert cosmem("tenants", "--json").returncode == 0
    mine = tmp_path / "mine.sqlite"
    shutil.copy(demo, mine)
    for path in (demo, mine):  # as an older console left them: its own generation
        with sqlite3.connect(path) as db:
            db.execute("UPDATE meta SET value = 'old' WHERE key = 'demo_generation'")
    again = cosmem("tenants", "--json")
    assert again.returncode == 0 and "creating the demo workspace" in again.stderr
    with sqlite3.connect(demo) as db:
        (value,) = db.execute("SELECT value FROM meta WHERE key = 'demo_generation'").fetchone()
    assert value == GENERATION
    theirs = cosmem("tenants", "--workspace", str(mine), "--json")
    assert theirs.returncode == 0 and "creating" not in theirs.stderr
    with sqlite3.connect(mine) as db:
        (value,) = db.execute("SELECT value FROM meta WHERE key = 'demo_generation'").fetchone()
    assert value == "old"
