"""Point operations on items: read, create, upsert, replace, delete and patch.

Every one names a full partition key in ``x-ms-documentdb-partitionkey``; a write whose
body disagrees with it is refused (400 / 1001) as the service refuses it. Charges
follow ``charges``; the owning range's RU/s budget applies.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fake_cosmos import charges
from tests.fake_cosmos.sql_eval import Compiler
from tests.fake_cosmos.sql_parser import parse
from tests.fake_cosmos.store import PRECONDITION, Container
from tests.fake_cosmos.wire import Ctx, Env, HttpError, Reply, budget

PK_MISMATCH = "PartitionKey extracted from document doesn't match the one specified in the header."


def pk_values(env: Env, ctx: Ctx, container: Container) -> tuple[Any, ...]:
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


def read_item(env: Env, ctx: Ctx, container: Container, item_id: str) -> Reply:
    values = pk_values(env, ctx, container)
    epk = container.key.epk(values)
    rng = container.range_for(epk)
    budget(env, container, rng)
    doc = container.find(epk, item_id, env.store.now())
    if doc is None:
        env.faults.consume(container.rid, rng.id, charges.NOT_FOUND_RU)
        raise HttpError(
            404,
            "Entity with the specified id does not exist in the system.",
            charge=charges.NOT_FOUND_RU,
            range_id=rng.id,
        )
    charge = charges.point_read(doc.size)
    env.faults.consume(container.rid, rng.id, charge)
    if ctx.header("if-none-match") == doc.etag:
        return Reply(304, None, charge, {"etag": doc.etag}, range_id=rng.id)
    return Reply(200, doc.body, charge, {"etag": doc.etag}, item_count=1, range_id=rng.id)


def write_item(
    env: Env, ctx: Ctx, container: Container, mode: str, item_id: str | None = None
) -> Reply:
    body = ctx.body
    if not isinstance(body, dict):
        raise HttpError(400, "The request body must be a JSON object.")
    if item_id is not None and body.get("id") != item_id:
        raise HttpError(400, "The id in the request body does not match the id in the path.")
    header_values = pk_values(env, ctx, container)
    if container.key.values_of(body) != header_values:
        raise HttpError(400, PK_MISMATCH, sub_status=1001)
    rng = container.range_for(container.key.epk(header_values))
    budget(env, container, rng)
    doc, created = container.write(
        body, env.store.now(), mode=mode, if_match=ctx.header("if-match")
    )
    charge = charges.write(doc.size)
    env.faults.consume(container.rid, rng.id, charge)
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


def delete_item(env: Env, ctx: Ctx, container: Container, item_id: str) -> Reply:
    values = pk_values(env, ctx, container)
    epk = container.key.epk(values)
    rng = container.range_for(epk)
    budget(env, container, rng)
    doc = container.delete(epk, item_id, env.store.now())
    charge = charges.write(doc.size)
    env.faults.consume(container.rid, rng.id, charge)
    return Reply(204, None, charge, range_id=rng.id)


def patch_item(env: Env, ctx: Ctx, container: Container, item_id: str) -> Reply:
    values = pk_values(env, ctx, container)
    epk = container.key.epk(values)
    now = env.store.now()
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
        apply_patch(updated, op)
    condition = spec.get("condition")
    if isinstance(condition, str) and condition.strip():
        query = parse(f"SELECT * {condition}")
        compiler = Compiler(query.from_alias, {})
        if query.where is not None and compiler.compile(query.where)(doc.body, None) is not True:
            raise HttpError(412, PRECONDITION, charge=charges.NOT_FOUND_RU)
    if container.key.values_of(updated) != values:
        raise HttpError(400, "The partition key of an item cannot be patched.")
    new_doc, _ = container.write(updated, now, mode="replace")
    charge = charges.write(new_doc.size)
    return Reply(200, new_doc.body, charge, {"etag": new_doc.etag}, item_count=1)


# -- queries ---------------------------------------------------------------------------------


def apply_patch(doc: dict[str, Any], op: Any) -> None:
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
