"""What every list does alike, driven through the real app at 80×24: the ``/`` filter
and Esc, and the row detail (``v``) that shows every field of the selected row.

Each case opens one list (browse's three levels, the request ledger, the advisor, the
lifecycle view, hot tenants) with the keys a user presses.
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
