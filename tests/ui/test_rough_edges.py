"""Browse rough edges: keys sent in a burst to the help overlay, the columns following
``:thread``, filters that match nothing, and one numbering of turns."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Static

from cosmem_tui.ui.browse import BrowseScreen
from cosmem_tui.ui.help import HelpScreen
from cosmem_tui.ui.widgets.row_list import RowList
from tests.ui.conftest import burst, settle


def status(app) -> str:
    return app.screen.query_one("#status", Static).render().plain


def tenants(app) -> RowList:
    return app.screen.query_one("#tenants", RowList)


async def test_keys_sent_in_a_burst_after_question_mark_reach_the_help(make_app, demo_path):
    """``? j j j q`` as a slow link delivers it: the help opens, scrolls, closes; the list
    under it does not move and the app does not quit."""
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, "question_mark", "j", "j", "j")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.query_one(VerticalScroll).scroll_y == 3
        burst(app, "q")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, BrowseScreen)
        assert tenants(app).cursor == 0
        # The same with Pilot, every key pressed without a pause between them.
        await pilot.press("question_mark", "j", "j", "q", "j")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, BrowseScreen)
        assert tenants(app).cursor == 1  # the last j, after the help closed, moved the list
        await pilot.press("question_mark", "question_mark")  # ? again closes it
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)


def title(app, list_id: str) -> str:
    return str(app.screen.query_one(f"#{list_id}", RowList).border_title)


def first_line(app, list_id: str) -> str:
    return app.screen.query_one(f"#{list_id}", RowList).render_line(1).text.strip()


async def test_a_filter_that_matches_nothing_says_so_and_titles_count_what_is_shown(
    make_app, demo_path, manifest
):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert title(app, "tenants") == "tenants (48)"
        await pilot.press("slash", *"north", "enter")
        assert title(app, "tenants") == "tenants · 2 of 48"
        await pilot.press("escape")
        assert title(app, "tenants") == "tenants (48)"
        tenant, thread = manifest.malformed["tenant"], manifest.malformed["thread"]
        app.run_command(f"thread {tenant} {thread}")
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        loaded = browse.turn_column.window.loaded
        assert loaded > 3
        await pilot.press("slash", *"zzz-nothing")
        said = f"no turns match 'zzz-nothing' ({loaded} loaded; Esc clears)"
        assert first_line(app, "turns") == said  # not "loading turns…"
        assert status(app) == said
        assert title(app, "turns") == f"turns of {thread} · 0 of {loaded}"
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace")
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace")
        await pilot.press("backspace", *"well-formed", "enter")
        assert title(app, "turns") == f"turns of {thread} · 1 of {loaded}"
        await pilot.press("escape")
        assert title(app, "turns") == f"turns of {thread}"
        await pilot.press("e")  # nothing in this thread expires within the hour
        expiring = f"no turns expiring within 1h ({loaded} loaded; e widens · Esc clears)"
        assert first_line(app, "turns") == expiring
        assert title(app, "turns") == f"turns of {thread} · 0 of {loaded}"
        await pilot.press("slash", *"zzz", "enter")
        assert first_line(app, "turns").startswith("no turns expiring within 1h match 'zzz'")
