"""A turn whose time no calendar holds (epoch milliseconds in an epoch-s field, a ``_ts``
past the year 9999): the console lists it, opens it, exports and copies it, and says
"out of range" where the time would be; before, ``e`` and ``y`` ended the app."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosmem_tui.schemas import get_schema
from cosmem_tui.ui.views.browse.levels import Level
from tests.conftest import ANCHOR
from tests.fixtures.odd_times import EPOCH_MS, LATE_TS, dotnet_message
from tests.helpers import build_workspace
from tests.ui.conftest import cells, settle

pytestmark = pytest.mark.usefixtures("frozen_system_time")


@pytest.fixture
def exports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "exports"
    monkeypatch.setenv("COSMEM_EXPORT_DIR", str(where))
    return where


def workspace(tmp_path: Path) -> Path:
    items = [
        dotnet_message(0, "in milliseconds", timestamp=EPOCH_MS),
        dotnet_message(1, "last write past the calendar", _ts=LATE_TS, ttl=3600),
        dotnet_message(2, "an ordinary turn"),
    ]
    return build_workspace(
        tmp_path / "times.sqlite", items, now=ANCHOR, schema=get_schema("maf-dotnet")
    )


async def test_times_off_the_calendar_are_listed_opened_exported_and_copied(
    make_app, tmp_path, exports
):
    app = make_app(workspace(tmp_path), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        (thread,) = cells(app, "tenants")  # a schema without tenants lists its threads
        assert thread[0] == "conv-1" and thread[2] == "?"  # last active: off the calendar
        app.run_command("thread conv-1")
        await settle(pilot)
        assert app.browse.level is Level.TURNS
        rows = cells(app, "turns")
        assert len(rows) == 3
        assert any("⚠ bad time" in row for row in rows)
        await pilot.press("e", "j")  # the export writes every time (null when off it)
        await settle(pilot)
        assert len(list(exports.glob("*.json"))) == 1
        for _ in range(3):  # copy each row, open it, read it, copy from the detail
            await pilot.press("y", "enter")
            await settle(pilot)
            await pilot.press("y", "v")
            await settle(pilot)
            await pilot.press("escape", "escape")
            await settle(pilot)
            await pilot.press("j")
            await settle(pilot)
        await pilot.press("L")  # the lifecycle view: the soonest to expire, idle threads
        await settle(pilot)
        await pilot.press("B")
        await settle(pilot)
        assert app.is_running and app.return_code is None
        said = " | ".join(n.message for n in app._notifications)
        assert "exported 3 turns" in said and "copied" in said, said
