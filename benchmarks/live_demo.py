"""What the demo's live workload costs: CPU per tick, and what it adds to the file.

    python benchmarks/live_demo.py [--minutes 30]

Builds the full demo workspace in a temporary folder and runs the live workload over
it for ``--minutes`` simulated minutes, one tick a simulated second as the console
ticks it (a frozen clock advanced by 1 s; the first burst of the hot tenant is in the
first minutes). Prints, beside each other:

* the reference: CPU per tick with nothing due (the clock not advanced: one read of
  ``live_through``), and the one-off loading of the workload (the telemetry's keys);
* CPU per tick while writing (milliseconds, and as a share of one core at one tick a
  second), turns and other changes an hour, and the file's growth an hour.

Asserts nothing. Goal: a steady low CPU (well under 5 % of a core).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cosmem_tui.core.demo.generator import build_demo_workspace
from cosmem_tui.core.demo.live import LiveDemo
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.changes import ChangeOp
from cosmem_tui.sources.local import Workspace
from cosmem_tui.sources.local.demo_writer import DemoWorkspaceWriter
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.simulated.telemetry import SimulatedTelemetry
from cosmem_tui.sources.simulated.workload import DEFAULT_SEED

ANCHOR = 1_795_996_800


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "demo.sqlite"
        manifest = build_demo_workspace(path, ANCHOR)
        size_before = path.stat().st_size
        clock = FrozenClock(ANCHOR)
        reader = Workspace.open(path)
        telemetry = SimulatedTelemetry.from_workspace(
            reader, hot_tenant=manifest.hot_tenant, ledger=RequestLedger(clock=clock), clock=clock
        )
        live = LiveDemo(
            DemoWorkspaceWriter.open_demo(path),
            telemetry.workload,
            clock=clock,
            manifest=manifest,
            seed=DEFAULT_SEED,
        )
        started = time.process_time()
        live.plan()  # the workload: the telemetry's keys, read once
        loading = time.process_time() - started
        live.step()
        idle_ticks = 1000
        started = time.process_time()
        for _ in range(idle_ticks):
            live.step()
        idle = (time.process_time() - started) / idle_ticks
        ticks = args.minutes * 60
        written: Counter[ChangeOp] = Counter()
        started = time.process_time()
        for _ in range(ticks):
            clock.advance(1)
            applied = live.step()
            if applied is not None:
                written.update(c.op for c in applied.changes)
        busy = (time.process_time() - started) / ticks
        live.close()
        reader.close()
        hours = ticks / 3600
        grown = (path.stat().st_size - size_before) / hours
    print(f"demo: {manifest.items:,} items; {args.minutes} simulated minutes, 1 tick a second")
    print(f"reference: a tick with nothing due      {idle * 1000:8.3f} ms CPU")
    print(f"reference: loading the workload (once)  {loading * 1000:8.1f} ms CPU")
    print(
        f"a writing tick                          {busy * 1000:8.3f} ms CPU "
        f"({busy * 100:.2f} % of a core at 1 tick/s)"
    )
    rates = ", ".join(f"{op.value} {n / hours:,.0f}" for op, n in written.most_common())
    print(f"changes an hour: {rates}")
    print(f"file growth: {grown / 1e6:.1f} MB an hour (the change log's window included)")


if __name__ == "__main__":
    main()
