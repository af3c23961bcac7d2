"""A local workspace session (the demo's, or an imported file's): opened synchronously.

The workspace is read-only; ``--allow-writes`` is the only way a writer is opened on it.
Its telemetry is the simulated workload over its own keys (``SimulatedSettings``),
opened through the same registry as any other backend.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cosmem_tui.compose.building import (
    SessionBuilder,
    audit_log,
    choose_embedder,
    memory_services,
)
from cosmem_tui.compose.telemetry import inspector_of, open_telemetry_now, telemetry_services
from cosmem_tui.core.session import Session, SessionOptions, TelemetryServices, config_dir
from cosmem_tui.model import Clock, SystemClock
from cosmem_tui.sources.local import LocalStore, Workspace
from cosmem_tui.sources.request_ledger import RequestLedger

if TYPE_CHECKING:
    from cosmem_tui.core.demo.live import LiveDemo
    from cosmem_tui.core.demo.manifest import DemoManifest
    from cosmem_tui.core.doctor_service import DoctorService
    from cosmem_tui.core.schema_choice import SchemaChoice
    from cosmem_tui.core.writes import WriteService
    from cosmem_tui.model.recall import Embedder
    from cosmem_tui.sources.telemetry import OpenedTelemetry


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
    from cosmem_tui.core.throughput import Container
    from cosmem_tui.sources.simulated.settings import SimulatedSettings

    if options.cosmos is not None:
        raise ValueError("a Cosmos session is opened with open_session (async)")
    if options.telemetry is not None:
        raise ValueError(
            "telemetry settings (Azure Monitor's --resource-id) go with a Cosmos container "
            "(--endpoint): a workspace has its simulated telemetry"
        )
    clock = clock or SystemClock()
    path = options.workspace_path
    notes: list[str] = []
    if options.needs_demo_build():
        build_demo(path, clock)
        notes.append(f"created the demo workspace at {path}")
    workspace = Workspace.open(path)
    builder = SessionBuilder(clock, writes_allowed=options.allow_writes)
    builder.own(lambda: asyncio.to_thread(workspace.close))  # the stores over it share it
    ledger = builder.ledger
    with builder.closed_on_failure_now():
        choice = _local_schema(options, workspace, ledger, clock)
        workspace.derive_for(choice.schema)  # for this session: the file is never written
        # The file's name: the header has no room for a whole path (the CLI names the path).
        label = f"demo workspace {path.name}" if options.is_demo else f"workspace {path.name}"
        store = LocalStore(workspace, choice.schema, ledger=ledger, clock=clock, label=label)
        memory = memory_services(store, clock, embedder=_embedder(options, builder))
        manifest = _manifest(workspace)
        hot_tenant = manifest.hot_tenant if manifest is not None else None
        opened = open_telemetry_now(SimulatedSettings(workspace, hot_tenant), builder)
        container = workspace.container
        where = Container(
            container.database,
            container.container,
            key_levels=len(container.partition_key.paths),
        )
        telemetry = telemetry_services(opened.telemetry, clock, where)
        writes = _local_writes(workspace, store, builder) if options.allow_writes else None

        def doctor() -> DoctorService:
            return _local_doctor(store, ledger, clock, opened, telemetry, options, label, choice)

        live = None
        if options.is_demo and options.live_demo and manifest is not None:

            def live() -> LiveDemo:
                return _live_demo(workspace, opened, manifest, clock)

        return builder.session(
            is_demo=options.is_demo,
            memory=memory,
            telemetry=telemetry,
            writes=writes,
            doctor=doctor,
            notes=notes,
            manifest=manifest,
            schema_reason=choice.reason,
            live_demo=live,
        )


def _live_demo(
    workspace: Workspace, opened: OpenedTelemetry, manifest: DemoManifest, clock: Clock
) -> LiveDemo:
    """The demo's live workload: the only writer of the demo's own file (a file that is
    not a demo build is refused by ``DemoWorkspaceWriter``), on the rhythm of the
    session's simulated telemetry."""
    from cosmem_tui.core.demo.live import LiveDemo
    from cosmem_tui.sources.local.demo_writer import DemoWorkspaceWriter
    from cosmem_tui.sources.simulated.telemetry import SimulatedTelemetry
    from cosmem_tui.sources.simulated.workload import DEFAULT_SEED

    telemetry = opened.telemetry
    if not isinstance(telemetry, SimulatedTelemetry):
        raise TypeError("the demo's live workload follows its simulated telemetry")
    return LiveDemo(
        DemoWorkspaceWriter.open_demo(workspace.path),
        telemetry.workload,
        clock=clock,
        manifest=manifest,
        seed=DEFAULT_SEED,
        refresh=workspace.refresh_item,
    )


def _local_writes(workspace: Workspace, store: LocalStore, builder: SessionBuilder) -> WriteService:
    """The only place a workspace is opened for writing (``--allow-writes``)."""
    from cosmem_tui.core.writes import WriteService
    from cosmem_tui.sources.local.writer import LocalWriter

    writer = LocalWriter(workspace, store.schema, ledger=builder.ledger, clock=builder.clock)
    builder.own(writer.close)
    return WriteService(writer, store, builder.clock, audit_log())


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


def _local_doctor(
    store: LocalStore,
    ledger: RequestLedger,
    clock: Clock,
    opened: OpenedTelemetry,
    telemetry: TelemetryServices,
    options: SessionOptions,
    label: str,
    choice: SchemaChoice,
) -> DoctorService:
    from cosmem_tui.compose.doctor import doctor_service
    from cosmem_tui.model.doctor import Backend, TelemetryKind
    from cosmem_tui.sources.local.access_probe import LocalAccessProbe

    container = store.workspace.container
    reason = choice.reason or ("named with --schema" if options.schema else "recorded")
    return doctor_service(
        {},
        ledger,
        clock,
        backend=Backend.WORKSPACE,
        label=label,
        demo=options.is_demo,
        auth="local",
        writes_allowed=options.allow_writes,
        telemetry=TelemetryKind(opened.kind),
        database=container.database,
        container=container.container,
        parts={
            "access": LocalAccessProbe(store),
            "inspector": inspector_of(opened),
            "telemetry": telemetry.reader,
            "schema": choice.schema,
            "schema_note": reason,
            "user_dir": config_dir() / "schemas",
        },
    )


def _embedder(options: SessionOptions, builder: SessionBuilder) -> Embedder | None:
    return choose_embedder(is_demo=options.is_demo, deployment=options.embeddings, builder=builder)
