"""Recall probes of a 10,000-item tenant with 1,536-dimension embeddings, local backend.

    python benchmarks/recall_probe.py [--items 10000] [--dims 1536] [--runs 3]

Builds a workspace (lab shape: one tenant, 100 threads, each item a 1,536-float
embedding and a few words of text, about 15 KB per item) in a temporary folder, and a
copy of it without the vectors table (``sources/local/vector_table.py``), as a workspace
built before the table has it: the reference, whose probes parse every body. Then in a
fresh process per mode and workspace, interleaved so a busy machine slows both alike, it
opens each and times each probe over the whole tenant (a key prefix): ``exact``
(``VectorDistance(..., true)``: every distance computed while the rows stream, a top-k
heap), ``text`` (FTS5 ``bm25()`` over a temp index of the
tenant's texts) and ``hybrid`` (both whole rankings, fused). Prints per mode the median
time to the ranked list (the goal for exact is ≤ 0.5 s), the CPU seconds, and the
process's peak RSS before the probe (the session open) and after (``ru_maxrss``; the
goal is ≤ 150 MB: the probe streams and keeps only the top k), for the workspace
(``table``) beside the reference (``no table``), and whether both ranked the same items
with the same scores. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ANCHOR = 1_795_996_800
WORDS = [
    "invoice",
    "refund",
    "tea",
    "shipping",
    "delay",
    "password",
    "reset",
    "billing",
    "account",
    "order",
]


def build(path: Path, items: int, dims: int) -> None:
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.sources.local.workspace import Workspace
    from tests.helpers import container

    schema = get_schema("lab")
    rng = random.Random(7)

    def generate():  # type: ignore[no-untyped-def]
        for n in range(items):
            text = " ".join(rng.choice(WORDS) for _ in range(8))
            yield {
                "id": f"item-{n:05d}",
                "tenantId": "bench",
                "threadId": f"thread-{n % 100:03d}",
                "turnIndex": n // 100,
                "messages": [
                    {"role": "user", "content": text, "timestamp": "2026-11-29T10:00:00Z"}
                ],
                "content": text,
                "embedding": [round(rng.uniform(-1, 1), 6) for _ in range(dims)],
            }

    with Workspace.building(path, container(schema.partition_key, -1), schema) as ws:
        ws.upsert_items(generate(), schema, ANCHOR)
        ws.set_meta("schema", schema.name)


def probe(path: str, mode: str, dims: int) -> None:
    """In the child: open, probe once, print one JSON line."""
    from cosmem_tui.model import FrozenClock, Key
    from cosmem_tui.model.lifecycle import TtlScope
    from cosmem_tui.model.recall import ProbeMode, RecallQuery
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.sources.local import LocalStore

    store = LocalStore.open(Path(path), get_schema("lab"), clock=FrozenClock(ANCHOR + 60))
    opened_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rng = random.Random(11)
    uses_vector = mode != "text"
    uses_text = mode in ("text", "hybrid")
    query = RecallQuery(
        scope=TtlScope.of_tenant(Key.of("bench")),
        mode=ProbeMode(mode),
        k=10,
        vector_path="/embedding" if uses_vector else None,
        vector=tuple(rng.uniform(-1, 1) for _ in range(dims)) if uses_vector else None,
        text_paths=("/content",) if uses_text else (),
        terms=("refund", "delay") if uses_text else (),
    )
    started, cpu = time.perf_counter(), time.process_time()
    answer = asyncio.run(store.recall(query))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "wall": wall,
                "cpu": cpu,
                "opened_mb": opened_kb / 1024,
                "peak_mb": peak_kb / 1024,
                "hits": len(answer.hits),
                "ru": answer.request_units,
                "ranking": [[h.id, repr(h.score)] for h in answer.hits],
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--dims", type=int, default=1536)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", help=argparse.SUPPRESS)
    parser.add_argument("--child", nargs=2, metavar=("PATH", "MODE"), help=argparse.SUPPRESS)
    parser.add_argument("--build", nargs=2, metavar=("PATH", "REF"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        probe(args.child[0], args.child[1], args.dims)
        return
    if args.build:
        build(Path(args.build[0]), args.items, args.dims)
        without_vectors(Path(args.build[0]), Path(args.build[1]))
        return
    with tempfile.TemporaryDirectory(dir=args.keep) as tmp:
        path = Path(tmp) / "bench.sqlite"
        reference = Path(tmp) / "reference.sqlite"
        started = time.perf_counter()
        # In a child: a child's peak RSS counts its parent's pages at the fork, so the
        # parent stays small.
        maker = [sys.executable, __file__, "--build", str(path), str(reference)]
        maker += ["--items", str(args.items), "--dims", str(args.dims)]
        subprocess.run(maker, check=True)
        built = time.perf_counter() - started
        print(
            f"workspace: {args.items:,} items, {args.dims}-d embeddings, "
            f"{path.stat().st_size / 1e6:,.0f} MB ({reference.stat().st_size / 1e6:,.0f} MB "
            f"of items), both built in {built:.1f} s"
        )
        for mode in ("exact", "text", "hybrid"):
            runs: dict[str, list[dict[str, Any]]] = {"table": [], "no table": []}
            for _ in range(args.runs):
                for name, workspace in (("table", path), ("no table", reference)):
                    child = [sys.executable, __file__, "--child", str(workspace), mode]
                    child += ["--dims", str(args.dims)]
                    done = subprocess.run(child, capture_output=True, text=True, check=True)
                    runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
            for name, found in runs.items():
                wall = statistics.median(r["wall"] for r in found)
                cpu = statistics.median(r["cpu"] for r in found)
                opened = max(r["opened_mb"] for r in found)
                peak = max(r["peak_mb"] for r in found)
                print(
                    f"{mode:>6} {name:>8}: {wall:.3f} s to the ranked list (median of "
                    f"{args.runs}), {cpu:.3f} s CPU, peak RSS {peak:.0f} MB (session open: "
                    f"{opened:.0f} MB), {found[0]['hits']} hits, {found[0]['ru']:.2f} RU modelled"
                )
            rankings = {json.dumps(r["ranking"]) for found in runs.values() for r in found}
            print(f"{'':>6} same ranking and scores: {'yes' if len(rankings) == 1 else 'NO'}")


def without_vectors(path: Path, reference: Path) -> None:
    """A copy of the workspace as a build before the vectors table wrote it."""
    shutil.copyfile(path, reference)
    db = sqlite3.connect(reference, isolation_level=None)
    try:
        db.execute("DROP TABLE IF EXISTS vectors")
        db.execute("DELETE FROM meta WHERE key = 'vectors_path'")
        db.execute("VACUUM")
    finally:
        db.close()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
