"""Opening Azure Monitor beside a container: what was built for it is closed when a later
step fails, never left open (a credential holds sockets and token caches)."""

from __future__ import annotations

from typing import Any

import pytest

from cosmem_tui import compose
from cosmem_tui.model import FrozenClock
from cosmem_tui.sources.errors import ConnectionFailed
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.test_cli_telemetry import NOW
from tests.test_cli_telemetry import settings as monitor_settings


class SilentStore:
    """A store whose account cannot be read (the write region is asked first)."""

    async def account_region(self) -> str | None:
        raise ConnectionFailed("cannot reach the account")


async def test_the_credential_built_for_azure_monitor_is_closed_when_opening_fails(monkeypatch):
    closed: list[str] = []

    def built(credential: Any, ledger: RequestLedger, closers: list[Any]) -> Any:
        async def close() -> None:
            closed.append("entra")

        closers.append(close)  # as _monitor_credential does for a credential it builds
        return object()

    monkeypatch.setattr(compose, "_monitor_credential", built)
    with pytest.raises(ConnectionFailed):
        await compose._monitor_for_cosmos(
            monitor_settings(region=None),
            None,  # type: ignore[arg-type]  (not reached)
            SilentStore(),
            RequestLedger(),
            None,
            FrozenClock(NOW),
            None,
        )
    assert closed == ["entra"]
