"""What the console does once its first frame is on the terminal."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from cosmem_tui.core.startup import collection_held, hold_collection, release_collection
from cosmem_tui.ui.views.browse.threads import ThreadColumn


@pytest.fixture
def held_collector() -> Iterator[None]:
    hold_collection()  # as the entrance does before it loads the console
    yield
    release_collection()
    gc.unfreeze()
    gc.enable()


async def test_the_first_frame_starts_the_collector_again(held_collector, make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert gc.isenabled() and not collection_held()
        assert gc.get_freeze_count() > 0


async def test_the_hidden_columns_wait_for_the_first_data(make_app, demo_path, monkeypatch):
    """Threads, turns and the turn's pane are mounted once the tenant list is on screen
    and counted, not while the first data is on its way (they compete for the CPU)."""
    app = make_app(demo_path)
    made: list[tuple[bool, int]] = []  # (listed, rows counted) as each hidden column is made
    make = ThreadColumn.__init__

    def recording(self: ThreadColumn, *args: object, **kwargs: object) -> None:
        rows = app.browse.keys
        made.append((rows is not None, rows.counted if rows is not None else 0))
        make(self, *args, **kwargs)

    monkeypatch.setattr(ThreadColumn, "__init__", recording)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            await pilot.pause(0.02)
            if app.browse.query("#threads"):
                break
        assert len(made) == 1
        listed, counted = made[0]
        assert listed and counted > 0, made
        assert app.browse.query("#turns") and app.browse.query("#detail")


async def test_notices_stay_above_the_status_line_and_the_hints(make_app, demo_path):
    """The notices' margin is the app's CSS now (no view screen has CSS of its own)."""
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        app.notify("a notice")
        await pilot.pause()
        rack = app.screen.query_one("#textual-toastrack")  # Textual's own, on every screen
        assert rack.styles.margin.bottom == 2  # the status line and the hints stay readable
