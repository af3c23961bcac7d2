"""The account as ARM sees it (the doctor's reads): the real azure-core pipeline over the
fake Azure, answers shaped after the REST spec examples (Microsoft.DocumentDB 2025-10-15
``CosmosDBDatabaseAccountGet`` / ``CosmosDBSqlContainerThroughputGet``, Microsoft.Insights
2021-05-01-preview diagnostic settings)."""

from __future__ import annotations

import pytest

from cosmem_tui.model import Kind, Scope
from cosmem_tui.model.doctor import OfferLevel
from cosmem_tui.sources.inspection import InspectionFailed
from cosmem_tui.sources.monitor.arm_account import ACCOUNT_API, DIAGNOSTICS_API, ArmAccount
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.sources.monitor.azure_fake import RESOURCE_ID, AzureFake, Reply, Sent, error_body
from tests.sources.monitor.conftest import Opener

WORKSPACE_ARM_ID = (
    "/subscriptions/8d2f3c1a-5b6e-4f70-9a81-2c3d4e5f6a7b/resourceGroups/rg-agents/providers/"
    "Microsoft.OperationalInsights/workspaces/agents-logs"
)


def account_body(**properties: object) -> dict[str, object]:
    """The spec example's shape (trimmed), with these properties over its own."""
    base: dict[str, object] = {
        "provisioningState": "Succeeded",
        "documentEndpoint": "https://agentmem.documents.azure.com:443/",
        "databaseAccountOfferType": "Standard",
        "capabilities": [],
        "enableBurstCapacity": True,
        "enablePriorityBasedExecution": True,
        "defaultPriorityLevel": "Low",
        "enablePartitionMerge": True,
        "backupPolicy": {
            "type": "Periodic",
            "periodicModeProperties": {"backupIntervalInMinutes": 240},
        },
    }
    base.update(properties)
    return {
        "id": RESOURCE_ID,
        "name": "agentmem",
        "location": "West US",
        "type": "Microsoft.DocumentDB/databaseAccounts",
        "kind": "GlobalDocumentDB",
        "properties": base,
    }


def throughput_body(resource: dict[str, object]) -> dict[str, object]:
    return {
        "id": f"{RESOURCE_ID}/sqlDatabases/memory/throughputSettings/default",
        "name": "default",
        "type": "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/throughputSettings",
        "properties": {"resource": {"_rid": "PD5DALigDgw=", **resource}},
    }


def settings_body() -> dict[str, object]:
    return {
        "value": [
            {
                "id": f"{RESOURCE_ID}/providers/microsoft.insights/diagnosticSettings/to-logs",
                "name": "to-logs",
                "properties": {
                    "workspaceId": WORKSPACE_ARM_ID,
                    "logAnalyticsDestinationType": "Dedicated",
                    "logs": [
                        {"category": "PartitionKeyRUConsumption", "enabled": True},
                        {"category": "DataPlaneRequests5M", "enabled": True},
                        {"category": "DataPlaneRequests", "enabled": False},
                        {"categoryGroup": None, "category": "QueryRuntimeStatistics"},
                    ],
                    "metrics": [{"category": "Requests", "enabled": False}],
                },
            },
            {
                "name": "to-storage",
                "properties": {
                    "storageAccountId": "/subscriptions/x/…/storageAccounts/archive",
                    "logs": [{"categoryGroup": "allLogs", "enabled": True}],
                },
            },
        ]
    }


@pytest.fixture
async def arm(open_source: Opener) -> ArmAccount:
    source = await open_source()
    return ArmAccount(source.calls, source.clients, source.settings)


async def test_the_accounts_features_are_read_as_the_spec_names_them(
    arm: ArmAccount, fake: AzureFake, ledger: RequestLedger
):
    fake.answer(
        "arm",
        Reply(
            200,
            account_body(
                capabilities=[{"name": "EnableServerless"}],
                backupPolicy={
                    "type": "Continuous",
                    "continuousModeProperties": {"tier": "Continuous7Days"},
                },
            ),
        ),
    )
    features = await arm.features()
    (sent,) = fake.requests_to("arm")
    assert sent.url == f"https://management.azure.com{RESOURCE_ID}?api-version={ACCOUNT_API}"
    assert ACCOUNT_API == "2025-10-15"
    assert features.serverless and features.capabilities == ("EnableServerless",)
    assert features.partition_merge is True and features.burst_capacity is True
    assert features.priority_based_execution is True and features.default_priority == "Low"
    assert (features.backup, features.backup_tier) == ("Continuous", "Continuous7Days")
    assert features.all_versions_change_feed is None  # not in the GA answer: unknown, not off
    assert features.location == "West US"
    (record,) = ledger.records()
    assert (record.kind, record.scope, record.unit) == (Kind.MONITOR, Scope.METADATA, "call")
    assert record.operation == "arm: account features" and record.status == 200


