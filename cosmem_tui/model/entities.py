"""The nouns of the console: containers, items, tenants, threads, turns, charges.

Plain frozen dataclasses; they cross every layer, so they import nothing but the
standard library.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar, overload

from cosmem_tui.model.keys import Key
from cosmem_tui.model.ttl import ItemTtl

JsonValue = Any  # a value decoded from JSON; items are attacker-controlled data
PartitionKeyValue = tuple[JsonValue, ...]

T = TypeVar("T")


class Scope(StrEnum):
    """How much of the container one request touches (what it costs to be wrong)."""

    METADATA = "metadata"  # container/account properties, no items
    POINT = "point"  # one item by id and full partition key
    PARTITION = "single-partition"  # a query scoped by the full partition key
    PREFIX = "prefix"  # a query scoped by a hierarchical key prefix
    RANGE = "range"  # a query of one physical partition (a feed range), asked on purpose
    CROSS_PARTITION = "cross-partition"  # a fan-out over every partition
    METRICS = "metrics"  # an Azure Monitor metrics call (no RU: billed per call)
    LOGS = "logs"  # a Log Analytics query (no RU: counted against the workspace's limits)
    EMBEDDINGS = "embeddings"  # an Azure OpenAI embeddings call (no RU: billed in tokens)


@dataclass(frozen=True, slots=True)
class PartitionKeyDefinition:
    paths: tuple[str, ...]
    kind: str = "Hash"  # "Hash" or "MultiHash" (hierarchical)
    version: int = 2

    @property
    def hierarchical(self) -> bool:
        return self.kind == "MultiHash" or len(self.paths) > 1

    def describe(self) -> str:
        inner = ",".join(self.paths)
        return f"[{inner}]" if self.hierarchical else inner


@dataclass(frozen=True, slots=True)
class ContainerProperties:
    """What ``container.read()`` tells us, normalised across backends."""

    database: str
    container: str
    partition_key: PartitionKeyDefinition
    default_ttl: int | None  # None = TTL off; -1 = on, no default; n = seconds
    indexing_policy: Mapping[str, JsonValue] = field(default_factory=dict)
    vector_embedding_policy: Mapping[str, JsonValue] | None = None
    full_text_policy: Mapping[str, JsonValue] | None = None

    def default_ttl_display(self) -> str:
        if self.default_ttl is None:
            return "off"
        if self.default_ttl == -1:
            return "on (no default)"
        return f"{self.default_ttl}s"


@dataclass(frozen=True, slots=True)
class Item:
    """One stored document exactly as the service returned it (system properties included)."""

    id: str
    partition_key: PartitionKeyValue
    ts: int  # _ts, epoch seconds of the last write
    etag: str
    body: Mapping[str, JsonValue]

    def raw_json(self) -> str:
        return json.dumps(self.body, indent=2, ensure_ascii=False, sort_keys=False)


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of results plus the opaque continuation for the next (None = last page)."""

    items: tuple[T, ...]
    continuation: str | None


@dataclass(frozen=True, slots=True)
class ThreadRef:
    """Names one thread (one logical partition on the standard schemas).

    ``tenant`` is None on schemas without a tenant level. Both keep their JSON types:
    the tenant ``42`` and the tenant ``"42"`` are different partitions.
    """

    tenant: Key | None
    thread: Key

    @classmethod
    def of(cls, tenant: object, thread: object) -> ThreadRef:
        """From raw JSON values (``tenant=None``: no tenant level; a list: a composite thread)."""
        thread_key = Key(thread) if isinstance(thread, list | tuple) else Key.of(thread)
        return cls(None if tenant is None else Key.of(tenant), thread_key)

    def describe(self, tenant_label: str = "tenant") -> str:
        if self.tenant is None:
            return f"thread {self.thread.text}"
        return f"{tenant_label} {self.tenant.text} / thread {self.thread.text}"


@dataclass(frozen=True, slots=True)
class KeyCounts:
    """Counts of one top-level key (a tenant, or a thread on schemas without tenants)."""

    items: int  # visible items
    last_activity: int | None  # newest _ts, epoch seconds
    threads: int | None = None  # a tenant's threads
    short_term: int | None = None  # a thread's items that expire
    long_term: int | None = None  # a thread's items that never expire


@dataclass(frozen=True, slots=True)
class KeyPage:
    """One request's worth of top-level keys, and where the listing resumes (None: done)."""

    keys: tuple[Key, ...]
    cursor: str | None
    ranges_done: int  # physical partitions fully listed so far
    ranges_total: int


@dataclass(frozen=True, slots=True)
class Tenant:
    key: Key
    threads: int
    items: int
    last_activity: int | None  # newest _ts, epoch seconds

    @property
    def name(self) -> str:
        return self.key.text


@dataclass(frozen=True, slots=True)
class Thread:
    ref: ThreadRef
    items: int  # visible items (turns plus long-term records)
    last_activity: int | None
    short_term: int  # items with a positive effective ttl
    long_term: int  # items that never expire
    # A sentinel thread id the schema names (AMT's __user_summary__ …): not a conversation,
    # listed apart from the real threads under this label.
    pseudo: str | None = None

    @property
    def name(self) -> str:
        return self.ref.thread.text


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    text: str


