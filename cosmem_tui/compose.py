"""Composition: open what the user asked for and wire its services, in one place.

The CLI and the TUI call ``open_session``; it builds the stores (``sources``), the
use cases over them (``core``) and the ``Session`` that holds them, with one ledger and
one credential. Nothing below this module opens anything on its own, so the read path
is a straight line: a use case asks its store, the store states a query, one runner
pages it under the ledger, the store maps the rows.

Imported only what a session needs: the Azure SDK loads for a Cosmos session, schema
detection and the demo generator only when used, so a workspace opens fast.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.core.session import (
    ADVISOR,
    BROWSE,
    DOCTOR,
    HOT_KEYS,
    MEMORY,
    TELEMETRY,
    THROUGHPUT,
    WRITES,
    Session,
    SessionOptions,
    cache_dir,
    config_dir,
    data_dir,
)
from cosmem_tui.model import Clock, SystemClock
from cosmem_tui.sources.errors import StoreError
from cosmem_tui.sources.local import LocalStore, Workspace
from cosmem_tui.sources.request_ledger import RequestLedger

if TYPE_CHECKING:
    from cosmem_tui.core.audit import AuditLog
    from cosmem_tui.core.demo.manifest import DemoManifest
    from cosmem_tui.core.doctor_service import DoctorService
    from cosmem_tui.core.schema_choice import SchemaChoice
    from cosmem_tui.core.throughput import Container
    from cosmem_tui.model.doctor import SessionFacts
    from cosmem_tui.sources.cosmos.settings import CosmosSettings
    from cosmem_tui.sources.monitor.settings import MonitorSettings
    from cosmem_tui.sources.telemetry import Telemetry

Notice = Callable[[str], None]


async def open_session(
    options: SessionOptions, clock: Clock | None = None, *, notice: Notice | None = None
) -> Session:
    """Open a session from async code: a Cosmos container on the caller's event loop (one
    client and one credential for detection and browsing), a workspace on a thread.

    ``notice`` receives lines the user must read while the session opens, such as a
    device-code sign-in prompt (a Cosmos session may sign in to detect the schema).
    """
    clock = clock or SystemClock()
    if options.cosmos is None:
        if options.monitor is not None:
            raise ValueError("Azure Monitor settings go with a Cosmos container (--endpoint)")
        return await asyncio.to_thread(open_local_session, options, clock)
    return await open_cosmos_session(
        options.cosmos,
        options.schema,
        clock,
        config_dir() / "schemas",
        cache_root=cache_dir() / "listings",
        notice=notice,
        monitor=options.monitor,
        allow_writes=options.allow_writes,
    )


# -- telemetry ---------------------------------------------------------------------------------


def telemetry_services(telemetry: Telemetry, clock: Clock, where: Container) -> dict[str, Any]:
    """The telemetry use cases over one source, sharing one reader (and its reuse)."""
    from cosmem_tui.core.hot_keys import HotKeysService
    from cosmem_tui.core.telemetry_reader import TelemetryReader
    from cosmem_tui.core.throughput import ThroughputService

    reader = TelemetryReader(telemetry, clock)
    return {
        TELEMETRY: reader,
        THROUGHPUT: ThroughputService(reader, clock, where),
        HOT_KEYS: HotKeysService(reader, clock, where),
    }


async def _open_monitor(
    settings: MonitorSettings,
    ledger: RequestLedger,
    credential: Any,
    clock: Clock,
    *,
    region_hint: str | None = None,
    transport: Any = None,
) -> tuple[Telemetry, list[str]]:
    """Azure Monitor for the account; what opening it found goes to the session's notes."""
    from cosmem_tui.sources.monitor.telemetry import open_monitor

    with ledger.caused_by("open: locate the account for Azure Monitor"):
        telemetry = await open_monitor(
            settings,
            ledger=ledger,
            credential=credential,
            clock=clock,
            transport=transport,
            region_hint=region_hint,
        )
    return telemetry, [problem.describe() for problem in telemetry.problems()]


