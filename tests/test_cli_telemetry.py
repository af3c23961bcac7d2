"""``cosmem hot`` and ``cosmem throttle`` over Azure Monitor alone: the real SDK clients
fed by a fake Azure, the same numbers as the reports the views show, and the problems
on stderr with their fixes."""

from __future__ import annotations

import argparse
import io
import json
from typing import Any

import pytest
from azure.core.exceptions import ServiceRequestError

from cosmem_tui import cli
from cosmem_tui.cli import telemetry
from cosmem_tui.cli.command import CliError
from cosmem_tui.compose import open_telemetry_session
from cosmem_tui.core.session import Session
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import LogName, Window
from cosmem_tui.sources.monitor.settings import MonitorSettings, parse_resource_id
from tests.conftest import ANCHOR
from tests.sources.monitor.azure_fake import (
    RESOURCE_ID,
    WORKSPACE,
    AzureFake,
    FakeCredential,
    Reply,
    Sent,
    metric,
    metrics_body,
)
from tests.sources.monitor.test_logs import Workspace

NOW = ANCHOR + 30  # half a minute into the minute after ANCHOR


def metrics_answer(sent: Sent) -> Reply:
    """An account at 4,000 RU/s whose busiest minute is 3,000 RU/s, with 429s on Query,
    in one region (East US): a split by Region names it."""
    names = sent.params["metricnames"].split(",")
    region = {"region": "East US"} if "Region eq '*'" in sent.params.get("filter", "") else {}
    start, end = ANCHOR - 15 * 60, ANCHOR
    minutes = [start + 60 * i for i in range(15)]
    body: list[dict[str, Any]] = []
    for name in names:
        if name == "TotalRequestUnits":
            points = [(at, {"total": 60_000.0}) for at in minutes[:-1]]
            points.append((minutes[-1], {"total": 180_000.0}))
            body.append(metric(name, "Count", [(region, points)]))
        elif name == "TotalRequests" and "StatusCode eq '429'" in sent.params["filter"]:
            body.append(
                metric(name, "Count", [({"operationtype": "Query"}, [(minutes[-1], {"count": 7})])])
            )
        elif name == "TotalRequests":
            body.append(
                metric(
                    name,
                    "Count",
                    [
                        (
                            {"statuscode": "200", **region},
                            [(at, {"count": 100.0}) for at in minutes],
                        ),
                        ({"statuscode": "429", **region}, [(minutes[-1], {"count": 7.0})]),
                    ],
                )
            )
        elif name == "NormalizedRUConsumption":
            body.append(
                metric(
                    name,
                    "Percent",
                    [
                        ({"partitionkeyrangeid": "0"}, [(minutes[-1], {"maximum": 40.0})]),
                        ({"partitionkeyrangeid": "2"}, [(minutes[-1], {"maximum": 100.0})]),
                    ],
                )
            )
        elif name == "ProvisionedThroughput":
            body.append(metric(name, "Count", [({}, [(minutes[-5], {"maximum": 4000.0})])]))
        elif name == "AutoscaleMaxThroughput":
            body.append(metric(name, "Count", []))
        elif name == "ServerSideLatencyGateway":
            body.append(metric(name, "MilliSeconds", [({}, [(minutes[-1], {"average": 4.5})])]))
        elif name == "ServerSideLatencyDirect":  # no .NET or Java client: no direct mode
            body.append(metric(name, "MilliSeconds", []))
        else:
            raise AssertionError(name)
    return Reply(200, metrics_body(start, end, *body))


def settings(**changes: Any) -> MonitorSettings:
    values: dict[str, Any] = {
        "resource": parse_resource_id(RESOURCE_ID),
        "workspace_id": WORKSPACE,
        "region": "eastus",
        "database": "memory",
        "container": "turns",
    }
    values.update(changes)
    return MonitorSettings(**values)


async def session_over(fake: AzureFake, **changes: Any) -> Session:
    return await open_telemetry_session(
        settings(**changes),
        FrozenClock(NOW),
        transport=fake.transport(),
        credential=FakeCredential(),
    )


def args(command: str, **values: Any) -> argparse.Namespace:
    defaults: dict[str, Any] = {"format": "json", "window": Window.M15}
    if command == "hot":
        defaults.update(level="tenant", top=10_000, tenant=None)
    defaults.update(values)
    return argparse.Namespace(command=command, **defaults)