class MessageColumns(Sequence[Message]):
    """A turn's messages kept as the item's own two columns of strings (each role as
    stored, each text), a Message made only when one is asked for: a session document of
    50,000 messages opens as the hundred the pane draws, not as 50,000 objects.

    ``roles`` (in order of first use, after ``role_map``) and ``text_bytes`` (the UTF-8
    size of every text) are counted once, by whoever built the columns. It equals, and
    hashes as, the tuple of its messages.
    """

    __slots__ = ("_role_map", "_roles", "_texts", "made", "roles", "text_bytes")

    def __init__(
        self,
        roles: Sequence[str],
        texts: Sequence[str],
        role_map: Mapping[str, str],
        *,
        distinct_roles: tuple[str, ...],
        text_bytes: int,
    ) -> None:
        assert len(roles) == len(texts)
        self._roles = roles
        self._texts = texts
        self._role_map = role_map
        self.roles = distinct_roles
        self.text_bytes = text_bytes
        self.made = 0  # Messages made so far (a count for the tests: bounded by the screen)

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Message, ...]: ...
    def __getitem__(self, index: int | slice) -> Message | tuple[Message, ...]:
        if isinstance(index, slice):
            return tuple(self._make(i) for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("message index out of range")
        return self._make(index)

    def __iter__(self) -> Iterator[Message]:
        for index in range(len(self)):
            yield self._make(index)

    def _make(self, index: int) -> Message:
        self.made += 1
        role = self._roles[index]
        return Message(self._role_map.get(role, role), self._texts[index])

    @property
    def texts(self) -> Sequence[str]:
        """Every message's text, in order, without making the messages."""
        return self._texts

    def text_bytes_from(self, start: int) -> int:
        """The UTF-8 size of the texts from message ``start`` on (the first ones are
        measured, the rest is the total less them: a note under the hundred drawn)."""
        head = self._texts[:start]
        return self.text_bytes - sum(len(t.encode("utf-8", "surrogatepass")) for t in head)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MessageColumns | tuple):  # as the tuple of its messages
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"MessageColumns({len(self)} messages)"


@dataclass(frozen=True, slots=True)
class Turn:
    """One row of a thread, whatever the item granularity underneath."""

    item_id: str
    order: JsonValue  # the schema's order value as stored (may be malformed)
    timestamp: float | None  # epoch seconds of the turn itself (falls back to _ts)
    kind: str  # "turn", "summary", "fact", ...
    # A tuple, or MessageColumns for an item's array of messages (made on demand).
    messages: Sequence[Message]
    ttl: ItemTtl
    problems: tuple[str, ...] = ()  # why this item is malformed, empty when fine
    part: int | None = None  # session granularity: the message's index inside the item

    @property
    def key(self) -> tuple[str, int | None]:
        """Identifies the row: several turns share one item when it holds a whole session."""
        return self.item_id, self.part

    @property
    def malformed(self) -> bool:
        return bool(self.problems)

    @property
    def roles(self) -> tuple[str, ...]:
        if isinstance(self.messages, MessageColumns):
            return self.messages.roles  # counted once, not per row drawn
        seen: list[str] = []
        for message in self.messages:
            if message.role not in seen:
                seen.append(message.role)
        return tuple(seen)


class Kind(StrEnum):
    """What one HTTP request was for (the ledger counts them all, not only queries)."""

    QUERY = "query"  # a page of a query
    QUERY_PLAN = "query-plan"  # the SDK asking the gateway how to run a query
    RANGES = "ranges"  # reading the container's partition key ranges
    POINT = "point"  # one item by id
    METADATA = "metadata"  # account, database or container properties
    LOCAL = "local"  # the local workspace: no HTTP, a modelled request
    MONITOR = "monitor"  # Azure Monitor (metrics, logs, the account's resource) or its simulator
    WRITE = "write"  # a write of one item (patch, replace, delete): only with --allow-writes
    EMBEDDINGS = "embeddings"  # text made into a query vector by an embeddings deployment


@dataclass(frozen=True, slots=True)
class RequestCharge:
    """One request as the ledger saw it: one HTTP response (or one that never came)."""

    operation: str  # e.g. "list-threads", "turns-page", "read-item"
    scope: Scope
    request_units: float
    duration_ms: float
    item_count: int
    status: int  # HTTP status: 200, 404, 429, ...; 0 when no answer came
    simulated: bool  # True when the charge is modelled, not measured
    target: str = ""  # what was asked for, for the request log
    activity_id: str | None = None
    retry_after_ms: float | None = None
    kind: Kind = Kind.QUERY
    attempt: int = 1  # 2 and more: the console retried this call after a 429 or a failure
    call: int = 0  # the logical call (one page, one read) this response belongs to
    cancelled: bool = False  # the caller gave up (user moved on, deadline): no answer used
    cause: str = ""  # the view/action that asked, e.g. "browse: tenant counts"
    at: float = 0.0  # wall-clock time of the answer, epoch seconds
    background: bool = False  # counts and samples run in the background, stop at the budget
    seq: int = 0  # the ledger's own number for this record (1, 2, …), set when recorded
    unit: str = "RU"  # what the charge counts: RU for Cosmos; other sources bring their own
    # What the call was admitted at (its estimate; None: not admitted, e.g. metadata), and
    # whether this response took the session past the budget the call was admitted under.
    admitted_ru: float | None = None
    over_budget: bool = False
    # The answer's x-ms-substatus (None: none sent): for a 429 its cause
    # (``model.substatus.throttle_cause``), for a 410 why the routing was stale.
    sub_status: int | None = None

    @property
    def outcome(self) -> str:
        """``200``, ``429``, … or ``cancelled`` / ``no answer``."""
        if self.cancelled:
            return "cancelled"
        return str(self.status) if self.status else "no answer"
