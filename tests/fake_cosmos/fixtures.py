"""The ``fake_gateway`` pytest fixture: a fresh fake account per test.

Starting one costs a few milliseconds (the certificate is generated once per process),
so every test gets its own account, clock, faults and log, and the SDK's routing-map
cache (shared per endpoint) never sees another test's containers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.fake_cosmos.fake import FakeCosmos


@pytest.fixture
def fake_cosmos() -> Iterator[FakeCosmos]:
    from tests.fake_cosmos.fake import FakeCosmos

    fake = FakeCosmos().start()
    try:
        yield fake
    finally:
        fake.stop()
