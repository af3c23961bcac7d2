"""Recall probes on a local workspace: exact vector search and FTS5 full-text, in the console.

A workspace has no vector index, so every vector probe is the exact one: the candidates'
distances to the query vector are computed in chunks (numpy, ``vector_scores.py``) while
the scope's rows stream past, and only their scores are kept (memory stays flat however
large the tenant). Full-text ranks with
SQLite FTS5's ``bm25()`` over the schema's text paths, in a temp table built for the
probe. Hybrid is Reciprocal Rank Fusion of the two whole rankings, computed here: the
service's own RRF constant is not documented, so the console labels it an approximation.

Scores are Cosmos ``VectorDistance`` values (``Distance``): larger is closer for cosine
and dot product, smaller for euclidean.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from cosmem_tui.model import JsonValue, Key, ThreadRef
from cosmem_tui.model.recall import RecallFilter, RecallQuery, admitted, rrf
from cosmem_tui.schemas import FieldPath
from cosmem_tui.sources.local.vector_table import StoredVector


@dataclass(frozen=True, slots=True)
class Candidate:
    """One item of the scope that passed the filters: its id, keys and parsed body."""

    id: str
    tenant: str | None
    thread: str | None
    body: Mapping[str, JsonValue]
    # False when the item's JSON text spells neither true nor false: it holds no bool.
    may_hold_bools: bool = True
    # The embedding from the vectors table (vector_table.py); ``body`` then lacks it.
    stored: StoredVector | None = None


@dataclass(slots=True)
class Scan:
    """What a probe read: the candidates it looked at (for the modelled charge)."""

    scanned: int = 0


def candidates(
    rows: Iterable[tuple[Any, ...]], filters: tuple[RecallFilter, ...], scan: Scan
) -> Iterator[Candidate]:
    """The rows (id, tenant_key, thread_key, body, dims, norm, vector) that pass every
    filter, parsed. An item with a stored vector comes with its slim body (no embedding),
    which is what the filters read; the others' vector columns are NULL."""
    for item_id, tenant, thread, raw, dims, norm, vector in rows:
        scan.scanned += 1
        body = orjson.loads(raw)
        if not isinstance(body, dict):
            continue
        if all(admitted(rule, body) for rule in filters):
            if vector is not None:
                yield Candidate(
                    item_id, tenant, thread, body, stored=StoredVector(dims, norm, vector)
                )
                continue
            text = raw.decode() if isinstance(raw, bytes) else raw
            bools = "true" in text or "false" in text  # a substring search, in C
            yield Candidate(item_id, tenant, thread, body, bools)


_NUMBERS = frozenset({int, float})


def vector_of(
    body: Mapping[str, JsonValue], path: FieldPath, *, may_hold_bools: bool = True
) -> list[float] | None:
    """The vector at ``path`` when it may be one: a non-empty array with no bool in it
    (VectorDistance is undefined for anything but numbers, and the item is not ranked).

    Only a body whose JSON text spells ``true`` or ``false`` can hold a bool, and only
    then are the element types looked at (in C, ``set(map(type, …))``). Any other
    non-number (a string, null, an object, an array) is refused by the scorer's
    conversion to float64 (``BulkScorer.add_numbers``): checking the types of 1,536
    numbers per item up front was a quarter of an exact probe's time."""
    value = path.get(body)
    if not isinstance(value, list) or not value:
        return None
    if may_hold_bools and not set(map(type, value)) <= _NUMBERS:
        return None  # a bool is no number here, as in Cosmos SQL
    return value


@dataclass(frozen=True, slots=True)
class Ranked:
    id: str
    tenant: str | None
    thread: str | None
    score: float | None


def top_vector(
    found: Iterable[Candidate], query: RecallQuery, *, everything: bool = False
) -> list[Ranked]:
    """The k closest candidates, best first (``everything``: every scored one, ranked).

    The vectors are scored in chunks while the candidates stream past
    (``vector_scores.py``): only their scores and keys are kept, never the vectors.
    Closest first, ties broken by id (then keys: an id is unique only within a
    partition) so every run ranks alike."""
    # numpy loads with the first vector probe, not with the console.
    from cosmem_tui.sources.local.vector_scores import BulkScorer, may_rank

    assert query.vector is not None and query.vector_path is not None
    path = FieldPath.parse(query.vector_path)
    scorer = BulkScorer(query.vector, query.distance)
    keys: list[tuple[str, str | None, str | None]] = []
    for candidate in found:
        if candidate.stored is not None:
            kept = scorer.add_stored(candidate.stored)
        else:
            vector = vector_of(candidate.body, path, may_hold_bools=candidate.may_hold_bools)
            kept = vector is not None and scorer.add_numbers(vector)
        if kept:
            keys.append((candidate.id, candidate.tenant, candidate.thread))
    scores = scorer.scores()
    firsts = -scores if query.distance.larger_is_closer else scores
    chosen = range(len(keys)) if everything else may_rank(firsts, query.k)
    first_of, score_of = firsts.tolist(), scores.tolist()

    def order(n: int) -> tuple[float, str, str, str]:
        item_id, tenant, thread = keys[n]
        return (first_of[n], item_id, tenant or "", thread or "")

    ranked = sorted(chosen, key=order) if everything else heapq.nsmallest(query.k, chosen, order)
    return [Ranked(*keys[n], score_of[n]) for n in ranked]


def text_of(body: Mapping[str, JsonValue], paths: tuple[str, ...]) -> str:
    """The texts at the schema's full-text paths, joined (strings only, as FullTextScore)."""
    parts = []
    for raw in paths:
        value = FieldPath.parse(raw).get(body)
        if isinstance(value, str):
            parts.append(value)
    return "\n".join(parts)


def match_expression(terms: tuple[str, ...]) -> str:
    """An FTS5 query matching any of the terms, each quoted as a string (no operators)."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def fuse(rankings: Iterable[list[Ranked]], k: int) -> list[tuple[Ranked, float]]:
    """Reciprocal Rank Fusion of whole rankings (``model.recall.rrf``), best first.

    Items are told apart by id and keys: an id is unique only within its partition, and
    a tenant's probe spans its threads."""
    ranks: dict[tuple[str, str, str], list[int]] = {}
    first: dict[tuple[str, str, str], Ranked] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            key = (hit.id, hit.tenant or "", hit.thread or "")
            ranks.setdefault(key, []).append(rank)
            first.setdefault(key, hit)
    fused = {key: rrf(found) for key, found in ranks.items()}
    order = sorted(fused, key=lambda key: (-fused[key], key))[:k]
    return [(first[key], fused[key]) for key in order]


def thread_ref(tenant: str | None, thread: str | None, arity: int) -> ThreadRef | None:
    """The ThreadRef of a row's key texts (None when the item has no thread key)."""
    if thread is None:
        return None
    return ThreadRef(Key.parse(tenant) if tenant is not None else None, Key.parse(thread, arity))
