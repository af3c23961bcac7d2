"""The footer keeps whole hints: at 80 columns the last ones go, none is cut in half."""

from __future__ import annotations

import shutil

from textual.widgets import Static

from cosmem_tui.ui.widgets.hint_line import fit_hints
from tests.ui.conftest import settle
from tests.ui.test_advise_and_writes import writable_app


def footer(app) -> list[str]:  # type: ignore[no-untyped-def]
    return app.screen.query_one("#hints", Static).render().plain.strip().split(" · ")


def test_fit_hints_drops_whole_hints():
    parts = ["⏎ open", "esc back", "e export"]
    assert fit_hints(parts, 100) == "⏎ open · esc back · e export"
    assert fit_hints(parts, 20) == "⏎ open · esc back"  # "· e" would read as a key
    assert fit_hints(parts, 3) == ""


async def test_the_footer_at_80_columns_ends_on_a_whole_hint(demo_path, make_app):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = app.screen.query_one("#hints", Static).render().plain.strip()
        parts = app.registry.hint_parts("browse", app.screen.hint_applies)
        assert shown == " · ".join(parts[: shown.count(" · ") + 1])
        assert len(shown) < len(" · ".join(parts))  # 80 columns cannot hold them all
        await pilot.resize_terminal(200, 40)
        await settle(pilot)
        assert app.screen.query_one("#hints", Static).render().plain.strip() == " · ".join(parts)


async def test_a_hint_is_shown_only_where_its_key_does_something(
    demo_path, tmp_path, clock, isolated_user_dirs
):
    copy = tmp_path / "demo.sqlite"
    shutil.copy(demo_path, copy)
    app = writable_app(copy, clock, allow_writes=True)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        # The tenant list: nothing to pin, nothing to go back to, no thread to erase.
        shown = footer(app)
        assert "⏎ open" in shown
        assert "P pin" not in shown and "X erase" not in shown and "esc back" not in shown
        await pilot.press("enter")  # a tenant's threads: a thread can be erased
        await settle(pilot)
        shown = footer(app)
        assert "esc back" in shown and "X erase" in shown and "P pin" not in shown
        await pilot.press("enter")  # a thread's turns: a turn can be pinned
        await settle(pilot)
        assert {"esc back", "X erase", "P pin"} <= set(footer(app))
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert "P pin" not in footer(app) and "esc back" not in footer(app)
        # The ledger has no level above it: Esc says back only while a filter is set.
        await pilot.press("R")
        await settle(pilot)
        assert "esc back" not in footer(app)
        await pilot.press("slash", *"count", "enter")
        await settle(pilot)
        assert "esc back" in footer(app)
        await pilot.press("escape")
        await settle(pilot)
        assert "esc back" not in footer(app)
