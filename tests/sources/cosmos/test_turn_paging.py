"""A thread paged from both ends on the Cosmos peer shows every turn once.

The turn queries order by the schema's order field alone; items with the same value
come back in the peer's own tie order (by _rid) in *both* directions, so the newest-
first walk is not the oldest-first walk reversed. The console must still join them.
"""

from __future__ import annotations

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.turn_window import Side, TurnWindow
from cosmem_tui.model import SystemClock, ThreadRef
from tests.helpers import exchange

REF = ThreadRef.of("acme", "t1")


def tied_thread() -> list[dict]:
    """12 turns: one before, ten sharing turnIndex 5, one after."""
    items = [exchange("acme", "t1", 0)]
    items += [{**exchange("acme", "t1", 5, f"tie {n}"), "id": f"t1-tie-{n:02}"} for n in range(10)]
    items += [exchange("acme", "t1", 11)]
    return items


async def test_ten_tied_turns_paged_by_three_from_both_ends(containers, open_store):
    items = tied_thread()
    seeded = await containers(items)
    service = BrowseService(open_store(seeded.settings()), SystemClock())
    window = TurnWindow(REF, len(items))
    for side in [Side.HEAD, Side.TAIL] * 10:
        if window.complete:
            break
        if not window.can_fetch(side):
            continue
        page = await service.turns_page(
            REF,
            continuation=window.continuation(side),
            page_size=3,
            newest_first=side is Side.TAIL,
        )
        window.apply(side, page)
        loaded = [t for t in (window.get(i) for i in range(len(window))) if t is not None]
        assert len({t.key for t in loaded}) == len(loaded) == window.loaded
        if window.complete:
            assert len(loaded) == len(items)
    assert window.complete
    rows = [window.get(i) for i in range(len(window))]
    assert sorted(t.item_id for t in rows if t is not None) == sorted(i["id"] for i in items)
    assert [t.order for t in rows if t is not None] == [0] + [5] * 10 + [11]
