"""Azure Monitor as a telemetry backend: how a session opens it from ``MonitorSettings``.

Registered for ``MonitorSettings`` in ``sources/telemetry_backends.py``. Loads no Azure
SDK until it opens. Opening it:

* signs in with the session's credential when that is a token one; a key cannot sign
  metrics or logs calls, so Entra ID then (device code when ``--auth device-code``),
  a sign-in of its own that the session closes after the source;
* without ``--region``, asks the Cosmos account's write region when a container is open
  (the fallback for the metrics host when ARM cannot be read; ARM's location comes
  first: metrics live where the resource lives);
* locates the account (``telemetry.open_monitor``); what that found goes to the
  session's notes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cosmem_tui.sources.monitor.settings import MonitorSettings
from cosmem_tui.sources.telemetry import OpenedTelemetry, TelemetryOpening

if TYPE_CHECKING:
    from cosmem_tui.sources.inspection import AccountInspector


async def open_azure_monitor(settings: MonitorSettings, lent: TelemetryOpening) -> OpenedTelemetry:
    from cosmem_tui.sources.monitor.telemetry import open_monitor

    credential = _token_credential(lent)
    region_hint = None
    if settings.region is None and lent.account_region is not None:
        with lent.ledger.caused_by("open: the account's write region for Azure Monitor"):
            region_hint = await lent.account_region()
    with lent.ledger.caused_by("open: locate the account for Azure Monitor"):
        telemetry = await open_monitor(
            settings,
            ledger=lent.ledger,
            credential=credential,
            clock=lent.clock,
            transport=lent.transport,
            region_hint=region_hint,
        )

    def inspector() -> AccountInspector:
        """ARM's view of the account, through the source's own runner and ARM client."""
        from cosmem_tui.sources.monitor.arm_account import ArmAccount

        return ArmAccount(telemetry.calls, telemetry.clients, telemetry.settings)

    return OpenedTelemetry(
        telemetry,
        "azure",  # TelemetryKind.AZURE
        "Azure Monitor",
        sign_in=lent.auth or "aad",
        names=monitor_names(settings),
        inspector=inspector,
        notes=tuple(problem.describe() for problem in telemetry.problems()),
    )


def _token_credential(lent: TelemetryOpening) -> Any:
    """The session's credential when it can sign a token request, else one of our own."""
    if hasattr(lent.credential, "get_token"):
        return lent.credential
    from cosmem_tui.sources.cosmos.auth import build_token_credential
    from cosmem_tui.sources.cosmos.settings import AuthMode

    mode = AuthMode.DEVICE_CODE if lent.auth == AuthMode.DEVICE_CODE else AuthMode.AAD
    credential = build_token_credential(mode, lent.ledger.notice)
    lent.own(credential.close)  # an async credential: azure.identity.aio, or ThreadedCredential
    return credential


def monitor_names(settings: MonitorSettings) -> dict[str, str | None]:
    """The account's names, as the doctor's fixes quote them."""
    return {
        "account": settings.account,
        "resource_id": settings.resource_id,
        "subscription": settings.resource.subscription,
        "resource_group": settings.resource.resource_group,
        "workspace_id": settings.workspace_id,
        "database": settings.database,
        "container": settings.container,
    }
