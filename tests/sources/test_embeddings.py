"""The Azure OpenAI embeddings client against an in-process HTTP server (aiohttp) that
speaks the data-plane API: the request it sends, the token it signs with, the ledger
record of each call, and one line for every way it can fail."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from azure.core.credentials import AccessToken

from cosmem_tui.model import Kind, Scope
from cosmem_tui.model.recall import Embedder
from cosmem_tui.sources.embeddings import SCOPE, AzureOpenAIEmbedder
from cosmem_tui.sources.errors import (
    BadRequest,
    Forbidden,
    NotFound,
    RequestTimedOut,
    StoreError,
    Throttled,
    Unauthorized,
)
from cosmem_tui.sources.request_ledger import RequestLedger

TOKEN = "static-test-token"


class StaticToken:
    """A credential that hands out one fixed token and remembers the scopes asked for."""

    def __init__(self, fail: Exception | None = None) -> None:
        self.scopes: list[tuple[str, ...]] = []
        self.fail = fail

    async def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        self.scopes.append(scopes)
        if self.fail is not None:
            raise self.fail
        return AccessToken(TOKEN, 2_000_000_000)


class FakeOpenAI:
    """``POST /openai/deployments/{name}/embeddings``: answers what ``answer`` says."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.status = 200
        self.hang = False
        self.deployments = {"embed-small"}

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(
            {
                "path": request.path,
                "query": dict(request.query),
                "auth": request.headers.get("Authorization"),
                "body": body,
            }
        )
        if self.hang:
            await asyncio.sleep(1)
        name = request.match_info["name"]
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.json_response({"error": {"message": "bad token"}}, status=401)
        if name not in self.deployments:
            return web.json_response(
                {
                    "error": {
                        "code": "DeploymentNotFound",
                        "message": "The API deployment\nfor this resource does not exist.",
                    }
                },
                status=404,
            )
        if self.status != 200:
            return web.json_response({"error": {"message": "no"}}, status=self.status)
        text = body["input"]
        vector = [float(len(text)), 0.5, -0.25]
        return web.json_response(
            {"data": [{"embedding": vector, "index": 0}], "usage": {"prompt_tokens": 3}},
            headers={"apim-request-id": "req-1"},
        )


@pytest.fixture
async def openai() -> AsyncIterator[tuple[FakeOpenAI, str]]:
    fake = FakeOpenAI()
    app = web.Application()
    app.router.add_post("/openai/deployments/{name}/embeddings", fake.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield fake, f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_embeds_with_an_entra_token_and_records_the_call(openai) -> None:
    fake, endpoint = openai
    ledger = RequestLedger(budget_ru=100.0)
    credential = StaticToken()
    embedder: Embedder = AzureOpenAIEmbedder(endpoint, "embed-small", credential, ledger)
    vector = await embedder.embed("a cat on a ferry")
    assert vector == (16.0, 0.5, -0.25)
    assert credential.scopes == [(SCOPE,)]
    (sent,) = fake.requests
    assert sent["path"] == "/openai/deployments/embed-small/embeddings"
    assert sent["query"] == {"api-version": "2024-10-21"}
    assert sent["auth"] == f"Bearer {TOKEN}" and sent["body"] == {"input": "a cat on a ferry"}
    (record,) = ledger.records()
    assert (record.kind, record.scope, record.unit, record.status) == (
        Kind.EMBEDDINGS,
        Scope.EMBEDDINGS,
        "call",
        200,
    )
    assert record.request_units == 0 and record.activity_id == "req-1"
    assert "ferry" not in record.target and "3 tokens" in record.target
    assert ledger.totals().request_units == 0  # tokens are not request units
    assert embedder.label == "Azure OpenAI deployment embed-small"


@pytest.mark.parametrize(
    ("setup", "error", "words"),
    [
        ({"deployment": "nope"}, NotFound, "no embeddings deployment 'nope'"),
        ({"status": 403}, Forbidden, "Cognitive Services OpenAI User"),
        ({"status": 429}, Throttled, "throttling"),
        ({"status": 500}, StoreError, "answered 500"),
        ({"token": "broken"}, Unauthorized, "no Entra ID token"),
    ],
)
async def test_every_refusal_is_one_line(openai, setup, error, words) -> None:
    fake, endpoint = openai
    ledger = RequestLedger(budget_ru=100.0)
    fake.status = setup.get("status", 200)
    fail = RuntimeError("DefaultAzureCredential failed\nlong story") if "token" in setup else None
    embedder = AzureOpenAIEmbedder(
        endpoint, setup.get("deployment", "embed-small"), StaticToken(fail), ledger
    )
    with pytest.raises(error) as caught:
        await embedder.embed("tea")
    message = str(caught.value)
    assert words in message and "\n" not in message
    # a request that was sent is in the ledger; a token that never came sent none
    assert len(ledger.records()) == (0 if fail else 1)


async def test_no_answer_in_time_is_recorded_and_said(openai) -> None:
    fake, endpoint = openai
    fake.hang = True
    ledger = RequestLedger(budget_ru=100.0)
    embedder = AzureOpenAIEmbedder(endpoint, "embed-small", StaticToken(), ledger, timeout_s=0.2)
    with pytest.raises(RequestTimedOut, match="did not answer"):
        await embedder.embed("tea")
    (record,) = ledger.records()
    assert record.status == 0


def test_a_token_never_goes_over_plain_http_to_another_machine() -> None:
    ledger = RequestLedger(budget_ru=100.0)
    with pytest.raises(BadRequest, match="https"):
        AzureOpenAIEmbedder("http://example.openai.azure.com", "d", StaticToken(), ledger)
    with pytest.raises(BadRequest, match="deployment name"):
        AzureOpenAIEmbedder("https://example.openai.azure.com", "a/b", StaticToken(), ledger)
