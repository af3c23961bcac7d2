"""Account, database, container and partition-key-range routes.

``GET /`` advertises the fake itself as the account's only (read and write) region, so
the SDK's endpoint discovery keeps talking to it. ``…/pkranges`` is the change feed of
the container's physical ranges the SDK's routing-map cache reads: the full list and
an ETag, then ``304`` for ``If-None-Match`` with that ETag, and only the new ranges
(with their ``parents``) after a split.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fake_cosmos import charges
from tests.fake_cosmos.ranges import KeyDefinition
from tests.fake_cosmos.sql_eval import Compiler, compile_projection
from tests.fake_cosmos.sql_parser import parse
from tests.fake_cosmos.store import MISSING_ID, Container, NotFound
from tests.fake_cosmos.wire import Ctx, Env, HttpError, Reply, int_or_none, params_dict, query_of


def account(env: Env) -> dict[str, Any]:
    location = [{"name": "Fake Region", "databaseAccountEndpoint": env.endpoint + "/"}]
    return {
        "_self": "",
        "id": "fake-gateway",
        "_rid": env.endpoint.split("//")[-1],
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


def database(env: Env, db_id: str) -> Any:
    try:
        return env.store.database(db_id)
    except NotFound:
        for db in env.store.databases.values():
            if db.rid == db_id:
                return db
        raise


def container(env: Env, db_id: str, coll_id: str) -> Container:
    db = database(env, db_id)
    found = db.containers.get(coll_id)
    if found is None:
        for c in db.containers.values():
            if c.rid == coll_id:
                return c  # type: ignore[no-any-return]
        raise NotFound(f"Resource Not Found. Container '{coll_id}' does not exist.")
    return found  # type: ignore[no-any-return]


def create_database(env: Env, ctx: Ctx) -> Reply:
    body = ctx.body if isinstance(ctx.body, dict) else {}
    db_id = body.get("id")
    if not isinstance(db_id, str) or not db_id:
        raise HttpError(400, MISSING_ID)
    throughput = int_or_none(ctx.header("x-ms-offer-throughput"))
    db = env.store.create_database(db_id, throughput=throughput)
    return Reply(201, db.resource(), charges.METADATA_RU)


def create_container(env: Env, ctx: Ctx, db_id: str) -> Reply:
    body = ctx.body if isinstance(ctx.body, dict) else {}
    coll_id = body.get("id")
    if not isinstance(coll_id, str) or not coll_id:
        raise HttpError(400, MISSING_ID)
    definition = body.get("partitionKey")
    if not isinstance(definition, dict):
        raise HttpError(400, "A partition key definition is required for a new container.")
    throughput = int_or_none(ctx.header("x-ms-offer-throughput"))
    extra = {
        k: v
        for k, v in body.items()
        if k not in ("id", "partitionKey", "defaultTtl", "indexingPolicy")
    }
    container = env.store.create_container(
        db_id,
        coll_id,
        KeyDefinition.from_resource(definition),
        default_ttl=body.get("defaultTtl"),
        indexing_policy=body.get("indexingPolicy"),
        throughput=throughput,
        extra=extra,
    )
    if throughput is not None and env.enforce_offers:
        env.faults.container_throughput(container.rid, float(throughput))
    return Reply(201, container.resource(), charges.METADATA_RU)


def read_container(env: Env, ctx: Ctx, container: Container) -> Reply:
    body = container.resource()
    headers: dict[str, str] = {"etag": container.etag}
    docs = [d for d in container.all_docs() if container.visible(d, env.store.now())]
    if ctx.flag("x-ms-documentdb-populatepartitionstatistics"):
        body["statistics"] = [
            {
                "id": r.id,
                "sizeInKB": sum(
                    d.size for d in r.docs.values() if container.visible(d, env.store.now())
                )
                // 1024,
                "documentCount": sum(
                    1 for d in r.docs.values() if container.visible(d, env.store.now())
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


def replace_container(env: Env, ctx: Ctx, container: Container) -> Reply:
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


def read_pkranges(env: Env, ctx: Ctx, container: Container) -> Reply:
    etag = ctx.header("if-none-match")
    headers = {"etag": container.pkranges_etag}
    if etag is not None and etag == container.pkranges_etag:
        return Reply(304, None, charges.PKRANGES_RU, headers)
    changed = container.changed_since(etag)
    ranges = container.ranges if changed is None else changed
    items = [r.resource(container) for r in ranges]
    body = {"_rid": container.rid, "PartitionKeyRanges": items, "_count": len(items)}
    return Reply(200, body, charges.PKRANGES_RU, headers, item_count=len(items))


def query_resources(env: Env, ctx: Ctx, resources: list[dict[str, Any]], field_name: str) -> Reply:
    text, params = query_of(ctx.body, "query")
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
