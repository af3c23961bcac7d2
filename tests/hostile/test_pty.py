"""The proof in a real terminal: no escape from the hostile workspace reaches it.

The real ``cosmem`` runs in a pseudo-terminal on the imported hostile workspace; every
tenant is opened down to the detail of its turn (every field hostile) and the
``everything`` thread is walked turn by turn; then every bytes the terminal received
is searched for each corpus value's raw escape (its canary: the OSC 52 payload, the
OSC 8 URL, the CSI with its own parameter, the bidi override before its text ...).
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.hostile.corpus import BY_NAME, leaks
from tests.hostile.test_views_everywhere import TENANTS
from tests.ui.test_terminal import read_until_quiet, spawn


def test_no_corpus_escape_reaches_a_real_terminal(hostile_workspace: Path):
    process, master = spawn(hostile_workspace, 50, 160)
    output = b""

    def press(keys: bytes, quiet: float = 0.3) -> None:
        nonlocal output
        os.write(master, keys)
        output += read_until_quiet(master, quiet=quiet, limit=15)

    try:
        while b"everything" not in output:  # the tenants are listed, however slow the start
            chunk = read_until_quiet(master, quiet=1.5, limit=30)
            assert chunk, "the console drew nothing"
            output += chunk
        for _ in range(TENANTS):
            for _ in range(3):  # the tenant, its thread, its first turn's detail
                press(b"\r")
            press(b"j")  # the next turn's detail, if any
            press(b"hhhj")  # back to the turns, the threads, the tenants; the next tenant
        press(b"q", quiet=1.0)
        process.wait(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    assert leaks(output) == []
    assert b"raw item" in output, "no detail was opened"
    assert b"[bold red]CANARY-markup[/]" in output  # the markup, as its text
    for name in ("csi", "sgr", "osc52", "c1", "bidi", "zero-width"):
        assert BY_NAME[name].shown.encode() in output, name  # shown as visible escapes
    assert b"Traceback" not in output
    assert process.returncode == 0
