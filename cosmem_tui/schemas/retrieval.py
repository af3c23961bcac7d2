"""How a memory system retrieves: the ``[retrieval]`` section of a schema.

A recall probe asks the question the agent's own retrieval query asks, so it must know
where the system keeps the embedding, which text paths its full-text ranking reads,
which filters its WHERE clause applies, the scope it queries (a thread, the tenant's
key prefix, the whole container) and its default k. The distance function is the
container's: its vector embedding policy names it for the embedding's path, and the
schema's ``distance`` is used only where the container has no policy for that path.

A schema without the section (a user's file, the derived ``generic``) gets a best guess,
marked ``guess`` so every face says it is one. The format is documented in
docs/schemas.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cosmem_tui.model import ContainerProperties, JsonValue
from cosmem_tui.model.recall import MAX_PROBE_K, Distance, FilterOp, RecallFilter
from cosmem_tui.schemas.paths import FieldPath

DEFAULT_K = 10  # when neither the system's code nor its docs name one: said as a guess
GUESS_EMBEDDING = "/embedding"
GUESS_TEXT = "/content"


class RetrievalScope(StrEnum):
    """What the system's retrieval query is scoped to."""

    THREAD = "thread"  # one partition: the thread's full key
    TENANT = "tenant"  # the tenant's (or user's) key prefix
    CONTAINER = "container"  # no key: a cross-partition fan-out


@dataclass(frozen=True, slots=True)
class VectorPolicy:
    """One entry of a container's vector embedding policy."""

    path: str
    distance: Distance | None  # None: a distance function this console does not know
    dimensions: int | None
    data_type: str | None


@dataclass(frozen=True, slots=True)
class Retrieval:
    """How the memory system retrieves from this schema's containers."""

    embedding: FieldPath
    texts: tuple[FieldPath, ...]
    scope: RetrievalScope
    k: int = DEFAULT_K
    distance: Distance = Distance.COSINE  # only where the container has no policy for it
    filters: tuple[RecallFilter, ...] = ()
    guess: bool = False  # a best guess, not taken from the system's code
    basis: str = ""  # where these come from, one line for the screen

    def vector_policy(self, container: ContainerProperties) -> VectorPolicy | None:
        """The container's policy entry for the embedding path, if it declares one."""
        return vector_policy_at(container, self.embedding.text)

    def distance_for(self, container: ContainerProperties) -> tuple[Distance, str]:
        """The distance function a probe uses, and where it comes from."""
        entry = self.vector_policy(container)
        if entry is not None and entry.distance is not None:
            return entry.distance, f"the container's vector policy for {entry.path}"
        return self.distance, f"the schema (no vector policy for {self.embedding.text})"


def vector_policies(container: ContainerProperties) -> tuple[VectorPolicy, ...]:
    """Every entry of the container's vector embedding policy, as declared."""
    policy = container.vector_embedding_policy or {}
    entries = policy.get("vectorEmbeddings") if isinstance(policy, Mapping) else None
    found: list[VectorPolicy] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("path"), str):
            continue
        raw_distance = entry.get("distanceFunction")
        try:
            distance = Distance(str(raw_distance).lower()) if raw_distance else None
        except ValueError:
            distance = None
        dims = entry.get("dimensions")
        data_type = entry.get("dataType")
        found.append(
            VectorPolicy(
                path=str(entry["path"]),
                distance=distance,
                dimensions=dims if isinstance(dims, int) and not isinstance(dims, bool) else None,
                data_type=data_type if isinstance(data_type, str) else None,
            )
        )
    return tuple(found)


def vector_policy_at(container: ContainerProperties, path: str) -> VectorPolicy | None:
    for entry in vector_policies(container):
        if entry.path == path:
            return entry
    return None


def full_text_paths(container: ContainerProperties) -> tuple[str, ...]:
    """The paths the container's full-text policy declares."""
    policy = container.full_text_policy or {}
    entries = policy.get("fullTextPaths") if isinstance(policy, Mapping) else None
    return tuple(
        str(e["path"])
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, Mapping) and isinstance(e.get("path"), str)
    )


# -- reading the TOML section -------------------------------------------------------------

_KEYS = {"embedding", "text", "scope", "k", "distance", "filter", "guess", "basis"}
_FILTER_KEYS = {"path", "op", "values", "label"}


class RetrievalError(ValueError):
    """A ``[retrieval]`` section that cannot be used (schema.py words it as a SchemaError)."""


