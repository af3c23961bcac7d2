"""The doctor's checks: one need each (a data action, a role, a diagnostic category, an
account feature, a container policy, a setting) and a pure function that reads the
evidence and says whether the need is met, with what was read and the exact fix.

Every check is registered once in ``CHECKS`` (by ``@check``); capabilities name the
checks they rest on (``core/doctor.py``). A check never guesses: what it could not read
is ``UNKNOWN`` with the reason, what does not apply to this backend says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cosmem_tui.core import doctor_fixes as fixes
from cosmem_tui.model.doctor import (
    CONTRIBUTOR_ROLE,
    EXECUTE_QUERY,
    ITEMS_ALL,
    ITEMS_READ,
    RBAC_SUB_STATUS,
    READ_CHANGE_FEED,
    READ_METADATA,
    READER_ROLE,
    Access,
    AccountFeatures,
    Backend,
    CheckResult,
    CheckStatus,
    Cost,
    DataActionProbe,
    DiagnosticSetting,
    DoctorEvidence,
    NeedKind,
    OfferLevel,
    Reading,
    TelemetryKind,
)
from cosmem_tui.model.entities import ContainerProperties
from cosmem_tui.model.ttl import container_ttl_words

OK, MISSING, UNKNOWN, NOTE = (
    CheckStatus.OK,
    CheckStatus.MISSING,
    CheckStatus.UNKNOWN,
    CheckStatus.NOTE,
)

# The categories the console reads, and where the tables probe finds their rows.
PK_RU = "PartitionKeyRUConsumption"
DATA_PLANE = "DataPlaneRequests"
DATA_PLANE_5M = "DataPlaneRequests5M"
DATA_PLANE_15M = "DataPlaneRequests15M"
PK_STATS = "PartitionKeyStatistics"
CATEGORY_TABLES: dict[str, tuple[str, ...]] = {
    PK_RU: ("CDBPartitionKeyRUConsumption", "AzureDiagnostics/PartitionKeyRUConsumption"),
    DATA_PLANE: ("CDBDataPlaneRequests", "AzureDiagnostics/DataPlaneRequests"),
    DATA_PLANE_5M: ("CDBDataPlaneRequests5M",),  # aggregated logs: resource-specific only
    DATA_PLANE_15M: ("CDBDataPlaneRequests15M",),
    PK_STATS: ("CDBPartitionKeyStatistics", "AzureDiagnostics/PartitionKeyStatistics"),
}


@dataclass(frozen=True, slots=True)
class Outcome:
    status: CheckStatus
    evidence: str
    fix: str = ""
    cost: Cost = field(default_factory=Cost)


Evaluate = Callable[[DoctorEvidence], Outcome]


@dataclass(frozen=True, slots=True)
class Check:
    id: str
    title: str
    need: NeedKind
    needs: str
    evaluate: Evaluate

    def run(self, evidence: DoctorEvidence) -> CheckResult:
        outcome = self.evaluate(evidence)
        return CheckResult(
            self.id,
            self.title,
            self.need,
            self.needs,
            outcome.status,
            outcome.evidence,
            outcome.cost,
            outcome.fix,
        )


CHECKS: dict[str, Check] = {}


def check(check_id: str, title: str, need: NeedKind, needs: str) -> Callable[[Evaluate], Evaluate]:
    def register(evaluate: Evaluate) -> Evaluate:
        if check_id in CHECKS:
            raise ValueError(f"check {check_id} registered twice")
        CHECKS[check_id] = Check(check_id, title, need, needs, evaluate)
        return evaluate

    return register


# -- helpers -------------------------------------------------------------------------------


def _cosmos(e: DoctorEvidence) -> bool:
    return e.session.backend is Backend.COSMOS


def _workspace(e: DoctorEvidence) -> bool:
    return e.session.backend is Backend.WORKSPACE


def _no_container(e: DoctorEvidence) -> Outcome | None:
    if e.session.backend is Backend.NONE:
        return Outcome(UNKNOWN, "not asked: no container configured (--endpoint)")
    return None


def _container(e: DoctorEvidence) -> ContainerProperties | None:
    return e.access.value.container if e.access is not None and e.access.value else None


def _probes(e: DoctorEvidence, action: str) -> list[DataActionProbe]:
    if e.access is None or e.access.value is None:
        return []
    return [p for p in e.access.value.probes if p.action == action]


def _total(costs: Iterable[Cost]) -> Cost:
    total = Cost()
    for cost in costs:
        total = total + cost
    return total


def _cost(*readings: Reading[Any] | None) -> Cost:
    return _total(r.cost for r in readings if r is not None)


def _said(probe: DataActionProbe) -> str:
    sub = f", sub-status {probe.sub_status}" if probe.sub_status else ""
    name = RBAC_SUB_STATUS.get(probe.sub_status or 0)
    sub += f" {name}" if name else ""
    return f"{probe.status}{sub}"


def _denied_fix(e: DoctorEvidence, probe: DataActionProbe, *, writes: bool = False) -> str:
    text = probe.message.lower()
    if "firewall" in text or "ip address" in text or "vnet" in text:
        return (
            "the account's firewall or network rules block this machine: add its address "
            f"(az cosmosdb network-rule / --ip-range-filter on {fixes.account_name(e.session)}) "
            "or connect through the private endpoint"
        )
    if "local authorization is disabled" in text or "disablelocalauth" in text:
        return "key authentication is disabled on the account: use --auth aad with a data role"
    return fixes.data_role(e.session, writes=writes)


def _action(e: DoctorEvidence, action: str) -> Outcome:
    """One data action from its probes: allowed, denied (and what the 403 named), failed."""
    missing = _no_container(e)
    if missing is not None:
        return missing
    probes = _probes(e, action)
    cost = _total(p.cost for p in probes)
    if not probes:
        if e.access is not None and e.access.failure is not None:
            return Outcome(UNKNOWN, f"not tried: {e.access.failure.message}", cost=cost)
        return Outcome(UNKNOWN, "not tried: an earlier request was refused first", cost=cost)
    if all(p.access is Access.LOCAL for p in probes):
        return Outcome(OK, probes[0].what, cost=cost)
    denied = [p for p in probes if p.access is Access.DENIED]
    if denied:
        probe = denied[0]
        named = probe.named_action or action
        return Outcome(
            MISSING,
            f"{probe.what}: {_said(probe)} — the identity lacks {named} ({probe.message})",
            _denied_fix(e, probe),
            cost,
        )
    failed = [p for p in probes if p.access is Access.FAILED]
    if failed:
        probe = failed[0]
        fix = (
            "sign in again (az login; --auth device-code without a browser), or check the "
            "account key"
            if probe.status == 401
            else ""
        )
        return Outcome(UNKNOWN, f"{probe.what}: no verdict — {probe.message}", fix, cost)
    said = "; ".join(
        f"{p.what}: {p.message or p.status}" if p.message else f"{p.what}: {p.status}"
        for p in probes
    )
    key = (
        " (an account key: data-plane RBAC does not apply)"
        if e.session.auth
        in (
            "key",
            "connection-string",
        )
        else ""
    )
    return Outcome(OK, f"{said}{key}", cost=cost)


def _account_feature(e: DoctorEvidence) -> tuple[AccountFeatures | None, Outcome | None]:
    """The account's ARM features, or why they are not known."""
    if _workspace(e):
        return None, Outcome(UNKNOWN, "a local workspace has no Azure account: nothing to read")
    reading = e.account
    if reading is None:
        return None, Outcome(
            UNKNOWN,
            "not asked: no --resource-id, so Azure Resource Manager is not read",
            "pass --resource-id (az cosmosdb show -g GROUP -n ACCOUNT --query id)",
        )
    if reading.value is None:
        failure = reading.failure
        fix = (
            fixes.account_reader(e.session)
            if failure
            and failure.kind
            in (
                "forbidden",
                "unauthorized",
            )
            else (failure.fix if failure else "")
        )
        message = failure.message if failure else "no answer"
        return None, Outcome(UNKNOWN, f"{reading.what}: {message}", fix, reading.cost)
    return reading.value, None


