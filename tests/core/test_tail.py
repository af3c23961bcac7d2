"""The tail over the real local workspace and its change log: what a poll reads, what it
costs, where it stops, and that a row is never shown twice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.compose import open_local_session
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.core.tail import TAIL_CAUSE, Tail
from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.model.changes import ChangeOp, FeedMode, FeedStart
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from tests.helpers import build_workspace, exchange

NOW = 1_800_000_000


def write(path: Path, now: int, body: Callable[[Any], None]) -> None:
    """Writes through the workspace's guarded writer, each with its change logged."""
    writer = WorkspaceWriter.open(path)
    try:
        with writer.changes(get_schema("lab"), now) as batch:
            body(batch)
    finally:
        writer.close()


def session_on(path: Path, clock: FrozenClock, **options: Any) -> Session:
    return open_local_session(SessionOptions(workspace=path, **options), clock)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    items = [exchange("acme", "t1", 0), exchange("acme", "t2", 0), exchange("globex", "g1", 0)]
    return build_workspace(tmp_path / "ws.sqlite", items, now=NOW - 3600)


def creates(batch: Any, tenant: object, thread: str, start: int, n: int, **extra: Any) -> None:
    for index in range(start, start + n):
        batch.create(exchange(tenant, thread, index, **extra))  # type: ignore[arg-type]


async def test_a_tail_from_now_reads_what_is_written_after_it_started(workspace):
    clock = FrozenClock(NOW)
    session = session_on(workspace, clock)
    try:
        tail = Tail(session.store, TtlScope.of_tenant(Key.of("acme")), FeedMode.LATEST, clock=clock)
        first = await tail.poll()
        assert first.fresh == ()  # the build's items are history: from now is from now
        write(workspace, NOW + 1, lambda b: creates(b, "acme", "t1", 1, 3))
        write(workspace, NOW + 1, lambda b: creates(b, "globex", "g1", 1, 2))  # not in scope
        clock.advance(2)
        polled = await tail.poll()
        assert [c.item_id for c in polled.fresh] == ["t1-3", "t1-2", "t1-1"]  # newest first
        assert all(c.op is ChangeOp.WRITE for c in polled.fresh)  # latest version: no create
        assert polled.fresh[0].ref == ThreadRef.of("acme", "t1")
        assert polled.fresh[0].preview.startswith("hello 3") and polled.fresh[0].role == "user"
        assert [c.item_id for c in tail.window] == ["t1-3", "t1-2", "t1-1"]
        # Every page was a request in the ledger, caused by the tail's poll.
        records = [r for r in session.ledger.records() if r.cause == TAIL_CAUSE]
        assert len(records) == tail.pages and all(r.operation == "change-feed" for r in records)
        assert tail.request_units == pytest.approx(sum(r.request_units for r in records))
        summary = tail.summary()
        assert summary.changes == 3 and summary.top[0].writer == Key.of("acme")
    finally:
        await session.close()


async def test_a_busy_scope_is_read_in_pages_within_one_poll(workspace):
    clock = FrozenClock(NOW)
    session = session_on(workspace, clock)
    try:
        tail = Tail(session.store, TtlScope.container(), FeedMode.LATEST, clock=clock, max_items=10)
        await tail.poll()
        write(workspace, NOW + 1, lambda b: creates(b, "acme", "t9", 0, 35))
        clock.advance(1)
        polled = await tail.poll()
        assert len(polled.fresh) == 35 and polled.pages == 4  # 10 + 10 + 10 + 5
        assert [c.item_id for c in polled.fresh][:2] == ["t9-34", "t9-33"]
        # At most max_pages a poll: the rest comes with the next one, nothing lost.
        tail.max_pages = 2
        write(workspace, NOW + 2, lambda b: creates(b, "acme", "t9", 100, 35))
        clock.advance(1)
        assert len((await tail.poll()).fresh) == 20
        assert len((await tail.poll()).fresh) == 15
        assert tail.changes == 70 and tail.window.duplicates == 0
    finally:
        await session.close()


