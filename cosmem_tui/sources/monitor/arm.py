"""ARM reads of the account: where it lives, its regions, whether it is serverless, and
the throughput its container runs on.

* ``GET {arm}{resource_id}`` answers the resource's ``location`` (the region whose
  metrics host serves it: Azure Monitor keeps a resource's metrics where the resource
  is, which is not the Cosmos write region on many accounts — Microsoft's own example
  account lives in "West US" and writes in "East US" — nor after a failover), its
  ``type`` (anything but ``Microsoft.DocumentDB/databaseAccounts`` is NOT_COSMOS), its
  regions (``properties.locations`` by ``failoverPriority``; ``writeLocations``) and
  ``properties.capabilities`` (``EnableServerless``: no provisioned RU/s at all).
* ``GET …/sqlDatabases/{db}/containers/{c}/throughputSettings/default`` answers the
  container's own offer; a 404 there means the container has none and runs on its
  database's (``…/sqlDatabases/{db}/throughputSettings/default``), shared with the
  database's other containers. ``autoscaleSettings.maxThroughput`` marks autoscale.
  The doctor's ARM reads (``arm_account.py``) use the same GET and the same lookup,
  at their own API version, and read the answer as its ``OfferFacts``.

Each needs Reader (or Monitoring Reader, whose ``*/read`` covers them) on the account.
The ARM host is the cloud's (``settings.arm_url``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from azure.core.exceptions import HttpResponseError
from azure.core.rest import HttpRequest

from cosmem_tui.model.telemetry import Offer, ProblemKind, ThroughputMode
from cosmem_tui.sources.cosmos.region import normalise_region
from cosmem_tui.sources.monitor.calls import MonitorCalls
from cosmem_tui.sources.monitor.clients import MonitorClients
from cosmem_tui.sources.monitor.failures import MonitorFailure, Service
from cosmem_tui.sources.monitor.settings import NAMESPACE, MonitorSettings

API_VERSION = "2024-11-15"  # Microsoft.DocumentDB, GA
SERVERLESS = "EnableServerless"


@dataclass(frozen=True, slots=True)
class AccountResource:
    region: str  # the resource's location, normalised: "westus"
    kind: str | None  # GlobalDocumentDB, MongoDB, Parse
    regions: tuple[str, ...] = ()  # as ARM names them ("East US"), by failover priority
    write_region: str | None = None  # the first write region ("East US")
    serverless: bool = False


def _priority(location: Any) -> tuple[int, str]:
    priority = location.get("failoverPriority") if isinstance(location, Mapping) else None
    name = location.get("locationName") if isinstance(location, Mapping) else None
    return (priority if isinstance(priority, int) else 1_000, str(name or ""))


def _names(locations: Any) -> tuple[str, ...]:
    """Region names of an ARM location list, by failover priority, each once."""
    if not isinstance(locations, list):
        return ()
    found: list[str] = []
    for location in sorted((x for x in locations if isinstance(x, Mapping)), key=_priority):
        name = location.get("locationName")
        if isinstance(name, str) and name.strip() and name.strip() not in found:
            found.append(name.strip())
    return tuple(found)


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
    properties = body.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    writes = _names(properties.get("writeLocations"))
    regions = _names(properties.get("locations")) or _names(properties.get("readLocations"))
    capabilities = properties.get("capabilities")
    serverless = isinstance(capabilities, list) and any(
        isinstance(c, Mapping) and str(c.get("name", "")).lower() == SERVERLESS.lower()
        for c in capabilities
    )
    return AccountResource(
        region,
        account_kind if isinstance(account_kind, str) else None,
        regions=(*writes[:1], *(r for r in regions if r not in writes[:1])),
        write_region=writes[0] if writes else None,
        serverless=serverless,
    )


async def arm_get(
    calls: MonitorCalls,
    clients: MonitorClients,
    settings: MonitorSettings,
    path: str,
    operation: str,
    target: str,
    *,
    api: str = API_VERSION,
    missing_ok: bool = False,
) -> Any:
    """One ARM GET on the cloud's ARM host, through the runner (ledger, hold-off,
    deadline); with ``missing_ok`` a 404 answers None instead of failing. Raises
    ``MonitorFailure``."""
    url = f"{settings.arm_url}{path}?api-version={api}"

    async def send() -> Any:
        response = await clients.arm().send_request(HttpRequest("GET", url))
        if missing_ok and response.status_code == 404:
            return None
        if response.status_code >= 400:
            raise HttpResponseError(response=response)
        return response.json()

    return await calls.run(Service.ARM, operation, target, send)


async def read_account(
    calls: MonitorCalls, clients: MonitorClients, settings: MonitorSettings
) -> AccountResource:
    """The account's location, regions and kind (one ARM call); raises ``MonitorFailure``."""
    body = await arm_get(
        calls, clients, settings, settings.resource_id, "arm: account", settings.account
    )
    return account_resource(body, settings)


