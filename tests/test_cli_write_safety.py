"""The audit log under signals and a full disk: every delete applied is in it, whole.

The real ``cosmem`` runs as a subprocess on a local workspace: SIGTERM, SIGHUP and
SIGINT arrive while an erase is deleting, and a file-size limit (``RLIMIT_FSIZE``, the
kernel's own short writes and EFBIG) stands in for a disk that fills mid-line. What
must hold in every case: each item that is gone from the workspace has an intent line
and a ``deleted`` line, no line is cut in half, and the closing line is there.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core.audit import AuditFailed, AuditLog
from tests.helpers import build_workspace, exchange, run_cli

BIG = 1500  # items in the thread: an erase of it runs for seconds


def audit_path(isolated_user_dirs: Path) -> Path:
    return isolated_user_dirs / "data" / "cosmem" / "audit.jsonl"


def audit(isolated_user_dirs: Path) -> list[dict[str, Any]]:
    path = audit_path(isolated_user_dirs)
    text = path.read_text() if path.exists() else ""
    assert text == "" or text.endswith("\n"), "the audit log ends in half a line"
    return [json.loads(line) for line in text.splitlines()]


def left_in(workspace: Path, thread: str) -> set[str]:
    with sqlite3.connect(workspace) as db:
        rows = db.execute("SELECT id FROM items WHERE thread_key = ?", (thread,)).fetchall()
    return {r[0] for r in rows}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    now = int(time.time())
    items = [exchange("acme", "big", i) for i in range(BIG)]
    items += [exchange("acme", "small", i) for i in range(3)]
    return build_workspace(tmp_path / "w.sqlite", items, now=now - 60)


def assert_log_matches_workspace(lines: list[dict[str, Any]], workspace: Path) -> None:
    """Each item gone from the thread was announced and then logged deleted."""
    gone = {f"big-{i}" for i in range(BIG)} - left_in(workspace, "big")
    intents = {x["id"] for x in lines if x["event"] == "intent"}
    deleted = {x["id"] for x in lines if x["event"] == "delete" and x["outcome"] == "deleted"}
    assert gone == deleted, (len(gone), len(deleted))
    assert deleted <= intents
    results = [x["id"] for x in lines if x["event"] == "delete"]
    assert [x["id"] for x in lines if x["event"] == "intent"] == results  # paired, in order


def erase(workspace: Path, **kwargs: Any) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "cosmem_tui", "erase-thread", "acme", "big"]
    command += ["--workspace", str(workspace), "--allow-writes", "--yes"]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ), **kwargs
    )


def wait_for_deletes(path: Path, count: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if path.exists() and path.read_text().count('"event":"delete"') >= count:
            return
        time.sleep(0.02)
    raise AssertionError("the erase never got going (or ended before the signal)")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_during_an_erase_stops_it_cleanly_and_the_log_is_whole(
    workspace, isolated_user_dirs, sig
):
    process = erase(workspace)
    try:
        wait_for_deletes(audit_path(isolated_user_dirs), 20, process)
        process.send_signal(sig)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 3, err.decode()
    assert f"{sig.name}: stopping after the request in flight" in err.decode()
    assert f"stopped by {sig.name} before the next delete" in out.decode()
    lines = audit(isolated_user_dirs)
    closing = lines[-1]
    assert closing["event"] == "erase-thread" and closing["interrupted"] == sig.name
    assert closing["outcome"] == "stopped" and 20 <= closing["deleted"] < BIG
    assert closing["remaining"] == BIG - closing["deleted"]
    assert_log_matches_workspace(lines, workspace)
    assert left_in(workspace, "small") == {"small-0", "small-1", "small-2"}


def limited(limit: int) -> Any:
    def apply() -> None:  # in the child: writes past `limit` bytes fail (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def prefill(path: Path, size: int) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    filler = json.dumps({"event": "earlier", "pad": "x" * 200}) + "\n"
    path.write_text(filler * (size // len(filler)))
    return len(path.read_text().splitlines())


@pytest.mark.parametrize(("room_kb", "stops"), [(4, "before"), (300, "part-way")])
def test_a_log_near_its_limit_stops_the_erase_before_a_request_it_could_not_log(
    workspace, isolated_user_dirs, room_kb, stops
):
    """The log file can grow by only ``room_kb``: with too little room for a delete's
    lines nothing is sent; with some, the erase stops part-way at the first delete whose
    lines would not fit — and every delete made is in the log, whole."""
    path = audit_path(isolated_user_dirs)
    limit = 4 * 1024 * 1024
    earlier = prefill(path, limit - room_kb * 1024)
    process = erase(workspace, preexec_fn=limited(limit))
    _, err = process.communicate(timeout=120)
    assert process.returncode == 1, err.decode()
    assert "almost full" in err.decode() and "Traceback" not in err.decode()
    new = audit(isolated_user_dirs)[earlier:]  # every line whole, the file ends in a newline
    if stops == "before":
        assert "nothing was written" in err.decode() and new == []
        assert len(left_in(workspace, "big")) == BIG
        return
    assert "stopped there" in err.decode()
    assert new[0]["event"] == "erase-start" and new[-1]["event"] == "delete"
    assert_log_matches_workspace(new, workspace)
    assert 0 < len(left_in(workspace, "big")) < BIG


SHORT_WRITE = """
import resource, sys
from pathlib import Path
from cosmem_tui.core.audit import AuditFailed, AuditLog
path = Path(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (path.stat().st_size + 10, resource.RLIM_INFINITY))
try:
    AuditLog(path).append({"event": "delete", "id": "x" * 100})