def _feature_outcome(e: DoctorEvidence, read: Callable[[AccountFeatures], Outcome]) -> Outcome:
    features, unknown = _account_feature(e)
    if features is None:
        assert unknown is not None
        return unknown
    outcome = read(features)
    return Outcome(outcome.status, outcome.evidence, outcome.fix, _cost(e.account))


# -- settings ---------------------------------------------------------------------------------


@check("setting.container", "a container", NeedKind.SETTING, "--endpoint/--database/--container")
def _setting_container(e: DoctorEvidence) -> Outcome:
    if e.session.backend is Backend.NONE:
        return Outcome(
            MISSING,
            "no Cosmos container configured: only Azure Monitor was given",
            "name it: --endpoint https://ACCOUNT.documents.azure.com:443/ --database DB "
            "--container CONTAINER (or COSMOS_ENDPOINT, COSMOS_DATABASE, COSMOS_CONTAINER)",
        )
    demo = " (the embedded demo)" if e.session.demo else ""
    return Outcome(OK, f"{e.session.label}{demo}")


@check("setting.writes", "--allow-writes", NeedKind.SETTING, "a session opened with --allow-writes")
def _setting_writes(e: DoctorEvidence) -> Outcome:
    if e.session.writes_allowed:
        return Outcome(OK, "opened with --allow-writes: writes are offered, each confirmed")
    return Outcome(
        MISSING,
        "read-only session: no write can be sent (the console is read-only by default)",
        "start with --allow-writes (every write is shown first, confirmed and audited)",
    )


