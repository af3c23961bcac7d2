"""What happened to one item or one thread: the change feed's events as a timeline.

``core/history_timeline.py`` makes these from ``Change`` records (``model/changes.py``);
``core/history.py`` reads the feed for them. Every time is epoch seconds.

An expiry has two times: when the item *expired* (``_ts + effective ttl`` of the last
version the feed showed, the moment it became invisible) and when the TTL purge
*removed* it (the expired change's commit time), which can lag the expiry by as long
as the account's spare throughput takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from cosmem_tui.model.changes import ChangeOp, FeedMode
from cosmem_tui.model.entities import JsonValue, ThreadRef

# The fields of a version the schema maps that a replace is compared on (``changed``).
CONTENT: Final = "content"  # the text, as the schema reads it (by digest)
TTL: Final = "ttl"  # the item's own ttl property
ROLE: Final = "role"
ORDER: Final = "order"
KIND: Final = "kind"


@dataclass(frozen=True, slots=True)
class HistoryEvent:
    """One entry of a timeline: a version written, or the item's removal.

    ``ttl`` is the version's own ttl as stored (for a removal: the last version's);
    ``expires_at`` when that version was due to expire (None: never, or not known);
    for an ``EXPIRED`` event it is when the item expired and ``purged_at`` when the
    purge removed it. ``changed`` names the compared fields that differ from the
    previous version seen (a replace), and ``ttl_reset`` says the write moved the
    expiry (every write restarts the countdown from its ``_ts``).
    """

    time: int
    op: ChangeOp
    item_id: str
    lsn: int
    order: JsonValue = None
    ttl: JsonValue = None
    ttl_effective: int | None = None
    expires_at: int | None = None
    purged_at: int | None = None
    changed: tuple[str, ...] = ()
    ttl_before: JsonValue = None
    expires_before: int | None = None
    ttl_reset: bool = False
    role: str | None = None
    kind: str | None = None
    preview: str = ""  # raw item text, one line: escaped where it is drawn or printed
    digest: str | None = None
    previous_seen: bool = False  # a version of this item came before it in the timeline

    @property
    def purge_lag(self) -> int | None:
        """Seconds between the expiry and the purge (an expired event's)."""
        if self.op is not ChangeOp.EXPIRED or self.expires_at is None or self.purged_at is None:
            return None
        return self.purged_at - self.expires_at


class NoteKind(StrEnum):
    SILENT = "silent"  # before this time the history cannot say anything
    RETENTION = "retention"  # what the feed's retention window still holds
    INVISIBLE = "invisible"  # what this mode cannot show, and the fix
    STOPPED = "stopped"  # the read stopped early (budget, request cap)


@dataclass(frozen=True, slots=True)
class HistoryNote:
    kind: NoteKind
    text: str  # may quote item text (ids): escaped where it is shown
    at: int | None = None  # the time it is about, when there is one


class ItemState(StrEnum):
    PRESENT = "present"
    ABSENT = "absent"  # not found now: deleted, expired, or never written
    UNKNOWN = "unknown"  # the read failed (budget, no answer)


@dataclass(frozen=True, slots=True)
class ItemNow:
    """The item as a point read finds it at the time of the history."""

    state: ItemState
    ts: int | None = None
    ttl: JsonValue = None
    expires_at: int | None = None
    ttl_effective: int | None = None
    detail: str = ""  # why it is unknown


@dataclass(frozen=True, slots=True)
class History:
    """The timeline of one item (``item_id``) or one thread, and where it is silent.

    ``since`` is the time the read began at (a saved position's time; None: the
    feed's beginning, latest-version mode); ``retained_since`` the oldest commit time
    the feed says it still holds. ``complete`` is False when the read stopped before
    the end of the feed (its note says why): the timeline is then short.
    """

    ref: ThreadRef
    item_id: str | None
    mode: FeedMode
    read_at: int
    events: tuple[HistoryEvent, ...]
    notes: tuple[HistoryNote, ...] = ()
    since: int | None = None
    retained_since: int | None = None
    complete: bool = True
    requests: int = 0
    request_units: float = 0.0
    container_default_ttl: int | None = None
    item: ItemNow | None = None
    invisible: str | None = None  # what the mode read cannot show (FeedUnavailable's reason)
    fix: str | None = None  # … and what would show it
    gone: frozenset[str] = field(default_factory=frozenset)  # ids whose removal is known
