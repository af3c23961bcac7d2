"""Shared fixtures: a frozen clock, isolated user dirs, and one demo workspace per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosmem_tui.core.demo.generator import build_demo_workspace
from cosmem_tui.core.demo.manifest import DemoManifest
from cosmem_tui.model import FrozenClock
from tests.fake_cosmos.fixtures import fake_cosmos  # noqa: F401  (the in-process fake gateway)
from tests.kusto.checker import kusto  # noqa: F401  (Microsoft's KQL parser)
from tests.peer.containers import containers, open_store  # noqa: F401  (on the peer)
from tests.peer.fixtures import cosmos_peer, fault_proxy  # noqa: F401  (the Cosmos peer)

# 2026-11-30T00:00:00Z: every demo workspace in the tests is anchored here and every
# frozen clock starts here, so ages, countdowns and snapshots never drift.
ANCHOR = 1_795_996_800


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Never touch the real ~/.local/share, ~/.config or ~/.cache from a test (a name
    cache left by one test would show up as "cached" in another's listing)."""
    root = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / "cache"))
    return root


@pytest.fixture(autouse=True)
def no_account_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's COSMOS_* variables must not point a test at their account."""
    for name in (
        "COSMOS_ENDPOINT",
        "COSMOS_KEY",
        "COSMOS_CONNECTION_STRING",
        "COSMOS_DATABASE",
        "COSMOS_CONTAINER",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(ANCHOR)


@pytest.fixture
def frozen_system_time(monkeypatch: pytest.MonkeyPatch, clock: FrozenClock) -> FrozenClock:
    """Headless commands read the system clock: pin it to the demo's anchor."""
    monkeypatch.setattr("cosmem_tui.model.clock.time.time", clock.now)
    return clock


@pytest.fixture(scope="session")
def demo_workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, DemoManifest]:
    """The full demo workspace, built once (read-only for every test that uses it)."""
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    manifest = build_demo_workspace(path, ANCHOR)
    return path, manifest


@pytest.fixture
def demo_path(demo_workspace: tuple[Path, DemoManifest]) -> Path:
    return demo_workspace[0]


@pytest.fixture
def manifest(demo_workspace: tuple[Path, DemoManifest]) -> DemoManifest:
    return demo_workspace[1]
