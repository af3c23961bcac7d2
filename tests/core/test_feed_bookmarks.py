"""Saved feed positions: per container, scope and mode; the oldest kept; private files."""

from __future__ import annotations

import stat
from pathlib import Path

from cosmem_tui.core.feed_bookmarks import KEPT_NEWEST, FeedBookmarks
from cosmem_tui.model import ThreadRef
from cosmem_tui.model.changes import FeedMode
from cosmem_tui.model.keys import Key
from cosmem_tui.model.lifecycle import TtlScope

ALL = FeedMode.ALL_VERSIONS
THREAD = TtlScope.of_thread(ThreadRef(Key.of(42), Key.of("th-1")))
OTHER = TtlScope.of_thread(ThreadRef(Key.of("42"), Key.of("th-1")))  # "42" is not 42
TENANT = TtlScope.of_tenant(Key.of(42))


def test_the_oldest_and_the_newest_are_kept_per_scope_and_mode(tmp_path: Path) -> None:
    marks = FeedBookmarks(tmp_path, "acct/db/turns")
    for n in range(10):
        assert marks.save(THREAD, ALL, f"c{n}", 1000 + n, by="tail")
    saved = marks.saved(THREAD, ALL)
    assert [b.continuation for b in saved] == [
        "c0",
        *[f"c{n}" for n in range(10 - KEPT_NEWEST, 10)],
    ]
    assert marks.oldest(THREAD, ALL).continuation == "c0"  # type: ignore[union-attr]
    assert marks.newest(THREAD, ALL).continuation == "c9"  # type: ignore[union-attr]
    assert marks.oldest(OTHER, ALL) is None
    assert marks.oldest(TENANT, ALL) is None
    assert marks.oldest(THREAD, FeedMode.LATEST) is None
    # another process reads the same file; another container has its own
    assert FeedBookmarks(tmp_path, "acct/db/turns").oldest(THREAD, ALL) is not None
    assert FeedBookmarks(tmp_path, "acct/db/other").oldest(THREAD, ALL) is None


def test_a_position_can_be_forgotten_and_the_file_is_private(tmp_path: Path) -> None:
    marks = FeedBookmarks(tmp_path, "local:/tmp/x.sqlite:12")
    marks.save(THREAD, ALL, "c0", 1000)
    marks.save(THREAD, ALL, "c1", 2000)
    marks.forget(THREAD, ALL, "c0")
    assert [b.continuation for b in marks.saved(THREAD, ALL)] == ["c1"]
    assert marks.path is not None
    assert stat.S_IMODE(marks.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(marks.path.parent.stat().st_mode) == 0o700


def test_an_unreadable_file_is_no_position_and_an_unwritable_one_says_why(tmp_path: Path) -> None:
    marks = FeedBookmarks(tmp_path, "acct/db/turns")
    assert marks.path is not None
    marks.path.parent.mkdir(parents=True)
    marks.path.write_text("{not json")
    assert marks.oldest(THREAD, ALL) is None
    blocked = FeedBookmarks(tmp_path / "file", "acct/db/turns")
    (tmp_path / "file").write_text("a file where the folder would be")
    assert not blocked.save(THREAD, ALL, "c0", 1000)
    assert blocked.problem is not None and "cannot be saved" in blocked.problem
    assert not FeedBookmarks(None, "x").save(THREAD, ALL, "c0", 1000)
