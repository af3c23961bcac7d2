"""The doctor's verdicts, pure: evidence as the sources hand it back in, verdicts out.

Each test states one account shape (a missing data role, merge enabled, serverless, a
shared offer, aggregated logs only, a workspace in AzureDiagnostics mode …) and checks
what a newcomer is told: works / degraded / blocked / unknown, the evidence, the fix.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cosmem_tui.core.doctor import CAPABILITIES, diagnose
from cosmem_tui.core.doctor_checks import CHECKS
from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition
from cosmem_tui.model.doctor import (
    ALL_VERSIONS_MODE,
    EXECUTE_QUERY,
    ITEMS_READ,
    READ_CHANGE_FEED,
    READ_METADATA,
    Access,
    AccessReport,
    AccountFeatures,
    Backend,
    CapabilityRow,
    CheckStatus,
    Cost,
    DataActionProbe,
    DiagnosticSetting,
    DoctorEvidence,
    DoctorReport,
    OfferFacts,
    OfferLevel,
    ReadFailure,
    Reading,
    SessionFacts,
    TelemetryKind,
    Verdict,
)

GROUP = "/subscriptions/sub-1/resourceGroups/rg-agents/providers"
RID = f"{GROUP}/Microsoft.DocumentDB/databaseAccounts/agentmem"
WS = f"{GROUP}/Microsoft.OperationalInsights/workspaces/logs"
FACTS = SessionFacts(
    backend=Backend.COSMOS,
    label="cosmos https://agentmem.documents.azure.com:443",
    auth="aad",
    telemetry=TelemetryKind.AZURE,
    account="agentmem",
    resource_id=RID,
    subscription="sub-1",
    resource_group="rg-agents",
    workspace_id="3f9c2b1e-7a64-4d2b-9e58-0c1d2e3f4a5b",
    database="memory",
    container="turns",
)
CONTAINER = ContainerProperties(
    "memory",
    "turns",
    PartitionKeyDefinition(("/tenantId", "/threadId"), "MultiHash", 2),
    default_ttl=-1,
    indexing_policy={"vectorIndexes": [{"path": "/embedding", "type": "diskANN"}]},
    vector_embedding_policy={"vectorEmbeddings": [{"path": "/embedding", "dimensions": 1536}]},
)


def probe(action: str, access: Access = Access.ALLOWED, status: int = 200, **more: Any):
    return DataActionProbe(
        action, access, f"a probe of {action.rsplit('/', 1)[-1]}", status, cost=Cost(1, 1.0), **more
    )


def allowed() -> AccessReport:
    return AccessReport(
        (
            probe(READ_METADATA),
            probe(READ_METADATA),
            probe(ITEMS_READ, status=404, message="no such item, as intended"),
            probe(EXECUTE_QUERY),
        ),
        container=CONTAINER,
    )


def healthy(**changes: Any) -> DoctorEvidence:
    """An account where everything the console needs is in place."""
    evidence = DoctorEvidence(
        session=FACTS,
        access=Reading("the data plane", allowed(), cost=Cost(4, 3.8)),
        schema="lab",
        schema_note="named with --schema",
        schema_key=("/tenantId", "/threadId"),
        account=Reading(
            "the account",
            AccountFeatures(
                "West US",
                partition_merge=False,
                priority_based_execution=True,
                backup="Continuous",
                all_versions_change_feed=True,
                api_version="2025-10-15",
            ),
            cost=Cost(1),
        ),
        offer=Reading("the offer", OfferFacts(OfferLevel.CONTAINER, 4000), cost=Cost(1)),
        diagnostics=Reading(
            "the diagnostic settings",
            (
                DiagnosticSetting(
                    "to-logs",
                    WS,
                    True,
                    ("PartitionKeyRUConsumption", "DataPlaneRequests", "PartitionKeyStatistics"),
                ),
            ),
            cost=Cost(1),
        ),
        metrics=Reading("one metrics call", 1, cost=Cost(1)),
        tables=Reading(
            "the table probe",
            (
                ("CDBPartitionKeyRUConsumption", 5000),
                ("CDBDataPlaneRequests", 9000),
                ("CDBPartitionKeyStatistics", 30),
            ),
            cost=Cost(1),
        ),
    )
    return replace(evidence, **changes)


def rows(report: DoctorReport) -> dict[str, CapabilityRow]:
    return {row.capability: row for row in report.rows}


def verdicts(evidence: DoctorEvidence) -> dict[str, Verdict]:
    return {k: r.verdict for k, r in rows(diagnose(evidence, at=0)).items()}


def check_of(report: DoctorReport, check_id: str):
    return next(c for c in report.checks if c.check == check_id)


def test_a_healthy_account_works_everywhere_but_what_is_not_built_or_asked():
    report = diagnose(healthy(), at=0)
    found = rows(report)
    assert {k for k, r in found.items() if r.verdict is Verdict.WORKS} == {
        "browse",
        "counts",
        "search",
        "lifecycle",
        "throughput",
        "hot-tenants",
        "throttles-by-key",
        "storage-by-key",
    }
    assert found["writes"].verdict is Verdict.BLOCKED and not found["writes"].asked
    assert "--allow-writes" in found["writes"].fix
    # No schema known: which vector is searched cannot be told.
    assert found["vector-search"].verdict is Verdict.UNKNOWN
    assert "no schema is known" in found["vector-search"].evidence
    assert found["browse"].evidence.startswith("executeQuery:")
    assert report.blocked_asked() == ()
    assert report.cost == Cost(9, 3.8)  # each read once: data plane (4), ARM (3), metrics, logs


def test_every_capability_rests_on_registered_checks_and_every_check_is_shown():
    for cap in CAPABILITIES:
        assert set(cap.requires) | set(cap.improves) | set(cap.shows) <= CHECKS.keys(), cap.id
    report = diagnose(healthy(), at=0)
    assert [c.check for c in report.checks] == list(CHECKS)
    # Every check is shown with some capability (the view lists a capability's checks).
    shown = {c.check for row in report.rows for c in row.checks}
    assert shown == set(CHECKS)


def test_a_403_with_sub_status_5301_blocks_browsing_and_names_the_role():
    denied = probe(
        READ_METADATA,
        Access.DENIED,
        403,
        sub_status=5301,
        named_action=READ_METADATA,
        message="Request blocked by Auth agentmem : … perform action [readMetadata] …",
    )
    evidence = healthy(
        access=Reading(
            "the data plane",
            AccessReport((denied,), container_failure=ReadFailure("forbidden", "403")),
        )
    )
    report = diagnose(evidence, at=0)
    browse = rows(report)["browse"]
    assert browse.verdict is Verdict.BLOCKED and browse.asked
    assert "sub-status 5301 RbacUnauthorizedMetadataRequest" in browse.evidence
    assert f"lacks {READ_METADATA}" in browse.evidence
    assert "az cosmosdb sql role assignment create --account-name agentmem" in browse.fix
    assert "--resource-group rg-agents --scope /" in browse.fix
    assert "00000000-0000-0000-0000-000000000001" in browse.fix  # Built-in Data Reader
    assert {r.capability for r in report.blocked_asked()} == {
        "browse",
        "counts",
        "search",
        "lifecycle",
    }
    # What the probes could not reach is said, not guessed.
    assert check_of(report, "data.query").status is CheckStatus.UNKNOWN
    assert check_of(report, "policy.vector").status is CheckStatus.UNKNOWN


def test_a_refused_query_blocks_the_views_but_reads_still_work():
    report = allowed()
    refused = replace(
        report,
        probes=(
            *report.probes[:3],
            probe(EXECUTE_QUERY, Access.DENIED, 403, sub_status=5302, named_action=EXECUTE_QUERY),
        ),
    )
    found = verdicts(healthy(access=Reading("the data plane", refused)))
    assert found["browse"] is Verdict.BLOCKED and found["search"] is Verdict.BLOCKED


def test_a_firewall_403_is_told_as_a_firewall_not_a_role():
    wall = probe(
        READ_METADATA,
        Access.DENIED,
        403,
        message="Request originated from client IP 10.1.2.3 through public internet. This is "
        "blocked by your Cosmos DB account firewall settings.",
    )
    evidence = healthy(access=Reading("the data plane", AccessReport((wall,))))
    fix = rows(diagnose(evidence, at=0))["browse"].fix
    assert "firewall" in fix and "role assignment" not in fix


def test_partition_merge_enabled_is_noted_not_held_against_browsing():
    """azure-cosmos 4.17.1 declares merge support (Learn's "Python SDKs are blocked"
    predates 4.14.2): the probes' answers decide, the flag is a note with the way out."""
    account = healthy().account
    assert account is not None and account.value is not None
    merged = replace(account, value=replace(account.value, partition_merge=True))
    report = diagnose(healthy(account=merged), at=0)
    assert rows(report)["browse"].verdict is Verdict.WORKS
    merge = check_of(report, "account.merge")
    assert merge.status is CheckStatus.NOTE and "declares merge support" in merge.evidence
    assert "az cosmosdb update --name agentmem --resource-group rg-agents" in merge.evidence
    assert "--enable-partition-merge false" in merge.evidence


