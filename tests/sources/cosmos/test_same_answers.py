"""The same items, seeded into the peer and into a local workspace, browse the same.

This is the promise behind ``--endpoint``: the console shows a Cosmos container exactly
as it shows the embedded workspace. Times differ (the peer stamps ``_ts`` now), so
the comparison leaves out last-activity times and system properties.
"""

from __future__ import annotations

import time
from pathlib import Path

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.model import FrozenClock, SystemClock, ThreadRef
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local import LocalStore
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.helpers import all_keys, build_workspace, counted, exchange
from tests.peer.containers import lab_dataset

SYSTEM = {"_rid", "_self", "_ts", "_etag", "_attachments"}


def dataset() -> list[dict]:
    items = lab_dataset()
    items += [
        {**exchange("acme", "t3", None), "id": "no-order"},
        {**exchange("acme", "t3", "7"), "id": "string-order"},
        {**exchange("acme", "t3", 2), "id": "bad-ttl", "ttl": None},
        {**exchange("acme", "t3", 3, "\x1b[2J[red]hostile[/red]\u202e"), "id": "hostile"},
        {**exchange("umbrella", "u1", 0), "messages": "not an array"},
    ]
    return items


async def browse_everything(service: BrowseService) -> dict:
    seen: dict = {"tenants": [], "threads": {}, "turns": {}, "tails": {}, "details": {}}
    for tenant in await all_keys(service.store):
        counts = await service.store.key_counts(tenant)
        seen["tenants"].append((tenant.text, counts.threads, counts.items))
        threads = await service.threads(tenant)
        seen["threads"][tenant.text] = sorted(
            (t.name, t.items, t.short_term, t.long_term) for t in threads
        )
        for thread in threads:
            ref = thread.ref
            turns = [t async for t in service.iter_turns(ref, page_size=2)]
            seen["turns"][ref] = [
                (t.item_id, t.order, t.kind, t.messages, t.problems, t.ttl.state) for t in turns
            ]
            seen["tails"][ref] = [t.item_id for t in await service.last_turns(ref, 3)]
            detail = await service.detail(ref, turns[-1].item_id)
            body = {k: v for k, v in detail.item.body.items() if k not in SYSTEM}
            seen["details"][ref] = (body, detail.turn.problems)
    return seen


async def test_peer_and_workspace_give_the_same_answers(containers, open_store, tmp_path: Path):
    items = dataset()
    seeded = await containers(items)
    now = int(time.time())
    path = build_workspace(tmp_path / "same.sqlite", items, now=now, schema=get_schema("lab"))
    local = LocalStore.open(path, get_schema("lab"), ledger=RequestLedger(), clock=FrozenClock(now))
    try:
        expected = await browse_everything(BrowseService(local, FrozenClock(now)))
    finally:
        await local.close()
    cosmos = open_store(seeded.settings())
    actual = await browse_everything(BrowseService(cosmos, SystemClock()))
    assert actual == expected
    assert ThreadRef.of("acme", "t3") in actual["turns"]  # the odd items were compared too


async def test_same_answers_without_a_tenant_level(containers, open_store, tmp_path: Path):
    schema = get_schema("thread")
    items = [exchange(None, f"x{n}", i, ttl=60 if i else -1) for n in range(3) for i in range(4)]
    seeded = await containers(items, schema=schema)
    now = int(time.time())
    path = build_workspace(tmp_path / "same.sqlite", items, now=now, schema=schema)
    local = LocalStore.open(path, schema, ledger=RequestLedger(), clock=FrozenClock(now))
    try:
        expected = sorted((n, c.items, c.short_term) for n, c in (await counted(local)).items())
    finally:
        await local.close()
    cosmos = open_store(seeded.settings(), schema)
    actual = sorted((n, c.items, c.short_term) for n, c in (await counted(cosmos)).items())
    assert actual == expected == [("x0", 4, 3), ("x1", 4, 3), ("x2", 4, 3)]