async def test_hot_prints_the_reports_rows(capsys: pytest.CaptureFixture[str]):
    fake = AzureFake()
    fake.answer("metrics", metrics_answer)
    fake.answer("logs", Workspace().responder())
    session = await session_over(fake)
    try:
        out = io.StringIO()
        status = await telemetry.run_hot(session, args("hot"), out)
        assert session.hot_keys is not None
        report = await session.hot_keys.report(Window.M15)  # the view's question
    finally:
        await session.close()

    rows = json.loads(out.getvalue())
    assert [r["tenant"] for r in rows] == ["contoso", 42]  # the number stays a number
    contoso = rows[0]
    assert contoso == {
        "tenant": "contoso",
        "key": None,
        "ru": 1812.5,
        "peak_ru_s": 240.0,
        "share": round(1812.5 / 2220.0, 4),
        # 4,000 RU/s over the partitions known to metrics and logs (0 and 2): 2,000 each
        "partition_share": round(200.0 / 2000.0, 4),  # its peak on partition 2 alone
        "throttled": 21,
        "storage_kb": 5_242_880,
        "storage_lower_bound": True,  # a tenant: only its largest keys are logged
        "partition": "2",
        "partitions": 3,
        "partition_ids": ["2", "0", "1"],  # every one it touched, the main one first
    }
    assert [r["ru"] for r in rows] == [round(u.ru, 2) for u in report.rows]
    assert [r["share"] for r in rows] == [round(u.share, 4) for u in report.rows]
    # 57 keys in the window, 2 rows shown: a cut list says so and exits 3
    assert status == cli.EXIT_PARTIAL
    err = capsys.readouterr().err
    assert "top 2 of 57 keys by RU (raise --top to see more)" in err
    assert "contoso = 71 % of RU on partition 2" in err  # 1,500 of partition 2's 2,100
    # The window ends now: its newest ten minutes of logs may not have arrived yet.
    assert (
        "cosmem: logs arrive 3–10 min after the requests: the newest 10 min "
        "(67 % of the window) may be incomplete; data as of 23:59:40 UTC"
    ) in err
    # "throttled" is 429s where logged: the window's 429s of no key are counted apart.
    assert "12 of the window's 33 429s name no key" in err
    assert "the console's own requests: 40, 96 RU of the window's 2,220 RU" in err


async def test_throttle_prints_every_series_point(capsys: pytest.CaptureFixture[str]):
    fake = AzureFake()
    fake.answer("metrics", metrics_answer)
    session = await session_over(fake, workspace_id=None)  # metrics need no workspace
    try:
        out = io.StringIO()
        status = await telemetry.run_throttle(session, args("throttle"), out)
        assert session.throughput is not None
        report = await session.throughput.report(Window.M15)
    finally:
        await session.close()

    rows = json.loads(out.getvalue())
    assert status == cli.EXIT_OK
    throttled = [r for r in rows if r["dimension"] == "region=East US,statuscode=429"]
    assert [r["value"] for r in throttled if r["value"] is not None] == [7.0]
    ru = [r for r in rows if r["metric"] == "TotalRequestUnits.Total" and r["value"]]
    assert ru[-1]["value"] == 180_000.0  # raw Total per minute, as Azure gives it
    assert report.ru_per_s[-1].value == 3000.0  # the view's RU/s: Total / 60
    assert report.throttled == 7 and report.provisioned_ru_s == 4000.0
    err = capsys.readouterr().err
    assert "7 × 429 of 1,507 requests (0.5 %) in 15m; partition 2 at 100 % since" in err

    # What went over the wire: one getBatch call per question, on the regional host,
    # filtered to the container.
    sent = fake.requests_to("metrics")
    assert {s.host for s in sent} == {"eastus.metrics.monitor.azure.com"}
    assert len(sent) == 6
    for one in sent:
        assert "DatabaseName eq 'memory' and CollectionName eq 'turns'" in one.params["filter"]
    assert {s.params["interval"] for s in sent} == {"PT1M", "PT5M"}


ARM_DNS = "Failed to resolve 'management.azure.com' ([Errno -2] Name or service not known)"


@pytest.mark.parametrize("command", ["hot", "throttle"])
async def test_a_metrics_endpoint_answers_where_arm_cannot_be_reached(
    command: str, capsys: pytest.CaptureFixture[str]
):
    fake = AzureFake()
    fake.fail("arm", ServiceRequestError(ARM_DNS))
    fake.answer("metrics", metrics_answer)
    fake.answer("logs", Workspace().responder())
    session = await session_over(
        fake, region=None, metrics_endpoint="https://metrics.privatelink.example"
    )
    try:
        run = telemetry.run_hot if command == "hot" else telemetry.run_throttle
        out = io.StringIO()
        status = await run(session, args(command), out)
    finally:
        await session.close()
    err = capsys.readouterr().err
    assert "region is unknown" not in err  # the metrics host needs no region
    # ARM is still asked what only it says (regions, the offer): one line says what
    # is unknown, and the ProvisionedThroughput metric stands in for the offer
    (arm,) = [line for line in err.splitlines() if "Resource Manager" in line]
    assert arm.startswith("cosmem: arm: account: the account's regions and throughput")
    if command == "hot":  # every part answered: the budget too (provisioned, from metrics)
        assert json.loads(out.getvalue())[0]["partition_share"] == 0.1
        assert "top 2 of 57 keys" in err  # the fake's cut
    assert status == cli.EXIT_PARTIAL
    assert len(fake.requests_to("arm")) == 3  # one read (azure-core's retries) per command
    assert {s.host for s in fake.requests_to("metrics")} == {"metrics.privatelink.example"}


