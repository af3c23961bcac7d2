"""Requests and RU per navigation step of the real console on the fake Cosmos server.

    python benchmarks/navigation_requests.py [--runs N]

Runs the fixed walk of ``tests/perf/navigation.py`` (the real app under Textual's Pilot,
a Cosmos session on the in-process fake server, Azure Monitor on the Azure fake beside
it) and prints, per step, the requests by kind and the RU they were charged, then how
that compares with the table the repo keeps (``tests/perf/navigation_requests.txt``,
which ``tests/perf/test_navigation_requests.py`` holds the console to). With ``--runs``
it walks N times and says whether every run counted the same. Counts, not seconds: the
numbers do not depend on the machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.perf.navigation import TABLE, format_table, measure, read_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="walk this many times (default 1)")
    args = parser.parse_args()
    runs = [measure() for _ in range(max(1, args.runs))]
    print(format_table(runs[0]), end="")
    if len(runs) > 1:
        same = all(run == runs[0] for run in runs[1:])
        print(f"\n{len(runs)} runs: {'identical' if same else 'DIFFERENT'}")
        for n, run in enumerate(runs[1:], start=2):
            if run != runs[0]:
                print(f"\nrun {n}:\n{format_table(run)}", end="")
    kept = read_table(TABLE.read_text())
    if kept == runs[0]:
        print(f"\nthe same as {TABLE}")
    else:
        print(f"\ndiffers from {TABLE}, which keeps:\n{format_table(kept)}", end="")


if __name__ == "__main__":
    main()
