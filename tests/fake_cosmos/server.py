"""The HTTP face of the fake: one aiohttp handler in front of the route modules.

The handler classifies each request, logs it, applies injected faults (a status, a
delay, a hang), then dispatches to a synchronous route (``routes_metadata``,
``routes_items``, ``routes_query``) that works on the store under its lock. Routes
return a ``Reply`` or raise ``HttpError``; both carry the request charge, so every
answer — 4xx included — has an ``x-ms-request-charge`` header, as the service's do.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.parse
import uuid
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tests.fake_cosmos import charges
from tests.fake_cosmos import routes_feed as change_feed
from tests.fake_cosmos import routes_items as items
from tests.fake_cosmos import routes_metadata as metadata
from tests.fake_cosmos import routes_query as queries
from tests.fake_cosmos.continuation import TokenError
from tests.fake_cosmos.faults import (
    MERGE_BLOCKED,
    THROTTLE_MESSAGES,
    Faults,
    RequestFacts,
    Verdict,
    declares_merge,
)
from tests.fake_cosmos.ranges import KeyError400
from tests.fake_cosmos.sql_parser import SqlError
from tests.fake_cosmos.store import BadRequest, Conflict, NotFound, PreconditionFailed, Store
from tests.fake_cosmos.wire import (
    Ctx,
    HttpError,
    Reply,
    bad_request_message,
    classify,
    int_or_none,
    query_of,
    range_header,
)
from tests.fake_cosmos.wire_log import Entry, RequestLog

_AUTH = re.compile(r"^type=(master|aad|resource)&ver=1\.0&sig=.+$", re.DOTALL)


class FakeCosmosApp:
    """Routes and their logic; one instance per fake gateway."""

    def __init__(
        self,
        store: Store,
        faults: Faults,
        log: RequestLog,
        *,
        require_auth: bool = True,
        max_visits_per_page: int | None = None,
        enforce_offers: bool = False,
        partition_merge: bool = False,
    ) -> None:
        self.store = store
        self.faults = faults
        self.log = log
        self.endpoint = ""
        self.require_auth = require_auth
        self.max_visits_per_page = max_visits_per_page
        self.enforce_offers = enforce_offers
        self.partition_merge = partition_merge  # block SDKs that do not declare merge
        self._hung: set[asyncio.Event] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.on_request: Callable[[Entry], None] | None = None

    # -- aiohttp plumbing ---------------------------------------------------------------------

    def application(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        return app

    def release_hung(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def wake() -> None:
            for event in list(self._hung):
                event.set()

        loop.call_soon_threadsafe(wake)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self._loop = asyncio.get_running_loop()
        started = time.perf_counter()
        raw = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        segs = [urllib.parse.unquote(s) for s in request.raw_path.split("?")[0].split("/") if s]
        kind, operation = classify(request.method, segs, headers)
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                body = None
        query_text, parameters = query_of(body, kind)
        activity = headers.get("x-ms-activity-id") or str(uuid.uuid4())
        entry = self.log.open(
            method=request.method,
            path=request.path,
            kind=kind,
            operation=operation,
            database=segs[1] if len(segs) > 1 else None,
            container=segs[3] if len(segs) > 3 else None,
            item_id=segs[5] if len(segs) > 5 else None,
            range_id=range_header(headers),
            partition_key=headers.get("x-ms-documentdb-partitionkey"),
            start_epk=headers.get("x-ms-start-epk"),
            end_epk=headers.get("x-ms-end-epk"),
            query=query_text,
            parameters=parameters,
            max_item_count=int_or_none(headers.get("x-ms-max-item-count")),
            continuation_in=headers.get("x-ms-continuation"),
            priority=headers.get("x-ms-cosmos-priority-level"),
            headers={
                k: v
                for k, v in headers.items()
                if k.startswith("x-ms-") or k in ("a-im", "if-none-match", "if-match")
            },
            activity_id=activity,
        )
        ctx = Ctx(request.method, segs, headers, body, entry)
        facts = RequestFacts(
            request.method, request.path, kind, query_text, entry.range_id, headers
        )
        blocked = self.partition_merge and not declares_merge(headers)
        verdict = None if blocked else self.faults.verdict(facts)
        reply: Reply
        if blocked:  # the account blocks it before anything runs
            entry.fault = "merge: the SDK does not declare merge support"
            reply = self._error_reply(HttpError(*MERGE_BLOCKED))
        elif verdict is not None:
            entry.fault = verdict.label
            if verdict.delay_s:
                await asyncio.sleep(verdict.delay_s)
            if verdict.hang:
                if verdict.applied:
                    self._dispatch(ctx)  # the change is made; its answer never leaves
                event = asyncio.Event()
                self._hung.add(event)
                try:
                    await event.wait()
                finally:
                    self._hung.discard(event)
                reply = self._error_reply(HttpError(503, "released after hanging"))
            elif verdict.status is not None:
                reply = self._fault_reply(verdict)
            else:
                reply = self._dispatch(ctx)
        else:
            reply = self._dispatch(ctx)
        entry.status = reply.status
        entry.sub_status = int_or_none(reply.headers.get("x-ms-substatus"))
        entry.charge = reply.charge
        entry.item_count = reply.item_count
        entry.continuation_out = reply.continuation
        if reply.range_id is not None:
            entry.range_id = reply.range_id
        if reply.fault is not None:
            entry.fault = reply.fault
        entry.duration_s = time.perf_counter() - started
        if self.on_request is not None:
            self.on_request(entry)
        return self._response(reply, activity)

    def _response(self, reply: Reply, activity: str) -> web.Response:
        headers = {
            "Content-Type": "application/json",
            "x-ms-activity-id": activity,
            "x-ms-request-charge": f"{reply.charge:.2f}",
            "x-ms-gatewayversion": "version=2.14.0",
            "x-ms-serviceversion": "version=2.14.0.0",
            **reply.headers,
        }
        if reply.continuation is not None:
            headers["x-ms-continuation"] = reply.continuation
        if reply.body is None:
            return web.Response(status=reply.status, headers=headers)
        text = json.dumps(reply.body, separators=(",", ":"), ensure_ascii=False)
        return web.Response(status=reply.status, body=text.encode("utf-8"), headers=headers)

    def _fault_reply(self, verdict: Verdict) -> Reply:
        assert verdict.status is not None
        message = verdict.message
        if message is None and verdict.status == 429 and verdict.sub_status is not None:
            message = THROTTLE_MESSAGES.get(verdict.sub_status)
        err = HttpError(verdict.status, message, sub_status=verdict.sub_status)
        if verdict.retry_after_ms is not None:
            err.headers["x-ms-retry-after-ms"] = str(verdict.retry_after_ms)
        return self._error_reply(err)

    @staticmethod
    def _error_reply(err: HttpError) -> Reply:
        headers = dict(err.headers)
        if err.sub_status is not None:
            headers["x-ms-substatus"] = str(err.sub_status)
        return Reply(
            err.status, err.body, err.charge, headers, range_id=err.range_id, fault=err.fault
        )

    # -- dispatch -----------------------------------------------------------------------------

    def _dispatch(self, ctx: Ctx) -> Reply:
        try:
            self._authorize(ctx)
            with self.store.lock:
                return self._route(ctx)
        except HttpError as err:
            return self._error_reply(err)
        except NotFound as exc:
            return self._error_reply(HttpError(404, str(exc)))
        except Conflict as exc:
            return self._error_reply(HttpError(409, str(exc), charge=charges.NOT_FOUND_RU))
        except PreconditionFailed as exc:
            return self._error_reply(HttpError(412, str(exc), charge=charges.NOT_FOUND_RU))
        except (BadRequest, KeyError400, SqlError, TokenError) as exc:
            return self._error_reply(HttpError(400, bad_request_message(exc)))

    def _authorize(self, ctx: Ctx) -> None:
        if not self.require_auth:
            return
        raw = ctx.header("authorization") or ""
        if not _AUTH.match(urllib.parse.unquote(raw)):
            raise HttpError(401, "The input authorization token can't serve the request.")

    def _route(self, ctx: Ctx) -> Reply:
        segs, method = ctx.segments, ctx.method
        n = len(segs)
        if n == 0 and method == "GET":
            return Reply(200, metadata.account(self))
        if n >= 1 and segs[0] == "offers":
            return Reply(200, {"_rid": "", "Offers": [], "_count": 0})
        if n == 0 or segs[0] != "dbs":
            raise HttpError(404, f"no route for {method} /{'/'.join(segs)}")
        if n == 1:
            if method == "POST" and ctx.flag("x-ms-documentdb-isquery"):
                return metadata.query_resources(
                    self, ctx, [db.resource() for db in self.store.databases.values()], "Databases"
                )
            if method == "POST":
                return metadata.create_database(self, ctx)
            if method == "GET":
                dbs = [db.resource() for db in self.store.databases.values()]
                return Reply(
                    200, {"_rid": "", "Databases": dbs, "_count": len(dbs)}, item_count=len(dbs)
                )
        db_id = segs[1]
        if n == 2:
            db = metadata.database(self, db_id)
            if method == "GET":
                return Reply(200, db.resource(), charges.METADATA_RU)
            if method == "DELETE":
                del self.store.databases[db.id]
                return Reply(204, None, charges.METADATA_RU)
        if n == 3 and segs[2] == "colls":
            db = metadata.database(self, db_id)
            resources = [c.resource() for c in db.containers.values()]
            if method == "POST" and ctx.flag("x-ms-documentdb-isquery"):
                return metadata.query_resources(self, ctx, resources, "DocumentCollections")
            if method == "POST":
                return metadata.create_container(self, ctx, db.id)
            if method == "GET":
                return Reply(
                    200,
                    {"_rid": db.rid, "DocumentCollections": resources, "_count": len(resources)},
                )
        if n >= 4 and segs[2] == "colls":
            container = metadata.container(self, db_id, segs[3])
            if n == 4:
                if method == "GET":
                    return metadata.read_container(self, ctx, container)
                if method == "PUT":
                    return metadata.replace_container(self, ctx, container)
                if method == "DELETE":
                    del container.database.containers[container.id]
                    return Reply(204, None, charges.METADATA_RU)
            if n == 5 and segs[4] == "pkranges" and method == "GET":
                return metadata.read_pkranges(self, ctx, container)
            if n == 5 and segs[4] == "docs":
                if method == "POST" and ctx.flag("x-ms-cosmos-is-query-plan-request"):
                    return queries.plan(self, ctx, container)
                if method == "POST" and ctx.flag("x-ms-documentdb-isquery"):
                    return queries.query(self, ctx, container)
                if method == "POST" and ctx.flag("x-ms-cosmos-is-batch-request"):
                    raise HttpError(
                        400, "Transactional batch is not supported by the fake gateway."
                    )
                if method == "POST":
                    mode = "upsert" if ctx.flag("x-ms-documentdb-is-upsert") else "create"
                    return items.write_item(self, ctx, container, mode)
                if method == "GET":
                    if ctx.header("a-im"):
                        return change_feed.read(self, ctx, container)
                    return queries.read_feed(self, ctx, container)
            if n == 6 and segs[4] == "docs":
                item_id = segs[5]
                if method == "GET":
                    return items.read_item(self, ctx, container, item_id)
                if method == "PUT":
                    return items.write_item(self, ctx, container, "replace", item_id)
                if method == "DELETE":
                    return items.delete_item(self, ctx, container, item_id)
                if method == "PATCH":
                    return items.patch_item(self, ctx, container, item_id)
        raise HttpError(404, f"no route for {method} /{'/'.join(segs)}")
