"""The doctor's nouns: what was read about an account (evidence) and what it means.

``cosmem doctor`` (and ``:doctor``) answers one question for a newcomer: which of the
console's capabilities this account, container and workspace let it use, and how to
fix the rest. The sources read *metadata* only — the account document, the container's
properties, a point read and a count of a key no item has, the ARM account, its offer
and diagnostic settings, one metrics call and the workspace's table probe — and hand
back these plain records; ``core/doctor.py`` turns them into verdicts.

Everything here is standard-library data, so every layer can hold it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeVar

from cosmem_tui.model.charges import Meter
from cosmem_tui.model.entities import ContainerProperties

T = TypeVar("T")

# The data actions of Cosmos DB's data-plane RBAC the console needs (learn "Data plane
# role-based access control": the permission model's action names).
ACCOUNT_ACTIONS = "Microsoft.DocumentDB/databaseAccounts"
READ_METADATA = f"{ACCOUNT_ACTIONS}/readMetadata"
ITEMS_READ = f"{ACCOUNT_ACTIONS}/sqlDatabases/containers/items/read"
EXECUTE_QUERY = f"{ACCOUNT_ACTIONS}/sqlDatabases/containers/executeQuery"
READ_CHANGE_FEED = f"{ACCOUNT_ACTIONS}/sqlDatabases/containers/readChangeFeed"
ITEMS_ALL = f"{ACCOUNT_ACTIONS}/sqlDatabases/containers/items/*"
# Not a data action: the all-versions-and-deletes change feed mode, which the container
# offers or refuses (400); its probe is kept beside the data actions' (``AccessReport``).
ALL_VERSIONS_MODE = "change feed mode AllVersionsAndDeletes"
READER_ROLE = "Cosmos DB Built-in Data Reader"  # role definition 00000000-…-000000000001
READER_ROLE_ID = "00000000-0000-0000-0000-000000000001"
CONTRIBUTOR_ROLE = "Cosmos DB Built-in Data Contributor"  # …-000000000002: items/*
CONTRIBUTOR_ROLE_ID = "00000000-0000-0000-0000-000000000002"


class Verdict(StrEnum):
    """What one capability can do here."""

    WORKS = "works"
    DEGRADED = "degraded"  # works, but shows less than it could (the evidence says what)
    BLOCKED = "blocked"  # cannot work until the fix is made
    UNKNOWN = "unknown"  # what it needs cannot be checked from here (the evidence says why)

    @property
    def rank(self) -> int:
        """Worst first: blocked, unknown, degraded, works."""
        return {"blocked": 0, "unknown": 1, "degraded": 2, "works": 3}[self.value]


class CheckStatus(StrEnum):
    """What one check found about one need."""

    OK = "ok"  # the need is met
    MISSING = "missing"  # the need is not met (the fix says how to meet it)
    UNKNOWN = "unknown"  # it could not be read (no telemetry, a role missing to read it)
    NOTE = "note"  # nothing to meet: what the account does (TTL mode, throughput mode)


class NeedKind(StrEnum):
    """What kind of thing a check looks for (the fix differs by kind)."""

    DATA_ACTION = "data action"  # a Cosmos DB data-plane RBAC action
    ROLE = "role"  # an Azure RBAC role (Monitoring Reader, Log Analytics Reader, Reader)
    DIAGNOSTIC = "diagnostic category"  # a category the diagnostic setting sends
    FEATURE = "account feature"  # an ARM account property (merge, backup, priority)
    POLICY = "container policy"  # the container's TTL, vector or full-text policy
    SETTING = "setting"  # something the console is told (--resource-id, --allow-writes)


class Backend(StrEnum):
    COSMOS = "cosmos"  # a real container (--endpoint)
    WORKSPACE = "workspace"  # a local workspace file (the demo included)
    NONE = "none"  # Azure Monitor alone (cosmem hot / throttle without --endpoint)


class TelemetryKind(StrEnum):
    AZURE = "azure"  # Azure Monitor (--resource-id)
    SIMULATED = "simulated"  # the demo's simulated workload
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Cost:
    """What a read cost: requests (Azure Monitor calls included) and request units."""

    requests: int = 0
    request_units: float = 0.0
    simulated: bool = False

    @classmethod
    def of(cls, meter: Meter) -> Cost:
        """What the requests inside one ``RequestLedger.meter()`` block cost, as evidence."""
        return cls(meter.requests, meter.request_units, meter.simulated)

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.requests + other.requests,
            self.request_units + other.request_units,
            self.simulated or other.simulated,
        )

    def describe(self) -> str:
        if not self.requests:
            return "no request"
        noun = "request" if self.requests == 1 else "requests"
        sim = " sim" if self.simulated else ""
        return f"{self.requests} {noun}, {self.request_units:,.1f} RU{sim}"


@dataclass(frozen=True, slots=True)
class ReadFailure:
    """Why a read gave nothing: its kind (``forbidden``, ``unauthorized``, ``unreachable``,
    ``not-found``, ``throttled``, ``not-configured``, ``error``), what the service said,
    and what would fix it."""

    kind: str
    message: str
    fix: str = ""


@dataclass(frozen=True, slots=True)
class Reading(Generic[T]):
    """One piece of evidence: what was read, what came back (or why nothing did), and
    what reading it cost."""

    what: str
    value: T | None = None
    failure: ReadFailure | None = None
    cost: Cost = field(default_factory=Cost)

    @property
    def ok(self) -> bool:
        return self.failure is None and self.value is not None


# -- the data plane -------------------------------------------------------------------------


class Access(StrEnum):
    ALLOWED = "allowed"  # the service answered (a 404 for an absent item is an answer)
    DENIED = "denied"  # 403: RBAC (sub-status 5300–5306), a firewall, local auth disabled
    FAILED = "failed"  # no verdict: 401, a timeout, the network, the budget
    LOCAL = "local"  # a local workspace: no RBAC, nothing to deny


@dataclass(frozen=True, slots=True)
class DataActionProbe:
    """One data action tried with a request that reads nothing an agent wrote."""

    action: str  # "Microsoft.DocumentDB/databaseAccounts/readMetadata"
    access: Access
    what: str  # "GET the account document", "point read of an absent item"
    status: int = 0  # the HTTP status (0: no answer)
    sub_status: int | None = None
    named_action: str | None = None  # the action a 403's message says is missing
    message: str = ""  # what the service said, one line, secrets masked
    cost: Cost = field(default_factory=Cost)


@dataclass(frozen=True, slots=True)
class AccessReport:
    """The data-plane probes, and the container's properties read on the way."""

    probes: tuple[DataActionProbe, ...]
    container: ContainerProperties | None = None
    container_failure: ReadFailure | None = None

    def probe(self, action: str) -> DataActionProbe | None:
        for probe in self.probes:
            if probe.action == action:
                return probe
        return None


