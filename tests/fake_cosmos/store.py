"""The fake account's state: databases, containers, physical ranges and documents.

Documents live in the physical range that owns their EPK, keyed by ``(epk, id)``
(ids are unique per logical partition). Each range keeps, lazily and only until its
next write, its documents sorted by ``(epk, seq)`` and one sorted index per property
path a query walks, so paging, seeks and DISTINCT over tens of thousands of items
stay in the milliseconds. ``seq`` is the document's creation ordinal: the ``_rid``
order, the tie-break of ORDER BY in both directions.

TTL is lazy, as the service's is observable: an expired document stays in memory but
is invisible to reads, queries and conflict checks from the moment ``now >= _ts + ttl``
(container ``defaultTtl`` absent = off and item ``ttl`` ignored; -1 = on without a
default; item ``ttl: -1`` = never). It is *purged* — removed, and its delete written to
the change log — later, by ``Container.purge`` (``change_log``).

Every write, delete and purge is in the container's change log (``change_log``), which
serves the change feed (``routes_feed``).
"""

from __future__ import annotations

import binascii
import bisect
import functools
import itertools
import json
import struct
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.fake_cosmos.change_log import ChangeLog
from tests.fake_cosmos.clock import ClockLike
from tests.fake_cosmos.ranges import MAX_EPK, MIN_EPK, KeyDefinition, layout
from tests.fake_cosmos.sql_eval import get_path
from tests.fake_cosmos.values import Descending, SortKey, sort_key

MAX_TTL = 2_147_483_647
DEFAULT_INDEXING_POLICY: dict[str, Any] = {
    "indexingMode": "consistent",
    "automatic": True,
    "includedPaths": [{"path": "/*"}],
    "excludedPaths": [{"path": '/"_etag"/?'}],
}
SYSTEM_PROPERTIES = ("_rid", "_self", "_etag", "_attachments", "_ts")
INF = float("inf")
# Resource ids and range ids are unique in the process, not per fake account: the SDK
# caches routing maps per endpoint and container *name*, process-wide, and a later fake
# can get an earlier one's port. A stale map then names ranges that do not exist here,
# which answers 410 and makes the SDK reload it, instead of silently misrouting.
_RESOURCES = itertools.count(1)
_RANGE_IDS = itertools.count(0)
MISSING_ID = "The input content is invalid because the required properties - 'id; ' - are missing"
PRECONDITION = "Operation cannot be performed because one of the specified precondition is not met."


class Conflict(Exception):
    """409: an entity with that id already exists."""


class NotFound(Exception):
    """404: no such entity (or it has expired)."""


class PreconditionFailed(Exception):
    """412: the If-Match etag is stale."""


class BadRequest(Exception):
    """400 with a service-like message."""


def _rid(raw: bytes) -> str:
    """Resource ids are base64 (with ``-`` for ``/``, so they fit in a path)."""
    return binascii.b2a_base64(raw, newline=False).decode("ascii").replace("/", "-")


def valid_item_ttl(raw: object) -> int | None:
    if isinstance(raw, bool) or not isinstance(raw, int):
        return None
    if raw == -1 or 1 <= raw <= MAX_TTL:
        return raw
    return None


@dataclass(slots=True)
class Doc:
    id: str
    epk: str
    seq: int
    body: dict[str, Any]
    ts: int
    item_ttl: int | None
    etag: str
    lsn: int = 0  # the change log's LSN of this version (its last write)
    _size: int = -1

    @property
    def size(self) -> int:
        if self._size < 0:
            self._size = len(json.dumps(self.body, separators=(",", ":")).encode("utf-8"))
        return self._size

    @property
    def key(self) -> tuple[str, int]:
        return (self.epk, self.seq)


