"""Storage per physical partition from Cosmos alone, for accounts without Log Analytics.

A container read with ``populate_partition_key_range_statistics`` answers, in its body,
``statistics``: per partition key range its ``id``, ``sizeInKB``, ``documentCount`` and
``partitionKeys`` — the service's sample of the range's largest logical keys (only keys
holding at least 1 % of the range's documents, the top few, sizes estimated). With
``populate_quota_info`` the ``x-ms-resource-usage`` header carries the container's
totals (``collectionSize``, ``documentsSize`` in KB, ``documentsCount``). Plain parsing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cosmem_tui.model import InvalidKey, Key
from cosmem_tui.model.telemetry import ContainerStorage, RangeStorage

RESOURCE_USAGE = "x-ms-resource-usage"


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float | str):
        try:
            return int(float(value))
        except ValueError:
            return None
    return None


def resource_usage(header: str | None) -> dict[str, int]:
    """``"documentsSize=12;documentsCount=3;…"`` → ``{"documentsSize": 12, …}``."""
    usage: dict[str, int] = {}
    for part in (header or "").split(";"):
        name, sep, value = part.partition("=")
        number = _int(value.strip()) if sep else None
        if number is not None:
            usage[name.strip()] = number
    return usage


def _key(raw: Any) -> Key | None:
    values = raw if isinstance(raw, list) else [raw]
    try:
        return Key(values)
    except InvalidKey:
        return None  # an undefined component ({}) has no Key form


def range_storage(entry: Any) -> RangeStorage | None:
    if isinstance(entry, str):  # some gateways send each range as JSON text
        try:
            entry = json.loads(entry)
        except ValueError:
            return None
    if not isinstance(entry, Mapping) or entry.get("id") is None:
        return None
    top: list[tuple[Key, int]] = []
    for item in entry.get("partitionKeys") or ():
        if not isinstance(item, Mapping):
            continue
        key, size = _key(item.get("partitionKey")), _int(item.get("sizeInKB"))
        if key is not None and size is not None:
            top.append((key, size))
    top.sort(key=lambda pair: (-pair[1], pair[0].sort_key))
    return RangeStorage(
        range_id=str(entry["id"]),
        size_kb=_int(entry.get("sizeInKB")) or 0,
        documents=_int(entry.get("documentCount")) or 0,
        top_keys=tuple(top),
    )


def _range_order(storage: RangeStorage) -> tuple[int, int | str]:
    rid = storage.range_id
    return (0, int(rid)) if rid.isdigit() else (1, rid)


def container_storage(body: Mapping[str, Any], headers: Mapping[str, Any]) -> ContainerStorage:
    ranges = [r for r in map(range_storage, body.get("statistics") or ()) if r is not None]
    usage = resource_usage(headers.get(RESOURCE_USAGE))
    return ContainerStorage(
        ranges=tuple(sorted(ranges, key=_range_order)),
        size_kb=usage.get("collectionSize"),
        documents_size_kb=usage.get("documentsSize"),
        documents=usage.get("documentsCount"),
    )
