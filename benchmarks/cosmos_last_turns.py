"""The last 50 turns of a 10,000-turn thread on the Cosmos peer: console vs raw SDK.

    python benchmarks/cosmos_last_turns.py [--turns 10000] [--runs 30]

Starts the test peer (tests/peer, ``npm ci`` on first use), seeds one thread with
``--turns`` turns through the SDK, then times, in the same run and interleaved:

* console: ``BrowseService.last_turns(ref, 50)`` — the service layer the TUI and CLI
  use (ledger record, projected query, continuation handling, mapping to Turns);
* raw SDK: the same query text, parameters and partition key through
  ``azure.cosmos.aio`` directly, first page of 50 items, no mapping.

Prints medians, p90 and the ratio (goal ≤ 1.2×). Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.model import SystemClock, ThreadRef
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.query_slots import query_slots
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.sql import render
from cosmem_tui.sources.cosmos.store import CosmosStore
from tests.helpers import exchange
from tests.peer.fixtures import PEER_KEY, start_peer, stop_peer
from tests.peer.seeding import create_container, seed, seeding_client

LAST = 50


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def bench(endpoint: str, turns: int, runs: int) -> None:
    schema = get_schema("lab")
    client = seeding_client(endpoint, PEER_KEY)
    _, container = await create_container(
        client, "bench", "turns", paths=schema.partition_key, default_ttl=-1
    )
    started = time.perf_counter()
    await seed(
        container,
        (exchange("acme", "long", i, embedding=[0.01] * 64) for i in range(turns)),
        concurrency=32,
    )
    print(f"seeded {turns:,} turns in one thread in {time.perf_counter() - started:.1f}s")

    settings = CosmosSettings(endpoint, "bench", "turns", AuthMode.KEY, key=PEER_KEY)
    store = CosmosStore.open(settings, schema)
    service = BrowseService(store, SystemClock())
    ref = ThreadRef.of("acme", "long")
    query = render("turns_newest_first", query_slots(schema))
    parameters = [{"name": "@pk0", "value": "acme"}, {"name": "@pk1", "value": "long"}]

    async def console() -> int:
        return len(await service.last_turns(ref, LAST))

    async def raw() -> int:
        pages = container.query_items(
            query, parameters=parameters, partition_key=["acme", "long"], max_item_count=LAST
        ).by_page()
        page = await pages.__anext__()
        return len([item async for item in page])

    for warm in (console, raw, console, raw):  # connect, route, fill caches
        assert await warm() == LAST
    timings: dict[str, list[float]] = {"console": [], "raw SDK": []}
    for _ in range(runs):
        for name, run in (("console", console), ("raw SDK", raw)):
            t0 = time.perf_counter()
            count = await run()
            timings[name].append((time.perf_counter() - t0) * 1000)
            assert count == LAST
    before = len(store.ledger.records())
    await console()
    records = store.ledger.records()[before:]
    await store.close()
    await client.delete_database("bench")
    await client.close()

    print(f"last {LAST} turns of {turns:,}, {runs} runs each, interleaved:")
    for name, values in timings.items():
        print(
            f"  {name:8} median {statistics.median(values):6.2f} ms   "
            f"p90 {percentile(values, 0.9):6.2f} ms   min {min(values):6.2f} ms"
        )
    ratio = statistics.median(timings["console"]) / statistics.median(timings["raw SDK"])
    print(f"  ratio console / raw SDK (medians): {ratio:.2f}x  (goal <= 1.2x)")
    print(
        f"  console cost per call: {len(records)} request(s), "
        f"{sum(r.request_units for r in records):.1f} RU (the peer charges 1 RU per request)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        process, endpoint = start_peer(Path(tmp) / "peer.log")
        try:
            asyncio.run(bench(endpoint, args.turns, args.runs))
        finally:
            stop_peer(process)


if __name__ == "__main__":
    main()
