"""Browse's history: the gap markers say what the thread's history knows of the turns
they count, and ``i`` opens the history panel of a turn or (on a marker) the thread —
on a real workspace whose change log the change-log API wrote."""

from __future__ import annotations

import os
from pathlib import Path

from cosmem_tui.core.feed_bookmarks import FeedBookmarks, feed_identity
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.changes import FeedMode
from cosmem_tui.ui.history_panel import HistoryPanel
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from tests.helpers import build_workspace, exchange
from tests.test_cli_history import THREAD, _save_position, _write
from tests.ui.conftest import cells, screen_text, settle

HOSTILE = "\x1b[31mred\x1b]8;;http://x\x07\u202e"


def _panel_text(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, HistoryPanel)
    return str(screen.query_one("#history-body").render())


def _thread(tmp_path: Path, t0: int) -> Path:
    """t1-0 built before the position; after it t1-1 … t1-6 created, t1-2 deleted a
    minute later, t1-4 and t1-5 (the container default, 600 s) purged 15 minutes after
    they expired: turns 0, 1, 3, 6 remain, with a gap of one and a gap of two."""
    path = build_workspace(
        tmp_path / "w.sqlite", [exchange("acme", "t1", 0, ttl=-1)], now=t0 - 60, default_ttl=600
    )
    return path


async def _story(path: Path, t0: int) -> None:
    cache = Path(os.environ["XDG_CACHE_HOME"])
    await _save_position(path, cache, t0)
    kept = [exchange("acme", "t1", i, ttl=-1) for i in (1, 2, 3)]
    kept.append(exchange("acme", "t1", 6, HOSTILE, ttl=-1))
    short = [exchange("acme", "t1", i) for i in (4, 5)]
    _write(path, t0, lambda b: [b.create(body) for body in (*kept, *short)])
    _write(path, t0 + 60, lambda b: b.delete(("acme", "t1"), "t1-2"))
    _write(path, t0 + 1500, lambda b: b.purge_expired(100))


async def test_the_markers_say_what_happened_and_i_opens_the_threads_history(
    make_app, tmp_path: Path, clock: FrozenClock
) -> None:
    t0 = int(clock.now())
    path = _thread(tmp_path, t0)
    await _story(path, t0)
    clock.set(t0 + 3 * 3600)
    app = make_app(path, demo=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("thread acme t1")
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)
        rows = cells(app, "turns")
        assert [r[0] for r in rows] == ["0", "1", "⋯", "3", "⋯", "6"]
        markers = [r[3] for r in rows if r[0] == "⋯"]
        assert markers == [
            "⋯ 1 turn missing — deleted 2 h 59 min ago",
            "⋯ 2 turns missing — expired 2 h 50 min ago (TTL 600), purged 2 h 35 min ago",
        ]
        # read by itself, in the background: a position was saved for the thread
        causes = [r.cause for r in app.session.ledger.records()]
        assert "browse: history of the gaps" in causes
        await pilot.press("j", "j")  # onto the first marker
        await pilot.press("i")
        await settle(pilot)
        text = _panel_text(app)
        assert "tenant acme / thread t1" in text
        assert "all versions and deletes" in text
        assert "nothing before" in text  # the position saved at t0
        assert "deleted by a request" in text
        assert "expired (TTL)" in text and "15 min later" in text
        assert "\x1b" not in screen_text(app) and "\\x1b" in text  # item text escaped
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)


async def test_i_on_a_turn_at_80_columns_and_a_first_history_saves_a_position(
    make_app, tmp_path: Path, clock: FrozenClock
) -> None:
    t0 = int(clock.now())
    path = _thread(tmp_path, t0)
    app = make_app(path, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        store = app.session.store
        root = Path(os.environ["XDG_CACHE_HOME"]) / "cosmem"
        marks = FeedBookmarks(root, feed_identity(store))
        app.run_command("thread acme t1")
        await settle(pilot)
        assert marks.oldest(THREAD, FeedMode.ALL_VERSIONS) is None
        await pilot.press("i")  # the turn under the cursor: t1-0
        await settle(pilot)
        text = _panel_text(app)
        assert "item t1-0 of tenant acme / thread t1" in text
        assert "a position is saved now" in text
        assert "the item is there now" in text and "never expires" in text
        shown = screen_text(app)
        assert "history of item t1-0" in shown and "Esc closes" in shown
        await pilot.press("i")  # i closes it too
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)
    assert marks.oldest(THREAD, FeedMode.ALL_VERSIONS) is not None
