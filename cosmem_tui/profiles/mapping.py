"""Map one stored item onto the console's Turn, whatever shape the schema says it has.

Items are attacker-controlled and often malformed; mapping never raises. Every
deviation from the schema becomes a human-readable problem on the Turn so the UI
can mark the row and still open the raw item.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime

from cosmem_tui.model import MISSING, Item, JsonValue, Message, Turn, resolve_ttl
from cosmem_tui.profiles.paths import FieldPath
from cosmem_tui.profiles.schema import Granularity, Schema, TypedField, ValueType


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


def _field_name(path: FieldPath) -> str:
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
        if isinstance(value, int | float):
            if value_type is ValueType.EPOCH_S:
                return float(value)
            if value_type is ValueType.EPOCH_MS:
                return value / 1e3
            if value_type is ValueType.EPOCH_NS:
                return value / 1e9
    except (ValueError, OverflowError):
        return None
    return None


def _text_of(value: JsonValue) -> tuple[str, str | None]:
    """Message text and a problem when the stored value is not a string."""
    if isinstance(value, str):
        return value, None
    if value is MISSING:
        return "", "missing"
    if value is None:
        return "", "null"
    return json.dumps(value, ensure_ascii=False), _type_name(value)


def _messages(schema: Schema, body: Mapping[str, JsonValue], problems: list[str]) -> list[Message]:
    assert schema.role is not None and schema.text is not None
    if schema.granularity is Granularity.MESSAGE:
        raw_messages: list[JsonValue] = [body]
    else:
        assert schema.messages is not None
        found = schema.messages.get(body)
        name = _field_name(schema.messages)
        if found is MISSING:
            problems.append(f"{name} is missing")
            return []
        if isinstance(found, str | bytes) or not isinstance(found, Sequence):
            problems.append(f"{name} is {_type_name(found)}, expected an array")
            return []
        raw_messages = list(found)
    messages: list[Message] = []
    for index, raw in enumerate(raw_messages):
        where = "" if schema.granularity is Granularity.MESSAGE else f"message {index}: "
        if not isinstance(raw, Mapping):
            problems.append(f"{where}is {_type_name(raw)}, expected an object")
            messages.append(Message("?", _text_of(raw)[0]))
            continue
        role_value = schema.role.get(raw)
        if isinstance(role_value, str) and role_value:
            role = role_value
        else:
            role = "?"
            problems.append(
                f"{where}{_field_name(schema.role)} is {_type_name(role_value)}"
                if role_value is not MISSING
                else f"{where}no role"
            )
        text, text_problem = _text_of(schema.text.get(raw))
        if text_problem:
            problems.append(
                f"{where}{_field_name(schema.text)} is {text_problem}"
                + (", expected a string" if text_problem not in ("missing",) else "")
            )
        messages.append(Message(role, text))
    return messages


def turn_from_item(schema: Schema, item: Item, container_default_ttl: int | None) -> Turn:
    body = item.body
    problems: list[str] = []

    order: JsonValue = MISSING
    if schema.order is not None:
        order = schema.order.path.get(body)
        problem = order_problem(schema.order, order)
        if problem:
            problems.append(problem)

    kind = schema.default_kind
    if schema.kind is not None:
        raw_kind = schema.kind.get(body)
        if isinstance(raw_kind, str) and raw_kind:
            kind = raw_kind
        elif raw_kind is not MISSING:
            problems.append(f"{_field_name(schema.kind)} is {_type_name(raw_kind)}")

    ttl = resolve_ttl(body.get("ttl", MISSING), item.ts, container_default_ttl)
    problems.extend(p for p in ttl.problems if not p.startswith("item ttl is ignored"))

    messages = _messages(schema, body, problems)

    timestamp: float | None = None
    for field in schema.timestamps:
        timestamp = parse_time(field.path.get(body), field.type)
        if timestamp is not None:
            break
    if (
        timestamp is None
        and schema.order is not None
        and schema.order.type
        in (ValueType.ISO8601, ValueType.EPOCH_S, ValueType.EPOCH_MS, ValueType.EPOCH_NS)
    ):
        timestamp = parse_time(order, schema.order.type)
    if timestamp is None:
        timestamp = float(item.ts)

    return Turn(
        item_id=item.id,
        order=order,
        timestamp=timestamp,
        kind=kind,
        messages=tuple(messages),
        ttl=ttl,
        problems=tuple(problems),
    )
