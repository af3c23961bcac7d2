"""Who is writing, for the audit log: the signed-in identity, or "account key".

With Entra ID the SDK already holds a token for the account; asking the credential
for the same scope returns it (cached), and its claims name the user (``upn`` or
``preferred_username``) and their object id (``oid``), or the application (``appid``).
The token is only decoded to read those claims, never checked or logged.
"""

from __future__ import annotations

import base64
import binascii
import inspect
import json
from typing import Any
from urllib.parse import urlparse

from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings


def token_claims(token: str) -> dict[str, Any]:
    """The claims of a JWT (its middle part), {} when it is not one."""
    try:
        payload = token.split(".")[1]
        decoded = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        claims = json.loads(decoded)
    except (IndexError, ValueError, binascii.Error, UnicodeDecodeError):
        return {}
    return claims if isinstance(claims, dict) else {}


def who(claims: dict[str, Any]) -> str:
    """A person-readable identity from token claims."""
    name = next(
        (claims[k] for k in ("upn", "preferred_username", "unique_name", "email") if claims.get(k)),
        None,
    )
    oid = claims.get("oid")
    if name and oid:
        return f"{name} (oid {oid})"
    if name:
        return str(name)
    if claims.get("appid") or claims.get("azp"):
        app = claims.get("appid") or claims.get("azp")
        return f"application {app}" + (f" (oid {oid})" if oid else "")
    if oid:
        return f"oid {oid}"
    return "Entra ID (identity not in the token)"


async def identity(settings: CosmosSettings, credential: Any) -> str:
    if settings.auth is AuthMode.KEY:
        return "account key"
    if settings.auth is AuthMode.CONNECTION_STRING:
        return "account key (connection string)"
    url = urlparse(settings.endpoint)  # the SDK's own scope: scheme and host, no port
    scope = f"{url.scheme or 'https'}://{url.hostname}/.default"
    try:
        result = credential.get_token(scope)
        if inspect.isawaitable(result):
            result = await result
        return who(token_claims(str(result.token)))
    except Exception as exc:  # the audit line still names the auth mode
        return f"Entra ID ({settings.auth.value}; identity unknown: {type(exc).__name__})"