async def test_without_arm_hot_answers_from_the_logs_and_names_what_is_missing(
    capsys: pytest.CaptureFixture[str],
):
    fake = AzureFake()
    fake.fail("arm", ServiceRequestError(ARM_DNS))
    fake.answer("logs", Workspace().responder())
    session = await session_over(fake, region=None)
    try:
        out = io.StringIO()
        status = await telemetry.run_hot(session, args("hot", top=100), out)
    finally:
        await session.close()
    rows = json.loads(out.getvalue())
    assert [r["tenant"] for r in rows] == ["contoso", 42]  # the logs' part is all there
    assert rows[0]["partition_share"] is None  # no provisioned throughput: not a guess
    assert status == cli.EXIT_PARTIAL
    err = capsys.readouterr().err.splitlines()
    missing = [line for line in err if "region is unknown" in line]
    assert len(missing) == 1  # one line for the one cause, naming both questions
    assert "metrics: normalized_by_range, capacity:" in missing[0]
    assert "--region" in missing[0] and "--metrics-endpoint" in missing[0]
    assert len(fake.requests_to("arm")) == 3  # one lookup (azure-core's retries), not two


async def test_without_arm_or_a_region_throttle_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str],
):
    fake = AzureFake()
    fake.fail("arm", ServiceRequestError(ARM_DNS))
    session = await session_over(fake, region=None, workspace_id=None)
    try:
        out = io.StringIO()
        status = await telemetry.run_throttle(session, args("throttle"), out)
    finally:
        await session.close()
    assert status == cli.EXIT_ERROR and json.loads(out.getvalue()) == []
    headline, *problems = capsys.readouterr().err.splitlines()
    assert "no metrics in the last 15m" in headline
    (problem,) = problems
    assert problem.startswith("cosmem: metrics: ru, requests_by_status, ")
    assert "cannot reach Azure Resource Manager" in problem and "--region" in problem


async def test_a_failure_is_one_line_with_its_fix(capsys: pytest.CaptureFixture[str]):
    fake = AzureFake()
    fake.answer("metrics", metrics_answer)
    workspace = Workspace(tables={})  # the diagnostic setting sends nothing
    fake.answer("logs", workspace.responder())
    session = await session_over(fake)
    try:
        status = await telemetry.run_hot(session, args("hot"), io.StringIO())
    finally:
        await session.close()
    assert status == cli.EXIT_ERROR  # nothing to show: not a silently empty table
    err = capsys.readouterr().err
    assert "PartitionKeyRUConsumption" in err  # names the category to enable


async def test_drilling_into_a_tenant_asks_for_its_keys():
    fake = AzureFake()
    fake.answer("metrics", metrics_answer)
    workspace = Workspace()
    fake.answer("logs", workspace.responder())
    session = await session_over(fake)
    try:
        out = io.StringIO()
        await telemetry.run_hot(session, args("hot", tenant="contoso", top=50), out)
    finally:
        await session.close()
    asked = [(name, request) for name, _mode, request in workspace.asked]
    usage = next(request for name, request in asked if name is LogName.KEY_USAGE)
    text = usage["body"]["query"]
    assert 'let p_tenant = parse_json("[\\"contoso\\"]");' in text
    assert "let p_has_tenant = true;" in text and "let p_by_tenant = false;" in text
    assert "let p_top = 50;" in text
    rows = json.loads(out.getvalue())
    assert rows and all(r["key"] is not None for r in rows)  # whole keys at key level


def test_hot_and_throttle_need_no_cosmos_endpoint(monkeypatch: pytest.MonkeyPatch):
    opened: list[MonitorSettings] = []

    async def fake_open(monitor: MonitorSettings, **_kw: Any) -> Session:
        opened.append(monitor)
        raise CliError("stop here")

    monkeypatch.setattr("cosmem_tui.compose.open_telemetry_session", fake_open)
    for name in ("COSMOS_ENDPOINT", "COSMOS_CONNECTION_STRING"):
        monkeypatch.delenv(name, raising=False)
    status = cli.main(["hot", "--resource-id", RESOURCE_ID, "--region", "eastus"])
    assert status == cli.EXIT_ERROR and opened[0].resource_id == RESOURCE_ID


def test_monitor_settings_without_an_endpoint_are_refused_for_the_console(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    for name in ("COSMOS_ENDPOINT", "COSMOS_CONNECTION_STRING"):
        monkeypatch.delenv(name, raising=False)
    status = cli.main(["tenants", "--resource-id", RESOURCE_ID])
    assert status == cli.EXIT_ERROR
    assert "go with a Cosmos container (--endpoint)" in capsys.readouterr().err


def test_a_resource_that_is_not_a_cosmos_account_is_one_line(
    capsys: pytest.CaptureFixture[str],
):
    bad = RESOURCE_ID.replace("Microsoft.DocumentDB/databaseAccounts", "Microsoft.Storage/x")
    status = cli.main(["throttle", "--resource-id", bad])
    assert status == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "databaseAccounts" in err
