"""The fake gateway as a backend of the MemoryStore contract suite (``tests/contract``).

Items are seeded through the SDK, like on the peer, and the product's own
``CosmosStore`` reads them; ``advance`` steps the fake's clock instead of sleeping, so
TTL cases run instantly. It is the suite's ``"gateway"`` backend
(``tests/contract/conftest.py``).
"""

from __future__ import annotations

from tests.contract.backends import CosmosBackend
from tests.fake_cosmos.clock import FakeCosmosClock
from tests.fake_cosmos.fake import FakeCosmos


class FakeCosmosBackend(CosmosBackend):
    def __init__(self, start: float, *, ranges: int = 4) -> None:
        self.fake = FakeCosmos(ranges=ranges, clock=FakeCosmosClock(start)).start()
        super().__init__("gateway", self.fake.endpoint, self.fake.key)

    def approximate_index(self, quantum: float | None) -> None:
        """Containers made from now on answer vector queries through an approximate
        index (``search.py``: vectors rounded to multiples of ``quantum``), so an index
        probe can miss a true neighbour and recall@k falls below 1; None: exact."""
        self.fake.store.vector_quantum = quantum

    async def advance(self, seconds: float) -> None:
        self.fake.clock.advance(seconds)

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            self.fake.stop()
