"""The recall probe's vocabulary: what the agent's own retrieval query asks, and what came back.

A probe is the query a memory system runs to recall (vector, exact vector, full-text or
hybrid), scoped as the system scopes it (a thread, a tenant's key prefix, the container)
and filtered as it filters. Every backend answers a ``RecallQuery`` with a
``RecallAnswer`` (``MemoryStore.recall``); ``core/recall.py`` runs the probes a question
needs and says, for an item the user expected, the one reason it was not recalled.

Scores follow Cosmos DB's ``VectorDistance``: for cosine and dot product a larger score
is closer, for euclidean a smaller one (``Distance.closer_first``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from cosmem_tui.model.entities import Item, JsonValue, ThreadRef
from cosmem_tui.model.lifecycle import TtlScope

# FullTextScore takes at most this many terms (learn: "Full-text search" limits).
MAX_TEXT_TERMS = 30
# Reciprocal Rank Fusion's constant, from its paper (Cormack et al.) and the SDK's source:
# learn does not document the service's, so a locally fused score is an approximation.
RRF_K = 60
# The largest k a probe asks for: TOP beyond this is a different question (an export).
MAX_PROBE_K = 1000


class Distance(StrEnum):
    """A vector embedding policy's ``distanceFunction``, spelled as the policy spells it."""

    COSINE = "cosine"
    DOT_PRODUCT = "dotproduct"
    EUCLIDEAN = "euclidean"

    @property
    def larger_is_closer(self) -> bool:
        return self is not Distance.EUCLIDEAN

    def score(self, a: Sequence[float], b: Sequence[float]) -> float:
        """VectorDistance(a, b) as the service computes it (same length assumed)."""
        if self is Distance.EUCLIDEAN:
            return math.sqrt(sum((x - y) * (x - y) for x, y in zip(a, b, strict=True)))
        dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
        if self is Distance.DOT_PRODUCT:
            return dot
        norms = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
        return dot / norms if norms else 0.0

    def closer(self, a: float, b: float) -> bool:
        """Is score ``a`` strictly closer than score ``b``?"""
        return a > b if self.larger_is_closer else a < b


class ProbeMode(StrEnum):
    VECTOR = "vector"  # ORDER BY VectorDistance(...): what the vector index returns
    EXACT = "exact"  # VectorDistance(..., true): brute force, the truth the index approximates
    TEXT = "text"  # ORDER BY RANK FullTextScore(...)
    HYBRID = "hybrid"  # ORDER BY RANK RRF(VectorDistance(...), FullTextScore(...))


class FilterOp(StrEnum):
    IN = "in"  # the value at path is one of values
    NOT_IN = "not_in"  # defined and not one of values, or undefined
    ABSENT = "absent"  # NOT IS_DEFINED(path) OR IS_NULL(path): e.g. not superseded
    PRESENT = "present"  # IS_DEFINED(path) AND NOT IS_NULL(path)


@dataclass(frozen=True, slots=True)
class RecallFilter:
    """One condition of the memory system's retrieval WHERE clause.

    ``path`` is a schema field path text (``/type``, ``/metadata/category``); ``label`` is
    how the console names it to a person ("not superseded")."""

    path: str
    op: FilterOp
    values: tuple[JsonValue, ...] = ()
    label: str = ""

    def describe(self) -> str:
        if self.label:
            return self.label
        shown = ", ".join(str(v) for v in self.values)
        return {
            FilterOp.IN: f"{self.path} in ({shown})",
            FilterOp.NOT_IN: f"{self.path} not in ({shown})",
            FilterOp.ABSENT: f"{self.path} absent or null",
            FilterOp.PRESENT: f"{self.path} present",
        }[self.op]


