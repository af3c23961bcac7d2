"""``cosmem tail`` for real: the command in a subprocess on a built workspace, writes made
through the workspace's change log while it runs, ``--for`` and ctrl+c (SIGINT)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from tests.helpers import build_workspace, exchange

KEYS = ["time", "op", "tenant", "thread", "id", "order", "lsn", "ttl_expired", "ru"]
HOSTILE = "\x1b[31mred\x1b]52;c;cHduZWQ=\x07 \u202egnp.exe"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    now = int(time.time())
    items = [exchange("acme", "t1", 0), exchange(42, "n1", 7), exchange("globex", "g1", 0)]
    return build_workspace(tmp_path / "ws.sqlite", items, now=now - 60)  # type: ignore[arg-type]


def write(path: Path, *bodies: dict[str, Any]) -> None:
    writer = WorkspaceWriter.open(path)
    try:
        with writer.changes(get_schema("lab"), int(time.time())) as batch:
            for body in bodies:
                batch.create(body)
    finally:
        writer.close()


def tail(workspace: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cosmem_tui", "tail", "--workspace", str(workspace), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def read_lines(
    process: subprocess.Popen[str], count: int, *, stderr: bool = False, timeout: float = 60.0
) -> list[str]:
    """The next ``count`` lines the command prints on stdout (or stderr); it runs on."""
    stream = process.stderr if stderr else process.stdout
    assert stream is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while len(lines) < count:
        left = deadline - time.monotonic()
        assert left > 0, f"only {lines!r} came"
        ready, _, _ = select.select([stream], [], [], left)
        if ready:
            line = stream.readline()
            assert line, "the command ended early"
            lines.append(line)
    return lines


def wait_started(process: subprocess.Popen[str]) -> None:
    """Until the first poll is back: what is written after it is what the tail shows."""
    while "following" not in read_lines(process, 1, stderr=True)[0]:
        pass


def test_json_lines_from_the_beginning_for_a_while(workspace):
    done = subprocess.run(
        [
            sys.executable, "-m", "cosmem_tui", "tail", "--workspace", str(workspace),
            "--json", "--since", "beginning", "--for", "1", "--poll", "0.5",
        ],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(r["id"] for r in records) == ["g1-0", "n1-7", "t1-0"]
    assert all(list(r) == KEYS for r in records)
    numeric = next(r for r in records if r["id"] == "n1-7")
    assert numeric["tenant"] == 42 and numeric["order"] == 7  # typed as stored
    assert numeric["op"] == "write" and numeric["ttl_expired"] is False
    assert isinstance(numeric["lsn"], int) and numeric["time"].endswith("Z")
    # Latest version: stderr says once what it cannot see and what would show it.
    assert done.stderr.count("deletes and TTL expirations are not visible") == 1
    assert "--mode all" in done.stderr
    summary = done.stderr.strip().splitlines()[-1]
    assert "3 changes" in summary and "--for 1 s" in summary


def test_ctrl_c_ends_the_stream_with_a_summary_and_status_0(workspace):
    process = tail(workspace, "acme", "--json", "--mode", "all", "--poll", "0.5")
    try:
        wait_started(process)
        write(workspace, exchange("acme", "t1", 1, HOSTILE), exchange("globex", "g1", 1))
        (line,) = read_lines(process, 1)
        record = json.loads(line)
        assert record["id"] == "t1-1" and record["op"] == "create" and record["tenant"] == "acme"
        assert "\x1b" not in line  # nothing of the text is in the record, escaped or not
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out == ""  # globex is not in the tenant's scope
    assert "deletes and TTL" not in err  # all versions sees them: no note
    last = err.strip().splitlines()[-1]
    assert last.startswith("cosmem: tail of tenant acme") and "interrupted" in last
    assert "1 changes" in last


def test_the_table_stream_escapes_item_text(workspace):
    process = tail(workspace, "--poll", "0.5")
    try:
        (header,) = read_lines(process, 1)  # printed before the first poll
        assert header.split()[:4] == ["TIME", "OP", "TENANT", "THREAD"]
        wait_started(process)
        write(workspace, exchange("acme", "t1", 2, HOSTILE))
        (row,) = read_lines(process, 1)
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert "\x1b" not in row and "\x07" not in row and "\u202e" not in row
    assert "\\x1b[31mred" in row and "t1-2" in row and " write " in row
    assert process.returncode == 0


def test_all_versions_cannot_start_from_the_beginning(workspace):
    done = subprocess.run(
        [
            sys.executable, "-m", "cosmem_tui", "tail", "--workspace", str(workspace),
            "--mode", "all", "--since", "beginning", "--for", "1",
        ],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    assert "starts only now" in done.stderr and "--mode latest" in done.stderr


def test_since_and_poll_are_checked_before_anything_is_opened(workspace):
    for args, said in (
        (["--since", "yesterday"], "must be now, beginning, or a time"),
        (["--poll", "0.1"], "at least 0.5 seconds"),
        (["a", "b", "c"], "usage: cosmem tail"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "cosmem_tui", "tail", "--workspace", str(workspace), *args],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ},
        )
        assert done.returncode in (1, 2), done.stderr
        assert said in done.stderr, done.stderr
