"""The hot tenants view with 100,000 keys: first paint of the table, moving in it, memory.

    python benchmarks/hot_keys_scale.py [--keys 100000] [--size 120x40]

Runs the real app in a real pseudo-terminal on the demo workspace, with the session's
hot-keys service (the real ``HotKeysService`` and ``TelemetryReader``) over a synthetic
telemetry source whose logs answer ``--keys`` tenants (a Zipf-like spread of RU, 16
physical partitions, 429s for the top thousand, storage for the top 500). Browse asks
for each tenant's RU share on start: that is the cold path (the answer joined into
``--keys`` rows, off the event loop), timed until browse draws its ``RU%`` column.
Then ``H``, timed until the table's first row is on the terminal, ``G`` (the last row)
and a ``/`` filter typed at once (``/tenant-0999``, until its first match is drawn;
then cleared and typed again ``--filters`` times);
then the console's peak memory (``VmHWM``, which includes the answer's rows while they
are joined, as Azure's parsed JSON would be). The source's tables are made before the
console asks and handed over once (a source keeps no answer it gave), so each figure is
the console's own work; answers are kept a minute by the console, as Azure Monitor's
are, so refreshes in between reuse them. Each step is timed on the wall clock and by
the console's CPU time (``/proc/PID/stat``: steadier on a shared machine). Prints
figures; asserts nothing. Goals: first paint ≤ 0.7 s, the filter ≤ 0.2 s, peak memory
≤ 130 MB.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from idle_cost import Console, cpu_seconds

from cosmem_tui.model.telemetry import (
    LOG_COLUMNS,
    NORMALIZED_RU,
    PROVISIONED_THROUGHPUT,
    AccountFacts,
    LogAnswer,
    LogName,
    LogQuery,
    LogTable,
    MetricAnswer,
    MetricPoint,
    MetricQuery,
    Series,
    Span,
    TelemetryAbout,
)
from cosmem_tui.sources.request_ledger import RequestLedger

PARTITIONS = 16
ONE_REGION = AccountFacts(regions=("East US",), write_region="East US")


class SyntheticTelemetry:
    """The Telemetry protocol, answering ``keys`` tenants from arithmetic (no I/O)."""

    def __init__(self, keys: int) -> None:
        self.keys = keys
        self._ledger = RequestLedger()
        self._about = TelemetryAbout(label="synthetic 100k", simulated=True)  # kept 60 s, as Azure
        self._tables: dict[tuple[LogName, int], LogTable] = {}
        for name in (LogName.KEY_USAGE, LogName.PARTITION_USAGE):  # before they are asked
            self._tables[name, keys] = self._table(LogQuery(name=name, span=Span(0, 60), top=keys))

    @property
    def about(self) -> TelemetryAbout:
        return self._about

    @property
    def ledger(self) -> RequestLedger:
        return self._ledger

    def ru(self, rank: int) -> float:
        return 5_000_000.0 / rank**1.07

    async def metrics(self, queries: Sequence[MetricQuery]) -> list[MetricAnswer]:
        answers = []
        for q in queries:
            starts = range(int(q.span.start), int(q.span.end), q.grain_s)
            if PROVISIONED_THROUGHPUT in q.metrics:
                points = tuple(MetricPoint(float(at), 40_000.0) for at in starts)
                series = (Series(PROVISIONED_THROUGHPUT, "Maximum", "Count", (), points),)
            elif NORMALIZED_RU in q.metrics:
                series = tuple(
                    Series(
                        NORMALIZED_RU,
                        "Maximum",
                        "Percent",
                        (("partitionkeyrangeid", str(n)),),
                        tuple(MetricPoint(float(at), 100.0 if n == 0 else 40.0) for at in starts),
                    )
                    for n in range(PARTITIONS)
                )
            else:
                series = ()
            answers.append(MetricAnswer(q, series))
        return answers

    async def logs(self, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        return [self._log(q) for q in queries]

    async def account(self, database: str | None, container: str | None) -> AccountFacts:
        return ONE_REGION

    def _log(self, q: LogQuery) -> LogAnswer:
        # The tables are made before they are asked for (as the service's JSON would
        # arrive): making them is the benchmark's work, reading them the console's,
        # which is what is measured. Each is handed over once and not kept, as Azure
        # Monitor's answer is the console's once it has arrived.
        table = self._tables.pop((q.name, q.top), None) or self._table(q)
        return LogAnswer(q, table, as_of=q.span.end)

    def _table(self, q: LogQuery) -> LogTable:
        columns = LOG_COLUMNS[q.name]
        n = min(self.keys, q.top)
        rows: list[tuple[object, ...]]
        if q.name is LogName.KEY_USAGE:
            rows = [
                (  # one partition each: all of its RU and its peak are on that one
                    json.dumps([f"tenant-{r:06d}"]),
                    str(r % PARTITIONS),
                    1,
                    self.ru(r),
                    self.ru(r) / 300,
                    self.ru(r),
                    self.ru(r) / 300,
                    self.keys,
                    [str(r % PARTITIONS)],
                )
                for r in range(1, n + 1)
            ]
        elif q.name is LogName.PARTITION_USAGE:
            share = sum(self.ru(r) for r in range(1, self.keys + 1)) / PARTITIONS
            rows = [
                (str(p), share, share / 300, self.keys // PARTITIONS) for p in range(PARTITIONS)
            ]
        elif q.name is LogName.KEY_THROTTLES:
            rows = [(json.dumps([f"tenant-{r:06d}"]), 1000, 50) for r in range(1, 1001)]
        elif q.name is LogName.KEY_STORAGE:
            rows = [(json.dumps([f"tenant-{r:06d}"]), 1_000_000 // r) for r in range(1, 501)]
        elif q.name is LogName.REQUEST_TOTALS:  # the 1,000 keys' 429s, and some of no key
            rows = [(5_000_000, 60_000, 10_000, 0, 0.0)]
        else:
            rows = []
        return LogTable(columns, tuple(rows))

    async def close(self) -> None:
        return None


def child(workspace: Path, keys: int) -> None:
    """The console itself: the demo workspace, with the synthetic hot-keys service."""
    from cosmem_tui.compose import open_local_session
    from cosmem_tui.core.hot_keys import HotKeysService
    from cosmem_tui.core.session import SessionOptions
    from cosmem_tui.core.telemetry_reader import TelemetryReader
    from cosmem_tui.core.throughput import Container
    from cosmem_tui.model import SystemClock
    from cosmem_tui.ui.app import CosmemApp

    clock = SystemClock()
    options = SessionOptions(workspace=workspace)

    async def open_it():  # type: ignore[no-untyped-def]
        session = open_local_session(options, clock)
        reader = TelemetryReader(SyntheticTelemetry(keys), clock)
        session.hot_keys = HotKeysService(reader, clock, Container(), top=keys)
        return session

    CosmemApp(options, clock=clock, session_factory=open_it).run()


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def timed(console: Console, keys: str, text: bytes) -> tuple[float, float]:
    """Seconds from the keys until ``text`` is on the terminal, and the console's CPU
    seconds in that time."""
    started, cpu = time.monotonic(), cpu_seconds(console.pid)
    if keys:
        console.seen.clear()
        console.press(keys)
    console.wait_for(text)
    return time.monotonic() - started, cpu_seconds(console.pid) - cpu


def median_pair(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    if not pairs:
        return float("nan"), float("nan")
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--filters", type=int, default=5, help="times the filter is typed again")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.keys)
        return
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
        workspace = Path(home) / "data" / "cosmem" / "demo.sqlite"
        command = [sys.executable, __file__, "--child", str(workspace), "--keys", str(args.keys)]
        console = Console(env, (cols, rows), command=command)
        try:
            console.wait_for(b"tenants (")
            # Browse asks the hot-keys service for each tenant's RU share on start: the
            # cold path (the answer joined into 100,000 rows) ends when RU% is drawn.
            cold = timed(console, "", b"RU%")
            console.drain(3.0)  # counts settle
            before = peak_mb(console.pid)  # the console on the demo, before the table
            first = timed(console, "H", b"tenant-000001")
            last = timed(console, "G", f"tenant-{args.keys:06d}".encode())
            timed(console, "g", b"tenant-000001")
            filtered = timed(console, "/tenant-0999\r", b"tenant-099900")
            again = []  # the same filter typed again (Esc clears it): the texts are kept
            for _ in range(args.filters):
                console.press("\x1b")  # Esc clears the filter; g, back to the first row
                console.drain(0.3)
                timed(console, "g", b"tenant-000001")
                again.append(timed(console, "/tenant-0999\r", b"tenant-099900"))
            peak = peak_mb(console.pid)
        finally:
            console.close()
    print(f"hot tenants with {args.keys:,} keys in a {cols}×{rows} pseudo-terminal")
    print(f"  {'':42} {'wall':>7} {'CPU':>7}")
    for label, (wall, cpu), note in (
        (f"browse's RU% column (the {args.keys:,} joined)", cold, "after the tenant list"),
        ("first paint of the table (H → first row)", first, "(goal ≤ 0.7 s)"),
        ("last row (G)", last, ""),
        ("filter /tenant-0999", filtered, "(goal ≤ 0.2 s)"),
        (f"the same again (median of {len(again)})", median_pair(again), ""),
    ):
        print(f"  {label + ':':42} {wall:6.3f}s {cpu:6.2f}s  {note}")
    print(f"  {'peak memory (VmHWM):':42} {peak:6.1f} MB  (goal ≤ 130 MB)")
    print(f"  {'of which before H (browse on the demo):':42} {before:6.1f} MB")


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