@check("monitor.configured", "Azure Monitor", NeedKind.SETTING, "--resource-id")
def _monitor_configured(e: DoctorEvidence) -> Outcome:
    kind = e.session.telemetry
    if kind is TelemetryKind.SIMULATED:
        return Outcome(OK, "the demo's simulated workload (no Azure account to ask)")
    if kind is TelemetryKind.AZURE:
        return Outcome(OK, f"resource {e.session.resource_id}")
    return Outcome(
        MISSING,
        "no telemetry configured: metrics and logs need the account's resource id",
        "pass --resource-id (or COSMEM_RESOURCE_ID): az cosmosdb show -g GROUP -n ACCOUNT "
        "--query id",
    )


@check("logs.configured", "Log Analytics workspace", NeedKind.SETTING, "--workspace-id")
def _logs_configured(e: DoctorEvidence) -> Outcome:
    kind = e.session.telemetry
    if kind is TelemetryKind.SIMULATED:
        return Outcome(OK, "the demo's simulated logs (no workspace to ask)")
    if kind is TelemetryKind.AZURE and e.session.workspace_id:
        return Outcome(OK, f"workspace {e.session.workspace_id}")
    return Outcome(
        MISSING,
        "no Log Analytics workspace configured: per-key RU, 429s by key and storage by key "
        "come from the account's diagnostic logs",
        "pass --workspace-id (or COSMEM_WORKSPACE_ID): the Workspace ID (a GUID) of the "
        "workspace the account's diagnostic setting sends to",
    )


# -- the data plane ---------------------------------------------------------------------------


@check("data.metadata", "readMetadata", NeedKind.DATA_ACTION, READ_METADATA)
def _data_metadata(e: DoctorEvidence) -> Outcome:
    return _action(e, READ_METADATA)


@check("data.read", "items/read", NeedKind.DATA_ACTION, ITEMS_READ)
def _data_read(e: DoctorEvidence) -> Outcome:
    return _action(e, ITEMS_READ)


@check("data.query", "executeQuery", NeedKind.DATA_ACTION, EXECUTE_QUERY)
def _data_query(e: DoctorEvidence) -> Outcome:
    return _action(e, EXECUTE_QUERY)


@check("data.write", "items/* (writes)", NeedKind.DATA_ACTION, ITEMS_ALL)
def _data_write(e: DoctorEvidence) -> Outcome:
    missing = _no_container(e)
    if missing is not None:
        return missing
    if _workspace(e):
        return Outcome(OK, "a local workspace: its own write handle, no roles to grant")
    if e.session.auth in ("key", "connection-string"):
        return Outcome(
            UNKNOWN,
            "not tried (the doctor never writes): an account key writes unless it is a "
            "read-only key, which the service answers with 403",
            "use the account's primary key, not a read-only one, for --allow-writes",
        )
    return Outcome(
        UNKNOWN,
        "not tried (the doctor never writes): pin and set-ttl patch an item, erase deletes "
        f"items; {CONTRIBUTOR_ROLE} (items/*) allows both",
        fixes.data_role(e.session, writes=True),
    )


@check("data.change_feed", "readChangeFeed", NeedKind.DATA_ACTION, READ_CHANGE_FEED)
def _data_change_feed(e: DoctorEvidence) -> Outcome:
    missing = _no_container(e)
    if missing is not None:
        return missing
    if _workspace(e):
        return Outcome(MISSING, "a local workspace has no change feed")
    return Outcome(
        UNKNOWN,
        f"not tried: the console reads no change feed yet ({READER_ROLE} includes it)",
    )


@check("schema.fits", "schema", NeedKind.SETTING, "a schema whose partition key is the container's")
def _schema_fits(e: DoctorEvidence) -> Outcome:
    container = _container(e)
    if e.schema is None:
        return Outcome(NOTE, e.schema_note or "no schema chosen")
    if container is None:
        return Outcome(UNKNOWN, f"schema {e.schema}: the container's key could not be read")
    actual = tuple(container.partition_key.paths)
    if e.schema_key and actual != e.schema_key:
        return Outcome(
            MISSING,
            f"the container is partitioned by {container.partition_key.describe()} but schema "
            f"{e.schema} expects {', '.join(e.schema_key)}",
            "pick a schema for this key with --schema (or leave it out to detect one)",
        )
    why = f" ({e.schema_note})" if e.schema_note else ""
    return Outcome(OK, f"schema {e.schema}{why} reads {container.partition_key.describe()}")


