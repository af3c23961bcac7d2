"""Search one whole thread on the server, not only its loaded rows.

``ThreadSearch`` pages the browse service's ``search_page`` lazily: a page of hits is asked
only when the user moves past the hits known so far, so "hit 3 of 12+" costs one
request, not the thread. A hit is a turn (an item may hold several turns: only the
ones whose text contains the searched text count, once each, however many of their
messages match). ``pages_to`` brings a hit's turn into a ``TurnWindow`` by paging its
head on, since continuations only go forward; the caller applies the pages.
"""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.core.browse import BrowseService, TurnPage
from cosmem_tui.model import ThreadRef, Turn
from cosmem_tui.sources.store import DEFAULT_PAGE_SIZE
from cosmem_tui.sources.text_search import check_search_text, fold

SEEK_PAGE_SIZE = 200  # turns per page while paging on to a hit (fewer requests than 50s)
_EMPTY_PAGES_MAX = 20  # a filtered query may answer empty pages before the next hit


@dataclass(frozen=True, slots=True)
class SearchHit:
    turn: Turn


def turn_matches(turn: Turn, text: str) -> bool:
    needle = fold(text)
    return any(needle in fold(message.text) for message in turn.messages)


class ThreadSearch:
    """The hits of one text in one thread, fetched a page at a time, in list order."""

    def __init__(
        self,
        browse: BrowseService,
        ref: ThreadRef,
        text: str,
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> None:
        self.browse = browse
        self.ref = ref
        self.text = check_search_text(text)
        self.page_size = page_size
        self.hits: list[SearchHit] = []
        self._keys: set[tuple[str, int | None]] = set()
        self._continuation: str | None = None
        self._started = False

    @property
    def exhausted(self) -> bool:
        """True once the store said there are no more hits."""
        return self._started and self._continuation is None

    def count_text(self) -> str:
        """``12`` when every hit is known, ``12+`` while more pages may hold others."""
        return f"{len(self.hits)}" if self.exhausted else f"{len(self.hits)}+"

    def describe(self, index: int) -> str:
        """``hit 3 of 12+`` for the hit at ``index`` (0-based)."""
        return f"hit {index + 1} of {self.count_text()}"

    async def fetch_page(self) -> list[SearchHit]:
        """The next page's new hits (empty at the end, or after many empty pages)."""
        if self.exhausted:
            return []
        for _ in range(_EMPTY_PAGES_MAX):
            page = await self.browse.search_page(
                self.ref, self.text, continuation=self._continuation, page_size=self.page_size
            )
            self._started = True
            self._continuation = page.continuation
            fresh: list[SearchHit] = []
            for turn in page.turns:
                if turn.key not in self._keys and turn_matches(turn, self.text):
                    self._keys.add(turn.key)
                    fresh.append(SearchHit(turn))
            self.hits.extend(fresh)
            if fresh or self.exhausted:
                return fresh
        return []

    async def hit(self, index: int) -> SearchHit | None:
        """The hit at ``index``, fetching pages until it is known; None past the last."""
        while index >= len(self.hits) and not self.exhausted:
            if not await self.fetch_page() and not self.exhausted:
                break  # only empty pages so far: ask again on the next move
        return self.hits[index] if 0 <= index < len(self.hits) else None


async def pages_to(
    browse: BrowseService,
    ref: ThreadRef,
    item_id: str,
    *,
    continuation: str | None,
    started: bool,
    page_size: int = SEEK_PAGE_SIZE,
) -> list[TurnPage]:
    """Head pages from where the head walk stands until one holds ``item_id``.

    ``started``/``continuation``: the head walk's state (not started: from the first
    page). Returns the pages in order for the window to apply; an ended walk gives none.
    """
    pages: list[TurnPage] = []
    if started and continuation is None:
        return pages
    while True:
        page = await browse.turns_page(ref, continuation=continuation, page_size=page_size)
        pages.append(page)
        continuation = page.continuation
        if continuation is None or any(t.item_id == item_id for t in page.turns):
            return pages
