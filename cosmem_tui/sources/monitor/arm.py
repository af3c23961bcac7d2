"""One ARM read of the account's resource: where it lives, and that it is a Cosmos account.

``GET https://management.azure.com{resource_id}?api-version=…`` answers the resource's
``location`` (the region whose metrics host serves it) and ``type``; anything but
``Microsoft.DocumentDB/databaseAccounts`` is refused as NOT_COSMOS. It needs Reader on
the account; ``--region`` (or the Cosmos account's own region) makes it unnecessary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from azure.core.exceptions import HttpResponseError
from azure.core.rest import HttpRequest

from cosmem_tui.model.telemetry import ProblemKind
from cosmem_tui.sources.cosmos.region import normalise_region
from cosmem_tui.sources.monitor.calls import MonitorCalls
from cosmem_tui.sources.monitor.clients import ARM_ENDPOINT, MonitorClients
from cosmem_tui.sources.monitor.failures import MonitorFailure, Service
from cosmem_tui.sources.monitor.settings import NAMESPACE, MonitorSettings

API_VERSION = "2024-11-15"  # Microsoft.DocumentDB, GA


@dataclass(frozen=True, slots=True)
class AccountResource:
    region: str  # normalised: "eastus"
    kind: str | None  # GlobalDocumentDB, MongoDB, Parse


def account_resource(body: Any, settings: MonitorSettings) -> AccountResource:
    """Check an ARM answer: a Cosmos account with a location, else a failure."""
    if not isinstance(body, dict):
        raise MonitorFailure(ProblemKind.QUERY_ERROR, "ARM answered something that is not JSON")
    kind = str(body.get("type") or "")
    if kind.lower() != NAMESPACE.lower():
        raise MonitorFailure(
            ProblemKind.NOT_COSMOS,
            f"{settings.resource_id} is a {kind or 'resource of unknown type'}, "
            f"not a Cosmos DB account ({NAMESPACE})",
            "point --resource-id at the Cosmos DB account "
            "(az cosmosdb show -g GROUP -n ACCOUNT --query id)",
        )
    location = body.get("location")
    try:
        region = normalise_region(location) if isinstance(location, str) else None
    except ValueError:
        region = None
    if region is None:
        raise MonitorFailure(
            ProblemKind.QUERY_ERROR,
            f"ARM gave no usable location for {settings.account} ({location!r})",
            "pass --region (e.g. --region eastus)",
        )
    account_kind = body.get("kind")
    return AccountResource(region, account_kind if isinstance(account_kind, str) else None)


async def read_account(
    calls: MonitorCalls, clients: MonitorClients, settings: MonitorSettings
) -> AccountResource:
    """The account's region and kind (one ARM call); raises ``MonitorFailure``."""
    url = f"{ARM_ENDPOINT}{settings.resource_id}?api-version={API_VERSION}"

    async def send() -> Any:
        response = await clients.arm().send_request(HttpRequest("GET", url))
        if response.status_code >= 400:
            raise HttpResponseError(response=response)
        return response.json()

    body = await calls.run(Service.ARM, "arm: account", settings.account, send)
    return account_resource(body, settings)