@dataclass
class PathIndex:
    """One range's index of one property path: entries sorted by (value key, seq)."""

    entries: list[tuple[SortKey, int, Doc]]
    keys: list[tuple[Any, ...]]
    _desc: tuple[list[tuple[SortKey, int, Doc]], list[tuple[Any, ...]]] | None = None

    @classmethod
    def build(cls, docs: Iterable[Doc], path: tuple[str | int, ...]) -> PathIndex:
        entries = [(sort_key(get_path(d.body, path)), d.seq, d) for d in docs]
        entries.sort(key=lambda e: (e[0], e[1]))
        return cls(entries, [(e[0], e[1]) for e in entries])

    def descending(self) -> tuple[list[tuple[SortKey, int, Doc]], list[tuple[Any, ...]]]:
        """Entries by value descending, ties still by seq ascending (not a reversal)."""
        if self._desc is None:
            groups: list[list[tuple[SortKey, int, Doc]]] = []
            for entry in self.entries:
                if groups and groups[-1][0][0] == entry[0]:
                    groups[-1].append(entry)
                else:
                    groups.append([entry])
            entries = [e for group in reversed(groups) for e in group]
            self._desc = (entries, [(Descending(e[0]), e[1]) for e in entries])
        return self._desc


@dataclass
class PartitionRange:
    """One physical partition: ``[min, max)`` of the EPK space and its documents."""

    id: str
    min: str
    max: str
    parents: list[str] = field(default_factory=list)
    rid_prefix: int = 0
    docs: dict[tuple[str, str], Doc] = field(default_factory=dict)
    version: int = 0
    _ordered: tuple[int, list[tuple[str, int]], list[Doc]] | None = None
    _indexes: dict[tuple[str | int, ...], tuple[int, PathIndex]] = field(default_factory=dict)

    def touch(self) -> None:
        self.version += 1

    def ordered(self) -> tuple[list[tuple[str, int]], list[Doc]]:
        if self._ordered is None or self._ordered[0] != self.version:
            docs = sorted(self.docs.values(), key=lambda d: (d.epk, d.seq))
            self._ordered = (self.version, [d.key for d in docs], docs)
        return self._ordered[1], self._ordered[2]

    def index(self, path: tuple[str | int, ...]) -> PathIndex:
        cached = self._indexes.get(path)
        if cached is None or cached[0] != self.version:
            cached = (self.version, PathIndex.build(self.docs.values(), path))
            self._indexes[path] = cached
        return cached[1]

    def contains(self, epk: str) -> bool:
        return self.min <= epk and (self.max == MAX_EPK or epk < self.max)

    def resource(self, container: Container) -> dict[str, Any]:
        return {
            "id": self.id,
            "_rid": _rid(container.rid_bytes + struct.pack("<I", int(self.id) + 1)),
            "_self": f"{container.self_link}pkranges/{self.id}/",
            "_etag": f'"{container.rid}-{self.id}"',
            "minInclusive": self.min,
            "maxExclusive": self.max,
            "ridPrefix": self.rid_prefix,
            "throughputFraction": 1.0 / max(1, len(container.ranges)),
            "status": "online",
            "parents": list(self.parents),
            "_ts": container.created_ts,
            "_lsn": self.version + 1,
        }


def _pattern_steps(pattern: str) -> tuple[list[str], str]:
    parts = [p for p in pattern.strip("/").split("/") if p != ""]
    if not parts:
        return [], "*"
    last = parts[-1]
    tail = last if last in ("?", "*", "[]") else ""
    if tail:
        parts = parts[:-1]
    return [json.loads(p) if p.startswith('"') else p for p in parts], tail or "?"


def _indexed(policy: Mapping[str, Any], path: tuple[str | int, ...]) -> bool:
    """Whether a scalar path is range-indexed: the most specific matching pattern wins."""
    if str(policy.get("indexingMode", "consistent")).lower() == "none":
        return False
    steps = ["[]" if isinstance(s, int) else s for s in path]
    best: tuple[float, bool] | None = None
    for include, key in ((True, "includedPaths"), (False, "excludedPaths")):
        for entry in policy.get(key) or ():
            prefix, tail = _pattern_steps(str(entry.get("path", "")))
            if steps[: len(prefix)] != prefix:
                continue
            if tail == "?" and len(prefix) != len(steps):
                continue
            score = len(prefix) + (0.5 if tail == "?" else 0.0) + (0.25 if not include else 0.0)
            if best is None or score > best[0]:
                best = (score, include)
    return best is not None and best[1]


