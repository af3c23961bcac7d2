"""How to reach one Cosmos DB container: endpoint, names, auth mode, and the guest manners.

Plain data with no Azure import. Secrets come only from the environment
(``COSMOS_KEY``, ``COSMOS_CONNECTION_STRING``), never from a command-line argument
that would land in shell history, and never appear in ``repr``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal
from urllib.parse import urlparse

from cosmem_tui.sources.errors import StoreError
from cosmem_tui.sources.request_budget import DEFAULT_RU_BUDGET, check_budget

ENV_ENDPOINT = "COSMOS_ENDPOINT"
ENV_KEY = "COSMOS_KEY"
ENV_CONNECTION_STRING = "COSMOS_CONNECTION_STRING"
ENV_DATABASE = "COSMOS_DATABASE"
ENV_CONTAINER = "COSMOS_CONTAINER"

# Every call (a page, a point read) ends within this many seconds, hold-offs and retries
# after 429s included: then it fails with "did not answer within 30 s".
DEFAULT_TIMEOUT_S = 30.0
# Priority-based execution: once the account is at its provisioned throughput, Low
# requests are throttled before the application's own (High) ones. Harmless where the
# account has the feature off.
Priority = Literal["Low", "High"]
DEFAULT_PRIORITY: Priority = "Low"
PRIORITIES: tuple[Priority, ...] = ("Low", "High")

_SECRET = re.compile(
    r"(?i)(AccountKey|SharedAccessSignature|sig|key|password|secret|token)=([^;&\s]+)"
)


# The secret values this process has read (an account key, a connection string): a
# service's message may echo one without its name (a 400 or 500 quoting the request),
# so each is masked wherever it appears, not only after ``AccountKey=``.
_read_secrets: list[str] = []


def keep_secret(value: str | None) -> None:
    """Mask ``value`` in every message ``redact`` passes from now on."""
    if value and len(value) >= 8 and value not in _read_secrets:
        _read_secrets.append(value)
        _read_secrets.sort(key=len, reverse=True)  # a connection string before its key


def redact(text: str) -> str:
    """``text`` with secret values (``AccountKey=…``, ``SharedAccessSignature=…``, and
    every key or connection string read) masked."""
    # The pattern first: a connection string keeps its endpoint and reads "AccountKey=***".
    text = _SECRET.sub(lambda m: f"{m.group(1)}=***", text)
    for secret in _read_secrets:
        if secret in text:
            text = text.replace(secret, "***")
    return text


class AuthMode(StrEnum):
    AAD = "aad"  # Microsoft Entra ID through DefaultAzureCredential (az login, managed identity…)
    DEVICE_CODE = "device-code"  # Entra ID by device code: SSH boxes with no browser
    KEY = "key"  # the account key from COSMOS_KEY
    CONNECTION_STRING = "connection-string"  # COSMOS_CONNECTION_STRING


def default_auth(has_key: bool, has_connection_string: bool) -> AuthMode:
    """The auth mode when none is named: a key wins over a connection string, and with
    neither it is Entra ID."""
    if has_key:
        return AuthMode.KEY
    if has_connection_string:
        return AuthMode.CONNECTION_STRING
    return AuthMode.AAD


class CosmosConfigError(StoreError):
    """Options that cannot reach a container (missing name, bad URL, no key…)."""

    status = 400


@dataclass(frozen=True)
class CosmosSettings:
    endpoint: str
    database: str
    container: str
    auth: AuthMode
    key: str | None = field(default=None, repr=False)
    ru_budget: float = DEFAULT_RU_BUDGET
    timeout_s: float = DEFAULT_TIMEOUT_S
    priority: Priority = DEFAULT_PRIORITY
    scan_page_size: int = 1000  # rows per page when a listing reads a whole result set
    # Where the key came from, for messages: COSMOS_KEY or COSMOS_CONNECTION_STRING.
    key_source: str = ENV_KEY

    def __post_init__(self) -> None:
        keep_secret(self.key)
        try:
            check_budget(self.ru_budget)
        except ValueError as exc:
            raise CosmosConfigError(f"--ru-budget: {exc}") from None
        if not self.timeout_s > 0:
            raise CosmosConfigError(
                f"the timeout must be a positive number of seconds, not {self.timeout_s:g}"
            )
        if self.priority not in PRIORITIES:
            raise CosmosConfigError(f"priority must be Low or High, not {self.priority!r}")

    @property
    def account(self) -> str:
        """The account's host, for labels and messages."""
        return urlparse(self.endpoint).netloc or self.endpoint

    def describe(self) -> str:
        return f"cosmos {self.endpoint.rstrip('/')} {self.database}/{self.container}"


