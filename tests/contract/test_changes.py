"""The change feed half of the MemoryStore contract: ``read_changes`` on every backend.

The same writes (``change_writes.py``: creates, replaces, deletes, TTL purges) must read
as the same ``Change`` records everywhere: in commit order, every operation in the
all-versions mode and each item's latest version only (no removals) in the
latest-version mode, scoped to a tenant's key prefix or a thread, resumed from a
continuation with nothing lost or repeated, ``not_modified`` when nothing changed, and
every read ledgered as background work that stops quietly at the budget.

Where a backend cannot, it says so (``ChangeWrites``): the npm peer has no
all-versions mode, so each test of it asserts the refusal (``FeedUnavailable`` with the
fix); Cosmos DB refuses to resume a position older than its retention window rather than
skipping what it forgot.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.model.changes import (
    Change,
    ChangeOp,
    ChangePage,
    FeedMode,
    FeedStart,
    FeedUnavailable,
)
from cosmem_tui.model.lifecycle import DAY, TtlScope
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.errors import BudgetSpent
from cosmem_tui.sources.request_budget import BudgetQuestion
from cosmem_tui.sources.store import MemoryStore
from tests.contract.backends import Backend
from tests.contract.change_writes import ChangeWrites, change_writes
from tests.contract.conftest import BACKENDS, open_backend
from tests.helpers import exchange

LAB = get_schema("lab")
CONTAINER = TtlScope.container()
ALL = FeedMode.ALL_VERSIONS
LATEST = FeedMode.LATEST


def feed_backend_param(name: str) -> Any:
    """Every backend of the suite; those whose change feed is not built yet are expected
    to fail (strictly: once one passes, its mark must go) rather than skipped."""
    if name in ("local", "cosmos", "gateway"):
        return name
    reason = (
        f"the {name} backend's change feed writes are not set up yet "
        "(whether the account serves all versions is the account's)"
    )
    return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=reason))


@pytest.fixture(params=[feed_backend_param(name) for name in BACKENDS])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    instance = open_backend(request.param, request, tmp_path)
    yield instance
    await instance.close()


async def feed_of(
    backend: Backend, writers: list[ChangeWrites], items: list[dict[str, Any]]
) -> tuple[MemoryStore, ChangeWrites]:
    store = await backend.make_store(items, schema=LAB, default_ttl=-1)
    writes = change_writes(backend, store)
    writers.append(writes)
    return store, writes


async def drain(
    store: MemoryStore,
    continuation: str,
    *,
    mode: FeedMode = ALL,
    scope: TtlScope = CONTAINER,
    max_items: int = 100,
) -> tuple[list[Change], str, list[ChangePage]]:
    """Read until the feed says nothing changed; the changes, where to go on, the pages."""
    changes: list[Change] = []
    pages: list[ChangePage] = []
    while True:
        page = await store.read_changes(
            scope, mode=mode, continuation=continuation, max_items=max_items
        )
        pages.append(page)
        changes.extend(page.changes)
        assert page.continuation is not None
        continuation = page.continuation
        if page.not_modified:
            assert not page.changes
            return changes, continuation, pages


async def now_position(
    store: MemoryStore, *, mode: FeedMode = ALL, scope: TtlScope = CONTAINER
) -> str:
    page = await store.read_changes(scope, mode=mode, start=FeedStart.now())
    assert page.changes == () and page.continuation is not None
    return page.continuation


async def refused_without_all_versions(store: MemoryStore, writes: ChangeWrites) -> bool:
    """A backend without the all-versions mode refuses it with the fix, never an empty
    feed: True when it did (the test of that mode then ends)."""
    if writes.all_versions:
        return False
    with pytest.raises(FeedUnavailable) as raised:
        await store.read_changes(CONTAINER, mode=ALL, start=FeedStart.now())
    assert raised.value.mode is ALL and "continuous backup" in raised.value.fix
    return True


def seeded() -> list[dict[str, Any]]:
    return [exchange("acme", "t1", i) for i in range(3)] + [exchange("globex", "g1", 0)]


async def test_latest_from_the_beginning_is_every_item_once_in_write_order(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    await backend.advance(2)
    await writes.create(exchange("acme", "t1", 7))
    page = await store.read_changes(CONTAINER, mode=LATEST, start=FeedStart.beginning())
    ids = [c.item_id for c in page.changes]
    assert sorted(ids) == sorted(["t1-0", "t1-1", "t1-2", "g1-0", "t1-7"])
    assert ids[-1] == "t1-7"  # written last, read last
    lsns = [c.lsn for c in page.changes]
    assert lsns == sorted(lsns) and len(set(lsns)) == len(lsns)
    assert {c.op for c in page.changes} == {ChangeOp.WRITE}
    last = page.changes[-1]
    assert last.commit_time == last.ts  # latest version: the version's own _ts
    assert last.ref == ThreadRef.of("acme", "t1")
    assert last.preview.startswith("hello 7") and last.order == 7 and last.role == "user"


async def test_all_versions_has_every_operation_in_commit_order(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    if await refused_without_all_versions(store, writes):
        return
    start = await now_position(store)
    await writes.create(exchange("acme", "t1", 9, ttl=3600))
    await backend.advance(1)
    await writes.replace(exchange("acme", "t1", 9, text="edited", ttl=7200))
    await backend.advance(1)
    await writes.delete(("acme", "t1"), "t1-9")
    changes, _, _ = await drain(store, start)
    assert [(c.op, c.item_id) for c in changes] == [
        (ChangeOp.CREATE, "t1-9"),
        (ChangeOp.REPLACE, "t1-9"),
        (ChangeOp.DELETE, "t1-9"),
    ]
    created, replaced, deleted = changes
    assert created.lsn < replaced.lsn < deleted.lsn
    assert created.commit_time <= replaced.commit_time <= deleted.commit_time
    assert (created.ttl, replaced.ttl) == (3600, 7200)
    assert created.digest != replaced.digest  # the content edit shows
    assert replaced.previous_lsn == created.lsn and deleted.previous_lsn == replaced.lsn
    # A delete carries only its id and key: the thread is read from the key.
    assert deleted.ref == ThreadRef.of("acme", "t1")
    assert deleted.partition_key == ("acme", "t1")
    assert (deleted.ts, deleted.preview, deleted.digest) == (None, "", None)
    assert all(c.request_units > 0 for c in changes)


async def test_not_modified_until_something_changes(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    if await refused_without_all_versions(store, writes):
        return
    position = await now_position(store)
    quiet = await store.read_changes(CONTAINER, mode=ALL, continuation=position)
    assert quiet.not_modified and quiet.changes == ()
    await writes.create(exchange("acme", "t3", 0))
    moved = await store.read_changes(CONTAINER, mode=ALL, continuation=quiet.continuation)
    assert not moved.not_modified and [c.item_id for c in moved.changes] == ["t3-0"]
    again = await store.read_changes(CONTAINER, mode=ALL, continuation=moved.continuation)
    assert again.not_modified and again.changes == ()


async def test_a_tenant_is_its_key_prefix_and_a_number_is_not_its_text(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    if await refused_without_all_versions(store, writes):
        return
    number, text = TtlScope.of_tenant(Key.of(42)), TtlScope.of_tenant(Key.of("42"))
    thread = TtlScope.of_thread(ThreadRef.of("acme", "t2"))
    starts = {
        "number": await now_position(store, scope=number),
        "text": await now_position(store, scope=text),
        "thread": await now_position(store, scope=thread),
    }
    await writes.create(
        exchange(42, "n1", 0),
        exchange("42", "s1", 0),
        exchange("acme", "t1", 5),
        exchange("acme", "t2", 0),
        exchange("globex", "t2", 0),  # the same thread name in another tenant
        exchange(42, "n1", 1),
    )
    await writes.delete(("acme", "t2"), "t2-0")
    numbers, _, _ = await drain(store, starts["number"], scope=number)
    texts, _, _ = await drain(store, starts["text"], scope=text)
    threads, _, _ = await drain(store, starts["thread"], scope=thread)
    assert [c.item_id for c in numbers] == ["n1-0", "n1-1"]
    assert {c.ref.tenant for c in numbers if c.ref} == {Key.of(42)}
    assert [c.item_id for c in texts] == ["s1-0"]
    assert [(c.op, c.item_id) for c in threads] == [
        (ChangeOp.CREATE, "t2-0"),
        (ChangeOp.DELETE, "t2-0"),
    ]
    latest = await store.read_changes(number, mode=LATEST, start=FeedStart.beginning())
    assert [c.item_id for c in latest.changes] == ["n1-0", "n1-1"]


async def test_pages_resume_with_nothing_lost_or_repeated(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    if await refused_without_all_versions(store, writes):
        return
    position = await now_position(store)
    await writes.create(*(exchange("acme", "p1", i) for i in range(11)))
    seen: list[Change] = []
    pages = 0
    # Writes land between the pages: each is read once, after what came before it.
    for round_ in range(3):
        page = await store.read_changes(CONTAINER, mode=ALL, continuation=position, max_items=4)
        assert len(page.changes) <= 4
        seen.extend(page.changes)
        pages += 1
        assert page.continuation is not None
        position = page.continuation
        await writes.create(exchange("acme", "p2", round_))
    rest, _, more = await drain(store, position, max_items=4)
    seen.extend(rest)
    expected = [f"p1-{i}" for i in range(11)] + [f"p2-{i}" for i in range(3)]
    assert sorted(c.item_id for c in seen) == sorted(expected)
    assert len({c.key for c in seen}) == len(seen)
    assert [c.lsn for c in seen] == sorted(c.lsn for c in seen)
    assert pages + len(more) >= 4  # it took several pages


async def test_pages_read_while_another_client_writes_lose_and_repeat_nothing(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    if await refused_without_all_versions(store, writes):
        return
    position = await now_position(store)
    done = asyncio.Event()
    seen: list[Change] = []

    async def write() -> None:
        for batch in range(8):
            await writes.create(*(exchange("acme", f"w{batch}", i) for i in range(5)))
            await backend.advance(1)
        done.set()

    async def read() -> None:
        nonlocal position
        while True:
            finished = done.is_set()  # read once more after the last write
            page = await store.read_changes(CONTAINER, mode=ALL, continuation=position, max_items=7)
            seen.extend(page.changes)
            assert page.continuation is not None
            position = page.continuation
            if finished and page.not_modified:
                return
            await asyncio.sleep(0)

    await asyncio.gather(write(), read())
    assert len(seen) == 40
    assert len({c.key for c in seen}) == 40
    assert [c.lsn for c in seen] == sorted(c.lsn for c in seen)


async def test_latest_version_collapses_versions_and_shows_no_deletes(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    position = await now_position(store, mode=LATEST)
    await writes.create(exchange("acme", "t1", 8, ttl=600), exchange("acme", "t1", 9))
    await backend.advance(1)
    await writes.replace(exchange("acme", "t1", 8, ttl=1200))
    await backend.advance(1)
    await writes.replace(exchange("acme", "t1", 8, text="final", ttl=2400))
    await writes.delete(("acme", "t1"), "t1-9")
    await writes.delete(("acme", "t1"), "t1-0")  # seeded: gone from the beginning's feed too
    changes, _, _ = await drain(store, position, mode=LATEST)
    assert [(c.op, c.item_id) for c in changes] == [(ChangeOp.WRITE, "t1-8")]
    (latest,) = changes
    assert latest.ttl == 2400 and latest.preview.startswith("final 8")
    everything = await store.read_changes(CONTAINER, mode=LATEST, start=FeedStart.beginning())
    ids = [c.item_id for c in everything.changes]
    assert "t1-0" not in ids and "t1-9" not in ids and ids.count("t1-8") == 1
    assert all(not c.op.removes for c in everything.changes)


async def test_a_ttl_purge_is_expired_after_the_expiry_it_lags(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    if await refused_without_all_versions(store, writes):
        return
    position = await now_position(store)
    await writes.create(exchange("acme", "t4", 0, ttl=5), exchange("acme", "t4", 1, ttl=-1))
    await backend.advance(30)
    assert await writes.purge_expired() == 1
    changes, _, _ = await drain(store, position)
    assert [(c.op, c.item_id) for c in changes] == [
        (ChangeOp.CREATE, "t4-0"),
        (ChangeOp.CREATE, "t4-1"),
        (ChangeOp.EXPIRED, "t4-0"),
    ]
    created, _, purged = changes
    assert purged.ttl_expired and purged.previous_lsn == created.lsn
    assert created.ts is not None and isinstance(created.ttl, int)
    expired_at = created.ts + created.ttl  # from the last version seen
    assert purged.commit_time >= expired_at + 25  # purged when the purge ran, not at expiry
    assert purged.ref == ThreadRef.of("acme", "t4")


async def test_history_older_than_the_retention_window_is_gone(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    if await refused_without_all_versions(store, writes):
        return
    position = await now_position(store)
    await writes.create(exchange("acme", "t5", 0))
    await writes.replace(exchange("acme", "t5", 0, text="old edit"))
    await writes.delete(("globex", "g1"), "g1-0")
    early = await store.read_changes(CONTAINER, mode=ALL, continuation=position)
    assert len(early.changes) == 3
    if writes.refuses_past_retention:
        assert early.retained_since is None  # the service does not say its window
    else:
        assert early.retained_since is not None
        assert early.retained_since <= early.changes[0].commit_time
    await backend.advance(writes.retention_s + DAY)
    if writes.refuses_past_retention:
        # Cosmos DB: a position older than the window is refused (400), with the way on.
        with pytest.raises(FeedUnavailable) as raised:
            await drain(store, position)
        assert "from now" in raised.value.fix
        position = await now_position(store)
        await writes.create(exchange("acme", "t5", 1))
        late, _, _ = await drain(store, position)
        assert [(c.op, c.item_id) for c in late] == [(ChangeOp.CREATE, "t5-1")]
    else:
        await writes.create(exchange("acme", "t5", 1))
        late, _, pages = await drain(store, position)
        # The old history went; the item's current version is still in the latest feed.
        assert [(c.op, c.item_id) for c in late] == [(ChangeOp.CREATE, "t5-1")]
        retained = pages[-1].retained_since
        assert retained is not None and retained > early.changes[-1].commit_time
        assert retained <= late[0].commit_time
    latest = await store.read_changes(CONTAINER, mode=LATEST, start=FeedStart.beginning())
    ids = [c.item_id for c in latest.changes]
    assert "t5-0" in ids and "g1-0" not in ids


async def test_all_versions_starts_only_now_and_latest_at_a_time(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    for start in (FeedStart.beginning(), FeedStart.at_time(0)):
        with pytest.raises(ValueError):
            await store.read_changes(CONTAINER, mode=ALL, start=start)
    # Seconds, not minutes: on the npm peer time passes for real (its _ts is its clock).
    await backend.advance(2)
    before = await store.read_changes(CONTAINER, mode=LATEST, start=FeedStart.beginning())
    newest = max(c.commit_time for c in before.changes)
    await backend.advance(2)
    await writes.create(exchange("acme", "t6", 0))
    page = await store.read_changes(CONTAINER, mode=LATEST, start=FeedStart.at_time(newest + 1))
    assert [c.item_id for c in page.changes] == ["t6-0"]


async def test_every_read_is_ledgered_and_the_budget_stops_a_background_read(
    backend: Backend, writers: list[ChangeWrites]
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    if await refused_without_all_versions(store, writes):
        return
    ledger = store.ledger
    recorded = len(ledger.records())
    spent = ledger.spent_ru
    position = await now_position(store)
    await writes.create(exchange("acme", "t7", 0))
    page = await store.read_changes(CONTAINER, mode=ALL, continuation=position)
    assert len(ledger.records()) >= recorded + 2
    assert ledger.spent_ru - spent >= page.request_units > 0
    asked: list[BudgetQuestion] = []

    async def refuse(question: BudgetQuestion) -> bool:
        asked.append(question)
        return False

    ledger.set_confirmer(refuse)
    ledger.set_budget(0.01)
    recorded, spent = len(ledger.records()), ledger.spent_ru
    await writes.create(exchange("acme", "t7", 1))
    with pytest.raises(BudgetSpent):
        await store.read_changes(CONTAINER, mode=ALL, continuation=page.continuation)
    assert asked == []  # background work stops quietly: nobody is asked
    assert len(ledger.records()) == recorded and ledger.spent_ru == spent
