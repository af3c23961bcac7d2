"""What an idle view costs a jump box: bytes to the terminal per second, and CPU.

    python benchmarks/idle_cost.py [--seconds 30] [--size 120x40]

Runs the real ``cosmem`` on the demo workspace in a real pseudo-terminal, opens a view
(the throughput dashboard and the request ledger with their 5 s refresh, then the
browse view for comparison), lets it settle, and then for ``--seconds`` counts the
bytes the console writes to the terminal and the CPU time it uses
(``/proc/PID/stat``). The throughput view asks the demo's simulated telemetry on every
refresh; its metrics move once a minute, so most refreshes draw nothing. Prints
figures; asserts nothing. Goals: at most 1 KB/s and 2 % of a core.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


class Console:
    """``cosmem`` in a pseudo-terminal of the given size; the output is drained as it comes."""

    def __init__(
        self, env: dict[str, str], size: tuple[int, int], command: list[str] | None = None
    ) -> None:
        argv = command or [sys.executable, "-m", "cosmem_tui"]
        pid, fd = pty.fork()
        if pid == 0:  # the child: the console itself
            os.execvpe(argv[0], argv, env)
        self.pid, self.fd = pid, fd
        cols, rows = size
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.seen = bytearray()

    def drain(self, seconds: float) -> int:
        """Read what the console writes for ``seconds``; returns the byte count."""
        deadline = time.monotonic() + seconds
        count = 0
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                break
            count += len(chunk)
            self.seen.extend(chunk)
            del self.seen[:-200_000]
        return count

    def wait_for(self, text: bytes, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            if time.monotonic() > deadline:
                raise TimeoutError(f"never saw {text!r}")
            self.drain(0.005)  # short reads: a figure timed by it is not rounded up to 0.1 s

    def press(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def close(self) -> None:
        self.press("q")
        self.drain(1.0)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)


def measure(console: Console, seconds: float) -> tuple[float, float]:
    cpu_before = cpu_seconds(console.pid)
    started = time.monotonic()
    written = console.drain(seconds)
    elapsed = time.monotonic() - started
    cpu = cpu_seconds(console.pid) - cpu_before
    return written / elapsed, 100.0 * cpu / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.split("x"))
    with tempfile.TemporaryDirectory() as home:
        env = {
            **os.environ,
            "XDG_DATA_HOME": f"{home}/data",
            "XDG_CONFIG_HOME": f"{home}/config",
            "XDG_CACHE_HOME": f"{home}/cache",
            "TERM": "xterm-256color",
        }
        subprocess.run(
            [sys.executable, "-m", "cosmem_tui", "demo"], env=env, check=True, capture_output=True
        )
        print(f"idle cost over {args.seconds:g} s in a {cols}×{rows} pseudo-terminal")
        print(f"  {'view':34} {'bytes/s':>9} {'CPU %':>7}")
        for label, keys, shown in (
            ("throughput (refresh every 5 s)", "T", b"RU/s used vs provisioned"),
            ("request ledger (refresh every 5 s)", "R", b"newest first"),
            ("browse (tenant list)", "", b""),
        ):
            console = Console(env, (cols, rows))
            try:
                console.wait_for(b"tenants (")
                if keys:
                    console.press(keys)
                    console.wait_for(shown)
                console.drain(6.0)  # counts and the first refreshes settle
                rate, cpu = measure(console, args.seconds)
                print(f"  {label:34} {rate:9.1f} {cpu:7.2f}")
            finally:
                console.close()


if __name__ == "__main__":
    main()
