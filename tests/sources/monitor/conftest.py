"""Fixtures: the fake Azure, a frozen clock's gateway, and a source opened on them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from cosmem_tui.model import FrozenClock
from cosmem_tui.sources.monitor.clients import RetrySettings
from cosmem_tui.sources.monitor.settings import MonitorSettings, parse_resource_id
from cosmem_tui.sources.monitor.telemetry import MonitorTelemetry, open_monitor
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.sources.monitor.azure_fake import RESOURCE_ID, WORKSPACE, AzureFake, FakeCredential

# Retries as in production but with short backoffs: the tests never sleep for long.
FAST_RETRY = RetrySettings(total=2, backoff_factor=0.01, backoff_max_s=0.05, max_wait_s=3.0)


@pytest.fixture
def fake() -> AzureFake:
    return AzureFake()


@pytest.fixture
def credential() -> FakeCredential:
    return FakeCredential()


@pytest.fixture
def ledger(clock: FrozenClock) -> RequestLedger:
    return RequestLedger(clock=clock)


@pytest.fixture
def settings() -> MonitorSettings:
    return MonitorSettings(
        resource=parse_resource_id(RESOURCE_ID),
        workspace_id=WORKSPACE,
        region="eastus",
        database="memory",
        container="turns",
    )


Opener = Callable[..., Awaitable[MonitorTelemetry]]


@pytest.fixture
async def open_source(
    fake: AzureFake,
    credential: FakeCredential,
    ledger: RequestLedger,
    clock: FrozenClock,
    settings: MonitorSettings,
) -> AsyncIterator[Opener]:
    opened: list[MonitorTelemetry] = []

    async def make(**changes: Any) -> MonitorTelemetry:
        hint = changes.pop("region_hint", None)
        telemetry = await open_monitor(
            replace(settings, **changes),
            ledger=ledger,
            credential=credential,
            clock=clock,
            transport=fake.transport(),
            region_hint=hint,
            retry=FAST_RETRY,
        )
        opened.append(telemetry)
        return telemetry

    yield make
    for telemetry in opened:
        await telemetry.close()
