"""One place builds a session, one place closes it.

Every opener (a workspace, a Cosmos container, the doctor's session over one, telemetry
alone) builds its ``Session`` through ``SessionBuilder``, and what it opened is closed
once, newest first: by ``Session.close`` when the session ends, or by the builder when
a step fails midway (then the failure is what the caller sees).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.compose import (
    open_cosmos_doctor_session,
    open_cosmos_session,
    open_local_session,
    open_telemetry_session,
)
from cosmem_tui.compose.building import SessionBuilder
from cosmem_tui.compose.telemetry import open_telemetry
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.model import FrozenClock
from cosmem_tui.sources.errors import ConnectionFailed, WorkspaceError
from tests.compose.conftest import Probe, ProbeSettings, Tally, cosmos_settings
from tests.sources.monitor.azure_fake import AzureFake, FakeCredential
from tests.test_cli_telemetry import NOW
from tests.test_cli_telemetry import settings as monitor_settings


@pytest.fixture
def closes(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often the workspace file, the simulator and the Cosmos client were closed."""
    from cosmem_tui.sources.cosmos.account import CosmosAccount
    from cosmem_tui.sources.local.workspace_file import WorkspaceFile
    from cosmem_tui.sources.simulated.telemetry import SimulatedTelemetry

    counted: Counter[str] = Counter()

    def counting(name: str, close: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(self: Any) -> Any:
            counted[name] += 1
            return close(self)

        return wrapper

    monkeypatch.setattr(WorkspaceFile, "close", counting("workspace", WorkspaceFile.close))
    monkeypatch.setattr(
        SimulatedTelemetry, "close", counting("simulator", SimulatedTelemetry.close)
    )
    monkeypatch.setattr(CosmosAccount, "close", counting("cosmos client", CosmosAccount.close))
    return counted


def refuse_a_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last step of a workspace opened with --allow-writes fails."""

    def refused(*_args: Any, **_kw: Any) -> None:
        raise WorkspaceError("cannot open the workspace for writing")

    monkeypatch.setattr("cosmem_tui.sources.local.writer.LocalWriter.__init__", refused)


def test_a_workspace_that_fails_midway_closes_what_it_opened_once(
    demo_path: Path, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch, closes: Counter[str]
):
    refuse_a_writer(monkeypatch)
    with pytest.raises(WorkspaceError, match="for writing"):
        open_local_session(SessionOptions(workspace=demo_path, allow_writes=True), clock)
    assert closes == {"workspace": 1, "simulator": 1}


def test_it_closes_them_newest_first_through_the_builder(
    demo_path: Path, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch, tally: Tally
):
    refuse_a_writer(monkeypatch)
    with pytest.raises(WorkspaceError):
        open_local_session(SessionOptions(workspace=demo_path, allow_writes=True), clock)
    assert len(tally.owned) == 2 and tally.closed_once_newest_first(), tally
    assert tally.built == []


async def test_a_cosmos_session_whose_telemetry_fails_closes_what_it_opened_once(
    fake_cosmos: Any, tmp_path: Path, probe: Probe, tally: Tally, closes: Counter[str]
):
    with pytest.raises(ConnectionFailed, match="did not answer"):
        await open_cosmos_session(
            cosmos_settings(fake_cosmos),
            "lab",
            FrozenClock(NOW),
            tmp_path / "schemas",
            telemetry=ProbeSettings(fail_after_owning=True),
        )
    assert closes == {"cosmos client": 1} and probe.signed_out == 1
    assert len(tally.owned) == 2 and tally.closed_once_newest_first(), tally


async def test_the_doctors_cosmos_session_whose_telemetry_fails_closes_what_it_opened_once(
    fake_cosmos: Any, tmp_path: Path, probe: Probe, tally: Tally, closes: Counter[str]
):
    with pytest.raises(ConnectionFailed, match="did not answer"):
        await open_cosmos_doctor_session(
            cosmos_settings(fake_cosmos),
            None,
            FrozenClock(NOW),
            tmp_path / "schemas",
            telemetry=ProbeSettings(fail_after_owning=True),
        )
    assert closes == {"cosmos client": 1} and probe.signed_out == 1
    assert len(tally.owned) == 2 and tally.closed_once_newest_first(), tally


async def test_telemetry_alone_that_fails_midway_closes_what_it_opened_once(
    probe: Probe, tally: Tally
):
    with pytest.raises(ConnectionFailed):
        await open_telemetry_session(ProbeSettings(fail_after_owning=True), FrozenClock(NOW))
    assert probe.signed_out == 1
    assert tally.owned and tally.closed_once_newest_first(), tally


async def test_the_sign_in_made_for_azure_monitor_is_closed_when_opening_fails(
    monkeypatch: pytest.MonkeyPatch,
):
    """A key cannot sign metrics calls, so Azure Monitor signs in on its own; the
    region read that fails after it must not leak that credential (sockets, caches)."""
    built = FakeCredential()
    monkeypatch.setattr("cosmem_tui.sources.cosmos.auth.build_token_credential", lambda *_: built)

    async def unreachable() -> str | None:
        raise ConnectionFailed("cannot reach the account")

    builder = SessionBuilder(FrozenClock(NOW))
    with pytest.raises(ConnectionFailed):
        async with builder.closed_on_failure():
            await open_telemetry(
                monitor_settings(region=None),
                builder,
                credential="an account key",
                account_region=unreachable,
            )
    assert built.closed and builder.closers == []


Opener = Callable[[Any, Path, Probe], Awaitable[Session]]


async def demo(_fake_cosmos: Any, demo_path: Path, _probe: Probe) -> Session:
    options = SessionOptions(workspace=demo_path, allow_writes=True)
    return open_local_session(options, FrozenClock(NOW))


async def cosmos(fake_cosmos: Any, tmp_path: Path, _probe: Probe) -> Session:
    settings = cosmos_settings(fake_cosmos)
    return await open_cosmos_session(
        settings, "lab", FrozenClock(NOW), tmp_path / "schemas", telemetry=ProbeSettings()
    )


async def cosmos_doctor(fake_cosmos: Any, tmp_path: Path, _probe: Probe) -> Session:
    settings = cosmos_settings(fake_cosmos)
    return await open_cosmos_doctor_session(
        settings, None, FrozenClock(NOW), tmp_path / "schemas", telemetry=ProbeSettings()
    )


async def probe_alone(_fake_cosmos: Any, _path: Path, _probe: Probe) -> Session:
    return await open_telemetry_session(ProbeSettings(), FrozenClock(NOW))


async def azure_monitor_alone(_fake_cosmos: Any, _path: Path, _probe: Probe) -> Session:
    return await open_telemetry_session(
        monitor_settings(),
        FrozenClock(NOW),
        transport=AzureFake().transport(),
        credential=FakeCredential(),
    )


OPENERS = [demo, cosmos, cosmos_doctor, probe_alone, azure_monitor_alone]


@pytest.mark.parametrize("opener", OPENERS, ids=lambda o: o.__name__)
async def test_every_opener_builds_through_the_builder_and_closes_each_thing_once(
    opener: Opener,
    fake_cosmos: Any,
    tmp_path: Path,
    demo_path: Path,
    probe: Probe,
    tally: Tally,
    monkeypatch: pytest.MonkeyPatch,
):
    workspace = tmp_path / "w.sqlite"
    workspace.write_bytes(demo_path.read_bytes())  # a copy: this one is opened for writing
    session = await opener(fake_cosmos, workspace if opener is demo else tmp_path, probe)
    assert tally.built == [session]  # made by the builder, not beside it
    # Every closer the session holds is one the builder was given (a Cosmos session's
    # credential too, which it owns first and closes last).
    signed_in = opener in (cosmos, cosmos_doctor)
    assert len(session.closers) == len(tally.owned) + signed_in
    await session.close()
    await session.close()  # closing again closes nothing twice
    assert tally.closed_once_newest_first(), tally
