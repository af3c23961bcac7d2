"""The live demo through the real app: its workload writes only the demo, only while it is
shown, and what it writes shows in browse; ``--still`` leaves the file as built."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cosmem_tui.compose import open_local_session
from cosmem_tui.core.demo.generator import DemoShape, build_demo_workspace
from cosmem_tui.core.session import SessionOptions, default_workspace_path
from cosmem_tui.model.changes import ChangeOp
from cosmem_tui.ui.app import CosmemApp
from tests.conftest import ANCHOR
from tests.ui.conftest import cells, settle

SMALL = DemoShape(threads=150, mean_turns=8)


@pytest.fixture
def own_demo(tmp_path: Path) -> Path:
    """A small demo build where the console keeps its own demo (the user data dir)."""
    built = tmp_path / "built.sqlite"
    build_demo_workspace(built, ANCHOR, shape=SMALL)
    target = default_workspace_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built, target)
    return target


def counts(app: CosmemApp) -> dict[str, str]:
    return {row[0]: row[1] for row in cells(app, "threads")}


async def test_the_live_demo_s_thread_counts_grow_after_ticks(own_demo, clock):
    app = CosmemApp(SessionOptions(), clock=clock)  # the demo, live: as `cosmem` opens it
    app.live_tick_s = 3600.0  # the test ticks it
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.live_demo is not None and app.live_demo.running
        await pilot.press("colon", *"tenant contoso", "enter")
        await settle(pilot)
        before = counts(app)
        assert before and all(c.isdigit() for c in before.values())
        app.live_demo.tick()  # starts the workload's clock
        await settle(pilot)
        clock.advance(300)  # five minutes, the hot tenant's first burst in them
        app.live_demo.tick()
        await settle(pilot)
        assert app.live_demo.live.written[ChangeOp.CREATE] > 0
        await pilot.press("r")  # reload the thread list
        await settle(pilot)
        after = counts(app)
        grown = [t for t in before if int(after[t]) > int(before[t])]
        assert grown, "no thread of the hot tenant grew"
    assert app.live_demo is None  # stopped with the session


@pytest.mark.parametrize(
    "options",
    [SessionOptions(live_demo=False), SessionOptions()],
    ids=["still", "a user's workspace"],
)
async def test_still_or_not_the_demo_the_file_stays_byte_identical(
    own_demo, tmp_path, clock, options
):
    if options.live_demo:  # the same build opened as a user's workspace (--workspace)
        mine = tmp_path / "mine.sqlite"
        shutil.copyfile(own_demo, mine)
        options = SessionOptions(workspace=mine)
        watched = mine
    else:
        watched = own_demo
    before = watched.read_bytes()
    app = CosmemApp(options, clock=clock)
    app.live_tick_s = 0.05
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.live_demo is None
        for _ in range(5):
            clock.advance(120)
            await pilot.pause(0.06)
        await settle(pilot)
    assert watched.read_bytes() == before


async def test_live_the_same_steps_change_the_file(own_demo, clock):
    """The counterpart of the test above: without --still those steps do write."""
    before = own_demo.read_bytes()
    app = CosmemApp(SessionOptions(), clock=clock)
    app.live_tick_s = 0.05
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.live_demo is not None
        for _ in range(5):
            clock.advance(120)
            await pilot.pause(0.06)
        await settle(pilot)
        assert app.live_demo.live.ticks > 0
    assert own_demo.read_bytes() != before


def test_only_the_demo_session_has_a_live_workload(own_demo, tmp_path, clock):
    mine = tmp_path / "mine.sqlite"
    shutil.copyfile(own_demo, mine)
    cases = {
        "the demo": (SessionOptions(), True),
        "the demo, still": (SessionOptions(live_demo=False), False),
        "a user's workspace": (SessionOptions(workspace=mine), False),
    }
    for name, (options, live) in cases.items():
        session = open_local_session(options, clock)
        try:
            assert (session.build_live_demo is not None) is live, name
        finally:
            import asyncio

            asyncio.run(session.close())