async def test_a_continuation_read_again_shows_no_row_twice(workspace):
    clock = FrozenClock(NOW)
    session = session_on(workspace, clock)
    try:
        tail = Tail(session.store, TtlScope.container(), FeedMode.LATEST, clock=clock)
        await tail.poll()
        resume_from = tail.continuation
        write(workspace, NOW + 1, lambda b: creates(b, "acme", "t1", 1, 5))
        clock.advance(1)
        assert len((await tail.poll()).fresh) == 5
        tail.continuation = resume_from  # a restart from an older saved continuation
        write(workspace, NOW + 2, lambda b: creates(b, "acme", "t1", 6, 2))
        clock.advance(1)
        again = await tail.poll()
        assert [c.item_id for c in again.fresh] == ["t1-7", "t1-6"]
        assert tail.window.duplicates == 5 and len(tail.window) == 7
    finally:
        await session.close()


async def test_all_versions_shows_replaces_deletes_and_ttl_purges(workspace):
    clock = FrozenClock(NOW)
    session = session_on(workspace, clock)
    try:
        scope = TtlScope.of_thread(ThreadRef.of("acme", "t1"))
        tail = Tail(session.store, scope, FeedMode.ALL_VERSIONS, clock=clock)
        assert tail.note is None
        await tail.poll()

        def story(batch: Any) -> None:
            batch.create(exchange("acme", "t1", 1, ttl=5))
            batch.replace(exchange("acme", "t1", 1, ttl=60))
            batch.delete(("acme", "t1"), "t1-0")
            batch.create(exchange("acme", "t1", 2, ttl=1))

        write(workspace, NOW + 1, story)
        write(workspace, NOW + 10, lambda b: b.purge(("acme", "t1"), "t1-2"))
        clock.advance(11)
        polled = await tail.poll()
        ops = [(c.op, c.item_id) for c in reversed(polled.fresh)]
        assert ops == [
            (ChangeOp.CREATE, "t1-1"),
            (ChangeOp.REPLACE, "t1-1"),
            (ChangeOp.DELETE, "t1-0"),
            (ChangeOp.CREATE, "t1-2"),
            (ChangeOp.EXPIRED, "t1-2"),
        ]
        assert polled.fresh[0].ttl_expired and polled.fresh[0].ref == ThreadRef.of("acme", "t1")
    finally:
        await session.close()


async def test_all_versions_refuses_to_start_from_the_beginning(workspace):
    clock = FrozenClock(NOW)
    session = session_on(workspace, clock)
    try:
        with pytest.raises(ValueError, match="starts only now"):
            Tail(
                session.store,
                TtlScope.container(),
                FeedMode.ALL_VERSIONS,
                clock=clock,
                start=FeedStart.beginning(),
            )
        tail = Tail(
            session.store,
            TtlScope.container(),
            FeedMode.LATEST,
            clock=clock,
            start=FeedStart.beginning(),
        )
        assert {c.item_id for c in (await tail.poll()).fresh} == {"t1-0", "t2-0", "g1-0"}
        assert tail.note is not None and "not visible" in tail.note
    finally:
        await session.close()


async def test_at_the_budget_the_tail_stops_quietly_and_says_so(workspace):
    clock = FrozenClock(NOW)
    session = session_on(workspace, clock)
    session.ledger.set_budget(session.ledger.totals().request_units + 200.0)
    try:
        tail = Tail(session.store, TtlScope.container(), FeedMode.LATEST, clock=clock, max_items=5)
        stopped = None
        for second in range(1, 200):
            write(workspace, NOW + second, lambda b, s=second: creates(b, "acme", f"b{s}", 0, 50))
            clock.advance(1)
            polled = await tail.poll()
            if polled.stopped is not None:
                stopped = polled
                break
        assert stopped is not None, "the tail never met the budget"
        assert "budget" in stopped.stopped
        sent = len(session.ledger.records())
        again = await tail.poll()  # stopped: nothing is sent any more, and it still says so
        assert again.stopped == stopped.stopped and again.pages == 0
        assert len(session.ledger.records()) == sent
        assert len(tail.window) > 0 and tail.polls > 1  # what it read before stays
    finally:
        await session.close()


