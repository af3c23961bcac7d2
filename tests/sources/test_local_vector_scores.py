"""Bulk scoring of an exact local probe (sources/local/vector_scores.py): a score depends on
its own vector only, whatever chunk it falls in and wherever it came from, and the top k
are those a sort of every candidate by (score, id, keys) puts first."""

from __future__ import annotations

import math
import random
import struct

import pytest

from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import Distance, ProbeMode, RecallQuery
from cosmem_tui.sources.local import vector_scores
from cosmem_tui.sources.local.recall import Candidate, top_vector
from cosmem_tui.sources.local.vector_scores import CHUNK, BulkScorer, may_rank
from cosmem_tui.sources.local.vector_table import StoredVector

DIMS = 97  # no multiple of any unrolling


def _vectors(count: int, seed: int = 3) -> list[list[float]]:
    rng = random.Random(seed)
    return [[rng.uniform(-1, 1) for _ in range(DIMS)] for _ in range(count)]


def _stored(vector: list[float]) -> StoredVector:
    return StoredVector(len(vector), math.hypot(*vector), struct.pack(f"<{DIMS}d", *vector))


@pytest.mark.parametrize("distance", list(Distance))
def test_a_score_is_its_vectors_alone_in_any_chunk_and_from_either_source(
    distance: Distance,
) -> None:
    vectors = _vectors(2 * CHUNK + 3)
    query = tuple(_vectors(1, seed=4)[0])
    from_bodies, from_table = BulkScorer(query, distance), BulkScorer(query, distance)
    for n, vector in enumerate(vectors):
        assert from_bodies.add_numbers(vector)
        assert from_table.add_stored(_stored(vector))
        if n % 2:  # a shifted mix: each vector sits elsewhere in its chunk
            assert from_table.add_numbers(vector)
    bodies = from_bodies.scores().tolist()
    table = from_table.scores().tolist()
    assert len(bodies) == len(vectors)
    for n, vector in enumerate(vectors):
        alone = BulkScorer(query, distance)
        alone.add_numbers(vector)
        assert bodies[n] == alone.scores().tolist()[0]  # to the last bit
        assert bodies[n] == pytest.approx(distance.score(vector, query))
    assert table == [s for n, s in enumerate(bodies) for _ in range(1 + n % 2)]


def test_vectors_the_service_skips_are_refused() -> None:
    scorer = BulkScorer((1.0, 2.0, 3.0), Distance.COSINE)
    assert not scorer.add_numbers([1.0, 2.0])
    assert not scorer.add_numbers([1.0, "2", 3.0])  # type: ignore[list-item]
    assert not scorer.add_numbers([1.0, None, 3.0])  # type: ignore[list-item]
    assert not scorer.add_numbers([1.0, [2.0], 3.0])  # type: ignore[list-item]
    assert not scorer.add_stored(StoredVector(2, 1.0, struct.pack("<2d", 1.0, 0.0)))
    assert scorer.add_numbers([0, 0, 0])  # no direction: cosine 0.0
    assert scorer.add_numbers([2, 4, 6])
    assert scorer.scores().tolist() == [0.0, pytest.approx(1.0)]


def test_may_rank_keeps_every_tie_at_the_kth() -> None:
    import numpy as np

    firsts = np.array([0.5, 0.1, 0.3, 0.3, 0.3, 0.9, 0.2])
    assert sorted(may_rank(firsts, 3)) == [1, 2, 3, 4, 6]
    assert sorted(may_rank(firsts, 2)) == [1, 6]
    assert list(may_rank(firsts, 7)) == list(range(7))
    with_nan = np.array([0.5, float("nan"), 0.1])
    assert list(may_rank(with_nan, 1)) == [0, 1, 2]


@pytest.mark.parametrize("chunk", [CHUNK, 7])
@pytest.mark.parametrize("distance", list(Distance))
def test_the_top_k_is_the_head_of_the_whole_ranking_ties_by_id(
    distance: Distance, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Few distinct vectors among many candidates: ties everywhere, at every k-th."""
    monkeypatch.setattr(vector_scores, "CHUNK", chunk)
    rng = random.Random(8)
    distinct = _vectors(6)
    found = []
    for n in range(600):
        vector = rng.choice(distinct)
        body = {"embedding": vector}
        stored = _stored(vector) if n % 3 else None  # from the table and from bodies
        found.append(
            Candidate(f"i{rng.randrange(10**6):07d}", "acme", f"t{n % 4}", body, True, stored)
        )
    query = tuple(_vectors(1, seed=9)[0])

    def probe(k: int, everything: bool = False) -> list[tuple[object, ...]]:
        asked = RecallQuery(
            scope=TtlScope(),
            mode=ProbeMode.EXACT,
            k=k,
            vector_path="/embedding",
            vector=query,
            distance=distance,
        )
        return [
            (h.id, h.tenant, h.thread, h.score)
            for h in top_vector(found, asked, everything=everything)
        ]

    whole = probe(10, everything=True)
    assert len(whole) == len(found)
    expected = sorted(
        whole,
        key=lambda h: (-h[3] if distance.larger_is_closer else h[3], h[0], h[1], h[2]),  # type: ignore[operator]
    )
    assert whole == expected
    for k in (1, 2, 50, 99, 100, 101, 599, 600, 700):
        assert probe(k) == whole[:k], k