def test_priority_based_execution_off_degrades_the_data_views():
    account = healthy().account
    assert account is not None and account.value is not None
    off = replace(account, value=replace(account.value, priority_based_execution=False))
    row = rows(diagnose(healthy(account=off), at=0))["counts"]
    assert row.verdict is Verdict.DEGRADED
    assert "--enable-priority-based-execution true" in row.fix


def test_serverless_says_there_is_no_provisioned_throughput():
    serverless = Reading(
        "the account",
        AccountFeatures("West US", capabilities=("EnableServerless",), partition_merge=False),
    )
    report = diagnose(healthy(account=serverless, offer=None), at=0)
    throughput = rows(report)["throughput"]
    assert throughput.verdict is Verdict.DEGRADED
    assert "serverless: no provisioned RU/s" in throughput.evidence
    assert check_of(report, "account.priority").status is CheckStatus.NOTE


def test_shared_and_autoscale_offers_are_named():
    shared = Reading("the offer", OfferFacts(OfferLevel.DATABASE, autoscale_max=10_000))
    mode = check_of(diagnose(healthy(offer=shared), at=0), "throughput.mode")
    assert mode.status is CheckStatus.OK
    assert "shared by the database's containers" in mode.evidence
    assert "autoscale up to 10,000 RU/s" in mode.evidence