except AuditFailed as exc:
    print(exc.message)
"""


def test_a_line_cut_short_by_the_disk_is_taken_back_off(tmp_path):
    """The kernel writes the first bytes of a line and refuses the rest (EFBIG, as on a
    full disk): the log is cut back to where it was, and the write is refused."""
    path = tmp_path / "audit.jsonl"
    path.write_text('{"event":"earlier"}\n')
    result = subprocess.run(
        [sys.executable, "-c", SHORT_WRITE, str(path)], capture_output=True, text=True, check=True
    )
    assert "cannot be written (File too large)" in result.stdout, result.stderr
    assert path.read_text() == '{"event":"earlier"}\n'


def test_an_intent_line_needs_room_for_its_result(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl", reserve_bytes=1 << 62)  # more than any disk
    log.append({"event": "erase-start"})  # a closing or start line needs no reserve
    with pytest.raises(AuditFailed, match="disk that is almost full"):
        log.append({"event": "intent", "id": "x"}, reserve=True)
    assert (tmp_path / "audit.jsonl").read_text().count("\n") == 1


def test_a_non_finite_number_is_never_written_as_nan(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    with pytest.raises(AuditFailed, match="cannot be encoded"):
        log.append({"before_ttl": float("nan")})
    assert not (tmp_path / "audit.jsonl").exists() or (tmp_path / "audit.jsonl").read_text() == ""


def test_an_erase_on_a_terminal_needs_the_thread_id_typed(
    capsys, workspace, isolated_user_dirs, monkeypatch
):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    args = ("erase-thread", "acme", "small", "--workspace", str(workspace), "--allow-writes")
    for answer in ("y\n", "yes\n", "smal\n", "\n"):
        monkeypatch.setattr("sys.stdin.readline", lambda answer=answer: answer)
        code, _, err = run_cli(capsys, *args)
        assert code == 1 and "type the thread id (small) to erase it" in err
        assert "nothing was written" in err
    assert left_in(workspace, "small") == {"small-0", "small-1", "small-2"}
    monkeypatch.setattr("sys.stdin.readline", lambda: " small\n")
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    assert "3 items deleted" in out and left_in(workspace, "small") == set()
