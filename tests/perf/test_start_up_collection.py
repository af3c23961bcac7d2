"""The collector held off while the console loads, and started again once it is loaded.

Counts, not times: the entrance's start makes no garbage collection before the first
frame (``first_frame.py`` counts them), and every way out of the start (a headless
command, the TUI's first frame) runs the collector again, with what start-up loaded
frozen.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from cosmem_tui.cli import main
from cosmem_tui.core.startup import collection_held, hold_collection, release_collection
from tests.perf.test_first_frame_imports import first_frame


@pytest.fixture
def collector() -> Iterator[None]:
    """Whatever a test holds or freezes, the next test finds the collector as it was."""
    yield
    release_collection()
    gc.unfreeze()
    gc.enable()


def test_no_garbage_collection_before_the_first_frame(tmp_path: Path):
    seen = first_frame(tmp_path)
    assert seen["collections"] == [], "collections before the first frame, by generation"


def test_holding_then_releasing_freezes_what_was_loaded(collector: None):
    hold_collection()
    assert not gc.isenabled() and collection_held()
    release_collection()
    assert gc.isenabled() and not collection_held()
    assert gc.get_freeze_count() > 0  # the modules loaded so far: never scanned again


def test_releasing_what_was_not_held_changes_nothing(collector: None):
    release_collection()
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_headless_command_runs_with_the_collector(
    collector: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("COSMEM_CONFIG", str(tmp_path / "cosmem.toml"))
    hold_collection()  # as the entrance does
    assert main(["config", "path"]) == 0
    assert gc.isenabled() and not collection_held()
