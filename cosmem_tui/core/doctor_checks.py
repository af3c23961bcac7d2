"""The doctor's checks: one need each (a data action, a role, a diagnostic category, an
account feature, a container policy, a setting) and a pure function that reads the
evidence and says whether the need is met, with what was read and the exact fix.

Every check is registered once in ``CHECKS`` (by ``@check``): the settings, the data
plane and the container's policies here, what Azure around the account says (roles,
account features, throughput, diagnostics) in ``core/doctor_checks_azure.py``.
Capabilities name the checks they rest on (``core/doctor.py``). A check never guesses:
what it could not read is ``UNKNOWN`` with the reason, what does not apply to this
backend says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from cosmem_tui.core import doctor_fixes as fixes
from cosmem_tui.model.doctor import (
    CONTRIBUTOR_ROLE,
    EXECUTE_QUERY,
    ITEMS_ALL,
    ITEMS_READ,
    READ_CHANGE_FEED,
    READ_METADATA,
    READER_ROLE,
    Access,
    Backend,
    CheckResult,
    CheckStatus,
    Cost,
    DataActionProbe,
    DoctorEvidence,
    NeedKind,
    Reading,
    TelemetryKind,
)
from cosmem_tui.model.entities import ContainerProperties
from cosmem_tui.model.substatus import sub_status_name
from cosmem_tui.model.ttl import container_ttl_words

OK, MISSING, UNKNOWN, NOTE = (
    CheckStatus.OK,
    CheckStatus.MISSING,
    CheckStatus.UNKNOWN,
    CheckStatus.NOTE,
)


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


def on_workspace(e: DoctorEvidence) -> bool:
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


def total_cost(costs: Iterable[Cost]) -> Cost:
    total = Cost()
    for cost in costs:
        total = total + cost
    return total


def cost_of(*readings: Reading[Any] | None) -> Cost:
    return total_cost(r.cost for r in readings if r is not None)


def _said(probe: DataActionProbe) -> str:
    sub = f", sub-status {probe.sub_status}" if probe.sub_status else ""
    name = sub_status_name(probe.status, probe.sub_status)
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
    cost = total_cost(p.cost for p in probes)
    if not probes:
        if e.access is not None and e.access.failure is not None:
            return Outcome(UNKNOWN, f"not tried: {e.access.failure.message}", cost=cost)
        return Outcome(UNKNOWN, "not tried: an earlier request was refused first", cost=cost)
    if all(p.access is Access.LOCAL for p in probes):
        return Outcome(OK, probes[0].what, cost=cost)
    denied = [p for p in probes if p.access is Access.DENIED]
    if denied:  # what decides it first: the list row shows the start of the line
        probe = denied[0]
        named = probe.named_action or action
        return Outcome(
            MISSING,
            f"refused ({_said(probe)}): the identity lacks {named} — asked with "
            f"{probe.what}; the service said: {probe.message}",
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
        return Outcome(UNKNOWN, f"no verdict: {probe.message} — asked with {probe.what}", fix, cost)
    said = "; ".join(f"{p.what}: {p.message or p.status}" for p in probes)
    keyed = e.session.auth in ("key", "connection-string")
    key = " (an account key: data-plane RBAC does not apply)" if keyed else ""
    return Outcome(OK, f"allowed{key} — {said}", cost=cost)


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
    if on_workspace(e):
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
    if on_workspace(e):
        return _workspace_change_log(e)
    if _probes(e, READ_CHANGE_FEED) or e.access is None or e.access.value is None:
        return _action(e, READ_CHANGE_FEED)
    return Outcome(
        UNKNOWN,
        f"not tried: an earlier probe did not get through ({READER_ROLE} includes it)",
    )


def _workspace_change_log(e: DoctorEvidence) -> Outcome:
    probe = e.access.value.probe(READ_CHANGE_FEED) if e.access and e.access.value else None
    if probe is None:
        return Outcome(UNKNOWN, "not tried: the workspace was not read")
    if probe.access is Access.LOCAL:
        return Outcome(
            OK, "the workspace keeps a change log (creates, replaces, deletes, TTL purges)"
        )
    reason, _, fix = probe.message.partition(" — ")
    if probe.access is Access.DENIED:
        return Outcome(MISSING, reason, fix)
    return Outcome(UNKNOWN, f"the change log could not be read: {probe.message}")


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


# -- container policies ------------------------------------------------------------------------


ReadPolicy = Callable[[DoctorEvidence, ContainerProperties], Outcome]


def policy_check(check_id: str, title: str, needs: str) -> Callable[[ReadPolicy], ReadPolicy]:
    """Register a check of the container's properties: ``read`` sees them when they were
    read; without a container, or when they could not be read, the check says so."""

    def register(read: ReadPolicy) -> ReadPolicy:
        def evaluate(e: DoctorEvidence) -> Outcome:
            missing = _no_container(e)
            if missing is not None:
                return missing
            container = _container(e)
            if container is None:
                return Outcome(
                    UNKNOWN, "the container's properties could not be read", cost=cost_of(e.access)
                )
            return read(e, container)

        check(check_id, title, NeedKind.POLICY, needs)(evaluate)
        return read

    return register


def _paths(entries: object, key: str = "path") -> list[str]:
    if not isinstance(entries, list):
        return []
    return [str(x[key]) for x in entries if isinstance(x, dict) and isinstance(x.get(key), str)]


def _vector_paths(container: ContainerProperties) -> tuple[list[str], list[str]]:
    policy = container.vector_embedding_policy or {}
    declared = _paths(policy.get("vectorEmbeddings"))
    indexed = _paths(container.indexing_policy.get("vectorIndexes"))
    return declared, indexed


@policy_check("container.ttl", "TTL mode", "DefaultTimeToLive")
def _container_ttl(e: DoctorEvidence, container: ContainerProperties) -> Outcome:
    return Outcome(NOTE, container_ttl_words(container.default_ttl))


@policy_check(
    "policy.vector",
    "vector policy and index",
    "vectorEmbeddingPolicy with a vectorIndexes entry",
)
def _policy_vector(e: DoctorEvidence, container: ContainerProperties) -> Outcome:
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
    if on_workspace(e):
        return Outcome(
            OK,
            f"the workspace records a vector policy ({listed}); the recall probe computes "
            "exact distances here: a local workspace has no vector index to measure",
        )
    if not both:
        return Outcome(
            MISSING,
            f"{listed}: every VectorDistance query would compare every item",
            "add {path, type: quantizedFlat or diskANN} to vectorIndexes in the indexing policy",
        )
    return Outcome(OK, listed)


@policy_check(
    "policy.full_text",
    "full-text policy and index",
    "fullTextPolicy with fullTextIndexes",
)
def _policy_full_text(e: DoctorEvidence, container: ContainerProperties) -> Outcome:
    declared = _paths((container.full_text_policy or {}).get("fullTextPaths"))
    indexed = _paths(container.indexing_policy.get("fullTextIndexes"))
    if not declared:
        return Outcome(MISSING, "no full-text policy: FullTextContains / BM25 ranking unavailable")
    listed = f"declares {', '.join(declared)}; indexed: {', '.join(indexed) or 'none'}"
    if on_workspace(e):
        return Outcome(
            OK,
            f"the workspace records a full-text policy ({listed}); the recall probe ranks "
            "its paths with SQLite FTS5 bm25() here, not the service's BM25",
        )
    if not [p for p in declared if p in indexed]:
        return Outcome(
            MISSING, f"{listed}", "add the path to fullTextIndexes in the indexing policy"
        )
    return Outcome(OK, listed)


@policy_check(
    "policy.embedding",
    "the schema's embedding covered",
    "the schema's embedding path in the vector policy",
)
def _policy_embedding(e: DoctorEvidence, container: ContainerProperties) -> Outcome:
    if e.embedding_path is None:
        return Outcome(
            UNKNOWN,
            "no schema is known for this container: which vector an agent searches "
            "cannot be told from here",
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
