"""The tail and the history use cases on every backend, end to end through the store.

``test_changes.py`` holds each backend's feed to the contract; this module runs what
the console builds on it — ``core.tail.Tail`` (the ``:tail`` view and ``cosmem tail``)
and ``core.history.HistoryService`` (browse's ``i`` and ``cosmem history``) — over the
same writes. Where the container serves all versions (the local log, the fake gateway)
the history tells created, each replace and the removal, with an expiry's two times;
where it does not (the npm peer refuses all versions with a 400, as an account without
continuous backup does), the history falls back to the latest version and says what is
invisible and how to enable it, rather than showing a short, confident timeline.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cosmem_tui.core.feed_bookmarks import FeedBookmarks, feed_identity
from cosmem_tui.core.history import HistoryService
from cosmem_tui.core.tail import TAIL_CAUSE, Tail
from cosmem_tui.model import Clock, Scope, SystemClock, ThreadRef
from cosmem_tui.model.changes import ChangeOp, FeedMode, FeedUnavailable
from cosmem_tui.model.history import TTL as TTL_FIELD
from cosmem_tui.model.history import ItemState, NoteKind
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.sources.store import MemoryStore
from tests.contract.backends import Backend, LocalBackend
from tests.contract.change_writes import ChangeWrites
from tests.contract.conftest import BACKENDS, open_backend
from tests.contract.test_changes import feed_backend_param, feed_of, seeded
from tests.helpers import exchange

REF = ThreadRef.of("acme", "t5")
CONTAINER = TtlScope.container()


def clock_of(backend: Backend) -> Clock:
    """The clock the backend's writes are stamped by (the store's ``now``)."""
    if isinstance(backend, LocalBackend):
        return backend.clock
    fake = getattr(backend, "fake", None)
    return fake.clock if fake is not None else SystemClock()


@pytest.fixture(params=[feed_backend_param(name) for name in BACKENDS])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    instance = open_backend(request.param, request, tmp_path)
    yield instance
    await instance.close()


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    """Where the test's feed positions are kept (the user cache dir's stand-in)."""
    return tmp_path / "feed-positions"


def history_of(store: MemoryStore, clock: Clock, root: Path) -> HistoryService:
    return HistoryService(store, clock, FeedBookmarks(root, feed_identity(store)))


async def test_a_tail_shows_each_new_change_once_newest_first_as_background_work(
    backend: Backend,
    writers: list[ChangeWrites],
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    mode = FeedMode.ALL_VERSIONS if writes.all_versions else FeedMode.LATEST
    tail = Tail(store, CONTAINER, mode, clock=clock_of(backend))
    first = await tail.poll()
    assert first.fresh == ()  # from now: what was there before is not news
    recorded = len(store.ledger.records())
    await writes.create(exchange("acme", "t8", 0), exchange("globex", "g8", 0))
    await backend.advance(1)
    await writes.create(exchange("acme", "t8", 1))
    polled = await tail.poll()
    assert [c.item_id for c in polled.fresh] == ["t8-1", "g8-0", "t8-0"]
    assert polled.pages >= 1 and polled.request_units > 0
    again = await tail.poll()
    assert again.fresh == ()  # resumed from its continuation: no row twice
    assert [c.item_id for c in tail.window] == ["t8-1", "g8-0", "t8-0"]
    polls = store.ledger.records()[recorded:]
    assert polls and all(r.operation == "change-feed" for r in polls)
    assert all(r.cause == TAIL_CAUSE and r.background for r in polls)
    assert tail.summary().changes == 3


async def test_an_all_versions_tail_labels_deletes_and_ttl_purges_or_is_refused_with_the_fix(
    backend: Backend,
    writers: list[ChangeWrites],
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    tail = Tail(store, TtlScope.of_thread(REF), FeedMode.ALL_VERSIONS, clock=clock_of(backend))
    if not writes.all_versions:
        with pytest.raises(FeedUnavailable) as refused:
            await tail.poll()
        assert "continuous backup" in refused.value.fix  # what the view's fallback says
        return
    await tail.poll()
    await writes.create(exchange("acme", "t5", 0, ttl=5), exchange("acme", "t5", 1, ttl=-1))
    await writes.delete(("acme", "t5"), "t5-1")
    await backend.advance(30)
    assert await writes.purge_expired() == 1
    polled = await tail.poll()
    assert [(c.op, c.item_id) for c in polled.fresh] == [
        (ChangeOp.EXPIRED, "t5-0"),
        (ChangeOp.DELETE, "t5-1"),
        (ChangeOp.CREATE, "t5-1"),
        (ChangeOp.CREATE, "t5-0"),
    ]
    assert polled.fresh[0].ttl_expired and not polled.fresh[1].ttl_expired


async def test_a_history_tells_every_version_and_an_expiry_with_both_times_or_what_it_cannot(
    backend: Backend,
    writers: list[ChangeWrites],
    marks: Path,
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    clock = clock_of(backend)
    service = history_of(store, clock, marks)
    first = await service.history(REF)  # all versions: saves where the feed is now
    await writes.create(exchange("acme", "t5", 0, ttl=600), exchange("acme", "t5", 1, ttl=5))
    await backend.advance(2)
    await writes.replace(exchange("acme", "t5", 0, text="edited", ttl=1200))
    await writes.create(exchange("acme", "t5", 2, ttl=-1))
    await writes.delete(("acme", "t5"), "t5-2")
    before = len(store.ledger.records())
    if not writes.all_versions:
        # The npm peer, like an account without continuous backup: refused, so the
        # latest version from the feed's beginning, and the console says what is missing.
        assert first.mode is FeedMode.LATEST and first.events == ()
        history = await service.history(REF, "t5-0")
        assert history.mode is FeedMode.LATEST
        assert history.invisible is not None and history.fix is not None
        assert "continuous backup" in history.fix
        invisible = [n.text for n in history.notes if n.kind is NoteKind.INVISIBLE]
        assert len(invisible) == 1 and "deletes and TTL expirations are invisible" in invisible[0]
        assert history.fix in invisible[0]  # the note says how to enable it
        # Only the newest version, told as a write (a create is not told from a replace).
        ((op, ttl, preview),) = [(e.op, e.ttl, e.preview) for e in history.events]
        assert (op, ttl) == (ChangeOp.WRITE, 1200) and preview.startswith("edited 0")
        assert history.item is not None and history.item.state is ItemState.PRESENT
        assert history.item.ttl == 1200
        # A deleted item: the feed holds nothing of it; the history says so, not "never".
        deleted = await service.history(REF, "t5-2")
        assert deleted.events == () and deleted.gone == frozenset()
        assert deleted.item is not None and deleted.item.state is ItemState.ABSENT
        assert any(n.kind is NoteKind.INVISIBLE for n in deleted.notes)
        thread = await service.history(REF)
        assert sorted(e.item_id for e in thread.events) == ["t5-0", "t5-1"]
        assert {e.op for e in thread.events} == {ChangeOp.WRITE}
    else:
        assert first.mode is FeedMode.ALL_VERSIONS and first.invisible is None
        await backend.advance(30)
        assert await writes.purge_expired() == 1
        history = await service.history(REF)
        assert history.mode is FeedMode.ALL_VERSIONS and history.invisible is None
        assert [(e.op, e.item_id) for e in history.events] == [
            (ChangeOp.CREATE, "t5-0"),
            (ChangeOp.CREATE, "t5-1"),
            (ChangeOp.REPLACE, "t5-0"),
            (ChangeOp.CREATE, "t5-2"),
            (ChangeOp.DELETE, "t5-2"),
            (ChangeOp.EXPIRED, "t5-1"),
        ]
        created, short, replaced, _, _, expired = history.events
        assert replaced.ttl_reset and TTL_FIELD in replaced.changed
        assert "content" in replaced.changed and replaced.ttl_before == 600
        # Both times of the expiry: the last version's _ts + ttl, and the purge's commit.
        assert short.expires_at is not None and expired.expires_at == short.expires_at
        assert expired.purged_at is not None and expired.purged_at >= expired.expires_at + 25
        assert history.gone == frozenset({"t5-1", "t5-2"})
        assert history.since is not None and history.since <= created.time
        one = await service.history(REF, "t5-1")
        assert [e.op for e in one.events] == [ChangeOp.CREATE, ChangeOp.EXPIRED]
        assert one.item is not None and one.item.state is ItemState.ABSENT
    reads = [r for r in store.ledger.records()[before:] if r.operation == "change-feed"]
    # One thread is one partition key: never a fan-out over the container's ranges.
    assert reads and all(r.scope is Scope.PARTITION for r in reads)


async def test_a_history_that_reads_from_now_says_it_is_silent_before(
    backend: Backend,
    writers: list[ChangeWrites],
    marks: Path,
) -> None:
    store, writes = await feed_of(backend, writers, seeded())
    history = await history_of(store, clock_of(backend), marks).history(ThreadRef.of("acme", "t1"))
    if writes.all_versions:
        # The seeded turns were written before any position: all versions cannot read
        # back to them, and the history says where it is silent instead of "no changes".
        assert history.events == ()
        silent = [n for n in history.notes if n.kind is NoteKind.SILENT]
        assert silent and "starts only now" in silent[0].text
    else:
        # Latest version reads from the beginning: the seeded turns, newest version each.
        assert sorted(e.item_id for e in history.events) == ["t1-0", "t1-1", "t1-2"]
