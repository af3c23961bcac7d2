"""The doctor's checks of what Azure around the account says: the Azure Monitor roles,
the account's features in Azure Resource Manager, its throughput, and the diagnostic
settings with the workspace's tables. Registered in the one ``CHECKS`` registry
(``core/doctor_checks.py``), like the data-plane and container checks there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cosmem_tui.core import doctor_fixes as fixes
from cosmem_tui.core.doctor_checks import (
    MISSING,
    NOTE,
    OK,
    UNKNOWN,
    Outcome,
    check,
    cost_of,
    on_workspace,
)
from cosmem_tui.model.doctor import (
    ALL_VERSIONS_MODE,
    Access,
    AccountFeatures,
    Backend,
    DiagnosticSetting,
    DoctorEvidence,
    NeedKind,
    OfferLevel,
    ReadFailure,
    Reading,
    TelemetryKind,
)
from cosmem_tui.sources.cosmos.feed_modes import ALL_VERSIONS_FIX

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


def _account_feature(e: DoctorEvidence) -> tuple[AccountFeatures | None, Outcome | None]:
    """The account's ARM features, or why they are not known."""
    if on_workspace(e):
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
        refused = failure is not None and _denied(failure.kind)
        fix = fixes.account_reader(e.session) if refused else (failure.fix if failure else "")
        said = f"{'refused' if refused else 'no answer'}: {failure.message if failure else ''}"
        return None, Outcome(UNKNOWN, f"{said} — {reading.what}", fix, reading.cost)
    return reading.value, None


ReadFeatures = Callable[[DoctorEvidence, AccountFeatures], Outcome]


def feature_check(check_id: str, title: str, needs: str) -> Callable[[ReadFeatures], ReadFeatures]:
    """Register a check of one account feature: ``read`` sees the account's ARM features
    when they were read (its outcome costs the ARM read); else the check says why not."""

    def register(read: ReadFeatures) -> ReadFeatures:
        def evaluate(e: DoctorEvidence) -> Outcome:
            features, unknown = _account_feature(e)
            if features is None:
                assert unknown is not None
                return unknown
            outcome = read(e, features)
            return Outcome(outcome.status, outcome.evidence, outcome.fix, cost_of(e.account))

        check(check_id, title, NeedKind.FEATURE, needs)(evaluate)
        return read

    return register


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
    return Outcome(
        OK, f"simulated workload — {said} (no Azure service asked)", cost=cost_of(reading)
    )


def _denied(kind: str | None) -> bool:
    return kind in ("forbidden", "unauthorized")


def _not_answered(reading: Reading[Any], role_fix: Callable[[ReadFailure], str]) -> Outcome:
    """A role check whose reading did not answer: refused means the role is missing
    (``role_fix`` grants it); anything else is no verdict, with the failure's own fix."""
    failure = reading.failure
    message = failure.message if failure else "no answer"
    if failure is not None and _denied(failure.kind):
        return Outcome(
            MISSING, f"refused: {message} — {reading.what}", role_fix(failure), reading.cost
        )
    return Outcome(
        UNKNOWN,
        f"no answer: {message} — {reading.what}",
        failure.fix if failure else "",
        reading.cost,
    )


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
        return Outcome(OK, f"answered ({reading.value} series) — {reading.what}", cost=reading.cost)
    return _not_answered(
        reading,
        lambda failure: fixes.monitoring_reader(e.session)
        + (" — or register Microsoft.Insights: az provider register --namespace "
           "Microsoft.Insights" if failure.kind == "forbidden" else ""),
    )  # fmt: skip


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
        return Outcome(OK, f"answered: {tables} — {reading.what}", cost=reading.cost)
    return _not_answered(reading, lambda _failure: log_fix(e))


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
        OK, f"{e.account.what if e.account else 'ARM'}: answered{where}", cost=cost_of(e.account)
    )


# -- account features -----------------------------------------------------------------------------


@feature_check("account.merge", "partition merge off", "enablePartitionMerge false")
def _account_merge(e: DoctorEvidence, f: AccountFeatures) -> Outcome:
    if f.partition_merge is True:
        # Learn ("Merge partitions") still says Python SDKs are blocked, but
        # azure-cosmos declares merge support since 4.14.2 (its changelog), and
        # 4.17.1 sends x-ms-cosmos-sdk-supportedcapabilities on every request: the
        # data-plane probes' own answers say whether the account serves it.
        return Outcome(
            NOTE,
            "enablePartitionMerge is true: the console's SDK (azure-cosmos 4.17.1) "
            "declares merge support, so it is served; if every request is refused, a "
            "proxy may strip x-ms-cosmos-sdk-supportedcapabilities, or turn merge off: "
            + fixes.account_update(e.session, "--enable-partition-merge false")
            + " (takes 15–20 minutes to apply)",
        )
    if f.partition_merge is False:
        return Outcome(OK, "enablePartitionMerge is false")
    return Outcome(UNKNOWN, "the account's answer did not carry enablePartitionMerge")


@feature_check(
    "account.priority",
    "priority-based execution",
    "enablePriorityBasedExecution true",
)
def _account_priority(e: DoctorEvidence, f: AccountFeatures) -> Outcome:
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