# -- Azure Monitor roles ------------------------------------------------------------------------


def _simulated(
    e: DoctorEvidence, reading: Reading[Any] | None = None, what: str = "answered"
) -> Outcome | None:
    """On the demo: what the simulated workload answered (no Azure service is asked)."""
    if e.session.telemetry is not TelemetryKind.SIMULATED:
        return None
    if reading is not None and reading.failure is not None:
        return Outcome(UNKNOWN, f"simulated: {reading.failure.message}", cost=reading.cost)
    said = f"{reading.what}: {what}" if reading is not None else what
    return Outcome(OK, f"simulated workload — {said} (no Azure service asked)", cost=_cost(reading))


def _denied(kind: str | None) -> bool:
    return kind in ("forbidden", "unauthorized")


@check(
    "monitor.reader",
    "Monitoring Reader",
    NeedKind.ROLE,
    "Monitoring Reader on the subscription (the metrics batch API)",
)
def _monitor_reader(e: DoctorEvidence) -> Outcome:
    series = e.metrics.value if e.metrics is not None else None
    simulated = _simulated(e, e.metrics, f"{series} series")
    if simulated is not None:
        return simulated
    reading = e.metrics
    if reading is None:
        return Outcome(UNKNOWN, "not asked: no --resource-id")
    if reading.ok:
        return Outcome(OK, f"{reading.what}: answered, {reading.value} series", cost=reading.cost)
    failure = reading.failure
    message = failure.message if failure else "no answer"
    if failure is not None and _denied(failure.kind):
        return Outcome(
            MISSING,
            f"{reading.what}: {message}",
            fixes.monitoring_reader(e.session)
            + (" — or register Microsoft.Insights: az provider register --namespace "
               "Microsoft.Insights" if failure.kind == "forbidden" else ""),
            reading.cost,
        )  # fmt: skip
    return Outcome(
        UNKNOWN, f"{reading.what}: {message}", failure.fix if failure else "", reading.cost
    )


def _workspace_arm_id(e: DoctorEvidence) -> str | None:
    """The workspace a diagnostic setting sends to, when exactly one does."""
    settings = e.diagnostics.value if e.diagnostics is not None and e.diagnostics.value else ()
    workspaces = {s.workspace for s in settings if s.workspace}
    return workspaces.pop() if len(workspaces) == 1 else None


@check(
    "logs.reader",
    "Log Analytics Reader",
    NeedKind.ROLE,
    "Log Analytics Reader on the workspace",
)
def _logs_reader(e: DoctorEvidence) -> Outcome:
    simulated = _simulated(e, e.tables, "the simulated tables")
    if simulated is not None:
        return simulated
    reading = e.tables
    if reading is None:
        return Outcome(UNKNOWN, "not asked: no --workspace-id")
    if reading.ok:
        tables = ", ".join(f"{t} ({n:,})" for t, n in reading.value or ()) or "no Cosmos DB rows"
        return Outcome(OK, f"{reading.what}: answered — {tables}", cost=reading.cost)
    failure = reading.failure
    message = failure.message if failure else "no answer"
    if failure is not None and _denied(failure.kind):
        return Outcome(
            MISSING,
            f"{reading.what}: {message}",
            log_fix(e),
            reading.cost,
        )
    return Outcome(
        UNKNOWN, f"{reading.what}: {message}", failure.fix if failure else "", reading.cost
    )


def log_fix(e: DoctorEvidence) -> str:
    return fixes.log_analytics_reader(_workspace_arm_id(e))


@check(
    "arm.reader",
    "account readable in ARM",
    NeedKind.ROLE,
    f"{fixes.ACCOUNT_READER} (or Reader) on the account",
)
def _arm_reader(e: DoctorEvidence) -> Outcome:
    features, unknown = _account_feature(e)
    if features is None:
        assert unknown is not None
        reading = e.account
        if reading is not None and reading.failure is not None and _denied(reading.failure.kind):
            return Outcome(MISSING, unknown.evidence, unknown.fix, unknown.cost)
        return unknown
    where = f" in {features.location}" if features.location else ""
    return Outcome(
        OK, f"{e.account.what if e.account else 'ARM'}: answered{where}", cost=_cost(e.account)
    )


