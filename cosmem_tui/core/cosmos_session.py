"""Open a session on a real Cosmos DB container (``--endpoint``).

The Azure SDK is imported only when this module is, which ``core.session`` does only
when an endpoint is given: the local workspace never loads it. One session holds one
credential and one client: schema detection reads through the same account the
session then browses with (a device-code sign-in happens once).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.core.schema_choice import AUTO, SchemaChoice, choose_schema
from cosmem_tui.model import Clock
from cosmem_tui.schemas import get_schema
from cosmem_tui.schemas.generic import GENERIC
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.gateway import Gateway

if TYPE_CHECKING:
    from cosmem_tui.core.session import Session


async def close_credential(credential: Any) -> None:
    """Close a token credential (sync or async); a key string needs nothing."""
    close = getattr(credential, "close", None)
    if close is not None:
        result = close()
        if inspect.isawaitable(result):
            await result


async def open_cosmos_session(
    settings: CosmosSettings,
    schema: str | None,
    clock: Clock,
    user_dir: Path,
    *,
    cache_root: Path | None = None,
    transport: Any = None,
    credential: Any = None,
    notice: Callable[[str], None] | None = None,
) -> Session:
    """Connect, choose the schema (detecting it unless named) and return the session.

    ``credential``: an embedding application's (or a test's) own; the session then does
    not close it. Otherwise one is built from the settings and the session owns it.
    """
    from cosmem_tui.core.session import Session

    # The SDK loads here, not when this module is imported: the CLI's parser and the
    # local workspace never pay for it.
    from cosmem_tui.sources.cosmos.account import CosmosAccount
    from cosmem_tui.sources.cosmos.auth import build_credential
    from cosmem_tui.sources.cosmos.store import CosmosStore

    gateway = Gateway(budget_ru=settings.ru_budget)
    if notice is not None:  # before any request: detection may need to sign in
        gateway.subscribe_notice(notice)
    owned = credential is None
    if credential is None:
        credential = build_credential(settings, gateway.notice)
    account = CosmosAccount(settings, gateway, credential, transport=transport)
    probe = CosmosStore(account, None, schema_dir=user_dir)
    requested = schema or AUTO
    try:
        if requested in (AUTO, GENERIC):
            with gateway.caused_by("open: detect the schema"):
                choice = await choose_schema(requested, probe, user_dir)
        else:
            choice = SchemaChoice(get_schema(requested, user_dir), "")
    except BaseException:
        await account.close()
        if owned:
            await close_credential(credential)
        raise
    store = probe.with_schema(choice.schema)

    async def close() -> None:
        try:
            await store.close()
        finally:
            if owned:
                await close_credential(credential)

    return Session(
        store=store,
        service=BrowseService(store, clock, KeyDirectory(store, clock, cache_root)),
        clock=clock,
        is_demo=False,
        schema_reason=choice.reason,
        closer=close,
    )
