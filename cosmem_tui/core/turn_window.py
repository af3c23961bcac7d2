"""What the console knows of one thread's turns, without ever holding the whole thread.

Continuation tokens only go forward, so a 100,000-turn thread cannot be opened at
row 70,000. The window keeps a *head* walk oldest-first and, once the user jumps
to the end, a *tail* walk newest-first. Rows between the two are placeholders
until paging reaches them.

The two walks are not mirror images. Stores order by the schema's order field
alone (customer containers have no composite index with ``id``), so items with
equal values come back in an arbitrary order that differs between the directions.
The walks are therefore joined by item identity, and the window is declared
complete only when that is proven:

* a walk whose continuation is None has seen the whole thread;
* otherwise, with ``h`` the value of the last item the head walk returned and
  ``t`` that of the tail walk: the head has returned every item ordered before
  ``h`` and the tail every item ordered after ``t``. If ``h`` is surely after
  ``t``, every item lies before ``h`` or after ``t``: head ∪ tail is the thread.
  If they are equal, items of that value may be missing from both walks, so
  paging goes on (from either end) until the values cross or a walk ends.

An item returned twice (by both walks, or by one walk after a concurrent write)
is kept once; a session document's turns (``Turn.part``) always arrive together,
so identity is the item id. Items written behind a walk after it passed are not
part of this view: a reload shows them.

Pure state, no I/O: workers fetch pages, the UI thread applies them here.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from enum import StrEnum

from cosmem_tui.core.browse import TurnPage
from cosmem_tui.model import JsonValue, ThreadRef, Turn
from cosmem_tui.model.ordering import order_key, surely_after

TurnKey = tuple[str, int | None]


class Side(StrEnum):
    HEAD = "head"
    TAIL = "tail"


@dataclass
class _Walk:
    """One end's read: its turns in walk order, its items, and where it stands."""

    turns: list[Turn] = field(default_factory=list)
    values: dict[str, JsonValue] = field(default_factory=dict)  # item id → sort value
    started: bool = False
    continuation: str | None = None
    last: tuple[JsonValue] | None = None  # sort value of the last item the store returned

    @property
    def exhausted(self) -> bool:
        return self.started and self.continuation is None

    def take(self, page: TurnPage) -> list[Turn]:
        """Record a page; the turns of items this walk had not returned before."""
        self.started = True
        self.continuation = page.continuation
        fresh: list[Turn] = []
        keys: set[TurnKey] = set()
        items: set[str] = set()  # items this page returns for the first time
        for turn, value in zip(page.turns, page.sort_values, strict=True):
            self.last = (value,)  # the walk's position, even on an item seen before
            if turn.item_id in self.values and turn.item_id not in items:
                continue  # an earlier page returned it (the item moved, or the store repeats)
            if turn.key in keys:
                continue
            self.values[turn.item_id] = value
            items.add(turn.item_id)
            keys.add(turn.key)
            fresh.append(turn)
        self.turns.extend(fresh)
        return fresh