async def open_telemetry_session(
    settings: MonitorSettings,
    clock: Clock | None = None,
    *,
    auth: str | None = None,
    transport: Any = None,
    credential: Any = None,
    notice: Notice | None = None,
) -> Session:
    """Azure Monitor alone (``cosmem hot`` / ``cosmem throttle``): no Cosmos endpoint,
    no data-plane access needed — Monitoring Reader and Log Analytics Reader suffice."""
    from cosmem_tui.core.throughput import Container
    from cosmem_tui.sources.cosmos.auth import build_token_credential
    from cosmem_tui.sources.cosmos.settings import AuthMode

    clock = clock or SystemClock()
    opening = _Opening(clock, notice)
    ledger = opening.ledger
    mode = AuthMode.DEVICE_CODE if auth == AuthMode.DEVICE_CODE else AuthMode.AAD
    credential = opening.use_credential(credential, lambda say: build_token_credential(mode, say))
    async with opening.closed_on_failure():
        telemetry, notes = await _open_monitor(
            settings, ledger, credential, clock, transport=transport
        )
    opening.closers.append(telemetry.close)
    services = telemetry_services(
        telemetry, clock, Container(settings.database, settings.container)
    )
    reader = services[TELEMETRY]
    services[DOCTOR] = lambda: _doctor(  # built on first use (Session.doctor)
        _monitor_facts(settings, auth or ""),
        ledger,
        clock,
        telemetry=reader,
        inspector=_inspector(reader),
    )
    return opening.session(services, notes)


def audit_log() -> AuditLog:
    """Where guarded writes are recorded: ``$XDG_DATA_HOME/cosmem/audit.jsonl``."""
    from cosmem_tui.core.audit import AUDIT_FILE, AuditLog

    return AuditLog(data_dir() / AUDIT_FILE)


# -- the local workspace ---------------------------------------------------------------------


def build_demo(
    path: Path, clock: Clock, progress: Callable[[float], None] | None = None
) -> DemoManifest:
    """(Re)build the demo workspace at ``path`` anchored at the current minute.

    ``progress`` receives the fraction done (0..1), a few times a second.
    """
    anchor = int(clock.now()) // 60 * 60
    from cosmem_tui.core.demo.generator import DemoShape, build_demo_workspace

    expected = DemoShape().threads * DemoShape().mean_turns

    def report(items: int) -> None:
        if progress is not None:
            progress(min(0.99, items / expected))

    return build_demo_workspace(path, anchor, progress=report)


def open_local_session(options: SessionOptions, clock: Clock | None = None) -> Session:
    """Open a workspace (building the demo first if this is the first run); synchronous."""
    from cosmem_tui.core.advisor import AdvisorService
    from cosmem_tui.core.throughput import Container

    if options.cosmos is not None:
        raise ValueError("a Cosmos session is opened with open_session (async)")
    clock = clock or SystemClock()
    path = options.workspace_path
    notes: list[str] = []
    if options.needs_demo_build():
        build_demo(path, clock)
        notes.append(f"created the demo workspace at {path}")
    workspace = Workspace.open(path)
    ledger = RequestLedger(clock=clock, writes_allowed=options.allow_writes)
    try:
        choice = _local_schema(options, workspace, ledger, clock)
        workspace.derive_for(choice.schema)  # for this session: the file is never written
    except BaseException:
        workspace.close()
        raise
    # The file's name: the header has no room for a whole path (the CLI names the path).
    label = f"demo workspace {path.name}" if options.is_demo else f"workspace {path.name}"
    store = LocalStore(workspace, choice.schema, ledger=ledger, clock=clock, label=label)
    directory = KeyDirectory(store, clock)
    services: dict[str, Any] = {
        MEMORY: store,
        BROWSE: BrowseService(store, clock, directory),
        ADVISOR: AdvisorService(store, directory),
    }
    closers: list[Callable[[], Awaitable[None]]] = [store.close]
    manifest = _manifest(workspace)
    # The embedded default has no Azure Monitor: a simulated workload over the
    # workspace's own keys stands in (labelled "simulated" wherever it is shown).
    telemetry = _simulated_telemetry(workspace, manifest, ledger, clock)
    services.update(
        telemetry_services(
            telemetry,
            clock,
            Container(
                workspace.container.database,
                workspace.container.container,
                key_levels=len(workspace.container.partition_key.paths),
            ),
        )
    )
    closers.append(telemetry.close)
    reader = services[TELEMETRY]
    services[DOCTOR] = lambda: _local_doctor(  # built on first use (Session.doctor)
        store, ledger, clock, reader, options, label, choice.schema, choice.reason
    )
    if options.allow_writes:  # the only place a workspace is opened for writing
        from cosmem_tui.core.writes import WriteService
        from cosmem_tui.sources.local.writer import LocalWriter

        try:
            writer = LocalWriter(workspace, choice.schema, ledger=ledger, clock=clock)
        except BaseException:
            workspace.close()
            raise
        services[WRITES] = WriteService(writer, store, clock, audit_log())
        closers.append(writer.close)
    return Session(
        services=services,
        ledger=ledger,
        clock=clock,
        is_demo=options.is_demo,
        manifest=manifest,
        notes=notes,
        schema_reason=choice.reason,
        closers=closers,
    )


