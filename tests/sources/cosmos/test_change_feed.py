"""``CosmosStore.read_changes`` on the fake gateway: both modes, three scopes, TTL
purges that lag expiry, 304s, splits, the ledger, and the mode a container refuses."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from azure.cosmos.aio import CosmosClient

from cosmem_tui.model import Key, Kind, Scope, ThreadRef
from cosmem_tui.model.changes import ChangeOp, ChangePage, FeedMode, FeedStart, FeedUnavailable
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.schemas.registry import get_schema
from cosmem_tui.sources.cosmos.feed_modes import ALL_VERSIONS_FIX
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from tests.fake_cosmos.fake import FakeCosmos

DB, COLL = "db", "memory"
SCHEMA = get_schema("lab")
ACME, GLOBEX = 7, 9
START = 1_800_000_000


def _turn(tenant: int, thread: str, index: int, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"{thread}-{index}",
        "tenantId": tenant,
        "threadId": thread,
        "turnIndex": index,
        "messages": [{"role": "user", "content": text}],
        **extra,
    }


@pytest.fixture
async def fake() -> AsyncIterator[FakeCosmos]:
    from tests.fake_cosmos.clock import FakeCosmosClock

    gw = FakeCosmos(clock=FakeCosmosClock(START)).start()
    try:
        yield gw
    finally:
        gw.stop()


def _container(gw: FakeCosmos, **options: Any) -> None:
    gw.create_container(
        DB,
        COLL,
        partition_key=["/tenantId", "/threadId"],
        ranges=4,
        split_inside=[[ACME]],  # acme spans two physical partitions
        default_ttl=-1,
        **options,
    )


def _store(gw: FakeCosmos) -> CosmosStore:
    settings = CosmosSettings(
        endpoint=gw.endpoint, database=DB, container=COLL, auth=AuthMode.KEY, key=gw.key
    )
    return CosmosStore.open(settings, SCHEMA)


async def _writer(gw: FakeCosmos) -> Any:
    client = CosmosClient(gw.endpoint, credential=gw.key)
    return client, client.get_database_client(DB).get_container_client(COLL)


async def _drain(store: CosmosStore, scope: TtlScope, mode: FeedMode, token: str) -> ChangePage:
    """Read until a page is not modified; every change of the reads, in order."""
    changes = []
    for _ in range(20):
        page = await store.read_changes(scope, mode=mode, continuation=token)
        changes.extend(page.changes)
        token = page.continuation or token
        if page.not_modified:
            return ChangePage(tuple(changes), token, mode, not_modified=not changes)
    raise AssertionError("the feed never said it was caught up")


async def test_all_versions_shows_every_write_delete_and_purge_in_order(fake: FakeCosmos) -> None:
    _container(fake, purge_lag_s=600)
    store = _store(fake)
    client, writer = await _writer(fake)
    try:
        first = await store.read_changes(TtlScope(), mode=FeedMode.ALL_VERSIONS)
        assert first.changes == () and first.not_modified and first.continuation
        await writer.create_item(_turn(ACME, "t1", 1, "hello"))
        fake.clock.advance(5)
        await writer.upsert_item(_turn(ACME, "t1", 1, "hello", ttl=60))  # a ttl set
        await writer.create_item(_turn(GLOBEX, "g1", 1, "other tenant"))
        await writer.delete_item("g1-1", partition_key=[GLOBEX, "g1"])
        page = await _drain(store, TtlScope(), FeedMode.ALL_VERSIONS, first.continuation)
        # Commit order: LSNs are per partition, so items of two partitions are ordered
        # by commit time only; one item's versions by LSN.
        times = [c.commit_time for c in page.changes]
        assert times == sorted(times)
        by_item = {i: [c.op for c in page.changes if c.item_id == i] for i in ("t1-1", "g1-1")}
        assert by_item == {
            "t1-1": [ChangeOp.CREATE, ChangeOp.REPLACE],
            "g1-1": [ChangeOp.CREATE, ChangeOp.DELETE],
        }
        assert len(page.changes) == 4
        create, replace = [c for c in page.changes if c.item_id == "t1-1"]
        delete = next(c for c in page.changes if c.op is ChangeOp.DELETE)
        assert replace.previous_lsn == create.lsn and replace.ttl == 60
        assert replace.digest == create.digest  # a ttl reset, not an edit
        assert create.commit_time == START and replace.commit_time == START + 5
        assert delete.ref == ThreadRef(Key.of(GLOBEX), Key.of("g1")) and delete.ts is None
        assert create.ref == ThreadRef(Key.of(ACME), Key.of("t1")) and create.order == 1

        # Expired at START+65: invisible at once, purged only 600 s later.
        fake.clock.advance(120)
        quiet = await store.read_changes(
            TtlScope(), mode=FeedMode.ALL_VERSIONS, continuation=page.continuation
        )
        assert quiet.changes == () and quiet.not_modified
        fake.clock.advance(600)
        purged = await _drain(store, TtlScope(), FeedMode.ALL_VERSIONS, quiet.continuation or "")
        assert [(c.op, c.item_id) for c in purged.changes] == [(ChangeOp.EXPIRED, "t1-1")]
        gone = purged.changes[0]
        assert gone.ttl_expired and gone.previous_lsn == replace.lsn
        assert gone.commit_time == START + 5 + 120 + 600  # the purge's time, not the expiry's
    finally:
        await client.close()
        await store.close()


async def test_scopes_read_their_own_partitions(fake: FakeCosmos) -> None:
    _container(fake)
    store = _store(fake)
    client, writer = await _writer(fake)
    acme = TtlScope.of_tenant(Key.of(ACME))
    thread = TtlScope.of_thread(ThreadRef(Key.of(ACME), Key.of("t2")))
    try:
        starts = {
            name: await store.read_changes(scope, mode=FeedMode.ALL_VERSIONS)
            for name, scope in (("acme", acme), ("thread", thread))
        }
        for thread_id in ("t1", "t2", "t3", "t4"):
            await writer.create_item(_turn(ACME, thread_id, 1, "x"))
        await writer.create_item(_turn(GLOBEX, "t2", 1, "same thread name, other tenant"))
        tenant_page = await _drain(store, acme, FeedMode.ALL_VERSIONS, starts["acme"].continuation)
        thread_page = await _drain(
            store, thread, FeedMode.ALL_VERSIONS, starts["thread"].continuation
        )
        assert sorted(c.item_id for c in tenant_page.changes) == ["t1-1", "t2-1", "t3-1", "t4-1"]
        assert all(c.ref and c.ref.tenant == Key.of(ACME) for c in tenant_page.changes)
        assert [(c.ref, c.item_id) for c in thread_page.changes] == [
            (ThreadRef(Key.of(ACME), Key.of("t2")), "t2-1")
        ]
        # acme spans two physical ranges: the tenant's reads went to both.
        ranges = {e.range_id for e in fake.log.of("feed") if e.operation == "change-feed"}
        assert len(fake.ranges_of_prefix(DB, COLL, [ACME])) == 2
        assert set(fake.ranges_of_prefix(DB, COLL, [ACME])) <= ranges
    finally:
        await client.close()
        await store.close()


async def test_latest_version_from_the_beginning_and_a_time(fake: FakeCosmos) -> None:
    _container(fake)
    fake.seed(DB, COLL, [_turn(ACME, "t1", i, f"turn {i}") for i in range(1, 4)])
    store = _store(fake)
    client, writer = await _writer(fake)
    try:
        everything = await _drain_from(store, FeedStart.beginning())
        assert sorted(c.item_id for c in everything.changes) == ["t1-1", "t1-2", "t1-3"]
        assert {c.op for c in everything.changes} == {ChangeOp.WRITE}
        fake.clock.advance(100)
        await writer.upsert_item(_turn(ACME, "t1", 2, "edited"))
        later = await _drain_from(store, FeedStart.at_time(START + 50))
        assert [c.item_id for c in later.changes] == ["t1-2"]
        assert later.changes[0].commit_time == START + 100  # latest version: its _ts
        # From the continuation: the edit once more is a new write; a delete is invisible.
        await writer.upsert_item(_turn(ACME, "t1", 3, "edited too"))
        await writer.delete_item("t1-1", partition_key=[ACME, "t1"])
        after = await _drain(store, TtlScope(), FeedMode.LATEST, later.continuation or "")
        assert [c.item_id for c in after.changes] == ["t1-3"]
    finally:
        await client.close()
        await store.close()


async def _drain_from(store: CosmosStore, start: FeedStart) -> ChangePage:
    first = await store.read_changes(TtlScope(), mode=FeedMode.LATEST, start=start)
    rest = await _drain(store, TtlScope(), FeedMode.LATEST, first.continuation or "")
    return ChangePage(first.changes + rest.changes, rest.continuation, FeedMode.LATEST)


async def test_max_items_pages_and_every_change_comes_once(fake: FakeCosmos) -> None:
    _container(fake)
    store = _store(fake)
    client, writer = await _writer(fake)
    try:
        first = await store.read_changes(TtlScope(), mode=FeedMode.ALL_VERSIONS)
        written = [_turn(ACME + i % 3, f"t{i % 5}", i, "x") for i in range(23)]
        for item in written:
            await writer.create_item(item)
        token, seen, sizes, lsns = first.continuation, [], [], []
        for _ in range(40):
            page = await store.read_changes(
                TtlScope(), mode=FeedMode.ALL_VERSIONS, continuation=token, max_items=4
            )
            sizes.append(len(page.changes))
            seen.extend(c.item_id for c in page.changes)
            lsns.extend(c.lsn for c in page.changes)
            token = page.continuation
            if page.not_modified:
                break
        assert max(sizes) <= 4
        assert sorted(seen) == sorted(i["id"] for i in written)  # none lost, none twice
        # The fake's LSNs are the container's: the four ranges' pages came out merged.
        assert lsns == sorted(lsns)
    finally:
        await client.close()
        await store.close()


async def test_a_split_keeps_the_position(fake: FakeCosmos) -> None:
    _container(fake)
    store = _store(fake)
    client, writer = await _writer(fake)
    try:
        first = await store.read_changes(TtlScope(), mode=FeedMode.ALL_VERSIONS)
        await writer.create_item(_turn(ACME, "t1", 1, "before"))
        page = await _drain(store, TtlScope(), FeedMode.ALL_VERSIONS, first.continuation)
        assert [c.item_id for c in page.changes] == ["t1-1"]
        target = fake.container(DB, COLL)
        owner = fake.range_of(DB, COLL, [ACME, "t1"])
        rng = target.range_by_id(owner)
        assert rng is not None
        fake.split(DB, COLL, owner, target.key.epk([ACME, "t1"])[:-2] + "00")
        await writer.create_item(_turn(ACME, "t1", 2, "after"))
        after = await _drain(store, TtlScope(), FeedMode.ALL_VERSIONS, page.continuation or "")
        assert [c.item_id for c in after.changes] == ["t1-2"]
    finally:
        await client.close()
        await store.close()


async def test_every_request_is_ledgered_low_priority_with_its_scope(fake: FakeCosmos) -> None:
    _container(fake)
    store = _store(fake)
    try:
        await store.read_changes(TtlScope(), mode=FeedMode.LATEST)
        records = [r for r in store.ledger.records() if r.operation == "change-feed"]
        assert len(records) == 4  # one per physical partition: a fan-out
        assert {r.kind for r in records} == {Kind.QUERY}
        assert {r.scope for r in records} == {Scope.RANGE}
        assert all(r.request_units > 0 and r.status == 304 for r in records)
        feed = [e for e in fake.log.of("feed") if e.operation == "change-feed"]
        assert len(feed) == 4 and {e.priority for e in feed} == {"Low"}
        assert {e.headers.get("a-im") for e in feed} == {"Incremental Feed"}
        await store.read_changes(
            TtlScope.of_thread(ThreadRef(Key.of(ACME), Key.of("t1"))), mode=FeedMode.ALL_VERSIONS
        )
        sent = [e for e in fake.log.of("feed") if e.operation == "change-feed"][-1]
        assert sent.headers.get("a-im") == "Full-Fidelity Feed"
        assert sent.headers.get("x-ms-cosmos-changefeed-wire-format-version") == "2021-09-15"
        thread = [r for r in store.ledger.records() if r.operation == "change-feed"][-1]
        assert thread.scope is Scope.PARTITION
    finally:
        await store.close()


async def test_a_container_without_all_versions_says_what_to_enable(fake: FakeCosmos) -> None:
    _container(fake, all_versions=False)
    store = _store(fake)
    try:
        with pytest.raises(FeedUnavailable) as raised:
            await store.read_changes(TtlScope(), mode=FeedMode.ALL_VERSIONS)
        assert raised.value.fix == ALL_VERSIONS_FIX
        assert "continuous backup" in raised.value.fix and "merge" in raised.value.fix
        latest = await store.read_changes(TtlScope(), mode=FeedMode.LATEST)  # still served
        assert latest.not_modified
    finally:
        await store.close()


async def test_starts_the_mode_does_not_allow_are_refused(fake: FakeCosmos) -> None:
    _container(fake)
    store = _store(fake)
    try:
        for start in (FeedStart.beginning(), FeedStart.at_time(START)):
            with pytest.raises(ValueError):
                await store.read_changes(TtlScope(), mode=FeedMode.ALL_VERSIONS, start=start)
        latest = await store.read_changes(TtlScope(), mode=FeedMode.LATEST)
        with pytest.raises(ValueError):  # a continuation is of its own mode and scope
            await store.read_changes(
                TtlScope(), mode=FeedMode.ALL_VERSIONS, continuation=latest.continuation
            )
        with pytest.raises(ValueError):
            await store.read_changes(
                TtlScope.of_tenant(Key.of(ACME)),
                mode=FeedMode.LATEST,
                continuation=latest.continuation,
            )
        assert not [r for r in store.ledger.records() if r.operation == "change-feed"][4:]
    finally:
        await store.close()


async def test_a_position_past_the_retention_window_is_unavailable(fake: FakeCosmos) -> None:
    _container(fake, retention_s=3600)
    store = _store(fake)
    client, writer = await _writer(fake)
    try:
        first = await store.read_changes(TtlScope(), mode=FeedMode.ALL_VERSIONS)
        await writer.create_item(_turn(ACME, "t1", 1, "soon forgotten"))
        fake.clock.advance(7200)
        with pytest.raises(FeedUnavailable) as raised:
            await _drain(store, TtlScope(), FeedMode.ALL_VERSIONS, first.continuation or "")
        assert "retention" in raised.value.reason
    finally:
        await client.close()
        await store.close()


async def test_an_items_own_fields_never_pass_for_feed_metadata(fake: FakeCosmos) -> None:
    _container(fake)
    store = _store(fake)
    client, writer = await _writer(fake)
    thread = TtlScope.of_thread(ThreadRef(Key.of(ACME), Key.of("t1")))
    forged = {
        "operationType": "delete",
        "lsn": 1,
        "crts": 1,
        "id": "someone-else",
        "partitionKey": {"tenantId": GLOBEX, "threadId": "g1"},
    }
    try:
        starts = {
            mode: await store.read_changes(thread, mode=mode)
            for mode in (FeedMode.LATEST, FeedMode.ALL_VERSIONS)
        }
        await writer.create_item(
            _turn(ACME, "t1", 1, "\x1b[31mred\x1b[0m [b]x[/b]", metadata=forged, current={})
        )
        latest = await _drain(store, thread, FeedMode.LATEST, starts[FeedMode.LATEST].continuation)
        every = await _drain(
            store, thread, FeedMode.ALL_VERSIONS, starts[FeedMode.ALL_VERSIONS].continuation
        )
        assert [(c.op, c.item_id) for c in latest.changes] == [(ChangeOp.WRITE, "t1-1")]
        assert [(c.op, c.item_id) for c in every.changes] == [(ChangeOp.CREATE, "t1-1")]
        # The text is kept as written: escaping is for where it is drawn.
        assert "\x1b[31mred" in every.changes[0].preview
    finally:
        await client.close()
        await store.close()


async def test_a_hot_partition_is_read_in_part_pages_in_order(fake: FakeCosmos) -> None:
    _container(fake)
    store = _store(fake)
    try:
        first = await store.read_changes(TtlScope(), mode=FeedMode.LATEST)
        hot = [_turn(ACME, "hot", i, "x") for i in range(130)]
        cold = [_turn(GLOBEX + i, f"c{i}", 1, "y") for i in range(7)]
        target = fake.container(DB, COLL)
        with fake.store.lock:
            for n, item in enumerate(hot):  # interleaved, one clock second each
                target.write(item, START + n, mode="create")
                if n % 20 == 0:
                    target.write(cold[n // 20], START + n, mode="create")
        token, lsns, sizes = first.continuation, [], []
        for _ in range(20):
            page = await store.read_changes(
                TtlScope(), mode=FeedMode.LATEST, continuation=token, max_items=100
            )
            lsns.extend(c.lsn for c in page.changes)
            sizes.append(len(page.changes))
            token = page.continuation
            if page.not_modified:
                break
        assert len(lsns) == len(set(lsns)) == 137
        assert lsns == sorted(lsns)
        assert max(sizes) <= 100 and len([s for s in sizes if s]) >= 2
    finally:
        await store.close()


async def test_a_write_between_a_page_and_its_settling_read_loses_nothing(
    fake: FakeCosmos,
) -> None:
    """A read that hands out only the start of a part's page reads those rows again for
    the position after them; when an item among them was written meanwhile (latest
    version moves it on), the part keeps its position and skips what went out."""
    from cosmem_tui.sources.cosmos.feed_position import FeedPosition

    fake.create_container(DB, COLL, partition_key=["/tenantId", "/threadId"], ranges=2)
    store = _store(fake)
    target = fake.container(DB, COLL)
    keys: dict[str, list[Any]] = {}
    for n in range(40):  # one key in each of the two ranges
        key = [ACME + n, f"k{n}"]
        keys.setdefault(fake.range_of(DB, COLL, key), key)
    (a_key, b_key) = list(keys.values())[:2]
    try:
        first = await store.read_changes(TtlScope(), mode=FeedMode.LATEST)
        with fake.store.lock:
            for i in range(3):  # a0, b0, a1, b1, a2, b2: the two ranges interleaved
                target.write(_turn(a_key[0], a_key[1], i, "a"), START, mode="create")
                target.write(_turn(b_key[0], b_key[1], i, "b"), START, mode="create")
        reads = []

        def rewrite_a0(entry: Any) -> None:
            if entry.operation == "change-feed" and entry.max_item_count == 3:
                reads.append(entry)
                if len(reads) == 2:  # both parts read, before either settles
                    with fake.store.lock:
                        again = _turn(a_key[0], a_key[1], 0, "a again")
                        target.write(again, START, mode="upsert")

        fake.app.on_request = rewrite_a0
        page = await store.read_changes(
            TtlScope(), mode=FeedMode.LATEST, continuation=first.continuation, max_items=3
        )
        fake.app.on_request = None
        assert len(page.changes) == 3
        skipped = [p for p in FeedPosition.decode(page.continuation or "").parts if p.skip]
        assert len(skipped) == 1  # the part whose rows moved kept its page
        rest = await _drain(store, TtlScope(), FeedMode.LATEST, page.continuation or "")
        seen = [(c.item_id, c.preview) for c in (*page.changes, *rest.changes)]
        a0 = f"{a_key[1]}-0"
        assert sorted(seen) == sorted(
            [(a0, "a"), (a0, "a again")]
            + [(f"{k[1]}-{i}", t) for k, t in ((a_key, "a"), (b_key, "b")) for i in range(3)
               if (k, i) != (a_key, 0)]
        )  # fmt: skip
    finally:
        await store.close()


async def test_a_429_storm_loses_and_repeats_nothing_and_every_attempt_is_ledgered(
    fake: FakeCosmos,
) -> None:
    """Half the feed's requests answered 429 (acme split over two ranges): the SDK's
    retries and the merge still hand out every change once, in order; the throttled
    attempts are in the ledger at low priority."""
    _container(fake)
    store = _store(fake)
    client, writer = await _writer(fake)
    try:
        first = await store.read_changes(TtlScope(), mode=FeedMode.ALL_VERSIONS)
        written = [_turn(ACME + i % 3, f"t{i % 7}", i, "x") for i in range(60)]
        for item in written:
            await writer.create_item(item)
        fake.faults.storm(0.5, seed=11, kind="feed", retry_after_ms=5)
        token, seen, lsns = first.continuation, [], []
        for _ in range(200):
            page = await store.read_changes(
                TtlScope(), mode=FeedMode.ALL_VERSIONS, continuation=token, max_items=7
            )
            seen.extend(c.item_id for c in page.changes)
            lsns.extend(c.lsn for c in page.changes)
            token = page.continuation
            if page.not_modified:
                break
        assert sorted(seen) == sorted(i["id"] for i in written)  # none lost, none twice
        assert lsns == sorted(lsns)
        sent = [e for e in fake.log.of("feed") if e.operation == "change-feed"]
        assert any(e.throttled for e in sent), "the storm never reached the feed"
        assert {e.priority for e in sent} == {"Low"}
        # One ledger record per attempt the fake saw, the 429s among them.
        feed = [r for r in store.ledger.records() if r.operation == "change-feed"]
        assert len(feed) == len(sent)
        assert sum(r.status == 429 for r in feed) == sum(e.throttled for e in sent)
    finally:
        await client.close()
        await store.close()
