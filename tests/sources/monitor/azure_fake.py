"""A fake Azure for the real Azure Monitor SDK clients: canned answers, recorded requests.

The clients run for real (serialisation, retry policy, bearer-token policy, error
mapping, the ledger policy); only the socket is replaced. ``AzureFake.transport()`` is
an azure-core ``AsyncioRequestsTransport`` over a ``requests.Session`` whose adapter asks
the fake for each answer, so no aiohttp and no network are involved, and endpoints stay
https. Answers are shaped after the REST spec examples (metrics:getBatch 2024-02-01,
Log Analytics v1 ``workspaces/{id}/query``) and the facts collected for this project;
the queries a fake workspace is sent go through Microsoft's KQL parser first
(``refusal``).
"""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests
from azure.core.credentials import AccessToken
from azure.core.pipeline.transport import AsyncioRequestsTransport
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from urllib3 import HTTPResponse

from tests.kusto.checker import rejected

SUBSCRIPTION = "8d2f3c1a-5b6e-4f70-9a81-2c3d4e5f6a7b"
RESOURCE_ID = (
    f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg-agents/providers/"
    "Microsoft.DocumentDB/databaseAccounts/agentmem"
)
WORKSPACE = "3f9c2b1e-7a64-4d2b-9e58-0c1d2e3f4a5b"
# Azure Resource Manager in the public, China and US Government clouds.
ARM_HOSTS = ("management.azure.com", "management.chinacloudapi.cn", "management.usgovcloudapi.net")


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = None  # JSON-able, or bytes
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        return b"" if self.body is None else json.dumps(self.body).encode("utf-8")


@dataclass(frozen=True)
class Sent:
    """One request as it left the SDK."""

    method: str
    url: str
    headers: dict[str, str]
    body: bytes

    @property
    def host(self) -> str:
        return urlsplit(self.url).netloc

    @property
    def path(self) -> str:
        return urlsplit(self.url).path

    @property
    def params(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(self.url).query).items()}

    def json(self) -> Any:
        return json.loads(self.body)


Responder = Callable[[Sent], Reply]