def _simulated_telemetry(
    workspace: Workspace, manifest: DemoManifest | None, ledger: RequestLedger, clock: Clock
) -> Telemetry:
    """The demo's live workload: its hot tenant bursts every 15 minutes from a little
    after the workspace was built (the largest tenant plays the part in a workspace that
    is not the demo). Anchored to the workspace, not to this session: the console and
    every ``cosmem`` command see the same incident at the same time."""
    from cosmem_tui.sources.simulated import SimulatedTelemetry

    return SimulatedTelemetry.from_workspace(
        workspace,
        hot_tenant=manifest.hot_tenant if manifest is not None else None,
        ledger=ledger,
        clock=clock,
    )


def _local_schema(
    options: SessionOptions, workspace: Workspace, ledger: RequestLedger, clock: Clock
) -> SchemaChoice:
    """--schema NAME, else the schema the workspace records, else detect it (``auto``)."""
    from cosmem_tui.core.schema_choice import AUTO, choose_schema, recorded_choice, run_sync

    user_dir = config_dir() / "schemas"
    if options.schema is None:
        recorded = recorded_choice(workspace, user_dir)
        if recorded is not None:
            return recorded
    probe = LocalStore(workspace, None, ledger=ledger, clock=clock)  # samples only
    return run_sync(choose_schema(options.schema or AUTO, probe, user_dir))


def _manifest(workspace: Workspace) -> DemoManifest | None:
    if workspace.meta("demo_manifest") is None:
        return None
    from cosmem_tui.core.demo.manifest import read_manifest

    return read_manifest(workspace)


# -- a Cosmos DB container -------------------------------------------------------------------


async def close_credential(credential: Any) -> None:
    """Close a token credential (sync or async); a key string needs nothing."""
    close = getattr(credential, "close", None)
    if close is not None:
        result = close()
        if inspect.isawaitable(result):
            await result


class _Opening:
    """A session while it opens: its ledger, its credential and what to close.

    Every opener builds these the same way: the ledger first (so a sign-in prompt while
    opening reaches ``notice``), the caller's credential or one built here, and a list
    of closers that grows with each thing opened. A step that fails closes what the
    steps before it opened, newest first, and re-raises; ``session`` hands the lot to
    the ``Session``, which closes it when it ends. A credential the caller lent is never
    closed here (an embedding application's, or a test's).
    """

    def __init__(
        self,
        clock: Clock,
        notice: Notice | None,
        *,
        budget_ru: float | None = None,
        writes_allowed: bool = False,
    ) -> None:
        self.clock = clock
        self.ledger = RequestLedger(budget_ru=budget_ru, clock=clock, writes_allowed=writes_allowed)
        if notice is not None:  # before any request: opening may need to sign in
            self.ledger.subscribe_notice(notice)
        self.credential: Any = None
        self.owned = False
        self.closers: list[Callable[[], Awaitable[None]]] = []

    def use_credential(self, lent: Any, build: Callable[[Notice], Any]) -> Any:
        """``lent`` if given, else ``build(notice)``'s, which the session owns (closed last)."""
        self.owned = lent is None
        self.credential = build(self.ledger.notice) if lent is None else lent
        if self.owned:
            credential = self.credential
            self.closers.insert(0, lambda: close_credential(credential))
        return self.credential

    async def close(self) -> None:
        for close in reversed(self.closers):
            await close()

    @asynccontextmanager
    async def closed_on_failure(self) -> AsyncIterator[None]:
        """A step that may fail: then what is open so far is closed, and it re-raises."""
        try:
            yield
        except BaseException:
            await self.close()
            raise

    def session(self, services: dict[str, Any], notes: list[str], **facts: Any) -> Session:
        return Session(
            services=services,
            ledger=self.ledger,
            clock=self.clock,
            is_demo=False,
            credential=self.credential if self.owned else None,
            notes=notes,
            closers=self.closers,
            **facts,
        )