def retrieval_from_mapping(data: Mapping[str, Any], where: str) -> Retrieval:
    """The ``[retrieval]`` table of a schema file."""
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise RetrievalError(f"{where}: unknown key(s) {', '.join(unknown)}")
    embedding = _path(data.get("embedding", GUESS_EMBEDDING), f"{where}.embedding")
    raw_texts = data.get("text", [GUESS_TEXT])
    texts_list = [raw_texts] if isinstance(raw_texts, str) else raw_texts
    if not isinstance(texts_list, list) or not texts_list:
        raise RetrievalError(f"{where}.text: a path like '/content' or a list of them")
    texts = tuple(_path(t, f"{where}.text") for t in texts_list)
    try:
        scope = RetrievalScope(data.get("scope", RetrievalScope.THREAD.value))
    except ValueError:
        allowed = ", ".join(s.value for s in RetrievalScope)
        raise RetrievalError(f"{where}.scope: must be one of {allowed}") from None
    k = data.get("k", DEFAULT_K)
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_PROBE_K:
        raise RetrievalError(f"{where}.k: a whole number from 1 to {MAX_PROBE_K}")
    try:
        distance = Distance(data.get("distance", Distance.COSINE.value))
    except ValueError:
        allowed = ", ".join(d.value for d in Distance)
        raise RetrievalError(f"{where}.distance: must be one of {allowed}") from None
    raw_filters = data.get("filter", [])
    if not isinstance(raw_filters, list):
        raise RetrievalError(f"{where}.filter: an array of tables ([[retrieval.filter]])")
    filters = tuple(_filter(f, f"{where}.filter[{n}]") for n, f in enumerate(raw_filters))
    guess = data.get("guess", False)
    basis = data.get("basis", "")
    if not isinstance(guess, bool):
        raise RetrievalError(f"{where}.guess: true or false")
    if not isinstance(basis, str):
        raise RetrievalError(f"{where}.basis: a line of text")
    return Retrieval(embedding, texts, scope, k, distance, filters, guess, basis)


def guessed_retrieval(text: FieldPath | None) -> Retrieval:
    """A schema that says nothing of retrieval: the common agent-memory layout, a guess."""
    texts = (text,) if text is not None and text.is_top_level else (FieldPath.parse(GUESS_TEXT),)
    return Retrieval(
        embedding=FieldPath.parse(GUESS_EMBEDDING),
        texts=texts,
        scope=RetrievalScope.THREAD,
        guess=True,
        basis=(
            "a guess: the schema does not say how its system retrieves "
            f"(embedding {GUESS_EMBEDDING}, text {texts[0].text}, one thread, k {DEFAULT_K})"
        ),
    )


def _path(raw: Any, where: str) -> FieldPath:
    if not isinstance(raw, str):
        raise RetrievalError(f"{where}: expected a field path string like '/embedding'")
    try:
        return FieldPath.parse(raw)
    except ValueError as exc:
        raise RetrievalError(f"{where}: {exc}") from None


def _filter(raw: Any, where: str) -> RecallFilter:
    if not isinstance(raw, Mapping):
        raise RetrievalError(f"{where}: expected a table with 'path' and 'op'")
    unknown = sorted(set(raw) - _FILTER_KEYS)
    if unknown:
        raise RetrievalError(f"{where}: unknown key(s) {', '.join(unknown)}")
    path = _path(raw.get("path"), f"{where}.path")
    try:
        op = FilterOp(str(raw.get("op")))
    except ValueError:
        allowed = ", ".join(o.value for o in FilterOp)
        raise RetrievalError(f"{where}.op: must be one of {allowed}") from None
    values = raw.get("values", [])
    if not isinstance(values, list) or not all(_scalar(v) for v in values):
        raise RetrievalError(f"{where}.values: a list of strings, numbers or booleans")
    if op in (FilterOp.IN, FilterOp.NOT_IN) and not values:
        raise RetrievalError(f"{where}.values: '{op}' needs at least one value")
    if op in (FilterOp.ABSENT, FilterOp.PRESENT) and values:
        raise RetrievalError(f"{where}.values: '{op}' takes no values")
    label = raw.get("label", "")
    if not isinstance(label, str):
        raise RetrievalError(f"{where}.label: a few words")
    kept: tuple[JsonValue, ...] = tuple(values)
    return RecallFilter(path.text, op, kept, label)


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float | bool)
