"""A turn whose one message is megabytes long: cut in the list and the detail, read in full
page by page on demand."""

from __future__ import annotations

from textual.widgets import Static

from cosmem_tui.core.text import LONG_TEXT
from cosmem_tui.ui.browse import BrowseScreen, Level
from cosmem_tui.ui.reader import TextReader
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange
from tests.ui.conftest import cells, settle

TAIL = "THE LAST WORDS OF THE LONG MESSAGE"


def long_workspace(tmp_path, size=5_000_000):
    line = "the quick brown fox jumps over the lazy dog, again and again.\n"
    text = (line * (size // len(line) + 1))[: size - len(TAIL)] + TAIL
    items = [exchange("acme", "t1", i) for i in range(3)]
    items[1]["messages"] = [{"role": "user", "content": text}]
    return build_workspace(tmp_path / "long.sqlite", items, now=ANCHOR)


def detail_text(app) -> str:
    return app.screen.query_one("#detail-body", Static).render().plain


async def test_a_5_mb_message_is_cut_in_the_detail_and_read_in_full_on_demand(make_app, tmp_path):
    app = make_app(long_workspace(tmp_path), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("thread acme t1")
        await settle(pilot)
        row = cells(app, "turns")[1]
        assert row[3].startswith("user: the quick brown fox") and len(row[3]) <= 310
        await pilot.press("j", "enter")
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen) and browse.level is Level.DETAIL
        shown = detail_text(app)
        # The message and the raw item are each cut at 64 KB, each with what is left.
        assert "  … 4.9 MB more (press v to read it all)" in shown  # the message
        assert shown.count(" MB more (press v to read it all)") == 2  # and the raw item
        assert TAIL not in shown
        assert len(shown) < 3 * LONG_TEXT
        await pilot.press("v")
        await settle(pilot)
        reader = app.screen
        assert isinstance(reader, TextReader)
        page = reader.query_one("#reader-page", Static).render().plain
        assert page.startswith("user\nthe quick brown fox") and len(page) <= LONG_TEXT
        assert reader.pages > 150  # the message and the raw item: 10 MB in 64 KB pages
        await pilot.press("right_square_bracket")  # the next page follows on
        second = reader.query_one("#reader-page", Static).render().plain
        assert reader.page == 1 and second.startswith("the quick brown fox")
        assert TAIL not in page + second
        await pilot.press("G")  # the last page: the end of the message, in the raw item
        last = reader.query_one("#reader-page", Static).render().plain
        assert reader.page == reader.pages - 1
        assert f'{TAIL}"' in last and last.rstrip().endswith("}")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is browse and browse.level is Level.DETAIL


async def test_v_before_a_turn_is_open_shows_the_row_not_the_reader(make_app, tmp_path):
    from cosmem_tui.ui.row_detail import RowDetail

    app = make_app(long_workspace(tmp_path, size=100), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        assert isinstance(app.screen, RowDetail) and not isinstance(app.screen, TextReader)
        assert "tenant" in app.screen.record
