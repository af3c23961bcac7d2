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

from cosmem_tui.sources.local.demo import HOSTILE_THREAD

RAW_PAYLOADS = [
    b"\x1b]0;pwned",  # OSC: set the window title
    b"\x1b]52;c;",  # OSC 52: write the clipboard
    b"\x1b[2J\x1b[H\x1b[31mYour",  # clear screen, home, red
    "\u202e".encode(),  # right-to-left override
    "\x9b".encode(),  # C1 CSI (UTF-8 encoded)
    "\x9d".encode(),  # C1 OSC
    b"\x07 backspace",  # BEL inside the message
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


def spawn(workspace: Path, rows: int, columns: int) -> tuple[subprocess.Popen[bytes], int]:
    """The real ``cosmem`` on a new pseudo-terminal; returns the process and the pty master.

    A new session without the pty as controlling terminal, so closing the master
    sends no SIGHUP (as when a multiplexer or an SSH daemon dies badly).
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    process = subprocess.Popen(
        [sys.executable, "-m", "cosmem_tui", "--workspace", str(workspace)],
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
        for key in (b"j", b"\r"):  # the clear-screen message, opened in the detail
            os.write(master, key)
            output += read_until_quiet(master, quiet=1.0, limit=10)
        os.write(master, b"k")
        output += read_until_quiet(master, quiet=0.5, limit=5)
        os.write(master, b"j")  # and walk the list over every hostile preview
        for _ in range(6):
            os.write(master, b"j")
            output += read_until_quiet(master, quiet=0.4, limit=5)
        os.write(master, b"q")
        output += read_until_quiet(master, quiet=1.0, limit=10)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert b"Your terminal was cleared" in output, "the hostile message was not on screen"
    assert b"\\x1b" in output  # shown as a visible escape instead
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