def test_without_telemetry_the_azure_monitor_rows_say_how_to_configure_it():
    facts = replace(FACTS, telemetry=TelemetryKind.NONE, resource_id=None, workspace_id=None)
    evidence = healthy(
        session=facts, account=None, offer=None, diagnostics=None, metrics=None, tables=None
    )
    found = rows(diagnose(evidence, at=0))
    for capability in ("throughput", "hot-tenants", "throttles-by-key", "storage-by-key"):
        row = found[capability]
        assert row.verdict is Verdict.BLOCKED and not row.asked, capability
        assert "--resource-id" in row.fix
    assert found["browse"].verdict is Verdict.WORKS  # the data plane does not need it
    report = diagnose(evidence, at=0)
    assert report.blocked_asked() == ()  # nothing asked for is blocked: exit 0
    assert check_of(report, "account.merge").status is CheckStatus.UNKNOWN


def test_a_metrics_401_names_monitoring_reader_on_the_subscription():
    denied = Reading(
        "one metrics call", failure=ReadFailure("unauthorized", "401 unauthorized: refused")
    )
    row = rows(diagnose(healthy(metrics=denied), at=0))["throughput"]
    assert row.verdict is Verdict.BLOCKED and row.asked
    assert '--role "Monitoring Reader" --scope /subscriptions/sub-1' in row.fix


