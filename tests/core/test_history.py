"""The history use case on a real workspace: one scoped read series through the ledger,
bounded by its read budget, read through a tenant's position when only that is saved,
never through the container's."""

from __future__ import annotations

from pathlib import Path

from cosmem_tui.compose.local import open_local_session
from cosmem_tui.core.feed_bookmarks import FeedBookmarks, feed_identity
from cosmem_tui.core.history import HistoryService
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.model import FrozenClock, Scope, ThreadRef
from cosmem_tui.model.changes import FeedMode, FeedStart
from cosmem_tui.model.history import NoteKind
from cosmem_tui.model.keys import Key
from cosmem_tui.model.lifecycle import TtlScope
from tests.helpers import build_workspace, exchange
from tests.test_cli_history import _write

REF = ThreadRef(Key.of("acme"), Key.of("t1"))
ALL = FeedMode.ALL_VERSIONS


async def _session(tmp_path: Path, clock: FrozenClock) -> Session:
    items = [exchange("acme", "t1", 0, ttl=-1), exchange("acme", "t2", 0, ttl=-1)]
    path = build_workspace(tmp_path / "w.sqlite", items, now=int(clock.now()) - 60)
    return open_local_session(SessionOptions(workspace=path), clock)


async def _position(session: Session, marks: FeedBookmarks, scope: TtlScope, at: int) -> None:
    page = await session.store.read_changes(scope, mode=ALL, start=FeedStart.now())
    assert page.continuation is not None
    marks.save(scope, ALL, page.continuation, at)


async def test_a_long_history_stops_at_its_read_budget_and_says_so(
    tmp_path: Path, clock: FrozenClock
) -> None:
    session = await _session(tmp_path, clock)
    try:
        marks = FeedBookmarks(tmp_path / "cache", feed_identity(session.store))
        t0 = int(clock.now())
        await _position(session, marks, TtlScope.of_thread(REF), t0)
        path = tmp_path / "w.sqlite"
        _write(path, t0, lambda b: [b.create(exchange("acme", "t1", i)) for i in range(1, 9)])
        service = HistoryService(session.store, session.clock, marks, max_reads=2, page_size=3)
        before = len(session.ledger.records())
        history = await service.history(REF)
        assert not history.complete and history.requests == 2
        assert [e.item_id for e in history.events] == [f"t1-{i}" for i in range(1, 7)]
        assert any(n.kind is NoteKind.STOPPED for n in history.notes)
        reads = [r for r in session.ledger.records()[before:] if r.operation == "change-feed"]
        assert len(reads) == 2 and all(r.scope is Scope.PARTITION for r in reads)
        # with room, the same history reads to the end of the feed
        whole = await HistoryService(session.store, session.clock, marks).history(REF)
        assert whole.complete and len(whole.events) == 8
    finally:
        await session.close()


async def test_a_tenants_position_serves_its_threads_and_the_containers_never_does(
    tmp_path: Path, clock: FrozenClock
) -> None:
    session = await _session(tmp_path, clock)
    try:
        marks = FeedBookmarks(tmp_path / "cache", feed_identity(session.store))
        t0 = int(clock.now())
        await _position(session, marks, TtlScope.container(), t0 - 100)
        await _position(session, marks, TtlScope.of_tenant(REF.tenant), t0)  # type: ignore[arg-type]
        _write(
            tmp_path / "w.sqlite",
            t0,
            lambda b: [b.create(exchange("acme", t, 5)) for t in ("t1", "t2")],
        )
        service = HistoryService(session.store, session.clock, marks)
        before = len(session.ledger.records())
        history = await service.history(REF)
        assert [e.item_id for e in history.events] == ["t1-5"]  # t2's change is read, not kept
        assert history.since == t0  # the tenant's position, not the container's older one
        reads = [r for r in session.ledger.records()[before:] if r.operation == "change-feed"]
        assert reads and all(r.scope is Scope.PREFIX for r in reads)
        assert any("tenant's position" in n.text for n in history.notes)
        # another tenant's thread: no position of its own or its tenant's, so from now
        other = await service.history(ThreadRef(Key.of("beta"), Key.of("t9")))
        assert other.since == t0 and not other.events
        assert any("none was saved" in n.text for n in other.notes)
        assert any("not read for one thread" in n.text for n in other.notes)
    finally:
        await session.close()
