"""A schema says how a container's items map onto tenant → thread → turn.

Schemas are data (TOML files in ``builtin/`` or the user's config dir); this module
turns one into a validated, frozen ``Schema``. Adding a schema must never need a
new code path: only a file. The format is documented in docs/schemas.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from cosmem_tui.model import InvalidKey, JsonValue, Key, ThreadRef
from cosmem_tui.schemas.paths import FieldPath, Selector
from cosmem_tui.schemas.retrieval import (
    Retrieval,
    RetrievalError,
    guessed_retrieval,
    retrieval_from_mapping,
)


class SchemaError(ValueError):
    """A schema definition that cannot be used; the message names the file and key."""


class Granularity(StrEnum):
    EXCHANGE = "exchange"  # one item per user→agent exchange, messages[] inside
    MESSAGE = "message"  # one item per message
    SESSION = "session"  # one item per session: every message of a thread in messages[]


class ValueType(StrEnum):
    INT = "int"
    ISO8601 = "iso8601"
    EPOCH_S = "epoch-s"
    EPOCH_MS = "epoch-ms"
    EPOCH_NS = "epoch-ns"
    STRING = "string"


TIME_TYPES = frozenset(
    {ValueType.ISO8601, ValueType.EPOCH_S, ValueType.EPOCH_MS, ValueType.EPOCH_NS}
)


@dataclass(frozen=True, slots=True)
class TypedField:
    path: FieldPath
    type: ValueType


@dataclass(frozen=True, slots=True)
class DetectHints:
    """What auto-detection looks for (all optional; see schemas/detect.py for the scoring)."""

    container_names: frozenset[str] = frozenset()
    database_names: frozenset[str] = frozenset()
    fields: tuple[str, ...] = ()  # top-level properties most items carry
    markers: tuple[str, ...] = ()  # top-level properties only this shape carries
    values: Mapping[str, frozenset[str]] = field(default_factory=dict)  # path -> known values
    json_strings: tuple[FieldPath, ...] = ()  # properties that hold a JSON document as a string


@dataclass(frozen=True, slots=True)
class Schema:
    name: str
    title: str
    partition_key: tuple[str, ...]
    thread: FieldPath
    granularity: Granularity
    tenant: FieldPath | None = None
    tenant_label: str = "tenant"
    # Partition key levels between the tenant and the thread that belong to the thread's
    # identity (the user of [/tenantId, /userId, /sessionId]); a thread is then named by
    # the JSON array of all its values, e.g. ["alice","s-1"].
    thread_parents: tuple[FieldPath, ...] = ()
    order: TypedField | None = None
    timestamps: tuple[TypedField, ...] = ()
    kind: FieldPath | None = None
    default_kind: str = "turn"
    kind_map: Mapping[str, str] = field(default_factory=dict)
    messages: FieldPath | None = None  # exchange/session granularity: the array of messages
    roles: tuple[Selector, ...] = ()  # alternatives, relative to a message (or the item)
    texts: tuple[Selector, ...] = ()
    role_map: Mapping[str, str] = field(default_factory=dict)
    default_role: str | None = None  # for messages without a role field (not a problem then)
    decode_json: tuple[FieldPath, ...] = ()  # properties holding a JSON string to decode first
    sentinels: Mapping[str, str] = field(default_factory=dict)  # pseudo-thread id -> label
    short_term_kinds: frozenset[str] = frozenset()
    long_term_kinds: frozenset[str] = frozenset()
    bookkeeping_kinds: frozenset[str] = frozenset()  # records with no conversation in them
    expected_ttl: Mapping[str, int] = field(default_factory=dict)
    detect: DetectHints = field(default_factory=DetectHints)
    source: str = "<builtin>"
    # How the memory system retrieves (schemas/retrieval.py); None only for a Schema built
    # in code without one: ``how_it_retrieves`` then answers the guess.
    retrieval: Retrieval | None = None

    @property
    def role(self) -> Selector | None:
        return self.roles[0] if self.roles else None

    @property
    def text(self) -> Selector | None:
        return self.texts[0] if self.texts else None

    @property
    def how_it_retrieves(self) -> Retrieval:
        """The retrieval section, or the best guess when the schema has none."""
        if self.retrieval is not None:
            return self.retrieval
        text = self.text
        plain = text is not None and self.messages is None and not text.fans_out
        return guessed_retrieval(FieldPath.parse(text.text) if plain and text else None)

    @property
    def has_tenant_level(self) -> bool:
        return self.tenant is not None

    @property
    def thread_paths(self) -> tuple[FieldPath, ...]:
        return (*self.thread_parents, self.thread)

    def thread_key(self, body: Mapping[str, JsonValue]) -> str | None:
        """The text of an item's thread key (``Key.text``), None when it has none."""
        key = self.thread_key_of(body)
        return key.text if key is not None else None

    def thread_key_of(self, body: Mapping[str, JsonValue]) -> Key | None:
        """An item's thread key: its thread value(s), None when absent or not a key value."""
        try:
            return Key(p.get(body) for p in self.thread_paths)
        except InvalidKey:
            return None  # missing (MISSING), or an object/array: not an addressable thread

    def tenant_key_of(self, body: Mapping[str, JsonValue]) -> Key | None:
        if self.tenant is None:
            return None
        try:
            return Key.of(self.tenant.get(body))
        except InvalidKey:
            return None

    def thread_values(self, ref: ThreadRef) -> tuple[JsonValue, ...]:
        """The partition key values a thread key stands for (one, or several if composite)."""
        if len(ref.thread.values) != len(self.thread_paths):
            paths = ", ".join(p.text for p in self.thread_paths)
            raise SchemaError(
                f"schema {self.name}: a thread is named by a JSON array of {paths}, "
                f'e.g. \'["alice","s-1"]\', not {ref.thread.text!r}'
            )
        return ref.thread.values

    def parse_thread(self, text: str) -> Key:
        """The thread key a user typed (``Key.text`` form; a JSON array when composite)."""
        return self.thread_readings(text)[0]

    def thread_readings(self, text: str) -> tuple[Key, ...]:
        """What a typed thread name may mean, the likeliest first (``Key.readings``)."""
        try:
            return Key.readings(text, len(self.thread_paths))
        except InvalidKey:
            paths = ", ".join(p.text for p in self.thread_paths)
            raise SchemaError(
                f"schema {self.name}: a thread is named by a JSON array of {paths}, "
                f'e.g. \'["alice","s-1"]\', not {text!r}'
            ) from None

    def partition_key_for(self, ref: ThreadRef) -> tuple[JsonValue, ...]:
        """The full partition key value of a thread, in the container's path order."""
        by_path = dict(
            zip((p.text for p in self.thread_paths), self.thread_values(ref), strict=True)
        )
        values: list[JsonValue] = []
        for path in self.partition_key:
            if self.tenant is not None and path == self.tenant.text:
                if ref.tenant is None:
                    raise SchemaError(f"schema {self.name} needs a {self.tenant_label}")
                values.append(ref.tenant.value)
            elif path in by_path:
                values.append(by_path[path])
            else:
                raise SchemaError(
                    f"schema {self.name}: partition key path {path} is neither the "
                    f"{self.tenant_label} nor the thread field"
                )
        return tuple(values)

    def kind_of(self, raw: str) -> str:
        return self.kind_map.get(raw, raw)

    def item_kind(self, body: Mapping[str, JsonValue]) -> str:
        """An item's kind: its kind field mapped, else the default (malformed included)."""
        if self.kind is None:
            return self.default_kind
        raw = self.kind.get(body)
        return self.kind_of(raw) if isinstance(raw, str) and raw else self.default_kind

    def raw_kinds(self, kind: str) -> frozenset[str]:
        """The stored values of the kind field that mean ``kind`` (before ``kind_map``)."""
        raws = {raw for raw, mapped in self.kind_map.items() if mapped == kind}
        if kind not in self.kind_map and kind:
            raws.add(kind)  # a value the map does not rename means itself
        return frozenset(raws)

    def lifetimes(self) -> dict[str, int]:
        """What the memory system gives each kind: expected effective ttl, -1 for never.

        ``expected_ttl`` where the schema names one; the long-term kinds never expire.
        """
        expected = {kind: -1 for kind in self.long_term_kinds}
        expected.update(self.expected_ttl)
        return expected

    def list_projection(self) -> tuple[str, ...]:
        """Top-level properties a turn list needs; everything else (embeddings!) stays behind."""
        keep: list[str] = ["id"]
        tops: list[str | None] = [p.top for p in self.thread_paths]
        order = self.order.path if self.order is not None else None
        for p in (self.tenant, self.kind, self.messages, order):
            tops.append(p.top if p is not None else None)
        tops += [t.path.top for t in self.timestamps]
        tops += [d.top for d in self.decode_json]
        if self.granularity is Granularity.MESSAGE:
            tops += [s.top for s in (*self.roles, *self.texts)]
        for top in tops:
            if top is not None and top not in keep:
                keep.append(top)
        if "ttl" not in keep:
            keep.append("ttl")
        return tuple(keep)


