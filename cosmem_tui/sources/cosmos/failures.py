"""Turn SDK and network exceptions into the console's one-line, typed store errors.

Users meet these: a wrong endpoint or DNS name, a timeout, a bad key (401), a
missing data-plane role (403), a database or container that is not there (404),
throttling that outlasted the retries (429, told by its cause: only an RU budget is
helped by more RU/s), partitions that changed under a saved position (410), an
account with partition merge on that refuses the client, an unavailable service (503).
"""

from __future__ import annotations

import binascii
import re
import socket
from collections.abc import Iterator
from urllib.parse import urlparse

from azure.core.exceptions import (
    ClientAuthenticationError,
    ServiceRequestError,
    ServiceRequestTimeoutError,
    ServiceResponseError,
    ServiceResponseTimeoutError,
)
from azure.cosmos import __version__ as SDK_VERSION
from azure.cosmos.exceptions import CosmosClientTimeoutError, CosmosHttpResponseError

from cosmem_tui.model.substatus import (
    GONE,
    PARTITION_KEY_RANGE_GONE,
    sub_status_name,
    throttle_cause,
)
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings, redact
from cosmem_tui.sources.cosmos.wire import SUB_STATUS, retry_after_ms
from cosmem_tui.sources.errors import (
    BadRequest,
    Conflict,
    ConnectionFailed,
    Forbidden,
    NotFound,
    RequestTimedOut,
    StoreError,
    Throttled,
    Unauthorized,
    Unavailable,
)

READER_ROLE = "Cosmos DB Built-in Data Reader"
_LIMIT = 200
# What the service's 403 says the principal lacked ("… to perform action [X] on resource …").
_RBAC_ACTION = re.compile(r"perform action \[([^\]]+)\]")
# How resolvers word a name that does not exist, when no gaierror is reachable in the chain.
_NO_SUCH_NAME = (
    "name or service not known",
    "nodename nor servname",
    "getaddrinfo failed",
    "no address associated",
    "temporary failure in name resolution",
)
WAIT_FIX = "--timeout SECONDS waits longer"  # the fix for a call that ran out of time
_REACH_FIX = "check the endpoint's host and port, and any proxy, VPN or firewall on the way"
# Partition merge: with it on, the service blocks SDKs that do not declare merge support
# (learn "Merge partitions", SDK requirements). How it answers is not documented; the
# one report found (azure-sdk-for-go#20709) is a 400 BadRequest on every request, fixed
# by sending the capability header. So a 400/403 whose message speaks of a merge.
_MERGE = re.compile(r"\bmerg(e|ed|es|ing)\b", re.IGNORECASE)
_MERGE_CONTEXT = re.compile(r"partition|sdk|client|capabilit|version", re.IGNORECASE)
CAPABILITIES_HEADER = "x-ms-cosmos-sdk-supportedcapabilities"
# azure-cosmos has "merge support" since 4.14.2 (its changelog) and 4.17.1 sends the
# header with the PartitionMerge bit on every request (``_base.GetHeaders``).
_QUOTE = 90  # the service's words kept in the message, as evidence


def first_line(text: object) -> str:
    """The service's message without its "Code:/Message:" trailer, on one short line."""
    lines = [line.strip() for line in redact(str(text)).splitlines() if line.strip()]
    line = lines[0] if lines else ""
    if line.startswith("(") and ") " in line:  # "(BadRequest) Expected …"
        line = line.split(") ", 1)[1]
    if len(line) > _LIMIT:
        line = line[: _LIMIT - 1] + "…"
    return line


def _sign_in_hint(settings: CosmosSettings) -> str:
    if settings.auth in (AuthMode.KEY, AuthMode.CONNECTION_STRING):
        return (
            f"check the account key in {settings.key_source} (a read-only or primary key of "
            "this account)"
        )
    return "sign in again (az login, or --auth device-code on a machine without a browser)"


def _forbidden(exc: CosmosHttpResponseError, settings: CosmosSettings) -> Forbidden:
    text = first_line(exc.message)
    lowered = text.lower()
    if "firewall" in lowered or "ip address" in lowered:
        return Forbidden(f"403 forbidden: the account's firewall blocks this machine ({text})")
    if "local authorization is disabled" in lowered or "disablelocalauth" in lowered:
        return Forbidden(
            f"403 forbidden: key authentication is disabled on {settings.account}; "
            "use --auth aad with a data-plane role"
        )
    action = _RBAC_ACTION.search(str(exc.message))
    needs = f" (it needs {action.group(1)})" if action else ""
    return Forbidden(
        f"403 forbidden: your identity has no data-plane role on {settings.account}{needs}; "
        "assign it "
        f"the '{READER_ROLE}' role (az cosmosdb sql role assignment create … "
        "--role-definition-id 00000000-0000-0000-0000-000000000001)"
    )


def sub_status_of(exc: CosmosHttpResponseError) -> int | None:
    """The answer's x-ms-substatus, from the exception or its headers."""
    code = getattr(exc, "sub_status", None)
    if isinstance(code, int):
        return code
    headers = getattr(exc, "headers", None) or {}
    raw = headers.get(SUB_STATUS)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def is_range_gone(exc: BaseException) -> bool:
    """A 410/1002: the partition key range a request named is gone (a split or merge)."""
    return (
        isinstance(exc, CosmosHttpResponseError)
        and exc.status_code == GONE
        and sub_status_of(exc) == PARTITION_KEY_RANGE_GONE
    )


def is_merge_lockout(exc: CosmosHttpResponseError) -> bool:
    """The account has partition merge on and refuses this client (see ``_MERGE``)."""
    if exc.status_code not in (400, 403):
        return False
    text = str(exc.message)
    return bool(_MERGE.search(text) and _MERGE_CONTEXT.search(text))


