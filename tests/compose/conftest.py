"""A second telemetry backend, registered by the tests only, and a tally of what the
``SessionBuilder`` opened, closed and built.

``ProbeSettings`` / ``open_probe`` are what a new backend adds (a settings class and an
opener) and nothing else: compose must open it as it opens Azure Monitor. The probe's
opener records what the session lent it and ``own``s a sign-in of its own, as Azure
Monitor's does when the session's credential is a key; told to, it fails right after,
so a session fails midway with something of the backend's open.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from cosmem_tui.compose.building import SessionBuilder
from cosmem_tui.core.session import Session
from cosmem_tui.model.telemetry import TelemetryAbout
from cosmem_tui.sources import telemetry_backends
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.errors import ConnectionFailed
from cosmem_tui.sources.telemetry import Flag, OpenedTelemetry, TelemetryOpening
from cosmem_tui.sources.telemetry_backends import TelemetryBackend
from tests.core.scripted_telemetry import ScriptedTelemetry


@dataclass(frozen=True)
class ProbeSettings:
    database: str | None = "db"
    container: str | None = "memory"
    fail_after_owning: bool = False  # the backend's service is down once it signed in


PROBE_FLAGS = (Flag("--probe-container", "probe_container", "PROBE_CONTAINER", "NAME", "…"),)


def resolve_probe(
    flags: Mapping[str, str | None], env: Mapping[str, str] | None
) -> ProbeSettings | None:
    named = flags.get("probe_container") or (env or {}).get("PROBE_CONTAINER")
    return ProbeSettings(container=named) if named else None


class ProbeTelemetry(ScriptedTelemetry):
    def __init__(self, lent: TelemetryOpening, region: str | None) -> None:
        super().__init__()
        self._ledger = lent.ledger  # the session's: its calls would be recorded there
        self.lent = lent
        self.region = region
        self.closed = 0

    @property
    def about(self) -> TelemetryAbout:
        return TelemetryAbout(label="probe", simulated=False)

    async def close(self) -> None:
        self.closed += 1


@dataclass
class Probe:
    """What the probe backend was asked to do."""

    opened: list[ProbeTelemetry] = field(default_factory=list)
    signed_out: int = 0  # how often its own sign-in was closed

    async def open(self, settings: ProbeSettings, lent: TelemetryOpening) -> OpenedTelemetry:
        region = await lent.account_region() if lent.account_region is not None else None

        async def sign_out() -> None:
            self.signed_out += 1

        lent.own(sign_out)
        if settings.fail_after_owning:
            raise ConnectionFailed("the probe's service did not answer")
        source = ProbeTelemetry(lent, region)
        self.opened.append(source)
        return OpenedTelemetry(source, "simulated", "the probe", notes=("probe: opened",))


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> Probe:
    """The probe backend, registered the way a backend's one registry line does."""
    found = Probe()
    line = TelemetryBackend(ProbeSettings, found.open, "the probe", PROBE_FLAGS, resolve_probe)
    monkeypatch.setattr(telemetry_backends, "BACKENDS", (*telemetry_backends.BACKENDS, line))
    return found


@dataclass
class Tally:
    owned: list[str] = field(default_factory=list)  # every closer, in the order owned
    closed: list[str] = field(default_factory=list)  # in the order run
    built: list[Session] = field(default_factory=list)

    def closed_once_newest_first(self) -> bool:
        return bool(self.owned) and self.closed == self.owned[::-1]


@pytest.fixture
def tally(monkeypatch: pytest.MonkeyPatch) -> Tally:
    """Every closer a ``SessionBuilder`` owns, counted when it runs, and every session
    it builds."""
    found = Tally()
    own = SessionBuilder.own
    build = SessionBuilder.session

    def counted_own(builder: SessionBuilder, close: Callable[[], Awaitable[None]]) -> None:
        name = f"{len(found.owned)}: {getattr(close, '__qualname__', repr(close))}"
        found.owned.append(name)

        async def counted() -> None:
            found.closed.append(name)
            await close()

        own(builder, counted)

    def counted_build(builder: SessionBuilder, **parts: Any) -> Session:
        session = build(builder, **parts)
        found.built.append(session)
        return session

    monkeypatch.setattr(SessionBuilder, "own", counted_own)
    monkeypatch.setattr(SessionBuilder, "session", counted_build)
    return found


def cosmos_settings(fake_cosmos: Any) -> CosmosSettings:
    """The fake Cosmos server's container ``db/memory`` (created here), read with its key."""
    fake_cosmos.create_container("db", "memory", partition_key=["/tenantId", "/threadId"])
    return CosmosSettings(
        endpoint=fake_cosmos.endpoint,
        database="db",
        container="memory",
        auth=AuthMode.KEY,
        key=fake_cosmos.key,
    )
