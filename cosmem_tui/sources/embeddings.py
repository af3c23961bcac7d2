"""Key text made into a query vector by an Azure OpenAI embeddings deployment.

``POST {endpoint}/openai/deployments/{deployment}/embeddings?api-version=…`` with
``{"input": text}``, signed with a Microsoft Entra ID bearer token for
``https://cognitiveservices.azure.com/.default`` from the session's azure-identity
credential (no API key is ever read). One attempt per call, no retry: a probe that
cannot embed says so in one line and the user decides. Every attempt is one ledger
record (kind and scope ``embeddings``, unit ``call``: it costs tokens, not request
units, so it never counts against the RU budget), with the tokens the service says it
used in the record's target. The text itself never reaches the ledger.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping
from typing import Any, Protocol
from urllib.parse import quote, urlsplit

import aiohttp

from cosmem_tui.model import Kind, RequestCharge, Scope
from cosmem_tui.sources.errors import (
    BadRequest,
    ConnectionFailed,
    Forbidden,
    NotFound,
    RequestTimedOut,
    StoreError,
    Throttled,
    Unauthorized,
    Unavailable,
)
from cosmem_tui.sources.request_ledger import RequestLedger

SCOPE = "https://cognitiveservices.azure.com/.default"
API_VERSION = "2024-10-21"  # the GA data-plane version that has embeddings
OPERATION = "embed-text"
UNIT = "call"
MAX_INPUT_CHARS = 32_000  # ~8k tokens, the embeddings models' input limit, with margin


class TokenCredential(Protocol):
    """azure-identity's async credential: what signs the request."""

    async def get_token(self, *scopes: str, **kwargs: Any) -> Any: ...


class AzureOpenAIEmbedder:
    """``model.recall.Embedder`` over one Azure OpenAI embeddings deployment."""

    def __init__(
        self,
        endpoint: str,
        deployment: str,
        credential: TokenCredential,
        ledger: RequestLedger,
        *,
        api_version: str = API_VERSION,
        timeout_s: float = 30.0,
        ssl: Any = None,
    ) -> None:
        parts = urlsplit(endpoint)
        local = parts.hostname in ("127.0.0.1", "localhost", "::1")
        if not parts.netloc or not (parts.scheme == "https" or (parts.scheme == "http" and local)):
            # a bearer token never travels in the clear (plain http: this machine only)
            raise BadRequest(f"embeddings_endpoint must be an https URL, not {endpoint!r}")
        if not deployment or "/" in deployment:
            raise BadRequest(f"embeddings_deployment must be a deployment name, not {deployment!r}")
        self._endpoint = endpoint.rstrip("/")
        self._deployment = deployment
        self._credential = credential
        self._ledger = ledger
        self._api_version = api_version
        self._timeout_s = timeout_s
        self._ssl = ssl  # tests: the fake's certificate; None: the system's trust store
        self._host = parts.netloc

    @property
    def label(self) -> str:
        return f"Azure OpenAI deployment {self._deployment}"

    @property
    def url(self) -> str:
        name = quote(self._deployment, safe="")
        return (
            f"{self._endpoint}/openai/deployments/{name}/embeddings"
            f"?api-version={quote(self._api_version, safe='')}"
        )

    async def embed(self, text: str) -> tuple[float, ...]:
        if not text.strip():
            raise BadRequest("nothing to embed: the text is empty")
        if len(text) > MAX_INPUT_CHARS:
            raise BadRequest(
                f"the text to embed is {len(text):,} characters; at most {MAX_INPUT_CHARS:,}"
            )
        try:
            token = await self._credential.get_token(SCOPE)
        except Exception as exc:  # azure-identity raises several kinds; one line for all
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise Unauthorized(f"no Entra ID token for Azure OpenAI ({SCOPE}): {first}") from None
        headers = {
            "Authorization": f"Bearer {token.token}",
            "Content-Type": "application/json",
        }
        started = self._ledger.timer()
        status, body, request_id = 0, None, None
        try:
            timeout = aiohttp.ClientTimeout(total=self._timeout_s)
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.post(self.url, json={"input": text}, headers=headers, ssl=self._ssl) as r,
            ):
                status = r.status
                request_id = r.headers.get("apim-request-id") or r.headers.get("x-request-id")
                raw = await r.text()
                body = _json(raw)
        except TimeoutError:
            self._record(0, started, None, "no answer")
            raise RequestTimedOut(
                f"Azure OpenAI at {self._host} did not answer within {self._timeout_s:g} s"
            ) from None
        except aiohttp.ClientError as exc:
            self._record(0, started, None, "no answer")
            raise ConnectionFailed(f"cannot reach Azure OpenAI at {self._host}: {exc}") from None
        except asyncio.CancelledError:
            self._record(0, started, None, "cancelled", cancelled=True)
            raise
        if status != 200:
            self._record(status, started, request_id, "refused")
            raise _refusal(status, body, self._deployment, self._host)
        vector, tokens = _vector_of(body)
        self._record(status, started, request_id, f"{len(vector)} dimensions, {tokens} tokens")
        return vector

    def _record(
        self,
        status: int,
        started: float,
        request_id: str | None,
        what: str,
        *,
        cancelled: bool = False,
    ) -> None:
        ledger = self._ledger
        ledger.record(
            RequestCharge(
                operation=OPERATION,
                scope=Scope.EMBEDDINGS,
                request_units=0.0,
                duration_ms=(ledger.timer() - started) * 1000.0,
                item_count=0,
                status=status,
                simulated=False,
                target=f"{self._deployment}: {what}",
                activity_id=request_id,
                kind=Kind.EMBEDDINGS,
                cancelled=cancelled,
                cause=ledger.cause(),
                at=ledger.clock.now(),
                unit=UNIT,
            )
        )


def _json(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _vector_of(body: Any) -> tuple[tuple[float, ...], int]:
    data = body.get("data") if isinstance(body, Mapping) else None
    first = data[0] if isinstance(data, list) and data else None
    values = first.get("embedding") if isinstance(first, Mapping) else None
    if (
        not isinstance(values, list)
        or not values
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        or not all(math.isfinite(v) for v in values)
    ):
        raise StoreError("Azure OpenAI answered without an embedding (data[0].embedding)")
    usage = body.get("usage") if isinstance(body, Mapping) else None
    tokens = usage.get("prompt_tokens") if isinstance(usage, Mapping) else None
    return tuple(float(v) for v in values), tokens if isinstance(tokens, int) else 0


def _refusal(status: int, body: Any, deployment: str, host: str) -> StoreError:
    error = body.get("error") if isinstance(body, Mapping) else None
    said = error.get("message") if isinstance(error, Mapping) else None
    detail = f": {str(said).splitlines()[0]}" if said else ""
    if status == 401:
        return Unauthorized(f"Azure OpenAI at {host} refused the Entra ID token (401){detail}")
    if status == 403:
        return Forbidden(
            f"Azure OpenAI at {host} denied access (403){detail}; the signed-in identity "
            "needs the Cognitive Services OpenAI User role"
        )
    if status == 404:
        return NotFound(f"no embeddings deployment {deployment!r} at {host} (404){detail}")
    if status == 429:
        return Throttled(f"Azure OpenAI at {host} is throttling this deployment (429){detail}")
    if status == 400:
        return BadRequest(f"Azure OpenAI refused the text (400){detail}")
    return Unavailable(f"Azure OpenAI at {host} answered {status}{detail}", status=status)
