"""The stored columns of one item: validated, derived, ready for the ``items`` table.

``ItemColumns`` is made once per schema, container setting and import time, so what
depends only on those (which paths are read, the default ttl, the message texts) is
worked out once rather than per item; key texts, which repeat across the items of a
thread, are remembered (a bounded cache). An import computes a row per item, so a row
is a plain tuple in ``COLUMNS`` order, bound to a positional ``INSERT``.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping
from typing import Final, TypeAlias

from cosmem_tui.model import MISSING, JsonValue
from cosmem_tui.model.ordering import RANK_STRING, order_key
from cosmem_tui.model.ttl import MAX_TTL, valid_item_ttl
from cosmem_tui.schemas import FieldPath, Schema
from cosmem_tui.sources.local.keys import COMPACT, key_text, pk_text


class ItemRejected(ValueError):
    """An item that cannot be stored (no id, no partition key value, not an object)."""


COLUMNS = (
    "pk",
    "id",
    "ts",
    "etag",
    "expires_at",
    "tenant_key",
    "thread_key",
    "order_rank",
    "order_value",
    "size_bytes",
    "body",
)
EXPIRES_AT: Final = 4  # COLUMNS.index("expires_at"), a literal so a row's type is known
# pk, id, ts, etag, expires_at, tenant_key, thread_key, order_rank, order_value,
# size_bytes, body
Row: TypeAlias = tuple[
    str, str, int, str, int | None, str | None, str | None, int, int | float | str, int, str
]

ASCII = json.JSONEncoder(separators=(",", ":"))  # \\u escapes for what UTF-8 cannot hold

# SQLite stores 64-bit integers. _ts is kept MAX_TTL below the top so that _ts + ttl, the
# expiry column, fits whatever ttl the item (or a later DefaultTimeToLive) brings.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
LATEST_TS = INT64_MAX - MAX_TTL

_CACHED_KEYS = 1 << 16  # key texts remembered per kind; the cache starts over when full


def _etag() -> str:
    return f'"{uuid.uuid4()}"'


def _digits(number: int) -> str:
    text = str(number)  # at most ~310 digits: larger ones are refused as they are read
    return text if len(text) <= 30 else f"{text[:12]}…({len(text)} digits)"


def _top(path: FieldPath | None) -> str | None:
    """The property a top-level path names (read with ``Mapping.get``, as
    ``FieldPath.get`` would), else None (``FieldPath.get`` walks it)."""
    return path.top if path is not None and path.is_top_level else None


class ItemColumns:
    """Computes an item's row: refuses what no workspace can hold, with the reason."""

    def __init__(
        self,
        pk_paths: tuple[FieldPath, ...],
        schema: Schema,
        default_ttl: int | None,
        now: int,
    ) -> None:
        self._pk_paths = pk_paths
        names = tuple(p.top for p in pk_paths if p.is_top_level)
        self._pk_names = names if len(names) == len(pk_paths) else None
        self._pk_missing = (MISSING,) * len(pk_paths)
        self._schema = schema
        self._default_ttl = default_ttl
        self._now = now
        self._tenant = schema.tenant
        self._tenant_name = _top(schema.tenant)
        # A thread named by one field has the key text of that field's value; one named
        # by several (thread_parents) is a composite, left to the schema.
        self._thread = schema.thread if not schema.thread_parents else None
        self._thread_name = _top(self._thread)
        self._order = schema.order.path if schema.order is not None else None
        self._order_name = _top(self._order)
        self._order_label = (
            schema.order.path.text.lstrip("/").replace("/", ".") if schema.order else "order"
        )
        self._pk_texts: dict[tuple[JsonValue, ...], str] = {}
        self._key_texts: dict[str, str | None] = {}

    def row(self, body: Mapping[str, JsonValue], text: str | None = None) -> Row:
        """Validate one item and compute its columns; fills in missing system properties.

        ``text`` is the item's JSON as read (an import passes it): stored as is when no
        system property had to be filled in, which saves encoding the item again.
        Raises ``ItemRejected`` with the reason when the item cannot be stored.

        This runs once per imported item, so the usual case (top-level fields holding
        strings) is written out inline; every other case goes through the same helpers
        as the rest of the workspace (``FieldPath.get``, ``key_text``, ``order_key``).
        """
        if type(body) is not dict and not isinstance(body, Mapping):
            raise ItemRejected("item is not a JSON object")
        item_id = body.get("id")
        if not isinstance(item_id, str) or not item_id:
            raise ItemRejected("item has no string 'id'")
        names = self._pk_names
        if names is not None:
            get = body.get
            if len(names) == 2:  # the usual hierarchical key, spelled out (no map object)
                pk: tuple[JsonValue, ...] = (get(names[0], MISSING), get(names[1], MISSING))
            else:
                pk = tuple(map(get, names, self._pk_missing))
        else:
            pk = tuple([p.get(body) for p in self._pk_paths])
        if MISSING in pk:
            missing = [p.text for p, v in zip(self._pk_paths, pk, strict=True) if v is MISSING]
            raise ItemRejected(
                f"item {item_id!r} has no partition key value at {', '.join(missing)}"
            )
        doc = body
        ts = body.get("_ts")
        etag = body.get("_etag")
        if not (type(ts) is int and type(etag) is str) and (
            isinstance(ts, bool) or not isinstance(ts, int) or not isinstance(etag, str)
        ):
            doc = dict(body)
            if isinstance(ts, bool) or not isinstance(ts, int):
                ts = self._now
                doc["_ts"] = ts
            if not isinstance(etag, str):
                etag = _etag()
                doc["_etag"] = etag
            text = None
        if text is None:
            text = COMPACT.encode(doc)

        known = self._key_texts
        tenant_key = None
        if self._tenant is not None:
            name = self._tenant_name
            value = doc.get(name, MISSING) if name is not None else self._tenant.get(doc)
            tenant_key = known.get(value) if type(value) is str else None
            if tenant_key is None:
                tenant_key = self._key_text(value)
        if self._thread is not None:
            name = self._thread_name
            value = doc.get(name, MISSING) if name is not None else self._thread.get(doc)
            thread_key = known.get(value) if type(value) is str else None
            if thread_key is None:
                thread_key = self._key_text(value)
        else:
            thread_key = self._schema.thread_key(doc)
        if self._order is None:
            value = MISSING
        else:
            name = self._order_name
            value = doc.get(name, MISSING) if name is not None else self._order.get(doc)
        rank, order_value = (RANK_STRING, value) if type(value) is str else order_key(value)
        if not INT64_MIN <= ts <= LATEST_TS:  # SQLite's integers, less room for a ttl
            raise ItemRejected(
                f"_ts {_digits(ts)} is out of range: a workspace holds epoch seconds up to "
                f"{LATEST_TS} (a 64-bit number with room for _ts + ttl)"
            )
        if rank != RANK_STRING:
            self._check_order(order_value)

        expires_at = None
        if self._default_ttl is not None:  # keys.item_expiry, inline
            ttl = doc.get("ttl", MISSING)
            if type(ttl) is not int or not (ttl == -1 or 1 <= ttl <= MAX_TTL):
                ttl = valid_item_ttl(ttl)
            effective = ttl if ttl is not None else self._default_ttl
            expires_at = None if effective == -1 else ts + effective

        if text.isascii():  # its UTF-8 bytes are its characters
            size = len(text)
        else:
            try:
                size = len(text.encode("utf-8"))
            except UnicodeEncodeError:  # a lone surrogate (JSON allows it): keep it escaped
                text = ASCII.encode(doc)
                size = len(text)

        try:
            pk_key = self._pk_texts.get(pk)
        except TypeError:  # an object or array in the key: not remembered
            pk_key = None
        if pk_key is None:
            pk_key = self._pk_text(pk)
        if not (  # ASCII needs no look (the usual case); else no lone surrogate may be there
            pk_key.isascii()
            and item_id.isascii()
            and etag.isascii()
            and (tenant_key is None or tenant_key.isascii())
            and (thread_key is None or thread_key.isascii())
            and (not isinstance(order_value, str) or order_value.isascii())
        ):
            _check_storable((pk_key, item_id, etag, tenant_key, thread_key, order_value), item_id)
        return (
            pk_key,
            item_id,
            ts,
            etag,
            expires_at,
            tenant_key,
            thread_key,
            rank,
            order_value,
            size,
            text,
        )

    def _key_text(self, value: JsonValue) -> str | None:
        """``key_text``, remembered for strings (a tenant's or thread's repeat per item)."""
        found = key_text(value)
        if type(value) is str:
            if len(self._key_texts) >= _CACHED_KEYS:
                self._key_texts.clear()
            self._key_texts[value] = found
        return found

    def _pk_text(self, pk: tuple[JsonValue, ...]) -> str:
        """``pk_text``, remembered for keys of strings only: no other value equals a
        string, so a lookup can only find its own key (``True == 1`` is never stored)."""
        found = pk_text(pk)
        if all(type(v) is str for v in pk):
            if len(self._pk_texts) >= _CACHED_KEYS:
                self._pk_texts.clear()
            self._pk_texts[pk] = found
        return found

    def _check_order(self, order_value: int | float | str) -> None:
        """Refuse an order value no column can hold (before, one such item made the
        batch's insert raise and the whole import stop)."""
        name = self._order_label
        if isinstance(order_value, int) and not INT64_MIN <= order_value <= INT64_MAX:
            raise ItemRejected(
                f"{name} {_digits(order_value)} is past the 64-bit integers a workspace "
                "orders turns by"
            )
        if isinstance(order_value, float) and not math.isfinite(order_value):
            raise ItemRejected(f"{name} is {order_value}, not a finite number")


def _check_storable(keys: tuple[JsonValue, ...], item_id: str) -> None:
    """Refuse an item whose keys hold a lone surrogate: SQLite stores text as UTF-8.

    Its body can keep one as a JSON escape, but a key's text form is its index.
    """
    text = "\x00".join(v for v in keys if isinstance(v, str))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ItemRejected(
            f"item {item_id!r} has a lone surrogate ({text[exc.start]!r}) in its id or keys,"
            " which cannot be stored"
        ) from None
