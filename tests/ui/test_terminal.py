"""Hostile text never reaches a real terminal as a control sequence.

The real ``cosmem`` runs in a pseudo-terminal; we open the demo's hostile thread
and one of its messages, then inspect every byte the app wrote.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from cosmem_tui.core.demo.hostile import HOSTILE_ROLE, HOSTILE_THREAD
from tests.helpers import build_workspace

RAW_PAYLOADS = [
    b"\x1b]0;pwned",  # OSC: set the window title
    b"\x1b]52;c;",  # OSC 52: write the clipboard
    b"\x1b[2J\x1b[H\x1b[31mYour",  # clear screen, home, red
    "\u202e".encode(),  # right-to-left override
    "\x9b".encode(),  # C1 CSI (UTF-8 encoded)
    "\x9d".encode(),  # C1 OSC
    b"\x07 backspace",  # BEL inside the message
    HOSTILE_ROLE.encode(),  # a role name (shown in the ROLES column and the preview)
]


def read_until_quiet(fd: int, quiet: float, limit: float) -> bytes:
    chunks = []
    deadline = time.monotonic() + limit
    last = time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - last < quiet:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
            last = time.monotonic()
    return b"".join(chunks)


def spawn(
    workspace: Path, rows: int, columns: int, *extra: str
) -> tuple[subprocess.Popen[bytes], int]:
    """The real ``cosmem`` on a new pseudo-terminal; returns the process and the pty master.

    A new session without the pty as controlling terminal, so closing the master
    sends no SIGHUP (as when a multiplexer or an SSH daemon dies badly).
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    process = subprocess.Popen(
        [sys.executable, "-m", "cosmem_tui", "--workspace", str(workspace), *extra],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    return process, master


def test_hostile_messages_are_inert_in_a_real_pty(demo_path: Path, manifest):
    process, master = spawn(demo_path, 40, 120)
    output = b""
    try:
        output += read_until_quiet(master, quiet=1.5, limit=20)
        command = f":thread {manifest.hostile['tenant']} {HOSTILE_THREAD}\r"
        os.write(master, command.encode())
        output += read_until_quiet(master, quiet=1.0, limit=10)
        for _ in range(7):  # walk the list over every hostile preview (no detail open yet:
            os.write(master, b"j")  # the list is at its widest)
            output += read_until_quiet(master, quiet=0.4, limit=5)
        for key in (b"g", b"j", b"\r"):  # the clear-screen message, opened in the detail
            os.write(master, key)
            output += read_until_quiet(master, quiet=1.0, limit=10)
        os.write(master, b"q")
        output += read_until_quiet(master, quiet=1.0, limit=10)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert b"Your terminal was cleared" in output, "the hostile message was not on screen"
    assert b"\\x1b" in output  # shown as a visible escape instead
    assert b"\\x1b[31mred\\x1b[0m: C1 controls" in output  # the role in the preview
    for payload in RAW_PAYLOADS:
        assert payload not in output, payload
    assert process.returncode == 0
    assert b"Traceback" not in output and b"Warning" not in output


def test_a_lost_terminal_ends_the_console(demo_path: Path):
    """Closing the terminal (an SSH drop) must end cosmem, not leave it spinning."""
    process, master = spawn(demo_path, 24, 80)
    try:
        read_until_quiet(master, quiet=1.5, limit=20)
        assert process.poll() is None, "the console should be running"
        os.close(master)
        master = -1
        process.wait(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if master != -1:
            os.close(master)
    assert process.returncode == 129


def hostile(field: str) -> str:
    """A value for one item field: a window-title OSC, a colour CSI and a bidi override."""
    return f"\x1b]0;{field}\x07\x1b[31m{field}\u202e\x9b"


def test_every_item_field_is_inert_in_a_real_pty(tmp_path: Path, clock):
    """Keys, ids, order, kind, roles, ttl and metadata reach rows, titles and the detail."""
    fields = ("tenantId", "threadId", "turnIndex", "type", "role", "id", "ttl", "note")
    item = {
        "id": hostile("id"),
        "tenantId": hostile("tenantId"),
        "threadId": hostile("threadId"),
        "turnIndex": hostile("turnIndex"),
        "type": hostile("type"),
        "ttl": hostile("ttl"),
        "note": hostile("note"),
        "messages": [
            {"role": hostile("role"), "content": "short", "timestamp": "2026-11-29T10:00:00Z"}
        ],
    }
    workspace = build_workspace(tmp_path / "h.sqlite", [item], now=int(clock.now()))
    process, master = spawn(workspace, 40, 160)
    output = b""
    try:
        output += read_until_quiet(master, quiet=1.5, limit=20)
        for _ in range(3):  # tenants → threads → turns → the detail with the raw item
            os.write(master, b"\r")
            output += read_until_quiet(master, quiet=1.0, limit=10)
        os.write(master, b"q")
        output += read_until_quiet(master, quiet=1.0, limit=10)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert b"raw item" in output, "the detail was not opened"
    # Shown as visible escapes (\x1b in rows and text, \u001b in the raw JSON), never raw.
    missing = [
        f
        for f in fields
        if not any(f"{esc}[31m{f}".encode() in output for esc in ("\\x1b", "\\u001b"))
    ]
    leaked = [
        f for f in fields if any(f"\x1b{seq}{f}".encode() in output for seq in ("]0;", "[31m"))
    ]
    assert missing == [] and leaked == []
    assert "\u202e".encode() not in output and "\x9b".encode() not in output
    assert process.returncode == 0
