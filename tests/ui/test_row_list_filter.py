"""The ``/`` filter of the shared row list: what it shows is what a plain scan of every row
would show, and typing into 100,000 rows asks each row's text once and formats only the
rows on screen (counts, not seconds)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from textual.app import App, ComposeResult

from cosmem_tui.ui.widgets.row_list import Cell, Column, RowList


class Counted:
    """A source of ``texts`` that counts what the list asks of it; ``None``: not loaded."""

    def __init__(self, texts: Sequence[str | None]) -> None:
        self.texts = list(texts)
        self.asked = 0
        self.formatted = 0

    def __len__(self) -> int:
        return len(self.texts)

    def row(self, index: int) -> list[Cell] | None:
        text = self.texts[index]
        if text is None:
            return None
        self.formatted += 1
        return [(text, "")]

    def search_text(self, index: int) -> str | None:
        self.asked += 1
        return self.texts[index]


class AllAtOnce(Counted):
    """A source that gives every row's text in one call (``search_texts``)."""

    def search_texts(self) -> list[str | None]:
        self.asked += len(self.texts)
        return list(self.texts)


class OneList(App[None]):
    def compose(self) -> ComposeResult:
        yield RowList([Column("NAME")], id="rows")


def shown(rows: RowList) -> list[int]:
    return [index for p in range(rows.row_count) if (index := rows.source_index(p)) is not None]


def scanned(texts: Sequence[str | None], typed: str) -> list[int]:
    """What the filter must show: every loaded row whose text holds the typed text."""
    needle = typed.casefold()
    return [i for i, t in enumerate(texts) if t is not None and needle in t.casefold()]


async def test_typing_into_100000_rows_asks_each_text_once_and_formats_the_screen():
    source = Counted([f"Tenant-{n:06d}" for n in range(100_000)])
    app = OneList()
    async with app.run_test(size=(80, 24)) as pilot:
        rows = app.query_one(RowList)
        rows.set_source(source)
        await pilot.pause()
        typed = ""
        for ch in "tenant-0999":
            typed += ch
            source.formatted = 0
            rows.set_filter(typed)
            await pilot.pause()
            assert source.formatted <= rows.size.height  # the rows on screen, no more
        assert shown(rows) == scanned(source.texts, typed) and rows.row_count == 100
        assert source.asked == 100_000  # once a row for the whole word, not once a key
        for _ in "999":  # backspace: the filter widens, from the texts already asked
            typed = typed[:-1]
            rows.set_filter(typed)
            assert shown(rows) == scanned(source.texts, typed)
        assert source.asked == 100_000
        rows.update_source(Counted(source.texts))  # new rows: their texts are asked anew
        assert shown(rows) == scanned(source.texts, typed)
        assert rows.source.asked == 100_000  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", [Counted, AllAtOnce])
async def test_what_it_shows_is_a_scan_of_every_row_whatever_is_typed(kind):
    rng = random.Random(18)
    words = ["alpha", "Beta", "GAMMA", "straße", "ǅemal", "x", "", "ab", "ba", "aab"]
    texts: list[str | None] = [" ".join(rng.choices(words, k=3)) for _ in range(400)]
    texts[::7] = [None] * len(texts[::7])  # not loaded: never shown by a text filter
    app = OneList()
    async with app.run_test(size=(80, 24)):
        rows = app.query_one(RowList)
        rows.set_source(kind(texts))
        typed = ""
        for _ in range(300):
            if typed and rng.random() < 0.3:
                typed = typed[: rng.randrange(len(typed))]  # backspaces, or a cleared bar
            else:
                typed += rng.choice("abgmtsSSeEßǆ x")
            rows.set_filter(typed)
            assert shown(rows) == (scanned(texts, typed) if typed else list(range(400)))