# -- account features -----------------------------------------------------------------------------


@check("account.merge", "partition merge off", NeedKind.FEATURE, "enablePartitionMerge false")
def _account_merge(e: DoctorEvidence) -> Outcome:
    def read(f: AccountFeatures) -> Outcome:
        if f.partition_merge is True:
            return Outcome(
                MISSING,
                'enablePartitionMerge is true: Learn ("Merge partitions") says requests from '
                "any Python SDK — this console's — are blocked on such an account",
                fixes.account_update(e.session, "--enable-partition-merge false")
                + " (takes 15–20 minutes to apply)",
            )
        if f.partition_merge is False:
            return Outcome(OK, "enablePartitionMerge is false")
        return Outcome(UNKNOWN, "the account's answer did not carry enablePartitionMerge")

    return _feature_outcome(e, read)


@check(
    "account.priority",
    "priority-based execution",
    NeedKind.FEATURE,
    "enablePriorityBasedExecution true",
)
def _account_priority(e: DoctorEvidence) -> Outcome:
    def read(f: AccountFeatures) -> Outcome:
        if f.serverless:
            return Outcome(NOTE, "serverless: priority-based execution does not apply")
        default = f.default_priority
        if f.priority_based_execution is True:
            tail = (
                "; the account's default is Low, so the application's requests without a "
                "level are Low too"
                if (default or "").lower() == "low"
                else ""
            )
            return Outcome(
                OK,
                "on: the console's requests go Low priority and are throttled before the "
                f"application's (High by default){tail}",
            )
        if f.priority_based_execution is False:
            return Outcome(
                MISSING,
                "off: the service ignores the console's Low priority, so under load its reads "
                "compete with the application's",
                fixes.account_update(e.session, "--enable-priority-based-execution true"),
            )
        return Outcome(UNKNOWN, "the account's answer did not carry enablePriorityBasedExecution")

    return _feature_outcome(e, read)


@check("account.burst", "burst capacity", NeedKind.FEATURE, "enableBurstCapacity")
def _account_burst(e: DoctorEvidence) -> Outcome:
    def read(f: AccountFeatures) -> Outcome:
        state = {True: "on", False: "off", None: "not said"}[f.burst_capacity]
        return Outcome(NOTE, f"burst capacity {state}: idle partitions may bank RU for spikes")

    return _feature_outcome(e, read)


@check("account.backup", "continuous backup", NeedKind.FEATURE, "backupPolicy.type Continuous")
def _account_backup(e: DoctorEvidence) -> Outcome:
    def read(f: AccountFeatures) -> Outcome:
        if (f.backup or "").lower() == "continuous":
            tier = f" ({f.backup_tier})" if f.backup_tier else ""
            return Outcome(OK, f"continuous backup{tier}")
        if f.backup:
            return Outcome(
                MISSING,
                f"{f.backup} backup: the all-versions-and-deletes change feed needs continuous",
                fixes.account_update(e.session, "--backup-policy-type Continuous"),
            )
        return Outcome(UNKNOWN, "the account's answer did not carry backupPolicy")

    return _feature_outcome(e, read)


@check(
    "account.all_versions",
    "all versions and deletes change feed",
    NeedKind.FEATURE,
    "enableAllVersionsAndDeletesChangeFeed true",
)
def _account_all_versions(e: DoctorEvidence) -> Outcome:
    def read(f: AccountFeatures) -> Outcome:
        if f.all_versions_change_feed is True:
            return Outcome(OK, "enableAllVersionsAndDeletesChangeFeed is true")
        if f.all_versions_change_feed is False:
            return Outcome(
                MISSING,
                "enableAllVersionsAndDeletesChangeFeed is false: deletes and TTL expiries "
                "are not in the change feed",
                fixes.all_versions_change_feed(e.session),
            )
        return Outcome(
            UNKNOWN,
            f"the GA API's answer ({f.api_version}) does not carry "
            "enableAllVersionsAndDeletesChangeFeed (a preview property)",
            f"look it up: {fixes.all_versions_lookup(e.session)}",
        )

    return _feature_outcome(e, read)


# -- throughput ----------------------------------------------------------------------------------


