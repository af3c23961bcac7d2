"""Whole-thread search in the turn list: a server-side search, ``n`` / ``N`` between hits.

The search (``core/thread_search.py``) pages its hits only as the user moves past the
ones known; a hit beyond the loaded rows is brought into the window by paging its
head on (``pages_to``). Both run through the turn column's loader, in its head
group: a jump supersedes a page in flight, so the head walk never takes a page twice
or out of order. Hits are marked in the list (``mark``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from cosmem_tui.core.browse import TurnPage
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.core.thread_search import SearchHit, ThreadSearch, pages_to
from cosmem_tui.core.turn_window import Side, TurnKey, TurnWindow
from cosmem_tui.model import Meter
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import cost_text
from cosmem_tui.ui.widgets.row_list import Cell

HIT_MARK = "▶"


class HitCursor:
    """One search of the open thread and the hit the user is on."""

    def __init__(self, search: ThreadSearch) -> None:
        self.search = search
        self.index: int | None = None  # the hit shown, None before the first jump
        self.keys: set[TurnKey] = set()  # turns known to be hits (marked in the list)
        self.busy = False

    @property
    def text(self) -> str:
        return self.search.text

    def status(self) -> str:
        quoted = one_line(self.text, 30)
        if self.index is None:
            if self.search.exhausted and not self.search.hits:
                return f"no turn of this thread contains “{quoted}” · Esc leaves the search"
            return f"searching the thread for “{quoted}”…"
        return (
            f"{self.search.describe(self.index)} for “{quoted}” · n next · N previous · "
            "Esc leaves the search"
        )


class HitColumn(Protocol):
    """What a jump needs of the turn column (``TurnColumn``)."""

    hits: HitCursor | None
    window: TurnWindow | None
    session: Session | None
    loader: Loader
    fetching: set[Side]

    def apply_head_pages(self, pages: Sequence[TurnPage]) -> None: ...

    def show_turn(self, key: TurnKey) -> None: ...

    def show_status(self, text: str, *, error: bool = False) -> None: ...


def mark(cells: Sequence[Cell], hit: bool) -> list[Cell]:
    """A hit's row: a mark before its first cell, its cells in the accent tone."""
    if not hit or not cells:
        return list(cells)
    first, _ = cells[0]
    return [(f"{HIT_MARK}{first}", "accent"), *((text, "accent") for text, _ in cells[1:])]


def jump(column: HitColumn, step: int) -> str:
    """Move to the next (``step`` 1) or previous (-1) hit; the status line to show now."""
    cursor, window, session = column.hits, column.window, column.session
    if cursor is None or window is None or session is None:
        return "no search: / then S searches the whole thread, or :search TEXT"
    target = 0 if cursor.index is None else cursor.index + step
    if target < 0:
        return f"already on the first hit · {cursor.status()}"
    if cursor.search.exhausted and target >= len(cursor.search.hits):
        if not cursor.search.hits:
            return cursor.status()
        return f"already on the last hit · {cursor.status()}"
    service, ref = session.browse, window.ref
    continuation, started = window.continuation(Side.HEAD), window.started(Side.HEAD)
    column.loader.bump()  # a page in flight would move the head walk under the jump
    column.fetching.clear()
    cursor.busy = True

    async def fetch() -> tuple[SearchHit | None, list[TurnPage]]:
        hit = await cursor.search.hit(target)
        if hit is None or window.index_of(hit.turn.key) is not None:
            return hit, []
        pages = await pages_to(
            service, ref, hit.turn.item_id, continuation=continuation, started=started
        )
        return hit, pages

    def arrived(result: tuple[SearchHit | None, list[TurnPage]], cost: Meter) -> None:
        cursor.busy = False
        hit, pages = result
        cursor.keys.update(h.turn.key for h in cursor.search.hits)
        column.apply_head_pages(pages)
        if hit is None:
            more = cursor.index is not None
            column.show_status(f"no more hits · {cursor.status()}" if more else cursor.status())
            return
        cursor.index = target
        column.show_turn(hit.turn.key)
        column.show_status(f"{cursor.status()} · {cost_text(cost)}")

    def failed(error: str) -> None:
        cursor.busy = False
        column.show_status(f"search: {error}", error=True)

    column.loader.start(
        session,
        fetch,
        arrived,
        failed,
        cause="browse: search the thread",
        group=f"turns-{Side.HEAD.value}",
    )
    return cursor.status()
