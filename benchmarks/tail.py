"""The change-feed tail under load: lag from write to row, terminal bytes/s, CPU and RSS.

    python benchmarks/tail.py [--seconds 60] [--reference-seconds S] [--rate 500]

Builds a small local workspace, starts a writer process that writes ``--rate`` changes a
second through the workspace's change-log writer (``WorkspaceWriter.changes``: creates
in a few tenants, one of them hot, a batch every 100 ms), and runs the real ``cosmem``
in a real pseudo-terminal at ``--size`` (120x40) on the tail of the whole container
(``C``, then ``f``), which polls each second (1.6 s apart under such a flood). For
``--seconds`` it counts the bytes the console writes to the terminal, its CPU time
(``/proc/PID/stat``) and its RSS every 10 s, and notes when each item id first reaches
the screen (ids are looked for in the terminal stream). A write's lag is until it, or a
newer row, is on screen: at this rate most rows are pushed down by newer ones before the
next frame. The references, measured in the same run: the same console on browse's
tenant list under the same load (what the console costs without the tail), and the tail
with nothing written. Prints figures; asserts nothing. Goals: lag ≤ 2 s, ≤ 4 KB/s,
≤ 10 % of a core, RSS flat.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from idle_cost import Console, cpu_seconds  # the pty console of the idle benchmark

TENANTS = ("hot", "calm-1", "calm-2", "calm-3")
BATCHES_PER_S = 10
ID = re.compile(rb"w\d{7}")


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def build(path: Path) -> None:
    from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.sources.local import Workspace

    schema = get_schema("lab")
    props = ContainerProperties(
        "bench", "turns", PartitionKeyDefinition(("/tenantId", "/threadId"), "MultiHash", 2), -1
    )
    now = int(time.time()) - 3600
    items = [_turn(tenant, f"{tenant}-t{t}", i, f"seed{tenant}{t}{i}") for tenant in TENANTS
             for t in range(5) for i in range(10)]  # fmt: skip
    with Workspace.building(path, props, schema) as ws:
        ws.upsert_items(items, schema, now)
        ws.set_meta("schema", schema.name)


def _turn(tenant: str, thread: str, index: int, item_id: str) -> dict[str, object]:
    return {
        "id": item_id,
        "tenantId": tenant,
        "threadId": thread,
        "turnIndex": index,
        "ttl": 3600,
        "messages": [
            {"role": "user", "content": f"question {index} about the weather and invoices"},
            {"role": "agent", "content": f"answer {index}: here is what I found"},
        ],
    }


def writer(path: Path, rate: int, seconds: float, log: Path) -> None:
    """The load: ``rate`` creates a second, 60 % to the hot tenant; each id's commit time
    (wall clock) logged, so lag is measured from the write."""
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter

    schema = get_schema("lab")
    ws = WorkspaceWriter.open(path)
    per_batch = max(1, rate // BATCHES_PER_S)
    n = 0
    deadline = time.monotonic() + seconds
    next_at = time.monotonic()
    with log.open("w") as out:
        while time.monotonic() < deadline:
            ids = []
            with ws.changes(schema, int(time.time())) as batch:
                for _ in range(per_batch):
                    tenant = TENANTS[0] if n % 10 < 6 else TENANTS[1 + n % 3]
                    item_id = f"w{n:07d}"
                    batch.create(_turn(tenant, f"{tenant}-live{n % 7}", n, item_id))
                    ids.append(item_id)
                    n += 1
            committed = time.time()
            out.write(json.dumps([committed, ids]) + "\n")
            next_at += 1.0 / BATCHES_PER_S
            time.sleep(max(0.0, next_at - time.monotonic()))
    ws.close()


def run(env: dict[str, str], size: tuple[int, int], workspace: Path, keys: list[tuple[str, bytes]],
        seconds: float, rate: int, log: Path) -> dict[str, object]:  # fmt: skip
    console = Console(
        env,
        size,
        # A budget the load cannot reach: this measures the tail, not where it stops.
        [sys.executable, "-m", "cosmem_tui", "--workspace", str(workspace), "--ru-budget", "1e9"],
    )
    load = None
    try:
        console.wait_for(b"tenants (")
        for key, shown in keys:
            console.press(key)
            console.wait_for(shown)
        console.drain(3.0)  # counts and the first polls settle
        if rate:
            load = subprocess.Popen(
                [sys.executable, __file__, "--writer", str(workspace), "--rate", str(rate),
                 "--seconds", str(seconds + 2), "--log", str(log)],
                env=env,
            )  # fmt: skip
        seen: dict[bytes, float] = {}
        rss: list[int] = []
        cpu_before = cpu_seconds(console.pid)
        started = time.monotonic()
        written = 0
        tail = b""
        next_rss = started
        while (now := time.monotonic()) - started < seconds:
            if now >= next_rss:
                rss.append(rss_kb(console.pid))
                next_rss += 10.0
            got = console.drain(0.05)
            written += got
            # The console keeps only its last 200 KB: what this drain read is its end.
            chunk = tail + bytes(console.seen[-got:]) if got else b""
            if chunk:
                at = time.time()
                for match in ID.findall(chunk):
                    seen.setdefault(match, at)
                tail = chunk[-16:]
        elapsed = time.monotonic() - started
        cpu = cpu_seconds(console.pid) - cpu_before
        rss.append(rss_kb(console.pid))
    finally:
        console.close()
        if load is not None:
            load.wait()
    # At 500 changes/s most rows never reach the screen (newer ones are above them by the
    # next frame), so a write's lag is until it, or a row newer than it, is on screen.
    lags: list[float] = []
    written_ids = 0
    shown = sorted((int(k[1:]), at) for k, at in seen.items())
    earliest: list[float] = []  # earliest[i]: the first time a row at least shown[i] was on screen
    for _, at in reversed(shown):
        earliest.append(min(at, earliest[-1]) if earliest else at)
    earliest.reverse()
    numbers = [n for n, _ in shown]
    if rate and log.exists():
        for line in log.read_text().splitlines():
            committed, ids = json.loads(line)
            written_ids += len(ids)
            at = bisect.bisect_left(numbers, int(ids[-1][1:]))
            if at < len(numbers):
                lags.append(earliest[at] - committed)
    return {
        "bytes_s": written / elapsed,
        "cpu": 100.0 * cpu / elapsed,
        "rss": rss,
        "lags": lags,
        "written": written_ids / elapsed,
    }


def describe(label: str, figures: dict[str, object]) -> str:
    lags = sorted(figures["lags"])  # type: ignore[type-var]
    rss = figures["rss"]
    assert isinstance(rss, list)
    if lags:
        p95 = lags[min(len(lags) - 1, int(0.95 * len(lags)))]
        lag = f"{statistics.median(lags):5.2f} {p95:5.2f} {lags[-1]:5.2f} ({len(lags):,} batches)"
    else:
        lag = "—"
    return (
        f"  {label:34} {figures['bytes_s']:9,.0f} {figures['cpu']:7.1f} "
        f"{rss[0] / 1024:6.1f}→{rss[-1] / 1024:6.1f} MB (max {max(rss) / 1024:.1f})   {lag}"
        f"   written {figures['written']:,.0f}/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=int, default=500)
    parser.add_argument("--size", default="120x40")
    parser.add_argument(
        "--reference-seconds", type=float, help="how long each reference runs (default: --seconds)"
    )
    parser.add_argument("--writer", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--log", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.writer is not None:
        writer(args.writer, args.rate, args.seconds, args.log)
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
        tail_keys = [("C", b"tail of "), ("f", b"tail of the whole container")]
        legs = [
            ("tail, whole container, under load", tail_keys, args.rate),
            ("reference: browse under the load", [], args.rate),
            ("reference: tail, nothing written", tail_keys, 0),
        ]
        print(
            f"tail at {args.rate} changes/s over {args.seconds:g} s in a {cols}×{rows} "
            f"pseudo-terminal (1 s poll, 1.6 s under a flood); references over "
            f"{args.reference_seconds or args.seconds:g} s"
        )
        print(f"  {'console':34} {'bytes/s':>9} {'CPU %':>7} {'RSS first→last':>24}   "
              "lag s: median p95 max")  # fmt: skip
        for n, (label, keys, rate) in enumerate(legs):
            seconds = args.seconds if n == 0 else (args.reference_seconds or args.seconds)
            workspace = Path(home) / f"w-{len(label)}-{rate}.sqlite"
            build(workspace)
            figures = run(env, (cols, rows), workspace, keys, seconds, rate,
                          Path(home) / f"log-{len(label)}-{rate}.jsonl")  # fmt: skip
            print(describe(label, figures), flush=True)
            if n == 0:
                rss = figures["rss"]
                assert isinstance(rss, list)
                print("    RSS every minute (MB): " + " ".join(
                    f"{kb / 1024:.1f}" for kb in rss[::6]), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