@dataclass(frozen=True, slots=True)
class RecallQuery:
    """One probe, as a backend runs it: one query (a single partition or a key prefix when
    the scope has a key; the container scope is a cross-partition fan-out)."""

    scope: TtlScope
    mode: ProbeMode
    k: int
    vector_path: str | None = None  # where the embedding is (the policy's path)
    distance: Distance = Distance.COSINE
    vector: tuple[float, ...] | None = None  # the query vector (VECTOR, EXACT, HYBRID)
    text_paths: tuple[str, ...] = ()  # FullTextScore's path (TEXT, HYBRID): the first one
    terms: tuple[str, ...] = ()  # key terms (TEXT, HYBRID), at most MAX_TEXT_TERMS
    filters: tuple[RecallFilter, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= self.k <= MAX_PROBE_K:
            raise ValueError(f"k must be between 1 and {MAX_PROBE_K}, got {self.k}")
        needs_vector = self.mode in (ProbeMode.VECTOR, ProbeMode.EXACT, ProbeMode.HYBRID)
        if needs_vector and (self.vector is None or self.vector_path is None):
            raise ValueError(f"a {self.mode} probe needs a query vector and a vector path")
        needs_text = self.mode in (ProbeMode.TEXT, ProbeMode.HYBRID)
        if needs_text and (not self.terms or not self.text_paths):
            raise ValueError(f"a {self.mode} probe needs key terms and a text path")
        if len(self.terms) > MAX_TEXT_TERMS:
            raise ValueError(f"FullTextScore takes at most {MAX_TEXT_TERMS} terms")


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One item a probe returned, in the order the query ranked it (rank 1 first).

    ``score`` is the VectorDistance for vector and exact probes (and for hybrid ones the
    vector distance the query also selected, when it did); None for text ranks, whose
    FullTextScore cannot be selected."""

    rank: int
    id: str
    thread: ThreadRef
    score: float | None


@dataclass(frozen=True, slots=True)
class RecallAnswer:
    """What one probe returned and what it cost."""

    query: RecallQuery
    hits: tuple[RecallHit, ...]
    request_units: float
    requests: int
    # True when the backend has no approximate index (the local workspace): its VECTOR
    # answer is the exact one, and the console says so instead of a recall@k of 1.
    index_is_exact: bool = False


@dataclass(frozen=True, slots=True)
class ItemLookup:
    """Where an item named by id is, looked up within a scope (``MemoryStore.lookup_item``).

    ``item`` is the whole item (embedding included: the one place an embedding is read)
    when it is visible; ``thread`` is its thread even when ``item`` is None because it
    expired and the backend still holds it (the local workspace, until its purge), with
    ``expired_at`` (epoch seconds, ``_ts`` + effective ttl). A Cosmos container hides an
    expired item at once: there it is simply not found (both None)."""

    item_id: str
    item: Item | None = None
    thread: ThreadRef | None = None
    expired_at: int | None = None
    request_units: float = 0.0

    @property
    def found(self) -> bool:
        return self.item is not None


@dataclass(frozen=True, slots=True)
class EmbeddingsDeployment:
    """An Azure OpenAI embeddings deployment named by the profile (``embeddings_endpoint``,
    ``embeddings_deployment``): what ``--text`` is embedded with outside the demo."""

    endpoint: str
    deployment: str


class Embedder(Protocol):
    """Turns key text into a query vector: an embeddings deployment, or the demo's own."""

    @property
    def label(self) -> str:
        """What made the vectors, for the screen ("demo embeddings", a deployment name)."""
        ...

    async def embed(self, text: str) -> tuple[float, ...]: ...


class WhyNot(StrEnum):
    """Why an expected item is not in the top k, in the order the console checks."""

    OUT_OF_SCOPE = "out_of_scope"
    EXPIRED = "expired"
    FILTERED = "filtered"
    NO_EMBEDDING = "no_embedding"
    WRONG_PATH = "wrong_path"
    WRONG_DIMENSIONS = "wrong_dimensions"
    RANKED_BELOW_K = "ranked_below_k"
    INDEX_MISSED = "index_missed"
    FOUND = "found"


def rrf(ranks: Iterable[int | None]) -> float:
    """Reciprocal Rank Fusion of one item's ranks (1 = best; None: that signal did not
    rank it): the sum of 1 / (RRF_K + rank), 0.0 when no signal ranked it."""
    return sum(1.0 / (RRF_K + rank) for rank in ranks if rank is not None)


def admitted(rule: RecallFilter, body: Mapping[str, JsonValue]) -> bool:
    """Does an item pass one filter, with Cosmos SQL's semantics (undefined ≠ null)?

    The path is read top-down from ``body`` (``/a/b``: ``body["a"]["b"]``); arrays are
    indexed by number segments."""
    value, defined = _at(body, rule.path)
    if rule.op is FilterOp.ABSENT:
        return not defined or value is None
    if rule.op is FilterOp.PRESENT:
        return defined and value is not None
    inside = defined and any(_same(value, v) for v in rule.values)
    return inside if rule.op is FilterOp.IN else not inside


def _at(body: Mapping[str, JsonValue], path: str) -> tuple[JsonValue, bool]:
    node: JsonValue = body  # a Mapping is a JSON object
    for segment in path.strip("/").split("/"):
        if isinstance(node, Mapping) and segment in node:
            node = node[segment]
        elif isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
            node = node[int(segment)]
        else:
            return None, False
    return node, True


def _same(a: JsonValue, b: JsonValue) -> bool:
    # Cosmos compares by JSON type: true is not 1, "1" is not 1.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b
