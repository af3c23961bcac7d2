"""Every HTTP request the fake gateway answered, for tests to count and inspect.

One ``Entry`` per request (a retried request is several entries): what it was (kind,
operation, range, partition key, query), what came back (status, sub-status, charge,
rows, continuation out) and which fault, if any, shaped it. Tests count attempts per
page from here instead of trusting the client's own accounting.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Entry:
    seq: int
    method: str
    path: str
    kind: str  # metadata | pkranges | query | query-plan | point | feed
    operation: str  # e.g. read-account, create-item, upsert-item, query, query-plan, read-pkranges
    database: str | None = None
    container: str | None = None
    item_id: str | None = None
    range_id: str | None = None  # the range that served it (or the one asked for)
    partition_key: str | None = None  # the x-ms-documentdb-partitionkey header
    start_epk: str | None = None
    end_epk: str | None = None
    query: str | None = None
    parameters: list[dict[str, Any]] | None = None
    max_item_count: int | None = None
    continuation_in: str | None = None
    continuation_out: str | None = None
    priority: str | None = None
    headers: dict[str, str] = field(default_factory=dict)  # the request's x-ms-* headers
    status: int | None = None  # None while a hung request is still open
    sub_status: int | None = None
    charge: float = 0.0
    item_count: int = 0
    fault: str | None = None
    duration_s: float = 0.0
    activity_id: str = ""

    @property
    def throttled(self) -> bool:
        return self.status == 429


class RequestLog:
    """Thread-safe, append-only list of entries (the server appends, tests read)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[Entry] = []
        self._seq = 0

    def open(self, **fields: Any) -> Entry:
        with self._lock:
            self._seq += 1
            entry = Entry(seq=self._seq, **fields)
            self._entries.append(entry)
            return entry

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def entries(self) -> list[Entry]:
        with self._lock:
            return list(self._entries)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries())

    def of(
        self,
        kind: str | None = None,
        *,
        status: int | None = None,
        range_id: str | None = None,
        query: str | None = None,
        where: Callable[[Entry], bool] | None = None,
    ) -> list[Entry]:
        """Entries of a kind (and status, range, query substring, predicate)."""
        out = []
        for e in self.entries():
            if kind is not None and e.kind != kind:
                continue
            if status is not None and e.status != status:
                continue
            if range_id is not None and e.range_id != range_id:
                continue
            if query is not None and (e.query is None or query not in e.query):
                continue
            if where is not None and not where(e):
                continue
            out.append(e)
        return out

    def queries(self, **kwargs: Any) -> list[Entry]:
        return self.of("query", **kwargs)

    def charge(self, kind: str | None = None) -> float:
        return round(sum(e.charge for e in self.of(kind)), 2)

    def summary(self) -> str:
        """One line per request: handy in an assertion message."""
        lines = []
        for e in self.entries():
            lines.append(
                f"#{e.seq} {e.method} {e.path} {e.kind} range={e.range_id} -> {e.status}"
                f"{'/' + str(e.sub_status) if e.sub_status else ''} {e.charge}RU "
                f"rows={e.item_count} cont_in={bool(e.continuation_in)} "
                f"cont_out={bool(e.continuation_out)}{' [' + e.fault + ']' if e.fault else ''}"
            )
        return "\n".join(lines)