# -- building a Schema from a TOML table ---------------------------------------------------


def _path(raw: Any, where: str) -> FieldPath:
    if not isinstance(raw, str):
        raise SchemaError(f"{where}: expected a field path string like '/threadId'")
    try:
        return FieldPath.parse(raw)
    except ValueError as exc:
        raise SchemaError(f"{where}: {exc}") from None


def _selectors(raw: Any, where: str) -> tuple[Selector, ...]:
    """One selector or a list of alternatives (the first one present in a message wins)."""
    alternatives = [raw] if isinstance(raw, str) else raw
    if not isinstance(alternatives, list) or not alternatives:
        raise SchemaError(f"{where}: expected a path like '/content' or a list of them")
    found: list[Selector] = []
    for alternative in alternatives:
        if not isinstance(alternative, str):
            raise SchemaError(f"{where}: expected a path like '/content' or a list of them")
        try:
            found.append(Selector.parse(alternative))
        except ValueError as exc:
            raise SchemaError(f"{where}: {exc}") from None
    return tuple(found)


def _typed(raw: Any, where: str) -> TypedField:
    if not isinstance(raw, Mapping) or "path" not in raw:
        raise SchemaError(f"{where}: expected a table with 'path' and 'type'")
    try:
        value_type = ValueType(raw.get("type", "string"))
    except ValueError:
        allowed = ", ".join(v.value for v in ValueType)
        raise SchemaError(f"{where}.type: must be one of {allowed}") from None
    return TypedField(_path(raw["path"], f"{where}.path"), value_type)


