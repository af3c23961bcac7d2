"""The source as the console holds it: the Telemetry protocol, who caused each call, a
caller that goes away, and closing without closing the session's credential."""

from __future__ import annotations

import asyncio
import time

import pytest

from cosmem_tui.model.telemetry import LogName, LogQuery, MetricQuery, Span
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.telemetry import Telemetry
from tests.conftest import ANCHOR
from tests.sources.monitor.azure_fake import (
    AzureFake,
    FakeCredential,
    Reply,
    Sent,
    metric,
    metrics_body,
)
from tests.sources.monitor.conftest import Opener

SPAN = Span(ANCHOR - 300, ANCHOR)
QUERY = MetricQuery("ru", ("TotalRequestUnits",), "Total", 60, SPAN)


def ok() -> Reply:
    return Reply(200, metrics_body(SPAN.start, SPAN.end, metric("TotalRequestUnits", "Count", [])))


async def test_it_is_a_telemetry_source_and_closing_leaves_the_credential_open(
    open_source: Opener, fake: AzureFake, credential: FakeCredential, ledger: RequestLedger
):
    source = await open_source()
    assert isinstance(source, Telemetry)
    assert source.ledger is ledger
    assert source.about.simulated is False
    fake.answer("metrics", ok())
    await source.metrics([QUERY])
    await source.close()
    assert credential.closed is False  # the session closes its one credential


async def test_each_call_records_the_action_that_caused_it(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    fake.answer("metrics", ok())
    source = await open_source(workspace_id=None)
    with RequestLedger.caused_by("throughput: refresh"):
        await source.metrics([QUERY, QUERY])
    first, second = ledger.records()
    assert first.cause == second.cause == "throughput: refresh"
    assert first.call != second.call  # one logical call per question


async def test_a_caller_that_goes_away_leaves_a_cancelled_record(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    started = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow(_sent: Sent) -> Reply:
        loop.call_soon_threadsafe(started.set)
        time.sleep(0.3)
        return ok()

    fake.answer("metrics", slow)
    source = await open_source()
    task = asyncio.create_task(source.metrics([QUERY]))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (record,) = ledger.records()
    assert (record.status, record.cancelled, record.outcome) == (0, True, "cancelled")


async def test_nothing_is_sent_for_no_questions(open_source: Opener, fake: AzureFake):
    source = await open_source()
    assert await source.metrics([]) == []
    assert await source.logs([]) == []
    assert fake.sent == []
    (answer,) = await (await open_source(workspace_id=None)).logs([LogQuery(LogName.TABLES, SPAN)])
    assert answer.problem is not None
