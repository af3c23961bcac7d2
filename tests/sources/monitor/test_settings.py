"""Monitor settings: flag over COSMEM_* environment, one readable line per mistake."""

from __future__ import annotations

import pytest

from cosmem_tui.sources.cosmos.region import normalise_region, write_region
from cosmem_tui.sources.monitor.settings import (
    FLAGS,
    MonitorConfigError,
    parse_resource_id,
    resolve,
)
from tests.sources.monitor.azure_fake import RESOURCE_ID, SUBSCRIPTION, WORKSPACE


def test_nothing_configured_means_no_azure_monitor():
    assert resolve({}, {}) is None
    # the container the console reads is not a monitor setting on its own
    assert resolve({"database": "memory"}, {"COSMOS_CONTAINER": "turns"}) is None


def test_a_flag_wins_over_the_environment_and_each_value_says_where_it_came_from():
    env = {
        "COSMEM_RESOURCE_ID": RESOURCE_ID.replace("agentmem", "other-account"),
        "COSMEM_WORKSPACE_ID": WORKSPACE,
        "COSMEM_REGION": "West Europe",
        "COSMOS_CONTAINER": "turns",
    }
    settings = resolve({"resource_id": RESOURCE_ID, "region": None}, env)
    assert settings is not None
    assert settings.resource_id == RESOURCE_ID
    assert settings.account == "agentmem"
    assert settings.workspace_id == WORKSPACE
    assert settings.region == "westeurope"
    assert settings.container == "turns"
    assert settings.origin("resource_id") == "--resource-id"
    assert settings.origin("workspace_id") == "COSMEM_WORKSPACE_ID"
    assert settings.origin("region") == "COSMEM_REGION"
    assert "resource_id = " + RESOURCE_ID + " (from --resource-id)" in settings.describe()


def test_subscription_group_and_account_compose_the_resource_id():
    env = {
        "COSMEM_SUBSCRIPTION": SUBSCRIPTION.upper(),
        "COSMEM_RESOURCE_GROUP": "rg-agents",
        "COSMEM_ACCOUNT": "agentmem",
    }
    settings = resolve({}, env)
    assert settings is not None
    assert settings.resource_id == RESOURCE_ID
    assert settings.origin("resource_id") == (
        "COSMEM_SUBSCRIPTION + COSMEM_RESOURCE_GROUP + COSMEM_ACCOUNT"
    )


def test_a_resource_id_in_capitals_as_azurediagnostics_writes_it_is_accepted():
    upper = RESOURCE_ID.upper().replace(SUBSCRIPTION.upper(), SUBSCRIPTION)
    resource = parse_resource_id(upper)
    assert resource.account == "agentmem"
    assert resource.text.endswith("/providers/Microsoft.DocumentDB/databaseAccounts/agentmem")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (
            f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Web/sites/app",
            "names a Microsoft.Web/sites resource, not a Cosmos DB account "
            "(Microsoft.DocumentDB/databaseAccounts)",
        ),
        ("agentmem", "is not an Azure resource id; expected /subscriptions/"),
        (RESOURCE_ID + "/sqlDatabases/memory", "names 'sqlDatabases/memory' inside the account"),
        (RESOURCE_ID.replace(SUBSCRIPTION, "my-sub"), "the subscription must be a GUID"),
        (RESOURCE_ID.replace("agentmem", "Agent_Mem!"), "is not a Cosmos DB account name"),
        (RESOURCE_ID.replace("rg-agents", "rg?x=1"), "is not a valid resource group name"),
    ],
)
def test_a_bad_resource_id_is_one_line_naming_what_was_expected(given: str, expected: str):
    with pytest.raises(MonitorConfigError) as caught:
        resolve({}, {"COSMEM_RESOURCE_ID": given})
    message = caught.value.message
    assert expected in message
    assert message.startswith("COSMEM_RESOURCE_ID: ")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("metrics_endpoint", "http://eastus.metrics.monitor.azure.com", "must be an https:// URL"),
        ("logs_endpoint", "api.loganalytics.io", "must be an https:// URL"),
        ("logs_endpoint", "https://api.loganalytics.io/?x=1", "no query"),
        ("metrics_audience", "ftp://metrics.monitor.azure.com", "must be an https:// URL"),
        (
            "workspace_id",
            "/subscriptions/x/providers/Microsoft.OperationalInsights",
            "Workspace ID",
        ),
        ("region", "east us 2!", "is not an Azure region name"),
    ],
)
def test_a_bad_endpoint_workspace_or_region_is_refused(key: str, value: str, expected: str):
    with pytest.raises(MonitorConfigError) as caught:
        resolve({"resource_id": RESOURCE_ID, key: value}, {})
    assert expected in caught.value.message
    assert caught.value.message.startswith("--" + key.replace("_", "-"))