def _table(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise SchemaError(f"{where}: expected a table")
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SchemaError(f"{where}: expected a list of strings")
    return tuple(value)


def _string_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise SchemaError(f'{where}: expected a table of name = "text"')
    return dict(value)


def _optional_word(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise SchemaError(f"{where}: expected a word such as 'user'")
    return value


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
    "role_map",
    "default_role",
    "decode_json",
    "sentinels",
    "memory",
    "detect",
    "retrieval",
}
_ORDER_KEYS = {"path", "type", "tiebreak"}
_DETECT_KEYS = {"container_names", "database_names", "fields", "markers", "values", "json_strings"}


def _detect_hints(data: Mapping[str, Any], where: Any) -> DetectHints:
    detect = _table(data, "detect", where("detect"))
    unknown = sorted(set(detect) - _DETECT_KEYS)
    if unknown:
        raise SchemaError(where("detect") + f": unknown key(s) {', '.join(unknown)}")
    values = _table(detect, "values", where("detect.values"))
    known: dict[str, frozenset[str]] = {}
    for path, allowed in values.items():
        _path(path, where(f"detect.values.{path}"))
        known[path] = frozenset(_strings(allowed, where(f"detect.values.{path}")))
    return DetectHints(
        container_names=frozenset(
            _strings(detect.get("container_names", []), where("detect.container_names"))
        ),
        database_names=frozenset(
            _strings(detect.get("database_names", []), where("detect.database_names"))
        ),
        fields=_strings(detect.get("fields", []), where("detect.fields")),
        markers=_strings(detect.get("markers", []), where("detect.markers")),
        values=known,
        json_strings=tuple(
            _path(p, where("detect.json_strings"))
            for p in _strings(detect.get("json_strings", []), where("detect.json_strings"))
        ),
    )


def _retrieval(data: Mapping[str, Any], where: Any) -> Retrieval | None:
    if "retrieval" not in data:
        return None  # Schema.how_it_retrieves: the best guess, said as one
    try:
        return retrieval_from_mapping(
            _table(data, "retrieval", where("retrieval")), where("retrieval")
        )
    except RetrievalError as exc:
        raise SchemaError(str(exc)) from None


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
    raw_thread = data["thread"]
    thread_list = raw_thread if isinstance(raw_thread, list) and raw_thread else [raw_thread]
    thread_paths = [_path(t, where("thread")) for t in thread_list]
    try:
        granularity = Granularity(data.get("granularity", "exchange"))
    except ValueError:
        allowed = ", ".join(g.value for g in Granularity)
        raise SchemaError(where("granularity") + f": must be one of {allowed}") from None

    messages_path = None
    if granularity is Granularity.MESSAGE:
        roles = _selectors(data.get("role", "/role"), where("role"))
        texts = _selectors(data.get("text", "/content"), where("text"))
    else:
        messages = data.get("messages")
        if not isinstance(messages, Mapping):
            raise SchemaError(where("messages") + f": required for {granularity} granularity")
        messages_path = _path(messages.get("path"), where("messages.path"))
        roles = _selectors(messages.get("role", "/role"), where("messages.role"))
        texts = _selectors(messages.get("text", "/content"), where("messages.text"))

    kind = _table(data, "kind", where("kind"))
    memory = _table(data, "memory", where("memory"))
    expected = memory.get("expected_ttl", {})
    if not isinstance(expected, Mapping) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in expected.values()
    ):
        raise SchemaError(where("memory.expected_ttl") + ": a table of kind = seconds")
    timestamps = data.get("timestamp", [])
    if isinstance(timestamps, Mapping):
        timestamps = [timestamps]
    order = data.get("order")
    if order is not None:
        if not isinstance(order, Mapping):
            raise SchemaError(where("order") + ": expected a table with 'path' and 'type'")
        unknown_order = sorted(set(order) - _ORDER_KEYS)
        if unknown_order:
            raise SchemaError(where("order") + f": unknown key(s) {', '.join(unknown_order)}")
        # Every store breaks ties on id (unique within a partition); say so, allow nothing else.
        if order.get("tiebreak", "/id") != "/id":
            raise SchemaError(where("order.tiebreak") + ": only '/id' is supported")
    tenant_label = data.get("tenant_label", "tenant")
    if not isinstance(tenant_label, str) or not tenant_label:
        raise SchemaError(where("tenant_label") + ": expected a word such as 'user'")
    schema = Schema(
        name=name,
        title=str(data.get("title", name)),
        partition_key=tuple(pk),
        tenant=_path(data["tenant"], where("tenant")) if data.get("tenant") else None,
        tenant_label=tenant_label,
        thread=thread_paths[-1],
        thread_parents=tuple(thread_paths[:-1]),
        granularity=granularity,
        order=_typed(order, where("order")) if order is not None else None,
        timestamps=tuple(_typed(t, where(f"timestamp[{i}]")) for i, t in enumerate(timestamps)),
        kind=_path(kind["path"], where("kind.path")) if "path" in kind else None,
        default_kind=str(kind.get("default", "turn")),
        kind_map=_string_map(kind.get("map", {}), where("kind.map")),
        messages=messages_path,
        roles=roles,
        texts=texts,
        role_map=_string_map(data.get("role_map", {}), where("role_map")),
        default_role=_optional_word(data.get("default_role"), where("default_role")),
        decode_json=tuple(
            _path(p, where("decode_json"))
            for p in _strings(data.get("decode_json", []), where("decode_json"))
        ),
        sentinels=_string_map(data.get("sentinels", {}), where("sentinels")),
        short_term_kinds=frozenset(_strings(memory.get("short_term", []), where("memory"))),
        long_term_kinds=frozenset(_strings(memory.get("long_term", []), where("memory"))),
        bookkeeping_kinds=frozenset(_strings(memory.get("bookkeeping", []), where("memory"))),
        expected_ttl=dict(expected),
        detect=_detect_hints(data, where),
        source=source,
        retrieval=_retrieval(data, where),
    )
    # Every partition key path must be a level we can name, or threads cannot be addressed.
    named = {p.text for p in schema.thread_paths} | (
        {schema.tenant.text} if schema.tenant else set()
    )
    missing = [p for p in schema.partition_key if p not in named]
    if missing:
        raise SchemaError(
            f"{source}: partition key path(s) {', '.join(missing)} are not mapped to the "
            "tenant or thread level"
        )
    return schema
