"""One ``azure.cosmos.aio.CosmosClient`` per account, built once and shared by its containers.

The client is configured as a careful guest: few, explicit 429 retries (so throttling
is reported, not waited out for minutes), bounded timeouts, and a response hook that
feeds every wire response to the Gateway (see ``wire``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from azure.cosmos.aio import ContainerProxy, CosmosClient

from cosmem_tui import __version__
from cosmem_tui.model import Scope
from cosmem_tui.sources.cosmos import wire
from cosmem_tui.sources.cosmos.auth import build_credential
from cosmem_tui.sources.cosmos.calls import call
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.gateway import Gateway


class CosmosAccount:
    def __init__(
        self,
        settings: CosmosSettings,
        gateway: Gateway,
        *,
        transport: Any = None,
        credential: Any = None,
    ) -> None:
        self.settings = settings
        self.gateway = gateway
        # ``credential``: an embedding application's own token credential (tests use one).
        self._credential = credential or build_credential(settings, gateway.notice)
        options: dict[str, Any] = {}
        if transport is not None:  # tests inject a spying or fault-injecting transport
            options["transport"] = transport
        self.client = CosmosClient(
            settings.endpoint,
            credential=self._credential,
            retry_total=settings.retry_total,
            retry_backoff_max=settings.retry_backoff_max_s,
            # One request, retries included, ends within timeout_s (then: RequestTimedOut).
            timeout=settings.timeout_s,
            connection_timeout=settings.timeout_s,
            read_timeout=settings.timeout_s,
            # Connection-level retries (refused, reset) get the same small budget.
            retry_connect=settings.retry_total,
            retry_read=settings.retry_total,
            raw_response_hook=wire.on_response,
            user_agent_suffix=f"cosmem/{__version__}",
            **options,
        )
        self._connected = False
        self._connecting = asyncio.Lock()  # the UI's workers may all start at once

    async def connect(self) -> None:
        """Read the account once (the SDK's own setup); later calls return at once."""
        async with self._connecting:
            if self._connected:
                return
            async with call(
                self.gateway, self.settings, "connect", Scope.METADATA, self.settings.account
            ):
                await self.client.__aenter__()
            self._connected = True

    def container(self, database: str, container: str) -> ContainerProxy:
        return self.client.get_database_client(database).get_container_client(container)

    async def close(self) -> None:
        try:
            await self.client.close()
        finally:
            close = getattr(self._credential, "close", None)
            if close is not None:
                await close()
