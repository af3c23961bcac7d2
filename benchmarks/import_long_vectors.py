"""What keeping long embeddings apart costs ``cosmem import``, before and after, in one run.

    python benchmarks/import_long_vectors.py [--items 10000] [--dims 1536] [--runs 3]
                                             [--before REV]

Writes a JSON Lines export of lab-shaped turns, each with a ``--dims``-number embedding
(the shape ``benchmarks/recall_probe.py`` probes, about 15 KB per item), and imports it
with ``cosmem import`` as it was at ``--before`` (a git revision, extracted to a
temporary folder; default: the last one before the vectors table) and from this
checkout, interleaved, each a fresh process with its bytecode cached. Prints per variant
the median wall and CPU seconds, the peak RSS and the file's size, and whether both
wrote the same items (every column of every row, in order). The short turns of
``benchmarks/import_throughput.py`` get no vectors table; these do. Asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from import_throughput import ANCHOR, COSMEM, Variant, extract, run

BEFORE = "804707b"  # the last revision before the vectors table
REPO = Path(__file__).resolve().parent.parent


def write_export(path: Path, items: int, dims: int) -> None:
    rng = random.Random(7)
    words = ["invoice", "refund", "tea", "shipping", "delay", "order"]
    with path.open("w", encoding="utf-8") as out:
        for n in range(items):
            text = " ".join(rng.choice(words) for _ in range(8))
            item = {
                "id": f"item-{n:05d}",
                "tenantId": "bench",
                "threadId": f"thread-{n % 100:03d}",
                "turnIndex": n // 100,
                "messages": [
                    {"role": "user", "content": text, "timestamp": "2026-11-29T10:00:00Z"}
                ],
                "content": text,
                "embedding": [round(rng.uniform(-1, 1), 6) for _ in range(dims)],
                "_etag": f'"{n:08x}-0000-0d00-0000-000000000000"',
                "_ts": ANCHOR + n,
            }
            out.write(json.dumps(item) + "\n")


def items_digest(workspace: Path) -> str:
    found = hashlib.sha256()
    db = sqlite3.connect(f"file:{workspace}?mode=ro", uri=True)
    try:
        for row in db.execute("SELECT rowid, * FROM items ORDER BY rowid"):
            found.update(repr(row).encode("utf-8", "surrogatepass"))
    finally:
        db.close()
    return found.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--dims", type=int, default=1536)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", default=BEFORE, help=f"git revision (default {BEFORE})")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cosmem-vectors-bench-") as tmp:
        before = extract(args.before, Path(tmp) / "before")
        # Bytecode cached, as an installed package has it.
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        here = dict(base, PYTHONPATH=str(REPO), PYTHONPYCACHEPREFIX=str(Path(tmp) / "pyc"))
        command = [*COSMEM, "import", "--schema", "lab"]
        chosen = [Variant("now", command, here)]
        if before is not None:
            chosen.insert(0, Variant("before", command, dict(here, PYTHONPATH=str(before))))
        warm_up = Path(tmp) / "warm-up.jsonl"
        write_export(warm_up, 10, args.dims)
        for variant in chosen:
            run(variant, warm_up, Path(tmp) / "warm-up.sqlite")
        source = Path(tmp) / "export.jsonl"
        write_export(source, args.items, args.dims)
        print(
            f"cosmem import: {args.items:,} lab turns with {args.dims}-number embeddings "
            f"({source.stat().st_size / 1e6:,.0f} MB of JSON Lines), median of {args.runs}"
        )
        runs: dict[str, list[tuple[float, float, int]]] = {v.name: [] for v in chosen}
        for _ in range(args.runs):
            for variant in chosen:
                runs[variant.name].append(run(variant, source, Path(tmp) / f"{variant.name}.db"))
        for variant in chosen:
            found = runs[variant.name]
            size = (Path(tmp) / f"{variant.name}.db").stat().st_size / 1e6
            print(
                f"{variant.name:>7}: {statistics.median(r[0] for r in found):.2f} s, "
                f"{statistics.median(r[1] for r in found):.2f} s CPU, peak RSS "
                f"{statistics.median(r[2] for r in found) / 1024:.0f} MB, file {size:,.0f} MB"
            )
        if before is not None:
            same = items_digest(Path(tmp) / "before.db") == items_digest(Path(tmp) / "now.db")
            print(f"{'':>7}  both wrote the same items: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