@check(
    "throughput.mode",
    "provisioned throughput",
    NeedKind.FEATURE,
    "an offer: RU/s to compare against",
)
def _throughput_mode(e: DoctorEvidence) -> Outcome:
    if e.session.telemetry is TelemetryKind.SIMULATED:
        return Outcome(OK, "simulated workload: a provisioned container (no Azure account)")
    features, unknown = _account_feature(e)
    if features is not None and features.serverless:
        return Outcome(
            MISSING,
            "serverless: no provisioned RU/s — the capacity line, BUDGET and the partitions' "
            "budgets stay empty (nothing to fix: serverless has no offer)",
            cost=_cost(e.account),
        )
    reading = e.offer
    if reading is None or reading.value is None:
        if reading is not None and reading.failure is not None:
            fix = fixes.account_reader(e.session) if _denied(reading.failure.kind) else ""
            return Outcome(
                UNKNOWN,
                f"{reading.what}: {reading.failure.message}",
                fix,
                _cost(e.account, reading),
            )
        assert unknown is not None or features is not None
        return unknown or Outcome(UNKNOWN, "the offer was not read")
    offer = reading.value
    cost = _cost(e.account, reading)
    amount = (
        f"autoscale up to {offer.autoscale_max:,} RU/s (scales from 10 %)"
        if offer.autoscale_max
        else f"{offer.throughput:,} RU/s manual"
        if offer.throughput
        else "an offer without RU/s"
    )
    if offer.level is OfferLevel.CONTAINER:
        return Outcome(OK, f"dedicated to the container: {amount}", cost=cost)
    if offer.level is OfferLevel.DATABASE:
        return Outcome(
            OK,
            f"shared by the database's containers: {amount}; normalised RU exists at "
            "database level only",
            cost=cost,
        )
    return Outcome(
        MISSING, "no offer on the container or its database: no provisioned RU/s", cost=cost
    )


@check("throughput.buckets", "throughput buckets", NeedKind.FEATURE, "throughputBuckets")
def _throughput_buckets(e: DoctorEvidence) -> Outcome:
    reading = e.offer
    if reading is None or reading.value is None:
        unknown = _account_feature(e)[1]
        if reading is None and unknown is not None:
            return unknown
        why = reading.failure.message if reading is not None and reading.failure else ""
        return Outcome(
            UNKNOWN, f"the offer was not read: {why or 'no answer'}", cost=_cost(reading)
        )
    buckets = reading.value.buckets
    if buckets is None:
        return Outcome(
            NOTE,
            "not in the GA API's answer (a preview feature): a 429 with sub-status 3212 "
            "(bucket exhausted) or 3213 (bucket changed too often) in the ledger shows one",
        )
    if not buckets:
        return Outcome(NOTE, "none configured")
    listed = ", ".join(f"bucket {n}: ≤{share} %" for n, share in buckets)
    return Outcome(NOTE, f"{listed} (a bucket's own 429s carry sub-status 3212)")


# -- diagnostic settings and the workspace's tables -----------------------------------------------


def _table_rows(e: DoctorEvidence) -> dict[str, int] | None:
    if e.tables is None or not e.tables.ok:
        return None
    return dict(e.tables.value or ())


def _settings(e: DoctorEvidence) -> tuple[DiagnosticSetting, ...] | None:
    if e.diagnostics is None or not e.diagnostics.ok:
        return None
    return e.diagnostics.value


def _categories(
    e: DoctorEvidence, categories: Sequence[str], *, fix_with: Sequence[str]
) -> Outcome:
    """Is any of ``categories`` in the workspace (rows in 24 h) or sent (a setting)?"""
    if e.session.telemetry is TelemetryKind.SIMULATED:
        modelled = _table_rows(e) or {}
        tables = [t for c in categories for t in CATEGORY_TABLES[c] if t in modelled]
        said = ", ".join(f"{t} ({modelled[t]:,} rows)" for t in tables) or "no rows in 24 h"
        return Outcome(OK, f"simulated workload — {said}", cost=_cost(e.tables))
    rows = _table_rows(e)
    settings = _settings(e)
    cost = _cost(e.tables, e.diagnostics)
    seen = {
        table: rows[table]
        for c in categories
        for table in CATEGORY_TABLES[c]
        if rows is not None and rows.get(table, 0) > 0
    }
    senders = [s for s in settings or () if s.workspace and any(s.sends(c) for c in categories)]
    sent_by = "; sent by " + ", ".join(f"setting {s.name!r}" for s in senders) if senders else ""
    if seen:
        found = ", ".join(f"{t} ({n:,} rows)" for t, n in seen.items())
        return Outcome(OK, f"in the workspace, last 24 h: {found}{sent_by}", cost=cost)
    if senders:
        return Outcome(
            UNKNOWN,
            f"{sent_by[2:]} but no rows in 24 h here: a quiet account, or a workspace other "
            "than --workspace-id",
            "check that --workspace-id is the workspace the setting sends to",
            cost,
        )
    if rows is not None or settings is not None:
        names = " or ".join(categories)
        what = []
        if rows is not None:
            what.append("no rows in the workspace in 24 h")
        if settings is not None:
            what.append(f"none of the {len(settings)} diagnostic settings sends it")
        return Outcome(
            MISSING,
            f"{names}: {'; '.join(what)}",
            fixes.diagnostic_setting(e.session, fix_with, _workspace_arm_id(e)),
            cost,
        )
    return Outcome(
        UNKNOWN, "neither the workspace nor the diagnostic settings could be read", cost=cost
    )