class AzureFake:
    """Routes: ``metrics`` (getBatch), ``logs`` (Log Analytics' query endpoint), ``arm``."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self._lock = threading.Lock()
        self._queues: dict[str, list[Responder]] = {"metrics": [], "logs": [], "arm": []}
        # Unless told otherwise, ARM knows the account: one region, its own RU/s.
        self._default: dict[str, Responder] = {"arm": arm_account}

    # -- what it answers ------------------------------------------------------------------

    def answer(self, route: str, *replies: Reply | Responder) -> None:
        """Answer the next requests of ``route`` with these, in turn (the last one sticks)."""
        for reply in replies:
            responder = reply if callable(reply) else (lambda _s, r=reply: r)
            self._queues[route].append(responder)

    def fail(self, route: str, error: Exception) -> None:
        def raiser(_sent: Sent) -> Reply:
            raise error

        self._queues[route].append(raiser)

    def _route(self, sent: Sent) -> str:
        if ".metrics.monitor.azure." in sent.host or "metrics:getBatch" in sent.path:
            return "metrics"
        if sent.host in ARM_HOSTS:
            return "arm"
        return "logs"

    def respond(self, sent: Sent) -> Reply:
        with self._lock:
            self.sent.append(sent)
            route = self._route(sent)
            queue = self._queues[route]
            if not queue and route in self._default:
                responder = self._default[route]
            elif not queue:
                return Reply(404, error_body("NoRoute", f"no answer for {route}"))
            else:
                responder = queue.pop(0) if len(queue) > 1 else queue[0]
        return responder(sent)

    def requests_to(self, route: str) -> list[Sent]:
        return [s for s in self.sent if self._route(s) == route]

    # -- the transport --------------------------------------------------------------------

    def transport(self) -> AsyncioRequestsTransport:
        session = requests.Session()
        adapter = _Adapter(self)
        session.mount("https://", adapter)
        session.mount("http://", adapter)
        return AsyncioRequestsTransport(session=session, session_owner=False)


class _Adapter(BaseAdapter):
    def __init__(self, fake: AzureFake) -> None:
        super().__init__()
        self._fake = fake

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        body = request.body or b""
        sent = Sent(
            str(request.method),
            str(request.url),
            dict(request.headers),
            body.encode("utf-8") if isinstance(body, str) else bytes(body),
        )
        reply = self._fake.respond(sent)
        data = reply.encoded()
        headers = {"Content-Type": "application/json; charset=utf-8", **reply.headers}
        headers["Content-Length"] = str(len(data))
        response = requests.Response()
        response.status_code = reply.status
        response.headers = CaseInsensitiveDict(headers)
        # azure-core reads the body through ``raw``: a real urllib3 response, never None.
        response.raw = HTTPResponse(
            body=io.BytesIO(data),
            headers=headers,
            status=reply.status,
            preload_content=False,
            decode_content=False,
        )
        response.url = str(request.url)
        response.request = request
        response.reason = "OK" if reply.status < 400 else "Error"
        return response

    def close(self) -> None:
        pass


class FakeCredential:
    """A duck-typed async token credential (what the session shares)."""

    def __init__(self) -> None:
        self.scopes: list[tuple[str, ...]] = []
        self.closed = False

    async def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        self.scopes.append(scopes)
        return AccessToken("fake-token", int(time.time()) + 3600)  # expiry only, never asserted

    async def close(self) -> None:
        self.closed = True


# -- answers shaped like the service's ------------------------------------------------------


def iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(epoch))


def metric(
    name: str,
    unit: str,
    timeseries: list[tuple[dict[str, str], list[tuple[float, dict[str, float]]]]],
) -> dict[str, Any]:
    """One metric of a getBatch answer: (dimensions, [(epoch, {"total": 5.0}), …]) each."""
    return {
        "id": f"{RESOURCE_ID}/providers/Microsoft.Insights/metrics/{name}",
        "type": "Microsoft.Insights/metrics",
        "name": {"value": name, "localizedValue": name},
        "displayDescription": f"{name} of the account",
        "unit": unit,
        "errorCode": "Success",
        "timeseries": [
            {
                "metadatavalues": [
                    {"name": {"value": key, "localizedValue": key}, "value": value}
                    for key, value in dims.items()
                ],
                "data": [{"timeStamp": iso(at), **values} for at, values in points],
            }
            for dims, points in timeseries
        ],
    }


ACCOUNT_LOCATION = "East US"
PROVISIONED_RU_S = 4000  # the container memory/turns's own offer


def arm_account(sent: Sent) -> Reply:
    """ARM for the account agentmem: in East US alone (the REST spec example's shape),
    provisioned, and the container memory/turns with 4,000 RU/s of its own."""
    if sent.path == RESOURCE_ID:
        where = {"locationName": ACCOUNT_LOCATION, "failoverPriority": 0}
        return Reply(
            200,
            {
                "id": RESOURCE_ID,
                "name": "agentmem",
                "location": ACCOUNT_LOCATION,
                "type": "Microsoft.DocumentDB/databaseAccounts",
                "kind": "GlobalDocumentDB",
                "properties": {
                    "writeLocations": [where],
                    "readLocations": [where],
                    "locations": [where],
                    "capabilities": [],
                },
            },
        )
    if (
        sent.path
        == f"{RESOURCE_ID}/sqlDatabases/memory/containers/turns/throughputSettings/default"
    ):
        return Reply(
            200,
            {"name": "default", "properties": {"resource": {"throughput": PROVISIONED_RU_S}}},
        )
    return Reply(404, error_body("NotFound", f"no resource at {sent.path}"))


def metrics_body(
    start: float, end: float, *metrics: dict[str, Any], region: str = "eastus"
) -> dict[str, Any]:
    """A getBatch answer; ``region`` is where Azure says the resource's data is kept."""
    return {
        "values": [
            {
                "starttime": iso(start),
                "endtime": iso(end),
                "interval": "PT1M",
                "namespace": "microsoft.documentdb/databaseaccounts",
                "resourceregion": region,
                "resourceid": RESOURCE_ID,
                "value": list(metrics),
            }
        ]
    }


def table(columns: list[tuple[str, str]], rows: list[list[Any]]) -> dict[str, Any]:
    return {
        "name": "PrimaryResult",
        "columns": [{"name": n, "type": t} for n, t in columns],
        "rows": rows,
    }


def error_body(code: str, message: str, inner: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if inner is not None:
        error["innererror"] = {
            "code": "SemanticError",
            "message": "A semantic error occurred.",
            "innererror": {"code": "SEM0100", "message": inner},
        }
    return {"error": error}


def refusal(text: str) -> Reply | None:
    """Log Analytics' answer to a text it would not run, or None: the fake workspace runs
    every text through Microsoft's own parser (tests/kusto) with the documented tables,
    and refuses what it refuses, as the service does (400, the parser's message as the
    innermost error). A fake never accepts a query the real service rejects."""
    why = rejected(text)
    if why is None:
        return None
    return Reply(
        400, error_body("BadArgumentError", "The request had some invalid properties", why)
    )


def workspace_query(answer: Callable[[str, dict[str, Any]], Reply]) -> Responder:
    """A responder for ``POST /v1/workspaces/{id}/query`` (``query_workspace``):
    ``answer(query_text, request)`` for a text Log Analytics would run (any other is
    refused first, see ``refusal``). ``request`` is what the call carried: the
    ``workspace`` id from the path, the JSON ``body`` and the ``Prefer`` header."""

    def respond(sent: Sent) -> Reply:
        parts = sent.path.strip("/").split("/")
        if sent.method != "POST" or len(parts) != 4 or parts[1::2] != ["workspaces", "query"]:
            return Reply(404, error_body("PathNotFoundError", f"no such path {sent.path}"))
        body = sent.json()
        text = body["query"]
        request = {
            "workspace": parts[2],
            "body": body,
            "headers": {"Prefer": sent.headers.get("Prefer", "")},
        }
        return refusal(text) or answer(text, request)

    return respond
