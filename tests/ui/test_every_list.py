"""What every list does alike, driven through the real app at 80×24: the ``/`` filter
and Esc, and the row detail (``v``) that shows every field of the selected row.

Each case opens one list (browse's three levels, the request ledger, the advisor, the
lifecycle view, hot tenants, the recall probe's hits) with the keys a user presses.
"""

from __future__ import annotations

import pytest

from cosmem_tui.ui.widgets.row_list import RowList
from tests.ui.conftest import settle

# name: (keys that open the list from the start, the list's id)
LISTS = {
    "tenants": ((), "tenants"),
    "threads": (("enter",), "threads"),
    "turns": (("enter", "enter"), "turns"),
    "requests": (("R",), "ledger"),
    "advise": (("A",), "findings"),
    "ttl": (("L",), "ttl-list"),
    "hot": (("H",), "keys"),
    "recall": (("enter", "enter", "m"), "recall-hits"),
}


async def open_list(pilot, name: str) -> RowList:  # type: ignore[no-untyped-def]
    keys, list_id = LISTS[name]
    await settle(pilot)
    if keys:
        await pilot.press(*keys)
        await settle(pilot)
    rows = pilot.app.screen.query_one(f"#{list_id}", RowList)
    assert rows.has_focus and rows.row_count > 1, name
    return rows


def a_word_of_a_later_row(rows: RowList) -> str:
    """Text that some rows match and the first does not (so the filter hides some)."""
    first = (rows.source.search_text(0) or "").casefold()
    for index in range(1, len(rows.source)):
        for word in (rows.source.search_text(index) or "").casefold().split():
            if len(word) > 3 and word not in first:
                return word
    raise AssertionError("no row tells apart from the first")


@pytest.mark.parametrize("name", list(LISTS))
async def test_esc_clears_the_filter_and_slash_starts_a_new_one(make_app, demo_path, name):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        rows = await open_list(pilot, name)
        total = rows.row_count
        word = a_word_of_a_later_row(rows)
        await pilot.press("slash", *word, "enter")  # Enter keeps the filter
        await settle(pilot)
        assert rows.filter_text == word and 0 < rows.row_count < total
        await pilot.press("escape")  # Esc on the list clears it
        await settle(pilot)
        assert rows.filter_text == "" and rows.row_count == total
        assert app.screen.query_one(RowList) is not None and rows.has_focus, "Esc left the list"
        # A kept filter reopened is replaced by what is typed, never appended to.
        await pilot.press("slash", *word, "enter", "slash", *"zq", "enter")
        await settle(pilot)
        assert rows.filter_text == "zq"
        await pilot.press("slash", "backspace", "enter")  # an edit of the kept one
        await settle(pilot)
        assert rows.filter_text == ""


def rendered(record, width: int) -> str:  # type: ignore[no-untyped-def]
    """What the detail draws for ``record`` at ``width``, all of it (not only the lines
    on screen)."""
    import io

    from rich.console import Console

    from cosmem_tui.ui.row_detail import fields_table

    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(fields_table(record))
    return console.export_text()


@pytest.mark.parametrize("name", list(LISTS))
async def test_v_shows_every_field_of_the_row_scrollable_at_80x24(make_app, demo_path, name):
    from textual.containers import VerticalScroll

    from cosmem_tui.ui.row_detail import RowDetail

    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        rows = await open_list(pilot, name)
        view = app.screen
        await pilot.press("down")
        shown = view.shown_table()
        expected = shown.record(rows.current_index, "table")
        await pilot.press("v")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, RowDetail), name
        assert detail.record == expected and set(expected) == set(shown.fields)
        text = rendered(detail.record, 76)
        for field in shown.fields:  # every field, whatever the list dropped at 80 columns
            assert f"\n{field} " in f"\n{text}", field
        scroll = detail.query_one("#row-detail", VerticalScroll)
        await pilot.press("G")
        await settle(pilot)
        assert scroll.scroll_y == scroll.max_scroll_y
        if scroll.max_scroll_y:  # taller than the screen: it scrolls back up too
            await pilot.press("g")
            await settle(pilot)
            assert scroll.scroll_y == 0
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is view and rows.has_focus


def a_thread_with_turns_expiring_within_a_week(path, now: float) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    import sqlite3

    with sqlite3.connect(path) as db:
        found = db.execute(
            "SELECT tenant_key, thread_key FROM items GROUP BY 1, 2"
            " HAVING COUNT(*) <= 100 AND SUM(expires_at > ? AND expires_at <= ?) >= 3"
            " ORDER BY 1, 2 LIMIT 1",
            (now, now + 7 * 86400),
        ).fetchone()
    assert found is not None
    return found[0], found[1]


async def test_the_turn_list_keeps_expires_while_x_narrows_to_it(make_app, demo_path, clock):
    from tests.ui.conftest import screen_text

    tenant, thread = a_thread_with_turns_expiring_within_a_week(demo_path, clock.now())
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *f"thread {tenant} {thread}", "enter")
        await settle(pilot)
        turns = app.screen.query_one("#turns", RowList)
        assert turns.has_focus and turns.row_count > 1
        header = next(line for line in screen_text(app).splitlines() if "TIME (UTC)" in line)
        assert "EXPIRES" not in header  # 80 columns: the text wins over the expiry …
        for within in ("1h", "24h", "7d"):
            await pilot.press("x")
            await settle(pilot)
            assert turns.narrow_label == f"expiring within {within}"
            lines = screen_text(app).splitlines()
            header = next(line for line in lines if "TIME (UTC)" in line)
            assert "EXPIRES" in header, within  # … but not while x narrows to it
        shown = [turns.source.row(turns.source_index(p)) for p in range(turns.row_count)]
        expires = [row[-1][0] for row in shown if row]
        assert expires and all(cell in screen_text(app) for cell in expires[:5])
        await pilot.press("x")  # all turns again: the column gives way once more
        await settle(pilot)
        header = next(line for line in screen_text(app).splitlines() if "TIME (UTC)" in line)
        assert turns.narrow is None and "EXPIRES" not in header


async def test_notices_stack_above_the_status_line_and_the_hints(make_app, demo_path):
    from textual.widgets._toast import Toast

    app = make_app(demo_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_list(pilot, "tenants")
        for n in range(8):  # more notices than the screen has room for
            app.notify(f"notice {n}", timeout=60)
        await settle(pilot)
        screen = app.screen
        status, hints = screen.query_one("#status"), screen.query_one("#hints")
        toasts = sorted(screen.query(Toast), key=lambda t: t.region.y)
        assert toasts and all(t.region.bottom <= status.region.y for t in toasts)
        assert status.region.y < hints.region.y == screen.size.height - 1
        newest = toasts[-1]  # the lowest, and on screen
        assert "notice 7" in str(newest.render()) and newest.region.y >= 0


async def test_the_advisor_s_fix_cut_at_80x24_is_whole_in_the_row_detail(make_app, demo_path):
    from textual.widgets import Static

    from cosmem_tui.ui.row_detail import RowDetail

    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        rows = await open_list(pilot, "advise")
        view = app.screen
        pane = view.query_one("#finding", Static)
        assert str(pane.border_subtitle) == "v shows it whole"
        finding = view.rows.findings[rows.current_index]
        words = " ".join(finding.fix.split())
        from tests.ui.conftest import screen_text

        assert words not in " ".join(screen_text(app).split())  # 80×24 cuts it …
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, RowDetail)
        assert words in " ".join(rendered(app.screen.record, 76).split())  # … v has it all
