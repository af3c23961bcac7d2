"""A Cosmos DB container session, and the doctor's (which reads nothing while it opens).

One client and one credential serve detection, browsing and (when it can sign a token
request) the telemetry backend beside the container. The Azure SDK loads here, not when
``cosmem_tui.compose`` is imported, so a workspace opens without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosmem_tui.compose.building import (
    Notice,
    SessionBuilder,
    audit_log,
    choose_embedder,
    memory_services,
)
from cosmem_tui.compose.telemetry import inspector_of, open_telemetry, telemetry_services
from cosmem_tui.core.session import Session
from cosmem_tui.model import Clock
from cosmem_tui.sources.errors import StoreError
from cosmem_tui.sources.request_ledger import RequestLedger

if TYPE_CHECKING:
    from cosmem_tui.core.doctor_service import DoctorService
    from cosmem_tui.core.session import TelemetryServices
    from cosmem_tui.core.throughput import Container
    from cosmem_tui.schemas import Schema
    from cosmem_tui.sources.cosmos.settings import CosmosSettings
    from cosmem_tui.sources.cosmos.store import CosmosStore
    from cosmem_tui.sources.telemetry import OpenedTelemetry, TelemetrySettings


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
    telemetry: TelemetrySettings | None = None,
    telemetry_transport: Any = None,
    allow_writes: bool = False,
) -> Session:
    """Connect, choose the schema (detecting it unless named) and return the session.

    ``credential``: an embedding application's (or a test's) own; the session then does
    not close it. Otherwise one is built from the settings and the session owns it.
    ``telemetry``: a telemetry backend's settings, opened beside the container.
    """
    from cosmem_tui.core.schema_choice import AUTO, SchemaChoice, choose_schema
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.schemas.generic import GENERIC
    from cosmem_tui.sources.cosmos.account import CosmosAccount
    from cosmem_tui.sources.cosmos.auth import build_credential
    from cosmem_tui.sources.cosmos.store import CosmosStore

    builder = SessionBuilder(
        clock, notice, budget_ru=settings.ru_budget, writes_allowed=allow_writes
    )
    ledger = builder.ledger
    credential = builder.use_credential(credential, lambda say: build_credential(settings, say))
    account = CosmosAccount(settings, ledger, credential, transport=transport)
    builder.own(account.close)  # the stores over it hold nothing else to close
    probe = CosmosStore(account, None, schema_dir=user_dir)
    requested = schema or AUTO
    async with builder.closed_on_failure():
        if requested in (AUTO, GENERIC):
            with ledger.caused_by("open: detect the schema"):
                choice = await choose_schema(requested, probe, user_dir)
        else:
            choice = SchemaChoice(get_schema(requested, user_dir), "")
        store = probe.with_schema(choice.schema)
        memory = memory_services(store, clock, cache_root, embedder=choose_embedder(is_demo=False))
        writes = None
        if allow_writes:  # the only place a Cosmos writer is built
            from cosmem_tui.core.writes import WriteService
            from cosmem_tui.sources.cosmos.writer import CosmosWriter

            writer = CosmosWriter(account, choice.schema, store.container_properties, credential)
            writes = WriteService(writer, store, clock, audit_log())
        opened = services = None
        if telemetry is not None:
            opened = await open_telemetry(
                telemetry,
                builder,
                credential=credential,
                account_region=store.account_region,
                transport=telemetry_transport,
            )
            where = await _telemetry_where(settings, store, ledger, opened.name)
            services = telemetry_services(opened.telemetry, clock, where)
        reason = choice.reason or "named with --schema"

        def doctor() -> DoctorService:
            return _cosmos_doctor(
                account,
                settings,
                opened,
                services,
                ledger,
                clock,
                choice.schema,
                reason,
                user_dir,
                allow_writes=allow_writes,
            )

        return builder.session(
            memory=memory,
            telemetry=services,
            writes=writes,
            doctor=doctor,
            notes=list(opened.notes) if opened is not None else [],
            schema_reason=choice.reason,
        )


async def _telemetry_where(
    settings: CosmosSettings, store: CosmosStore, ledger: RequestLedger, source: str
) -> Container:
    """The container being read, which the telemetry is filtered to, with its partition
    key's depth (read when the schema was detected, and kept; else one metadata read)."""
    from cosmem_tui.core.throughput import Container

    try:
        with ledger.caused_by(f"open: the container's partition key for {source}"):
            levels: int | None = len((await store.container_properties()).partition_key.paths)
    except StoreError:
        levels = None  # storage per tenant is then shown as a lower bound
    return Container(settings.database, settings.container, key_levels=levels)