# -- Azure Resource Manager -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AccountFeatures:
    """The ARM account properties the console depends on (None: the answer did not say)."""

    location: str | None
    capabilities: tuple[str, ...] = ()
    capacity_mode: str | None = None  # "Provisioned" | "Serverless" (preview APIs only)
    partition_merge: bool | None = None  # enablePartitionMerge
    burst_capacity: bool | None = None  # enableBurstCapacity
    priority_based_execution: bool | None = None  # enablePriorityBasedExecution
    default_priority: str | None = None  # defaultPriorityLevel: "High" | "Low"
    backup: str | None = None  # backupPolicy.type: "Continuous" | "Periodic"
    backup_tier: str | None = None  # continuousModeProperties.tier
    all_versions_change_feed: bool | None = None  # enableAllVersionsAndDeletesChangeFeed
    api_version: str = ""

    @property
    def serverless(self) -> bool:
        return "enableserverless" in {c.lower() for c in self.capabilities} or (
            (self.capacity_mode or "").lower() == "serverless"
        )


class OfferLevel(StrEnum):
    CONTAINER = "container"  # dedicated throughput
    DATABASE = "database"  # shared: the database's offer serves every container in it
    NONE = "none"  # neither has an offer (serverless)


@dataclass(frozen=True, slots=True)
class OfferFacts:
    level: OfferLevel
    throughput: int | None = None  # manual RU/s
    autoscale_max: int | None = None  # autoscale's maximum RU/s
    # (bucket id, max % of the container's RU/s); None: the answer has no such field
    buckets: tuple[tuple[int, int], ...] | None = None


