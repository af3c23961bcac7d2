"""Start-up and large-thread timings of the real ``cosmem`` in a real terminal (tmux).

    python benchmarks/startup.py [--runs 5] [--size 120x40] [--no-big-thread]

Measures, each as the median of warm runs (the workspace already exists), runs of
``cosmem`` and of a minimal Textual app (``minimal_textual_app.py``) taken in turn so
both meet the same load:

* first paint: launch → the header is on the screen (the minimal app: its one line);
* first data (tenant list): launch → the hot tenant's row with its counts is on screen;
* both as a ratio to the minimal app's first paint (goals: paint ≤ 1.2×, data ≤ 1.5×);
* the first paint of a stock Textual app of browse's shape (``shaped_textual_app.py``:
  Header, DataTable, Footer), the floor for a console laid out like this one;
* peak RSS of the cosmem process (VmHWM) once the list is shown;
* the headless ``cosmem tenants --json`` (median wall time of whole runs);
* import time of ``cosmem_tui.ui.app`` per top-level package (``python -X importtime``);

and, once each: the first-ever run (the demo workspace is generated first), and a
thread of 100,000 turns: Enter on it → first rows visible, End → newest row visible.
Prints figures; asserts nothing. Needs tmux.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

POLL = 0.01
COSMEM = [sys.executable, "-m", "cosmem_tui"]
MINIMAL = [sys.executable, str(Path(__file__).with_name("minimal_textual_app.py"))]
SHAPED = [sys.executable, str(Path(__file__).with_name("shaped_textual_app.py"))]
TENANT_ROW = re.compile(r"contoso\s+(?:\S+%\s+)?[\d,]+\s+[\d,]+")  # RU% first, with telemetry


# A tmux server of the benchmark's own, kept up by one idle session for the whole run:
# with the default server, closing the last pane ends the server, and the next run's
# ``new-session`` can race that shutdown and fail.
SOCKET = f"cosmem-bench-{os.getpid()}"


def tmux(*args: str) -> str:
    command = ["tmux", "-L", SOCKET, *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


@contextlib.contextmanager
def tmux_server() -> Iterator[None]:
    tmux("new-session", "-d", "-s", "keep", "sleep 86400")
    try:
        yield
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


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


def measure_minimal(env: dict[str, str], size: tuple[int, int]) -> float:
    pane = Pane(MINIMAL, env, size)
    try:
        return pane.wait_for(lambda s: "minimal Textual app" in s)
    finally:
        pane.close()


def measure_shaped(env: dict[str, str], size: tuple[int, int]) -> float:
    pane = Pane(SHAPED, env, size)
    try:
        return pane.wait_for(lambda s: "shaped Textual app" in s and "tenant-00" in s)
    finally:
        pane.close()


def measure_headless(env: dict[str, str], runs: int) -> list[float]:
    """Whole runs of ``cosmem tenants --json`` on the demo workspace (already built)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [*COSMEM, "tenants", "--json"],
            env={**os.environ, **env},
            capture_output=True,
            check=True,
        )
        times.append(time.perf_counter() - started)
    return times


def import_times(module: str) -> dict[str, float]:
    """Milliseconds of ``import module`` spent in each package (self time, summed).

    The console's own modules are grouped one level down (``cosmem_tui.ui``,
    ``cosmem_tui.core``, …), everything else by its top-level name."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
    )
    totals: dict[str, float] = {}
    for line in result.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|(\s*)(\S+)", line)
        if match is None:
            continue
        name = match.group(3)
        parts = name.split(".")
        group = ".".join(parts[:2]) if parts[0] == "cosmem_tui" and len(parts) > 1 else parts[0]
        totals[group] = totals.get(group, 0.0) + int(match.group(1)) / 1000
    return totals


def print_import_times(module: str) -> None:
    times = [import_times(module) for _ in range(3)]
    groups = {name for each in times for name in each}
    median = {g: statistics.median(t.get(g, 0.0) for t in times) for g in groups}
    own = sum(v for k, v in median.items() if k.startswith("cosmem_tui"))
    print(f"import {module}: {sum(median.values()):.0f} ms (median of 3), cosmem_tui {own:.0f} ms")
    for name, ms in sorted(median.items(), key=lambda kv: -kv[1])[:16]:
        print(f"  {name:<28} {ms:7.1f} ms")


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
    parser.add_argument("--no-big-thread", action="store_true", help="skip the 100,000-turn thread")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is needed: apt-get install tmux")
    size = tuple(int(n) for n in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp, tmux_server():
        env = {"XDG_DATA_HOME": tmp, "XDG_CONFIG_HOME": tmp, "TERM": "xterm-256color"}

        first_paint, tenants, rss = measure_start(env, size)  # builds the demo workspace
        print(
            f"first-ever run (generates the demo): first paint {first_paint:.3f} s, "
            f"tenant list {tenants:.3f} s, peak RSS {rss:.0f} MB"
        )

        measure_start(env, size)  # warm-up
        measure_minimal(env, size)
        measure_shaped(env, size)
        runs, minimal, shaped = [], [], []
        for _ in range(args.runs):  # in turn, so all meet the same load
            minimal.append(measure_minimal(env, size))
            runs.append(measure_start(env, size))
            shaped.append(measure_shaped(env, size))
        reference = statistics.median(minimal)
        print(
            f"minimal Textual app, first paint: median {reference:.3f} s "
            f"(min {min(minimal):.3f}, max {max(minimal):.3f}, {len(minimal)} warm runs)"
        )
        floor = statistics.median(shaped)
        paired_floor = statistics.median(s / m for s, m in zip(shaped, minimal, strict=True))
        print(
            f"stock Textual app of browse's shape (Header, DataTable, Footer), first paint: "
            f"median {floor:.3f} s = {floor / reference:.2f}× the minimal app "
            f"(min {min(shaped):.3f}, max {max(shaped):.3f}; median of the pairs' ratios "
            f"{paired_floor:.2f}×)"
        )
        columns = list(zip(*runs, strict=True))
        names = ("cosmem first paint", "cosmem first data (tenant list)")
        for name, values in zip(names, columns[:2], strict=True):
            median = statistics.median(values)
            # Each run beside the minimal app's run just before it: the load they met.
            paired = statistics.median(v / m for v, m in zip(values, minimal, strict=True))
            print(
                f"{name}: median {median:.3f} s = {median / reference:.2f}× the minimal app "
                f"(min {min(values):.3f}, max {max(values):.3f}, {len(values)} warm runs; "
                f"median of the pairs' ratios {paired:.2f}×)"
            )
        rss_values = [r[2] for r in runs]
        print(f"peak RSS: median {statistics.median(rss_values):.0f} MB")
        headless = measure_headless(env, args.runs)
        print(
            f"cosmem tenants --json: median {statistics.median(headless):.3f} s "
            f"(min {min(headless):.3f}, max {max(headless):.3f}, {len(headless)} runs)"
        )
        print_import_times("cosmem_tui.ui.app")

        if args.no_big_thread:
            return
        big = Path(tmp) / "big.sqlite"
        started = time.perf_counter()
        build_big_thread(big)
        print(f"(built a 100,000-turn workspace in {time.perf_counter() - started:.1f} s)")
        measure_big_thread(env, size, big)


if __name__ == "__main__":
    main()