def test_a_logs_403_names_log_analytics_reader_on_the_workspace_it_sends_to():
    denied = Reading("the table probe", failure=ReadFailure("forbidden", "403 forbidden"))
    row = rows(diagnose(healthy(tables=denied), at=0))["hot-tenants"]
    assert row.verdict is Verdict.BLOCKED
    assert f'--role "Log Analytics Reader" --scope {WS}' in row.fix


def test_aggregated_logs_alone_count_429s_and_never_push_the_per_request_category():
    aggregated = Reading(
        "the table probe",
        (("CDBPartitionKeyRUConsumption", 5000), ("CDBDataPlaneRequests5M", 40)),
    )
    settings = Reading(
        "the diagnostic settings",
        (
            DiagnosticSetting(
                "to-logs", WS, True, ("PartitionKeyRUConsumption", "DataPlaneRequests5M")
            ),
        ),
    )
    report = diagnose(healthy(tables=aggregated, diagnostics=settings), at=0)
    found = rows(report)
    assert found["throttles-by-key"].verdict is Verdict.DEGRADED
    assert found["throttles-by-key"].fix == ""  # said, not prescribed
    assert "ActivityId" in found["throttles-by-key"].evidence
    assert found["storage-by-key"].verdict is Verdict.BLOCKED
    assert '"category":"PartitionKeyStatistics"' in found["storage-by-key"].fix
    assert "--export-to-resource-specific true" in found["storage-by-key"].fix
    assert "aggregated DataPlaneRequests5M" in check_of(report, "diag.setting").evidence


def test_azure_diagnostics_mode_is_read_and_said():
    legacy = Reading(
        "the table probe",
        (
            ("AzureDiagnostics/PartitionKeyRUConsumption", 700),
            ("AzureDiagnostics/DataPlaneRequests", 900),
            ("AzureDiagnostics/PartitionKeyStatistics", 10),
        ),
    )
    settings = Reading(
        "the diagnostic settings", (DiagnosticSetting("old", WS, False, groups=("allLogs",)),)
    )
    report = diagnose(healthy(tables=legacy, diagnostics=settings), at=0)
    assert rows(report)["hot-tenants"].verdict is Verdict.WORKS
    assert "AzureDiagnostics (legacy)" in check_of(report, "diag.setting").evidence


def test_a_category_sent_but_quiet_for_a_day_is_unknown_not_missing():
    quiet = Reading("the table probe", (("CDBDataPlaneRequests", 10),))
    row = rows(diagnose(healthy(tables=quiet), at=0))["hot-tenants"]
    assert row.verdict is Verdict.UNKNOWN
    assert "sent by setting 'to-logs' but no rows in 24 h" in row.evidence


def test_the_change_feed_needs_continuous_backup_and_says_when_it_cannot_tell():
    account = healthy().account
    assert account is not None and account.value is not None
    periodic = replace(account, value=replace(account.value, backup="Periodic"))
    row = rows(diagnose(healthy(account=periodic), at=0))["change-feed"]
    assert row.verdict is Verdict.BLOCKED and not row.asked
    assert "--backup-policy-type Continuous" in row.fix
    unknown = replace(account, value=replace(account.value, all_versions_change_feed=None))
    report = diagnose(healthy(account=unknown), at=0)
    feed = check_of(report, "account.all_versions")
    assert feed.status is CheckStatus.UNKNOWN
    assert "api-version=2024-12-01-preview" in feed.fix


def test_a_vector_policy_without_an_index_and_a_schema_path_it_covers():
    bare = replace(CONTAINER, indexing_policy={})
    access = replace(allowed(), container=bare)
    report = diagnose(
        healthy(access=Reading("the data plane", access), embedding_path="/embedding"), at=0
    )
    vector = check_of(report, "policy.vector")
    assert vector.status is CheckStatus.MISSING and "vectorIndexes" in vector.fix
    covered = diagnose(healthy(embedding_path="/embedding"), at=0)
    assert check_of(covered, "policy.embedding").status is CheckStatus.OK


