"""What the console knows of one thread's turns, without ever holding the whole thread.

Continuation tokens only go forward, so a 100,000-turn thread cannot be opened at
row 70,000. The window keeps a *head* read oldest-first and, once the user jumps
to the end, a *tail* read newest-first. Rows between the two are placeholders
until paging reaches them; when head and tail meet they merge.

Pure state, no I/O: workers fetch pages, the UI thread applies them here.
"""

from __future__ import annotations

from enum import StrEnum

from cosmem_tui.core.browse import TurnPage
from cosmem_tui.model import ThreadRef, Turn


class Side(StrEnum):
    HEAD = "head"
    TAIL = "tail"


class TurnWindow:
    def __init__(self, ref: ThreadRef, expected_total: int | None = None) -> None:
        self.ref = ref
        self.expected_total = expected_total or 0
        self.head: list[Turn] = []
        self.tail: list[Turn] = []  # newest first
        self.head_continuation: str | None = None
        self.tail_continuation: str | None = None
        self.head_started = False
        self.tail_started = False
        self._merged: list[Turn] | None = None

    # -- state -------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        return self._merged is not None

    def _side_done(self, side: Side) -> bool:
        if side is Side.HEAD:
            return self.head_started and self.head_continuation is None
        return self.tail_started and self.tail_continuation is None

    def can_fetch(self, side: Side) -> bool:
        return not self.complete and not self._side_done(side)

    def continuation(self, side: Side) -> str | None:
        return self.head_continuation if side is Side.HEAD else self.tail_continuation

    def __len__(self) -> int:
        if self._merged is not None:
            return len(self._merged)
        return max(self.expected_total, len(self.head) + len(self.tail))

    @property
    def loaded(self) -> int:
        return len(self._merged) if self._merged is not None else len(self.head) + len(self.tail)

    def get(self, index: int) -> Turn | None:
        """The turn at ``index`` (oldest = 0), or None while it is not loaded."""
        if self._merged is not None:
            return self._merged[index] if 0 <= index < len(self._merged) else None
        if index < len(self.head):
            return self.head[index]
        from_end = len(self) - 1 - index
        if 0 <= from_end < len(self.tail):
            return self.tail[from_end]
        return None

    def side_for(self, index: int) -> Side | None:
        """Which end to page from to fill a placeholder at ``index`` (None: nothing to do)."""
        if self.complete or self.get(index) is not None:
            return None
        head_gap = index - len(self.head)
        tail_gap = (len(self) - len(self.tail)) - 1 - index
        preferred = Side.HEAD if head_gap <= tail_gap else Side.TAIL
        other = Side.TAIL if preferred is Side.HEAD else Side.HEAD
        for side in (preferred, other):
            if self.can_fetch(side):
                return side
        return None

    # -- applying pages -------------------------------------------------------------

    def apply(self, side: Side, page: TurnPage) -> None:
        if self.complete:
            return
        if side is Side.HEAD:
            self.head_started = True
            self.head.extend(page.turns)
            self.head_continuation = page.continuation
        else:
            self.tail_started = True
            self.tail.extend(page.turns)
            self.tail_continuation = page.continuation
        self._merge_if_met()

    def _merge_if_met(self) -> None:
        if self._side_done(Side.HEAD):
            self._merged = self.head
            return
        if self._side_done(Side.TAIL):
            self._merged = list(reversed(self.tail))
            return
        if not self.tail:
            return
        head_keys = {t.key for t in self.head}  # (item, part): session items hold many turns
        for j, turn in enumerate(self.tail):  # newest first: the first hit is the meeting point
            if turn.key in head_keys:
                self._merged = self.head + list(reversed(self.tail[:j]))
                return
