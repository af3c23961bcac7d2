"""The exact fixes the doctor prints: ``az`` commands with this account's names filled in.

Where the console does not know a name (the principal's object id, a workspace's ARM
id it was never told) the command keeps a placeholder in capitals, said once in
``PRINCIPAL``. Role names and role definition ids are the built-in ones (Learn: "Azure
built-in roles", "Data plane role-based access control"); the ``az`` options are those
of ``az cosmosdb``, ``az role assignment`` and ``az monitor diagnostic-settings``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from cosmem_tui.model.doctor import (
    CONTRIBUTOR_ROLE,
    CONTRIBUTOR_ROLE_ID,
    READER_ROLE,
    READER_ROLE_ID,
    SessionFacts,
)

PRINCIPAL = "PRINCIPAL_ID"  # az ad signed-in-user show --query id -o tsv (or the app's object id)
MONITORING_READER = "Monitoring Reader"
LOG_ANALYTICS_READER = "Log Analytics Reader"
ACCOUNT_READER = "Cosmos DB Account Reader Role"
DIAGNOSTIC_NAME = "cosmem"  # the name a diagnostic setting made from these fixes gets


def account_name(facts: SessionFacts) -> str:
    return facts.account or "ACCOUNT"


def group_name(facts: SessionFacts) -> str:
    return facts.resource_group or "GROUP"


def resource_id(facts: SessionFacts) -> str:
    if facts.resource_id:
        return facts.resource_id
    return (
        f"/subscriptions/{facts.subscription or 'SUBSCRIPTION'}/resourceGroups/"
        f"{group_name(facts)}/providers/Microsoft.DocumentDB/databaseAccounts/"
        f"{account_name(facts)}"
    )


def _account_args(facts: SessionFacts) -> str:
    return f"--account-name {account_name(facts)} --resource-group {group_name(facts)}"


def data_role(facts: SessionFacts, *, writes: bool = False) -> str:
    role, role_id = (
        (CONTRIBUTOR_ROLE, CONTRIBUTOR_ROLE_ID) if writes else (READER_ROLE, READER_ROLE_ID)
    )
    return (
        f"assign the data-plane role {role}: az cosmosdb sql role assignment create "
        f"{_account_args(facts)} --scope / --principal-id {PRINCIPAL} "
        f"--role-definition-id {role_id} (Azure RBAC roles such as Reader do not grant it)"
    )


def azure_role(role: str, scope: str) -> str:
    return f'az role assignment create --assignee {PRINCIPAL} --role "{role}" --scope {scope}'


def monitoring_reader(facts: SessionFacts) -> str:
    scope = f"/subscriptions/{facts.subscription or 'SUBSCRIPTION'}"
    return (
        f"grant {MONITORING_READER} on the subscription (the metrics batch API checks it "
        f"there, not on the account): {azure_role(MONITORING_READER, scope)}"
    )


def log_analytics_reader(workspace: str | None) -> str:
    scope = workspace or "WORKSPACE_RESOURCE_ID"
    return (
        f"grant {LOG_ANALYTICS_READER} on the workspace: {azure_role(LOG_ANALYTICS_READER, scope)}"
    )


def account_reader(facts: SessionFacts) -> str:
    return (
        f"grant {ACCOUNT_READER} (or Reader) on the account: "
        f"{azure_role(ACCOUNT_READER, resource_id(facts))}"
    )


def diagnostic_setting(
    facts: SessionFacts, categories: Sequence[str], workspace: str | None
) -> str:
    logs = json.dumps([{"category": c, "enabled": True} for c in categories], separators=(",", ":"))
    return (
        f"az monitor diagnostic-settings create --name {DIAGNOSTIC_NAME} "
        f"--resource {resource_id(facts)} --workspace {workspace or 'WORKSPACE_RESOURCE_ID'} "
        f"--export-to-resource-specific true --logs '{logs}' (logs arrive minutes after)"
    )


def account_update(facts: SessionFacts, option: str) -> str:
    return (
        f"az cosmosdb update --name {account_name(facts)} --resource-group "
        f"{group_name(facts)} {option}"
    )


def all_versions_change_feed(facts: SessionFacts) -> str:
    url = f"https://management.azure.com{resource_id(facts)}?api-version=2024-12-01-preview"
    body = '{"properties":{"enableAllVersionsAndDeletesChangeFeed":true}}'
    return f"az rest --method patch --url {url} --body '{body}' (continuous backup first)"


def all_versions_lookup(facts: SessionFacts) -> str:
    url = f"https://management.azure.com{resource_id(facts)}?api-version=2024-12-01-preview"
    return (
        f"az rest --method get --url {url} --query properties.enableAllVersionsAndDeletesChangeFeed"
    )
