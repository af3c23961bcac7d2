"""The HTTP face of the fake: the Cosmos DB gateway's REST routes over aiohttp.

One catch-all handler classifies each request (metadata, pkranges, query, query plan,
point operation, read feed), logs it, applies injected faults, then dispatches to a
synchronous route function that works on the store under its lock. Route functions
return a ``Reply`` or raise ``HttpError``; both carry the request charge, so every
answer — 4xx included — has an ``x-ms-request-charge`` header, as the service's do.

Query routing follows the service:

* ``x-ms-documentdb-partitionkeyrangeid`` (+ optional ``x-ms-start-epk`` /
  ``x-ms-end-epk``): one physical range, executed range-locally. An unknown range id
  answers 410 / 1002 (the range was split), which makes the SDK refresh its routing map.
* ``x-ms-documentdb-partitionkey``: one logical partition (a hierarchical prefix is an
  EPK range that may span ranges).
* neither: a cross-partition query. One that needs a plan answers 400 / 1004; a simple
  one is fanned out range by range by the gateway with a composite continuation.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.gateway import charges, query_plan
from tests.gateway.charges import Meter
from tests.gateway.continuation import TokenError, decode_composite, encode_composite
from tests.gateway.faults import ERROR_BODIES, Faults, RequestFacts, Verdict
from tests.gateway.query_exec import Scope, prepared_for, run_page
from tests.gateway.ranges import MAX_EPK, KeyDefinition, KeyError400
from tests.gateway.sql_eval import Compiler, compile_projection
from tests.gateway.sql_parser import SqlError, parse
from tests.gateway.store import (
    MISSING_ID,
    PRECONDITION,
    BadRequest,
    Conflict,
    Container,
    NotFound,
    PartitionRange,
    PreconditionFailed,
    Store,
)
from tests.gateway.wire_log import Entry, RequestLog

PK_MISMATCH = "PartitionKey extracted from document doesn't match the one specified in the header."
_AUTH = re.compile(r"^type=(master|aad|resource)&ver=1\.0&sig=.+$", re.DOTALL)


class HttpError(Exception):
    def __init__(
        self,
        status: int,
        message: str | None = None,
        *,
        sub_status: int | None = None,
        charge: float = 0.0,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        range_id: str | None = None,
        fault: str | None = None,
    ) -> None:
        code, default = ERROR_BODIES.get(status, ("Error", "error"))
        super().__init__(message or default)
        self.status = status
        self.sub_status = sub_status
        self.charge = charge
        self.body = body or {"code": code, "message": message or default}
        self.headers = headers or {}
        self.range_id = range_id
        self.fault = fault


@dataclass
class Reply:
    status: int
    body: Any = None  # JSON-able, or None for no body
    charge: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    item_count: int = 0
    continuation: str | None = None
    range_id: str | None = None
    fault: str | None = None  # an injected condition that shaped the answer


@dataclass
class Ctx:
    """One request, parsed."""

    method: str
    segments: list[str]
    headers: dict[str, str]  # lower-cased names
    body: Any
    entry: Entry

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def flag(self, name: str) -> bool:
        return (self.header(name) or "").lower() == "true"

    def max_items(self) -> int | None:
        raw = self.header("x-ms-max-item-count")
        if raw is None or raw == "":
            return None
        try:
            return int(raw)
        except ValueError as exc:
            raise HttpError(400, f"Invalid x-ms-max-item-count {raw!r}") from exc


def classify(method: str, segs: list[str], headers: dict[str, str]) -> tuple[str, str]:
    """(kind, operation) of a request."""
    n = len(segs)
    is_query = headers.get("x-ms-documentdb-isquery", "").lower() == "true"
    if n == 0:
        return "metadata", "read-account"
    if segs[0] != "dbs":
        return "metadata", f"{method.lower()}-{segs[0]}"
    names = {1: "database", 3: "container"}
    if n in (1, 3):
        noun = names[n]
        if method == "POST":
            return "metadata", f"query-{noun}s" if is_query else f"create-{noun}"
        return "metadata", f"list-{noun}s"
    if n in (2, 4):
        noun = names[n - 1]
        verb = {"GET": "read", "PUT": "replace", "DELETE": "delete"}.get(method, method.lower())
        return "metadata", f"{verb}-{noun}"
    if n == 5 and segs[4] == "pkranges":
        return "pkranges", "read-pkranges"
    if n == 5 and segs[4] == "docs":
        if method == "POST":
            if headers.get("x-ms-cosmos-is-query-plan-request", "").lower() == "true":
                return "query-plan", "query-plan"
            if is_query:
                return "query", "query"
            if headers.get("x-ms-cosmos-is-batch-request", "").lower() == "true":
                return "point", "batch"
            if headers.get("x-ms-documentdb-is-upsert", "").lower() == "true":
                return "point", "upsert-item"
            return "point", "create-item"
        return "feed", "read-feed"
    if n == 6 and segs[4] == "docs":
        verb = {"GET": "read", "PUT": "replace", "DELETE": "delete", "PATCH": "patch"}.get(
            method, method.lower()
        )
        return "point", f"{verb}-item"
    return "metadata", f"{method.lower()}-{'/'.join(segs[4:])}"


class GatewayApp:
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
    ) -> None:
        self.store = store
        self.faults = faults
        self.log = log
        self.endpoint = ""
        self.require_auth = require_auth
        self.max_visits_per_page = max_visits_per_page
        self.enforce_offers = enforce_offers
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
        query_text, parameters = _query_of(body, kind)
        activity = headers.get("x-ms-activity-id") or str(uuid.uuid4())
        entry = self.log.open(
            method=request.method,
            path=request.path,
            kind=kind,
            operation=operation,
            database=segs[1] if len(segs) > 1 else None,
            container=segs[3] if len(segs) > 3 else None,
            item_id=segs[5] if len(segs) > 5 else None,
            range_id=_range_header(headers),
            partition_key=headers.get("x-ms-documentdb-partitionkey"),
            start_epk=headers.get("x-ms-start-epk"),
            end_epk=headers.get("x-ms-end-epk"),
            query=query_text,
            parameters=parameters,
            max_item_count=_int_or_none(headers.get("x-ms-max-item-count")),
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
        verdict = self.faults.verdict(facts)
        reply: Reply
        if verdict is not None:
            entry.fault = verdict.label
            if verdict.delay_s:
                await asyncio.sleep(verdict.delay_s)
            if verdict.hang:
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
        entry.sub_status = _int_or_none(reply.headers.get("x-ms-substatus"))
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
        err = HttpError(verdict.status, verdict.message, sub_status=verdict.sub_status)
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
            return self._error_reply(HttpError(400, _bad_request_message(exc)))

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
            return Reply(200, self.account())
        if n >= 1 and segs[0] == "offers":
            return Reply(200, {"_rid": "", "Offers": [], "_count": 0})
        if n == 0 or segs[0] != "dbs":
            raise HttpError(404, f"no route for {method} /{'/'.join(segs)}")
        if n == 1:
            if method == "POST" and ctx.flag("x-ms-documentdb-isquery"):
                return self._query_resources(
                    ctx, [db.resource() for db in self.store.databases.values()], "Databases"
                )
            if method == "POST":
                return self.create_database(ctx)
            if method == "GET":
                dbs = [db.resource() for db in self.store.databases.values()]
                return Reply(
                    200, {"_rid": "", "Databases": dbs, "_count": len(dbs)}, item_count=len(dbs)
                )
        db_id = segs[1]
        if n == 2:
            db = self._database(db_id)
            if method == "GET":
                return Reply(200, db.resource(), charges.METADATA_RU)
            if method == "DELETE":
                del self.store.databases[db.id]
                return Reply(204, None, charges.METADATA_RU)
        if n == 3 and segs[2] == "colls":
            db = self._database(db_id)
            resources = [c.resource() for c in db.containers.values()]
            if method == "POST" and ctx.flag("x-ms-documentdb-isquery"):
                return self._query_resources(ctx, resources, "DocumentCollections")
            if method == "POST":
                return self.create_container(ctx, db.id)
            if method == "GET":
                return Reply(
                    200,
                    {"_rid": db.rid, "DocumentCollections": resources, "_count": len(resources)},
                )
        if n >= 4 and segs[2] == "colls":
            container = self._container(db_id, segs[3])
            if n == 4:
                if method == "GET":
                    return self.read_container(ctx, container)
                if method == "PUT":
                    return self.replace_container(ctx, container)
                if method == "DELETE":
                    del container.database.containers[container.id]
                    return Reply(204, None, charges.METADATA_RU)
            if n == 5 and segs[4] == "pkranges" and method == "GET":
                return self.read_pkranges(ctx, container)
            if n == 5 and segs[4] == "docs":
                if method == "POST" and ctx.flag("x-ms-cosmos-is-query-plan-request"):
                    return self.query_plan(ctx, container)
                if method == "POST" and ctx.flag("x-ms-documentdb-isquery"):
                    return self.query(ctx, container)
                if method == "POST" and ctx.flag("x-ms-cosmos-is-batch-request"):
                    raise HttpError(
                        400, "Transactional batch is not supported by the fake gateway."
                    )
                if method == "POST":
                    mode = "upsert" if ctx.flag("x-ms-documentdb-is-upsert") else "create"
                    return self.write_item(ctx, container, mode)
                if method == "GET":
                    if ctx.header("a-im"):
                        raise HttpError(
                            400, "The change feed is not supported by the fake gateway."
                        )
                    return self.read_feed(ctx, container)
            if n == 6 and segs[4] == "docs":
                item_id = segs[5]
                if method == "GET":
                    return self.read_item(ctx, container, item_id)
                if method == "PUT":
                    return self.write_item(ctx, container, "replace", item_id)
                if method == "DELETE":
                    return self.delete_item(ctx, container, item_id)
                if method == "PATCH":
                    return self.patch_item(ctx, container, item_id)
        raise HttpError(404, f"no route for {method} /{'/'.join(segs)}")

    # -- account, databases, containers -------------------------------------------------------

    def account(self) -> dict[str, Any]:
        location = [{"name": "Fake Region", "databaseAccountEndpoint": self.endpoint + "/"}]
        return {
            "_self": "",
            "id": "fake-gateway",
            "_rid": self.endpoint.split("//")[-1],
            "media": "//media/",
            "addresses": "//addresses/",
            "_dbs": "//dbs/",
            "writableLocations": location,
            "readableLocations": location,
            "enableMultipleWriteLocations": False,
            "userReplicationPolicy": {
                "asyncReplication": False,
                "minReplicaSetSize": 3,
                "maxReplicasetSize": 4,
            },
            "userConsistencyPolicy": {"defaultConsistencyLevel": "Session"},
            "systemReplicationPolicy": {"minReplicaSetSize": 3, "maxReplicasetSize": 4},
            "readPolicy": {"primaryReadCoefficient": 1, "secondaryReadCoefficient": 1},
            "queryEngineConfiguration": json.dumps(
                {
                    "maxSqlQueryInputLength": 262144,
                    "maxJoinsPerSqlQuery": 5,
                    "sqlAllowTop": True,
                    "sqlAllowAggregateFunctions": True,
                    "sqlAllowSubQuery": True,
                    "allowNewKeywords": True,
                    "maxInExpressionItemsCount": 16000,
                    "queryMaxInMemorySortDocumentCount": 500,
                }
            ),
        }

    def _database(self, db_id: str) -> Any:
        try:
            return self.store.database(db_id)
        except NotFound:
            for db in self.store.databases.values():
                if db.rid == db_id:
                    return db
            raise

    def _container(self, db_id: str, coll_id: str) -> Container:
        db = self._database(db_id)
        found = db.containers.get(coll_id)
        if found is None:
            for c in db.containers.values():
                if c.rid == coll_id:
                    return c  # type: ignore[no-any-return]
            raise NotFound(f"Resource Not Found. Container '{coll_id}' does not exist.")
        return found  # type: ignore[no-any-return]

    def create_database(self, ctx: Ctx) -> Reply:
        body = ctx.body if isinstance(ctx.body, dict) else {}
        db_id = body.get("id")
        if not isinstance(db_id, str) or not db_id:
            raise HttpError(400, MISSING_ID)
        throughput = _int_or_none(ctx.header("x-ms-offer-throughput"))
        db = self.store.create_database(db_id, throughput=throughput)
        return Reply(201, db.resource(), charges.METADATA_RU)

    def create_container(self, ctx: Ctx, db_id: str) -> Reply:
        body = ctx.body if isinstance(ctx.body, dict) else {}
        coll_id = body.get("id")
        if not isinstance(coll_id, str) or not coll_id:
            raise HttpError(400, MISSING_ID)
        definition = body.get("partitionKey")
        if not isinstance(definition, dict):
            raise HttpError(400, "A partition key definition is required for a new container.")
        throughput = _int_or_none(ctx.header("x-ms-offer-throughput"))
        extra = {
            k: v
            for k, v in body.items()
            if k not in ("id", "partitionKey", "defaultTtl", "indexingPolicy")
        }
        container = self.store.create_container(
            db_id,
            coll_id,
            KeyDefinition.from_resource(definition),
            default_ttl=body.get("defaultTtl"),
            indexing_policy=body.get("indexingPolicy"),
            throughput=throughput,
            extra=extra,
        )
        if throughput is not None and self.enforce_offers:
            self.faults.container_throughput(container.rid, float(throughput))
        return Reply(201, container.resource(), charges.METADATA_RU)

    def read_container(self, ctx: Ctx, container: Container) -> Reply:
        body = container.resource()
        headers: dict[str, str] = {"etag": container.etag}
        docs = [d for d in container.all_docs() if container.visible(d, self.store.now())]
        if ctx.flag("x-ms-documentdb-populatepartitionstatistics"):
            body["statistics"] = [
                {
                    "id": r.id,
                    "sizeInKB": sum(
                        d.size for d in r.docs.values() if container.visible(d, self.store.now())
                    )
                    // 1024,
                    "documentCount": sum(
                        1 for d in r.docs.values() if container.visible(d, self.store.now())
                    ),
                    "partitionKeys": [],
                }
                for r in container.ranges
            ]
        if ctx.flag("x-ms-documentdb-populatequotainfo"):
            size_kb = sum(d.size for d in docs) // 1024
            headers["x-ms-resource-usage"] = (
                f"documentSize={size_kb // 1024};documentsSize={size_kb};"
                f"documentsCount={len(docs)};collectionSize={size_kb};"
            )
            headers["x-ms-resource-quota"] = (
                "documentSize=51200;documentsSize=52428800;collectionSize=52428800;"
            )
        return Reply(200, body, charges.METADATA_RU, headers)

    def replace_container(self, ctx: Ctx, container: Container) -> Reply:
        body = ctx.body if isinstance(ctx.body, dict) else {}
        definition = body.get("partitionKey")
        if isinstance(definition, dict) and list(definition.get("paths") or []) != list(
            container.key.paths
        ):
            raise HttpError(400, "The partition key of a container cannot be changed.")
        ttl = body.get("defaultTtl")
        if ttl is not None and (
            isinstance(ttl, bool) or not isinstance(ttl, int) or not (ttl == -1 or ttl >= 1)
        ):
            raise HttpError(400, "The value of defaultTtl must be -1 or a positive integer.")
        container.default_ttl = ttl
        if isinstance(body.get("indexingPolicy"), dict):
            container.indexing_policy = body["indexingPolicy"]
        return Reply(200, container.resource(), charges.METADATA_RU)

    def read_pkranges(self, ctx: Ctx, container: Container) -> Reply:
        etag = ctx.header("if-none-match")
        headers = {"etag": container.pkranges_etag}
        if etag is not None and etag == container.pkranges_etag:
            return Reply(304, None, charges.PKRANGES_RU, headers)
        changed = container.changed_since(etag)
        ranges = container.ranges if changed is None else changed
        items = [r.resource(container) for r in ranges]
        body = {"_rid": container.rid, "PartitionKeyRanges": items, "_count": len(items)}
        return Reply(200, body, charges.PKRANGES_RU, headers, item_count=len(items))

    def _query_resources(self, ctx: Ctx, resources: list[dict[str, Any]], field_name: str) -> Reply:
        text, params = _query_of(ctx.body, "query")
        if text is None:
            raise HttpError(400, "The query body is missing.")
        query = parse(text)
        compiler = Compiler(query.from_alias, params_dict(params))
        where = compiler.compile(query.where) if query.where is not None else None
        projection = compile_projection(query, compiler)
        rows = []
        for res in resources:
            if where is None or where(res, None) is True:
                rows.append(projection(res, None))
        return Reply(
            200,
            {"_rid": "", field_name: rows, "_count": len(rows)},
            charges.METADATA_RU,
            item_count=len(rows),
        )

    # -- items ----------------------------------------------------------------------------------

    def _pk_values(self, ctx: Ctx, container: Container) -> tuple[Any, ...]:
        header = ctx.header("x-ms-documentdb-partitionkey")
        if header is None:
            raise HttpError(
                400,
                "PartitionKey value must be supplied for this operation.",
            )
        values = container.key.parse_header(header)
        if len(values) != len(container.key.paths):
            raise HttpError(
                400,
                "Partition key provided either doesn't correspond to definition in the collection.",
            )
        return values

    def _budget(self, container: Container, rng: PartitionRange) -> None:
        verdict = self.faults.budget_verdict(container.rid, rng.id, len(container.ranges))
        if verdict is not None:
            raise HttpError(
                429,
                headers={"x-ms-retry-after-ms": str(verdict.retry_after_ms)},
                sub_status=3200,
                range_id=rng.id,
                fault="throughput",
            )

    def read_item(self, ctx: Ctx, container: Container, item_id: str) -> Reply:
        values = self._pk_values(ctx, container)
        epk = container.key.epk(values)
        rng = container.range_for(epk)
        self._budget(container, rng)
        doc = container.find(epk, item_id, self.store.now())
        if doc is None:
            self.faults.consume(container.rid, rng.id, charges.NOT_FOUND_RU)
            raise HttpError(
                404,
                "Entity with the specified id does not exist in the system.",
                charge=charges.NOT_FOUND_RU,
                range_id=rng.id,
            )
        charge = charges.point_read(doc.size)
        self.faults.consume(container.rid, rng.id, charge)
        if ctx.header("if-none-match") == doc.etag:
            return Reply(304, None, charge, {"etag": doc.etag}, range_id=rng.id)
        return Reply(200, doc.body, charge, {"etag": doc.etag}, item_count=1, range_id=rng.id)

    def write_item(
        self, ctx: Ctx, container: Container, mode: str, item_id: str | None = None
    ) -> Reply:
        body = ctx.body
        if not isinstance(body, dict):
            raise HttpError(400, "The request body must be a JSON object.")
        if item_id is not None and body.get("id") != item_id:
            raise HttpError(400, "The id in the request body does not match the id in the path.")
        header_values = self._pk_values(ctx, container)
        if container.key.values_of(body) != header_values:
            raise HttpError(400, PK_MISMATCH, sub_status=1001)
        rng = container.range_for(container.key.epk(header_values))
        self._budget(container, rng)
        doc, created = container.write(
            body, self.store.now(), mode=mode, if_match=ctx.header("if-match")
        )
        charge = charges.write(doc.size)
        self.faults.consume(container.rid, rng.id, charge)
        minimal = (ctx.header("prefer") or "").lower() == "return=minimal"
        status = 201 if created else 200
        return Reply(
            status,
            None if minimal else doc.body,
            charge,
            {"etag": doc.etag},
            item_count=1,
            range_id=rng.id,
        )

    def delete_item(self, ctx: Ctx, container: Container, item_id: str) -> Reply:
        values = self._pk_values(ctx, container)
        epk = container.key.epk(values)
        rng = container.range_for(epk)
        self._budget(container, rng)
        doc = container.delete(epk, item_id, self.store.now())
        charge = charges.write(doc.size)
        self.faults.consume(container.rid, rng.id, charge)
        return Reply(204, None, charge, range_id=rng.id)

    def patch_item(self, ctx: Ctx, container: Container, item_id: str) -> Reply:
        values = self._pk_values(ctx, container)
        epk = container.key.epk(values)
        now = self.store.now()
        doc = container.find(epk, item_id, now)
        if doc is None:
            raise HttpError(
                404,
                "Entity with the specified id does not exist in the system.",
                charge=charges.NOT_FOUND_RU,
            )
        spec = ctx.body if isinstance(ctx.body, dict) else {}
        updated = json.loads(json.dumps(doc.body))
        for op in spec.get("operations") or []:
            _apply_patch(updated, op)
        condition = spec.get("condition")
        if isinstance(condition, str) and condition.strip():
            query = parse(f"SELECT * {condition}")
            compiler = Compiler(query.from_alias, {})
            if (
                query.where is not None
                and compiler.compile(query.where)(doc.body, None) is not True
            ):
                raise HttpError(412, PRECONDITION, charge=charges.NOT_FOUND_RU)
        if container.key.values_of(updated) != values:
            raise HttpError(400, "The partition key of an item cannot be patched.")
        new_doc, _ = container.write(updated, now, mode="replace")
        charge = charges.write(new_doc.size)
        return Reply(200, new_doc.body, charge, {"etag": new_doc.etag}, item_count=1)

    # -- queries ---------------------------------------------------------------------------------

    def query_plan(self, ctx: Ctx, container: Container) -> Reply:
        text, params = _query_of(ctx.body, "query")
        if text is None:
            raise HttpError(400, "The query body is missing.")
        query = parse(text)
        try:
            query_plan.check_supported(query, ctx.header("x-ms-cosmos-supported-query-features"))
        except query_plan.PlanRefused as exc:
            raise HttpError(400, str(exc)) from exc
        plan = query_plan.build(query, params_dict(params), container.key)
        return Reply(200, plan, charges.QUERY_PLAN_RU)

    def query(self, ctx: Ctx, container: Container, *, text_override: str | None = None) -> Reply:
        text, params = (
            (text_override, []) if text_override is not None else _query_of(ctx.body, "query")
        )
        if text is None:
            raise HttpError(400, "The query body is missing.")
        params_map = params_dict(params)
        prepared = prepared_for(text, params_map, container)
        now = self.store.now()
        max_items = ctx.max_items()
        token = ctx.header("x-ms-continuation")
        range_header = _range_header(ctx.headers)
        pk_header = ctx.header("x-ms-documentdb-partitionkey")
        key = container.key
        if range_header is not None:
            rng = container.range_by_id(range_header)
            if rng is None:
                raise HttpError(
                    410,
                    f"The partition key range {range_header!r} is gone (it was split or merged).",
                    sub_status=1002,
                )
            lo = max(ctx.header("x-ms-start-epk") or rng.min, rng.min)
            end = ctx.header("x-ms-end-epk")
            hi = rng.max if end is None else min(end, rng.max)
            scope = Scope(container, rng, now, lo=lo, hi=None if hi == MAX_EPK else hi)
            if pk_header is not None:
                values = key.parse_header(pk_header)
                if key.is_prefix(values):
                    plo, phi = key.prefix_range(values)
                    scope.lo, scope.hi = (
                        max(scope.lo, plo),
                        phi if scope.hi is None else min(scope.hi, phi),
                    )
                else:
                    scope.point = key.epk(values)
            return self._range_page(container, prepared, scope, max_items, token)
        if pk_header is not None:
            values = key.parse_header(pk_header)
            if not key.is_prefix(values):
                epk = key.epk(values)
                rng = container.range_for(epk)
                scope = Scope(container, rng, now, point=epk)
                return self._range_page(container, prepared, scope, max_items, token)
            plo, phi = key.prefix_range(values)
            targets = container.overlapping(plo, phi)
            if len(targets) == 1:
                scope = Scope(container, targets[0], now, lo=plo, hi=phi)
                return self._range_page(container, prepared, scope, max_items, token)
            if query_plan.needs_plan(prepared.query):
                raise self._not_servable(ctx, prepared.query, params_map, container)
            return self._fan_out(container, prepared, max_items, token, plo, phi)
        if not ctx.flag("x-ms-documentdb-query-enablecrosspartition"):
            raise HttpError(
                400,
                "Cross partition query is required but disabled. Please set "
                "x-ms-documentdb-query-enablecrosspartition to true, specify "
                "x-ms-documentdb-partitionkey, or revise your query to avoid this exception.",
            )
        if query_plan.needs_plan(prepared.query):
            raise self._not_servable(ctx, prepared.query, params_map, container)
        return self._fan_out(container, prepared, max_items, token, "", MAX_EPK)

    def read_feed(self, ctx: Ctx, container: Container) -> Reply:
        """``GET …/docs`` (read_all_items): a ``SELECT * FROM c`` the gateway serves."""
        ctx.headers.setdefault("x-ms-documentdb-query-enablecrosspartition", "true")
        return self.query(ctx, container, text_override="SELECT * FROM c")

    def _not_servable(
        self, ctx: Ctx, query: Any, params: dict[str, Any], container: Container
    ) -> HttpError:
        plan = query_plan.build(query, params, container.key)
        body = query_plan.not_servable_body(plan, ctx.entry.activity_id)
        return HttpError(400, body["message"], sub_status=1004, body=body)

    def _range_page(
        self,
        container: Container,
        prepared: Any,
        scope: Scope,
        max_items: int | None,
        token: str | None,
    ) -> Reply:
        rng = scope.range
        self._budget(container, rng)
        page = run_page(prepared, scope, max_items, token, max_visits=self.max_visits_per_page)
        return self._page_reply(container, rng, page.rows, page.meter, page.token)

    def _page_reply(
        self,
        container: Container,
        rng: PartitionRange,
        rows: list[Any],
        meter: Meter,
        token: str | None,
    ) -> Reply:
        meter.result_bytes = len(
            json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        )
        charge = meter.charge()
        self.faults.consume(container.rid, rng.id, charge)
        body = {"_rid": container.rid, "Documents": rows, "_count": len(rows)}
        headers = {"x-ms-item-count": str(len(rows)), "x-ms-documentdb-partitionkeyrangeid": rng.id}
        return Reply(
            200, body, charge, headers, item_count=len(rows), continuation=token, range_id=rng.id
        )

    def _fan_out(
        self,
        container: Container,
        prepared: Any,
        max_items: int | None,
        token: str | None,
        lo: str,
        hi: str,
    ) -> Reply:
        """The gateway's own cross-partition execution: one range per request, in EPK
        order, with a composite continuation naming the range to resume."""
        inner: str | None = None
        start = lo
        if token:
            entries = decode_composite(token)
            inner, start, _ = entries[0]
        rng = container.range_for(start)
        scope_lo = max(start, rng.min, lo)
        scope_hi = rng.max if hi == MAX_EPK else min(rng.max, hi)
        scope = Scope(
            container,
            rng,
            self.store.now(),
            lo=scope_lo,
            hi=None if scope_hi == MAX_EPK else scope_hi,
        )
        self._budget(container, rng)
        page = run_page(prepared, scope, max_items, inner, max_visits=self.max_visits_per_page)
        out: str | None = None
        if page.token is not None:
            out = encode_composite([(page.token, scope_lo, rng.max)])
        elif rng.max != MAX_EPK and rng.max < hi:
            nxt = container.range_for(rng.max)
            out = encode_composite([(None, nxt.min, nxt.max)])
        return self._page_reply(container, rng, page.rows, page.meter, out)


def _apply_patch(doc: dict[str, Any], op: Any) -> None:
    if not isinstance(op, dict):
        raise HttpError(400, "Invalid patch operation.")
    kind = str(op.get("op", "")).lower()
    steps = [s for s in str(op.get("path", "")).split("/") if s]
    if not steps:
        raise HttpError(400, "Patch operations need a path.")
    parent: Any = doc
    for step in steps[:-1]:
        parent = parent[int(step)] if isinstance(parent, list) else parent.setdefault(step, {})
    last = steps[-1]
    if isinstance(parent, list):
        index = len(parent) if last == "-" else int(last)
        if kind in ("add", "set"):
            parent.insert(index, op.get("value"))
        elif kind == "replace":
            parent[index] = op.get("value")
        elif kind == "remove":
            del parent[index]
        elif kind == "incr":
            parent[index] += op.get("value", 0)
        return
    if kind in ("add", "set"):
        parent[last] = op.get("value")
    elif kind == "replace":
        if last not in parent:
            raise HttpError(400, f"Patch replace of a missing path /{'/'.join(steps)}.")
        parent[last] = op.get("value")
    elif kind == "remove":
        if last not in parent:
            raise HttpError(400, f"Patch remove of a missing path /{'/'.join(steps)}.")
        del parent[last]
    elif kind == "incr":
        parent[last] = parent.get(last, 0) + op.get("value", 0)
    else:
        raise HttpError(400, f"Unsupported patch operation {kind!r}.")


def params_dict(params: list[dict[str, Any]] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in params or []:
        name = p.get("name")
        if isinstance(name, str):
            out[name] = p.get("value")
    return out


def _query_of(body: Any, kind: str) -> tuple[str | None, list[dict[str, Any]]]:
    if kind not in ("query", "query-plan", "metadata") or not isinstance(body, dict):
        return None, []
    text = body.get("query")
    params = body.get("parameters") or []
    return (text if isinstance(text, str) else None), (params if isinstance(params, list) else [])


def _range_header(headers: dict[str, str]) -> str | None:
    raw = headers.get("x-ms-documentdb-partitionkeyrangeid")
    if raw is None:
        return None
    return raw.split(",")[-1].strip()


def _int_or_none(raw: str | None) -> int | None:
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        return None


def _bad_request_message(exc: Exception) -> str:
    if isinstance(exc, SqlError):
        return json.dumps(
            {"errors": [{"severity": "Error", "code": "SC1001", "message": str(exc)}]},
            separators=(",", ":"),
        )
    return str(exc)
