"""Requests and RU per navigation step of a scripted walk on the Cosmos peer.

    python benchmarks/cosmos_walk.py [--tenants 20] [--threads 10] [--turns 20]

Starts the test peer, seeds ``tenants × threads × turns`` items (lab schema), then
walks as a user would: tenant names → counts of the first screen of tenants → open
the first tenant → open its newest thread (first page of turns) → open a turn (point
read) → back to the threads → open a second tenant. For each step it prints the
ledger's records (one per HTTP response), the wire requests a spying transport saw, the
RU (the peer charges 1 RU per request; a real account charges what the query costs) and
the time. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.model import SystemClock
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from tests.helpers import exchange
from tests.peer.fixtures import PEER_KEY, start_peer, stop_peer
from tests.peer.seeding import create_container, seed, seeding_client
from tests.peer.spy import SpyTransport

SCREEN_ROWS = 33  # tenant rows on a 120×40 screen


def dataset(tenants: int, threads: int, turns: int) -> list[dict[str, Any]]:
    items = []
    for t in range(tenants):
        # Tenant sizes differ (the first is hot), as they do in production.
        for h in range(max(1, threads // (1 + t % 4))):
            for i in range(turns):
                items.append(exchange(f"tenant-{t:02d}", f"thread-{h:02d}", i, ttl=86_400))
    return items


async def walk(endpoint: str, tenants: int, threads: int, turns: int) -> None:
    schema = get_schema("lab")
    client = seeding_client(endpoint, PEER_KEY)
    _, container = await create_container(
        client, "walk", "memory", paths=schema.partition_key, default_ttl=-1
    )
    items = dataset(tenants, threads, turns)
    started = time.perf_counter()
    await seed(container, items, concurrency=32)
    print(f"seeded {len(items):,} items in {time.perf_counter() - started:.1f}s")

    spy = SpyTransport()
    settings = CosmosSettings(endpoint, "walk", "memory", AuthMode.KEY, key=PEER_KEY)
    store = CosmosStore.open(settings, schema, transport=spy)
    service = BrowseService(store, SystemClock())
    state: dict[str, Any] = {}

    async def tenant_list() -> str:
        listing = await service.directory.list()
        state["tenants"] = listing.keys
        return f"{len(listing.keys)} tenant names"

    async def counts() -> str:
        shown = state["tenants"][:SCREEN_ROWS]
        await service.directory.count_all(shown)
        return f"counts of {len(shown)} tenants"

    async def open_tenant(index: int) -> Callable[[], Awaitable[str]]:
        async def step() -> str:
            state["tenant"] = state["tenants"][index]
            state["threads"] = await service.threads(state["tenant"])
            return f"{state['tenant'].text}: {len(state['threads'])} threads"

        return step

    async def open_thread() -> str:
        state["page"] = await service.first_page(state["threads"][0].ref, page_size=100)
        return f"{len(state['page'].turns)} turns on the first page"

    async def open_turn() -> str:
        turn = state["page"].turns[-1]
        await service.detail(state["threads"][0].ref, turn.item_id)
        return f"turn {turn.order}"

    async def back() -> str:
        return "threads already on screen (no request)"

    steps: list[tuple[str, Callable[[], Awaitable[str]]]] = [
        ("tenant names", tenant_list),
        ("counts on screen", counts),
        ("open first tenant", await open_tenant(0)),
        ("open newest thread", open_thread),
        ("open a turn", open_turn),
        ("back to threads", back),
        ("open another tenant", await open_tenant(1)),
    ]
    print(f"{'step':22} {'records':>7} {'wire':>5} {'fan-out':>7} {'RU':>6} {'ms':>8}  result")
    for name, step in steps:
        mark = spy.mark()
        with store.ledger.meter() as meter:
            t0 = time.perf_counter()
            result = await step()
            elapsed = (time.perf_counter() - t0) * 1000
        sent = spy.since(mark)
        fan_outs = sum(1 for s in sent if s.fans_out)
        print(
            f"{name:22} {meter.requests:7d} {len(sent):5d} {fan_outs:7d} "
            f"{meter.request_units:6.1f} {elapsed:8.1f}  {result}"
        )
    totals = store.ledger.totals()
    print(
        f"session: {totals.requests} records, {len(spy.sent)} wire requests, "
        f"{totals.request_units:.1f} RU; notes: {'; '.join(store.listing_notes()) or 'none'}"
    )
    await store.close()
    await client.delete_database("walk")
    await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenants", type=int, default=20)
    parser.add_argument("--threads", type=int, default=10)
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        process, endpoint = start_peer(Path(tmp) / "peer.log")
        try:
            asyncio.run(walk(endpoint, args.tenants, args.threads, args.turns))
        finally:
            stop_peer(process)


if __name__ == "__main__":
    main()
