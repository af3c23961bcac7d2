"""The demo's simulated incident is one story for every process.

The workload is anchored to the workspace (when the demo was built), never to the
process that reads it: a console opened at 21:33, another opened a minute later and
``cosmem throttle`` / ``cosmem hot`` run at any time all see the same past and the same
present. Here, days after the demo was built, sessions opened at different times answer
alike once their clocks agree, and the CLI prints the incident the console shows.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cosmem_tui import cli
from cosmem_tui.compose import open_local_session
from cosmem_tui.core import records
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.core.throughput import series_rows
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import KeyLevel, LogName, LogQuery, Span, Window
from tests.conftest import ANCHOR
from tests.telemetry.conftest import console_metric_queries

DAYS = 3 * 86_400  # long after the build (a multiple of the burst cadence)
DEMO_CONTAINER = ("agentmemory", "turns")
IN_BURST = ANCHOR + DAYS + 45 + 150  # two and a half minutes into one of the bursts


def opened_at(path: Path, at: float) -> tuple[Session, FrozenClock]:
    clock = FrozenClock(at)
    return open_local_session(SessionOptions(workspace=path), clock), clock


async def test_sessions_opened_at_different_times_answer_alike(demo_path: Path):
    early, early_clock = opened_at(demo_path, IN_BURST - 300)
    late, late_clock = opened_at(demo_path, IN_BURST - 60)
    try:
        for clock in (early_clock, late_clock):
            clock.set(IN_BURST)
        span = Span(IN_BURST - 900, IN_BURST)
        logs = [
            LogQuery(name, span, *DEMO_CONTAINER, level=KeyLevel.TENANT, top=100)
            for name in LogName
        ]
        answers = []
        for session in (early, late):
            assert session.telemetry is not None
            source = session.telemetry.telemetry
            metrics = await source.metrics(console_metric_queries(span, *DEMO_CONTAINER))
            answers.append((metrics, await source.logs(logs)))
        assert answers[0] == answers[1]  # the raw answers, every series and every row

        reports = [await s.throughput.report(Window.M15) for s in (early, late)]
        assert series_rows(reports[0]) == series_rows(reports[1])
        assert reports[0].headline == reports[1].headline
        assert reports[0].throttled > 0  # and that story is the incident
        hot = [await s.hot_keys.report(Window.M15) for s in (early, late)]
        assert hot[0].rows == hot[1].rows and hot[0].headline == hot[1].headline
        assert (hot[0].rows[0].throttled or 0) > 0
    finally:
        for session in (early, late):
            await session.close()


async def console_shows(path: Path, command: str) -> list[dict[str, object]]:
    """What a console open for ten minutes shows at IN_BURST, as the CLI writes it."""
    console, clock = opened_at(path, IN_BURST - 600)
    try:
        clock.set(IN_BURST)
        if command == "throttle":
            report = await console.throughput.report(Window.M15)
            shown: list[dict[str, object]] = json.loads(json.dumps(series_rows(report)))
            return shown
        keys = await console.hot_keys.report(Window.M15)
        return [records.hot_record(u, keys.level, typed=True) for u in keys.rows]
    finally:
        await console.close()


@pytest.mark.parametrize("command", ["throttle", "hot"])
def test_the_cli_prints_the_incident_the_console_shows(
    command: str,
    demo_path: Path,
    frozen_system_time: FrozenClock,
    capsys: pytest.CaptureFixture[str],
):
    shown = asyncio.run(console_shows(demo_path, command))
    frozen_system_time.set(IN_BURST)  # the command runs now, in a process of its own
    status = cli.main([command, "--workspace", str(demo_path), "--json"])
    out, err = capsys.readouterr()
    printed = json.loads(out)
    assert printed == shown
    if command == "throttle":
        assert status == cli.EXIT_OK
        rejected = [
            r["value"]
            for r in printed
            if r["metric"] == "TotalRequests.Count" and "statuscode=429" in r["dimension"]
        ]
        assert any(v for v in rejected) and "no 429s" not in err
    else:
        assert status == cli.EXIT_OK
        assert printed[0]["tenant"] == "contoso" and printed[0]["throttled"] > 0