@feature_check("account.burst", "burst capacity", "enableBurstCapacity")
def _account_burst(e: DoctorEvidence, f: AccountFeatures) -> Outcome:
    state = {True: "on", False: "off", None: "not said"}[f.burst_capacity]
    return Outcome(NOTE, f"burst capacity {state}: idle partitions may bank RU for spikes")


@feature_check("account.backup", "continuous backup", "backupPolicy.type Continuous")
def _account_backup(e: DoctorEvidence, f: AccountFeatures) -> Outcome:
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


@feature_check(
    "account.all_versions",
    "all versions and deletes change feed",
    "enableAllVersionsAndDeletesChangeFeed true",
)
def _account_all_versions(e: DoctorEvidence, f: AccountFeatures) -> Outcome:
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


@check(
    "feed.all_versions",
    "all versions and deletes served",
    NeedKind.FEATURE,
    "continuous backup, enableAllVersionsAndDeletesChangeFeed, partition merge off",
)
def _feed_all_versions(e: DoctorEvidence) -> Outcome:
    """Does the container serve the all-versions-and-deletes change feed? The service's
    own answer to a read from now decides (a 400 is no); the account's ARM features say
    why, and stand in for it when the data plane was not reached."""
    if on_workspace(e):
        probe = e.access.value.probe(ALL_VERSIONS_MODE) if e.access and e.access.value else None
        if probe is not None and probe.access is Access.ALLOWED:
            return Outcome(OK, "served by the workspace's change log (deletes and TTL purges too)")
        if probe is not None and probe.access is Access.DENIED:
            reason, _, fix = probe.message.partition(" — ")
            return Outcome(MISSING, reason, fix)
        return Outcome(UNKNOWN, "the workspace's change log was not read")
    if e.session.backend is not Backend.COSMOS:
        return Outcome(UNKNOWN, "not asked: no container configured (--endpoint)")
    probe = e.access.value.probe(ALL_VERSIONS_MODE) if e.access and e.access.value else None
    features, _ = _account_feature(e)
    why = _all_versions_blockers(features)
    cost = cost_of(e.account)
    if probe is not None:
        cost = cost + probe.cost
        if probe.access is Access.ALLOWED:
            return Outcome(
                OK,
                f"served: {probe.what} answered {probe.status or 'from the session'}",
                cost=cost,
            )
        if probe.access is Access.DENIED:
            said = f"the service refused {probe.what} ({probe.status}: {probe.message})"
            detail = f"; {'; '.join(why)}" if why else ""
            return Outcome(
                MISSING,
                f"{said}{detail} — deletes and TTL expiries are not visible",
                _all_versions_fix(e, features),
                cost,
            )
    if features is None:
        return Outcome(
            UNKNOWN,
            "not tried on the data plane, and the account's features were not read",
            ALL_VERSIONS_FIX,
            cost,
        )
    if why:
        return Outcome(
            MISSING, "; ".join(why) + " — deletes and TTL expiries are not visible",
            _all_versions_fix(e, features), cost,
        )  # fmt: skip
    if (
        (features.backup or "").lower() == "continuous"
        and features.all_versions_change_feed is True
        and features.partition_merge is False
    ):
        return Outcome(OK, "continuous backup, the setting on, partition merge off", cost=cost)
    return Outcome(
        UNKNOWN,
        "the account's answer does not say every part (backup, the preview setting, merge)",
        _all_versions_fix(e, features),
        cost,
    )


def _all_versions_blockers(f: AccountFeatures | None) -> list[str]:
    if f is None:
        return []
    why = []
    if f.backup and f.backup.lower() != "continuous":
        why.append(f"{f.backup} backup (continuous is needed)")
    if f.all_versions_change_feed is False:
        why.append("enableAllVersionsAndDeletesChangeFeed is false")
    if f.partition_merge is True:
        why.append("partition merge is enabled (the mode is not available with it)")
    return why


def _all_versions_fix(e: DoctorEvidence, f: AccountFeatures | None) -> str:
    """The tail's fix (``ALL_VERSIONS_FIX``), then the commands for this account."""
    steps = []
    if f is None or (f.backup or "").lower() != "continuous":
        steps.append(fixes.account_update(e.session, "--backup-policy-type Continuous"))
    if f is None or f.all_versions_change_feed is not True:
        steps.append(fixes.all_versions_change_feed(e.session))
    commands = f": {'; then '.join(steps)}" if steps else ""
    return ALL_VERSIONS_FIX + commands


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
            cost=cost_of(e.account),
        )
    reading = e.offer
    if reading is None or reading.value is None:
        if reading is not None and reading.failure is not None:
            fix = fixes.account_reader(e.session) if _denied(reading.failure.kind) else ""
            return Outcome(
                UNKNOWN,
                f"{reading.what}: {reading.failure.message}",
                fix,
                cost_of(e.account, reading),
            )
        assert unknown is not None or features is not None
        return unknown or Outcome(UNKNOWN, "the offer was not read")
    offer = reading.value
    cost = cost_of(e.account, reading)
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
            UNKNOWN, f"the offer was not read: {why or 'no answer'}", cost=cost_of(reading)
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
        return Outcome(OK, f"simulated workload — {said}", cost=cost_of(e.tables))
    if e.tables is None and e.diagnostics is None:
        return Outcome(UNKNOWN, "not asked: no --resource-id or --workspace-id")
    rows = _table_rows(e)
    settings = _settings(e)
    cost = cost_of(e.tables, e.diagnostics)
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
