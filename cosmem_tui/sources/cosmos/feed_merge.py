"""One read of the Cosmos change feed over several parts: their pages merged in commit
order (time, then LSN), at most ``limit`` handed out (``change_feed`` settles the rest).
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PART_PAGE_FLOOR = 10  # the fewest changes a part is asked for (see part_page)


@dataclass(frozen=True, slots=True)
class FeedRow:
    """One document of a part's page: None once it is known to be outside the scope."""

    body: Mapping[str, Any] | None
    lsn: int
    commit_time: int
    share: float = 0.0  # its share of the page's charge


@dataclass(frozen=True, slots=True)
class PartRead:
    rows: Sequence[Mapping[str, Any]]
    token: str | None
    not_modified: bool
    request_units: float
    full: bool = False  # as many rows as asked: more may follow


async def all_of(reads: Iterable[Coroutine[Any, Any, PartRead]]) -> list[PartRead]:
    """Every part's read, side by side; the first to fail stops the others (they are
    cancelled: the ledger says so) and its error is the read's."""
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(read) for read in reads]
    except BaseExceptionGroup as failed:
        first = failed.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None
    return [task.result() for task in tasks]


def part_page(limit: int, parts: int) -> int:
    """How many changes to ask each part for: twice its even share of ``limit`` (at
    least ``PART_PAGE_FLOOR``), so a read of many partitions fetches about what it
    hands out rather than ``limit`` from each. A part that fills its page only bounds
    the merge: the read hands out less, the next goes on."""
    share = -(-limit // max(parts, 1))
    return min(limit, max(PART_PAGE_FLOOR, 2 * share))


def merge(
    queues: list[list[FeedRow]], reads: list[PartRead], limit: int
) -> tuple[list[FeedRow], list[int]]:
    """Merge the parts' pages in commit order (time, then LSN): the changes handed out
    and how many of each part's rows they used up (rows outside the scope are used up
    as they are reached). The merge stops at ``limit``, or when a part whose page came
    back full runs out: what follows it may come before the other parts' rows."""
    consumed = [0] * len(queues)
    taken: list[FeedRow] = []

    heap: list[tuple[int, int, int]] = []

    def push_head(i: int) -> None:
        while consumed[i] < len(queues[i]):
            head = queues[i][consumed[i]]
            if head.body is not None:
                heapq.heappush(heap, (head.commit_time, head.lsn, i))
                return
            consumed[i] += 1  # outside the scope: used up as it is reached

    for i in range(len(queues)):
        push_head(i)
    while heap and len(taken) < limit:
        _, _, i = heapq.heappop(heap)
        taken.append(queues[i][consumed[i]])
        consumed[i] += 1
        push_head(i)
        if consumed[i] == len(queues[i]) and reads[i].full:
            break  # this part may have more, which may come before the others' rows
    return taken, consumed
