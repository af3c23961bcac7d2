"""A session: what the console is pointed at, as a set of named services over one ledger.

Opening one (building the stores, choosing the schema, signing in) is the job of the
composition module, ``cosmem_tui.compose``; this module only describes the result.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.model import Clock
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.store import MemoryStore

if TYPE_CHECKING:  # the services' modules load when a session builds them
    from cosmem_tui.core.advisor import AdvisorService
    from cosmem_tui.core.demo.manifest import DemoManifest
    from cosmem_tui.core.doctor_service import DoctorService
    from cosmem_tui.core.hot_keys import HotKeysService
    from cosmem_tui.core.telemetry_reader import TelemetryReader
    from cosmem_tui.core.throughput import ThroughputService
    from cosmem_tui.core.writes import WriteService
    from cosmem_tui.sources.cosmos.settings import CosmosSettings
    from cosmem_tui.sources.monitor.settings import MonitorSettings

MEMORY = "memory"  # the MemoryStore service
BROWSE = "browse"  # the BrowseService over it
TELEMETRY = "telemetry"  # the TelemetryReader over Azure Monitor or the simulator
THROUGHPUT = "throughput"  # the ThroughputService over it
HOT_KEYS = "hot_keys"  # the HotKeysService over it
ADVISOR = "advisor"  # the AdvisorService over the memory store
WRITES = "writes"  # the WriteService: only in a session opened with --allow-writes
DOCTOR = "doctor"  # the DoctorService: what this account lets the console do

APP_NAME = "cosmem"
DEMO_FILE = "demo.sqlite"


def data_dir() -> Path:
    """The user data dir (``$XDG_DATA_HOME/cosmem`` on Linux)."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    """The user config dir (``$XDG_CONFIG_HOME/cosmem`` on Linux): user schemas live here."""
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """The user cache dir (``$XDG_CACHE_HOME/cosmem`` on Linux): listings of key names."""
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def default_workspace_path() -> Path:
    return data_dir() / DEMO_FILE


@dataclass(frozen=True)
class SessionOptions:
    workspace: Path | None = None  # None: the demo workspace in the user data dir
    schema: str | None = None  # None: the schema the workspace records, else "auto"
    cosmos: CosmosSettings | None = None  # a real container (--endpoint): no workspace then
    monitor: MonitorSettings | None = None  # Azure Monitor for that account (--resource-id)
    allow_writes: bool = False  # --allow-writes: pin, set a ttl, erase a thread (audited)

    @property
    def workspace_path(self) -> Path:
        return self.workspace if self.workspace is not None else default_workspace_path()

    @property
    def is_demo(self) -> bool:
        return self.workspace is None and self.cosmos is None

    def needs_demo_build(self) -> bool:
        return self.is_demo and not self.workspace_path.exists()


@dataclass
class Session:
    """Named services (the memory store and browsing; telemetry when configured) over one
    ledger.

    ``ledger`` is the request ledger every service records its requests in and spends the one
    budget through; ``credential`` is the one sign-in the services share (None for a
    key or a local workspace). ``closers`` run in reverse order on ``close``.
    """

    services: dict[str, Any]
    ledger: RequestLedger
    clock: Clock
    is_demo: bool
    credential: Any = None
    manifest: DemoManifest | None = None
    notes: list[str] = field(default_factory=list)
    schema_reason: str = ""  # why this schema ("matched: pk …"); empty when the user named it
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    @property
    def store(self) -> MemoryStore:
        store: MemoryStore = self.services[MEMORY]
        return store

    @property
    def service(self) -> BrowseService:
        service: BrowseService = self.services[BROWSE]
        return service

    @property
    def has_store(self) -> bool:
        """False for a telemetry-only session (``cosmem hot`` without a Cosmos endpoint)."""
        return MEMORY in self.services

    @property
    def telemetry(self) -> TelemetryReader | None:
        """The monitoring source, or None when none is configured (no resource id)."""
        reader: TelemetryReader | None = self.services.get(TELEMETRY)
        return reader

    @property
    def throughput(self) -> ThroughputService | None:
        service: ThroughputService | None = self.services.get(THROUGHPUT)
        return service

    @property
    def hot_keys(self) -> HotKeysService | None:
        service: HotKeysService | None = self.services.get(HOT_KEYS)
        return service

    @property
    def advisor(self) -> AdvisorService | None:
        service: AdvisorService | None = self.services.get(ADVISOR)
        return service

    @property
    def doctor(self) -> DoctorService | None:
        """The doctor, built on first use: opening a session loads none of its modules."""
        service = self.services.get(DOCTOR)
        if callable(service):
            service = self.services[DOCTOR] = service()
        doctor: DoctorService | None = service
        return doctor

    @property
    def writes(self) -> WriteService | None:
        """The guarded writes; None unless the session was opened with --allow-writes."""
        service: WriteService | None = self.services.get(WRITES)
        return service

    @property
    def writes_allowed(self) -> bool:
        return self.ledger.writes_allowed

    @property
    def schema(self) -> Schema:
        return self.store.schema

    def schema_why(self, requested: str | None) -> str:
        """Why this schema, always said: the detection's reason, else how it was named
        (``requested``: the --schema the session was opened with, None if none)."""
        if self.schema_reason:
            return self.schema_reason
        return "named with --schema" if requested else "recorded in the workspace"

    def listing_notes(self) -> list[str]:
        """What the user should know about how the listings were made (shown beside them),
        and a name cache that could not be saved (a warning: the listing itself is whole)."""
        notes = self.store.listing_notes()
        problem = self.service.directory.cache_problem
        return [*notes, f"warning: {problem}"] if problem else notes

    async def close(self) -> None:
        """Close every service, then what they share (the credential), once."""
        closers, self.closers = self.closers, []
        failure: BaseException | None = None
        for close in reversed(closers):
            try:
                await close()
            except Exception as exc:  # close the rest; report the first failure
                failure = failure or exc
        if failure is not None:
            raise failure
