"""An in-process fake of the Azure Cosmos DB service (its HTTPS gateway) for tests and benchmarks.

The real ``azure-cosmos`` SDK (sync and async) talks to it over HTTPS; it behaves like
an account with several physical partition key ranges: EPK routing with the SDK's own
hashing, range-local query execution and continuations, query plans for cross-partition
queries, request charges that grow with the work done, TTL on an injectable clock, and
injectable throttling, errors, slow and hung answers. See ``fake.FakeCosmos`` and
``README.md`` next to this file.

Names are loaded on first use, so registering the pytest fixture costs no imports.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "KEY": "tests.fake_cosmos.fake",
    "FakeCosmos": "tests.fake_cosmos.fake",
    "Fault": "tests.fake_cosmos.faults",
    "RequestFacts": "tests.fake_cosmos.faults",
    "FakeCosmosClock": "tests.fake_cosmos.clock",
    "Entry": "tests.fake_cosmos.wire_log",
    "RequestLog": "tests.fake_cosmos.wire_log",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tests.fake_cosmos' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
