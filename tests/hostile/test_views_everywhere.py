"""Every view of the real app over the hostile workspace: nothing crashes, nothing acts.

Browse walks every tenant down to the detail (its keys, ids, order, kind, ttl, roles,
content and metadata all hostile), then every other view and the help are shown.
After each step the whole screen, as the terminal would get it, holds no character
that could act on a terminal and none of the corpus' escapes, and the markup is on
screen as its literal text.
"""

from __future__ import annotations

from pathlib import Path

from cosmem_tui.ui.views import VIEWS
from cosmem_tui.ui.views.browse.levels import Level
from tests.hostile.corpus import BY_NAME, STORABLE, dangerous, leaks
from tests.ui.conftest import AppFactory, cells, screen_text, settle

TENANTS = len(STORABLE) + 4  # each value, everything, and the three odd keys


def inert(text: str, where: object) -> None:
    assert dangerous(text, newlines=True) == [], where
    assert leaks(text.encode("utf-8", "surrogatepass")) == [], where


async def test_every_view_over_hostile_content(hostile_workspace: Path, make_app: AppFactory):
    app = make_app(hostile_workspace, demo=False)
    seen: list[str] = []
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        assert len(cells(app, "tenants")) == TENANTS
        for row in range(TENANTS):
            for _ in range(3):  # the tenant → its thread → its first turn → the detail
                await pilot.press("enter")
                await settle(pilot)
                seen.append(screen_text(app))
                inert(seen[-1], (row, app.browse.level))
            assert app.browse.level is Level.DETAIL, row
            await pilot.press("j")  # the next turn's detail (the 1 MB one in everything)
            await settle(pilot)
            inert(screen_text(app), row)
            await pilot.press("escape", "escape", "escape")
            await settle(pilot)
            assert app.browse.level is Level.TENANTS
            await pilot.press("j")
            await settle(pilot)
        for spec in VIEWS:
            app.action_switch_view(spec.name)
            await settle(pilot)
            seen.append(screen_text(app))
            inert(seen[-1], spec.name)
        await pilot.press("question_mark")
        await settle(pilot)
        inert(screen_text(app), "help")
    everything = "\n".join(seen)
    assert BY_NAME["markup"].value[:40] in everything  # the literal markup, not bold red
    assert "CANARY-big" in everything
    for h in STORABLE:
        assert h.shown[:12] in everything, h.name
