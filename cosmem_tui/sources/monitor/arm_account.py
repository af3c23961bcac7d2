"""The account as Azure Resource Manager sees it: features, the container's offer, diagnostics.

Read for the doctor, through the same GET as the region lookup (``arm.arm_get``: the
runner ``calls.MonitorCalls`` with ``Service.ARM``, one ledger record per attempt, the
ARM hold-off, the deadline), at this module's API versions:

* ``GET {account}?api-version=2025-10-15`` — ``properties.capabilities`` (EnableServerless),
  ``capacityMode`` (only preview API versions return it), ``enablePartitionMerge``,
  ``enableBurstCapacity``, ``enablePriorityBasedExecution``, ``defaultPriorityLevel``,
  ``backupPolicy.type`` / ``continuousModeProperties.tier``, and
  ``enableAllVersionsAndDeletesChangeFeed`` when the answer carries it (Learn documents
  it from the preview version 2024-12-01-preview on; the GA schema does not list it, so
  an answer without it leaves the flag unknown, never "off");
* ``GET {account}/sqlDatabases/{db}/containers/{c}/throughputSettings/default`` — the
  container's own offer; a 404 there means the throughput is the database's
  (``…/sqlDatabases/{db}/throughputSettings/default``), and a 404 there too, none
  (serverless): the throughput views' lookup (``arm.read_throughput_settings``), read
  here as the doctor's ``OfferFacts``. ``throughputBuckets`` is read when present
  (preview APIs);
* ``GET {account}/providers/Microsoft.Insights/diagnosticSettings?api-version=2021-05-01-preview``
  — each setting's workspace, ``logAnalyticsDestinationType`` ("Dedicated":
  resource-specific tables) and the log categories (or groups) it sends.

Reader on the account (or the Cosmos DB Account Reader Role) reads all three; the
diagnostic settings need ``Microsoft.Insights/diagnosticSettings/read``, which Reader
and Monitoring Reader both hold. Failures come back as ``InspectionFailed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cosmem_tui.model.doctor import (
    AccountFeatures,
    DiagnosticSetting,
    OfferFacts,
    OfferLevel,
    ReadFailure,
)
from cosmem_tui.model.telemetry import ProblemKind
from cosmem_tui.sources.inspection import InspectionFailed
from cosmem_tui.sources.monitor.arm import arm_get, read_throughput_settings
from cosmem_tui.sources.monitor.calls import MonitorCalls
from cosmem_tui.sources.monitor.clients import MonitorClients
from cosmem_tui.sources.monitor.failures import MonitorFailure
from cosmem_tui.sources.monitor.settings import MonitorSettings

ACCOUNT_API = "2025-10-15"  # Microsoft.DocumentDB GA: priority-based execution included
DIAGNOSTICS_API = "2021-05-01-preview"  # Microsoft.Insights/diagnosticSettings

_KINDS = {
    ProblemKind.UNAUTHORIZED: "unauthorized",
    ProblemKind.FORBIDDEN: "forbidden",
    ProblemKind.UNREACHABLE: "unreachable",
    ProblemKind.THROTTLED: "throttled",
    ProblemKind.NOT_COSMOS: "not-found",
}


def _flag(properties: Mapping[str, Any], name: str) -> bool | None:
    value = properties.get(name)
    return value if isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def account_features(body: Any) -> AccountFeatures:
    """The features of an ARM account answer (missing properties stay None)."""
    if not isinstance(body, Mapping):
        raise InspectionFailed(ReadFailure("error", "ARM answered something that is not JSON"))
    properties = body.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    capabilities = properties.get("capabilities")
    names = tuple(
        str(c["name"])
        for c in (capabilities if isinstance(capabilities, list) else [])
        if isinstance(c, Mapping) and isinstance(c.get("name"), str)
    )
    backup = properties.get("backupPolicy")
    backup = backup if isinstance(backup, Mapping) else {}
    continuous = backup.get("continuousModeProperties")
    continuous = continuous if isinstance(continuous, Mapping) else {}
    return AccountFeatures(
        location=_text(body.get("location")),
        capabilities=names,
        capacity_mode=_text(properties.get("capacityMode")),
        partition_merge=_flag(properties, "enablePartitionMerge"),
        burst_capacity=_flag(properties, "enableBurstCapacity"),
        priority_based_execution=_flag(properties, "enablePriorityBasedExecution"),
        default_priority=_text(properties.get("defaultPriorityLevel")),
        backup=_text(backup.get("type")),
        backup_tier=_text(continuous.get("tier")),
        all_versions_change_feed=_flag(properties, "enableAllVersionsAndDeletesChangeFeed"),
        api_version=ACCOUNT_API,
    )


def offer_facts(body: Any, level: OfferLevel) -> OfferFacts:
    """An offer from a throughputSettings answer (``properties.resource``)."""
    properties = body.get("properties") if isinstance(body, Mapping) else None
    resource = properties.get("resource") if isinstance(properties, Mapping) else None
    if not isinstance(resource, Mapping):
        raise InspectionFailed(ReadFailure("error", "ARM's throughput settings have no resource"))
    autoscale = resource.get("autoscaleSettings")
    autoscale = autoscale if isinstance(autoscale, Mapping) else {}
    raw_buckets = resource.get("throughputBuckets")
    buckets: tuple[tuple[int, int], ...] | None = None
    if isinstance(raw_buckets, list):
        pairs = []
        for bucket in raw_buckets:
            if isinstance(bucket, Mapping):
                number, share = _int(bucket.get("id")), _int(bucket.get("maxThroughputPercentage"))
                if number is not None and share is not None:
                    pairs.append((number, share))
        buckets = tuple(pairs)
    return OfferFacts(
        level=level,
        throughput=_int(resource.get("throughput")),
        autoscale_max=_int(autoscale.get("maxThroughput")),
        buckets=buckets,
    )


def diagnostic_settings(body: Any) -> tuple[DiagnosticSetting, ...]:
    """The settings of a diagnosticSettings list answer (``value``)."""
    values = body.get("value") if isinstance(body, Mapping) else None
    if not isinstance(values, list):
        raise InspectionFailed(ReadFailure("error", "the diagnostic settings answer has no list"))
    found = []
    for entry in values:
        if not isinstance(entry, Mapping):
            continue
        properties = entry.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        logs = properties.get("logs")
        logs = [log for log in (logs if isinstance(logs, list) else []) if isinstance(log, Mapping)]
        enabled = [log for log in logs if log.get("enabled") is True]
        found.append(
            DiagnosticSetting(
                name=str(entry.get("name") or ""),
                workspace=_text(properties.get("workspaceId")),
                dedicated=str(properties.get("logAnalyticsDestinationType") or "").lower()
                == "dedicated",
                categories=tuple(str(log["category"]) for log in enabled if log.get("category")),
                groups=tuple(
                    str(log["categoryGroup"]) for log in enabled if log.get("categoryGroup")
                ),
            )
        )
    return tuple(found)


def _failure(failure: MonitorFailure) -> InspectionFailed:
    kind = _KINDS.get(failure.kind, "error")
    return InspectionFailed(ReadFailure(kind, failure.message, failure.fix))


class ArmAccount:
    """The ``AccountInspector`` of one account (see the module doc)."""

    def __init__(
        self, calls: MonitorCalls, clients: MonitorClients, settings: MonitorSettings
    ) -> None:
        self._calls = calls
        self._clients = clients
        self._settings = settings

    async def _get(self, path: str, api: str, operation: str, target: str) -> Any:
        try:
            return await arm_get(
                self._calls, self._clients, self._settings, path, operation, target, api=api
            )
        except MonitorFailure as failure:
            raise _failure(failure) from None

    async def features(self) -> AccountFeatures:
        settings = self._settings
        body = await self._get(
            settings.resource_id, ACCOUNT_API, "arm: account features", settings.account
        )
        return account_features(body)

    async def offer(self, database: str | None, container: str | None) -> OfferFacts:
        if not database:
            raise InspectionFailed(
                ReadFailure("not-configured", "no database named: the offer cannot be read")
            )
        try:
            found = await read_throughput_settings(
                self._calls, self._clients, self._settings, database, container, api=ACCOUNT_API
            )
        except MonitorFailure as failure:
            raise _failure(failure) from None
        if found is None:
            return OfferFacts(OfferLevel.NONE)
        level = OfferLevel.CONTAINER if found.container_own else OfferLevel.DATABASE
        return offer_facts(found.body, level)

    async def diagnostic_settings(self) -> tuple[DiagnosticSetting, ...]:
        settings = self._settings
        body = await self._get(
            f"{settings.resource_id}/providers/Microsoft.Insights/diagnosticSettings",
            DIAGNOSTICS_API,
            "arm: diagnostic settings",
            settings.account,
        )
        return diagnostic_settings(body)
