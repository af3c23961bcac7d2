"""``LifecycleService`` is built once, by compose, and reached as ``session.lifecycle``:
the CLI, the lifecycle view and browse use that one (it keeps each report a while, so a
second instance would count again what the first has)."""

from __future__ import annotations

import argparse
import io
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.cli.container import run_ttl
from cosmem_tui.compose import open_local_session
from cosmem_tui.core.exit_status import EXIT_OK
from cosmem_tui.core.lifecycle import LifecycleService
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock, Key
from cosmem_tui.model.lifecycle import TtlScope


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[LifecycleService]:
    """Every ``LifecycleService`` made from now on."""
    made: list[LifecycleService] = []
    init = LifecycleService.__init__

    def counted(self: LifecycleService, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(LifecycleService, "__init__", counted)
    return made


async def test_one_per_session_and_the_cli_uses_it(
    demo_path: Path, clock: FrozenClock, built: list[LifecycleService], manifest: Any
):
    session = open_local_session(SessionOptions(workspace=demo_path), clock)
    try:
        assert built == [session.lifecycle] and session.lifecycle is session.lifecycle
        assert session.lifecycle.store is session.store
        assert session.lifecycle.browse is session.browse
        tenant = str(manifest.hot_tenant)
        args = argparse.Namespace(names=[tenant], format="json")
        assert await run_ttl(session, args, io.StringIO()) == EXIT_OK
        assert built == [session.lifecycle]
        # The CLI's report is the session's: kept there, so the view would not count again.
        scope = TtlScope.of_tenant(Key.of(manifest.hot_tenant))
        assert session.lifecycle.reusable(scope, lists=False) is not None
    finally:
        await session.close()


def test_each_session_has_its_own(
    demo_path: Path, clock: FrozenClock, built: list[LifecycleService]
):
    one = open_local_session(SessionOptions(workspace=demo_path), clock)
    other = open_local_session(SessionOptions(workspace=demo_path), clock)
    import asyncio

    asyncio.run(one.close())
    asyncio.run(other.close())
    assert built == [one.lifecycle, other.lifecycle] and one.lifecycle is not other.lifecycle
