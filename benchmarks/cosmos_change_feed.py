"""What reading the Cosmos change feed through the store costs, on the fake gateway.

    python benchmarks/cosmos_change_feed.py [--changes 5000] [--ranges 4] [--runs 3]

Measured in the same run, on one fake account (4 physical ranges by default):

* **drain**: ``--changes`` writes (creates, one replace and one delete in ten) read back
  from a position taken before them, all versions, ``max_items=100`` per read, through
  ``CosmosStore.read_changes`` (every range read each time, pages merged in commit
  order, records built, every request ledgered), in changes per second — beside the
  same changes drained with the SDK's own ``query_items_change_feed`` over the whole
  container (one continuation, no records, no ledger): the reference;
* **idle poll**: one ``read_changes`` of the container when nothing changed (a 304 from
  every range), in milliseconds, beside one SDK read of the same (the reference);
* **tail at a rate**: 500 writes per simulated second for ``--seconds``, one poll
  (``max_items=1000``) a second: changes per poll and whether each poll caught up.

Median of ``--runs``; asserts nothing. The fake answers in-process over HTTPS on the
loopback, so the figures are the client's and the wire's, not the service's.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from azure.cosmos.aio import CosmosClient

from cosmem_tui.model.changes import FeedMode
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.fake_cosmos.clock import FakeCosmosClock
from tests.fake_cosmos.fake import FakeCosmos

START = 1_800_000_000
LAB = get_schema("lab")
DB, COLL = "bench", "memory"


def turn(i: int, text: str = "hello") -> dict[str, Any]:
    return {
        "id": f"turn-{i}",
        "tenantId": f"tenant-{i % 17}",
        "threadId": f"thread-{i % 101}",
        "turnIndex": i,
        "messages": [{"role": "user", "content": f"{text} {i}"}],
    }


def write(gw: FakeCosmos, count: int, first: int = 0) -> None:
    """``count`` changes straight into the fake (logged like the SDK's writes)."""
    container = gw.container(DB, COLL)
    now = gw.clock.now()
    with gw.store.lock:
        for i in range(first, first + count):
            if i % 10 == 8 and i > first:
                container.write(turn(i - 1, "edited"), now, mode="upsert")
            elif i % 10 == 9 and i > first + 1:
                key = container.key.values_of(turn(i - 2))
                container.delete(container.key.epk(key), f"turn-{i - 2}", now)
            else:
                container.write(turn(i), now, mode="upsert")


def store_of(gw: FakeCosmos) -> CosmosStore:
    settings = CosmosSettings(
        endpoint=gw.endpoint, database=DB, container=COLL, auth=AuthMode.KEY, key=gw.key
    )
    return CosmosStore.open(settings, LAB, ledger=RequestLedger(budget_ru=10**9))


async def drain_store(store: CosmosStore, token: str) -> tuple[int, str]:
    read = 0
    while True:
        page = await store.read_changes(
            TtlScope(), mode=FeedMode.ALL_VERSIONS, continuation=token, max_items=100
        )
        read += len(page.changes)
        token = page.continuation or token
        if page.not_modified:
            return read, token


async def drain_sdk(container: Any, token: str) -> tuple[int, str]:
    read = 0
    while True:
        pager = container.query_items_change_feed(continuation=token, max_item_count=100)
        pages = pager.by_page()
        got = 0
        async for page in pages:
            got += len([row async for row in page])
        read += got
        token = container.client_connection.last_response_headers.get("etag") or token
        if got == 0:
            return read, token


async def sdk_now(container: Any) -> str:
    pager = container.query_items_change_feed(mode="AllVersionsAndDeletes", start_time="Now")
    async for page in pager.by_page():
        async for _ in page:
            pass
    return str(container.client_connection.last_response_headers["etag"])


async def one_run(changes: int, ranges: int, seconds: int) -> dict[str, float]:
    out: dict[str, float] = {}
    with FakeCosmos(ranges=ranges, clock=FakeCosmosClock(START)) as gw:
        gw.create_container(
            DB, COLL, partition_key=["/tenantId", "/threadId"], ranges=ranges, default_ttl=-1
        )
        store = store_of(gw)
        async with CosmosClient(gw.endpoint, gw.key) as client:
            container = client.get_database_client(DB).get_container_client(COLL)
            first = await store.read_changes(TtlScope(), mode=FeedMode.ALL_VERSIONS)
            raw = await sdk_now(container)
            assert first.continuation is not None
            write(gw, changes)
            started = time.perf_counter()
            got, token = await drain_store(store, first.continuation)
            out["store_drain_per_s"] = got / (time.perf_counter() - started)
            started = time.perf_counter()
            raw_got, raw = await drain_sdk(container, raw)
            out["sdk_drain_per_s"] = raw_got / (time.perf_counter() - started)
            out["changes_read"] = got
            out["changes_read_sdk"] = raw_got
            started = time.perf_counter()
            for _ in range(20):
                page = await store.read_changes(
                    TtlScope(), mode=FeedMode.ALL_VERSIONS, continuation=token
                )
                assert page.not_modified
            out["store_idle_poll_ms"] = (time.perf_counter() - started) / 20 * 1000
            started = time.perf_counter()
            for _ in range(20):
                await drain_sdk(container, raw)
            out["sdk_idle_poll_ms"] = (time.perf_counter() - started) / 20 * 1000
            per_poll, behind = [], 0
            cursor = changes
            for _ in range(seconds):
                gw.clock.advance(1)
                write(gw, 500, cursor)
                cursor += 500
                started = time.perf_counter()
                page = await store.read_changes(
                    TtlScope(), mode=FeedMode.ALL_VERSIONS, continuation=token, max_items=1000
                )
                per_poll.append(time.perf_counter() - started)
                token = page.continuation or token
                behind += 0 if len(page.changes) >= 500 else 1
            out["tail_poll_ms"] = statistics.median(per_poll) * 1000
            out["tail_polls_behind"] = behind
        await store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--changes", type=int, default=5000)
    parser.add_argument("--ranges", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = [asyncio.run(one_run(args.changes, args.ranges, args.seconds)) for _ in range(args.runs)]
    median = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(f"fake gateway, {args.ranges} ranges, {args.changes} changes, median of {args.runs}")
    print(
        f"drain (all versions, 100 a read): store {median['store_drain_per_s']:,.0f} changes/s "
        f"({median['changes_read']:.0f} read) — SDK alone {median['sdk_drain_per_s']:,.0f} "
        f"changes/s ({median['changes_read_sdk']:.0f} read)"
    )
    print(
        f"idle poll (304 from every range): store {median['store_idle_poll_ms']:.1f} ms — "
        f"SDK alone {median['sdk_idle_poll_ms']:.1f} ms"
    )
    print(
        f"tail at 500 changes/s, one poll a second: {median['tail_poll_ms']:.1f} ms a poll, "
        f"{median['tail_polls_behind']:.0f} of {args.seconds} polls behind"
    )


if __name__ == "__main__":
    main()