def _monitor_credential(
    credential: Any, ledger: RequestLedger, closers: list[Callable[[], Awaitable[None]]]
) -> Any:
    """The credential for Azure Monitor: ``credential`` when it is a token one; a key
    cannot sign metrics or logs calls, so Entra ID then, on its own (closed with
    ``closers``)."""
    from cosmem_tui.sources.cosmos.auth import build_token_credential
    from cosmem_tui.sources.cosmos.settings import AuthMode

    if hasattr(credential, "get_token"):
        return credential
    token_credential = build_token_credential(AuthMode.AAD, ledger.notice)
    closers.append(lambda: close_credential(token_credential))
    return token_credential


async def open_cosmos_session(
    settings: CosmosSettings,
    schema: str | None,
    clock: Clock,
    user_dir: Path,
    *,
    cache_root: Path | None = None,
    transport: Any = None,
    credential: Any = None,
    notice: Notice | None = None,
    monitor: MonitorSettings | None = None,
    monitor_transport: Any = None,
    allow_writes: bool = False,
) -> Session:
    """Connect, choose the schema (detecting it unless named) and return the session.

    ``credential``: an embedding application's (or a test's) own; the session then does
    not close it. Otherwise one is built from the settings and the session owns it.
    """
    from cosmem_tui.core.advisor import AdvisorService
    from cosmem_tui.core.schema_choice import AUTO, SchemaChoice, choose_schema
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.schemas.generic import GENERIC

    # The SDK loads here, not when this module is imported.
    from cosmem_tui.sources.cosmos.account import CosmosAccount
    from cosmem_tui.sources.cosmos.auth import build_credential
    from cosmem_tui.sources.cosmos.store import CosmosStore

    opening = _Opening(clock, notice, budget_ru=settings.ru_budget, writes_allowed=allow_writes)
    ledger = opening.ledger
    credential = opening.use_credential(credential, lambda say: build_credential(settings, say))
    account = CosmosAccount(settings, ledger, credential, transport=transport)
    probe = CosmosStore(account, None, schema_dir=user_dir)
    opening.closers.append(account.close)  # the stores over it hold nothing else to close
    requested = schema or AUTO
    async with opening.closed_on_failure():
        if requested in (AUTO, GENERIC):
            with ledger.caused_by("open: detect the schema"):
                choice = await choose_schema(requested, probe, user_dir)
        else:
            choice = SchemaChoice(get_schema(requested, user_dir), "")
    store = probe.with_schema(choice.schema)
    directory = KeyDirectory(store, clock, cache_root)
    services: dict[str, Any] = {
        MEMORY: store,
        BROWSE: BrowseService(store, clock, directory),
        ADVISOR: AdvisorService(store, directory),
    }
    if allow_writes:  # the only place a Cosmos writer is built
        from cosmem_tui.core.writes import WriteService
        from cosmem_tui.sources.cosmos.writer import CosmosWriter

        writer = CosmosWriter(account, choice.schema, store.container_properties, credential)
        services[WRITES] = WriteService(writer, store, clock, audit_log())
    notes: list[str] = []
    if monitor is not None:
        async with opening.closed_on_failure():
            monitor_services, monitor_closers, notes = await _monitor_for_cosmos(
                monitor, settings, store, ledger, credential, clock, monitor_transport
            )
        services.update(monitor_services)
        opening.closers.extend(monitor_closers)
    reader = services.get(TELEMETRY)
    services[DOCTOR] = lambda: _cosmos_doctor(  # built on first use (Session.doctor)
        account,
        settings,
        monitor,
        ledger,
        clock,
        reader,
        choice.schema,
        choice.reason or "named with --schema",
        user_dir,
        allow_writes=allow_writes,
    )
    return opening.session(services, notes, schema_reason=choice.reason)


