"""Throughput and peak memory of the real ``cosmem import``, before and after, in one run.

    python benchmarks/import_throughput.py [--sizes 100000,200000] [--runs 3] [--array]
                                           [--before REV | --no-before]

Generates JSON Lines exports (or, with ``--array``, pretty-printed JSON arrays) of
Agent Memory Toolkit turn items, the shape of a ``memories_turns`` export: ~450
bytes of fields plus an 8-float embedding and the service's system properties, spread
over 500 users and 7,000 threads. On the same files, in the same run, interleaved so a
busy machine slows all alike, it times three things, each a fresh process:

* ``bare``: the floor, a plain loop that parses each line with the standard library and
  inserts it into SQLite with a primary key and one index (JSON Lines only);
* ``before``: ``cosmem import`` as it was at ``--before`` (a git revision, extracted to
  a temporary folder and run with this interpreter; default: the last revision before
  the import was made a bulk load);
* ``now``: ``cosmem import`` from this checkout.

Each variant runs once on a small file first, untimed, so every timed run finds its
bytecode cached, as an installed package does. Prints, per size and variant, the
median of the runs: wall time from launch to exit, items per second (the goal is
≥ 60,000 for ``now``), CPU seconds (user + system, less noisy on a shared machine)
and the child's peak RSS (``ru_maxrss`` via ``os.wait4``), which should stay flat as
the file doubles (the import streams). Then it checks that
``before`` and ``now`` wrote the same workspace: schema (``sqlite_master``), container,
metadata, every column of every row in order, and the planner's statistics. Asserts
nothing else.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

COSMEM = [sys.executable, "-m", "cosmem_tui"]
ANCHOR = 1_795_996_800  # 2026-11-30T00:00:00Z
BEFORE = "e53835a"  # the import before it became a bulk load (ItemColumns, orjson)
REPO = Path(__file__).resolve().parent.parent


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


def bare_import(source: Path, workspace: Path) -> None:
    """The floor: parse each line, insert it with a primary key and one index."""
    db = sqlite3.connect(workspace, isolation_level=None)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("CREATE TABLE items (pk TEXT, id TEXT, ts INTEGER, body TEXT, PRIMARY KEY (pk, id))")
    db.execute("CREATE INDEX items_by_ts ON items (pk, ts)")
    rows: list[tuple[str, str, int, str]] = []
    with source.open(encoding="utf-8") as lines:
        for line in lines:
            item = json.loads(line)
            rows.append((item["user_id"], item["id"], item["_ts"], line))
            if len(rows) == 2000:
                db.execute("BEGIN")
                db.executemany("INSERT INTO items VALUES (?, ?, ?, ?)", rows)
                db.execute("COMMIT")
                rows.clear()
    db.execute("BEGIN")
    db.executemany("INSERT INTO items VALUES (?, ?, ?, ?)", rows)
    db.execute("COMMIT")
    db.close()


@dataclass(frozen=True)
class Variant:
    name: str
    command: list[str]
    env: dict[str, str]


def variants(before: Path | None, array: bool, pycache: Path) -> list[Variant]:
    # Bytecode cached as an installed package has it (some environments set
    # PYTHONDONTWRITEBYTECODE, which would compile every module on every run).
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    here = dict(base, PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=str(pycache))
    found = [] if array else [Variant("bare", [sys.executable, __file__, "--bare"], dict(here))]
    if before is not None:
        found.append(Variant("before", [*COSMEM, "import"], dict(here, PYTHONPATH=str(before))))
    found.append(Variant("now", [*COSMEM, "import"], here))
    return found


def run(variant: Variant, source: Path, workspace: Path) -> tuple[float, float, int]:
    """Seconds from launch to exit, CPU seconds, and the child's peak RSS in KiB."""
    workspace.unlink(missing_ok=True)
    started = time.perf_counter()
    child = subprocess.Popen(
        [*variant.command, str(source), "--workspace", str(workspace)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=variant.env,
        cwd=tempfile.gettempdir(),  # not the checkout: PYTHONPATH alone picks the code
    )
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    errors = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"{variant.name} failed ({child.returncode}): {errors}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss  # KiB on Linux


def extract(revision: str, into: Path) -> Path | None:
    """The package at ``revision`` (cosmem_tui, queries, themes), or None without git."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", revision, "cosmem_tui", "queries", "themes"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"(no 'before' column: cannot extract {revision}: {exc})")
        return None
    into.mkdir()
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def digest(workspace: Path) -> str:
    """A digest of everything a workspace holds that an import decides (not when it ran),
    read row by row: the parent stays small (a child's peak RSS counts its parent's pages
    at the fork)."""
    queries = [
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name",
        "SELECT * FROM container",
        "SELECT * FROM meta WHERE key != 'imported_at' ORDER BY key",
        "SELECT rowid, * FROM items ORDER BY rowid",
        "SELECT * FROM sqlite_stat1 ORDER BY tbl, idx",
        "PRAGMA journal_mode",
    ]
    found = hashlib.sha256()
    db = sqlite3.connect(f"file:{workspace}?mode=ro", uri=True)
    try:
        for query in queries:
            for row in db.execute(query):
                found.update(repr(row).encode("utf-8", "surrogatepass"))
            found.update(b"\n")
    finally:
        db.close()
    return found.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,200000", help="item counts, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="runs per size and variant (median)")
    parser.add_argument("--array", action="store_true", help="pretty JSON arrays, not JSON Lines")
    parser.add_argument("--before", default=BEFORE, help=f"git revision (default {BEFORE})")
    parser.add_argument("--no-before", action="store_true", help="skip the 'before' column")
    if sys.argv[1:2] == ["--bare"]:  # a child: --bare SOURCE --workspace PATH
        bare_import(Path(sys.argv[2]), Path(sys.argv[4]))
        return
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    kind = "JSON array (pretty)" if args.array else "JSON Lines"
    with tempfile.TemporaryDirectory(prefix="cosmem-import-bench-") as tmp:
        before = None if args.no_before else extract(args.before, Path(tmp) / "before")
        chosen = variants(before, args.array, Path(tmp) / "pycache")
        warm_up = Path(tmp) / ("warm-up.json" if args.array else "warm-up.jsonl")
        write_export(warm_up, 100, args.array)
        for variant in chosen:  # compiles and caches the bytecode; not timed
            run(variant, warm_up, Path(tmp) / "warm-up.sqlite")
        print(f"cosmem import: {kind}, AMT turn items, median of {args.runs} run(s) each")
        if before is not None:
            print(f"before = {args.before}, now = this checkout")
        print(
            f"{'items':>9}  {'file MB':>7}  {'variant':<7}  {'seconds':>7}  {'items/s':>8}  "
            f"{'CPU s':>6}  {'peak RSS MB':>11}"
        )
        for size in sizes:
            source = Path(tmp) / (f"export-{size}.json" if args.array else f"export-{size}.jsonl")
            write_export(source, size, args.array)
            runs: dict[str, list[tuple[float, float, int]]] = {v.name: [] for v in chosen}
            for _ in range(args.runs):
                for variant in chosen:
                    workspace = Path(tmp) / f"{variant.name}.sqlite"
                    runs[variant.name].append(run(variant, source, workspace))
            for variant in chosen:
                seconds = statistics.median(r[0] for r in runs[variant.name])
                cpu = statistics.median(r[1] for r in runs[variant.name])
                rss = statistics.median(r[2] for r in runs[variant.name])
                print(
                    f"{size:>9,}  {source.stat().st_size / 1e6:>7.1f}  {variant.name:<7}  "
                    f"{seconds:>7.2f}  {size / seconds:>8,.0f}  {cpu:>6.2f}  {rss / 1024:>11.1f}"
                )
            if before is not None:
                same = digest(Path(tmp) / "before.sqlite") == digest(Path(tmp) / "now.sqlite")
                print(
                    f"{'':>9}  before and now wrote the same workspace: {'yes' if same else 'NO'}"
                )
            source.unlink()


if __name__ == "__main__":
    main()
