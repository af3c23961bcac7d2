"""The nouns of the console: containers, items, tenants, threads, turns, charges.

Plain frozen dataclasses; they cross every layer, so they import nothing but the
standard library.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

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
    CROSS_PARTITION = "cross-partition"  # a fan-out over every partition


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
    """Names one thread (one logical partition on the standard schemas)."""

    tenant: str | None
    thread: str

    def describe(self, tenant_label: str = "tenant") -> str:
        if self.tenant is None:
            return f"thread {self.thread}"
        return f"{tenant_label} {self.tenant} / thread {self.thread}"


@dataclass(frozen=True, slots=True)
class Tenant:
    name: str
    threads: int
    items: int
    last_activity: int | None  # newest _ts, epoch seconds


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
        return self.ref.thread


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    text: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One row of a thread, whatever the item granularity underneath."""

    item_id: str
    order: JsonValue  # the schema's order value as stored (may be malformed)
    timestamp: float | None  # epoch seconds of the turn itself (falls back to _ts)
    kind: str  # "turn", "summary", "fact", ...
    messages: tuple[Message, ...]
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
        seen: list[str] = []
        for message in self.messages:
            if message.role not in seen:
                seen.append(message.role)
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class RequestCharge:
    """One request as the gateway saw it."""

    operation: str  # e.g. "list-threads", "turns-page", "read-item"
    scope: Scope
    request_units: float
    duration_ms: float
    item_count: int
    status: int  # HTTP-like status: 200, 404, 429, ...
    simulated: bool  # True when the charge is modelled, not measured
    target: str = ""  # what was asked for, for the request log
    activity_id: str | None = None
    retry_after_ms: float | None = None
