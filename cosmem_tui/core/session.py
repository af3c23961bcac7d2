"""Open what the user asked for: a local workspace (the demo by default) and its services."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.model import Clock, SystemClock
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.gateway import Gateway
from cosmem_tui.sources.local import LocalStore, Workspace
from cosmem_tui.sources.store import MemoryStore

# Imported where used: schema detection, the demo generator and the Cosmos settings
# are not needed to open an existing workspace, and start-up time is a feature.
if TYPE_CHECKING:
    from cosmem_tui.core.schema_choice import SchemaChoice
    from cosmem_tui.sources.cosmos.settings import CosmosSettings
    from cosmem_tui.sources.local.demo import DemoManifest

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
    store: MemoryStore
    service: BrowseService
    clock: Clock
    is_demo: bool
    manifest: DemoManifest | None = None
    notes: list[str] = field(default_factory=list)
    schema_reason: str = ""  # why this schema ("matched: pk …"); empty when the user named it
    closer: Callable[[], Awaitable[None]] | None = None  # closes what the session owns

    @property
    def gateway(self) -> Gateway:
        return self.store.gateway

    @property
    def schema(self) -> Schema:
        return self.store.schema

    @property
    def schema_label(self) -> str:
        """The schema's name, and why it was chosen when it was not named by the user."""
        name = self.schema.name
        return f"{name} ({self.schema_reason})" if self.schema_reason else name

    def listing_notes(self) -> list[str]:
        """What the user should know about how the listings were made (shown beside them)."""
        return self.store.listing_notes()

    async def close(self) -> None:
        if self.closer is not None:
            await self.closer()
        else:
            await self.store.close()


def build_demo(
    path: Path, clock: Clock, progress: Callable[[float], None] | None = None
) -> DemoManifest:
    """(Re)build the demo workspace at ``path`` anchored at the current minute.

    ``progress`` receives the fraction done (0..1), a few times a second.
    """
    anchor = int(clock.now()) // 60 * 60
    from cosmem_tui.sources.local.demo import DemoShape, build_demo_workspace

    expected = DemoShape().threads * DemoShape().mean_turns

    def report(items: int) -> None:
        if progress is not None:
            progress(min(0.99, items / expected))

    return build_demo_workspace(path, anchor, progress=report)


def open_session(
    options: SessionOptions,
    clock: Clock | None = None,
    *,
    notice: Callable[[str], None] | None = None,
) -> Session:
    """Open the workspace (building the demo first if this is the first run).

    ``notice`` receives lines the user must read while the session opens, such as a
    device-code sign-in prompt (a Cosmos session may sign in to detect the schema).
    """
    clock = clock or SystemClock()
    if options.cosmos is not None:
        raise ValueError("a Cosmos session is opened with open_session_async")
    path = options.workspace_path
    notes: list[str] = []
    if options.needs_demo_build():
        build_demo(path, clock)
        notes.append(f"created the demo workspace at {path}")
    workspace = Workspace.open(path)
    gateway = Gateway()
    try:
        choice = _schema_choice(options, workspace, gateway, clock)
        workspace.derive_for(choice.schema)  # for this session: the file is never written
    except BaseException:
        workspace.close()
        raise
    label = f"demo workspace {path}" if options.is_demo else f"workspace {path}"
    store = LocalStore(workspace, choice.schema, gateway=gateway, clock=clock, label=label)
    return Session(
        store=store,
        service=BrowseService(store, clock, KeyDirectory(store, clock)),
        clock=clock,
        is_demo=options.is_demo,
        manifest=_manifest(workspace),
        notes=notes,
        schema_reason=choice.reason,
    )


async def open_session_async(
    options: SessionOptions,
    clock: Clock | None = None,
    *,
    notice: Callable[[str], None] | None = None,
) -> Session:
    """Open a session from async code: a Cosmos container on the caller's event loop (one
    client and one credential for detection and browsing), a workspace on a thread."""
    clock = clock or SystemClock()
    if options.cosmos is None:
        return await asyncio.to_thread(open_session, options, clock, notice=notice)
    from cosmem_tui.core.cosmos_session import open_cosmos_session

    return await open_cosmos_session(
        options.cosmos,
        options.schema,
        clock,
        config_dir() / "schemas",
        cache_root=cache_dir() / "listings",
        notice=notice,
    )


def _schema_choice(
    options: SessionOptions, workspace: Workspace, gateway: Gateway, clock: Clock
) -> SchemaChoice:
    """--schema NAME, else the schema the workspace records, else detect it (``auto``)."""
    from cosmem_tui.core.schema_choice import AUTO, choose_schema, recorded_choice, run_sync

    user_dir = config_dir() / "schemas"
    if options.schema is None:
        recorded = recorded_choice(workspace, user_dir)
        if recorded is not None:
            return recorded
    probe = LocalStore(workspace, None, gateway=gateway, clock=clock)  # samples only
    return run_sync(choose_schema(options.schema or AUTO, probe, user_dir))


def _manifest(workspace: Workspace) -> DemoManifest | None:
    if workspace.meta("demo_manifest") is None:
        return None
    from cosmem_tui.sources.local.demo import read_manifest

    return read_manifest(workspace)
