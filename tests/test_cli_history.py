"""``cosmem history`` on a real workspace whose change log was written by the change-log
API (as the demo's workload and another client write it): creates, replaces, deletes
and TTL purges, read back as one record per event with the silences on stderr."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core.feed_bookmarks import FeedBookmarks, feed_identity
from cosmem_tui.model import FrozenClock, ThreadRef
from cosmem_tui.model.changes import FeedMode, FeedStart
from cosmem_tui.model.keys import Key
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.schemas.registry import get_schema
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from tests.helpers import build_workspace, exchange
from tests.helpers import run_cli as run

SCHEMA = get_schema("lab")
THREAD = TtlScope.of_thread(ThreadRef(Key.of("acme"), Key.of("t1")))


def _write(path: Path, now: int, write: Any) -> None:
    writer = WorkspaceWriter.open(path)
    try:
        with writer.changes(SCHEMA, now) as batch:
            write(batch)
    finally:
        writer.close()


def _story(path: Path, t0: int) -> None:
    """After the position saved at ``t0``: t1-20 created (its own ttl 3600) and edited,
    t1-21 created, its ttl changed, then deleted; t1-22 created with no ttl of its own
    (the container default, 600 s) and purged 10 minutes after it expired."""
    created = exchange("acme", "t1", 20, ttl=3600)
    _write(path, t0, lambda b: b.create(created))
    _write(
        path,
        t0 + 60,
        lambda b: b.replace({**created, "messages": [{"role": "user", "content": "x"}]}),
    )
    other = exchange("acme", "t1", 21, ttl=3600)
    _write(path, t0 + 120, lambda b: b.create(other))
    _write(path, t0 + 180, lambda b: b.replace({**other, "ttl": 7200}))
    _write(path, t0 + 240, lambda b: b.delete(("acme", "t1"), "t1-21"))
    _write(path, t0 + 300, lambda b: b.create(exchange("acme", "t1", 22)))
    _write(path, t0 + 300 + 600 + 600, lambda b: b.purge_expired(100))


def _workspace(tmp_path: Path, now: int) -> Path:
    # t1-0 and t1-1 never expire; t1-2 (the default, 600 s) expires after the position
    # is saved, so its purge is seen but no version of it is.
    items = [exchange("acme", "t1", 0, ttl=-1), exchange("acme", "t1", 1, ttl=-1)]
    items.append(exchange("acme", "t1", 2))
    return build_workspace(tmp_path / "w.sqlite", items, now=now, default_ttl=600)


@pytest.mark.usefixtures("frozen_system_time")
def test_a_first_history_starts_now_and_the_next_sees_every_event(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, clock: FrozenClock
) -> None:
    t0 = int(clock.now())
    path = _workspace(tmp_path, t0 - 60)
    code, out, err = run(capsys, "history", "acme", "t1", "--workspace", str(path), "--json")
    assert code == 0 and json.loads(out) == []
    assert "nothing before" in err and "a position is saved now" in err
    _story(path, t0)
    clock.set(t0 + 2000)
    code, out, err = run(capsys, "history", "acme", "t1", "--workspace", str(path), "--json")
    assert code == 0, err
    events = json.loads(out)
    assert [(e["op"], e["id"]) for e in events] == [
        ("create", "t1-20"),
        ("replace", "t1-20"),
        ("create", "t1-21"),
        ("replace", "t1-21"),
        ("delete", "t1-21"),
        ("create", "t1-22"),
        ("expired", "t1-2"),  # the longest expired is purged first
        ("expired", "t1-22"),
    ]
    edit, ttl_change, unseen, expiry = events[1], events[3], events[6], events[7]
    assert edit["changed"] == ["content"] and edit["ttl_reset"]
    assert ttl_change["changed"] == ["ttl"] and ttl_change["ttl_before"] == 3600
    assert ttl_change["ttl"] == 7200
    assert expiry["ttl_effective"] == 600  # the container default: no ttl of its own
    assert expiry["expired_at"] == _iso(t0 + 300 + 600)
    assert expiry["purged_at"] == _iso(t0 + 1500)
    assert expiry["purge_lag_s"] == 600
    assert unseen["expired_at"] is None and unseen["purged_at"] == _iso(t0 + 1500)
    assert all(e["lsn"] > 0 for e in events)
    assert f"nothing before {_iso(t0)}" in err
    # One item: its events alone, and what a point read finds now.
    code, out, err = run(
        capsys, "history", "acme", "t1", "t1-20", "--workspace", str(path), "--csv"
    )
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("time,op,id,lsn") and len(lines) == 3
    assert "the item is there now" in err


def _iso(epoch: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


async def _save_position(path: Path, cache: Path, at: int) -> None:
    """What a first history (or a tail) does: read the feed from now and keep where it is."""
    from cosmem_tui.compose.local import open_local_session
    from cosmem_tui.core.session import SessionOptions

    session = open_local_session(SessionOptions(workspace=path), FrozenClock(at))
    try:
        page = await session.store.read_changes(
            THREAD, mode=FeedMode.ALL_VERSIONS, start=FeedStart.now()
        )
        assert page.continuation is not None
        marks = FeedBookmarks(cache / "cosmem", feed_identity(session.store))
        assert marks.save(THREAD, FeedMode.ALL_VERSIONS, page.continuation, at, by="test")
    finally:
        await session.close()


async def test_cosmem_history_in_a_process_of_its_own(tmp_path: Path) -> None:
    """The real command line, the real clock: a story written an hour ago, read now."""
    t0 = int(time.time()) - 3600
    path = _workspace(tmp_path, t0 - 60)
    cache = Path(os.environ["XDG_CACHE_HOME"])
    await _save_position(path, cache, t0)
    _story(path, t0)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cosmem_tui",
            "history",
            "acme",
            "t1",
            "--workspace",
            str(path),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
    )
    assert done.returncode == 0, done.stderr
    events = json.loads(done.stdout)
    assert [e["op"] for e in events] == [
        "create",
        "replace",
        "create",
        "replace",
        "delete",
        "create",
        "expired",
        "expired",
    ]
    assert events[-1]["purge_lag_s"] == 600
    assert "cosmem: history of tenant acme / thread t1: 8 events" in done.stderr
    assert f"nothing before {_iso(t0)}" in done.stderr
    assert "retention window" in done.stderr


@pytest.mark.usefixtures("frozen_system_time")
def test_a_workspace_without_a_change_log_says_so_and_the_fix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, clock: FrozenClock
) -> None:
    """A workspace built before the change log: no feed in either mode, said once with
    the fix; the item itself still says what it can."""
    path = _workspace(tmp_path, int(clock.now()) - 60)
    with sqlite3.connect(path) as db:  # as an older console built it: no changes table
        db.execute("DROP TABLE changes")
    code, out, err = run(
        capsys, "history", "acme", "t1", "t1-2", "--workspace", str(path), "--json"
    )
    assert code == 0 and json.loads(out) == []
    assert err.count("predates the change log") == 1
    assert "the change feed cannot be read" in err and "cosmem demo --reset" in err
    assert "the item is there now" in err and "(TTL 600)" in err


@pytest.mark.usefixtures("frozen_system_time")
def test_positions_belong_to_one_workspace_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, clock: FrozenClock
) -> None:
    """Two workspaces named alike never share a position, and one rebuilt in its place
    starts afresh: a position read against another log would be wrong data."""
    now = int(clock.now())
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = _workspace(tmp_path / "a", now), _workspace(tmp_path / "b", now)
    assert first.name == second.name
    for path in (first, second):
        code, _, err = run(capsys, "history", "acme", "t1", "--workspace", str(path))
        assert code == 0 and "a position is saved now" in err, err
    first.unlink()
    _workspace(tmp_path / "a", now + 5)  # rebuilt where it was, a little later
    code, _, err = run(capsys, "history", "acme", "t1", "--workspace", str(first))
    assert "a position is saved now" in err
    code, _, err = run(capsys, "history", "acme", "t1", "--workspace", str(second))
    assert "the oldest feed position the console saved" in err


@pytest.mark.usefixtures("frozen_system_time")
def test_hostile_text_in_a_history_is_inert_in_every_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, clock: FrozenClock
) -> None:
    import asyncio

    from tests.hostile.corpus import STORABLE, dangerous, leaks

    t0 = int(clock.now())
    path = _workspace(tmp_path, t0 - 60)
    asyncio.run(_save_position(path, Path(os.environ["XDG_CACHE_HOME"]), t0))
    bodies = [
        exchange("acme", "t1", 100 + n, h.value, id=f"h-{n}", ttl=-1)
        for n, h in enumerate(STORABLE)
    ]
    _write(path, t0, lambda b: [b.create(body) for body in bodies])
    _write(path, t0 + 5, lambda b: b.delete(("acme", "t1"), "h-0"))
    printed = []
    for fmt in ((), ("--json",), ("--csv",)):
        code, out, err = run(capsys, "history", "acme", "t1", "--workspace", str(path), *fmt)
        assert code == 0, err
        for text in (out, err):
            assert dangerous(text, newlines=True) == [] and leaks(text.encode()) == []
        printed.append(out)
    everything = "\n".join(printed)
    # Shown as data, each escape as text (a preview is one line: the line and paragraph
    # separators, whitespace, become spaces there).
    for h in (h for h in STORABLE if h.name != "separators"):
        assert h.shown in everything or h.shown.replace("\\x", "\\u00") in everything, h.name


@pytest.mark.usefixtures("frozen_system_time")
def test_a_schema_without_tenants_names_the_thread_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, clock: FrozenClock
) -> None:
    schema = get_schema("thread")
    path = build_workspace(
        tmp_path / "w.sqlite", [exchange(None, "t1", 0)], now=int(clock.now()), schema=schema
    )
    code, _, err = run(capsys, "history", "t1", "t1-0", "--workspace", str(path))
    assert code == 0 and "history of item t1-0 of thread t1" in err, err
    code, _, err = run(capsys, "history", "a", "b", "c", "--workspace", str(path))
    assert code == 1 and "usage: cosmem history THREAD [ID]" in err