@dataclass(frozen=True, slots=True)
class DiagnosticSetting:
    """One diagnostic setting of the account, as Microsoft.Insights returns it."""

    name: str
    workspace: str | None  # the Log Analytics workspace's ARM id (None: no workspace)
    dedicated: bool  # logAnalyticsDestinationType "Dedicated": resource-specific tables
    categories: tuple[str, ...] = ()  # the log categories it sends (enabled)
    groups: tuple[str, ...] = ()  # the category groups it sends ("allLogs", "audit")

    def sends(self, category: str) -> bool:
        wanted = category.lower()
        return wanted in {c.lower() for c in self.categories} or "alllogs" in {
            g.lower() for g in self.groups
        }


# -- what the session is -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """What the console was pointed at and told (no request needed to know it)."""

    backend: Backend
    label: str  # "cosmos https://…", "demo workspace demo.sqlite"
    demo: bool = False
    auth: str = ""  # aad | device-code | key | connection-string | local
    writes_allowed: bool = False
    telemetry: TelemetryKind = TelemetryKind.NONE
    account: str | None = None  # the Cosmos account's name, for the fixes' commands
    resource_id: str | None = None
    subscription: str | None = None
    resource_group: str | None = None
    workspace_id: str | None = None  # the Log Analytics Workspace ID (a GUID)
    database: str | None = None
    container: str | None = None


@dataclass(frozen=True, slots=True)
class DoctorEvidence:
    """Everything the doctor read, as it came; None where nothing could be asked."""

    session: SessionFacts
    access: Reading[AccessReport] | None = None
    schema: str | None = None  # the schema the items are read with (None: not chosen)
    schema_note: str = ""  # why that schema, or why none
    schema_key: tuple[str, ...] = ()  # the partition key the schema expects
    embedding_path: str | None = None  # the schema's embedding path (none names one yet)
    account: Reading[AccountFeatures] | None = None
    offer: Reading[OfferFacts] | None = None
    diagnostics: Reading[tuple[DiagnosticSetting, ...]] | None = None
    metrics: Reading[int] | None = None  # one metrics call: how many series came back
    tables: Reading[tuple[tuple[str, int], ...]] | None = None  # (table, rows) in 24 h


# -- what it means ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckResult:
    check: str  # "data.query"
    title: str  # "executeQuery"
    need: NeedKind
    needs: str  # what exactly: the data action, the role, the category
    status: CheckStatus
    evidence: str  # what was read and what it said
    cost: Cost = field(default_factory=Cost)
    fix: str = ""  # the az command, the role to grant, the category to send


@dataclass(frozen=True, slots=True)
class CapabilityRow:
    capability: str  # "hot-tenants"
    title: str  # "hot tenants"
    verdict: Verdict
    asked: bool  # the session is configured for it: a blocked one fails the command
    upcoming: bool  # not in the console yet (change feed, vector queries)
    simulated: bool  # answered by the demo's simulated workload
    evidence: str  # the one line that decides the verdict
    fix: str  # the first fix to make ("" when it works)
    checks: tuple[CheckResult, ...]


@dataclass(frozen=True, slots=True)
class DoctorReport:
    label: str  # what was checked ("cosmos https://… · db/turns")
    rows: tuple[CapabilityRow, ...]
    checks: tuple[CheckResult, ...]  # every check once, in registry order
    cost: Cost
    at: float  # when the evidence was read (epoch seconds)
    demo: bool = False
    notes: tuple[str, ...] = ()

    def blocked_asked(self) -> tuple[CapabilityRow, ...]:
        return tuple(r for r in self.rows if r.asked and r.verdict is Verdict.BLOCKED)

    def count(self, verdict: Verdict) -> int:
        return sum(1 for r in self.rows if r.verdict is verdict)