def test_the_ttl_mode_is_said_in_words():
    off = replace(allowed(), container=replace(CONTAINER, default_ttl=None))
    ttl = check_of(diagnose(healthy(access=Reading("d", off)), at=0), "container.ttl")
    assert ttl.status is CheckStatus.NOTE and ttl.evidence.startswith("TTL off")


def test_a_schema_for_another_key_blocks_browsing():
    row = rows(diagnose(healthy(schema_key=("/threadId",)), at=0))["browse"]
    assert row.verdict is Verdict.BLOCKED and "--schema" in row.fix


def test_writes_asked_for_are_unknown_on_an_account_the_doctor_will_not_write_to():
    evidence = healthy(session=replace(FACTS, writes_allowed=True))
    row = rows(diagnose(evidence, at=0))["writes"]
    assert row.asked and row.verdict is Verdict.UNKNOWN
    assert "00000000-0000-0000-0000-000000000002" in row.fix  # Built-in Data Contributor


def test_the_demo_reports_what_is_simulated_and_what_cannot_be_checked():
    facts = SessionFacts(
        Backend.WORKSPACE,
        "demo workspace demo.sqlite",
        demo=True,
        auth="local",
        telemetry=TelemetryKind.SIMULATED,
    )
    local = AccessReport(
        (
            *(
                DataActionProbe(a, Access.LOCAL, "a local workspace")
                for a in (READ_METADATA, ITEMS_READ, EXECUTE_QUERY, READ_CHANGE_FEED)
            ),
            DataActionProbe(ALL_VERSIONS_MODE, Access.ALLOWED, "the change log, from now"),
        ),
        container=CONTAINER,
    )
    evidence = DoctorEvidence(
        facts,
        access=Reading("the data plane", local),
        schema="lab",
        schema_key=("/tenantId", "/threadId"),
        metrics=Reading("one metrics call", 1),
        tables=Reading("the table probe", (("CDBPartitionKeyRUConsumption", 10),)),
    )
    report = diagnose(evidence, at=0)
    found = rows(report)
    assert found["browse"].verdict is Verdict.WORKS and not found["browse"].simulated
    assert found["hot-tenants"].verdict is Verdict.WORKS and found["hot-tenants"].simulated
    assert found["change-feed"].verdict is Verdict.WORKS  # the workspace's change log
    # The recall probe runs on a workspace: exact distances, computed by the console.
    assert found["vector-search"].verdict is not Verdict.BLOCKED
    assert "exact distances" in check_of(report, "policy.vector").evidence
    merge = check_of(report, "account.merge")
    assert merge.status is CheckStatus.UNKNOWN and "no Azure account" in merge.evidence
    assert report.demo and report.notes and report.blocked_asked() == ()


def test_a_workspace_without_a_change_log_blocks_the_change_feed_with_its_fix():
    facts = SessionFacts(Backend.WORKSPACE, "workspace old.sqlite", auth="local")
    said = "this workspace predates the change log — build it again: cosmem import …"
    local = AccessReport(
        (
            *(
                DataActionProbe(a, Access.LOCAL, "a local workspace")
                for a in (READ_METADATA, ITEMS_READ, EXECUTE_QUERY)
            ),
            *(
                DataActionProbe(a, Access.DENIED, "the change log, from now", message=said)
                for a in (READ_CHANGE_FEED, ALL_VERSIONS_MODE)
            ),
        ),
        container=CONTAINER,
    )
    report = diagnose(DoctorEvidence(facts, access=Reading("the data plane", local)), at=0)
    assert rows(report)["change-feed"].verdict is Verdict.BLOCKED
    feed = check_of(report, "data.change_feed")
    assert feed.status is CheckStatus.MISSING and "predates the change log" in feed.evidence
    assert feed.fix == "build it again: cosmem import …"


