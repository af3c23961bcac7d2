"""``cosmem doctor`` headless: on the demo, on a Cosmos container (the fake gateway, its
real 403s), beside Azure Monitor (the fake Azure): verdicts, fixes, exit statuses, and
nothing read but metadata."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core import records
from cosmem_tui.core.exit_status import EXIT_ERROR, EXIT_OK
from tests.fake_cosmos import Fault
from tests.helpers import exchange, run_cli
from tests.sources.cosmos.test_access_probe import denial


def by_capability(out: str) -> dict[str, dict[str, Any]]:
    return {row["capability"]: row for row in json.loads(out)}


@pytest.fixture
def demo_home(demo_path: Path, isolated_user_dirs: Path) -> Path:
    """The demo workspace where ``cosmem`` with no options finds it (no rebuild)."""
    home = isolated_user_dirs / "data" / "cosmem"
    home.mkdir(parents=True)
    shutil.copy(demo_path, home / "demo.sqlite")
    return home


def test_on_the_demo_it_reports_the_demo(demo_home, frozen_system_time, capsys, tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    code, out, err = run_cli(capsys, "doctor", "--json", "--ledger", str(ledger))
    assert code == EXIT_OK
    rows = by_capability(out)
    assert list(rows) == [
        "browse",
        "counts",
        "search",
        "lifecycle",
        "throughput",
        "hot-tenants",
        "throttles-by-key",
        "storage-by-key",
        "writes",
        "change-feed",
        "vector-search",
    ]
    assert {k for k, r in rows.items() if r["verdict"] == "works"} == {
        "browse",
        "counts",
        "search",
        "lifecycle",
        "throughput",
        "hot-tenants",
        "throttles-by-key",
        "storage-by-key",
        "change-feed",  # the workspace's change log: all versions, deletes, TTL purges
        "vector-search",  # the recall probe: exact distances and FTS5 on a workspace
    }
    assert rows["hot-tenants"]["simulated"] and not rows["browse"]["simulated"]
    assert rows["writes"]["verdict"] == "blocked" and not rows["writes"]["asked"]
    checks = {c["check"]: c for row in rows.values() for c in row["checks"]}
    assert checks["account.merge"]["status"] == "unknown"  # no Azure account to read
    assert "no Azure account" in checks["account.merge"]["evidence"]
    assert "cosmem: note: the embedded demo" in err
    assert "demo workspace demo.sqlite" in err
    # Nothing an agent wrote, every read in the ledger: the container's properties, the
    # change log of a thread no agent writes, the simulated metrics call and table probe.
    lines = [json.loads(line) for line in ledger.read_text("ascii").splitlines()]
    assert lines and {line["scope"] for line in lines} <= {"metadata", "metrics", "logs"} | {
        "single-partition"
    }
    data = [line for line in lines if line["scope"] == "single-partition"]
    assert len(data) == 1 and "cosmem-doctor-probe" in data[0]["target"]


def test_the_checks_as_csv_have_the_json_keys_as_columns(demo_home, frozen_system_time, capsys):
    code, out, _ = run_cli(capsys, "doctor", "--checks", "--csv")
    assert code == EXIT_OK
    table = list(csv.reader(io.StringIO(out)))
    assert tuple(table[0]) == records.CHECK_FIELDS
    ttl = next(row for row in table[1:] if row[0] == "container.ttl")
    assert ttl[4] == "note" and ttl[5].startswith("TTL on, no default")


@pytest.fixture
def container(fake_cosmos, monkeypatch) -> list[str]:
    """A lab container on the fake gateway; the CLI options that point at it."""
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=4, default_ttl=3600
    )
    fake_cosmos.seed("db", "memory", [exchange("acme", "t1", i) for i in range(30)])
    monkeypatch.setenv("COSMOS_KEY", fake_cosmos.key)
    return ["--endpoint", fake_cosmos.endpoint, "--database", "db", "--container", "memory"]


def test_a_container_is_checked_with_metadata_alone(container, fake_cosmos, capsys, tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    code, out, err = run_cli(capsys, "doctor", *container, "--json", "--ledger", str(ledger))
    assert code == EXIT_OK, err
    rows = by_capability(out)
    assert rows["browse"]["verdict"] == "works" and rows["browse"]["asked"]
    # Without telemetry the Azure Monitor rows say how to configure it, and are not asked.
    for capability in ("throughput", "hot-tenants", "throttles-by-key", "storage-by-key"):
        assert rows[capability]["verdict"] == "blocked" and not rows[capability]["asked"]
        assert "--resource-id" in rows[capability]["fix"]
    checks = {c["check"]: c for row in rows.values() for c in row["checks"]}
    assert "an account key" in checks["data.query"]["evidence"]
    assert checks["container.ttl"]["evidence"].startswith("TTL on, default 3,600 s")
    # No item was read: no schema detection sample, only the probes' point read (404)
    # and count of an absent key.
    assert [e.status for e in fake_cosmos.log.of("point")] == [404]
    assert all("COUNT(1)" in (e.query or "") for e in fake_cosmos.log.queries())
    lines = [json.loads(line) for line in ledger.read_text("ascii").splitlines()]
    operations = {line["operation"] for line in lines}
    assert "sample-items" not in operations and "doctor: count" in operations
    assert all(line["cause"] == "cosmem doctor" for line in lines)
    assert sum(line["request_units"] for line in lines) < 20


def test_a_missing_data_role_fails_the_command_with_the_fix(container, fake_cosmos, capsys):
    fake_cosmos.faults.add(
        Fault(status=403, sub_status=5301, kind="metadata", message=denial(
            "Microsoft.DocumentDB/databaseAccounts/readMetadata", "/"
        ))
    )  # fmt: skip
    code, out, err = run_cli(capsys, "doctor", *container, "--json")
    assert code == EXIT_ERROR  # browsing is asked for (an endpoint is named) and blocked
    browse = by_capability(out)["browse"]
    assert browse["verdict"] == "blocked"
    assert "403, sub-status 5301 RbacUnauthorizedMetadataRequest" in browse["evidence"]
    assert "az cosmosdb sql role assignment create --account-name ACCOUNT" in browse["fix"]
    assert "cosmem: blocked: browse (asked for)" in err
    assert "--role-definition-id 00000000-0000-0000-0000-000000000001" in err
    assert "Traceback" not in err


def test_the_table_names_each_capability_and_stderr_carries_each_fix_whole(container, capsys):
    code, out, err = run_cli(capsys, "doctor", *container)
    assert code == EXIT_OK
    header, *lines = out.splitlines()
    assert header.split()[:4] == ["TITLE", "VERDICT", "ASKED", "EVIDENCE"]
    assert len(lines) == 11
    fixes = [line for line in err.splitlines() if " — fix: " in line]
    assert any("az monitor" in line or "--resource-id" in line for line in fixes)
    assert max(len(line) for line in fixes) > 100  # not cut as a table cell is


async def test_beside_azure_monitor_every_read_is_in_one_ledger(fake_cosmos, tmp_path, capsys):
    """The doctor's Cosmos session with Azure Monitor (the fake Azure): ARM's features,
    offer and diagnostic settings, one metrics call and the table probe, all ledgered."""
    from cosmem_tui.cli import container
    from cosmem_tui.compose import open_cosmos_doctor_session
    from cosmem_tui.model import FrozenClock
    from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
    from tests.sources.monitor.azure_fake import AzureFake, FakeCredential, Reply
    from tests.sources.monitor.test_arm_account import (
        WORKSPACE_ARM_ID,
        account_body,
        throughput_body,
    )
    from tests.sources.monitor.test_logs import Workspace
    from tests.sources.monitor.test_region import ok_metrics
    from tests.test_cli_telemetry import NOW
    from tests.test_cli_telemetry import settings as monitor_settings

    fake_cosmos.create_container("db", "memory", partition_key=["/tenantId", "/threadId"])
    fake = AzureFake()
    settings_list = {
        "value": [
            {
                "name": "to-logs",
                "properties": {
                    "workspaceId": WORKSPACE_ARM_ID,
                    "logAnalyticsDestinationType": "Dedicated",
                    "logs": [
                        {"category": "PartitionKeyRUConsumption", "enabled": True},
                        {"category": "DataPlaneRequests5M", "enabled": True},
                    ],
                },
            }
        ]
    }
    fake.answer(
        "arm",
        Reply(200, account_body(enablePriorityBasedExecution=False)),  # merge is on (example)
        Reply(200, throughput_body({"autoscaleSettings": {"maxThroughput": 4000}})),
        Reply(200, settings_list),
    )
    fake.answer("metrics", ok_metrics())
    workspace = Workspace(
        tables={"CDBPartitionKeyRUConsumption": 900, "CDBDataPlaneRequests5M": 12}
    )
    fake.answer("logs", workspace.responder())
    session = await open_cosmos_doctor_session(
        CosmosSettings(
            endpoint=fake_cosmos.endpoint,
            database="db",
            container="memory",
            auth=AuthMode.KEY,
            key=fake_cosmos.key,
        ),
        None,
        FrozenClock(NOW),
        tmp_path / "schemas",
        telemetry=monitor_settings(database="db", container="memory"),
        telemetry_transport=fake.transport(),
        telemetry_credential=FakeCredential(),
    )
    try:
        out = io.StringIO()
        args = argparse_args(format="json", checks=False)
        status = await container.run_doctor(session, args, out)
    finally:
        await session.close()
    rows = by_capability(out.getvalue())
    # The probes answered, so browsing works — degraded by what ARM says of the account
    # (priority-based execution off; partition merge on is only a note: the SDK
    # declares merge support).
    assert rows["browse"]["verdict"] == "degraded"
    assert "priority-based execution: off" in rows["browse"]["evidence"]
    assert "merge" not in rows["browse"]["evidence"]
    assert rows["throughput"]["verdict"] == "works"
    assert rows["hot-tenants"]["verdict"] == "works"
    assert (
        rows["throttles-by-key"]["verdict"] == "degraded"
        and rows["throttles-by-key"]["fix"] is None
    )
    storage = rows["storage-by-key"]
    assert storage["verdict"] == "blocked" and storage["asked"]
    assert f"--workspace {WORKSPACE_ARM_ID}" in storage["fix"]
    assert status == EXIT_ERROR  # storage by key is asked for (--workspace-id) and blocked
    arm = [s.path for s in fake.requests_to("arm")]
    assert arm[0].endswith("databaseAccounts/agentmem")
    assert arm[1].endswith("/sqlDatabases/db/containers/memory/throughputSettings/default")
    assert arm[2].endswith("/providers/Microsoft.Insights/diagnosticSettings")
    operations = [r.operation for r in session.ledger.records()]
    for expected in (
        "doctor: read-container",
        "arm: account features",
        "arm: container throughput",
        "arm: diagnostic settings",
        "metrics: doctor",
    ):
        assert expected in operations
    assert any(op.startswith("logs:") for op in operations)
    assert "cosmem: degraded: browse (asked for)" in capsys.readouterr().err


def argparse_args(**values: Any) -> Any:
    import argparse

    return argparse.Namespace(command="doctor", **values)


def test_the_probes_are_admitted_against_the_budget_like_any_request(
    container, fake_cosmos, capsys
):
    """A budget too small for the count: it is not sent, and the doctor says why."""
    code, out, err = run_cli(capsys, "doctor", *container, "--ru-budget", "2", "--json")
    checks = {c["check"]: c for row in by_capability(out).values() for c in row["checks"]}
    assert checks["data.read"]["status"] == "ok"  # the 1 RU point read fitted
    assert checks["data.query"]["status"] == "unknown"
    assert "budget" in checks["data.query"]["evidence"]
    assert not fake_cosmos.log.queries()  # refused before the wire
    # Browsing cannot be vouched for: unknown, not blocked, so the status stays 0 and
    # stderr says why.
    assert code == EXIT_OK
    assert "cosmem: unknown: browse (asked for) — executeQuery: " in err


async def test_azure_monitor_alone_checks_the_telemetry_and_says_no_container(capsys):
    """``cosmem doctor --resource-id …`` without a container: the data plane is not
    asked (and not asked for), the metrics role and the account's features are."""
    from cosmem_tui.cli import container
    from tests.sources.monitor.azure_fake import AzureFake, Reply
    from tests.sources.monitor.test_arm_account import account_body, throughput_body
    from tests.sources.monitor.test_logs import Workspace
    from tests.sources.monitor.test_region import ok_metrics
    from tests.test_cli_telemetry import session_over

    fake = AzureFake()
    fake.answer(
        "arm",
        Reply(200, account_body(enablePartitionMerge=False)),
        Reply(200, throughput_body({"throughput": 4000})),
        Reply(200, {"value": []}),
    )
    fake.answer("metrics", ok_metrics())
    fake.answer("logs", Workspace().responder())
    session = await session_over(fake)
    try:
        out = io.StringIO()
        args = argparse_args(format="json", checks=False)
        status = await container.run_doctor(session, args, out)
    finally:
        await session.close()
    rows = by_capability(out.getvalue())
    assert rows["browse"]["verdict"] == "blocked" and not rows["browse"]["asked"]
    assert "--endpoint https://ACCOUNT.documents.azure.com:443/" in rows["browse"]["fix"]
    assert rows["throughput"]["verdict"] == "works" and rows["throughput"]["asked"]
    checks = {c["check"]: c for row in rows.values() for c in row["checks"]}
    assert checks["data.metadata"]["evidence"].startswith("not asked")
    assert checks["throughput.mode"]["evidence"] == "dedicated to the container: 4,000 RU/s manual"
    # The workspace holds the rows, though no diagnostic setting was found: the rows win.
    assert rows["hot-tenants"]["verdict"] == "works"
    assert checks["diag.setting"]["status"] == "missing"
    assert status == EXIT_OK