async def test_resumed_after_the_budget_the_tail_asks_before_each_step(workspace):
    clock = FrozenClock(NOW)
    session = session_on(workspace, clock)
    questions = []
    answer = [True]

    async def confirm(question):
        questions.append(question)
        return answer[0]

    session.ledger.set_confirmer(confirm)
    budget = session.ledger.totals().request_units + 60.0
    session.ledger.set_budget(budget)
    try:
        tail = Tail(session.store, TtlScope.container(), FeedMode.LATEST, clock=clock, max_items=5)

        async def poll_until_stopped(first_second):
            for second in range(first_second, first_second + 400):
                write(
                    workspace, NOW + second, lambda b, s=second: creates(b, "acme", f"r{s}", 0, 9)
                )
                clock.advance(1)
                polled = await tail.poll()
                if polled.stopped is not None:
                    return second, polled
            raise AssertionError(
                f"the tail never stopped: {len(questions)} asked, {tail.request_units:.1f} RU"
            )

        second, _ = await poll_until_stopped(1)
        assert questions == []  # background polls stop quietly: nobody is asked
        tail.resume()
        read_before = tail.changes
        stopped_at = second
        for second in range(stopped_at + 1, stopped_at + 40):  # each yes grants a budget step
            write(workspace, NOW + second, lambda b, s=second: creates(b, "acme", f"y{s}", 0, 9))
            clock.advance(1)
            assert (await tail.poll()).stopped is None
        assert len(questions) >= 2 and tail.changes > read_before
        assert session.ledger.totals().request_units > budget
        answer[0] = False
        asked = len(questions)
        _, refused = await poll_until_stopped(second + 1)
        assert len(questions) == asked + 1  # the next step was asked for, and refused
        assert "not run" in refused.stopped
        sent = len(session.ledger.records())
        assert (await tail.poll()).pages == 0 and len(session.ledger.records()) == sent
    finally:
        await session.close()


async def test_while_held_off_a_poll_sends_nothing(workspace):
    clock = FrozenClock(NOW)
    session = session_on(workspace, clock)
    try:
        tail = Tail(session.store, TtlScope.container(), FeedMode.LATEST, clock=clock)
        await tail.poll()
        sent = len(session.ledger.records())
        session.ledger.hold_off.throttled(5_000)
        held = await tail.poll()
        assert held.held_off_s > 0 and held.pages == 0 and held.fresh == ()
        assert len(session.ledger.records()) == sent
    finally:
        await session.close()


async def test_an_all_versions_tail_leaves_its_first_position_for_the_history(workspace, tmp_path):
    from cosmem_tui.core.tail import tail_bookmarks

    clock = FrozenClock(NOW)
    session = session_on(workspace, clock)
    try:
        marks = tail_bookmarks(session.store, tmp_path)
        scope = TtlScope.container()
        latest = Tail(session.store, scope, FeedMode.LATEST, clock=clock, bookmarks=marks)
        await latest.poll()
        assert marks.saved(scope, FeedMode.LATEST) == []  # only all versions needs one
        tail = Tail(session.store, scope, FeedMode.ALL_VERSIONS, clock=clock, bookmarks=marks)
        await tail.poll()
        first = tail.continuation
        write(workspace, NOW + 1, lambda b: creates(b, "acme", "bm", 0, 3))
        clock.advance(1)
        await tail.poll()
        saved = marks.saved(scope, FeedMode.ALL_VERSIONS)
        assert [b.continuation for b in saved] == [first] and saved[0].by == "tail"
        assert saved[0].saved_at == NOW
    finally:
        await session.close()
