"""Throughput and peak memory of the real ``cosmem import`` on large export files.

    python benchmarks/import_throughput.py [--sizes 100000,200000] [--runs 3] [--array]

Generates JSON Lines exports (or, with ``--array``, pretty-printed JSON arrays) of
Agent Memory Toolkit turn items, the shape of a ``memories_turns`` export: ~450
bytes of fields plus an 8-float embedding and the service's system properties, spread
over 500 users and 7,000 threads. Each run is a fresh ``cosmem import`` process
(schema, partition key and default TTL all guessed), timed from launch to exit.

Prints, per size, the median of the runs: wall time, items per second (the goal is
≥ 20,000 on this machine) and the child process's peak RSS (``ru_maxrss`` via
``os.wait4``), which should stay flat as the file doubles (the import streams).
Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COSMEM = [sys.executable, "-m", "cosmem_tui"]
ANCHOR = 1_795_996_800  # 2026-11-30T00:00:00Z


def turn(rng: random.Random, n: int) -> dict[str, object]:
    at = ANCHOR - 86_400 + n
    user = f"user-{n % 500:04d}"
    return {
        "id": f"{rng.getrandbits(128):032x}",
        "user_id": user,
        "thread_id": f"thread-{n % 7000:05d}",
        "role": ("user", "agent", "tool", "system")[n % 4],
        "type": "turn",
        "content": f"message {n}: could you check the renewal date of my subscription "
        f"and the invoice that was sent on {at % 28 + 1} November?",
        "metadata": {},
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at))
        + f".{n % 999999:06d}+00:00",
        "tags": [],
        "supersedes_ids": [],
        "source_memory_ids": [],
        "ttl": 2592000,
        "embedding": [round(rng.uniform(-1, 1), 4) for _ in range(8)],
        "_rid": "pMYBAKP3nAABAAAAAAAAAA==",
        "_self": "dbs/pMYBAA==/colls/pMYBAKP3nAA=/docs/pMYBAKP3nAABAAAAAAAAAA==/",
        "_etag": f'"{n:08x}-0000-0d00-0000-{at:08x}0000"',
        "_attachments": "attachments/",
        "_ts": at,
    }


def write_export(path: Path, count: int, array: bool) -> None:
    rng = random.Random(count)
    with path.open("w", encoding="utf-8") as out:
        if array:
            out.write("[\n")
        for n in range(count):
            text = json.dumps(turn(rng, n), indent=2 if array else None)
            if array:
                out.write(("" if n == 0 else ",\n") + text)
            else:
                out.write(text + "\n")
        if array:
            out.write("\n]\n")


def run_import(source: Path, workspace: Path) -> tuple[float, int]:
    """Seconds from launch to exit, and the child's peak RSS in KiB."""
    workspace.unlink(missing_ok=True)
    started = time.perf_counter()
    child = subprocess.Popen(
        [*COSMEM, "import", str(source), "--workspace", str(workspace)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    errors = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"cosmem import failed ({child.returncode}): {errors}")
    return elapsed, usage.ru_maxrss  # kilobytes on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,200000", help="item counts, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="imports per size (median reported)")
    parser.add_argument("--array", action="store_true", help="pretty JSON arrays, not JSON Lines")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    kind = "JSON array (pretty)" if args.array else "JSON Lines"
    print(f"cosmem import: {kind}, AMT turn items, median of {args.runs} run(s)")
    print(f"{'items':>9}  {'file MB':>8}  {'seconds':>8}  {'items/s':>9}  {'peak RSS MB':>11}")
    with tempfile.TemporaryDirectory(prefix="cosmem-import-bench-") as tmp:
        for size in sizes:
            source = Path(tmp) / (f"export-{size}.json" if args.array else f"export-{size}.jsonl")
            write_export(source, size, args.array)
            runs = [run_import(source, Path(tmp) / "workspace.sqlite") for _ in range(args.runs)]
            seconds = statistics.median(r[0] for r in runs)
            rss = statistics.median(r[1] for r in runs)
            print(
                f"{size:>9,}  {source.stat().st_size / 1e6:>8.1f}  {seconds:>8.2f}  "
                f"{size / seconds:>9,.0f}  {rss / 1024:>11.1f}"
            )


if __name__ == "__main__":
    main()
