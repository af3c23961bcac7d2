"""``cosmem import --container-properties FILE``: a container's settings as Azure prints them.

``az cosmosdb sql container show`` prints the Resource Manager answer (SqlContainerGetResults)
with its properties flattened: ``{"id": "/subscriptions/…/sqlDatabases/DB/containers/C",
"name": "C", "resource": {"id": "C", "partitionKey": {…}, "defaultTtl": …,
"indexingPolicy": {…}, "vectorEmbeddingPolicy": {…}, "fullTextPolicy": {…}, "_ts": …},
"options": …, "resourceGroup": …}``. The REST answer nests the same ``resource`` under
``properties``; a user may also save only the ``resource`` object (``--query resource``).
All three are accepted. The CLI prints unset settings as ``null``; the data plane leaves
them out, so nulls are dropped and the workspace holds what ``container.read()`` would.

Anything else is refused whole, in one line naming the file: an import that silently
took a partition key or a vector policy from a wrong file would be wrong data.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosmem_tui.model import JsonValue, PartitionKeyDefinition

DISTANCES = ("cosine", "dotproduct", "euclidean")
_ARM_DATABASE = re.compile(r"/sqlDatabases/([^/]+)/containers/[^/]+$", re.IGNORECASE)
MAX_FILE_BYTES = 4 << 20  # a container's properties are a few KB; more is not that file


class ContainerFileError(ValueError):
    """The file is not a container's properties: one line for the user (exit status 2)."""


@dataclass(frozen=True, slots=True)
class ContainerFile:
    """What a container properties file says, checked, nulls dropped."""

    path: Path
    container: str
    database: str | None  # from the Resource Manager id, when the file has it
    partition_key: PartitionKeyDefinition
    default_ttl: int | None  # None: TTL off (no defaultTtl)
    indexing_policy: dict[str, JsonValue]
    vector_embedding_policy: dict[str, JsonValue] | None
    full_text_policy: dict[str, JsonValue] | None


def read_container_file(path: Path) -> ContainerFile:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ContainerFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ContainerFileError(f"{path}: too large for a container's properties")
    try:
        answer = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ContainerFileError(f"{path}: not JSON ({_short(exc)}); {_EXPECTED}") from None
    return parse_container_answer(path, answer)


_EXPECTED = "expected what `az cosmosdb sql container show` prints, or its resource object"


def parse_container_answer(path: Path, answer: object) -> ContainerFile:
    resource, database = _resource_of(answer)
    if resource is None:
        raise ContainerFileError(f"{path}: no container resource with a partitionKey; {_EXPECTED}")
    resource = _without_nulls(resource)

    def bad(what: str) -> ContainerFileError:
        return ContainerFileError(f"{path}: {what}")

    name = resource.get("id")
    if not isinstance(name, str) or not name:
        raise bad("resource.id (the container's name) must be a non-empty string")
    key = resource["partitionKey"]
    paths = key.get("paths") if isinstance(key, dict) else None
    if (
        not isinstance(paths, list)
        or not 1 <= len(paths) <= 3
        or not all(isinstance(p, str) and p.startswith("/") and len(p) > 1 for p in paths)
    ):
        raise bad("resource.partitionKey.paths must be one to three paths like /tenantId")
    assert isinstance(key, dict)
    kind = key.get("kind", "MultiHash" if len(paths) > 1 else "Hash")
    version = key.get("version", 1)  # as container.read() leaves it when absent
    if kind not in ("Hash", "MultiHash", "Range") or not _is_int(version):
        raise bad(f"resource.partitionKey has kind {kind!r} and version {version!r}")
    ttl = resource.get("defaultTtl")
    if ttl is not None and (not _is_int(ttl) or not (ttl == -1 or ttl > 0)):
        raise bad(f"resource.defaultTtl must be -1 or a positive number of seconds, not {ttl!r}")
    indexing = _object(resource, "indexingPolicy", bad) or {}
    vectors = _object(resource, "vectorEmbeddingPolicy", bad)
    if vectors is not None:
        _check_vectors(vectors, bad)
    full_text = _object(resource, "fullTextPolicy", bad)
    return ContainerFile(
        path=path,
        container=name,
        database=database,
        partition_key=PartitionKeyDefinition(tuple(paths), str(kind), int(version)),
        default_ttl=ttl,
        indexing_policy=indexing,
        vector_embedding_policy=vectors,
        full_text_policy=full_text,
    )


def _resource_of(answer: object) -> tuple[dict[str, Any] | None, str | None]:
    """The container resource inside any of the accepted shapes, and the database name
    when the answer's Resource Manager id names it."""
    if not isinstance(answer, dict):
        return None, None
    if "partitionKey" in answer:
        return answer, None
    candidates = (answer.get("resource"), (answer.get("properties") or {}).get("resource"))
    for resource in candidates:
        if isinstance(resource, dict) and "partitionKey" in resource:
            arm_id = answer.get("id")
            found = _ARM_DATABASE.search(arm_id) if isinstance(arm_id, str) else None
            return resource, found.group(1) if found else None
    return None, None


def _check_vectors(policy: dict[str, JsonValue], bad: Any) -> None:
    entries = policy.get("vectorEmbeddings", [])
    if not isinstance(entries, list):
        raise bad("resource.vectorEmbeddingPolicy.vectorEmbeddings must be a list")
    for n, entry in enumerate(entries):
        where = f"resource.vectorEmbeddingPolicy.vectorEmbeddings[{n}]"
        if not isinstance(entry, dict):
            raise bad(f"{where} must be an object")
        path, dims, distance = (
            entry.get("path"),
            entry.get("dimensions"),
            entry.get("distanceFunction"),
        )
        if not isinstance(path, str) or not path.startswith("/"):
            raise bad(f"{where}.path must be a path like /embedding")
        if not isinstance(dims, int) or isinstance(dims, bool) or dims <= 0:
            raise bad(f"{where}.dimensions must be a positive number, not {dims!r}")
        if distance is not None and str(distance).lower() not in DISTANCES:
            raise bad(f"{where}.distanceFunction must be one of {', '.join(DISTANCES)}")


def _object(resource: dict[str, Any], name: str, bad: Any) -> dict[str, JsonValue] | None:
    value = resource.get(name)
    if value is not None and not isinstance(value, dict):
        raise bad(f"resource.{name} must be an object")
    return value


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(exc: Exception) -> str:
    return str(exc).splitlines()[0][:120]