@dataclass
class Container:
    database: Database
    id: str
    rid_bytes: bytes
    key: KeyDefinition
    ranges: list[PartitionRange]
    created_ts: int
    default_ttl: int | None = None
    indexing_policy: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_INDEXING_POLICY))
    throughput: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # The approximate vector index of the fake (``tests/fake_cosmos/search.py``): vectors
    # rounded to multiples of this when ORDER BY ranks without brute force; None: exact.
    vector_quantum: float | None = None
    generation: int = 1
    history: list[tuple[int, list[str]]] = field(default_factory=list)
    feed: ChangeLog = field(default_factory=ChangeLog)
    _seq: int = 0
    _writes: int = 0
    _mins: list[str] = field(default_factory=list)

    def install(self, boundaries: list[str]) -> None:
        """Create the initial ranges ``["", b1), [b1, b2) … [bn, "FF")``."""
        edges = [MIN_EPK, *boundaries, MAX_EPK]
        self.ranges = [self.new_range(lo, hi) for lo, hi in itertools.pairwise(edges)]
        self._reindex_ranges()
        self.history = [(self.generation, [r.id for r in self.ranges])]

    # -- identity -------------------------------------------------------------------------

    @functools.cached_property
    def rid(self) -> str:
        return _rid(self.rid_bytes)

    @functools.cached_property
    def self_link(self) -> str:
        return f"dbs/{self.database.rid}/colls/{self.rid}/"

    @property
    def etag(self) -> str:
        return f'"{self.rid}-{self.generation}-{self.default_ttl}"'

    def resource(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            **self.extra,
            "id": self.id,
            "indexingPolicy": self.indexing_policy,
            "partitionKey": self.key.resource(),
            "conflictResolutionPolicy": self.extra.get(
                "conflictResolutionPolicy",
                {
                    "mode": "LastWriterWins",
                    "conflictResolutionPath": "/_ts",
                    "conflictResolutionProcedure": "",
                },
            ),
            "geospatialConfig": {"type": "Geography"},
            "_rid": self.rid,
            "_ts": self.created_ts,
            "_self": self.self_link,
            "_etag": self.etag,
            "_docs": "docs/",
            "_sprocs": "sprocs/",
            "_triggers": "triggers/",
            "_udfs": "udfs/",
            "_conflicts": "conflicts/",
        }
        if self.default_ttl is not None:
            body["defaultTtl"] = self.default_ttl
        else:
            body.pop("defaultTtl", None)
        return body

    # -- ranges ---------------------------------------------------------------------------

    def _reindex_ranges(self) -> None:
        self.ranges.sort(key=lambda r: r.min)
        self._mins = [r.min for r in self.ranges]

    def range_for(self, epk: str) -> PartitionRange:
        return self.ranges[bisect.bisect_right(self._mins, epk) - 1]

    def range_by_id(self, range_id: str) -> PartitionRange | None:
        for r in self.ranges:
            if r.id == range_id:
                return r
        return None

    def overlapping(self, lo: str, hi: str) -> list[PartitionRange]:
        """Ranges intersecting ``[lo, hi)``."""
        return [
            r for r in self.ranges if r.min < hi and (r.max == MAX_EPK or lo < r.max) and lo < hi
        ]

    def split(self, range_id: str, at: str) -> tuple[PartitionRange, PartitionRange]:
        """Split a range at ``at``; its documents move to the two children."""
        parent = self.range_by_id(range_id)
        if parent is None or not (parent.min < at and (parent.max == MAX_EPK or at < parent.max)):
            raise ValueError(f"cannot split range {range_id!r} at {at!r}")
        left = self.new_range(parent.min, at, parents=[*parent.parents, parent.id])
        right = self.new_range(at, parent.max, parents=[*parent.parents, parent.id])
        for doc_key, doc in parent.docs.items():
            (left if doc.epk < at else right).docs[doc_key] = doc
        self.ranges.remove(parent)
        self.ranges.extend((left, right))
        self._reindex_ranges()
        self.generation += 1
        self.history.append((self.generation, [left.id, right.id]))
        return left, right

    def new_range(self, lo: str, hi: str, parents: list[str] | None = None) -> PartitionRange:
        range_id = str(next(_RANGE_IDS))
        return PartitionRange(range_id, lo, hi, parents or [], rid_prefix=int(range_id))

    def changed_since(self, etag: str | None) -> list[PartitionRange] | None:
        """Ranges added after the generation named by ``etag`` (None: unknown → all)."""
        if etag is None:
            return None
        try:
            rid, generation = etag.strip('"').rsplit(":", 1)
            since = int(generation)
        except ValueError:
            return None
        if rid != self.rid or since > self.generation:
            return None
        added = {rid for gen, ids in self.history if gen > since for rid in ids}
        return [r for r in self.ranges if r.id in added]

    @property
    def pkranges_etag(self) -> str:
        return f'"{self.rid}:{self.generation}"'

    # -- documents ------------------------------------------------------------------------

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def expires_at(self, doc: Doc) -> float | None:
        if self.default_ttl is None:
            return None
        ttl = doc.item_ttl if doc.item_ttl is not None else self.default_ttl
        if ttl == -1:
            return None
        return doc.ts + ttl

    def visible(self, doc: Doc, now: float) -> bool:
        if self.default_ttl is None:
            return True
        ttl = doc.item_ttl if doc.item_ttl is not None else self.default_ttl
        return ttl == -1 or now < doc.ts + ttl

    def indexed(self, path: tuple[str | int, ...]) -> bool:
        return _indexed(self.indexing_policy, path)

    def find(self, epk: str, item_id: str, now: float) -> Doc | None:
        doc = self.range_for(epk).docs.get((epk, item_id))
        if doc is None or not self.visible(doc, now):
            return None
        return doc

    def write(
        self, body: Mapping[str, Any], now: float, *, mode: str, if_match: str | None = None
    ) -> tuple[Doc, bool]:
        """Create, upsert or replace one item; returns (doc, created)."""
        item_id = body.get("id")
        if not isinstance(item_id, str) or not item_id:
            raise BadRequest(MISSING_ID)
        if any(ch in item_id for ch in "/\\?#"):
            raise BadRequest(
                "The input name contains an invalid character ('/', '\\\\', '?' or '#')."
            )
        values = self.key.values_of(body)
        epk = self.key.epk(values)
        owner = self.range_for(epk)
        self.purge(now)
        existing = owner.docs.get((epk, item_id))
        if existing is not None and not self.visible(existing, now):
            if mode != "replace":  # an expired item written again: its purge comes first
                self.purge(now, force=existing)
            existing = None
        if mode == "create" and existing is not None:
            raise Conflict("Entity with the specified id already exists in the system.")
        if mode == "replace" and existing is None:
            raise NotFound("Entity with the specified id does not exist in the system.")
        if if_match is not None and existing is not None and existing.etag != if_match:
            raise PreconditionFailed(PRECONDITION)
        seq = existing.seq if existing is not None else self.next_seq()
        doc = self._make(body, item_id, epk, seq, int(now))
        owner.docs[(epk, item_id)] = doc
        owner.touch()
        self._log_version(doc, values, existing)
        return doc, existing is None

    def _log_version(self, doc: Doc, values: tuple[Any, ...], existing: Doc | None) -> None:
        self.feed.record(
            "create" if existing is None else "replace",
            lsn=doc.lsn,
            crts=doc.ts,
            epk=doc.epk,
            item_id=doc.id,
            key=values,
            body=doc.body,
            previous_lsn=existing.lsn if existing is not None else None,
        )
        expiry = self.expires_at(doc)
        if expiry is not None:
            self.feed.next_purge = min(self.feed.next_purge, expiry + self.feed.purge_lag_s)

    def purge(self, now: float, *, force: Doc | None = None) -> int:
        """The TTL purge step: remove the items expired at least ``purge_lag_s`` ago
        (and ``force``, an expired item written again) and log each as a delete with
        ``timeToLiveExpired``, at the purge's own time. Returns how many it purged."""
        log = self.feed
        if self.default_ttl is None or (
            force is None and now < log.next_purge and log.purge_ttl_seen == self.default_ttl
        ):
            return 0
        due: list[tuple[float, int, PartitionRange, Doc]] = []
        upcoming = INF
        for rng in self.ranges:
            for doc in rng.docs.values():
                expiry = self.expires_at(doc)
                if expiry is None:
                    continue
                if doc is force or (expiry <= now and expiry + log.purge_lag_s <= now):
                    due.append((expiry, doc.seq, rng, doc))
                else:
                    upcoming = min(upcoming, expiry + log.purge_lag_s)
        log.next_purge = upcoming
        log.purge_ttl_seen = self.default_ttl
        due.sort(key=lambda d: (d[0], d[1]))
        for _, _, rng, doc in due:
            del rng.docs[(doc.epk, doc.id)]
            rng.touch()
            log.record(
                "delete",
                lsn=log.next_lsn(),
                crts=int(now),
                epk=doc.epk,
                item_id=doc.id,
                key=self.key.values_of(doc.body),
                body=None,
                previous_lsn=doc.lsn,
                ttl_expired=True,
            )
        return len(due)

    def _make(self, body: Mapping[str, Any], item_id: str, epk: str, seq: int, ts: int) -> Doc:
        stored = {k: v for k, v in body.items() if k not in SYSTEM_PROPERTIES}
        rid = _rid(self.rid_bytes + struct.pack("<Q", seq))
        self._writes += 1
        etag = f'"{seq:08x}-{self._writes:08x}"'
        lsn = self.feed.next_lsn()
        stored["_rid"] = rid
        stored["_self"] = f"{self.self_link}docs/{rid}/"
        stored["_etag"] = etag
        stored["_attachments"] = "attachments/"
        stored["_ts"] = ts
        return Doc(item_id, epk, seq, stored, ts, valid_item_ttl(stored.get("ttl")), etag, lsn)

    def delete(self, epk: str, item_id: str, now: float) -> Doc:
        owner = self.range_for(epk)
        self.purge(now)
        doc = owner.docs.get((epk, item_id))
        if doc is None or not self.visible(doc, now):
            raise NotFound("Entity with the specified id does not exist in the system.")
        del owner.docs[(epk, item_id)]
        owner.touch()
        self.feed.record(
            "delete",
            lsn=self.feed.next_lsn(),
            crts=int(now),
            epk=epk,
            item_id=item_id,
            key=self.key.values_of(doc.body),
            body=None,
            previous_lsn=doc.lsn,
        )
        return doc

    def seed(self, items: Iterable[Mapping[str, Any]], now: float) -> int:
        """Bulk insert (upsert semantics) without HTTP; ``_ts`` in an item is kept."""
        count = 0
        touched: set[str] = set()
        for body in items:
            item_id = body.get("id")
            if not isinstance(item_id, str) or not item_id:
                raise BadRequest(f"item without a string id: {body!r}"[:200])
            epk = self.key.epk(self.key.values_of(body))
            owner = self.range_for(epk)
            existing = owner.docs.get((epk, item_id))
            seq = existing.seq if existing is not None else self.next_seq()
            raw_ts = body.get("_ts")
            ts = raw_ts if isinstance(raw_ts, int) and not isinstance(raw_ts, bool) else int(now)
            doc = self._make(body, item_id, epk, seq, ts)
            owner.docs[(epk, item_id)] = doc
            self._log_version(doc, self.key.values_of(body), existing)
            touched.add(owner.id)
            count += 1
        for r in self.ranges:
            if r.id in touched:
                r.touch()
        return count

    def all_docs(self) -> Iterator[Doc]:
        for r in self.ranges:
            yield from r.ordered()[1]


