"""The local hybrid probe's fusion: one RRF (``model.recall.rrf``), items told apart by
id and keys (an id is unique only within its partition)."""

from __future__ import annotations

import pytest

from cosmem_tui.model.recall import RRF_K, rrf
from cosmem_tui.sources.local.recall import Ranked, fuse


def test_the_same_id_in_two_threads_is_two_items() -> None:
    one, other = Ranked("x", "acme", "t1", 0.9), Ranked("x", "acme", "t2", 0.8)
    fused = fuse([[one, other], [other]], k=10)
    assert [(hit.thread, score) for hit, score in fused] == [
        ("t2", pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))),
        ("t1", pytest.approx(1 / (RRF_K + 1))),
    ]


def test_rrf_counts_only_the_signals_that_ranked_the_item() -> None:
    assert rrf((1, None)) == pytest.approx(1 / (RRF_K + 1))
    assert rrf((None, None)) == 0.0
