"""The ``generic`` schema: derived from a container's partition key and common field names.

Used when no schema file matches. Cosmos property names are case-sensitive, so the
names below are matched exactly, in order of preference (facts: memory-schemas §6.2).
The result is an ordinary Schema, built through the same validation as a TOML file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cosmem_tui.model import JsonValue
from cosmem_tui.schemas.mapping import parse_time
from cosmem_tui.schemas.schema import Schema, SchemaError, ValueType, schema_from_mapping

GENERIC = "generic"

TENANT_NAMES = ("tenantId", "tenant_id", "TenantId")
USER_NAMES = ("userId", "user_id", "UserId")
THREAD_NAMES = (
    "threadId",
    "thread_id",
    "sessionId",
    "session_id",
    "conversationId",
    "ChatSessionId",
    "SessionId",
)
ORDER_NAMES = (
    "turnIndex",
    "sort_key",
    "timestamp",
    "created_at",
    "createdAt",
    "TimeStamp",
    "timeStamp",
    "started_at",
    "startedAt",
)
TEXT_NAMES = ("content", "text", "Text", "prompt", "message", "completion")
ROLE_NAMES = ("role", "sender", "Sender", "author", "Role")
MESSAGE_ARRAYS = ("messages", "Messages")


def _share(sample: Sequence[Mapping[str, JsonValue]], name: str) -> float:
    if not sample:
        return 0.0
    return sum(1 for body in sample if name in body) / len(sample)


def _common(sample: Sequence[Mapping[str, JsonValue]], names: Sequence[str]) -> str | None:
    """The first name at least half of the sampled items carry."""
    for name in names:
        if _share(sample, name) >= 0.5:
            return name
    return None


def _list(value: JsonValue) -> list[JsonValue]:
    return value if isinstance(value, list) else []


def _common_array(sample: Sequence[Mapping[str, JsonValue]]) -> str | None:
    """The first message-array name at least half of the sampled items hold an array in.

    A ``messages`` that is a number, a string or an object is no array of messages:
    counting it would read each item's messages from something that has none."""
    for name in MESSAGE_ARRAYS:
        if sample and sum(isinstance(b.get(name), list) for b in sample) >= len(sample) / 2:
            return name
    return None


def _not_arrays(sample: Sequence[Mapping[str, JsonValue]]) -> str | None:
    """The note for a message-array name most items carry as something else."""
    for name in MESSAGE_ARRAYS:
        odd = [b[name] for b in sample if name in b and not isinstance(b[name], list)]
        if sample and len(odd) >= len(sample) / 2:
            kinds = sorted({_json_kind(v) for v in odd})
            return (
                f"{name} is {' or '.join(kinds)}, not an array, in {len(odd)} of "
                f"{len(sample)} sampled items: read one message per item"
            )
    return None


def _json_kind(value: JsonValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an object" if isinstance(value, Mapping) else "an array"


def _value_type(name: str, values: list[JsonValue]) -> ValueType:
    """What a sampled order field holds: an index, epoch seconds/ms/ns, or an ISO time."""
    numbers = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if numbers and len(numbers) >= len(values) / 2:
        biggest = max(abs(v) for v in numbers)
        if "index" in name.lower() or biggest < 10**8:
            return ValueType.INT
        if biggest >= 10**17:
            return ValueType.EPOCH_NS
        if biggest >= 10**11:
            return ValueType.EPOCH_MS
        return ValueType.EPOCH_S
    strings = [v for v in values if isinstance(v, str)]
    if strings and all(parse_time(s, ValueType.ISO8601) is not None for s in strings):
        return ValueType.ISO8601
    return ValueType.STRING


def guess_partition_key(sample: Sequence[Mapping[str, JsonValue]]) -> tuple[str, ...] | None:
    """A partition key for items whose container we were not told about."""
    thread = _common(sample, THREAD_NAMES)
    if thread is None:
        return None
    top = _common(sample, TENANT_NAMES) or _common(sample, USER_NAMES)
    return (f"/{top}", f"/{thread}") if top else (f"/{thread}",)


def _label(path: str) -> str:
    name = path.lstrip("/")
    if name in USER_NAMES:
        return "user"
    if name in TENANT_NAMES:
        return "tenant"
    return name


def generic_schema(
    partition_key: Sequence[str] | None, sample: Sequence[Mapping[str, JsonValue]]
) -> Schema:
    """A schema for ``partition_key`` (or one guessed from the sample) and the sampled shape."""
    return schema_from_mapping(generic_definition(partition_key, sample), "generic (derived)")


def generic_definition(
    partition_key: Sequence[str] | None, sample: Sequence[Mapping[str, JsonValue]]
) -> dict[str, Any]:
    """The derived schema as a TOML-shaped table (a workspace records it to reopen alike)."""
    paths = tuple(partition_key) if partition_key else guess_partition_key(sample)
    if not paths:
        raise SchemaError(
            "no schema matches these items and no partition key is known: "
            "pass --partition-key (and perhaps --schema)"
        )
    data: dict[str, Any] = {"name": GENERIC, "partition_key": list(paths)}
    if len(paths) == 1:
        data["thread"] = paths[0]
    else:
        data["tenant"] = paths[0]
        data["tenant_label"] = _label(paths[0])
        data["thread"] = list(paths[1:])
    array = _common_array(sample)
    parts = [f"key {paths[0] if len(paths) == 1 else '[' + ','.join(paths) + ']'}"]
    if array is None and (not_arrays := _not_arrays(sample)):
        parts.append(not_arrays)
    if array is not None:
        inner = [m for b in sample for m in _list(b.get(array)) if isinstance(m, Mapping)]
        data["granularity"] = "exchange"
        data["messages"] = {
            "path": f"/{array}",
            "role": f"/{_common(inner, ROLE_NAMES) or 'role'}",
            "text": f"/{_common(inner, TEXT_NAMES) or 'content'}",
        }
        parts.append(f"messages in {array}[]")
    else:
        role = _common(sample, ROLE_NAMES)
        text = _common(sample, TEXT_NAMES) or "content"
        data["granularity"] = "message"
        data["role"] = f"/{role or 'role'}"
        data["text"] = f"/{text}"
        if role is None:
            data["default_role"] = "item"  # no role field at all: nothing to flag per item
        parts.append(f"text {text}" + (f", role {role}" if role else ""))
    order = _common(sample, ORDER_NAMES)
    if order is not None:
        value_type = _value_type(order, [b[order] for b in sample if order in b])
        data["order"] = {"path": f"/{order}", "type": value_type.value}
        parts.append(f"order {order} ({value_type.value})")
    else:
        data["order"] = {"path": "/_ts", "type": ValueType.EPOCH_S.value}
        parts.append("order _ts")
    data["title"] = "generic: " + "; ".join(parts)
    return data
