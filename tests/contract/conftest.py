from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.conftest import ANCHOR
from tests.contract.backends import Backend, LocalBackend

BACKENDS = ["local"]


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path) -> AsyncIterator[Backend]:
    if request.param == "local":
        instance: Backend = LocalBackend(tmp_path, ANCHOR)
    else:  # pragma: no cover - other backends join here
        raise AssertionError(request.param)
    yield instance
    await instance.close()