@check(
    "diag.setting",
    "diagnostic setting",
    NeedKind.DIAGNOSTIC,
    "a diagnostic setting that sends the account's logs to a workspace",
)
def _diag_setting(e: DoctorEvidence) -> Outcome:
    if e.session.telemetry is TelemetryKind.SIMULATED:
        return Outcome(UNKNOWN, "a local workspace has no Azure account: no diagnostic settings")
    reading = e.diagnostics
    if reading is None:
        return Outcome(UNKNOWN, "not asked: no --resource-id")
    if reading.value is None:
        failure = reading.failure
        fix = fixes.account_reader(e.session) if failure and _denied(failure.kind) else ""
        return Outcome(
            UNKNOWN, f"{reading.what}: {failure.message if failure else ''}", fix, reading.cost
        )
    settings = [s for s in reading.value if s.workspace]
    if not settings:
        return Outcome(
            MISSING,
            f"{len(reading.value)} diagnostic settings, none sending to a Log Analytics workspace",
            fixes.diagnostic_setting(e.session, (PK_RU, DATA_PLANE_5M, PK_STATS), None),
            reading.cost,
        )
    parts = []
    for s in settings:
        mode = "resource-specific" if s.dedicated else "AzureDiagnostics (legacy)"
        sent = ", ".join(s.categories or s.groups) or "no log category"
        aggregated = [c for c in (DATA_PLANE_5M, DATA_PLANE_15M) if s.sends(c)]
        extra = f"; aggregated {'/'.join(aggregated)}" if aggregated else ""
        parts.append(f"{s.name!r} → {s.workspace.rsplit('/', 1)[-1] if s.workspace else ''} "
                     f"({mode}): {sent}{extra}")  # fmt: skip
    legacy = any(not s.dedicated for s in settings)
    note = (
        " — AzureDiagnostics mode: the aggregated 5M/15M tables exist only in "
        "resource-specific mode"
        if legacy
        else ""
    )
    return Outcome(OK, "; ".join(parts) + note, cost=reading.cost)


@check("diag.pk_ru", PK_RU, NeedKind.DIAGNOSTIC, PK_RU)
def _diag_pk_ru(e: DoctorEvidence) -> Outcome:
    return _categories(e, (PK_RU,), fix_with=(PK_RU,))


@check(
    "diag.data_plane",
    "data-plane request logs",
    NeedKind.DIAGNOSTIC,
    f"{DATA_PLANE_5M}, {DATA_PLANE_15M} or {DATA_PLANE}",
)
def _diag_data_plane(e: DoctorEvidence) -> Outcome:
    return _categories(e, (DATA_PLANE_5M, DATA_PLANE_15M, DATA_PLANE), fix_with=(DATA_PLANE_5M,))


@check(
    "diag.data_plane_requests",
    "per-request logs",
    NeedKind.DIAGNOSTIC,
    f"{DATA_PLANE} (per request, with ActivityId)",
)
def _diag_requests(e: DoctorEvidence) -> Outcome:
    outcome = _categories(e, (DATA_PLANE,), fix_with=(DATA_PLANE,))
    if outcome.status is not MISSING:
        return outcome
    aggregated = _categories(e, (DATA_PLANE_5M, DATA_PLANE_15M), fix_with=(DATA_PLANE_5M,))
    if aggregated.status is not OK:
        return outcome
    # The aggregated tables are Microsoft's recommendation: never push a workspace that has
    # them towards the per-request category, only say what it would add and at what cost.
    return Outcome(
        MISSING,
        f"{outcome.evidence}; 429s are counted per minute from the aggregated tables, but "
        "tying a 429 to a key needs each request's ActivityId, which only the per-request "
        f"{DATA_PLANE} logs carry (at many times the cost)",
        "",
        outcome.cost,
    )


@check("diag.pk_stats", PK_STATS, NeedKind.DIAGNOSTIC, PK_STATS)
def _diag_pk_stats(e: DoctorEvidence) -> Outcome:
    return _categories(e, (PK_STATS,), fix_with=(PK_STATS,))