def throttled(exc: CosmosHttpResponseError, account: str) -> Throttled:
    """A 429 told by its cause: what throttled the console, and that cause's fix."""
    wait = retry_after_ms(exc.headers)
    code = sub_status_of(exc)
    cause = throttle_cause(code)
    after = f", retry after {wait:,.0f} ms" if wait is not None else ""
    return Throttled(
        f"{cause.describe()}: {account} throttled the console{after}; {cause.fix}",
        retry_after_ms=wait,
        sub_status=code,
    )


def _merge_lockout(exc: CosmosHttpResponseError, account: str) -> StoreError:
    # Not a BadRequest: that one means "this query is not served here" to its callers.
    status = exc.status_code or 400
    said = first_line(exc.message)
    if len(said) > _QUOTE:
        said = said[: _QUOTE - 1] + "…"
    return StoreError(
        f"{status} from {account}: partition merge is on and the account refuses this "
        f'client ("{said}"); azure-cosmos {SDK_VERSION} declares merge support: check that '
        f"no proxy drops the {CAPABILITIES_HEADER} header, or turn merge off (az cosmosdb "
        f"update -g GROUP -n {account} --enable-partition-merge false; 15-20 min)",
        status=status,
    )


def _gone(exc: CosmosHttpResponseError, account: str) -> StoreError:
    name = sub_status_name(GONE, sub_status_of(exc))
    why = f" ({name})" if name else ""
    return StoreError(
        f"410 gone{why}: {account}'s partitions changed while the console read them "
        "(a split or a merge); r reads them again",
        status=GONE,
    )


def from_response(
    exc: CosmosHttpResponseError, settings: CosmosSettings, *, not_found: str | None
) -> StoreError:
    status = exc.status_code or 0
    account = settings.account
    if is_merge_lockout(exc):
        return _merge_lockout(exc, account)
    if status == 401:
        return Unauthorized(
            f"401 unauthorized: {account} rejected the request; {_sign_in_hint(settings)}"
        )
    if status == 403:
        return _forbidden(exc, settings)
    if status == 404:
        return NotFound(not_found or f"404 not found: {first_line(exc.message)}")
    if status == 429:
        return throttled(exc, account)
    if status == GONE:
        return _gone(exc, account)
    if status == 503:
        return Unavailable(
            f"503 service unavailable: {account} cannot serve the request right now; try again"
        )
    if status == 408:
        return RequestTimedOut(f"408 request timeout: {account} did not finish the request")
    if status == 412:
        return Conflict(
            "412 precondition failed: the item changed after it was read; nothing was written"
        )
    if status == 400:
        return BadRequest(f"400 bad request: {first_line(exc.message)}")
    return StoreError(f"{status} from {account}: {first_line(exc.message)}", status=status)


def translate(
    exc: BaseException, settings: CosmosSettings, *, not_found: str | None = None
) -> StoreError | None:
    """The store error for ``exc``, or None when it is a bug that deserves its traceback."""
    endpoint = settings.endpoint
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, CosmosClientTimeoutError | ServiceRequestTimeoutError):
        return RequestTimedOut(
            f"{endpoint} did not answer within {settings.timeout_s:g} s; {WAIT_FIX}"
        )
    if isinstance(exc, ServiceResponseTimeoutError):
        return RequestTimedOut(
            f"{endpoint} stopped answering (timeout {settings.timeout_s:g} s); {WAIT_FIX}"
        )
    if isinstance(exc, CosmosHttpResponseError):
        return from_response(exc, settings, not_found=not_found)
    if isinstance(exc, ClientAuthenticationError):
        return Unauthorized(
            f"Microsoft Entra sign-in failed ({first_line(exc.message)}); run 'az login' "
            "('az login --use-device-code' without a browser), use --auth device-code, "
            "or --auth key with COSMOS_KEY"
        )
    if isinstance(exc, ServiceRequestError):
        if _unresolved(exc):
            host = urlparse(endpoint).hostname or endpoint
            return ConnectionFailed(
                f"cannot reach {endpoint}: the name {host} does not resolve; check the account "
                "name in the endpoint (https://ACCOUNT.documents.azure.com:443/) and your DNS "
                "or VPN"
            )
        return ConnectionFailed(f"cannot reach {endpoint}: {first_line(exc.message)}; {_REACH_FIX}")
    if isinstance(exc, ServiceResponseError):
        return ConnectionFailed(
            f"the connection to {endpoint} broke: {first_line(exc.message)}; {_REACH_FIX}"
        )
    if isinstance(exc, binascii.Error) and settings.auth is not AuthMode.AAD:
        return Unauthorized(
            f"the account key in {settings.key_source} is not valid base64: it must be "
            "the account's primary or read-only key"
        )
    if isinstance(exc, TimeoutError):
        return RequestTimedOut(
            f"{endpoint} did not answer within {settings.timeout_s:g} s; {WAIT_FIX}"
        )
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it wraps: azure-core's ``inner_exception``, causes and contexts."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        item = todo.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        inner = getattr(item, "inner_exception", None)
        os_error = getattr(item, "os_error", None)  # aiohttp's connector errors
        todo.extend(
            e
            for e in (inner, os_error, item.__cause__, item.__context__)
            if isinstance(e, BaseException)
        )


def _unresolved(exc: BaseException) -> bool:
    """A DNS failure: the host name has no address (not a refused or broken connection)."""
    for item in _chain(exc):
        if isinstance(item, socket.gaierror):
            return True
    lowered = str(getattr(exc, "message", exc)).lower()
    return any(words in lowered for words in _NO_SUCH_NAME)
