"""The turn list's gap markers on a real listing: a turn whose order value is the
string "7" is listed (after every number, as the store orders it), so no marker says
a turn between 6 and 8 is missing."""

from __future__ import annotations

from cosmem_tui.ui.views.browse.screen import BrowseScreen
from tests.helpers import build_workspace, exchange
from tests.ui.conftest import cells, settle


async def test_a_turn_numbered_by_text_is_listed_not_missing(make_app, tmp_path, clock):
    values = [0, 1, 2, 3, 4, 5, 6, "7", 8, 9, 12]  # 10 and 11 are gone
    items = [exchange("acme", "t1", v, id=f"t1-{v}") for v in values]
    path = build_workspace(tmp_path / "w.sqlite", items, now=int(clock.now()))
    app = make_app(path, demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("thread acme t1")
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)
        rows = cells(app, "turns")
        orders = [r[0] for r in rows]
        markers = [r[3] for r in rows if r[0] == "⋯"]
        # The store's order: numbers, then the string; one marker, for 10 and 11.
        assert orders == ["0", "1", "2", "3", "4", "5", "6", "8", "9", "⋯", "12", '"7"']
        assert markers == ["⋯ 2 turns missing — expired or deleted · i history"]
        assert "11 of 11 loaded · 2 missing" in str(app.browse.turn_column.border_subtitle)


async def test_the_demos_malformed_thread_marks_only_the_turns_that_are_gone(
    make_app, demo_path, manifest
):
    """turnIndex 0, 3 … 6, 8 … 13 and the string "7": 1 and 2 are missing, 7 is not."""
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command(f"thread {manifest.malformed['tenant']} {manifest.malformed['thread']}")
        await settle(pilot)
        rows = cells(app, "turns")
        assert [r[3] for r in rows if r[0] == "⋯"] == [
            "⋯ 2 turns missing — expired or deleted · i history"
        ]
        assert [r[0] for r in rows][-1] == '"7"'