def offer_of(body: Any, mode: ThroughputMode, owner: str) -> Offer:
    """A throughputSettings answer as an ``Offer`` (autoscale: its maximum RU/s)."""
    properties = body.get("properties") if isinstance(body, Mapping) else None
    resource = properties.get("resource") if isinstance(properties, Mapping) else None
    if not isinstance(resource, Mapping):
        raise MonitorFailure(
            ProblemKind.QUERY_ERROR,
            f"ARM answered the throughput of {owner} without properties.resource",
            "this is a bug in the console or a new ARM shape: please report it",
        )
    autoscale = resource.get("autoscaleSettings")
    maximum = autoscale.get("maxThroughput") if isinstance(autoscale, Mapping) else None
    if isinstance(maximum, int | float) and not isinstance(maximum, bool) and maximum > 0:
        return Offer(mode, float(maximum), autoscale=True, owner=owner)
    throughput = resource.get("throughput")
    if isinstance(throughput, int | float) and not isinstance(throughput, bool):
        return Offer(mode, float(throughput), autoscale=False, owner=owner)
    raise MonitorFailure(
        ProblemKind.QUERY_ERROR,
        f"ARM answered the throughput of {owner} with neither throughput nor "
        "autoscaleSettings.maxThroughput",
        "this is a bug in the console or a new ARM shape: please report it",
    )


@dataclass(frozen=True, slots=True)
class ThroughputSettings:
    """A throughputSettings answer and whose it is (the container's own, or its
    database's, shared by the database's containers)."""

    body: Any
    container_own: bool


async def read_throughput_settings(
    calls: MonitorCalls,
    clients: MonitorClients,
    settings: MonitorSettings,
    database: str,
    container: str | None,
    *,
    api: str = API_VERSION,
) -> ThroughputSettings | None:
    """The container's throughputSettings, else (a 404: it has none) its database's;
    None when neither has one. One ARM read when the container has its own RU/s, two
    when it shares its database's; without a container, the database's alone. Raises
    ``MonitorFailure``."""
    base = f"{settings.resource_id}/sqlDatabases/{quote(database, safe='')}"
    if container:
        body = await arm_get(
            calls,
            clients,
            settings,
            f"{base}/containers/{quote(container, safe='')}/throughputSettings/default",
            "arm: container throughput",
            f"{database}/{container}",
            api=api,
            missing_ok=True,
        )
        if body is not None:
            return ThroughputSettings(body, container_own=True)
    body = await arm_get(
        calls,
        clients,
        settings,
        f"{base}/throughputSettings/default",
        "arm: database throughput",
        database,
        api=api,
        missing_ok=True,
    )
    return ThroughputSettings(body, container_own=False) if body is not None else None


async def read_offer(
    calls: MonitorCalls,
    clients: MonitorClients,
    settings: MonitorSettings,
    database: str,
    container: str | None,
) -> Offer:
    """The container's offer, else its database's (shared); raises ``MonitorFailure``.
    UNKNOWN (with no failure) when neither has one."""
    found = await read_throughput_settings(calls, clients, settings, database, container)
    if found is None:
        return Offer(ThroughputMode.UNKNOWN)
    if found.container_own:
        return offer_of(found.body, ThroughputMode.DEDICATED, f"container {database}/{container}")
    mode = ThroughputMode.SHARED if container else ThroughputMode.DEDICATED
    return offer_of(found.body, mode, f"database {database}")
