"""The change feed's vocabulary: what a store says happened to a container's items.

Cosmos DB has two change feed modes (learn: "Change feed modes"):

* **latest version** — the current version of each created or replaced item, once;
  no deletes (so no TTL expirations), and it cannot tell a create from a replace
  (``ChangeOp.WRITE``). It starts now, at a time, or from the beginning.
* **all versions and deletes** — every create, replace and delete with its metadata
  (``lsn``, ``crts``, ``previousImageLSN``, ``timeToLiveExpired``). A TTL expiry is a
  delete flagged ``timeToLiveExpired``, recorded when the item is *purged*, which can
  lag the expiry (purge uses spare RUs). It starts only now or from a continuation,
  and holds only what the continuous backup retention window still holds.

Every backend (local change log, Cosmos, the fake server) answers
``MemoryStore.read_changes`` with a ``ChangePage`` of ``Change`` records built by
``sources/changes.py``, so the same write reads the same everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from cosmem_tui.model.entities import JsonValue, ThreadRef

# The most changes one read returns (a page); the feed's own page size is the server's.
MAX_CHANGES_PER_READ: Final = 1000
DEFAULT_CHANGES_PER_READ: Final = 100


class FeedMode(StrEnum):
    LATEST = "latest"  # latest version: creates and replaces, no deletes
    ALL_VERSIONS = "all"  # all versions and deletes: every write, deletes, TTL purges

    @property
    def sees_deletes(self) -> bool:
        return self is FeedMode.ALL_VERSIONS

    @property
    def wire_name(self) -> str:
        """How the azure-cosmos SDK names the mode (``query_items_change_feed(mode=)``)."""
        return "LatestVersion" if self is FeedMode.LATEST else "AllVersionsAndDeletes"


class ChangeOp(StrEnum):
    CREATE = "create"
    REPLACE = "replace"
    WRITE = "write"  # latest-version mode: a create or a replace, the feed does not say which
    DELETE = "delete"  # deleted by a request
    EXPIRED = "expired"  # deleted by the TTL purge (``timeToLiveExpired``)

    @property
    def removes(self) -> bool:
        return self in (ChangeOp.DELETE, ChangeOp.EXPIRED)


class StartKind(StrEnum):
    NOW = "now"
    BEGINNING = "beginning"
    TIME = "time"


@dataclass(frozen=True, slots=True)
class FeedStart:
    """Where a new read of the feed begins (a continuation resumes instead)."""

    kind: StartKind = StartKind.NOW
    at: int | None = None  # epoch seconds, for ``StartKind.TIME``

    @classmethod
    def now(cls) -> FeedStart:
        return cls(StartKind.NOW)

    @classmethod
    def beginning(cls) -> FeedStart:
        return cls(StartKind.BEGINNING)

    @classmethod
    def at_time(cls, epoch_seconds: int) -> FeedStart:
        return cls(StartKind.TIME, int(epoch_seconds))

    def allowed_in(self, mode: FeedMode) -> bool:
        """All-versions mode starts only now (or from a saved continuation)."""
        return mode is FeedMode.LATEST or self.kind is StartKind.NOW

    def describe(self) -> str:
        if self.kind is StartKind.TIME:
            return f"since {self.at}"
        return "from now" if self.kind is StartKind.NOW else "from the beginning"


@dataclass(frozen=True, slots=True)
class Change:
    """One entry of the feed: one version of one item, or its removal.

    ``ref`` is the item's thread (a delete carries only its id and partition key, from
    which the thread is read); ``None`` when the key does not name a thread of the
    schema. ``ts`` and ``ttl`` are the version's own (``_ts``, its ``ttl`` property as
    stored, ``None`` when absent); a removal has neither. ``commit_time`` is ``crts`` in
    all-versions mode, the version's ``_ts`` in latest-version mode. ``digest`` is a short
    hash of the version's text (as the schema reads it), so a content edit shows
    between two replaces without keeping either text.
    """

    lsn: int
    op: ChangeOp
    commit_time: int
    item_id: str
    ref: ThreadRef | None
    partition_key: tuple[JsonValue, ...]
    order: JsonValue = None
    ts: int | None = None
    ttl: JsonValue = None
    kind: str | None = None
    role: str | None = None
    preview: str = ""  # raw text, one line: escaped where it is drawn or printed
    digest: str | None = None
    previous_lsn: int | None = None
    request_units: float = 0.0  # this change's share of its page's charge

    @property
    def key(self) -> tuple[int, str]:
        """Identifies a feed entry: the same item changes under several lsns."""
        return self.lsn, self.item_id

    @property
    def ttl_expired(self) -> bool:
        return self.op is ChangeOp.EXPIRED


@dataclass(frozen=True, slots=True)
class ChangePage:
    """One read of the feed: the changes in commit order (oldest first) and where to go on.

    ``not_modified`` is the service's 304: nothing new now. An empty page that is not
    ``not_modified`` does not mean caught up (the feed may return empty pages while more
    follow). ``retained_since`` is the oldest commit time the feed still holds for this
    scope, when the backend knows it (the local log's retention window); history before
    it is silent.
    """

    changes: tuple[Change, ...]
    continuation: str | None
    mode: FeedMode
    not_modified: bool = False
    request_units: float = 0.0
    retained_since: int | None = None


class FeedUnavailable(Exception):
    """The backend cannot serve this mode (or start): why, and what would enable it."""

    def __init__(self, mode: FeedMode, reason: str, fix: str) -> None:
        super().__init__(f"{reason} — {fix}")
        self.mode = mode
        self.reason = reason
        self.fix = fix
