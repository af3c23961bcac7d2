"""How fast a scope is written, by whom, and whether one tenant floods it: the last minute.

Changes are counted in one-second buckets by their commit time (``crts``, or ``_ts`` in
latest-version mode), so a poll that brings a second's worth at once still reads as the
rate it was written at, and a backlog read from the beginning counts only where it
falls in the last minute. At most ``RATE_WINDOW_S`` buckets are kept, each counting the
writers of its second: memory stays flat however long the tail runs.

The writer of a change is its tenant (its thread on schemas without tenants); a change
whose key names no thread of the schema counts in the total under no writer.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from typing import Final

from cosmem_tui.model.changes import Change
from cosmem_tui.model.keys import Key

RATE_WINDOW_S: Final = 60
TOP_WRITERS: Final = 3
# One tenant above this share of the minute's changes is a flood (a setting overrides it).
DEFAULT_FLOOD_SHARE: Final = 0.5
# Below this many changes in the minute no share means much: three writes are no flood.
FLOOD_MIN_CHANGES: Final = 30


def writer_of(change: Change) -> Key | None:
    ref = change.ref
    if ref is None:
        return None
    return ref.tenant if ref.tenant is not None else ref.thread


def check_flood_share(share: float) -> float:
    if not 0.0 < share <= 1.0:
        raise ValueError(f"a flood share is a fraction above 0 and at most 1, got {share}")
    return share


@dataclass(frozen=True, slots=True)
class WriterRate:
    writer: Key | None
    changes: int  # in the last minute
    per_s: float
    share: float  # of the minute's changes


@dataclass(frozen=True, slots=True)
class RateSummary:
    """The last minute as of ``now``: the total, every writer busiest first, a flood."""

    now: float
    span_s: float  # what the rates are over: the minute, or less since the tail started
    changes: int
    per_s: float
    writers: tuple[WriterRate, ...]
    flood: WriterRate | None
    flood_share: float

    @property
    def top(self) -> tuple[WriterRate, ...]:
        return self.writers[:TOP_WRITERS]


class RateMeter:
    def __init__(self, started_at: float, flood_share: float = DEFAULT_FLOOD_SHARE) -> None:
        self.started_at = started_at
        self.flood_share = check_flood_share(flood_share)
        self._buckets: deque[tuple[int, Counter[Key | None]]] = deque()  # oldest first

    def add(self, changes: list[Change], now: float) -> None:
        """Count changes (any order); those older than the minute are not kept."""
        oldest = int(now) - RATE_WINDOW_S + 1
        for change in changes:
            second = min(int(change.commit_time), int(now))  # a clock ahead of ours: now
            if second < oldest:
                continue
            self._bucket(second)[writer_of(change)] += 1
        self._expire(now)

    def _bucket(self, second: int) -> Counter[Key | None]:
        buckets = self._buckets
        if not buckets or buckets[-1][0] < second:
            buckets.append((second, Counter()))
            return buckets[-1][1]
        for at, counter in reversed(buckets):  # a late change: a recent bucket, mostly the last
            if at == second:
                return counter
            if at < second:
                break
        # between two kept seconds (or before all): insert in order
        items = list(buckets)
        counter = Counter[Key | None]()
        items.append((second, counter))
        items.sort(key=lambda pair: pair[0])
        buckets.clear()
        buckets.extend(items)
        return counter

    def _expire(self, now: float) -> None:
        oldest = int(now) - RATE_WINDOW_S + 1
        while self._buckets and self._buckets[0][0] < oldest:
            self._buckets.popleft()

    @property
    def buckets(self) -> int:
        return len(self._buckets)

    def summary(self, now: float, *, floods: bool = True) -> RateSummary:
        """The rates as of ``now``; ``floods``: look for one (a tenant's own tail does not)."""
        self._expire(now)
        totals: Counter[Key | None] = Counter()
        for _, counter in self._buckets:
            totals.update(counter)
        changes = sum(totals.values())
        since = self.started_at
        if self._buckets:
            since = min(since, self._buckets[0][0])
        span = min(float(RATE_WINDOW_S), max(1.0, now - since))
        # Busiest first; equal counts in the keys' own order, so the line does not flicker.
        ranked = sorted(
            (item for item in totals.items() if item[0] is not None),
            key=lambda item: (-item[1], item[0].sort_key() if item[0] is not None else ()),
        )
        writers = tuple(
            WriterRate(writer, count, count / span, count / changes) for writer, count in ranked
        )
        flood = None
        if floods and changes >= FLOOD_MIN_CHANGES and writers:
            busiest = writers[0]
            if busiest.share > self.flood_share:
                flood = busiest
        return RateSummary(now, span, changes, changes / span, writers, flood, self.flood_share)
