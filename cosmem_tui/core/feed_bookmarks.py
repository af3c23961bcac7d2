"""Saved positions in a container's change feed, with the time each was saved.

All-versions mode starts only now or from a continuation, so whatever the console
will ever be able to say about the past of a scope starts at a position it saved
then: the history reads from the oldest one kept for its scope, and the tail resumes
from the newest. One small JSON file per container in the user cache dir
(``$XDG_CACHE_HOME/cosmem/feed-positions/``), 0600 like the name cache (scopes name
tenants and threads), replaced atomically. A position is only as good as the feed's
retention: the reader says when the feed no longer holds what it points at.

A continuation is bound to the scope it was read with (Cosmos encodes the feed range
in it), so positions are kept per (scope, mode) and never handed to another scope.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cosmem_tui.core.directory import write_private
from cosmem_tui.model.changes import FeedMode
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.sources.store import MemoryStore

FOLDER: Final = "feed-positions"
VERSION: Final = 1
# Per (scope, mode): the oldest position (the history's reach) and the newest few
# (where a tail resumes); the ones between add nothing either can use.
KEPT_NEWEST: Final = 4


@dataclass(frozen=True, slots=True)
class Bookmark:
    scope: str  # ``scope_key`` of the scope it was read with
    mode: FeedMode
    continuation: str
    saved_at: int  # epoch seconds: the feed is read from (about) this time on
    by: str = ""  # who saved it: "history", "tail"


def feed_identity(store: MemoryStore) -> str:
    """Which container a position belongs to: the store's cache identity (account,
    database, container); a local workspace by its whole path, its file and when its
    change log began, so a workspace rebuilt in its place starts afresh (a position
    in another log would point at other changes)."""
    if store.cache_id is not None:
        return store.cache_id
    from cosmem_tui.sources.local import LocalStore
    from cosmem_tui.sources.local.change_log import LOG_STARTED_META

    if isinstance(store, LocalStore):
        workspace = store.workspace
        path = workspace.path.resolve()
        try:
            inode = path.stat().st_ino
        except OSError:
            inode = 0
        return f"local:{path}:{inode}:{workspace.meta(LOG_STARTED_META)}"
    return f"store:{store.label}"


def scope_key(scope: TtlScope) -> str:
    """One text per scope: the level, then the keys' text forms (which parse back)."""
    parts = [scope.level.value]
    if scope.tenant is not None:
        parts.append(scope.tenant.text)
    if scope.thread is not None:
        parts.append(scope.thread.thread.text)
    return "\0".join(parts)


class FeedBookmarks:
    """The saved positions of one container (``feed_identity``); ``root`` None keeps none."""

    def __init__(self, root: Path | None, cache_id: str) -> None:
        self.cache_id = cache_id
        self.path: Path | None = None
        if root is not None:
            digest = hashlib.sha256(cache_id.encode()).hexdigest()[:24]
            self.path = root / FOLDER / f"{digest}.json"
        self.problem: str | None = None  # why the last save failed (said by the caller)

    @property
    def enabled(self) -> bool:
        return self.path is not None

    def saved(self, scope: TtlScope, mode: FeedMode) -> list[Bookmark]:
        """The positions kept for the scope and mode, oldest first."""
        key = scope_key(scope)
        found = [b for b in self._load() if b.scope == key and b.mode is mode]
        return sorted(found, key=lambda b: b.saved_at)

    def oldest(self, scope: TtlScope, mode: FeedMode) -> Bookmark | None:
        found = self.saved(scope, mode)
        return found[0] if found else None

    def newest(self, scope: TtlScope, mode: FeedMode) -> Bookmark | None:
        found = self.saved(scope, mode)
        return found[-1] if found else None

    def save(
        self, scope: TtlScope, mode: FeedMode, continuation: str, saved_at: int, by: str = ""
    ) -> bool:
        """Keep a position; False (and ``problem``) when it could not be written."""
        if self.path is None:
            return False
        mark = Bookmark(scope_key(scope), mode, continuation, int(saved_at), by)
        others = [b for b in self._load() if (b.scope, b.mode) != (mark.scope, mark.mode)]
        same = [b for b in self._load() if (b.scope, b.mode) == (mark.scope, mark.mode)]
        same = sorted(
            [*(b for b in same if b.continuation != continuation), mark], key=lambda b: b.saved_at
        )
        kept = same[:1] + same[1:][-KEPT_NEWEST:]
        return self._write([*others, *kept])

    def forget(self, scope: TtlScope, mode: FeedMode, continuation: str) -> bool:
        """Drop a position the feed no longer serves (past its retention)."""
        key = scope_key(scope)
        marks = self._load()
        left = [
            b
            for b in marks
            if not (b.scope == key and b.mode is mode and b.continuation == continuation)
        ]
        return self._write(left) if len(left) != len(marks) else True

    def _load(self) -> list[Bookmark]:
        if self.path is None:
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") != VERSION or data.get("id") != self.cache_id:
                return []
            return [
                Bookmark(
                    str(entry["scope"]),
                    FeedMode(entry["mode"]),
                    str(entry["continuation"]),
                    int(entry["saved_at"]),
                    str(entry.get("by", "")),
                )
                for entry in data["positions"]
            ]
        except (OSError, ValueError, KeyError, TypeError):
            return []  # none saved, or a file we cannot read: the history starts now

    def _write(self, marks: list[Bookmark]) -> bool:
        assert self.path is not None
        data = {
            "version": VERSION,
            "id": self.cache_id,
            "positions": [
                {
                    "scope": b.scope,
                    "mode": b.mode.value,
                    "continuation": b.continuation,
                    "saved_at": b.saved_at,
                    "by": b.by,
                }
                for b in marks
            ],
        }
        temp = self.path.with_suffix(f".{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_private(temp, json.dumps(data, ensure_ascii=False))
            os.replace(temp, self.path)  # a crash never leaves half a file
        except OSError as exc:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            self.problem = (
                f"the feed position cannot be saved ({self.path.parent}: "
                f"{exc.strerror or exc}); the next history starts where it can"
            )
            return False
        self.problem = None
        return True
