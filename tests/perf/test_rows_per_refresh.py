"""Rows formatted per refresh, held by counts that do not depend on the machine.

A refresh (browse's ``r``, a live view's ``ctrl+r``, the lifecycle's ``r``) may ask for
new data, but it formats only the rows on screen: every list is drawn line by line
(``RowList``), so a view that formatted its whole table on each refresh would cost
100,000 rows a refresh at 100,000 keys. Each view's row source is counted while one
refresh runs, on a list longer than the screen: the rows it formats are rows on screen,
no more of them than the screen's lines. (A refresh may repaint a row more than once,
as its counts arrive; an answer equal to the one shown repaints nothing.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.model import FrozenClock
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views.advise.screen import FindingRows
from cosmem_tui.ui.views.browse.rows import KeyRows, ThreadRows, TurnRows
from cosmem_tui.ui.views.doctor.screen import CapabilityRows
from cosmem_tui.ui.views.hot.rows import HotRows
from cosmem_tui.ui.views.lifecycle.rows import LifecycleRows
from cosmem_tui.ui.views.requests.screen import LedgerRows
from cosmem_tui.ui.widgets.row_list import RowList
from tests.ui.conftest import settle
from tests.ui.telemetry_sources import KeyTable
from tests.ui.test_telemetry_views import make

# Every row source a view hands its list: a new one joins here.
SOURCES = (
    KeyRows,
    ThreadRows,
    TurnRows,
    LedgerRows,
    HotRows,
    LifecycleRows,
    FindingRows,
    CapabilityRows,
)


@pytest.fixture
def formatted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[tuple[str, int]]]:
    """Rows formatted, by (source class, row index), from now on."""
    counts: Counter[tuple[str, int]] = Counter()
    for source in SOURCES:
        original = source.row

        def counting(self: Any, index: int, _original: Any = original) -> Any:
            counts[type(self).__name__, index] += 1
            return _original(self, index)

        monkeypatch.setattr(source, "row", counting)
    yield counts


def kinds(formatted: Counter[tuple[str, int]]) -> set[str]:
    return {name for name, _ in formatted}


def on_screen(app: CosmemApp) -> int:
    """Lines of every list the screen shows: what one repaint may format."""
    return sum(rows.size.height for rows in app.screen.query(RowList) if rows.display)


def longest(app: CosmemApp) -> RowList:
    return max(app.screen.query(RowList), key=lambda rows: rows.row_count)


async def refresh_formats_the_screen(
    pilot: Any, app: CosmemApp, key: str, formatted: Counter[tuple[str, int]]
) -> None:
    await settle(pilot)
    table = longest(app)
    assert table.row_count > table.size.height  # a list longer than the screen
    formatted.clear()
    await pilot.press(key)
    await settle(pilot)
    assert len(formatted) <= on_screen(app), sorted(formatted)
    top = int(table.scroll_y)
    shown = {table.source_index(p) for p in range(top, top + table.size.height)}
    own = type(table.source).__name__
    off_screen = sorted(i for name, i in formatted if name == own and i not in shown)
    assert not off_screen, f"rows formatted off screen: {off_screen[:10]}"


async def test_browse_reload_formats_the_rows_on_screen(
    demo_path: Path, clock: FrozenClock, formatted: Counter[tuple[str, int]]
) -> None:
    app = make(demo_path, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await refresh_formats_the_screen(pilot, app, "r", formatted)
        assert "KeyRows" in kinds(formatted)  # the reload did redraw the tenants


async def test_a_hot_keys_refresh_at_100_000_keys_formats_the_rows_on_screen(
    demo_path: Path, clock: FrozenClock, formatted: Counter[tuple[str, int]]
) -> None:
    tenants = [f"tenant-{n:06d}" for n in range(1, 100_001)]
    table = KeyTable(tenants, clock)
    app = make(demo_path, clock, source=lambda _: table, top=100_000)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        table.tenants[0] = "tenant-new"  # the next answer differs: the refresh redraws
        await refresh_formats_the_screen(pilot, app, "ctrl+r", formatted)
        assert "HotRows" in kinds(formatted)


async def test_the_request_ledger_refresh_formats_the_rows_on_screen(
    demo_path: Path, clock: FrozenClock, formatted: Counter[tuple[str, int]]
) -> None:
    app = make(demo_path, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(3):  # a ledger longer than the screen: tenants opened and counted
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("escape", "down")
        await pilot.press("R")
        await settle(pilot)
        assert app.session is not None
        newest = app.session.ledger.records()[-1]
        app.session.ledger.record(replace(newest, seq=0))  # news for the refresh to show
        await refresh_formats_the_screen(pilot, app, "ctrl+r", formatted)
        assert "LedgerRows" in kinds(formatted)


async def test_the_lifecycle_reload_formats_the_rows_on_screen(
    demo_path: Path, clock: FrozenClock, formatted: Counter[tuple[str, int]]
) -> None:
    app = make(demo_path, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await refresh_formats_the_screen(pilot, app, "r", formatted)
        assert "LifecycleRows" in kinds(formatted)