# -- container policies ------------------------------------------------------------------------


def _policy_container(e: DoctorEvidence) -> tuple[ContainerProperties | None, Outcome | None]:
    missing = _no_container(e)
    if missing is not None:
        return None, missing
    container = _container(e)
    if container is None:
        return None, Outcome(
            UNKNOWN, "the container's properties could not be read", cost=_cost(e.access)
        )
    return container, None


def _paths(entries: object, key: str = "path") -> list[str]:
    if not isinstance(entries, list):
        return []
    return [str(x[key]) for x in entries if isinstance(x, dict) and isinstance(x.get(key), str)]


def _vector_paths(container: ContainerProperties) -> tuple[list[str], list[str]]:
    policy = container.vector_embedding_policy or {}
    declared = _paths(policy.get("vectorEmbeddings"))
    indexed = _paths(container.indexing_policy.get("vectorIndexes"))
    return declared, indexed


@check("container.ttl", "TTL mode", NeedKind.POLICY, "DefaultTimeToLive")
def _container_ttl(e: DoctorEvidence) -> Outcome:
    container, unknown = _policy_container(e)
    if container is None:
        assert unknown is not None
        return unknown
    return Outcome(NOTE, container_ttl_words(container.default_ttl))


@check(
    "policy.vector",
    "vector policy and index",
    NeedKind.POLICY,
    "vectorEmbeddingPolicy with a vectorIndexes entry",
)
def _policy_vector(e: DoctorEvidence) -> Outcome:
    container, unknown = _policy_container(e)
    if container is None:
        assert unknown is not None
        return unknown
    declared, indexed = _vector_paths(container)
    if not declared:
        return Outcome(
            MISSING,
            "no vector embedding policy: VectorDistance has no declared vectors",
            "a vector policy is set when a container is created: create one with "
            "vectorEmbeddingPolicy and a vectorIndexes entry, and copy the items over",
        )
    both = [p for p in declared if p in indexed]
    listed = f"declares {', '.join(declared)}; indexed: {', '.join(indexed) or 'none'}"
    if _workspace(e):
        return Outcome(
            MISSING,
            f"the workspace records a vector policy ({listed}) but a local workspace cannot run "
            "VectorDistance: vector queries need a Cosmos container",
        )
    if not both:
        return Outcome(
            MISSING,
            f"{listed}: every VectorDistance query would compare every item",
            "add {path, type: quantizedFlat or diskANN} to vectorIndexes in the indexing policy",
        )
    return Outcome(OK, listed)


@check(
    "policy.full_text",
    "full-text policy and index",
    NeedKind.POLICY,
    "fullTextPolicy with fullTextIndexes",
)
def _policy_full_text(e: DoctorEvidence) -> Outcome:
    container, unknown = _policy_container(e)
    if container is None:
        assert unknown is not None
        return unknown
    declared = _paths((container.full_text_policy or {}).get("fullTextPaths"))
    indexed = _paths(container.indexing_policy.get("fullTextIndexes"))
    if not declared:
        return Outcome(MISSING, "no full-text policy: FullTextContains / BM25 ranking unavailable")
    listed = f"declares {', '.join(declared)}; indexed: {', '.join(indexed) or 'none'}"
    if _workspace(e):
        return Outcome(
            MISSING, f"the workspace records a full-text policy ({listed}) but cannot run it"
        )
    if not [p for p in declared if p in indexed]:
        return Outcome(
            MISSING, f"{listed}", "add the path to fullTextIndexes in the indexing policy"
        )
    return Outcome(OK, listed)


@check(
    "policy.embedding",
    "the schema's embedding covered",
    NeedKind.POLICY,
    "the schema's embedding path in the vector policy",
)
def _policy_embedding(e: DoctorEvidence) -> Outcome:
    container, unknown = _policy_container(e)
    if container is None:
        assert unknown is not None
        return unknown
    if e.embedding_path is None:
        return Outcome(
            UNKNOWN,
            "the schema names no embedding path (schemas have no retrieval section yet): "
            "which vector an agent searches cannot be told from here",
        )
    declared, indexed = _vector_paths(container)
    if e.embedding_path in declared and e.embedding_path in indexed:
        return Outcome(OK, f"{e.embedding_path} is declared and indexed")
    return Outcome(
        MISSING,
        f"{e.embedding_path} is "
        + ("declared but not indexed" if e.embedding_path in declared else "not in the policy"),
        "declare it in vectorEmbeddingPolicy and add a vectorIndexes entry",
    )
