"""A second telemetry backend is its settings class and one registry line: compose opens
it beside a container (against the fake Cosmos server) and alone, as it opens Azure
Monitor, without a line of compose changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.compose import open_session, open_telemetry_session
from cosmem_tui.core.session import NO_MEMORY_STORE, NoMemoryStore, SessionOptions
from cosmem_tui.core.throughput import Container
from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import Window
from tests.compose.conftest import Probe, ProbeSettings, cosmos_settings
from tests.test_cli_telemetry import NOW


async def test_a_registered_backend_opens_beside_a_cosmos_container(fake_cosmos: Any, probe: Probe):
    settings = cosmos_settings(fake_cosmos)
    options = SessionOptions(cosmos=settings, schema="lab", telemetry=ProbeSettings())
    session = await open_session(options, FrozenClock(NOW))
    try:
        (source,) = probe.opened
        assert session.telemetry is not None and session.telemetry.telemetry is source
        # What the session lent it: its ledger, its one credential (the key here), and
        # the account's region, read once through the container's own client.
        assert source.lent.ledger is session.ledger
        assert source.lent.credential == fake_cosmos.key
        assert source.region is not None
        assert session.hot_keys is not None and session.throughput is not None
        # Filtered to the container being read, whose key depth one read found.
        assert session.hot_keys.where == Container("db", "memory", key_levels=2)
        report = await session.throughput.report(Window.M15)
        assert report.source.label == "probe"
        assert session.notes == ["probe: opened"]
        assert session.has_store and session.advisor is not None
    finally:
        await session.close()
    assert source.closed == 1 and probe.signed_out == 1


async def test_a_registered_backend_opens_alone(probe: Probe):
    session = await open_telemetry_session(ProbeSettings(), FrozenClock(NOW))
    try:
        assert session.telemetry is not None
        assert session.telemetry.telemetry is probe.opened[0]
        assert session.hot_keys is not None
        assert session.hot_keys.where == Container("db", "memory")
        # No container: the item services say so in one line, the advisor is absent.
        assert not session.has_store and session.advisor is None
        with pytest.raises(NoMemoryStore, match="reads telemetry only") as refused:
            _ = session.browse
        assert refused.value.message == NO_MEMORY_STORE
        with pytest.raises(NoMemoryStore):
            _ = session.lifecycle
    finally:
        await session.close()


async def test_settings_no_backend_opens_are_refused_by_name(fake_cosmos: Any):
    class Unregistered:
        database = container = None

    options = SessionOptions(cosmos=cosmos_settings(fake_cosmos), telemetry=Unregistered())
    with pytest.raises(TypeError, match="no telemetry backend opens Unregistered"):
        await open_session(options, FrozenClock(NOW))


async def test_a_workspace_takes_no_telemetry_settings(demo_path: Path, probe: Probe):
    """It has its simulated workload; telemetry settings go with a Cosmos container."""
    options = SessionOptions(workspace=demo_path, telemetry=ProbeSettings())
    with pytest.raises(ValueError, match=r"go with a Cosmos container \(--endpoint\)"):
        await open_session(options, FrozenClock(NOW))
    assert probe.opened == []


def test_the_command_line_names_one_backend_through_the_registry(probe: Probe):
    """What the CLI resolves: each backend's own options over its own variables."""
    from cosmem_tui.sources.monitor.settings import MonitorSettings
    from cosmem_tui.sources.telemetry import TelemetryConfigError
    from cosmem_tui.sources.telemetry_backends import resolve_telemetry
    from tests.sources.monitor.azure_fake import RESOURCE_ID

    assert resolve_telemetry({}, {}) is None
    assert resolve_telemetry({"probe_container": "turns"}, {}) == ProbeSettings(container="turns")
    azure = resolve_telemetry({"resource_id": RESOURCE_ID}, {})
    assert isinstance(azure, MonitorSettings) and azure.resource_id == RESOURCE_ID
    with pytest.raises(TelemetryConfigError, match="Azure Monitor and the probe given"):
        resolve_telemetry({"resource_id": RESOURCE_ID}, {"PROBE_CONTAINER": "turns"})