async def open_cosmos_doctor_session(
    settings: CosmosSettings,
    schema: str | None,
    clock: Clock,
    user_dir: Path,
    *,
    transport: Any = None,
    credential: Any = None,
    notice: Notice | None = None,
    telemetry: TelemetrySettings | None = None,
    telemetry_transport: Any = None,
    telemetry_credential: Any = None,
    allow_writes: bool = False,
) -> Session:
    """The doctor's Cosmos session: the account client, the telemetry backend beside it,
    and the DoctorService; no request is sent until the doctor runs (no schema detection,
    no region lookup). The ledger never allows a write (the doctor sends none), whatever
    ``allow_writes`` reports as asked for."""
    from cosmem_tui.core.schema_choice import AUTO
    from cosmem_tui.core.throughput import Container
    from cosmem_tui.schemas import get_schema
    from cosmem_tui.schemas.generic import GENERIC
    from cosmem_tui.sources.cosmos.account import CosmosAccount
    from cosmem_tui.sources.cosmos.auth import build_credential

    named = get_schema(schema, user_dir) if schema and schema not in (AUTO, GENERIC) else None
    builder = SessionBuilder(clock, notice, budget_ru=settings.ru_budget)
    ledger = builder.ledger
    credential = builder.use_credential(credential, lambda say: build_credential(settings, say))
    account = CosmosAccount(settings, ledger, credential, transport=transport)
    builder.own(account.close)
    async with builder.closed_on_failure():
        opened = services = None
        if telemetry is not None:
            opened = await open_telemetry(
                telemetry,
                builder,
                credential=telemetry_credential or credential,
                transport=telemetry_transport,
            )
            where = Container(settings.database, settings.container)
            services = telemetry_services(opened.telemetry, clock, where)
        reason = "named with --schema" if named is not None else ""

        def doctor() -> DoctorService:
            return _cosmos_doctor(
                account,
                settings,
                opened,
                services,
                ledger,
                clock,
                named,
                reason,
                user_dir,
                allow_writes=allow_writes,
            )

        notes = list(opened.notes) if opened is not None else []
        return builder.session(telemetry=services, doctor=doctor, notes=notes)


def _cosmos_doctor(
    account: Any,
    settings: CosmosSettings,
    opened: OpenedTelemetry | None,
    telemetry: TelemetryServices | None,
    ledger: RequestLedger,
    clock: Clock,
    schema: Schema | None,
    reason: str,
    user_dir: Path,
    *,
    allow_writes: bool,
) -> DoctorService:
    from urllib.parse import urlparse

    from cosmem_tui.compose.doctor import doctor_service
    from cosmem_tui.model.doctor import Backend, TelemetryKind
    from cosmem_tui.sources.cosmos.access_probe import CosmosAccessProbe

    names = dict(opened.names) if opened is not None else {}
    host = urlparse(settings.endpoint).hostname or ""
    if ".documents." in host:  # ACCOUNT.documents.azure.com (or a sovereign cloud's)
        names.setdefault("account", host.split(".")[0])
    return doctor_service(
        names,
        ledger,
        clock,
        backend=Backend.COSMOS,
        label=f"cosmos {settings.endpoint.rstrip('/')}",
        auth=settings.auth.value,
        writes_allowed=allow_writes,
        telemetry=TelemetryKind(opened.kind) if opened is not None else TelemetryKind.NONE,
        database=settings.database,
        container=settings.container,
        parts={
            "access": CosmosAccessProbe(account),
            "inspector": inspector_of(opened),
            "telemetry": telemetry.reader if telemetry is not None else None,
            "schema": schema,
            "schema_note": reason,
            "user_dir": user_dir,
        },
    )