async def test_a_source_that_gives_every_text_at_once_is_asked_once():
    source = AllAtOnce([f"key-{n}" for n in range(1_000)])
    app = OneList()
    async with app.run_test(size=(80, 24)):
        rows = app.query_one(RowList)
        rows.set_source(source)
        for typed in ("k", "ke", "key-9", "key-99", "key-9"):
            rows.set_filter(typed)
            assert shown(rows) == scanned(source.texts, typed)
        assert source.asked == 1_000


async def test_rows_that_load_later_are_found_by_the_next_key():
    texts: list[str | None] = [f"turn {n}" if n < 50 else None for n in range(100)]
    source = Counted(texts)
    app = OneList()
    async with app.run_test(size=(80, 24)):
        rows = app.query_one(RowList)
        rows.set_source(source)
        rows.set_filter("turn 7")
        assert shown(rows) == [7]
        for n in range(50, 100):  # the next page arrives
            source.texts[n] = f"turn {n}"
        rows.source_changed()
        assert shown(rows) == [7, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79]
        rows.set_filter("turn 77")
        assert shown(rows) == [77]


async def test_too_much_text_to_keep_is_asked_again_and_still_found(monkeypatch):
    import cosmem_tui.ui.widgets.row_list as row_list

    monkeypatch.setattr(row_list, "KEPT_SEARCH_TEXT", 1_000)
    texts = [f"message {n} " + "words " * 20 for n in range(100)]  # 13,000 characters
    source = Counted(texts)
    app = OneList()
    async with app.run_test(size=(80, 24)):
        rows = app.query_one(RowList)
        rows.set_source(source)
        rows.set_filter("message 4")
        assert shown(rows) == scanned(texts, "message 4")
        asked = source.asked
        rows.set_filter("message 42")
        assert shown(rows) == [42]
        assert source.asked == asked + 100  # not kept: every row asked again


class Folded(str):
    """A text that counts the list folding it (one fold a row is 100,000 calls)."""

    folds = 0
    looks = 0  # the list looking for a filter in it

    def casefold(self) -> str:
        Folded.folds += 1
        return str.casefold(self)

    def __contains__(self, needle: object) -> bool:
        Folded.looks += 1
        return str.__contains__(self, needle)  # type: ignore[operator]


async def test_texts_given_at_once_and_already_folded_are_not_folded_one_by_one():
    source = AllAtOnce([Folded(f"tenant-{n:06d}") for n in range(100_000)])
    app = OneList()
    async with app.run_test(size=(80, 24)):
        rows = app.query_one(RowList)
        rows.set_source(source)
        Folded.folds = 0
        rows.set_filter("tenant-0999")
        assert Folded.folds == 0  # one fold of them joined (before: 100,000, one a row)
        assert shown(rows) == list(range(99_900, 100_000)) and rows.row_count == 100
        rows.update_source(AllAtOnce([*source.texts[:-1], Folded("TENANT-099999")]))
        assert Folded.folds == 100_000  # one text is not folded: each is, one by one
        assert shown(rows) == list(range(99_900, 100_000))


async def test_a_key_every_row_surely_matches_looks_at_no_row():
    """Keys named alike ("tenant-000000" … "tenant-099999") all start "tenant-0": the
    first eight keys of "/tenant-0999" match every row, known from that start without a
    look at any row (before: 100,000 looks a key, 911,000 for the word)."""
    source = AllAtOnce([Folded(f"tenant-{n:06d}") for n in range(100_000)])
    app = OneList()
    async with app.run_test(size=(80, 24)):
        rows = app.query_one(RowList)
        rows.set_source(source)
        Folded.looks = 0
        typed = ""
        for ch in "tenant-0":
            typed += ch
            rows.set_filter(typed)
            assert rows.row_count == 100_000
        assert Folded.looks == 0
        for ch in "999":
            typed += ch
            rows.set_filter(typed)
        assert Folded.looks == 100_000 + 10_000 + 1_000  # the rows the shorter one kept
        assert shown(rows) == list(range(99_900, 100_000))
        rows.set_filter("tenant-1")  # another start: every row is looked at, none kept
        assert rows.row_count == 0 and Folded.looks == 211_000
