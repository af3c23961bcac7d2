"""Change records from what a feed returns: one builder for every backend.

The local change log, the Cosmos change feed and the fake server all hand a version's
body (or, for a removal, an id and a partition key) to these functions, so a write
reads as the same ``Change`` on each: thread, order, role, one-line preview and text
digest as the schema maps them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from cosmem_tui.model import MISSING, Item, JsonValue, ThreadRef
from cosmem_tui.model.changes import Change, ChangeOp
from cosmem_tui.model.keys import InvalidKey, Key
from cosmem_tui.schemas import Schema
from cosmem_tui.schemas.mapping import turns_from_item
from cosmem_tui.schemas.paths import FieldPath

PREVIEW_CHARS = 200  # raw characters kept for a row's preview: a row shows less


def ref_of_body(schema: Schema, body: Mapping[str, JsonValue]) -> ThreadRef | None:
    thread = schema.thread_key_of(body)
    if thread is None:
        return None
    if schema.has_tenant_level:
        tenant = schema.tenant_key_of(body)
        if tenant is None:
            return None
        return ThreadRef(tenant, thread)
    return ThreadRef(None, thread)


def body_of_partition_key(
    schema: Schema, partition_key: Sequence[JsonValue]
) -> dict[str, JsonValue]:
    """A body holding only the partition key's values (all a delete carries)."""
    body: dict[str, JsonValue] = {}
    for path_text, value in zip(schema.partition_key, partition_key, strict=False):
        path = FieldPath.parse(path_text)
        node = body
        for part in path.parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                break
            node = child
        else:
            node[path.parts[-1]] = value
    return body


def text_digest(text: str) -> str:
    """Twelve hex digits of the text's BLAKE2b: equal texts, equal digests."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()


def _stored(value: JsonValue) -> JsonValue:
    return None if value is MISSING else value


def version_change(
    schema: Schema,
    body: Mapping[str, JsonValue],
    *,
    lsn: int,
    op: ChangeOp,
    commit_time: int | None = None,
    partition_key: Sequence[JsonValue] = (),
    previous_lsn: int | None = None,
    request_units: float = 0.0,
) -> Change:
    """A create, replace or (latest-version) write: the version's body as the feed gave it."""
    raw_ts = body.get("_ts")
    ts = int(raw_ts) if isinstance(raw_ts, int | float) and not isinstance(raw_ts, bool) else 0
    item_id = body.get("id")
    item = Item(
        id=item_id if isinstance(item_id, str) else str(item_id),
        partition_key=tuple(partition_key),
        ts=ts,
        etag=str(body.get("_etag", "")),
        body=body,
    )
    turns = turns_from_item(schema, item, None)
    texts = [m.text for turn in turns for m in turn.messages]
    roles = [role for turn in turns for role in turn.roles]
    text = "\n".join(texts)
    order = _stored(turns[0].order) if turns else None
    return Change(
        lsn=lsn,
        op=op,
        commit_time=ts if commit_time is None else int(commit_time),
        item_id=item.id,
        ref=ref_of_body(schema, body),
        partition_key=tuple(partition_key),
        order=order,
        ts=ts,
        ttl=_stored(body.get("ttl", MISSING)),
        kind=turns[0].kind if turns else None,
        role=roles[0] if roles else None,
        preview=" ".join(text[: PREVIEW_CHARS * 2].split())[:PREVIEW_CHARS],
        digest=text_digest(text),
        previous_lsn=previous_lsn,
        request_units=request_units,
    )


def removal_change(
    schema: Schema,
    item_id: str,
    partition_key: Sequence[JsonValue],
    *,
    lsn: int,
    commit_time: int,
    ttl_expired: bool,
    previous_lsn: int | None = None,
    request_units: float = 0.0,
) -> Change:
    """A delete (or a TTL purge): only the id and the partition key are known."""
    body = body_of_partition_key(schema, partition_key)
    try:
        ref = ref_of_body(schema, body)
    except InvalidKey:
        ref = None
    return Change(
        lsn=lsn,
        op=ChangeOp.EXPIRED if ttl_expired else ChangeOp.DELETE,
        commit_time=int(commit_time),
        item_id=item_id,
        ref=ref,
        partition_key=tuple(partition_key),
        previous_lsn=previous_lsn,
        request_units=request_units,
    )


def in_scope(change: Change, tenant: Key | None, thread: ThreadRef | None) -> bool:
    """Does a change belong to a tenant (key prefix) or a thread? (None: the container.)"""
    if thread is not None:
        return change.ref == thread
    if tenant is not None:
        return change.ref is not None and change.ref.tenant == tenant
    return True
