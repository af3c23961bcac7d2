from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest

from tests.conftest import ANCHOR
from tests.contract.backends import Backend, CosmosBackend, LocalBackend

# "cosmos" is the Cosmos-protocol peer every run starts (tests/peer): one physical
# partition, no DISTINCT or GROUP BY. "gateway" is the in-process fake of the real
# gateway (tests/fake_cosmos): four partition key ranges, query plans, range-local
# continuations, charges that grow with the work. "live" joins when COSMEM_TEST_ENDPOINT
# and COSMEM_TEST_KEY name a real account or the official emulator.
LIVE_ENDPOINT = os.environ.get("COSMEM_TEST_ENDPOINT")
LIVE_KEY = os.environ.get("COSMEM_TEST_KEY")
BACKENDS = ["local", "cosmos", "gateway", *(["live"] if LIVE_ENDPOINT and LIVE_KEY else [])]


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path) -> AsyncIterator[Backend]:
    if request.param == "local":
        instance: Backend = LocalBackend(tmp_path, ANCHOR)
    elif request.param == "cosmos":
        peer = request.getfixturevalue("cosmos_peer")
        instance = CosmosBackend("cosmos", peer.endpoint, peer.key)
    elif request.param == "gateway":
        from tests.fake_cosmos.contract_backend import FakeCosmosBackend

        instance = FakeCosmosBackend(ANCHOR)
    elif request.param == "live":
        assert LIVE_ENDPOINT and LIVE_KEY
        instance = CosmosBackend("live", LIVE_ENDPOINT, LIVE_KEY)
    else:  # pragma: no cover - other backends join here
        raise AssertionError(request.param)
    yield instance
    await instance.close()