async def _monitor_for_cosmos(
    monitor: MonitorSettings,
    settings: CosmosSettings,
    store: Any,
    ledger: RequestLedger,
    credential: Any,
    clock: Clock,
    transport: Any,
) -> tuple[dict[str, Any], list[Callable[[], Awaitable[None]]], list[str]]:
    """Azure Monitor beside the container: the same credential when it is a token one
    (a key cannot sign metrics calls: Entra ID then, on its own), the Cosmos write
    region as the fallback for the metrics host when ARM cannot be read (ARM's location
    comes first: metrics live where the resource lives), and the metrics filtered to the
    container being read."""
    from cosmem_tui.core.throughput import Container

    closers: list[Callable[[], Awaitable[None]]] = []
    token_credential = _monitor_credential(credential, ledger, closers)
    try:
        region_hint = None
        if monitor.region is None:
            with ledger.caused_by("open: the account's write region for Azure Monitor"):
                region_hint = await store.account_region()
        telemetry, notes = await _open_monitor(
            monitor, ledger, token_credential, clock, region_hint=region_hint, transport=transport
        )
    except BaseException:  # the credential built for Azure Monitor is closed, not leaked
        for close in reversed(closers):
            with suppress(Exception):
                await close()
        raise
    closers.append(telemetry.close)
    try:  # read when the schema was detected, and kept; else one metadata read
        with ledger.caused_by("open: the container's partition key for Azure Monitor"):
            levels: int | None = len((await store.container_properties()).partition_key.paths)
    except StoreError:
        levels = None  # storage per tenant is then shown as a lower bound
    where = Container(settings.database, settings.container, key_levels=levels)
    return telemetry_services(telemetry, clock, where), closers, notes


# -- the doctor -----------------------------------------------------------------------------


def _doctor(
    facts: SessionFacts, ledger: RequestLedger, clock: Clock, **parts: Any
) -> DoctorService:
    from cosmem_tui.core.doctor_service import DoctorService

    return DoctorService(facts, ledger, clock, **parts)


def _inspector(reader: Any) -> Any:
    """Azure Resource Manager's view of the account, through the Azure Monitor source's
    own runner and ARM client (None for the simulator: there is no account to read)."""
    from cosmem_tui.sources.monitor.arm_account import ArmAccount
    from cosmem_tui.sources.monitor.telemetry import MonitorTelemetry

    source = getattr(reader, "telemetry", None)
    if not isinstance(source, MonitorTelemetry):
        return None
    return ArmAccount(source.calls, source.clients, source.settings)


def _monitor_facts(settings: MonitorSettings, auth: str) -> SessionFacts:
    from cosmem_tui.model.doctor import Backend, SessionFacts, TelemetryKind

    return SessionFacts(
        backend=Backend.NONE,
        label=f"Azure Monitor · {settings.account}",
        auth=auth or "aad",
        telemetry=TelemetryKind.AZURE,
        **_monitor_names(settings),
    )


def _monitor_names(settings: MonitorSettings | None) -> dict[str, Any]:
    if settings is None:
        return {}
    return {
        "account": settings.account,
        "resource_id": settings.resource_id,
        "subscription": settings.resource.subscription,
        "resource_group": settings.resource.resource_group,
        "workspace_id": settings.workspace_id,
        "database": settings.database,
        "container": settings.container,
    }


def _local_doctor(
    store: LocalStore,
    ledger: RequestLedger,
    clock: Clock,
    reader: Any,
    options: SessionOptions,
    label: str,
    schema: Any,
    reason: str,
) -> DoctorService:
    from cosmem_tui.model.doctor import Backend, SessionFacts, TelemetryKind
    from cosmem_tui.sources.local.access_probe import LocalAccessProbe

    container = store.workspace.container
    facts = SessionFacts(
        backend=Backend.WORKSPACE,
        label=label,
        demo=options.is_demo,
        auth="local",
        writes_allowed=options.allow_writes,
        telemetry=TelemetryKind.SIMULATED,
        database=container.database,
        container=container.container,
    )
    return _doctor(
        facts,
        ledger,
        clock,
        access=LocalAccessProbe(store),
        telemetry=reader,
        schema=schema,
        schema_note=reason or ("named with --schema" if options.schema else "recorded"),
        user_dir=config_dir() / "schemas",
    )


