"""What the doctor asks of the backends: data-plane access and the account's management view.

Two small contracts, each answered by the backend that can (no Azure import here):

* ``AccessProbe`` tries the data actions the console uses with requests that read
  nothing an agent wrote (the account document, the container's properties, a point
  read and a count of a key no item has) and says, for each, allowed, denied (with the
  action a 403 names) or failed. The Cosmos backend sends them through the session's
  ledger; a local workspace has no RBAC and says so.
* ``AccountInspector`` reads the account as Azure Resource Manager sees it: its
  properties (capabilities, partition merge, backup, priority-based execution), the
  container's offer (dedicated, shared, none) and its diagnostic settings.

Both report what they could not read as ``ReadFailure`` values (``InspectionFailed``),
never as tracebacks: a missing role is evidence too.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from cosmem_tui.model.doctor import (
    AccessReport,
    AccountFeatures,
    DiagnosticSetting,
    OfferFacts,
    ReadFailure,
)


class InspectionFailed(Exception):
    """A read that did not answer; ``failure`` says why and what would fix it."""

    def __init__(self, failure: ReadFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


@runtime_checkable
class AccessProbe(Protocol):
    async def probe(self) -> AccessReport:
        """Every data-plane probe, in order; never raises for what the service answers."""
        ...


@runtime_checkable
class AccountInspector(Protocol):
    async def features(self) -> AccountFeatures:
        """The account's ARM properties; raises ``InspectionFailed``."""
        ...

    async def offer(self, database: str | None, container: str | None) -> OfferFacts:
        """The container's offer, else its database's, else none; raises ``InspectionFailed``."""
        ...

    async def diagnostic_settings(self) -> tuple[DiagnosticSetting, ...]:
        """The account's diagnostic settings; raises ``InspectionFailed``."""
        ...
