"""Credentials for the three ways into an account: Entra ID, account key, connection string.

Entra ID goes through ``azure-identity``: ``DefaultAzureCredential`` (az login,
environment, managed identity, workload identity…) or, on an SSH box with no
browser, ``DeviceCodeCredential`` whose "open this URL and enter this code" line
goes to the console's notice channel (stderr in the CLI, the status line in the UI).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from datetime import datetime
from typing import Any

from azure.core.credentials import AccessToken

from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings

Notice = Callable[[str], None]
ENV_TENANT_ID = "AZURE_TENANT_ID"


class ThreadedCredential:
    """An async credential over a sync one (azure.identity.aio has no DeviceCodeCredential).

    The sync ``get_token`` blocks while the user types the code on another device, so
    it runs in a worker thread and the console's event loop keeps serving keypresses.
    """

    def __init__(self, credential: Any) -> None:
        self._credential = credential

    async def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        token: AccessToken = await asyncio.to_thread(self._credential.get_token, *scopes, **kwargs)
        return token

    async def close(self) -> None:
        self._credential.close()

    async def __aenter__(self) -> ThreadedCredential:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def device_code_prompt(notice: Notice) -> Callable[[str, str, datetime], None]:
    def prompt(verification_uri: str, user_code: str, expires_on: datetime) -> None:
        notice(
            f"to sign in, open {verification_uri} and enter the code {user_code} "
            f"(valid until {expires_on:%H:%M})"
        )

    return prompt


def build_credential(settings: CosmosSettings, notice: Notice) -> Any:
    """What ``CosmosClient(credential=…)`` takes: the key string or an async token credential."""
    if settings.auth in (AuthMode.KEY, AuthMode.CONNECTION_STRING):
        assert settings.key is not None
        return settings.key
    return build_token_credential(settings.auth, notice)


def build_token_credential(auth: AuthMode, notice: Notice) -> Any:
    """An async Entra ID credential: by device code when asked, else the default chain.

    Azure Monitor takes only tokens, so a session that reads Cosmos with a key still
    signs in this way for metrics and logs.
    """
    if auth is AuthMode.DEVICE_CODE:
        from azure.identity import DeviceCodeCredential

        # The sign-in goes to the directory the user names (docs: set AZURE_TENANT_ID),
        # else to the account's home tenant through the "organizations" endpoint.
        tenant = os.environ.get(ENV_TENANT_ID) or None
        return ThreadedCredential(
            DeviceCodeCredential(tenant_id=tenant, prompt_callback=device_code_prompt(notice))
        )
    from azure.identity.aio import DefaultAzureCredential

    return DefaultAzureCredential()
