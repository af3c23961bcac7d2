"""Browse rough edges: keys sent in a burst to the help overlay, the columns following
``:thread``, filters that match nothing, and one numbering of turns."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Static

from cosmem_tui.ui.help import HelpScreen
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.widgets.row_list import RowList
from tests.ui.conftest import burst, cells, settle


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
        await pilot.press("x")  # nothing in this thread expires within the hour
        expiring = f"no turns expiring within 1h ({loaded} loaded; x widens · Esc clears)"
        assert first_line(app, "turns") == expiring
        assert title(app, "turns") == f"turns of {thread} · 0 of {loaded}"
        await pilot.press("slash", *"zzz", "enter")
        assert first_line(app, "turns").startswith("no turns expiring within 1h match 'zzz'")


async def test_thread_command_moves_the_tenant_and_thread_columns_to_the_rows_named(
    make_app, demo_path, manifest
):
    app = make_app(demo_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        tenant, thread = manifest.malformed["tenant"], manifest.malformed["thread"]
        await pilot.press("colon", *f"thread {tenant} {thread}", "enter")
        await settle(pilot)
        assert browse.top.current_key is not None and browse.top.current_key.text == tenant
        threads = browse.thread_column
        assert threads.current_thread is not None and threads.current_thread.name == thread
        other = next(t for t in reversed(threads.threads) if t.name != thread and not t.pseudo)
        await pilot.press("colon", *f"thread {other.name}", "enter")  # of the same tenant
        await settle(pilot)
        assert browse.thread is not None and browse.thread.thread == other.ref.thread
        assert threads.current_thread is other
        await pilot.press("colon", *"tenant contoso", "enter")
        await settle(pilot)
        assert browse.top.current_key is not None and browse.top.current_key.text == "contoso"


def crumbs(app) -> str:
    return app.screen.query_one("#crumbs", Static).render().plain


def detail_head(app) -> str:
    return app.screen.query_one("#detail-body", Static).render().plain.split("\n")[0]


async def test_a_turn_has_one_name_in_the_list_breadcrumbs_title_and_body(
    make_app, demo_path, manifest
):
    """The order value as stored (``turn 0``), not the row position (``turn #1``); an
    item without one says so everywhere alike."""
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tenant, thread = manifest.malformed["tenant"], manifest.malformed["thread"]
        app.run_command(f"thread {tenant} {thread}")
        await settle(pilot)
        turns = cells(app, "turns")
        assert turns[0][0] == "—" and turns[1][0] == "0"  # row 1: no order; row 2: turn 0
        await pilot.press("enter")
        await settle(pilot)
        missing = "turn — (no order value)"
        assert crumbs(app).endswith(f" › {missing}")
        assert str(app.screen.query_one("#detail").border_title) == missing
        assert detail_head(app).startswith(f"{missing} · ")
        await pilot.press("escape", "j", "enter")
        await settle(pilot)
        assert crumbs(app).endswith(" › turn 0")
        assert str(app.screen.query_one("#detail").border_title) == "turn 0"
        assert detail_head(app).startswith("turn 0 · ")
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "Turns are named by their order value" in (
            app.screen.query_one(Static).render().plain
        )
