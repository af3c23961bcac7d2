"""What the console does once its first frame is on the terminal."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from cosmem_tui.core.startup import collection_held, hold_collection, release_collection


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
