"""Map one stored item onto the console's Turns, whatever shape the schema says it has.

* exchange granularity: one item → one Turn holding the item's messages;
* message granularity: one item → one Turn holding one message;
* session granularity: one item → one Turn per element of its messages array
  (``Turn.part`` is the element's index; the item's ttl covers every one of them).

Items are attacker-controlled and often malformed; mapping never raises. Every
deviation from the schema becomes a human-readable problem on the Turn so the UI
can mark the row and still open the raw item.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from itertools import repeat
from typing import cast

from cosmem_tui.model import MISSING, Item, ItemTtl, JsonValue, Message, Turn, resolve_ttl
from cosmem_tui.model.entities import MessageColumns
from cosmem_tui.model.times import in_calendar, raw_number
from cosmem_tui.schemas.paths import FieldPath, Selector
from cosmem_tui.schemas.schema import TIME_TYPES, Granularity, Schema, TypedField, ValueType


def _type_name(value: JsonValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, Sequence):
        return "an array"
    return type(value).__name__


def _field_name(path: FieldPath | Selector) -> str:
    return path.text.lstrip("/").replace("/", ".")


def order_problem(field: TypedField, value: JsonValue) -> str | None:
    name = _field_name(field.path)
    if value is MISSING:
        return f"{name} is missing"
    if field.type in (ValueType.INT, ValueType.EPOCH_S, ValueType.EPOCH_MS, ValueType.EPOCH_NS):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{name} is {_type_name(value)}, expected an integer"
    elif field.type in (ValueType.ISO8601, ValueType.STRING):
        if not isinstance(value, str):
            return f"{name} is {_type_name(value)}, expected a string"
        if field.type is ValueType.ISO8601 and parse_time(value, field.type) is None:
            return f"{name} is not an ISO-8601 time: {value!r}"
    return None


def parse_time(value: JsonValue, value_type: ValueType) -> float | None:
    """Epoch seconds from a stored time value, or None when it does not parse."""
    if isinstance(value, bool):
        return None
    try:
        if value_type is ValueType.ISO8601 and isinstance(value, str):
            parsed = datetime.fromisoformat(value)
            if parsed.tzinfo is None:
                return None
            return parsed.timestamp()
        if isinstance(value, int | float) and value_type in _EPOCH_UNITS:
            return _epoch_seconds(value, _EPOCH_UNITS[value_type])
    except (ValueError, OverflowError):
        return None
    return None


_EPOCH_UNITS = {ValueType.EPOCH_S: 1.0, ValueType.EPOCH_MS: 1e3, ValueType.EPOCH_NS: 1e9}


def _epoch_seconds(value: int | float, per_second: float) -> float:
    """Seconds of an epoch number; an integer past the double range is an infinity, so
    it reads as out of range (not as absent, which would fall back to another time)."""
    try:
        return value / per_second
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _decoded(
    schema: Schema, body: Mapping[str, JsonValue], problems: list[str]
) -> Mapping[str, JsonValue]:
    """The item with its JSON-string properties decoded (the .NET provider stores them so)."""
    if not schema.decode_json:
        return body
    decoded = dict(body)
    for path in schema.decode_json:
        # Only top-level properties are decoded; schema files say so in docs/schemas.md.
        raw = decoded.get(path.top, MISSING)
        if not isinstance(raw, str):
            continue  # absent, or already an object: nothing to decode
        try:
            decoded[path.top] = json.loads(raw)
        except ValueError as exc:
            problems.append(f"{_field_name(path)} is not valid JSON ({exc})")
    return decoded


def _text_value(value: JsonValue) -> tuple[str, str | None]:
    """Message text and a problem when the stored value is not text."""
    if isinstance(value, str):
        return value, None
    if value is None:
        return "", "null"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value), None  # text parts of one message, in order
    return json.dumps(value, ensure_ascii=False), _type_name(value)


def _first_present(selectors: tuple[Selector, ...], doc: JsonValue) -> JsonValue:
    for selector in selectors:
        value = selector.select(doc)
        if value is not MISSING:
            return value
    return MISSING


def _message(schema: Schema, raw: JsonValue, index: int | None, problems: list[str]) -> Message:
    """``index``: its place in the item's array of messages (None: the item is one), said
    in a problem and formatted only then (a session document holds 50,000 messages)."""
    if type(raw) is not dict and not isinstance(raw, Mapping):
        problems.append(f"{_at(index)}is {_type_name(raw)}, expected an object")
        return Message("?", _text_value(raw)[0] if raw is not MISSING else "")
    role_value = _first_present(schema.roles, raw)
    if isinstance(role_value, str) and role_value:
        role = schema.role_map.get(role_value, role_value)
    elif role_value is MISSING and schema.default_role is not None:
        role = schema.default_role
    else:
        role = "?"
        role_name = _field_name(schema.roles[0])
        problems.append(
            f"{_at(index)}{role_name} is {_type_name(role_value)}"
            if role_value is not MISSING
            else f"{_at(index)}no role"
        )
    value = _first_present(schema.texts, raw)
    if value is MISSING:
        problems.append(f"{_at(index)}{_field_name(schema.texts[0])} is missing")
        return Message(role, "")
    text, text_problem = _text_value(value)
    if text_problem:
        suffix = ", expected a string"
        problems.append(f"{_at(index)}{_field_name(schema.texts[0])} is {text_problem}{suffix}")
    return Message(role, text)


def _well_formed_columns(schema: Schema, array: list[JsonValue]) -> MessageColumns | None:
    """The item's messages as columns when every one is an object whose role and text
    are what ``_message`` takes without a problem: a non-empty string role and a string
    text, each under the first (one-field) selector. Checked a column at a time (C loops,
    no Message made), so a session document of 50,000 messages is judged, its roles and
    text size counted, in milliseconds; None: map each message (``_message``)."""
    if not (array and schema.roles and schema.texts):
        return None
    role_steps, text_steps = schema.roles[0].steps, schema.texts[0].steps
    if len(role_steps) != 1 or len(text_steps) != 1:
        return None
    role_key, text_key = role_steps[0], text_steps[0]
    if not isinstance(role_key, str) or not isinstance(text_key, str):
        return None
    if set(map(type, array)) != {dict}:
        return None
    found_roles = list(map(dict.get, array, repeat(role_key)))  # None: absent (or null)
    found_texts = list(map(dict.get, array, repeat(text_key)))
    if set(map(type, found_roles)) != {str} or set(map(type, found_texts)) != {str}:
        return None
    roles, texts = cast("list[str]", found_roles), cast("list[str]", found_texts)
    if not all(roles):  # an empty role is a problem (``_message``)
        return None
    role_map = schema.role_map
    distinct = tuple(dict.fromkeys(role_map.get(r, r) for r in dict.fromkeys(roles)))
    joined = "".join(texts)
    size = len(joined) if joined.isascii() else len(joined.encode("utf-8", "surrogatepass"))
    return MessageColumns(roles, texts, role_map, distinct_roles=distinct, text_bytes=size)


def _at(index: int | None) -> str:
    return "" if index is None else f"message {index}: "


def _message_array(
    schema: Schema, body: Mapping[str, JsonValue], problems: list[str]
) -> list[JsonValue] | None:
    assert schema.messages is not None
    found = schema.messages.get(body)
    name = _field_name(schema.messages)
    if found is MISSING:
        problems.append(f"{name} is missing")
        return None
    if isinstance(found, str | bytes) or not isinstance(found, Sequence):
        problems.append(f"{name} is {_type_name(found)}, expected an array")
        return None
    return list(found)


def _timestamp(
    schema: Schema, body: Mapping[str, JsonValue], order: JsonValue, problems: list[str]
) -> float | None:
    fields = [(field, field.path.get(body)) for field in schema.timestamps]
    if schema.order is not None and schema.order.type in TIME_TYPES:
        fields.append((schema.order, order))
    for field, value in fields:
        timestamp = parse_time(value, field.type)
        if timestamp is None:
            continue
        if not in_calendar(timestamp):
            # Kept (the row says "out of range"), never moved to another field's time:
            # epoch milliseconds in an epoch-s field is a bug the reader should see.
            problems.append(_off_calendar(field, value, timestamp))
        return timestamp
    return None


def _off_calendar(field: TypedField, value: JsonValue, timestamp: float) -> str:
    hint = ""
    if field.type is ValueType.EPOCH_S and in_calendar(timestamp / 1e3):
        hint = " (epoch milliseconds stored as seconds?)"
    shown = raw_number(value) if isinstance(value, int | float) else repr(value)
    return (
        f"{_field_name(field.path)} {shown} is out of range as {field.type.value}: "
        f"no calendar time{hint}"
    )


def _kind(schema: Schema, body: Mapping[str, JsonValue], problems: list[str]) -> str:
    if schema.kind is None:
        return schema.default_kind
    raw_kind = schema.kind.get(body)
    if not (isinstance(raw_kind, str) and raw_kind) and raw_kind is not MISSING:
        problems.append(f"{_field_name(schema.kind)} is {_type_name(raw_kind)}")
    return schema.item_kind(body)


def turns_from_item(schema: Schema, item: Item, container_default_ttl: int | None) -> list[Turn]:
    """Every Turn one item stands for (one, except for session granularity). Never raises."""
    problems: list[str] = []
    body = _decoded(schema, item.body, problems)
    kind = _kind(schema, body, problems)
    bookkeeping = kind in schema.bookkeeping_kinds

    order: JsonValue = MISSING
    if schema.order is not None:
        order = schema.order.path.get(body)
        problem = order_problem(schema.order, order)
        if problem and not (bookkeeping and order is MISSING):
            problems.append(problem)

    ttl = resolve_ttl(body.get("ttl", MISSING), item.ts, container_default_ttl)
    problems.extend(p for p in ttl.problems if not p.startswith("item ttl is ignored"))
    if not in_calendar(item.ts):  # its last write and expiry are then shown out of range
        problems.append(f"_ts {raw_number(item.ts)} is out of range: no calendar time")
    elif ttl.expires_at is not None and not in_calendar(ttl.expires_at):
        problems.append(f"_ts + ttl {raw_number(ttl.expires_at)} is past the calendar")
    timestamp = _timestamp(schema, body, order, problems)
    if timestamp is None:
        timestamp = float(item.ts)

    if schema.granularity is Granularity.SESSION:
        return _session_turns(schema, item, body, kind, timestamp, ttl, problems)

    messages: list[Message] = []
    columns: MessageColumns | None = None
    if bookkeeping:
        pass  # counters and cursors carry no conversation: no messages, and none missing
    elif schema.granularity is Granularity.MESSAGE:
        messages.append(_message(schema, body, None, problems))
    else:
        array = _message_array(schema, body, problems) or []
        columns = _well_formed_columns(schema, array)
        if columns is None:  # some message is not the plain shape: each is mapped and judged
            for index, raw in enumerate(array):
                messages.append(_message(schema, raw, index, problems))
    return [
        Turn(
            item_id=item.id,
            order=order,
            timestamp=timestamp,
            kind=kind,
            messages=tuple(messages) if columns is None else columns,
            ttl=ttl,
            problems=tuple(problems),
        )
    ]


def _session_turns(
    schema: Schema,
    item: Item,
    body: Mapping[str, JsonValue],
    kind: str,
    timestamp: float,
    ttl: ItemTtl,
    problems: list[str],
) -> list[Turn]:
    raw_messages = _message_array(schema, body, problems)
    if not raw_messages:
        # An empty (cleared) or broken session still shows as one row, so it can be opened.
        return [Turn(item.id, MISSING, timestamp, kind, (), ttl, tuple(problems))]
    turns: list[Turn] = []
    for index, raw in enumerate(raw_messages):
        own: list[str] = []
        message = _message(schema, raw, None, own)
        turns.append(
            Turn(
                item_id=item.id,
                order=index,
                timestamp=timestamp,
                kind=kind,
                messages=(message,),
                ttl=ttl,
                problems=(*problems, *own),
                part=index,
            )
        )
    return turns


def turn_from_item(schema: Schema, item: Item, container_default_ttl: int | None) -> Turn:
    """The first Turn of an item: the whole item except for session granularity."""
    return turns_from_item(schema, item, container_default_ttl)[0]
