"""The Telemetry contract: what a monitoring source (Azure Monitor, the simulator) answers.

Both sources take the same questions (``MetricQuery``, ``LogQuery``) and answer in the
same shapes (``MetricAnswer``, ``LogAnswer``; see ``cosmem_tui.model.telemetry``), so the
core services and the views never know which one they talk to — only ``about`` says so
(and the screen labels simulated data as such).

Rules every source keeps (the contract tests check them on both):

* one answer per question, in the order asked; a failure is an answer with a
  ``problem``, never an exception (one failed tile must not take the others down);
* metric series carry one point per grain bucket over the span, ``None`` where the
  bucket is empty, dimension names lower-cased;
* log answers are aggregated where the logs are, cut to ``top`` rows, with exactly the
  columns ``LOG_COLUMNS`` fixes for their ``LogName``;
* every call is recorded in the session's ledger (its own unit: calls, not RU) and
  retries are bounded and honour Retry-After: a throttled workspace is never made worse;
* ``account`` says what the account says about itself (regions, write region, where
  its metrics live, the container's offer) and never raises either: what it could not
  read is left unknown, with a problem saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from cosmem_tui.model.telemetry import (
    AccountFacts,
    LogAnswer,
    LogQuery,
    MetricAnswer,
    MetricQuery,
    TelemetryAbout,
)
from cosmem_tui.sources.request_ledger import RequestLedger


@runtime_checkable
class Telemetry(Protocol):
    @property
    def about(self) -> TelemetryAbout: ...

    @property
    def ledger(self) -> RequestLedger: ...

    async def metrics(self, queries: Sequence[MetricQuery]) -> list[MetricAnswer]:
        """Answer each metrics call (one getBatch request each), in order."""
        ...

    async def logs(self, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        """Answer each aggregation (batched where the service allows), in order."""
        ...

    async def account(self, database: str | None, container: str | None) -> AccountFacts:
        """The account's regions and the container's offer (metadata, ledgered)."""
        ...

    async def close(self) -> None: ...