class TurnWindow:
    def __init__(self, ref: ThreadRef, expected_total: int | None = None) -> None:
        self.ref = ref
        # The thread list's count when the thread was opened from it; None: unknown.
        self.expected_total = expected_total
        self._head = _Walk()
        self._tail = _Walk()
        # Tail turns whose item the head has not returned, newest first: the rows shown
        # at the bottom while the walks are apart.
        self._tail_rows: list[Turn] = []
        self._merged: list[Turn] | None = None
        self._head_index: dict[TurnKey, int] = {}
        self._tail_index: dict[TurnKey, int] | None = {}  # position in _tail_rows
        self._merged_index: dict[TurnKey, int] | None = None

    # -- state -------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        return self._merged is not None

    def _walk(self, side: Side) -> _Walk:
        return self._head if side is Side.HEAD else self._tail

    def started(self, side: Side) -> bool:
        return self._walk(side).started

    def can_fetch(self, side: Side) -> bool:
        return not self.complete and not self._walk(side).exhausted

    def continuation(self, side: Side) -> str | None:
        return self._walk(side).continuation

    def __len__(self) -> int:
        """Rows to show: the loaded turns, plus placeholders for what is not loaded yet.

        While the thread is not proven complete at least one placeholder stays
        between the walks, so scrolling onto it pages on even when the expected
        total is unknown or already reached.
        """
        if self._merged is not None:
            return len(self._merged)
        expected = self.expected_total or 0
        if not (self._head.started or self._tail.started):
            return expected
        return max(expected, self.loaded + 1)

    @property
    def loaded(self) -> int:
        """Distinct turns loaded (a turn both walks returned counts once)."""
        if self._merged is not None:
            return len(self._merged)
        return len(self._head.turns) + len(self._tail_rows)

    @property
    def estimated_total(self) -> int | None:
        """The total as far as it is known: exact once complete, else the expected count."""
        if self._merged is not None:
            return len(self._merged)
        if self.expected_total is None:
            return None
        return max(self.expected_total, self.loaded)

    def get(self, index: int) -> Turn | None:
        """The turn at ``index`` (oldest = 0), or None while it is not loaded."""
        if self._merged is not None:
            return self._merged[index] if 0 <= index < len(self._merged) else None
        head = self._head.turns
        if 0 <= index < len(head):
            return head[index]
        from_end = len(self) - 1 - index
        if 0 <= from_end < len(self._tail_rows):
            return self._tail_rows[from_end]
        return None

    def index_of(self, key: TurnKey) -> int | None:
        """Where the turn ``key`` is shown now (rows move as walks merge), None if not loaded."""
        if self._merged is not None:
            if self._merged_index is None:
                self._merged_index = {t.key: i for i, t in enumerate(self._merged)}
            return self._merged_index.get(key)
        if key in self._head_index:
            return self._head_index[key]
        if self._tail_index is None:
            self._tail_index = {t.key: j for j, t in enumerate(self._tail_rows)}
        from_end = self._tail_index.get(key)
        return None if from_end is None else len(self) - 1 - from_end

    def loaded_from(self, side: Side) -> int:
        """How many rows are loaded without a gap from ``side``'s end."""
        if self._merged is not None:
            return len(self._merged)
        return len(self._head.turns) if side is Side.HEAD else len(self._tail_rows)

    def loaded_runs(self) -> list[tuple[int, list[Turn]]]:
        """The loaded rows as runs of consecutive turns: (index of the first, its turns).

        Within a run, neighbours are neighbours in the thread; between two runs lie rows
        not loaded yet, so nothing may be said about what is between them."""
        if self._merged is not None:
            return [(0, self._merged)] if self._merged else []
        runs = []
        if self._head.turns:
            runs.append((0, self._head.turns))
        if self._tail_rows:
            runs.append((len(self) - len(self._tail_rows), list(reversed(self._tail_rows))))
        return runs

    def number(self, index: int) -> int:
        """A row's position for display: 1 = oldest; -1 = newest while the middle is unknown.

        Head rows count from the oldest turn; tail rows of an incomplete window can
        only count back from the newest one.
        """
        if self._merged is not None or index < len(self._head.turns):
            return index + 1
        return index - len(self)

    def side_for(self, index: int) -> Side | None:
        """Which end to page from to fill a placeholder at ``index`` (None: nothing to do)."""
        if self.complete or self.get(index) is not None:
            return None
        head_gap = index - len(self._head.turns)
        tail_gap = (len(self) - len(self._tail_rows)) - 1 - index
        preferred = Side.HEAD if head_gap <= tail_gap else Side.TAIL
        other = Side.TAIL if preferred is Side.HEAD else Side.HEAD
        for side in (preferred, other):
            if self.can_fetch(side):
                return side
        return None

    def anchor(self, index: int) -> tuple[Side, int]:
        """The end a row is nearest to and its distance from it (to find it again later)."""
        size = len(self)
        from_end = size - 1 - index
        if self._merged is None:
            if index < len(self._head.turns):
                return Side.HEAD, index
            if from_end < len(self._tail_rows):
                return Side.TAIL, from_end
        return (Side.HEAD, index) if index <= from_end else (Side.TAIL, from_end)

    def at_anchor(self, side: Side, distance: int) -> int:
        """The row ``distance`` rows from ``side``'s end now (clamped to the rows there are)."""
        size = len(self)
        if size == 0:
            return 0
        index = distance if side is Side.HEAD else size - 1 - distance
        return max(0, min(index, size - 1))

    # -- applying pages -------------------------------------------------------------

    def apply(self, side: Side, page: TurnPage) -> None:
        if self.complete:
            return
        if side is Side.HEAD:
            fresh = self._head.take(page)
            start = len(self._head.turns) - len(fresh)
            for offset, turn in enumerate(fresh):
                self._head_index[turn.key] = start + offset
            if any(t.item_id in self._tail.values for t in fresh):
                self._tail_rows = [t for t in self._tail_rows if t.item_id not in self._head.values]
                self._tail_index = None
        else:
            fresh = self._tail.take(page)
            shown = [t for t in fresh if t.item_id not in self._head.values]
            if self._tail_index is not None:
                for offset, turn in enumerate(shown):
                    self._tail_index[turn.key] = len(self._tail_rows) + offset
            self._tail_rows.extend(shown)
        if self._proven_complete():
            self._merged = self._merge()

    def _proven_complete(self) -> bool:
        if self._head.exhausted or self._tail.exhausted:
            return True
        head_last, tail_last = self._head.last, self._tail.last
        if head_last is None or tail_last is None:
            return False
        return surely_after(head_last[0], tail_last[0])

    def _merge(self) -> list[Turn]:
        """Head and the tail's own rows as one list, oldest first, each turn once."""
        rest = list(reversed(self._tail_rows))  # oldest first; a session's parts in order
        if not rest:
            return list(self._head.turns)
        if not self._head.turns:
            return rest
        values = {**self._tail.values, **self._head.values}
        # Both inputs are in store order; a stable merge keeps them so, ties head first.
        merged = heapq.merge(self._head.turns, rest, key=lambda t: order_key(values[t.item_id]))
        return list(merged)
