"""Open a session on a real Cosmos DB container (``--endpoint``).

The Azure SDK is imported here only inside ``open_cosmos_session``: the CLI and the
local workspace never load it. Building the store sends no request; the first
browse call connects, so a wrong endpoint or key shows up as one line in the pane.
The exception is schema detection (no ``--schema``): it reads the container's
properties, and a few items when those are not enough, before the session opens.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.schemas import AUTO, SchemaChoice, choose_schema, run_sync
from cosmem_tui.model import Clock
from cosmem_tui.profiles import get_schema
from cosmem_tui.profiles.generic import GENERIC
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.gateway import Gateway

if TYPE_CHECKING:
    from cosmem_tui.core.session import Session


def open_cosmos_session(
    settings: CosmosSettings,
    schema: str | None,
    clock: Clock,
    user_dir: Path,
    *,
    transport: Any = None,
    notice: Callable[[str], None] | None = None,
) -> Session:
    from cosmem_tui.core.session import Session
    from cosmem_tui.sources.cosmos.store import CosmosStore  # loads azure-cosmos

    gateway = Gateway(budget_ru=settings.ru_budget)
    if notice is not None:  # before any request: detection may need to sign in
        gateway.subscribe_notice(notice)
    requested = schema or AUTO
    if requested in (AUTO, GENERIC):
        # Detection runs on a loop of its own (the session opens synchronously), so the
        # probe gets its own client, closed before the session's client is built.
        probe = CosmosStore.open(
            settings, None, gateway=gateway, schema_dir=user_dir, transport=transport
        )

        async def detect() -> SchemaChoice:
            try:
                return await choose_schema(requested, probe, user_dir)
            finally:
                await probe.close()

        choice = run_sync(detect())
    else:
        choice = SchemaChoice(get_schema(requested, user_dir), "")
    store = CosmosStore.open(
        settings, choice.schema, gateway=gateway, schema_dir=user_dir, transport=transport
    )
    return Session(
        store=store,
        service=BrowseService(store, clock),
        clock=clock,
        is_demo=False,
        schema_reason=choice.reason,
    )