async def test_a_preview_answer_says_whether_the_all_versions_feed_is_on(arm, fake):
    fake.answer("arm", Reply(200, account_body(enableAllVersionsAndDeletesChangeFeed=True)))
    assert (await arm.features()).all_versions_change_feed is True


async def test_a_shared_offer_is_the_databases_after_a_404_on_the_container(
    arm: ArmAccount, fake: AzureFake
):
    fake.answer(
        "arm",
        Reply(404, error_body("NotFound", "Throughput settings not found")),
        Reply(
            200, throughput_body({"throughput": 1000, "autoscaleSettings": {"maxThroughput": 4000}})
        ),
    )
    offer = await arm.offer("memory", "turns")
    container, database = fake.requests_to("arm")
    assert container.path == (
        f"{RESOURCE_ID}/sqlDatabases/memory/containers/turns/throughputSettings/default"
    )
    assert database.path == f"{RESOURCE_ID}/sqlDatabases/memory/throughputSettings/default"
    assert (offer.level, offer.throughput, offer.autoscale_max) == (OfferLevel.DATABASE, 1000, 4000)
    assert offer.buckets is None  # GA answers have no throughputBuckets


async def test_a_dedicated_offer_with_throughput_buckets(arm: ArmAccount, fake: AzureFake):
    fake.answer(
        "arm",
        Reply(
            200,
            throughput_body(
                {
                    "throughput": 400,
                    "minimumThroughput": "400",
                    "throughputBuckets": [
                        {"id": 1, "maxThroughputPercentage": 50},
                        {"id": 2, "maxThroughputPercentage": 20},
                    ],
                }
            ),
        ),
    )
    offer = await arm.offer("memory", "turns")
    assert (offer.level, offer.throughput) == (OfferLevel.CONTAINER, 400)
    assert offer.buckets == ((1, 50), (2, 20))
    assert len(fake.requests_to("arm")) == 1


async def test_no_offer_anywhere_is_none(arm: ArmAccount, fake: AzureFake):
    fake.answer("arm", Reply(404, error_body("NotFound", "no offer")))
    assert (await arm.offer("memory", "turns")).level is OfferLevel.NONE


async def test_the_diagnostic_settings_say_where_and_what(arm: ArmAccount, fake: AzureFake):
    fake.answer("arm", Reply(200, settings_body()))
    logs, storage = await arm.diagnostic_settings()
    (sent,) = fake.requests_to("arm")
    assert sent.path == f"{RESOURCE_ID}/providers/Microsoft.Insights/diagnosticSettings"
    assert sent.params["api-version"] == DIAGNOSTICS_API == "2021-05-01-preview"
    assert (logs.name, logs.workspace, logs.dedicated) == ("to-logs", WORKSPACE_ARM_ID, True)
    assert logs.categories == ("PartitionKeyRUConsumption", "DataPlaneRequests5M")  # enabled
    assert logs.sends("DataPlaneRequests5M") and not logs.sends("DataPlaneRequests")
    assert storage.workspace is None and storage.sends("PartitionKeyStatistics")  # allLogs


async def test_a_403_is_a_failure_that_names_the_role_not_a_traceback(
    arm: ArmAccount, fake: AzureFake
):
    def denied(_sent: Sent) -> Reply:
        return Reply(
            403,
            error_body(
                "AuthorizationFailed",
                "The client 'x' does not have authorization to perform action "
                "'Microsoft.DocumentDB/databaseAccounts/read' over scope '…'",
            ),
        )

    fake.answer("arm", denied)
    with pytest.raises(InspectionFailed) as caught:
        await arm.features()
    assert caught.value.failure.kind == "forbidden"
    assert "does not have authorization" in caught.value.failure.message
