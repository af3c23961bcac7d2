"""A turn whose one message is megabytes long: cut in the list and the detail, read in full
page by page on demand."""

from __future__ import annotations

from textual.widgets import Static

from cosmem_tui.core.text import LONG_LINES, LONG_TEXT
from cosmem_tui.ui.views.browse.detail import DRAWN_MESSAGES
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.reader import TextReader
from cosmem_tui.ui.views.browse.screen import BrowseScreen
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


def many_messages_workspace(tmp_path, count=50_000):
    """One item holding a whole session: ``count`` short messages (~1.5 MB at 50,000)."""
    items = [exchange("acme", "t1", i) for i in range(3)]
    items[1]["messages"] = [
        {"role": ("user", "agent")[n % 2], "content": f"message number {n}"} for n in range(count)
    ]
    return build_workspace(tmp_path / "many.sqlite", items, now=ANCHOR)


async def test_a_turn_of_50000_messages_draws_a_bounded_part_and_v_pages_the_rest(
    make_app, tmp_path
):
    """Before, the detail laid out every message (100,000 lines: 8.6 s to show, 18.8 s
    for Esc, 500 MB); it now draws the first messages up to a bound and says how many
    follow, and the reader pages them at most LONG_LINES lines at a time."""
    app = make_app(many_messages_workspace(tmp_path), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("thread acme t1")
        await settle(pilot)
        row = cells(app, "turns")[1]
        assert row[3].startswith("user: message number 0 · agent: message number 1")
        assert len(row[3]) < 400  # the preview reads the messages that fit, not 50,000
        await pilot.press("j", "enter")
        await settle(pilot)
        browse = app.screen
        assert browse.level is Level.DETAIL
        shown = detail_text(app)
        drawn = [n for n in range(50_000) if f"  message number {n}\n" in shown]
        assert drawn == list(range(DRAWN_MESSAGES))  # the first ones, in order
        assert f"… {50_000 - DRAWN_MESSAGES:,} more messages (" in shown
        assert f"{DRAWN_MESSAGES} of 50,000 shown (press v to read them all)" in shown
        assert shown.count("\n") < 3 * LONG_LINES  # transcript and raw item, both bounded
        assert " more (press v to read it all)" in shown  # the raw item is cut too
        await pilot.press("v")
        await settle(pilot)
        reader = app.screen
        assert isinstance(reader, TextReader)
        assert "message number 49999\n" in reader.text  # every message is in the reader
        page_lines = [reader.page_text(n).count("\n") for n in range(reader.pages)]
        assert max(page_lines) <= LONG_LINES and reader.pages > 50
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is browse
        await pilot.press("escape")
        await settle(pilot)
        assert browse.level is Level.TURNS


async def test_opening_a_turn_of_50000_messages_lays_out_and_encodes_what_is_shown(
    make_app, tmp_path, monkeypatch
):
    """Counts, not seconds: opening the turn turns a few screens of lines into strips (the
    detail holds some 1,200: 100 messages and 1,000 lines of the raw item; before, every
    one of them, each time the pane was redrawn), and Python's indented JSON encoder
    writes the 64 KB of the raw item the pane shows (before, the whole 3.7 MB, twice)."""
    import json

    from textual.content import _FormattedLine

    app = make_app(many_messages_workspace(tmp_path), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("thread acme t1")
        await settle(pilot)
        strips, written = [0], [0]
        to_strip, iterencode = _FormattedLine.to_strip, json.JSONEncoder.iterencode

        def counting_strips(self, style):  # type: ignore[no-untyped-def]
            strips[0] += 1
            return to_strip(self, style)

        def counting_json(self, o, _one_shot=False):  # type: ignore[no-untyped-def]
            for chunk in iterencode(self, o, _one_shot):
                if self.indent is not None:
                    written[0] += len(chunk)
                yield chunk

        monkeypatch.setattr(_FormattedLine, "to_strip", counting_strips)
        monkeypatch.setattr(json.JSONEncoder, "iterencode", counting_json)
        await pilot.press("j", "enter")
        await settle(pilot)
        shown = detail_text(app)
        assert f"{DRAWN_MESSAGES} of 50,000 shown" in shown and " more (press v" in shown
        assert shown.count("\n") > 1_000  # what the pane holds, of which 40 lines show
        assert 0 < strips[0] <= 10 * 40
        assert written[0] <= LONG_TEXT + 1_000


async def test_a_turn_of_50000_messages_makes_the_messages_it_shows(
    make_app, tmp_path, monkeypatch
):
    """Counts, not seconds: listing the thread and opening the turn make a Message for
    each one the row and the pane show (a few hundred), not for each of the 50,000 (before,
    every one was mapped through the schema for the row and again for the point read);
    the rest stay the item's own strings until the reader asks for them."""
    from cosmem_tui.model.entities import MessageColumns
    from cosmem_tui.schemas import mapping

    made = [0]
    one_message, from_columns = mapping._message, MessageColumns._make

    def counting_message(*args):  # type: ignore[no-untyped-def]
        made[0] += 1
        return one_message(*args)

    def counting_columns(self, index):  # type: ignore[no-untyped-def]
        made[0] += 1
        return from_columns(self, index)

    monkeypatch.setattr(mapping, "_message", counting_message)
    monkeypatch.setattr(MessageColumns, "_make", counting_columns)
    app = make_app(many_messages_workspace(tmp_path), demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("thread acme t1")
        await settle(pilot)
        await pilot.press("j", "enter")
        await settle(pilot)
        shown = detail_text(app)
        assert f"… {50_000 - DRAWN_MESSAGES:,} more messages (987 KB of text)" in shown
        assert 0 < made[0] <= 10 * DRAWN_MESSAGES
