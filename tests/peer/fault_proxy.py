"""A fault-injecting HTTPS reverse proxy in front of the Cosmos peer.

It forwards every request to the peer, except those a ``Fault`` rule matches: those
get the rule's status (429 with ``x-ms-retry-after-ms``, 401, 403, 503…) with a body
shaped like the service's, or are delayed first (slow responses, timeouts). The
account document (``GET /``) is rewritten to advertise the proxy, so the SDK's
endpoint discovery keeps talking to the proxy. It runs on its own event loop in a
thread, so a test may drive it while a CLI run or the UI blocks or awaits.
"""

from __future__ import annotations

import asyncio
import json
import re
import ssl
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

CERTS = Path(__file__).resolve().parent / "node_modules" / "@vercel" / "cosmosdb-server"

_BODIES = {
    401: ("Unauthorized", "The input authorization token can't serve the request."),
    403: (
        "Forbidden",
        "Request blocked by Auth cosmem-test : Request is blocked because principal "
        "[00000000-0000-0000-0000-000000000000] does not have required RBAC permissions to "
        "perform action [Microsoft.DocumentDB/databaseAccounts/readMetadata] on resource [/].",
    ),
    429: ("TooManyRequests", "Request rate is large. More Request Units may be needed."),
    503: ("ServiceUnavailable", "Service is currently unavailable."),
}
_HOP_HEADERS = {"content-length", "transfer-encoding", "connection", "content-encoding"}


@dataclass
class Fault:
    """Answer matching requests with ``status`` (or only delay them, when status is None)."""

    status: int | None = 429
    count: int | None = None  # how many requests to hit; None = every one
    method: str | None = None  # e.g. "POST"
    path: str = r".*"  # regex searched in the request path
    queries_only: bool = False  # only query requests (x-ms-documentdb-isquery)
    retry_after_ms: int | None = None
    sub_status: int | None = None
    delay_s: float = 0.0
    message: str | None = None
    hits: int = 0

    def matches(self, request: web.Request) -> bool:
        if self.count is not None and self.hits >= self.count:
            return False
        if self.method is not None and request.method != self.method:
            return False
        is_query = request.headers.get("x-ms-documentdb-isquery", "").lower() == "true"
        if self.queries_only and not is_query:
            return False
        return re.search(self.path, request.path) is not None


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    status: int
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def is_query(self) -> bool:
        return self.headers.get("x-ms-documentdb-isquery", "").lower() == "true"


class FaultProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.endpoint = ""
        self.faults: list[Fault] = []
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    # -- control (from the test's thread) -------------------------------------------------

    def add(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def clear(self) -> None:
        with self._lock:
            self.faults.clear()
            self.seen.clear()

    def requests(self) -> list[Seen]:
        with self._lock:
            return list(self.seen)

    def start(self) -> FaultProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    # -- the proxy (on its own loop) --------------------------------------------------------

    async def _start(self) -> None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(CERTS / "cert.pem", CERTS / "key.pem")
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=context)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.endpoint = f"https://127.0.0.1:{port}"
        self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=False))

    async def _stop(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def _fault_for(self, request: web.Request) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(request):
                    fault.hits += 1
                    return fault
        return None

    def _remember(self, request: web.Request, status: int) -> None:
        keep = {k.lower(): v for k, v in request.headers.items() if k.lower().startswith("x-ms-")}
        with self._lock:
            self.seen.append(Seen(request.method, request.path, status, keep))

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        fault = self._fault_for(request)
        if fault is not None and fault.delay_s:
            await asyncio.sleep(fault.delay_s)
        if fault is not None and fault.status is not None:
            self._remember(request, fault.status)
            return self._fault_response(fault)
        body = await request.read()
        assert self._session is not None
        async with self._session.request(
            request.method,
            self.upstream + request.path_qs,
            headers={k: v for k, v in request.headers.items() if k.lower() != "host"},
            data=body,
        ) as upstream:
            payload = await upstream.read()
            if request.method == "GET" and request.path == "/" and upstream.status == 200:
                payload = payload.replace(
                    self.upstream.encode() + b"/", self.endpoint.encode() + b"/"
                )
            headers = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_HEADERS}
            self._remember(request, upstream.status)
            return web.Response(status=upstream.status, body=payload, headers=headers)

    def _fault_response(self, fault: Fault) -> web.Response:
        assert fault.status is not None
        code, message = _BODIES.get(fault.status, ("Error", "injected fault"))
        headers: dict[str, Any] = {
            "content-type": "application/json",
            "x-ms-activity-id": str(uuid.uuid4()),
            "x-ms-request-charge": "0",
        }
        if fault.retry_after_ms is not None:
            headers["x-ms-retry-after-ms"] = str(fault.retry_after_ms)
        sub_status = fault.sub_status
        if sub_status is None and fault.status == 429:
            sub_status = 3200
        if sub_status is not None:
            headers["x-ms-substatus"] = str(sub_status)
        body = json.dumps({"code": code, "message": fault.message or message})
        return web.Response(status=fault.status, text=body, headers=headers)
