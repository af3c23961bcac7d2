"""An item's stored columns (``ItemColumns.row``) against the plain reading they replace.

``reference_row`` is the row computation as it was written before the import was made a
bulk load: one helper per column (``derive_keys``, ``partition_key_of``,
``item_expiry``, ``pk_text``), nothing remembered, nothing inlined. The fast version
must give the same columns, or refuse with the same message, for any item.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosmem_tui.model import MISSING
from cosmem_tui.model.ttl import MAX_TTL
from cosmem_tui.schemas import FieldPath, Schema
from cosmem_tui.schemas.registry import builtin_schemas
from cosmem_tui.schemas.schema import Granularity, TypedField, ValueType
from cosmem_tui.sources.local import columns
from cosmem_tui.sources.local.columns import COLUMNS, ItemColumns, ItemRejected
from cosmem_tui.sources.local.keys import (
    COMPACT,
    derive_keys,
    item_expiry,
    partition_key_of,
    pk_text,
)

NOW = 1_795_996_800
ETAG = '"00000000-0000-0000-0000-000000000001"'
ASCII = json.JSONEncoder(separators=(",", ":"))
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
LATEST_TS = INT64_MAX - MAX_TTL


def _digits(number: int) -> str:
    text = str(number)
    return text if len(text) <= 30 else f"{text[:12]}…({len(text)} digits)"


def reference_row(
    body: Any, schema: Schema, default_ttl: int | None, text: str | None
) -> dict[str, Any]:
    """The row as computed before ``ItemColumns`` (one generic step per column)."""
    pk_paths = tuple(FieldPath.parse(p) for p in schema.partition_key)
    if not isinstance(body, Mapping):
        raise ItemRejected("item is not a JSON object")
    item_id = body.get("id")
    if not isinstance(item_id, str) or not item_id:
        raise ItemRejected("item has no string 'id'")
    pk = partition_key_of(pk_paths, body)
    missing = [p.text for p, v in zip(pk_paths, pk, strict=True) if v is MISSING]
    if missing:
        raise ItemRejected(f"item {item_id!r} has no partition key value at {', '.join(missing)}")
    doc = body
    ts = body.get("_ts")
    etag = body.get("_etag")
    if isinstance(ts, bool) or not isinstance(ts, int) or not isinstance(etag, str):
        doc = dict(body)
        if isinstance(ts, bool) or not isinstance(ts, int):
            ts = NOW
            doc["_ts"] = ts
        if not isinstance(etag, str):
            etag = ETAG
            doc["_etag"] = etag
        text = None
    if text is None:
        text = COMPACT.encode(doc)
    keys = derive_keys(schema, doc)
    if not INT64_MIN <= ts <= LATEST_TS:
        raise ItemRejected(
            f"_ts {_digits(ts)} is out of range: a workspace holds epoch seconds up to "
            f"{LATEST_TS} (a 64-bit number with room for _ts + ttl)"
        )
    name = schema.order.path.text.lstrip("/").replace("/", ".") if schema.order else "order"
    order_value = keys.order_value
    if isinstance(order_value, int) and not INT64_MIN <= order_value <= INT64_MAX:
        raise ItemRejected(
            f"{name} {_digits(order_value)} is past the 64-bit integers a workspace orders turns by"
        )
    if isinstance(order_value, float) and not math.isfinite(order_value):
        raise ItemRejected(f"{name} is {order_value}, not a finite number")
    row: dict[str, Any] = {
        "pk": pk_text(pk),
        "id": item_id,
        "ts": ts,
        "etag": etag,
        "expires_at": item_expiry(doc, ts, default_ttl),
        "tenant_key": keys.tenant_key,
        "thread_key": keys.thread_key,
        "order_rank": keys.order_rank,
        "order_value": keys.order_value,
    }
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        text = ASCII.encode(doc)
        size = len(text)
    joined = "\x00".join(v for v in row.values() if isinstance(v, str))
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ItemRejected(
            f"item {row['id']!r} has a lone surrogate ({joined[exc.start]!r}) in its id or keys,"
            " which cannot be stored"
        ) from None
    row["size_bytes"] = size
    row["body"] = text
    return row


NESTED = Schema(  # every path below the top level, so FieldPath.get walks each
    name="nested",
    title="nested paths",
    partition_key=("/who/tenant", "/who/thread"),
    tenant=FieldPath.parse("/who/tenant"),
    thread=FieldPath.parse("/who/thread"),
    granularity=Granularity.MESSAGE,
    order=TypedField(FieldPath.parse("/meta/order"), ValueType.INT),
)
APART = Schema(  # a thread that is not in the partition key: its key text is checked alone
    name="apart",
    title="thread apart from the key",
    partition_key=("/tenantId",),
    tenant=FieldPath.parse("/tenantId"),
    thread=FieldPath.parse("/threadId"),
    granularity=Granularity.MESSAGE,
    order=TypedField(FieldPath.parse("/turnIndex"), ValueType.INT),
)
SCHEMAS = [builtin_schemas()[n] for n in ("lab", "thread", "amt", "maf-dotnet-hpk")]
TENANT_APART = Schema(  # a tenant that is not in the partition key
    name="tenant-apart",
    title="tenant apart from the key",
    partition_key=("/threadId",),
    tenant=FieldPath.parse("/tenantId"),
    thread=FieldPath.parse("/threadId"),
    granularity=Granularity.MESSAGE,
)
SCHEMAS += [NESTED, APART, TENANT_APART]

surrogate_text = st.text(
    st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()), max_size=6
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1, LATEST_TS, LATEST_TS + 1, -1, 0]),
    st.floats(),
    surrogate_text,
    st.sampled_from(["42", "true", "null", " x", "", "[1]", '"q"', "user-1", "thread-1"]),
    st.sampled_from(["\ud800", "lone \udfff", "é", "\U0001f600"]),  # JSON may hold these
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=2),
    st.dictionaries(st.text(max_size=3), scalars, max_size=2),
)
FIELDS = [
    "id",
    "tenantId",
    "threadId",
    "turnIndex",
    "user_id",
    "thread_id",
    "created_at",
    "userId",
    "sessionId",
    "ttl",
    "_ts",
    "_etag",
    "type",
    "messages",
]


@st.composite
def bodies(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 30)) == 0:
        return draw(st.one_of(scalars, st.lists(scalars, max_size=2)))
    body: dict[str, Any] = {}
    for field in FIELDS:
        choice = draw(st.integers(0, 5))
        if choice == 0:
            continue  # absent
        if choice <= 2 and field in ("id", "tenantId", "threadId", "user_id", "thread_id"):
            body[field] = draw(st.sampled_from(["a", "b", "user-1", "ünï", "42"]))
        elif choice <= 2 and field in ("_ts", "ttl", "turnIndex"):
            body[field] = draw(
                st.one_of(st.integers(-5, 2**31), st.sampled_from([-2, -1, 0, 1, MAX_TTL + 1]))
            )
        elif choice <= 2 and field == "_etag":
            body[field] = '"e"'
        else:
            body[field] = draw(values)
    if draw(st.booleans()):
        body["who"] = {"tenant": draw(values), "thread": draw(values)}
        body["meta"] = {"order": draw(values)}
    return body


def _computed(maker: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "row", maker(*args)
    except ItemRejected as exc:
        return "rejected", str(exc)


def _same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    """Equal, NaN order values included (a row never holds one: it is refused)."""
    return repr(a) == repr(b)


@settings(max_examples=1500, deadline=None)
@given(
    body=bodies(),
    schema=st.sampled_from(SCHEMAS),
    default_ttl=st.sampled_from([None, -1, 3600]),
    with_text=st.booleans(),
)
def test_item_columns_are_the_plain_reading(body, schema, default_ttl, with_text):
    text = None
    if with_text:
        try:
            text = json.dumps(body, ensure_ascii=False)
            text.encode("utf-8")
        except (UnicodeEncodeError, ValueError):
            text = None
    pk_paths = tuple(FieldPath.parse(p) for p in schema.partition_key)
    made = ItemColumns(pk_paths, schema, default_ttl, NOW)
    original = columns._etag
    columns._etag = lambda: ETAG  # type: ignore[assignment]
    try:
        fast = _computed(lambda: dict(zip(COLUMNS, made.row(body, text), strict=True)))
        again = _computed(lambda: dict(zip(COLUMNS, made.row(body, text), strict=True)))
    finally:
        columns._etag = original  # type: ignore[assignment]
    plain = _computed(reference_row, body, schema, default_ttl, text)
    assert _same(fast, plain), (fast, plain)
    assert _same(again, plain)  # a second time, from the remembered key texts


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: s.name)
def test_a_key_remembered_for_a_string_is_never_given_to_another_type(schema):
    """The caches are keyed by strings: True, 1 and 1.0 hash alike and compare equal."""
    pk_paths = tuple(FieldPath.parse(p) for p in schema.partition_key)
    made = ItemColumns(pk_paths, schema, None, NOW)
    texts = set()
    for value in ("1", 1, True, 1.0, "True", "true"):
        body = {
            field: value
            for field in ("tenantId", "threadId", "user_id", "thread_id", "userId", "sessionId")
        }
        body.update(id="x", _ts=1, _etag="e", who={"tenant": value, "thread": value})
        row = made.row(body)
        assert row[:1] + row[5:7] == tuple(
            reference_row(body, schema, None, None)[c] for c in ("pk", "tenant_key", "thread_key")
        )
        texts.add(row[0])
    assert len(texts) == 6


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: s.name)
@pytest.mark.parametrize("field", ["id", "tenant", "thread", "order", "content"])
@pytest.mark.parametrize("odd", ["lone \ud800", "\udfff", "é and \U0001f600", "plain"])
def test_a_lone_surrogate_is_refused_in_each_key_and_kept_in_content(schema, field, odd):
    body: dict[str, Any] = {"id": "x", "_ts": 1, "_etag": "e", "note": "n"}
    for path in (*schema.partition_key, *(p.text for p in schema.thread_paths)):
        FieldPath.parse(path)  # every key level gets a plain value first
        _put(body, path, "k")
    target = {
        "id": "/id",
        "tenant": schema.tenant.text if schema.tenant else "/id",
        "thread": schema.thread.text,
        "order": schema.order.path.text if schema.order else "/id",
        "content": "/note",
    }[field]
    _put(body, target, odd)
    made = ItemColumns(tuple(FieldPath.parse(p) for p in schema.partition_key), schema, -1, NOW)
    fast = _computed(lambda: dict(zip(COLUMNS, made.row(body), strict=True)))
    plain = _computed(reference_row, body, schema, -1, None)
    assert _same(fast, plain), (fast, plain)
    if odd.startswith(("lone", "\udfff")):
        assert fast[0] == ("row" if field == "content" else "rejected")


def _put(body: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = FieldPath.parse(path).parts
    for part in parents:
        body = body.setdefault(part, {})
    body[last] = value
