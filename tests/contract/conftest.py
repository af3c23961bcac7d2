from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import ANCHOR
from tests.contract.backends import Backend, CosmosBackend, LocalBackend
from tests.contract.change_writes import ChangeWrites

# "cosmos" is the Cosmos-protocol peer every run starts (tests/peer): one physical
# partition, no DISTINCT or GROUP BY. "gateway" is the in-process fake of the real
# gateway (tests/fake_cosmos): four partition key ranges, query plans, range-local
# continuations, charges that grow with the work. "live" joins when COSMEM_TEST_ENDPOINT
# and COSMEM_TEST_KEY name a real account or the official emulator.
LIVE_ENDPOINT = os.environ.get("COSMEM_TEST_ENDPOINT")
LIVE_KEY = os.environ.get("COSMEM_TEST_KEY")
BACKENDS = ["local", "cosmos", "gateway", *(["live"] if LIVE_ENDPOINT and LIVE_KEY else [])]


def open_backend(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """One backend of the suite by name (a module may parametrise its own ``backend``)."""
    if name == "local":
        return LocalBackend(tmp_path, ANCHOR)
    if name == "cosmos":
        peer = request.getfixturevalue("cosmos_peer")
        return CosmosBackend("cosmos", peer.endpoint, peer.key)
    if name == "gateway":
        from tests.fake_cosmos.contract_backend import FakeCosmosBackend

        return FakeCosmosBackend(ANCHOR)
    if name == "live":
        assert LIVE_ENDPOINT and LIVE_KEY
        return CosmosBackend("live", LIVE_ENDPOINT, LIVE_KEY)
    raise AssertionError(name)  # pragma: no cover - other backends join here


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    instance = open_backend(request.param, request, tmp_path)
    yield instance
    await instance.close()


@pytest.fixture
async def writers() -> AsyncIterator[list[ChangeWrites]]:
    """The change-feed writers a test made (``change_writes.change_writes``), closed after it."""
    made: list[ChangeWrites] = []
    yield made
    for writes in made:
        await writes.close()