def _cosmos_doctor(
    account: Any,
    settings: CosmosSettings,
    monitor: MonitorSettings | None,
    ledger: RequestLedger,
    clock: Clock,
    reader: Any,
    schema: Any,
    reason: str,
    user_dir: Path,
    *,
    allow_writes: bool,
) -> DoctorService:
    from urllib.parse import urlparse

    from cosmem_tui.model.doctor import Backend, SessionFacts, TelemetryKind
    from cosmem_tui.sources.cosmos.access_probe import CosmosAccessProbe

    names = _monitor_names(monitor)
    host = urlparse(settings.endpoint).hostname or ""
    if ".documents." in host:  # ACCOUNT.documents.azure.com (or a sovereign cloud's)
        names.setdefault("account", host.split(".")[0])
    names["database"], names["container"] = settings.database, settings.container
    facts = SessionFacts(
        backend=Backend.COSMOS,
        label=f"cosmos {settings.endpoint.rstrip('/')}",
        auth=settings.auth.value,
        writes_allowed=allow_writes,
        telemetry=TelemetryKind.AZURE if reader is not None else TelemetryKind.NONE,
        **names,
    )
    return _doctor(
        facts,
        ledger,
        clock,
        access=CosmosAccessProbe(account),
        inspector=_inspector(reader),
        telemetry=reader,
        schema=schema,
        schema_note=reason,
        user_dir=user_dir,
    )


async def open_doctor_session(
    options: SessionOptions,
    clock: Clock | None = None,
    *,
    auth: str | None = None,
    notice: Notice | None = None,
    transport: Any = None,
    credential: Any = None,
    monitor_transport: Any = None,
    monitor_credential: Any = None,
) -> Session:
    """A session for ``cosmem doctor``: like ``open_session``, but a Cosmos container is
    opened without reading anything (no schema detection, no region lookup), so that
    what the identity may not do is reported, not a reason the session cannot open."""
    clock = clock or SystemClock()
    if options.cosmos is not None:
        return await open_cosmos_doctor_session(
            options.cosmos,
            options.schema,
            clock,
            config_dir() / "schemas",
            transport=transport,
            credential=credential,
            notice=notice,
            monitor=options.monitor,
            monitor_transport=monitor_transport,
            monitor_credential=monitor_credential,
            allow_writes=options.allow_writes,
        )
    if options.monitor is not None and options.workspace is None:
        return await open_telemetry_session(
            options.monitor,
            clock,
            auth=auth,
            transport=monitor_transport,
            credential=credential,
            notice=notice,
        )
    return await open_session(options, clock, notice=notice)


async def open_cosmos_doctor_session(
    settings: CosmosSettings,
    schema: str | None,
    clock: Clock,
    user_dir: Path,
    *,
    transport: Any = None,
    credential: Any = None,
    notice: Notice | None = None,
    monitor: MonitorSettings | None = None,
    monitor_transport: Any = None,
    monitor_credential: Any = None,
    allow_writes: bool = False,
) -> Session:
    """The doctor's Cosmos session: the account client, Azure Monitor beside it, and the
    DoctorService; no request is sent until the doctor runs. The ledger never allows a
    write (the doctor sends none), whatever ``allow_writes`` reports as asked for."""
    from cosmem_tui.core.schema_choice import AUTO
    from cosmem_tui.core.throughput import Container
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.schemas.generic import GENERIC
    from cosmem_tui.sources.cosmos.account import CosmosAccount
    from cosmem_tui.sources.cosmos.auth import build_credential

    named = get_schema(schema, user_dir) if schema and schema not in (AUTO, GENERIC) else None
    opening = _Opening(clock, notice, budget_ru=settings.ru_budget)
    ledger = opening.ledger
    credential = opening.use_credential(credential, lambda say: build_credential(settings, say))
    account = CosmosAccount(settings, ledger, credential, transport=transport)
    opening.closers.append(account.close)
    services: dict[str, Any] = {}
    notes: list[str] = []
    if monitor is not None:
        token_credential = _monitor_credential(
            monitor_credential or credential, ledger, opening.closers
        )
        async with opening.closed_on_failure():
            telemetry, notes = await _open_monitor(
                monitor, ledger, token_credential, clock, transport=monitor_transport
            )
        opening.closers.append(telemetry.close)
        where = Container(settings.database, settings.container)
        services.update(telemetry_services(telemetry, clock, where))
    reader = services.get(TELEMETRY)
    services[DOCTOR] = lambda: _cosmos_doctor(
        account,
        settings,
        monitor,
        ledger,
        clock,
        reader,
        named,
        "named with --schema" if named is not None else "",
        user_dir,
        allow_writes=allow_writes,
    )
    return opening.session(services, notes)
