"""What the local change log costs: the build, the writes, and a tail's reads, in one run.

    python benchmarks/change_log.py [--changes 5000] [--runs 3]

On the demo workspace (built here in a temporary folder, copied for each write run),
measured in the same run:

* **build**: the demo build with its change log, beside the same build with the log
  left out (``record_build`` replaced by nothing): the reference;
* **writes**: ``--changes`` creates, one replace and one delete for every ten, through
  ``WorkspaceWriter.changes`` batches of 1, 10 and 100 writes, in changes per second,
  beside the same batches with the log rows left out (``record_version`` /
  ``record_removal`` replaced by nothing): the reference;
* **reads**: a tail's poll of the container, a tenant and a thread after each batch of
  100 (``LocalStore.read_changes``, all versions, from the last continuation), in
  milliseconds per read and changes per second read.

Median of ``--runs``; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from cosmem_tui.core.demo.generator import build_demo_workspace
from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.model.changes import FeedMode, FeedStart
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local import LocalStore, change_log
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter

ANCHOR = 1_795_996_800
LAB = get_schema("lab")
TENANT = "bench-tenant"


@contextmanager
def without_log() -> Iterator[None]:
    """The reference: the same work with the change log's rows left out."""
    with (
        mock.patch.object(change_log, "record_build", lambda db: None),
        mock.patch.object(change_log, "record_version", lambda *a, **k: 0),
        mock.patch.object(change_log, "record_removal", lambda *a, **k: 0),
    ):
        yield


def timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def item(n: int, text: str = "hello") -> dict[str, Any]:
    return {
        "id": f"bench-{n}",
        "tenantId": TENANT,
        "threadId": f"bench-thread-{n % 20}",
        "turnIndex": n,
        "ttl": 3600,
        "messages": [
            {"role": "user", "content": f"{text} {n}", "timestamp": "2026-11-29T10:00:00Z"},
            {"role": "agent", "content": f"reply {n}", "timestamp": "2026-11-29T10:00:05Z"},
        ],
    }


def write_all(path: Path, changes: int, batch: int) -> float:
    """Seconds to write ``changes`` changes in batches of ``batch``."""
    writer = WorkspaceWriter.open(path)
    now = ANCHOR + 1
    started = time.perf_counter()
    written = 0
    n = 0
    while written < changes:
        with writer.changes(LAB, now) as b:
            for _ in range(batch):
                b.create(item(n))
                written += 1
                if n % 10 == 9:
                    b.replace(item(n, "edited"))
                    b.delete((TENANT, f"bench-thread-{n % 20}"), f"bench-{n}")
                    written += 2
                n += 1
        now += 1
    elapsed = time.perf_counter() - started
    writer.close()
    return elapsed


async def tail(path: Path, rounds: int) -> tuple[float, int, int]:
    """Write 100 changes, poll three scopes, ``rounds`` times: read seconds, reads, changes."""
    clock = FrozenClock(ANCHOR + 1)
    store = LocalStore.open(path, LAB, clock=clock)
    scopes = [
        TtlScope.container(),
        TtlScope.of_tenant(Key.of(TENANT)),
        TtlScope.of_thread(ThreadRef.of(TENANT, "bench-thread-3")),
    ]
    positions: list[str] = []
    for scope in scopes:
        page = await store.read_changes(scope, mode=FeedMode.ALL_VERSIONS, start=FeedStart.now())
        assert page.continuation is not None
        positions.append(page.continuation)
    writer = WorkspaceWriter.open(path)
    spent, reads, seen = 0.0, 0, 0
    for r in range(rounds):
        with writer.changes(LAB, int(clock.now())) as b:
            for i in range(100):
                b.create(item(100_000 + r * 100 + i))
        clock.advance(1)
        for k, scope in enumerate(scopes):
            started = time.perf_counter()
            page = await store.read_changes(
                scope, mode=FeedMode.ALL_VERSIONS, continuation=positions[k], max_items=1000
            )
            spent += time.perf_counter() - started
            reads += 1
            seen += len(page.changes)
            assert page.continuation is not None
            positions[k] = page.continuation
    writer.close()
    await store.close()
    return spent, reads, seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        builds: dict[str, list[float]] = {"with the log": [], "reference (no log)": []}
        for run in range(args.runs):
            builds["with the log"].append(
                timed(lambda run=run: build_demo_workspace(root / f"log-{run}.sqlite", ANCHOR))
            )
            with without_log():
                builds["reference (no log)"].append(
                    timed(lambda run=run: build_demo_workspace(root / f"bare-{run}.sqlite", ANCHOR))
                )
        print("demo build (54k items), median seconds:")
        for name, times in builds.items():
            print(f"  {name:<20} {statistics.median(times):7.2f} s")
        log_size = (root / "log-0.sqlite").stat().st_size
        bare_size = (root / "bare-0.sqlite").stat().st_size
        print(
            f"  file size: {log_size / 1e6:.1f} MB with the log, {bare_size / 1e6:.1f} MB without"
        )

        print(f"writes ({args.changes} changes: creates, a replace and a delete per ten):")
        for batch in (1, 10, 100):
            rates: dict[str, list[float]] = {"with the log": [], "reference (no log)": []}
            for run in range(args.runs):
                for name in rates:
                    path = root / f"write-{batch}-{run}-{len(name)}.sqlite"
                    shutil.copyfile(root / "log-0.sqlite", path)
                    if name.startswith("reference"):
                        with without_log():
                            seconds = write_all(path, args.changes, batch)
                    else:
                        seconds = write_all(path, args.changes, batch)
                    rates[name].append(args.changes / seconds)
            cells = ", ".join(f"{n} {statistics.median(r):8.0f}/s" for n, r in rates.items())
            print(f"  batches of {batch:>3}: {cells}")

        path = root / "tail.sqlite"
        shutil.copyfile(root / "log-0.sqlite", path)
        spent, reads, seen = asyncio.run(tail(path, 50))
        print(
            f"tail reads (container, tenant, thread after each 100 writes): "
            f"{1000 * spent / reads:.2f} ms per read, {seen / spent:,.0f} changes/s read"
        )


if __name__ == "__main__":
    main()
