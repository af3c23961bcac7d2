"""The fake container's change log: what both change feed modes are served from.

Every write gets the container's next LSN (one sequence for the container, so a
position taken in a range stays valid in its children after a split) and a commit
time (``crts``, the clock's second). The latest-version feed needs no log: it is the
visible documents themselves, in the order of their last write (``Doc.lsn``). The
all-versions-and-deletes feed reads ``entries``: creates and replaces with their body
as written and the LSN of the version they replace (``previousImageLSN``), deletes,
and TTL purges (``timeToLiveExpired``).

TTL purges lag expiry, as the service's do (they run on spare RU): an expired item is
invisible at once (``Container.visible``), but it is *purged* — removed, and its delete
recorded with the purge's own time — only by a purge step that runs at least
``purge_lag_s`` after it expired. The step runs before every write and every change
feed read, on the fake's clock, so a test moves time and sees the purge come.

``retention_s`` is the continuous-backup retention window: entries older than it are
dropped, and a position older than what is left answers 400 (the service's "outside
the retention window").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

INF = float("inf")


@dataclass(frozen=True, slots=True)
class Entry:
    lsn: int
    crts: int
    op: str  # "create", "replace" or "delete"
    epk: str
    id: str
    key: tuple[Any, ...]  # the partition key's values (a delete carries them)
    body: dict[str, Any] | None  # the version written (None: a delete)
    previous_lsn: int | None = None
    ttl_expired: bool = False


@dataclass
class ChangeLog:
    all_versions: bool = True  # the container offers all-versions-and-deletes mode
    purge_lag_s: float = 0.0
    retention_s: float | None = None  # None: every entry is kept
    lsn: int = 0
    entries: list[Entry] = field(default_factory=list)
    trimmed_through: int = 0  # entries with an LSN up to this are gone (retention)
    next_purge: float = 0.0  # no purge is due before this (a scan recomputes it)
    purge_ttl_seen: object = None  # the defaultTtl the last scan saw

    def next_lsn(self) -> int:
        self.lsn += 1
        return self.lsn

    def record(
        self,
        op: str,
        *,
        lsn: int,
        crts: int,
        epk: str,
        item_id: str,
        key: tuple[Any, ...],
        body: dict[str, Any] | None,
        previous_lsn: int | None = None,
        ttl_expired: bool = False,
    ) -> None:
        self.entries.append(
            Entry(
                lsn,
                crts,
                op,
                epk,
                item_id,
                key,
                body,  # a stored body is never changed in place: a write makes a new one
                previous_lsn,
                ttl_expired,
            )
        )

    def trim(self, now: float) -> None:
        """Drop what the retention window no longer holds."""
        if self.retention_s is None:
            return
        keep_from = now - self.retention_s
        dropped = 0
        for entry in self.entries:
            if entry.crts >= keep_from:
                break
            dropped += 1
            self.trimmed_through = entry.lsn
        if dropped:
            del self.entries[:dropped]

    def since(self, lsn: int, lo: str, hi: str | None) -> list[Entry]:
        """Entries after ``lsn`` whose EPK is in ``[lo, hi)`` (None: to the end)."""
        return [
            e for e in self.entries if e.lsn > lsn and e.epk >= lo and (hi is None or e.epk < hi)
        ]
