"""Who writes, for the audit log: read from the token's claims, or the auth mode."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from cosmem_tui.sources.cosmos.identity import identity, token_claims, who
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings


def jwt(claims: dict[str, Any]) -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


@dataclass
class Token:
    token: str


class Credential:
    def __init__(self, token: str) -> None:
        self.token = token
        self.scopes: tuple[str, ...] = ()

    async def get_token(self, *scopes: str) -> Token:
        self.scopes = scopes
        return Token(self.token)


def settings(auth: AuthMode) -> CosmosSettings:
    return CosmosSettings(
        endpoint="https://acct.documents.azure.com:443/",
        database="db",
        container="c",
        auth=auth,
        key="k" if auth in (AuthMode.KEY, AuthMode.CONNECTION_STRING) else None,
    )


def test_claims_name_the_user_and_object_id():
    claims = token_claims(jwt({"upn": "alice@contoso.com", "oid": "1234"}))
    assert who(claims) == "alice@contoso.com (oid 1234)"
    assert who({"preferred_username": "bob@fabrikam.com"}) == "bob@fabrikam.com"
    assert who({"appid": "app-1", "oid": "9"}) == "application app-1 (oid 9)"
    assert token_claims("not a token") == {} and "not in the token" in who({})


async def test_the_signed_in_identity_is_asked_for_the_account_scope():
    credential = Credential(jwt({"upn": "alice@contoso.com", "oid": "1234"}))
    assert await identity(settings(AuthMode.AAD), credential) == "alice@contoso.com (oid 1234)"
    assert credential.scopes == ("https://acct.documents.azure.com/.default",)  # as the SDK


async def test_keys_are_named_as_keys_and_failures_say_so():
    assert await identity(settings(AuthMode.KEY), None) == "account key"
    assert await identity(settings(AuthMode.CONNECTION_STRING), None) == (
        "account key (connection string)"
    )

    class Broken:
        async def get_token(self, *scopes: str) -> Token:
            raise RuntimeError("no sign-in")

    text = await identity(settings(AuthMode.DEVICE_CODE), Broken())
    assert text == "Entra ID (device-code; identity unknown: RuntimeError)"
