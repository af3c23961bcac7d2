"""SIGTERM and SIGHUP reach the real console in a pseudo-terminal, during an erase and
without one: the erase stops between two deletes with its audit lines whole, and the
terminal is given back (alternate screen and mouse reporting off), as ``q`` would.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import build_workspace, exchange
from tests.ui.test_terminal import read_until_quiet, spawn

BIG = 1500
LEAVE_ALT_SCREEN = b"\x1b[?1049l"
MOUSE_OFF = b"\x1b[?1000l"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    items = [exchange("acme", "big", i) for i in range(BIG)]
    items += [exchange("acme", "small", i) for i in range(3)]
    return build_workspace(tmp_path / "w.sqlite", items, now=int(time.time()) - 60)


def drain_until_exit(master: int, process: subprocess.Popen[bytes], limit: float) -> bytes:
    out = b""
    deadline = time.monotonic() + limit
    while process.poll() is None and time.monotonic() < deadline:
        out += read_until_quiet(master, quiet=0.3, limit=1.0)
    out += read_until_quiet(master, quiet=0.3, limit=2.0)
    return out


def audit(isolated_user_dirs: Path) -> list[dict]:
    path = isolated_user_dirs / "data" / "cosmem" / "audit.jsonl"
    text = path.read_text() if path.exists() else ""
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def remaining(workspace: Path) -> int:
    with sqlite3.connect(workspace) as db:
        (n,) = db.execute("SELECT COUNT(*) FROM items WHERE thread_key = 'big'").fetchone()
    return int(n)


@pytest.mark.parametrize(
    ("sig", "drop"), [(signal.SIGTERM, False), (signal.SIGHUP, False), (signal.SIGHUP, True)]
)
def test_a_signal_during_an_erase_in_the_console(workspace, isolated_user_dirs, sig, drop):
    """``drop``: an SSH drop — the terminal goes away as the SIGHUP arrives."""
    process, master = spawn(workspace, 24, 80, "--allow-writes")
    log = isolated_user_dirs / "data" / "cosmem" / "audit.jsonl"
    output = b""
    try:
        output += read_until_quiet(master, quiet=1.5, limit=30)
        os.write(master, b":thread acme big\r")
        output += read_until_quiet(master, quiet=1.0, limit=15)
        os.write(master, b"X")
        output += read_until_quiet(master, quiet=1.0, limit=15)
        assert b"type the thread id" in output
        os.write(master, b"big\r")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            output += read_until_quiet(master, quiet=0.05, limit=0.2)
            if log.exists() and log.read_text().count('"event":"delete"') >= 20:
                break
        else:
            raise AssertionError("the erase never got going")
        if drop:
            os.close(master)
            master = -1
            process.send_signal(sig)
            process.wait(timeout=60)
        else:
            process.send_signal(sig)
            output += drain_until_exit(master, process, 60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if master != -1:
            os.close(master)
    assert process.returncode == 128 + int(sig)
    lines = audit(isolated_user_dirs)
    closing = lines[-1]
    assert closing["event"] == "erase-thread" and closing["interrupted"] == sig.name
    deleted = [x for x in lines if x["event"] == "delete" and x["outcome"] == "deleted"]
    intents = [x for x in lines if x["event"] == "intent"]
    assert len(intents) == len([x for x in lines if x["event"] == "delete"])
    assert BIG - remaining(workspace) == len(deleted) == closing["deleted"] > 0
    assert remaining(workspace) > 0  # stopped, not finished
    if not drop:
        tail = output[output.rfind(b"erasing") :]
        assert LEAVE_ALT_SCREEN in tail and MOUSE_OFF in tail
        assert b"Traceback" not in output


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_without_a_write_quits_and_gives_the_terminal_back(workspace, sig):
    process, master = spawn(workspace, 24, 80)
    try:
        output = read_until_quiet(master, quiet=1.5, limit=30)
        assert b"\x1b[?1049h" in output  # the console is on the alternate screen
        process.send_signal(sig)
        output = drain_until_exit(master, process, 30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    assert process.returncode == 128 + int(sig)
    assert LEAVE_ALT_SCREEN in output and MOUSE_OFF in output
    assert b"Traceback" not in output
