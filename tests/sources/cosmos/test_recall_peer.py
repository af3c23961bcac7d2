"""The npm Cosmos peer (@vercel/cosmosdb-server) and recall probes: its query engine
cannot order by a function, so it refuses every VectorDistance ORDER BY and every ORDER
BY RANK with a 400. The store must say so in one line, never answer a list of its own
making (no ranking is better than a wrong one)."""

from __future__ import annotations

import pytest

from cosmem_tui.model import Key
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import Distance, ProbeMode, RecallQuery
from cosmem_tui.sources.cosmos.recall import RecallRefused

ACME = TtlScope.of_tenant(Key.of("acme"))
VECTOR = (0.5,) * 8


@pytest.mark.parametrize(
    "query",
    [
        RecallQuery(ACME, ProbeMode.VECTOR, 3, "/embedding", Distance.COSINE, VECTOR),
        RecallQuery(ACME, ProbeMode.EXACT, 3, "/embedding", Distance.COSINE, VECTOR),
        RecallQuery(ACME, ProbeMode.TEXT, 3, text_paths=("/content",), terms=("hello",)),
    ],
    ids=["vector", "exact", "text"],
)
async def test_the_peer_refuses_a_probe_in_one_line(containers, open_store, query) -> None:
    seeded = await containers()
    store = open_store(seeded.settings())
    with pytest.raises(RecallRefused) as caught:
        await store.recall(query)
    message = str(caught.value)
    assert "\n" not in message and f"refused the {query.mode} recall probe" in message
    assert "vector embedding policy" in message