def test_endpoints_and_audiences_are_kept_apart():
    settings = resolve(
        {
            "resource_id": RESOURCE_ID,
            "metrics_endpoint": "https://{region}.metrics.monitor.azure.us/",
            "logs_endpoint": "https://api.loganalytics.us",
        },
        {"COSMEM_LOGS_AUDIENCE": "https://api.loganalytics.us"},
    )
    assert settings is not None
    assert settings.metrics_url("usgovvirginia") == "https://usgovvirginia.metrics.monitor.azure.us"
    assert settings.metrics_audience is None  # never derived from the endpoint
    assert settings.logs_audience == "https://api.loganalytics.us"
    default = resolve({"resource_id": RESOURCE_ID}, {})
    assert default is not None
    assert default.metrics_url("eastus") == "https://eastus.metrics.monitor.azure.com"


@pytest.mark.parametrize(
    ("given", "arm", "metrics", "metrics_audience", "logs"),
    [
        (
            None,
            "https://management.azure.com",
            "https://eastus.metrics.monitor.azure.com",
            "https://metrics.monitor.azure.com",
            "https://api.loganalytics.io",
        ),
        (
            "AzureChinaCloud",
            "https://management.chinacloudapi.cn",
            "https://eastus.metrics.monitor.azure.cn",
            "https://metrics.monitor.azure.cn",
            "https://api.loganalytics.azure.cn",
        ),
        (
            "usgov",
            "https://management.usgovcloudapi.net",
            "https://eastus.metrics.monitor.azure.us",
            "https://metrics.monitor.azure.us",
            "https://api.loganalytics.us",
        ),
    ],
)
def test_one_cloud_setting_gives_every_host_and_audience(
    given: str | None, arm: str, metrics: str, metrics_audience: str, logs: str
):
    env = {"COSMEM_CLOUD": given} if given else {}
    settings = resolve({"resource_id": RESOURCE_ID}, env)
    assert settings is not None
    assert settings.arm_url == arm and settings.cloud.arm_scope == arm + "/.default"
    assert settings.metrics_url("eastus") == metrics
    assert settings.metrics_token_audience == metrics_audience
    assert settings.logs_url == logs and settings.logs_token_audience == logs


def test_a_private_link_endpoint_keeps_the_clouds_audience():
    settings = resolve(
        {
            "resource_id": RESOURCE_ID,
            "cloud": "usgov",
            "logs_endpoint": "https://logs.privatelink.example",
            "metrics_endpoint": "https://metrics.privatelink.example",
        },
        {},
    )
    assert settings is not None
    assert settings.logs_url == "https://logs.privatelink.example"
    assert settings.logs_token_audience == "https://api.loganalytics.us"
    assert settings.metrics_url(None) == "https://metrics.privatelink.example"
    assert settings.metrics_token_audience == "https://metrics.monitor.azure.us"
    assert "cloud = usgov (from --cloud)" in settings.describe()


def test_an_unknown_cloud_is_one_line_naming_the_ones_there_are():
    with pytest.raises(MonitorConfigError) as caught:
        resolve({"resource_id": RESOURCE_ID}, {"COSMEM_CLOUD": "germany"})
    assert caught.value.message == (
        "COSMEM_CLOUD: 'germany' is not a cloud the console knows: public, china or usgov"
    )


def test_a_workspace_without_an_account_says_what_is_missing():
    with pytest.raises(MonitorConfigError) as caught:
        resolve({"workspace_id": WORKSPACE}, {"COSMEM_ACCOUNT": "agentmem"})
    message = caught.value.message
    assert "no Cosmos DB account for Azure Monitor" in message
    assert "COSMEM_SUBSCRIPTION" in message and "COSMEM_RESOURCE_GROUP" in message


def test_parts_that_contradict_the_resource_id_are_refused():
    with pytest.raises(MonitorConfigError, match="differs from the account"):
        resolve({"resource_id": RESOURCE_ID}, {"COSMEM_ACCOUNT": "another"})


def test_the_flags_are_described_for_the_cli():
    options = {flag.option: flag for flag in FLAGS}
    assert set(options) == {
        "--resource-id",
        "--workspace-id",
        "--region",
        "--cloud",
        "--metrics-endpoint",
        "--logs-endpoint",
    }
    assert options["--workspace-id"].env == "COSMEM_WORKSPACE_ID"
    assert all(flag.help and flag.metavar for flag in FLAGS)


def test_region_names_are_normalised_as_hosts_want_them():
    assert normalise_region("East US") == "eastus"
    assert normalise_region(" UK South ") == "uksouth"
    assert normalise_region("westus2") == "westus2"
    with pytest.raises(ValueError):
        normalise_region("east.us/../x")
    locations = [{"name": ""}, {"name": "South Central US", "databaseAccountEndpoint": "x"}]
    assert write_region(locations) == "southcentralus"
    assert write_region([]) is None
