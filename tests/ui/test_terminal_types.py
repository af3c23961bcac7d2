"""The real ``cosmem`` in tmux under the TERM values SSH users have: it paints the
tenant list, and ``ctrl+c`` ends it with status 0 and the terminal given back.

tmux is the terminal here: ``capture-pane`` shows what a user would see, so a frame
the terminal type garbles, or a screen left behind, shows up as text.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _tmux() -> None:
    """tmux is a test dependency (.ci/run installs it): without it this fails, never skips."""
    assert shutil.which("tmux"), "tmux is not installed (apt-get install tmux)"


WAIT_S = 40.0  # a generous bound on a shared machine; the polls end as soon as it is true


def wait_for(condition: Callable[[], bool], what: str, shown: Callable[[], str]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; on screen:\n{shown()}")
        time.sleep(0.1)


@pytest.mark.parametrize("term", ["xterm", "screen-256color", "tmux-256color"])
def test_the_console_paints_and_ctrl_c_quits_under(term, demo_path: Path, tmp_path: Path):
    socket = tmp_path / "tmux.sock"

    def tmux(*args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(socket), "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return done.stdout

    exit_file = tmp_path / "status"
    command = (
        f"{shlex.quote(sys.executable)} -m cosmem_tui --workspace {shlex.quote(str(demo_path))}"
        f"; echo $? > {shlex.quote(str(exit_file))}.tmp && mv {shlex.quote(str(exit_file))}.tmp "
        f"{shlex.quote(str(exit_file))}"
    )
    tmux(
        *("start-server", ";", "set", "-g", "default-terminal", term, ";"),
        *("set", "-g", "remain-on-exit", "on", ";"),
        *("new-session", "-d", "-s", "console", command),  # detached: tmux's 80×24
    )
    try:
        screen = lambda: tmux("capture-pane", "-p", "-t", "console")  # noqa: E731
        wait_for(lambda: "tenants (48)" in screen() and "contoso" in screen(), "the list", screen)
        shown = screen()
        assert "q quit" in shown.rstrip().splitlines()[-1]  # the footer's hints, on the last line
        assert "Traceback" not in shown
        tmux("send-keys", "-t", "console", "C-c")
        # The status as the shell saw it (tmux's own pane_dead_status is not always set).
        wait_for(exit_file.exists, "cosmem to end", screen)
        assert exit_file.read_text().strip() == "0"
        left = screen()
        assert "contoso" not in left and "Traceback" not in left  # the alternate screen is gone
    finally:
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], capture_output=True, timeout=30)
