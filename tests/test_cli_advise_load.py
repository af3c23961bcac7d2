"""``cosmem advise`` reads the same telemetry as the advisor view: the hot-keys report's
partition shares, busiest seconds and 429s feed the hotspot rule, and the Azure
Monitor options are accepted on the command itself."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from cosmem_tui import cli
from cosmem_tui.cli.options import flags
from cosmem_tui.compose import open_local_session
from cosmem_tui.config.invocation import resolve, session_options
from cosmem_tui.core import records
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import ProblemKind, TelemetryProblem, Window
from tests.conftest import ANCHOR
from tests.sources.monitor.azure_fake import RESOURCE_ID, WORKSPACE

IN_BURST = ANCHOR + 3 * 86_400 + 45 + 150  # days after the build, in one of the bursts


async def the_views_finding(path: Path) -> dict[str, object]:
    """What the advisor view shows for the hotspot rule (it asks as ``ui/advise.py``)."""
    session = open_local_session(SessionOptions(workspace=path), FrozenClock(IN_BURST))
    try:
        assert session.advisor is not None and session.hot_keys is not None
        load = await session.hot_keys.report(Window.M15)
        report = await session.advisor.advise(load=load, count=False)
    finally:
        await session.close()
    (finding,) = [f for f in report.findings if f.rule == "partition-avoid-hotspots"]
    return records.advice_record(finding)


def test_advise_reads_the_telemetry_the_view_reads(
    demo_path: Path, frozen_system_time: FrozenClock, capsys: pytest.CaptureFixture[str]
):
    shown = asyncio.run(the_views_finding(demo_path))
    frozen_system_time.set(IN_BURST)
    status = cli.main(["advise", "--no-counts", "--workspace", str(demo_path), "--json"])
    out, err = capsys.readouterr()
    assert status == cli.EXIT_OK, err
    (printed,) = [f for f in json.loads(out) if f["rule"] == "partition-avoid-hotspots"]
    assert printed == shown
    assert printed["severity"] == "high" and "contoso" in printed["examples"]
    evidence = str(printed["evidence"])
    assert "contoso took " in evidence and " of partition 1's RU (" in evidence
    assert "of its requests answered 429 (simulated workload)" in evidence
    assert "no telemetry" not in err


def test_advise_takes_the_azure_monitor_options(monkeypatch: pytest.MonkeyPatch):
    """They were refused ("unrecognized arguments: --resource-id"): advise on a real
    container could not be given its telemetry on the command line."""
    args = cli.build_parser().parse_args(
        [
            "advise",
            "--endpoint",
            "https://agentmem.documents.azure.com:443/",
            "--database",
            "memory",
            "--container",
            "turns",
            "--resource-id",
            RESOURCE_ID,
            "--workspace-id",
            WORKSPACE,
        ]
    )
    options = session_options(resolve(flags(args)))
    assert options.telemetry is not None
    assert options.telemetry.resource_id == RESOURCE_ID
    assert options.telemetry.workspace_id == WORKSPACE
    assert (options.telemetry.database, options.telemetry.container) == ("memory", "turns")


async def test_telemetry_that_failed_is_a_note_not_silence(demo_path: Path):
    """Asked, but the logs gave no per-key usage: the advice says the rule ran without
    it and why, as it says when there is no telemetry at all."""
    session = open_local_session(SessionOptions(workspace=demo_path), FrozenClock(IN_BURST))
    try:
        assert session.advisor is not None and session.hot_keys is not None
        load = await session.hot_keys.report(Window.M15)
        missing = TelemetryProblem(
            ProblemKind.NO_WORKSPACE,
            "no Log Analytics workspace: per-key RU is only in the logs",
            fix="start with --workspace-id",
            about="logs: key_usage",
        )
        failed = replace(load, rows=(), problems=(missing,))
        report = await session.advisor.advise(load=failed, count=False)
    finally:
        await session.close()
    assert any(
        note.startswith("RU per tenant not checked: logs: key_usage: no Log Analytics")
        for note in report.notes
    )
