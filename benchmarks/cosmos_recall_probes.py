"""What a recall probe costs on the fake Cosmos server (tests/fake_cosmos), through the SDK.

    python benchmarks/cosmos_recall_probes.py [--items 10000] [--dims 1536] [--ranges 4]

Seeds one tenant of ``items`` lab items (100 threads, a ``dims``-dimension embedding
and a dozen words each) on a container with a vector embedding policy and a full-text
policy, then sends each probe the console sends (vector, exact, text, hybrid; k = 10)
for the tenant and for one thread, and prints requests (query plans and range reads
included), RU and seconds per probe (the seconds are the fake's own: it scores every
vector in Python, twice per item for a projected and ordered VectorDistance).

RU come from the fake's charge model (tests/fake_cosmos/charges.py): they grow with the
documents a query reads, like Azure's, but they are not Azure's numbers — in particular
the fake reads every candidate for an index-served vector query as for brute force, so
the vector probe's RU here is the exact probe's. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import Distance, ProbeMode, RecallQuery
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from tests.fake_cosmos.fake import FakeCosmos
from tests.helpers import exchange

WORDS = [
    "tea",
    "coffee",
    "ferry",
    "invoice",
    "garden",
    "violin",
    "meeting",
    "travel",
    "budget",
    "ticket",
]
TERMS = ("ferry", "invoice")


def probes(scope: TtlScope, vector: tuple[float, ...]) -> list[RecallQuery]:
    text = ("/content",)
    return [
        RecallQuery(scope, ProbeMode.VECTOR, 10, "/embedding", Distance.COSINE, vector),
        RecallQuery(scope, ProbeMode.EXACT, 10, "/embedding", Distance.COSINE, vector),
        RecallQuery(scope, ProbeMode.TEXT, 10, text_paths=text, terms=TERMS),
        RecallQuery(
            scope, ProbeMode.HYBRID, 10, "/embedding", Distance.COSINE, vector, text, TERMS
        ),
    ]


async def main(items: int, dims: int, ranges: int) -> None:
    rng = random.Random(7)

    def vector() -> list[float]:
        return [rng.uniform(-1.0, 1.0) for _ in range(dims)]

    with FakeCosmos(ranges=ranges) as fake:
        fake.create_container(
            "db",
            "memory",
            partition_key=["/tenantId", "/threadId"],
            ranges=ranges,
            default_ttl=-1,
            vector_embedding_policy={
                "vectorEmbeddings": [
                    {
                        "path": "/embedding",
                        "dataType": "float32",
                        "distanceFunction": "cosine",
                        "dimensions": dims,
                    }
                ]
            },
            full_text_policy={"defaultLanguage": "en-US", "fullTextPaths": [{"path": "/content"}]},
        )
        seeded = []
        for n in range(items):
            item = exchange("acme", f"t{n % 100}", n, embedding=vector())
            item["content"] = " ".join(rng.choice(WORDS) for _ in range(12))
            seeded.append(item)
        fake.seed("db", "memory", seeded)
        settings = CosmosSettings(
            endpoint=fake.endpoint,
            database="db",
            container="memory",
            auth=AuthMode.KEY,
            key=fake.key,
            ru_budget=1e9,
            timeout_s=600.0,
        )
        store = CosmosStore.open(settings, get_schema("lab"))
        query_vector = tuple(vector())
        tenant = TtlScope.of_tenant(Key.of("acme"))
        thread = TtlScope.of_thread(ThreadRef.of("acme", "t7"))
        print(f"{items:,} items of {dims} dimensions, {ranges} ranges; k = 10")
        print(f"{'scope':<8} {'probe':<8} {'requests':>8} {'RU':>10} {'seconds':>8}")
        try:
            for name, scope in (("tenant", tenant), ("thread", thread)):
                for query in probes(scope, query_vector):
                    started = time.perf_counter()
                    answer = await store.recall(query)
                    took = time.perf_counter() - started
                    print(
                        f"{name:<8} {query.mode.value:<8} {answer.requests:>8} "
                        f"{answer.request_units:>10.1f} {took:>8.1f}"
                    )
        finally:
            await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--dims", type=int, default=1536)
    parser.add_argument("--ranges", type=int, default=4)
    args = parser.parse_args()
    asyncio.run(main(args.items, args.dims, args.ranges))
