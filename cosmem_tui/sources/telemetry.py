"""The Telemetry contract: what a monitoring source (Azure Monitor, the simulator) answers,
and what its settings must say (``TelemetrySettings``).

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

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from cosmem_tui.sources.errors import StoreError

if TYPE_CHECKING:  # annotations: the telemetry model and the doctor's modules load with them
    from cosmem_tui.model import Clock
    from cosmem_tui.model.telemetry import (
        AccountFacts,
        LogAnswer,
        LogQuery,
        MetricAnswer,
        MetricQuery,
        TelemetryAbout,
    )
    from cosmem_tui.sources.inspection import AccountInspector
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


class TelemetryConfigError(StoreError):
    """Options that cannot point a telemetry backend anywhere (one line, nothing sent)."""

    status = 400


@dataclass(frozen=True, slots=True)
class Flag:
    """One command-line option of a backend's settings, for the CLI to declare."""

    option: str  # "--resource-id"
    key: str  # the key the backend's ``resolve`` reads from its ``flags`` mapping
    env: str  # the variable it falls back to
    metavar: str
    help: str


@runtime_checkable
class TelemetrySettings(Protocol):
    """What one telemetry backend is pointed at: plain data, one class per backend (Azure
    Monitor's ``MonitorSettings``, the simulator's ``SimulatedSettings``), each opened by
    the opener ``sources/telemetry_backends.py`` registers for its class.

    ``database`` and ``container`` are the container its answers are filtered to when a
    question names none (a session with a container filters to that one instead).
    """

    @property
    def database(self) -> str | None: ...

    @property
    def container(self) -> str | None: ...


Closer = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class TelemetryOpening:
    """What a session lends a telemetry backend while it opens."""

    ledger: RequestLedger  # every call the source sends is recorded (and admitted) here
    clock: Clock
    own: Callable[[Closer], None]  # close this with the session, after the source
    credential: Any = None  # the session's sign-in: a token credential, a key, or None
    auth: str | None = None  # the sign-in asked for (--auth), for a backend signing in itself
    # The Cosmos account's write region (one read), None when no account is open or none
    # may be read while opening (the doctor's session reads nothing before it runs).
    account_region: Callable[[], Awaitable[str | None]] | None = None
    transport: Any = None  # the HTTP transport for the backend's clients (tests)


@dataclass(frozen=True)
class OpenedTelemetry:
    """An opened source and what the session and the doctor say of it."""

    telemetry: Telemetry
    # What the doctor reports it as: a ``model.doctor.TelemetryKind`` value ("azure",
    # "simulated"), as text so that opening a session loads none of the doctor's modules.
    kind: str
    name: str  # what the ledger says a read was for while opening ("Azure Monitor")
    sign_in: str = ""  # how it signed in, for the doctor ("aad", "device-code", "local")
    # The account's names the doctor's fixes quote (``SessionFacts`` fields: account,
    # resource_id, subscription, resource_group, workspace_id, database, container).
    names: Mapping[str, str | None] = field(default_factory=dict)
    # The account as its management plane sees it, for the doctor (built on first use).
    inspector: Callable[[], AccountInspector] | None = None
    notes: tuple[str, ...] = ()  # what opening found, told once (no region, not Cosmos…)
