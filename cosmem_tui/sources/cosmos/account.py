"""One ``azure.cosmos.aio.CosmosClient`` per account, built once and shared by its containers.

The client is configured so that the console, not the SDK, owns retrying:

* **one SDK attempt per request.** azure-cosmos 4.17 nests two throttle-retry loops
  around a query page, so its ``retry_total`` cannot go below 4 attempts per page under
  a 429 storm (and ``retry_total=0`` means the default, 9). A connection policy whose
  ``RetryOptions`` allow 0 throttle retries — with no ``retry_total`` — sends each
  request once; ``calls.CosmosCalls`` retries after the shared hold-off instead.
* **no connection-level retries** either (``retry_connect`` / ``retry_read`` 0): a dead
  endpoint fails at once and the call's deadline (``asyncio.timeout``) is the real one.
* a response hook that turns every HTTP response into a ledger record (``wire``), and a
  request hook that refuses any write verb not declared as a write (``wire.on_request``);
* ``cosmem/<version>`` as the User-Agent suffix (``sources/agent.py``), so the request
  log can tell the console's traffic from the application's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from azure.cosmos import documents
from azure.cosmos.aio import ContainerProxy, CosmosClient

from cosmem_tui.sources.agent import USER_AGENT_SUFFIX
from cosmem_tui.sources.cosmos import wire
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.request_ledger import RequestLedger


def connection_policy() -> documents.ConnectionPolicy:
    """A policy with no SDK throttle retries (see the module docstring)."""
    policy = documents.ConnectionPolicy()
    retry_options = type(policy.RetryOptions)  # azure.cosmos's RetryOptions (not re-exported)
    policy.RetryOptions = retry_options(max_retry_attempt_count=0)
    return policy


class CosmosAccount:
    def __init__(
        self,
        settings: CosmosSettings,
        ledger: RequestLedger,
        credential: Any,
        *,
        transport: Any = None,
    ) -> None:
        """``credential``: the key string or a token credential; the session owns it."""
        self.settings = settings
        self.ledger = ledger
        options: dict[str, Any] = {}
        if transport is not None:  # tests inject a spying or fault-injecting transport
            options["transport"] = transport
        self.client = CosmosClient(
            settings.endpoint,
            credential=credential,
            connection_policy=connection_policy(),
            retry_connect=0,
            retry_read=0,
            retry_status=0,
            connection_timeout=settings.timeout_s,
            read_timeout=settings.timeout_s,
            raw_response_hook=wire.on_response,
            raw_request_hook=wire.on_request,  # no undeclared write ever leaves
            user_agent_suffix=USER_AGENT_SUFFIX,  # the request log's UserAgent tells it apart
            **options,
        )
        self._entered = False
        self._entering = asyncio.Lock()  # the UI's workers may all start at once

    async def enter(self) -> None:
        """The SDK's own set-up (it reads the account document); later calls return at once."""
        async with self._entering:
            if not self._entered:
                await self.client.__aenter__()
                self._entered = True

    def container(self, database: str, container: str) -> ContainerProxy:
        return self.client.get_database_client(database).get_container_client(container)

    async def close(self) -> None:
        await self.client.close()