def test_opening_a_session_loads_no_doctor_module_until_it_is_asked_for(demo_path):
    import subprocess
    import sys

    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "from cosmem_tui.compose import open_local_session\n"
        "from cosmem_tui.core.session import SessionOptions\n"
        f"session = open_local_session(SessionOptions(workspace=Path({str(demo_path)!r})))\n"
        "print(sorted(m for m in sys.modules if 'doctor' in m))\n"
        "assert session.doctor is session.doctor\n"  # built once, then kept
        "print(sorted(m for m in sys.modules if 'doctor' in m))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    before, after = result.stdout.splitlines()
    assert before == "[]"
    assert "'cosmem_tui.core.doctor_service'" in after


def test_an_arm_403_names_the_account_reader_role_and_leaves_the_features_unknown():
    refused = Reading(
        "the account in Azure Resource Manager",
        failure=ReadFailure("forbidden", "403 forbidden: Azure Resource Manager refused the call"),
    )
    report = diagnose(healthy(account=refused, offer=None), at=0)
    reader = check_of(report, "arm.reader")
    assert reader.status is CheckStatus.MISSING and reader.evidence.startswith("refused: 403")
    assert '--role "Cosmos DB Account Reader Role" --scope ' + RID in reader.fix
    assert check_of(report, "account.merge").status is CheckStatus.UNKNOWN
    # Reading the account is an improvement to the metrics, not a need.
    assert rows(report)["throughput"].verdict is Verdict.DEGRADED
    assert rows(report)["browse"].verdict is Verdict.WORKS


def _with_feed(*extra: DataActionProbe, **features: Any) -> DoctorEvidence:
    access = replace(allowed(), probes=(*allowed().probes, *extra))
    evidence = healthy(access=Reading("the data plane", access, cost=Cost(6, 5.8)))
    account = evidence.account
    assert account is not None and account.value is not None
    return replace(evidence, account=replace(account, value=replace(account.value, **features)))


def test_the_all_versions_feed_is_the_service_answer_with_the_tails_fix():
    from cosmem_tui.model.doctor import ALL_VERSIONS_MODE, READ_CHANGE_FEED
    from cosmem_tui.sources.cosmos.feed_modes import ALL_VERSIONS_FIX

    served = diagnose(_with_feed(probe(READ_CHANGE_FEED), probe(ALL_VERSIONS_MODE)), at=0)
    assert check_of(served, "feed.all_versions").status is CheckStatus.OK
    assert rows(served)["change-feed"].verdict is Verdict.WORKS
    refused = probe(ALL_VERSIONS_MODE, Access.DENIED, 400, message="not enabled")
    # The service refuses although ARM says all is set: its answer decides.
    report = diagnose(_with_feed(probe(READ_CHANGE_FEED), refused), at=0)
    feed = check_of(report, "feed.all_versions")
    assert feed.status is CheckStatus.MISSING and "not enabled" in feed.evidence
    assert feed.fix.startswith(ALL_VERSIONS_FIX)  # the same words the tail shows
    assert rows(report)["change-feed"].verdict is Verdict.BLOCKED
    merged = diagnose(_with_feed(probe(READ_CHANGE_FEED), refused, partition_merge=True), at=0)
    assert "partition merge is enabled" in check_of(merged, "feed.all_versions").evidence
    unset = {"backup": "Periodic", "all_versions_change_feed": None}
    periodic = diagnose(_with_feed(probe(READ_CHANGE_FEED), refused, **unset), at=0)
    fix = check_of(periodic, "feed.all_versions").fix
    assert "--backup-policy-type Continuous" in fix and "2024-12-01-preview" in fix
    denied = probe(READ_CHANGE_FEED, Access.DENIED, 403, message="no readChangeFeed")
    blocked = diagnose(_with_feed(denied), at=0)
    assert check_of(blocked, "data.change_feed").status is CheckStatus.MISSING
