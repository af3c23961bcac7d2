"""The container advisor's nouns: a finding, the item shapes it reads, the report.

A finding names the rule it comes from (the seed's rule names where the seed has one:
``partition-avoid-hotspots``, ``model-avoid-2mb-limit`` …; the console's own ``ttl-*``
rules where it has none), how bad it is, the evidence (counts and example ids) and the
fix. The advisor reads container properties and a bounded sample of *item shapes*:
what a projection can say about an item without sending it whole (its size, where its
vectors are and how long, how many messages it holds) — never an embedding itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from cosmem_tui.model.entities import ContainerProperties, JsonValue, PartitionKeyValue

# Where embeddings usually live, by property name: the vectors the advisor looks for, at
# the top level and inside the first message of an exchange or session document.
VECTOR_NAMES: Final = ("embedding", "embeddings", "vector", "contentVector", "content_vector")


class Severity(StrEnum):
    HIGH = "high"  # writes fail, data is lost or silently kept, queries fan out
    WARN = "warn"  # costs RU or storage every day, or will fail as data grows
    INFO = "info"  # worth knowing; cheaper or clearer when fixed

    @property
    def rank(self) -> int:
        return {"high": 0, "warn": 1, "info": 2}[self.value]


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str  # e.g. "partition-avoid-hotspots"
    severity: Severity
    title: str  # one line: what is wrong
    evidence: str  # counts, shares, the policy as read
    fix: str  # what to change
    count: int | None = None  # how many items (or keys) the evidence counts, when it counts
    examples: tuple[str, ...] = ()  # a few item ids or key texts, to look at


@dataclass(frozen=True, slots=True)
class ItemShape:
    """What the advisor needs of one item, measured where the item is (never the item)."""

    id: str
    partition_key: PartitionKeyValue
    ts: int  # _ts
    ttl: JsonValue  # the raw ttl, or MISSING
    size: int | None  # the item's JSON length (Cosmos: characters; local: bytes)
    created: JsonValue = None  # the schema's first time field, as stored (MISSING if absent)
    kind: JsonValue = None  # the schema's kind field, as stored (MISSING if absent)
    messages: int | None = None  # length of the schema's messages array, None: not an array
    # (path, dimensions) of every candidate vector property that holds an array of numbers
    vectors: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class AdviceReport:
    container: ContainerProperties
    findings: tuple[Finding, ...]  # worst first
    sampled: int  # item shapes read
    sample_request_units: float
    keys_listed: int | None  # top-level keys the directory knew (None: not listed)
    keys_counted: int  # of those, how many had counts
    notes: tuple[str, ...] = field(default_factory=tuple)  # what the advisor could not check
    sample_failed: str | None = None  # why no items were sampled (budget, a failure)

    def by_severity(self, severity: Severity) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity is severity)
