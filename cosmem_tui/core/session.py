"""A session: what the console is pointed at, as named, typed services over one ledger.

Opening one (building the stores, choosing the schema, signing in) is the job of the
composition package, ``cosmem_tui.compose``, whose ``SessionBuilder`` is the one place a
``Session`` is made; this module only describes the result and closes it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from cosmem_tui.core.demo import GENERATION as DEMO_GENERATION
from cosmem_tui.core.errors import LookupFailed

if TYPE_CHECKING:  # the services' modules load when a session builds them
    from cosmem_tui.core.advisor import AdvisorService
    from cosmem_tui.core.browse import BrowseService
    from cosmem_tui.core.demo.live import LiveDemo
    from cosmem_tui.core.demo.manifest import DemoManifest
    from cosmem_tui.core.doctor_service import DoctorService
    from cosmem_tui.core.hot_keys import HotKeysService
    from cosmem_tui.core.lifecycle import LifecycleService
    from cosmem_tui.core.recall import RecallService
    from cosmem_tui.core.telemetry_reader import TelemetryReader
    from cosmem_tui.core.throughput import ThroughputService
    from cosmem_tui.core.writes import WriteService
    from cosmem_tui.model import Clock
    from cosmem_tui.model.recall import EmbeddingsDeployment
    from cosmem_tui.schemas import Schema
    from cosmem_tui.sources.cosmos.settings import CosmosSettings
    from cosmem_tui.sources.request_ledger import RequestLedger
    from cosmem_tui.sources.store import MemoryStore
    from cosmem_tui.sources.telemetry import TelemetrySettings

Closer = Callable[[], Awaitable[None]]

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
    # A telemetry backend's settings beside that container, or alone (``cosmem hot``):
    # Azure Monitor's ``MonitorSettings`` (--resource-id), or any class registered in
    # ``sources/telemetry_backends.py``. None: none (a workspace has its simulated one).
    telemetry: TelemetrySettings | None = None
    allow_writes: bool = False  # --allow-writes: pin, set a ttl, erase a thread (audited)
    # The demo's live workload (core/demo/live.py) while the demo is on screen; --still
    # or the setting demo_live = false turn it off. Only ever the demo's own workspace.
    live_demo: bool = True
    # The profile's embeddings deployment (None: --text outside the demo is key terms only).
    embeddings: EmbeddingsDeployment | None = None

    @property
    def workspace_path(self) -> Path:
        return self.workspace if self.workspace is not None else default_workspace_path()

    @property
    def is_demo(self) -> bool:
        return self.workspace is None and self.cosmos is None

    def needs_demo_build(self) -> bool:
        """The demo is built on first run, and rebuilt when an older console made it."""
        if not self.is_demo:
            return False
        path = self.workspace_path
        return not path.exists() or _demo_generation(path) != DEMO_GENERATION


def _demo_generation(path: Path) -> str | None:
    from cosmem_tui.sources.local.file_meta import read_meta

    return read_meta(path, "demo_generation")


class NoMemoryStore(LookupFailed):
    """A use case over the container's items asked of a session that reads telemetry only."""


NO_MEMORY_STORE = (
    "this session reads telemetry only: it has no container to read "
    "(give --endpoint, or --workspace for a local file)"
)


@dataclass(frozen=True)
class MemoryServices:
    """The container's items and the use cases over them: all there, or none (a session
    opened for Azure Monitor alone has no container)."""

    store: MemoryStore
    browse: BrowseService
    advisor: AdvisorService
    lifecycle: LifecycleService  # one per session: it keeps its reports for a while
    # The recall probe over the store (with the session's embedder), built on first use:
    # opening a session loads none of its modules.
    build_recall: Callable[[], RecallService]


@dataclass(frozen=True)
class TelemetryServices:
    """The telemetry use cases over one source, sharing one reader (and its reuse)."""

    reader: TelemetryReader
    throughput: ThroughputService
    hot_keys: HotKeysService


async def close_in_reverse(closers: Sequence[Closer]) -> None:
    """Run ``closers`` newest first, every one of them; the first failure is raised after."""
    failure: BaseException | None = None
    for close in reversed(closers):
        try:
            await close()
        except Exception as exc:  # close the rest; report the first failure
            failure = failure or exc
    if failure is not None:
        raise failure


