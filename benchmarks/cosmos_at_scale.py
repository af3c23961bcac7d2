"""What browsing costs at a real account's shape, on the fake Cosmos server (tests/fake_cosmos).

    python benchmarks/cosmos_at_scale.py [--tenants 10000] [--ranges 8] [--items 3]

Seeds ``tenants × items`` lab items over ``ranges`` physical partitions (a tenant split
across two of them), then prints, each measured on its own fresh account:

1. listing every tenant name, by DISTINCT per range and by the loose index scan:
   requests, RU, seconds;
2. the real console (Textual, headless, 120×40): requests, RU and seconds until the
   first screen of tenants is visible with counts; then a reload (``r``); then
   scrolling one screen (``PgDn``);
3. HTTP attempts per page while half of all queries are throttled: the SDK's own
   retries as configured before (``retry_total=2``, two nested loops) against the
   console's (one SDK attempt, the shared hold-off), paging a 1,000-turn thread.

RU come from the fake's charge model (tests/fake_cosmos/charges.py): they grow with the
work like Azure's, they are not Azure's numbers. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.model import SystemClock, ThreadRef
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.listing import Strategy
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from tests.fake_cosmos import FakeCosmos
from tests.helpers import exchange

LAB = get_schema("lab")
SIZE = (120, 40)


HOUR_AGO = int(time.time()) - 3600
CHANGED = ["tenant-00003", "tenant-00017", "tenant-00029"]  # written between first screen and r


def dataset(tenants: int, items: int) -> list[dict[str, Any]]:
    """Items last written an hour ago, so a reload can tell what changed since."""
    return [
        exchange(f"tenant-{n:05d}", f"t{i % 3}", i, _ts=HOUR_AGO)
        for n in range(tenants)
        for i in range(items)
    ]


def new_account(args: argparse.Namespace, items: list[dict[str, Any]]) -> FakeCosmos:
    fake = FakeCosmos().start()
    fake.create_container(
        "db",
        "memory",
        partition_key=["/tenantId", "/threadId"],
        ranges=args.ranges,
        split_inside=[["tenant-00042"]],
        default_ttl=-1,
    )
    fake.seed("db", "memory", items)
    return fake


def settings(fake: FakeCosmos, **tuning: Any) -> CosmosSettings:
    return CosmosSettings(fake.endpoint, "db", "memory", AuthMode.KEY, key=fake.key, **tuning)


# -- 1. names --------------------------------------------------------------------------------


async def list_names(args: argparse.Namespace, items: list[dict[str, Any]]) -> None:
    print(f"\n1. listing {args.tenants:,} tenant names over {args.ranges} partitions")
    print(f"   {'strategy':10} {'names':>7} {'requests':>9} {'RU':>9} {'seconds':>8}")
    for strategy in (Strategy.DISTINCT, Strategy.SEEK):
        fake = new_account(args, items)
        store = CosmosStore.open(settings(fake, ru_budget=1e9), LAB, key_strategy=strategy)
        try:
            await store.container_properties()
            before = store.ledger.totals()
            started = time.perf_counter()
            listing = await KeyDirectory(store, SystemClock()).list()
            elapsed = time.perf_counter() - started
            after = store.ledger.totals()
            print(
                f"   {strategy.value:10} {len(listing.keys):7,} "
                f"{after.requests - before.requests:9,} "
                f"{after.request_units - before.request_units:9,.1f} {elapsed:8.2f}"
            )
        finally:
            await store.close()
            fake.stop()


# -- 2. the console --------------------------------------------------------------------------


async def console(args: argparse.Namespace, items: list[dict[str, Any]], budget: float) -> None:
    from cosmem_tui.ui.app import CosmemApp
    from cosmem_tui.ui.confirm import ConfirmBudget
    from cosmem_tui.ui.widgets.row_list import RowList

    fake = new_account(args, items)
    cache = Path(f"/tmp/cosmem-bench-cache-{time.time_ns()}")

    async def open_it() -> Any:
        return await open_cosmos_session(
            settings(fake, ru_budget=budget), "lab", SystemClock(), cache, cache_root=cache
        )

    app = CosmemApp(session_factory=open_it)
    print(f"\n2. the console at {SIZE[0]}×{SIZE[1]}, RU budget {budget:,.0f}")
    print(f"   {'step':24} {'requests':>9} {'RU':>9} {'seconds':>8} {'asked':>5}  on screen")
    try:
        async with app.run_test(size=SIZE) as pilot:
            started = time.perf_counter()

            def counted() -> tuple[bool, str]:
                session = app.session
                if session is None or app.browse.keys is None:
                    return False, ""
                tenants = app.browse.query_one("#tenants", RowList)
                shown = tenants.shown_indices()
                directory = session.browse.directory
                keys = app.browse.keys.keys
                done = [
                    i
                    for i in shown
                    if (state := directory.count_state(keys[i])) is not None
                    and (state.counts is not None or state.error is not None)
                ]
                listed = directory.listing.complete
                ok = bool(shown) and len(done) == len(shown) and listed
                return ok, f"{len(keys):,} names, {len(done)} of {len(shown)} rows counted"

            async def until_counted(label: str, since: Any, t0: float) -> Any:
                asked = 0
                while True:
                    if isinstance(app.screen, ConfirmBudget):  # past the budget: say yes
                        asked += 1
                        await pilot.press("y")
                    ok, text = counted()
                    if ok:
                        break
                    if time.perf_counter() - t0 > 300:
                        text += " (gave up after 300 s)"
                        break
                    await pilot.pause(0.05)
                await app.workers.wait_for_complete()
                totals = app.session.ledger.totals()  # type: ignore[union-attr]
                print(
                    f"   {label:24} {totals.requests - since.requests:9,} "
                    f"{totals.request_units - since.request_units:9,.1f} "
                    f"{time.perf_counter() - t0:8.2f} {asked:5d}  {text}"
                )
                return totals

            while app.session is None:
                await pilot.pause(0.02)
            zero = app.session.ledger.totals()
            first = await until_counted("first screen", zero, started)
            # An agent writes to three tenants on screen; then the user reloads.
            fake.seed("db", "memory", [exchange(t, "t9", 99) for t in CHANGED])
            t0 = time.perf_counter()
            await pilot.press("r")
            await pilot.pause(0.1)
            reload = await until_counted(f"reload (r), {len(CHANGED)} changed", first, t0)
            t0 = time.perf_counter()
            await pilot.press("pagedown")
            await pilot.pause(0.1)
            await until_counted("scroll one screen (PgDn)", reload, t0)
            records = app.session.ledger.records()
            print(
                "   by operation: "
                + ", ".join(
                    f"{op} {n}" for op, n in Counter(r.operation for r in records).most_common()
                )
            )
    finally:
        fake.stop()


# -- 3. throttling ---------------------------------------------------------------------------


async def storm(args: argparse.Namespace) -> None:
    from azure.cosmos.aio import CosmosClient

    turns = [exchange("acme", "long", i) for i in range(args.storm_pages)]
    page_size = 1
    pages = len(turns) // page_size
    print(f"\n3. a 50% 429 storm, paging a thread one turn at a time ({pages:,} pages)")
    print(f"   {'retrying by':32} {'HTTP/page':>9} {'max/page':>9} {'gave up':>8}")

    # Before: the SDK retries (as 5d8482f configured it), one query page at a time.
    fake = new_account(args, turns)
    fake.log.clear()
    fake.faults.storm(0.5, seed=11, kind="query", retry_after_ms=5)
    client = CosmosClient(fake.endpoint, fake.key, retry_total=2)
    container = client.get_database_client("db").get_container_client("memory")
    query = (
        'SELECT * FROM c WHERE c["tenantId"] = "acme" AND c["threadId"] = "long" '
        'ORDER BY c["turnIndex"]'
    )
    token, failures, per_page = None, 0, []
    done = 0
    while done < pages:
        mark = len(fake.log.queries())
        try:
            pager = container.query_items(
                query, partition_key=["acme", "long"], max_item_count=page_size
            ).by_page(token)
            page = await pager.__anext__()
            _ = [row async for row in page]
            token = pager.continuation_token
            done += 1
        except Exception:
            failures += 1  # the retries ran out: a person would press r
        per_page.append(len(fake.log.queries()) - mark)
    await client.close()
    fake.stop()
    print(
        f"   {'the SDK (retry_total=2)':32} {statistics.mean(per_page):9.2f} "
        f"{max(per_page):9d} {failures:8d}"
    )

    # After: the console's runner, one SDK attempt per try, the shared hold-off.
    fake = new_account(args, turns)
    store = CosmosStore.open(settings(fake, ru_budget=1e9), LAB)
    await store.container_properties()
    fake.log.clear()
    fake.faults.storm(0.5, seed=11, kind="query", retry_after_ms=5)
    service = BrowseService(store, SystemClock())
    ref = ThreadRef.of("acme", "long")
    got = [t async for t in service.iter_turns(ref, page_size=page_size)]
    records = [r for r in store.ledger.records() if r.operation == "turns-page"]
    calls = Counter(r.call for r in records)
    await store.close()
    fake.stop()
    print(
        f"   {'the console (1 attempt + hold-off)':32} "
        f"{len(records) / len(calls):9.2f} {max(calls.values()):9d} {0:8d}"
        f"   ({len(got):,} turns, every one)"
    )


async def run(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    items = dataset(args.tenants, args.items)
    print(f"{len(items):,} items, {args.tenants:,} tenants, {args.ranges} ranges")
    await list_names(args, items)
    await console(args, items, 400.0)
    await console(args, items, 1e9)
    await storm(args)
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tenants", type=int, default=10_000)
    parser.add_argument("--ranges", type=int, default=8)
    parser.add_argument("--items", type=int, default=3)
    parser.add_argument("--storm-pages", type=int, default=2000)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
