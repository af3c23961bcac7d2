"""The tail's rows: a bounded window of changes, newest first, each feed entry once.

A feed entry is keyed by ``(lsn, id)`` (``Change.key``): the same item changes under
several lsns, and two items can share an lsn on different partitions. A page read again
(a retried poll, a continuation resumed after a restart) must not show its rows twice,
so the window remembers the keys it has seen — more of them than it keeps rows, and
never without bound: memory stays flat however long the tail runs.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator
from typing import Final

from cosmem_tui.model.changes import Change

DEFAULT_WINDOW_ROWS: Final = 2000  # rows kept for the screen and the filter
SEEN_PER_ROW: Final = 4  # keys remembered per row kept: a replayed page is several pages old


class TailWindow:
    """The newest ``limit`` changes, newest first; ``add`` returns only what is new."""

    def __init__(self, limit: int = DEFAULT_WINDOW_ROWS) -> None:
        if limit < 1:
            raise ValueError(f"a tail window holds at least one row, got {limit}")
        self.limit = limit
        self._rows: deque[Change] = deque(maxlen=limit)  # left: newest
        self._seen: OrderedDict[tuple[int, str], None] = OrderedDict()
        self._seen_limit = limit * SEEN_PER_ROW
        self.added = 0  # every new change, ever (the window keeps the last ``limit``)
        self.duplicates = 0  # entries read again and dropped

    def add(self, changes: Iterable[Change]) -> list[Change]:
        """Take a page (oldest first, as the feed returns it); the new changes, newest first."""
        fresh: list[Change] = []
        for change in changes:
            key = change.key
            if key in self._seen:
                self.duplicates += 1
                continue
            self._seen[key] = None
            if len(self._seen) > self._seen_limit:
                self._seen.popitem(last=False)
            self._rows.appendleft(change)
            fresh.append(change)
        self.added += len(fresh)
        fresh.reverse()
        return fresh

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Change]:
        return iter(self._rows)

    def __getitem__(self, index: int) -> Change:
        return self._rows[index]

    @property
    def dropped(self) -> int:
        """Changes that arrived but have left the window (it keeps the newest only)."""
        return self.added - len(self._rows)

    def clear(self) -> None:
        """Forget the rows but not the keys: a replay after this still shows nothing twice."""
        self._rows.clear()