@dataclass
class Session:
    """Named services over one ledger: the container's (``memory``; None when only
    telemetry was opened), the telemetry source's (None when there is none), the guarded
    writes (only with --allow-writes) and the doctor.

    Made only by ``cosmem_tui.compose`` (its ``SessionBuilder``). ``ledger`` is the
    request ledger every service records its requests in and spends the one budget
    through; ``credential`` is the one sign-in the services share (None for a key, a
    local workspace or a sign-in a telemetry source made for itself). ``closers`` run
    newest first on ``close``.
    """

    ledger: RequestLedger
    clock: Clock
    is_demo: bool
    memory: MemoryServices | None = None
    telemetry: TelemetryReader | None = None  # Azure Monitor, the simulator, or None
    throughput: ThroughputService | None = None  # over ``telemetry``
    hot_keys: HotKeysService | None = None  # over ``telemetry``
    writes: WriteService | None = None  # None unless opened with --allow-writes
    build_doctor: Callable[[], DoctorService] | None = None  # built on first use
    # The demo's live workload (the demo's own workspace only, unless --still): built on
    # first use by whoever shows the demo (the console), never by a headless command.
    build_live_demo: Callable[[], LiveDemo] | None = None
    credential: Any = None
    manifest: DemoManifest | None = None
    notes: list[str] = field(default_factory=list)
    schema_reason: str = ""  # why this schema ("matched: pk …"); empty when the user named it
    closers: list[Closer] = field(default_factory=list)
    _doctor: DoctorService | None = field(default=None, init=False, repr=False)
    _recall: RecallService | None = field(default=None, init=False, repr=False)
    _live_demo: LiveDemo | None = field(default=None, init=False, repr=False)

    def _memory(self) -> MemoryServices:
        if self.memory is None:
            raise NoMemoryStore(NO_MEMORY_STORE)
        return self.memory

    @property
    def has_store(self) -> bool:
        """False for a telemetry-only session (``cosmem hot`` without a Cosmos endpoint)."""
        return self.memory is not None

    @property
    def store(self) -> MemoryStore:
        """The container's store; ``NoMemoryStore`` (one line) in a telemetry-only session."""
        return self._memory().store

    @property
    def browse(self) -> BrowseService:
        return self._memory().browse

    @property
    def lifecycle(self) -> LifecycleService:
        return self._memory().lifecycle

    @property
    def recall(self) -> RecallService:
        """The recall probe (``core/recall.py``), built on first use."""
        if self._recall is None:
            self._recall = self._memory().build_recall()
        return self._recall

    @property
    def advisor(self) -> AdvisorService | None:
        """None in a telemetry-only session (the advisor reads the container's items)."""
        return self.memory.advisor if self.memory is not None else None

    @property
    def doctor(self) -> DoctorService | None:
        """The doctor, built on first use: opening a session loads none of its modules."""
        if self._doctor is None and self.build_doctor is not None:
            self._doctor = self.build_doctor()
        return self._doctor

    @property
    def live_demo(self) -> LiveDemo | None:
        """The demo's live workload, built on first use (None: not the demo, or still)."""
        if self._live_demo is None and self.build_live_demo is not None:
            self._live_demo = self.build_live_demo()
        return self._live_demo

    def use_telemetry(self, services: TelemetryServices | None) -> None:
        """Read telemetry through ``services`` (None: none) from now on."""
        if services is None:
            self.telemetry = self.throughput = self.hot_keys = None
        else:
            self.telemetry = services.reader
            self.throughput = services.throughput
            self.hot_keys = services.hot_keys

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
        problem = self.browse.directory.cache_problem
        return [*notes, f"warning: {problem}"] if problem else notes

    async def close(self) -> None:
        """Close every service, then what they share (the credential), once."""
        closers, self.closers = self.closers, []
        live, self._live_demo, self.build_live_demo = self._live_demo, None, None
        if live is not None:  # first: after its tick in progress, before the workspace
            await asyncio.to_thread(live.close)
        await close_in_reverse(closers)
