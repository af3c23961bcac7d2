"""A schema says how a container's items map onto tenant → thread → turn.

Schemas are data (TOML files in ``builtin/`` or the user's config dir); this module
turns one into a validated, frozen ``Schema``. Adding a schema must never need a
new code path: only a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from cosmem_tui.model import ThreadRef
from cosmem_tui.profiles.paths import FieldPath


class SchemaError(ValueError):
    """A schema definition that cannot be used; the message names the file and key."""


class Granularity(StrEnum):
    EXCHANGE = "exchange"  # one item per user→agent exchange, messages[] inside
    MESSAGE = "message"  # one item per message


class ValueType(StrEnum):
    INT = "int"
    ISO8601 = "iso8601"
    EPOCH_S = "epoch-s"
    EPOCH_MS = "epoch-ms"
    EPOCH_NS = "epoch-ns"
    STRING = "string"


@dataclass(frozen=True, slots=True)
class TypedField:
    path: FieldPath
    type: ValueType


@dataclass(frozen=True, slots=True)
class Schema:
    name: str
    title: str
    partition_key: tuple[str, ...]
    thread: FieldPath
    granularity: Granularity
    tenant: FieldPath | None = None
    tenant_label: str = "tenant"
    order: TypedField | None = None
    timestamps: tuple[TypedField, ...] = ()
    kind: FieldPath | None = None
    default_kind: str = "turn"
    messages: FieldPath | None = None  # exchange granularity: the array of messages
    role: FieldPath | None = None  # relative to a message (exchange) or the item
    text: FieldPath | None = None
    short_term_kinds: frozenset[str] = frozenset()
    long_term_kinds: frozenset[str] = frozenset()
    expected_ttl: Mapping[str, int] = field(default_factory=dict)
    source: str = "<builtin>"

    @property
    def has_tenant_level(self) -> bool:
        return self.tenant is not None

    def partition_key_for(self, ref: ThreadRef) -> tuple[str, ...]:
        """The full partition key value of a thread, in the container's path order."""
        values: list[str] = []
        for path in self.partition_key:
            if self.tenant is not None and path == self.tenant.text:
                if ref.tenant is None:
                    raise SchemaError(f"schema {self.name} needs a {self.tenant_label}")
                values.append(ref.tenant)
            elif path == self.thread.text:
                values.append(ref.thread)
            else:
                raise SchemaError(
                    f"schema {self.name}: partition key path {path} is neither the "
                    f"{self.tenant_label} nor the thread field"
                )
        return tuple(values)

    def list_projection(self) -> tuple[str, ...]:
        """Top-level properties a turn list needs; everything else (embeddings!) stays behind."""
        keep: list[str] = ["id"]
        paths = [self.thread, self.tenant, self.kind, self.messages, self.order and self.order.path]
        paths += [t.path for t in self.timestamps]
        if self.granularity is Granularity.MESSAGE:
            paths += [self.role, self.text]
        for p in paths:
            if p is not None and p.top not in keep:
                keep.append(p.top)
        if "ttl" not in keep:
            keep.append("ttl")
        return tuple(keep)


def _path(raw: Any, where: str) -> FieldPath:
    if not isinstance(raw, str):
        raise SchemaError(f"{where}: expected a field path string like '/threadId'")
    try:
        return FieldPath.parse(raw)
    except ValueError as exc:
        raise SchemaError(f"{where}: {exc}") from None


def _typed(raw: Any, where: str) -> TypedField:
    if not isinstance(raw, Mapping) or "path" not in raw:
        raise SchemaError(f"{where}: expected a table with 'path' and 'type'")
    try:
        value_type = ValueType(raw.get("type", "string"))
    except ValueError:
        allowed = ", ".join(v.value for v in ValueType)
        raise SchemaError(f"{where}.type: must be one of {allowed}") from None
    return TypedField(_path(raw["path"], f"{where}.path"), value_type)


_KNOWN_KEYS = {
    "name",
    "title",
    "partition_key",
    "tenant",
    "tenant_label",
    "thread",
    "granularity",
    "order",
    "timestamp",
    "kind",
    "messages",
    "role",
    "text",
    "memory",
}


def schema_from_mapping(data: Mapping[str, Any], source: str) -> Schema:
    """Build a Schema from a decoded TOML table, with errors that name ``source``."""

    def where(key: str) -> str:
        return f"{source}: {key}"

    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise SchemaError(f"{source}: unknown key(s) {', '.join(unknown)}")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise SchemaError(where("name") + ": required")
    pk = data.get("partition_key")
    if not isinstance(pk, list) or not pk or not all(isinstance(p, str) for p in pk):
        raise SchemaError(
            where("partition_key") + ": a list of paths like ['/tenantId', '/threadId']"
        )
    for p in pk:
        _path(p, where("partition_key"))
    if "thread" not in data:
        raise SchemaError(where("thread") + ": required")
    try:
        granularity = Granularity(data.get("granularity", "exchange"))
    except ValueError:
        allowed = ", ".join(g.value for g in Granularity)
        raise SchemaError(where("granularity") + f": must be one of {allowed}") from None

    messages = data.get("messages")
    messages_path = role = text = None
    if granularity is Granularity.EXCHANGE:
        if not isinstance(messages, Mapping):
            raise SchemaError(where("messages") + ": required for exchange granularity")
        messages_path = _path(messages.get("path"), where("messages.path"))
        role = _path(messages.get("role", "/role"), where("messages.role"))
        text = _path(messages.get("text", "/content"), where("messages.text"))
    else:
        role = _path(data.get("role", "/role"), where("role"))
        text = _path(data.get("text", "/content"), where("text"))

    kind = data.get("kind", {})
    if not isinstance(kind, Mapping):
        raise SchemaError(where("kind") + ": expected a table with 'path' and 'default'")
    memory = data.get("memory", {})
    if not isinstance(memory, Mapping):
        raise SchemaError(where("memory") + ": expected a table")
    expected = memory.get("expected_ttl", {})
    if not isinstance(expected, Mapping) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in expected.values()
    ):
        raise SchemaError(where("memory.expected_ttl") + ": a table of kind = seconds")
    timestamps = data.get("timestamp", [])
    if isinstance(timestamps, Mapping):
        timestamps = [timestamps]
    schema = Schema(
        name=name,
        title=str(data.get("title", name)),
        partition_key=tuple(pk),
        tenant=_path(data["tenant"], where("tenant")) if data.get("tenant") else None,
        tenant_label=str(data.get("tenant_label", "tenant")),
        thread=_path(data["thread"], where("thread")),
        granularity=granularity,
        order=_typed(data["order"], where("order")) if "order" in data else None,
        timestamps=tuple(_typed(t, where(f"timestamp[{i}]")) for i, t in enumerate(timestamps)),
        kind=_path(kind["path"], where("kind.path")) if "path" in kind else None,
        default_kind=str(kind.get("default", "turn")),
        messages=messages_path,
        role=role,
        text=text,
        short_term_kinds=frozenset(memory.get("short_term", ())),
        long_term_kinds=frozenset(memory.get("long_term", ())),
        expected_ttl=dict(expected),
        source=source,
    )
    # Every partition key path must be a level we can name, or threads cannot be addressed.
    named = {schema.thread.text} | ({schema.tenant.text} if schema.tenant else set())
    missing = [p for p in schema.partition_key if p not in named]
    if missing:
        raise SchemaError(
            f"{source}: partition key path(s) {', '.join(missing)} are not mapped to the "
            "tenant or thread level"
        )
    return schema
