"""The footer keeps whole hints: at 80 columns the last ones go, none is cut in half."""

from __future__ import annotations

import shutil

from textual.widgets import Static

from cosmem_tui.ui.widgets.hint_line import fit_hints
from tests.ui.conftest import screen_text, settle
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
        assert {"esc back", "X erase", "P pin", "/ filter"} <= set(footer(app))
        await pilot.press("enter")  # one turn: nothing to filter or open in its detail
        await settle(pilot)
        assert "/ filter" not in footer(app) and "⏎ open" not in footer(app)
        assert "P pin" in footer(app)
        await pilot.press("escape", "escape", "escape")
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


LINES = [
    "no turns expiring within 1h (13 loaded; x widens · Esc clears)",
    "tenant adventure-works · TTL on, no default: only items with their own ttl expire",
    "characters 0–1,234 of 1,234 · ] next page · [ previous · G last · Esc closes",
    "by scope: fan-out 1 (28.4) · logs 4 (0.0) · metadata 1 (1.0) · metrics 2 (0.0)",
]


def ends_on_a_word(shown: str, whole: str) -> bool:
    """``shown`` is ``whole``, or a start of it cut after a whole word, then ``…``."""
    if shown == whole:
        return True
    if not shown.endswith("…"):
        return False
    head = shown[:-1].rstrip()
    after = whole[len(head) : len(head) + 1]  # a space, punctuation, or the end
    return whole.startswith(head) and not after.isalnum()


def test_fit_line_never_cuts_a_word():
    from cosmem_tui.ui.widgets.hint_line import fit_line

    for line in LINES:
        for width in range(12, len(line) + 2):  # (a first word wider is cut inside)
            shown = fit_line(line, width)
            assert len(shown) <= width and ends_on_a_word(shown, line), (width, shown)
    # A part cut to less than half of it says nothing: it goes whole ("Esc…" is not drawn).
    assert fit_line("expiring within 1h: 0 turns · x widens · Esc clears", 45) == (
        "expiring within 1h: 0 turns · x widens …"
    )
    assert fit_line("tenant acme · TTL on, no default: only items with a ttl expire", 50) == (
        "tenant acme · TTL on, no default: only items with…"
    )
    assert fit_line("one · two", 20) == "one · two"


async def test_status_and_summary_lines_at_80_columns_end_on_a_whole_word(demo_path, make_app):
    from cosmem_tui.ui.widgets.hint_line import FittedLine

    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        cut = 0
        for key in ("R", "A", "L", "B"):
            await pilot.press(key)
            await settle(pilot)
            if key == "B":  # a status longer than the line: x in a thread
                await pilot.press("enter", "enter", "x")
                await settle(pilot)
            for line in app.screen.query(FittedLine):
                shown = line.shown().split("\n")
                assert (
                    shown
                    == [  # what is drawn on the screen
                        row[line.region.x + 1 : line.region.right - 1].rstrip()
                        for row in screen_text(app).splitlines()[line.region.y : line.region.bottom]
                    ][: len(shown)]
                )
                for whole, drawn in zip(line.text.split("\n"), shown, strict=True):
                    assert len(drawn) <= line.content_size.width
                    assert ends_on_a_word(drawn, whole), (key, drawn)
                    cut += drawn != whole
        assert cut  # some line was too long for 80 columns (else this shows nothing)
        await pilot.press("escape", "enter", "v")  # a turn, read in full: its border too
        await settle(pilot)
        subtitle = str(app.screen.query_one("#reader").border_subtitle)
        assert len(subtitle) <= 80 - 6 and "Esc closes" in subtitle
        assert subtitle.endswith("…") or subtitle.endswith("G last")
