"""The demo's live workload over a small demo workspace, driven tick by tick by a test clock."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from cosmem_tui.core.demo.generator import DemoShape, build_demo_workspace
from cosmem_tui.core.demo.live import (
    CREATES_PER_TURN,
    PURGE_LAG_S,
    LiveDemo,
    protected_keys,
)
from cosmem_tui.core.demo.manifest import DemoManifest
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.changes import ChangeOp, FeedMode
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local import LocalStore, Workspace
from cosmem_tui.sources.local.demo_writer import (
    DemoWorkspaceWriter,
    LiveBatch,
    LiveChange,
    LiveWrite,
    NotTheDemo,
)
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.simulated.rhythm import MINUTE_S
from cosmem_tui.sources.simulated.telemetry import SimulatedTelemetry
from cosmem_tui.sources.simulated.workload import DEFAULT_SEED
from cosmem_tui.sources.simulated.writes import tenant_writes
from tests.conftest import ANCHOR

SMALL = DemoShape(threads=150, mean_turns=8)
CONTAINER = TtlScope.container()
TICK_S = 5
BURST = (ANCHOR + 60, ANCHOR + 240)  # the first burst: 45 s after the anchor, 210 s long
CALM = (ANCHOR + 300, ANCHOR + 900)  # until the next, 15 minutes after the first


@pytest.fixture
def small_demo(tmp_path: Path) -> tuple[Path, DemoManifest]:
    path = tmp_path / "demo.sqlite"
    return path, build_demo_workspace(path, ANCHOR, shape=SMALL)


class Run:
    """A live workload over a workspace, a reader beside it, and everything it wrote."""

    def __init__(self, path: Path, manifest: DemoManifest) -> None:
        self.clock = FrozenClock(ANCHOR)
        self.reader = Workspace.open(path)
        self.telemetry = SimulatedTelemetry.from_workspace(
            self.reader,
            hot_tenant=manifest.hot_tenant,
            ledger=RequestLedger(clock=self.clock),
            clock=self.clock,
        )
        self.live = LiveDemo(
            DemoWorkspaceWriter.open_demo(path),
            self.telemetry.workload,
            clock=self.clock,
            manifest=manifest,
            seed=DEFAULT_SEED,
        )
        self.changes: list[LiveChange] = []
        self.expiry: dict[str, int | None] = dict(
            self.reader._db.execute("SELECT id, expires_at FROM items").fetchall()
        )

    def ticks(self, count: int, every: int = TICK_S) -> None:
        self.live.step()  # starts the workload's clock at the first tick
        for _ in range(count):
            self.clock.advance(every)
            applied = self.live.step()
            if applied is None:
                continue
            for change in applied.changes:
                self.changes.append(change)
                if change.op in (ChangeOp.CREATE, ChangeOp.REPLACE):
                    self.expiry[change.item_id] = self.reader._db.execute(
                        "SELECT expires_at FROM items WHERE id = ?", (change.item_id,)
                    ).fetchone()[0]

    def close(self) -> None:
        self.live.close()
        self.reader.close()


@pytest.fixture
def run(small_demo):
    started = Run(*small_demo)
    yield started
    started.close()


def test_counts_move_and_every_kind_of_change_is_written_in_time_order(run):
    before = run.reader.item_count()
    run.ticks(20 * 60 // TICK_S)  # twenty minutes, the first burst in them
    kinds = Counter(c.op for c in run.changes)
    assert kinds[ChangeOp.CREATE] > 100
    assert kinds[ChangeOp.REPLACE] > 0 and kinds[ChangeOp.DELETE] > 0
    assert kinds[ChangeOp.EXPIRED] > 0
    gone = kinds[ChangeOp.DELETE] + kinds[ChangeOp.EXPIRED]
    assert run.reader.item_count() == before + kinds[ChangeOp.CREATE] - gone
    times = [c.at for c in run.changes]
    assert times == sorted(times)
    assert all(ANCHOR < at <= run.clock.now() for at in times)


async def test_the_change_log_holds_every_write_in_commit_order(run):
    """Read back as a tail reads it: the workspace's change feed, all versions mode."""
    store = LocalStore(
        run.reader,
        get_schema("lab"),
        ledger=RequestLedger(clock=run.clock, budget_ru=1e9),
        clock=run.clock,
    )
    start = await store.read_changes(CONTAINER, mode=FeedMode.ALL_VERSIONS)
    run.ticks(20 * 60 // TICK_S)
    feed, continuation = [], start.continuation
    while True:
        page = await store.read_changes(
            CONTAINER, mode=FeedMode.ALL_VERSIONS, continuation=continuation, max_items=1000
        )
        feed.extend(page.changes)
        continuation = page.continuation
        if not page.changes:
            break
    assert [(c.op, c.item_id, c.commit_time) for c in feed] == [
        (c.op, c.item_id, c.at) for c in run.changes
    ]
    assert {c.op for c in feed} == {
        ChangeOp.CREATE,
        ChangeOp.REPLACE,
        ChangeOp.DELETE,
        ChangeOp.EXPIRED,
    }
    lsns = [c.lsn for c in feed]
    assert lsns == sorted(lsns) and len(set(lsns)) == len(lsns)
    assert [c.commit_time for c in feed] == sorted(c.commit_time for c in feed)
    assert all(c.ttl_expired == (c.op is ChangeOp.EXPIRED) for c in feed)
    replaced = next(c for c in feed if c.op is ChangeOp.REPLACE)
    assert replaced.previous_lsn is not None and replaced.ts == replaced.commit_time


def test_every_purge_lags_the_expiry_it_follows(run):
    run.ticks(20 * 60 // TICK_S)
    purges = [c for c in run.changes if c.op is ChangeOp.EXPIRED]
    assert purges
    for purge in purges:
        expiry = run.expiry[purge.item_id]
        assert expiry is not None and expiry > ANCHOR  # expired since the demo was built
        assert purge.at - expiry >= PURGE_LAG_S[0]
    lags = {purge.at - run.expiry[purge.item_id] for purge in purges}
    assert len(lags) > 1  # drawn per item, not one constant


def test_the_hot_tenant_writes_the_largest_share_and_bursts_when_the_telemetry_does(
    run, small_demo
):
    _, manifest = small_demo
    run.ticks(20 * 60 // TICK_S)
    creates = Counter(c.key[0] for c in run.changes if c.op is ChangeOp.CREATE)
    top, count = creates.most_common(1)[0]
    assert top == manifest.hot_tenant and count > sum(creates.values()) / 3
    # Per minute of the burst, the hot tenant writes several times what it writes calm.
    hot = [c.at for c in run.changes if c.op is ChangeOp.CREATE and c.key[0] == top]
    in_burst = sum(BURST[0] <= at < BURST[1] for at in hot) / ((BURST[1] - BURST[0]) / 60)
    calm = sum(CALM[0] <= at < CALM[1] for at in hot) / ((CALM[1] - CALM[0]) / 60)
    assert in_burst > 3 * calm


def test_the_writes_are_the_telemetry_s_creates_sampled(run):
    """One rhythm: per tenant, the turns written follow the Create requests the simulated
    telemetry says it served, one turn per CREATES_PER_TURN."""
    run.ticks(30 * 60 // TICK_S)
    workload = run.telemetry.workload()
    served: Counter[object] = Counter()
    for minute in range(ANCHOR // MINUTE_S, int(run.clock.now()) // MINUTE_S):
        for found in tenant_writes(workload, minute):
            served[workload.keys.tenants[found.tenant].values[0]] += found.creates
    written = Counter(
        c.key[0] for c in run.changes if c.op is ChangeOp.CREATE and c.at < run.clock.now()
    )
    for tenant, count in written.most_common(3):
        expected = served[tenant] / CREATES_PER_TURN
        assert abs(count - expected) <= 3 * expected**0.5 + 3, tenant


def test_planted_threads_are_never_written(run, small_demo):
    _, manifest = small_demo
    planted = protected_keys(manifest)
    assert len(planted) >= 3
    run.ticks(20 * 60 // TICK_S)
    assert not [c for c in run.changes if tuple(c.key) in planted]


def test_a_read_only_reader_sees_the_writes(run, small_demo):
    path, _ = small_demo
    header = path.read_bytes()[:20]
    assert header[18] == header[19] == 1  # a rollback journal: readers see each commit
    opened_before = Workspace.open(path)  # mode=ro, never immutable on such a file
    try:
        count = opened_before.item_count()
        run.ticks(60 // TICK_S)
        created = next(c for c in run.changes if c.op is ChangeOp.CREATE)
        params = {"pk": _pk(created), "id": created.item_id, "now": int(run.clock.now())}
        row = opened_before.query("read_item", params)
        assert row and opened_before.item_count() != count
    finally:
        opened_before.close()
    assert path.read_bytes()[18:20] == b"\x01\x01"  # still not WAL after the writes


def _pk(change: LiveChange) -> str:
    from cosmem_tui.sources.local.keys import pk_text

    return pk_text(change.key)


def test_two_consoles_never_write_the_same_second_twice(small_demo):
    path, manifest = small_demo
    first, second = Run(path, manifest), Run(path, manifest)
    try:
        first.live.step()
        second.clock = first.clock
        second.live._clock = first.clock
        first.clock.advance(120)
        wrote = first.live.step()
        assert wrote is not None and wrote.changes
        after_first = path.read_bytes()
        assert second.live.step() is None  # the span is written: nothing is due
        assert path.read_bytes() == after_first
        # A batch planned before the other console wrote: dropped inside the transaction.
        late = LiveBatch(ANCHOR, int(first.clock.now()), [], lambda _: 30, ANCHOR, 20, 10)
        assert second.live._writer.apply(late).through is None
        assert path.read_bytes() == after_first
    finally:
        first.close()
        second.close()


def test_a_tick_that_fails_half_way_writes_nothing(small_demo):
    path, manifest = small_demo
    run = Run(path, manifest)
    writer = run.live._writer
    try:
        run.live.step()
        through = writer.live_through()
        before = path.read_bytes()
        made = 0

        def make(tail, at):
            nonlocal made
            made += 1
            if made == 3:
                raise KeyboardInterrupt  # ctrl+c inside the transaction
            return {**tail[0], "id": f"new-{made}", "turnIndex": 10_000 + made, "_ts": at}

        key = next(k for k in run.telemetry.workload().keys.values if k[0] == "contoso")
        writes = [LiveWrite(through + 1 + n, ChangeOp.CREATE, key, make) for n in range(5)]
        batch = LiveBatch(through, through + 10, writes, lambda _: 30, ANCHOR, 20, 10)
        with pytest.raises(KeyboardInterrupt):
            writer.apply(batch)
        assert writer.live_through() == through
        assert path.read_bytes() == before  # rolled back whole
    finally:
        run.close()


def test_closed_it_writes_nothing_more(run, small_demo):
    path, _ = small_demo
    run.ticks(2)
    run.live.close()
    before = path.read_bytes()
    run.clock.advance(600)
    assert run.live.step() is None
    assert path.read_bytes() == before


def test_only_the_demo_s_own_file_is_opened_for_writing(tmp_path, small_demo):
    path, _ = small_demo
    imported = tmp_path / "mine.sqlite"
    with sqlite3.connect(path) as source, sqlite3.connect(imported) as copy:
        source.backup(copy)
    with sqlite3.connect(imported) as db:
        db.execute("DELETE FROM meta WHERE key = 'demo_manifest'")  # a user's workspace
    before = imported.read_bytes()
    with pytest.raises(NotTheDemo, match="not the demo workspace"):
        DemoWorkspaceWriter.open_demo(imported)
    assert imported.read_bytes() == before