@dataclass
class Database:
    id: str
    rid_bytes: bytes
    created_ts: int
    throughput: int | None = None
    containers: dict[str, Container] = field(default_factory=dict)

    @functools.cached_property
    def rid(self) -> str:
        return _rid(self.rid_bytes)

    def resource(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "_rid": self.rid,
            "_self": f"dbs/{self.rid}/",
            "_etag": f'"{self.rid}"',
            "_colls": "colls/",
            "_users": "users/",
            "_ts": self.created_ts,
        }


class Store:
    """Every database of the fake account; one re-entrant lock guards all of it."""

    def __init__(self, clock: ClockLike, *, default_ranges: int = 4) -> None:
        self.clock = clock
        self.default_ranges = default_ranges
        self.lock = threading.RLock()
        # The approximate vector index of containers created from now on (search.py);
        # None: exact. ``FakeCosmos.create_container(vector_quantum=…)`` sets one alone.
        self.vector_quantum: float | None = None
        self.databases: dict[str, Database] = {}

    def now(self) -> float:
        return self.clock.now()

    def create_database(
        self, db_id: str, *, throughput: int | None = None, exist_ok: bool = False
    ) -> Database:
        with self.lock:
            found = self.databases.get(db_id)
            if found is not None:
                if exist_ok:
                    return found
                raise Conflict("Entity with the specified id already exists in the system.")
            raw = struct.pack("<I", (next(_RESOURCES) * 2654435761) & 0xFFFFFFFF)
            db = Database(db_id, raw, int(self.now()), throughput)
            self.databases[db_id] = db
            return db

    def database(self, db_id: str) -> Database:
        found = self.databases.get(db_id)
        if found is None:
            raise NotFound(f"Resource Not Found. Database '{db_id}' does not exist.")
        return found

    def container(self, db_id: str, coll_id: str) -> Container:
        found = self.database(db_id).containers.get(coll_id)
        if found is None:
            raise NotFound(f"Resource Not Found. Container '{coll_id}' does not exist.")
        return found

    def create_container(
        self,
        db_id: str,
        coll_id: str,
        key: KeyDefinition,
        *,
        ranges: int | None = None,
        boundaries: list[str] | None = None,
        split_inside: Iterable[str] = (),
        default_ttl: int | None = None,
        indexing_policy: Mapping[str, Any] | None = None,
        throughput: int | None = None,
        extra: Mapping[str, Any] | None = None,
        exist_ok: bool = False,
    ) -> Container:
        with self.lock:
            db = self.database(db_id)
            if coll_id in db.containers:
                if exist_ok:
                    return db.containers[coll_id]
                raise Conflict("Entity with the specified id already exists in the system.")
            if default_ttl is not None and (
                isinstance(default_ttl, bool)
                or not (default_ttl == -1 or 1 <= default_ttl <= MAX_TTL)
            ):
                raise BadRequest("The value of defaultTtl must be -1 or a positive integer.")
            count = ranges or self.default_ranges
            bounds = (
                sorted(boundaries) if boundaries is not None else layout(count, list(split_inside))
            )
            raw = db.rid_bytes + struct.pack("<I", (next(_RESOURCES) * 40503) & 0xFFFFFFFF)
            container = Container(
                database=db,
                id=coll_id,
                rid_bytes=raw,
                key=key,
                ranges=[],
                created_ts=int(self.now()),
                default_ttl=default_ttl,
                indexing_policy=dict(indexing_policy or DEFAULT_INDEXING_POLICY),
                throughput=throughput,
                extra=dict(extra or {}),
            )
            container.vector_quantum = self.vector_quantum
            container.install(bounds)
            db.containers[coll_id] = container
            return container
