"""The footer keeps whole hints: at 80 columns the last ones go, none is cut in half."""

from __future__ import annotations

from textual.widgets import Static

from cosmem_tui.ui.widgets.hint_line import fit_hints
from tests.ui.conftest import settle


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
        parts = app.registry.hint_parts("browse")
        assert shown == " · ".join(parts[: shown.count(" · ") + 1])
        assert len(shown) < len(" · ".join(parts))  # 80 columns cannot hold them all
        await pilot.resize_terminal(200, 40)
        await settle(pilot)
        assert app.screen.query_one("#hints", Static).render().plain.strip() == " · ".join(parts)
