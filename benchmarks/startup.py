"""Start-up and large-thread timings of the real ``cosmem`` in a real terminal (tmux).

    python benchmarks/startup.py [--runs 5] [--size 120x40]

Measures, each as the median of warm runs (the workspace already exists):

* first paint: launch → the header is on the screen;
* tenant list: launch → the hot tenant's row with its counts is on the screen;
* peak RSS of the cosmem process (VmHWM) once the list is shown;

and, once each: the first-ever run (the demo workspace is generated first), and a
thread of 100,000 turns: Enter on it → first rows visible, End → newest row visible.
Prints figures; asserts nothing. Needs tmux.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

POLL = 0.01
COSMEM = [sys.executable, "-m", "cosmem_tui"]
TENANT_ROW = re.compile(r"contoso\s+(?:\S+%\s+)?[\d,]+\s+[\d,]+")  # RU% first, with telemetry


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


class Pane:
    def __init__(self, command: list[str], env: dict[str, str], size: tuple[int, int]) -> None:
        self.name = f"cosmem-bench-{os.getpid()}-{time.monotonic_ns()}"
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        line = f"exec env {exports} " + " ".join(f"'{c}'" for c in command)
        self.started = time.perf_counter()
        tmux("new-session", "-d", "-s", self.name, "-x", str(size[0]), "-y", str(size[1]), line)
        self.pid = int(tmux("display-message", "-p", "-t", self.name, "#{pane_pid}").strip())

    def screen(self) -> str:
        return tmux("capture-pane", "-p", "-t", self.name)

    def wait_for(self, found: Callable[[str], bool], timeout: float = 60.0) -> float:
        """Seconds since launch until ``found(screen)`` holds."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if found(self.screen()):
                return time.perf_counter() - self.started
            time.sleep(POLL)
        raise TimeoutError(f"screen never matched:\n{self.screen()}")

    def press(self, *keys: str) -> float:
        tmux("send-keys", "-t", self.name, *keys)
        return time.perf_counter()

    def peak_rss_mb(self) -> float:
        status = Path(f"/proc/{self.pid}/status").read_text()
        kb = int(re.search(r"VmHWM:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
        return kb / 1024

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def measure_start(env: dict[str, str], size: tuple[int, int]) -> tuple[float, float, float]:
    pane = Pane(COSMEM, env, size)
    try:
        first_paint = pane.wait_for(lambda s: " cosmem " in s)
        tenants = pane.wait_for(lambda s: TENANT_ROW.search(s) is not None)
        time.sleep(0.5)
        return first_paint, tenants, pane.peak_rss_mb()
    finally:
        pane.close()


def measure_big_thread(env: dict[str, str], size: tuple[int, int], workspace: Path) -> None:
    pane = Pane([*COSMEM, "--workspace", str(workspace)], env, size)
    try:
        pane.wait_for(lambda s: re.search(r"big\s+(?:\S+%\s+)?1\s+100,000", s) is not None)
        pane.press("Enter")
        pane.wait_for(lambda s: "threads of big (1)" in s)
        sent = pane.press("Enter")
        pane.wait_for(lambda s: "100 of ~100,000 loaded" in s)
        opened = time.perf_counter() - sent
        sent = pane.press("End")
        pane.wait_for(lambda s: re.search(r"99999 ", s) is not None)
        to_end = time.perf_counter() - sent
        rss = pane.peak_rss_mb()
    finally:
        pane.close()
    print(
        f"100,000-turn thread: open → first rows {opened:.3f} s; End → newest turn "
        f"{to_end:.3f} s; peak RSS {rss:.0f} MB"
    )


def build_big_thread(path: Path) -> None:
    from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.sources.local import Workspace

    schema = get_schema("lab")
    container = ContainerProperties(
        "bench", "turns", PartitionKeyDefinition(("/tenantId", "/threadId"), "MultiHash"), -1
    )
    now = int(time.time())

    def items():
        for i in range(100_000):
            yield {
                "id": f"t{i:06d}",
                "tenantId": "big",
                "threadId": "huge",
                "turnIndex": i,
                "messages": [
                    {"role": "user", "content": f"question {i}"},
                    {"role": "agent", "content": f"answer {i}"},
                ],
            }

    with Workspace.building(path, container, schema) as workspace:
        workspace.upsert_items(items(), schema, now)
        workspace.set_meta("schema", "lab")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is needed: apt-get install tmux")
    size = tuple(int(n) for n in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        env = {"XDG_DATA_HOME": tmp, "XDG_CONFIG_HOME": tmp, "TERM": "xterm-256color"}

        first_paint, tenants, rss = measure_start(env, size)  # builds the demo workspace
        print(
            f"first-ever run (generates the demo): first paint {first_paint:.3f} s, "
            f"tenant list {tenants:.3f} s, peak RSS {rss:.0f} MB"
        )

        measure_start(env, size)  # warm-up
        runs = [measure_start(env, size) for _ in range(args.runs)]
        columns = list(zip(*runs, strict=True))
        for name, values in zip(("first paint", "tenant list"), columns[:2], strict=True):
            print(
                f"{name}: median {statistics.median(values):.3f} s "
                f"(min {min(values):.3f}, max {max(values):.3f}, {len(values)} warm runs)"
            )
        rss_values = [r[2] for r in runs]
        print(f"peak RSS: median {statistics.median(rss_values):.0f} MB")

        big = Path(tmp) / "big.sqlite"
        started = time.perf_counter()
        build_big_thread(big)
        print(f"(built a 100,000-turn workspace in {time.perf_counter() - started:.1f} s)")
        measure_big_thread(env, size, big)


if __name__ == "__main__":
    main()