def parse_connection_string(text: str) -> tuple[str, str]:
    """(endpoint, key) from ``AccountEndpoint=…;AccountKey=…;``."""
    parts: dict[str, str] = {}
    for piece in text.strip().split(";"):
        if not piece.strip():
            continue
        name, sep, value = piece.partition("=")
        if not sep:
            raise CosmosConfigError(f"{ENV_CONNECTION_STRING} is not a connection string")
        parts[name.strip().lower()] = value.strip()
    endpoint, key = parts.get("accountendpoint"), parts.get("accountkey")
    if not endpoint or not key:
        raise CosmosConfigError(f"{ENV_CONNECTION_STRING} needs AccountEndpoint=… and AccountKey=…")
    return endpoint, key


def check_endpoint(endpoint: str) -> str:
    parsed = urlparse(endpoint)
    if parsed.scheme not in ("https", "http") or not parsed.hostname or "=" in endpoint:
        if "accountkey=" in endpoint.lower() or "accountendpoint=" in endpoint.lower():
            # A pasted connection string: never echo it, it carries the account key.
            raise CosmosConfigError(
                "--endpoint / COSMOS_ENDPOINT holds a connection string (not shown: it "
                "contains the account key); put it in COSMOS_CONNECTION_STRING instead, "
                "or give only the URL, e.g. https://ACCOUNT.documents.azure.com:443/"
            )
        raise CosmosConfigError(
            "--endpoint must be a URL like https://ACCOUNT.documents.azure.com:443/, "
            f"not {redact(endpoint)!r}"
        )
    return endpoint


def settings_from_options(
    *,
    endpoint: str | None,
    database: str | None,
    container: str | None,
    auth: str | None,
    env: Mapping[str, str] | None = None,
    **tuning: object,
) -> CosmosSettings:
    """Combine command-line options with the environment; raise one readable error."""
    env = os.environ if env is None else env
    endpoint = endpoint or env.get(ENV_ENDPOINT) or None
    database = database or env.get(ENV_DATABASE) or None
    container = container or env.get(ENV_CONTAINER) or None
    connection_string = env.get(ENV_CONNECTION_STRING) or None
    keep_secret(connection_string)
    keep_secret(env.get(ENV_KEY))
    if auth is None:
        auth = default_auth(bool(env.get(ENV_KEY)), bool(connection_string))
    try:
        mode = AuthMode(auth)
    except ValueError:
        allowed = ", ".join(m.value for m in AuthMode)
        raise CosmosConfigError(f"--auth must be one of {allowed}, not {auth!r}") from None
    key: str | None = None
    key_source = ENV_KEY
    if mode is AuthMode.CONNECTION_STRING:
        key_source = ENV_CONNECTION_STRING
        if not connection_string:
            raise CosmosConfigError(
                f"--auth connection-string reads {ENV_CONNECTION_STRING}: set it"
            )
        string_endpoint, key = parse_connection_string(connection_string)
        keep_secret(key)
        if endpoint and endpoint.rstrip("/") != string_endpoint.rstrip("/"):
            raise CosmosConfigError(
                f"--endpoint {redact(endpoint)} differs from the AccountEndpoint in "
                f"{ENV_CONNECTION_STRING}"
            )
        endpoint = string_endpoint
    elif mode is AuthMode.KEY:
        key = env.get(ENV_KEY) or None
        if not key:
            raise CosmosConfigError(
                f"--auth key reads the account key from {ENV_KEY} (never from the command "
                "line): set it"
            )
    if not endpoint:
        raise CosmosConfigError(f"name the account: --endpoint URL or {ENV_ENDPOINT}")
    if not database:
        raise CosmosConfigError(f"name the database: --database NAME or {ENV_DATABASE}")
    if not container:
        raise CosmosConfigError(f"name the container: --container NAME or {ENV_CONTAINER}")
    return CosmosSettings(
        endpoint=check_endpoint(endpoint),
        database=database,
        container=container,
        auth=mode,
        key=key,
        key_source=key_source,
        **tuning,  # type: ignore[arg-type]
    )
