"""Telemetry in a session: any registered backend, opened from its settings.

Compose names no backend here: ``sources/telemetry_backends.py`` says which opener
opens which settings class (Azure Monitor's ``MonitorSettings``, the simulator's
``SimulatedSettings``, …), and the same use cases (``TelemetryReader``,
``ThroughputService``, ``HotKeysService``) go over whichever source it opened.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from cosmem_tui.compose.building import Notice, SessionBuilder
from cosmem_tui.core.session import Session, TelemetryServices
from cosmem_tui.model import Clock, SystemClock
from cosmem_tui.sources.telemetry import OpenedTelemetry, TelemetryOpening

if TYPE_CHECKING:
    from cosmem_tui.core.doctor_service import DoctorService
    from cosmem_tui.core.throughput import Container
    from cosmem_tui.sources.telemetry import Telemetry, TelemetrySettings


def telemetry_services(telemetry: Telemetry, clock: Clock, where: Container) -> TelemetryServices:
    """The telemetry use cases over one source, sharing one reader (and its reuse)."""
    from cosmem_tui.core.hot_keys import HotKeysService
    from cosmem_tui.core.telemetry_reader import TelemetryReader
    from cosmem_tui.core.throughput import ThroughputService

    reader = TelemetryReader(telemetry, clock)
    return TelemetryServices(
        reader=reader,
        throughput=ThroughputService(reader, clock, where),
        hot_keys=HotKeysService(reader, clock, where),
    )


def _lend(
    builder: SessionBuilder,
    *,
    credential: Any = None,
    auth: str | None = None,
    account_region: Callable[[], Awaitable[str | None]] | None = None,
    transport: Any = None,
) -> TelemetryOpening:
    return TelemetryOpening(
        ledger=builder.ledger,
        clock=builder.clock,
        own=builder.own,
        credential=credential,
        auth=auth,
        account_region=account_region,
        transport=transport,
    )


async def open_telemetry(
    settings: TelemetrySettings,
    builder: SessionBuilder,
    *,
    credential: Any = None,
    auth: str | None = None,
    account_region: Callable[[], Awaitable[str | None]] | None = None,
    transport: Any = None,
) -> OpenedTelemetry:
    """The backend registered for ``settings``, opened; the session closes the source
    (before what its opener owned for it)."""
    from cosmem_tui.sources.telemetry_backends import opener_for

    lent = _lend(
        builder,
        credential=credential,
        auth=auth,
        account_region=account_region,
        transport=transport,
    )
    opening = opener_for(settings)(settings, lent)
    opened = await opening if inspect.isawaitable(opening) else opening
    builder.own(opened.telemetry.close)
    return opened


def open_telemetry_now(settings: TelemetrySettings, builder: SessionBuilder) -> OpenedTelemetry:
    """``open_telemetry`` for the synchronous workspace opener: the backend's opener must
    not wait (the simulator's does not)."""
    from cosmem_tui.sources.telemetry_backends import opener_for

    opened = opener_for(settings)(settings, _lend(builder))
    if inspect.isawaitable(opened):
        if inspect.iscoroutine(opened):
            opened.close()  # never started: nothing of it is open
        raise TypeError(
            f"{type(settings).__name__} opens asynchronously; a workspace session opens "
            "its telemetry synchronously"
        )
    builder.own(opened.telemetry.close)
    return opened


async def open_telemetry_session(
    settings: TelemetrySettings,
    clock: Clock | None = None,
    *,
    auth: str | None = None,
    transport: Any = None,
    credential: Any = None,
    notice: Notice | None = None,
) -> Session:
    """A telemetry source alone (``cosmem hot`` / ``cosmem throttle``): no Cosmos
    endpoint, no data-plane access needed (for Azure Monitor, Monitoring Reader and Log
    Analytics Reader suffice). ``credential``: the caller's own, never closed here."""
    from cosmem_tui.core.throughput import Container

    clock = clock or SystemClock()
    builder = SessionBuilder(clock, notice)
    async with builder.closed_on_failure():
        opened = await open_telemetry(
            settings, builder, credential=credential, auth=auth, transport=transport
        )
        services = telemetry_services(
            opened.telemetry, clock, Container(settings.database, settings.container)
        )
        ledger = builder.ledger

        def doctor() -> DoctorService:
            return telemetry_doctor(opened, services, ledger, clock)

        return builder.session(telemetry=services, doctor=doctor, notes=list(opened.notes))


def telemetry_doctor(
    opened: OpenedTelemetry, services: TelemetryServices, ledger: Any, clock: Clock
) -> DoctorService:
    """The doctor of a session that has telemetry and no container."""
    from cosmem_tui.compose.doctor import doctor_service
    from cosmem_tui.model.doctor import Backend, TelemetryKind

    return doctor_service(
        opened.names,
        ledger,
        clock,
        backend=Backend.NONE,
        label=opened.telemetry.about.label,
        auth=opened.sign_in,
        telemetry=TelemetryKind(opened.kind),
        parts={"telemetry": services.reader, "inspector": inspector_of(opened)},
    )


def inspector_of(opened: OpenedTelemetry | None) -> Any:
    """The account's management-plane view the backend offers (None: it has none)."""
    if opened is None or opened.inspector is None:
        return None
    return opened.inspector()
