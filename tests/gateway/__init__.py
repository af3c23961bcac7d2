"""An in-process fake of the Azure Cosmos DB gateway for tests and benchmarks.

The real ``azure-cosmos`` SDK (sync and async) talks to it over HTTPS; it behaves like
an account with several physical partition key ranges: EPK routing with the SDK's own
hashing, range-local query execution and continuations, query plans for cross-partition
queries, request charges that grow with the work done, TTL on an injectable clock, and
injectable throttling, errors, slow and hung answers. See ``gateway.FakeGateway``.
"""

from tests.gateway.clock import GatewayClock
from tests.gateway.faults import Fault, RequestFacts
from tests.gateway.gateway import KEY, FakeGateway
from tests.gateway.wire_log import Entry, RequestLog

__all__ = ["KEY", "Entry", "FakeGateway", "Fault", "GatewayClock", "RequestFacts", "RequestLog"]
