"""Partition keys, effective partition keys (EPKs) and physical range boundaries.

A container's physical partitions split the EPK space ``["", "FF")`` into contiguous
ranges. EPKs are computed with the SDK's own code (``azure.cosmos.partition_key``,
MurmurHash3-128, hash version 2), so the fake routes an item exactly where the SDK's
routing map expects it and a prefix query's ``x-ms-start-epk`` / ``x-ms-end-epk``
headers select exactly the right items.

* Hash (one path): EPK = 32 hex digits of the hashed value.
* MultiHash (``[/tenantId, /threadId]``): one 32-digit hash per component,
  concatenated; a prefix ``[tenant]`` covers ``[H(tenant), H(tenant) + "FF")``.

Version-2 hashes clear the top two bits, so every EPK starts with ``00``–``3F``; even
boundaries are therefore spread over that span. Component hashes come from ``epk_hash``
(the SDK's algorithm on plain ints, cross-checked against the SDK) and are memoised:
seeding 50,000 items of 10,000 tenants hashes each tenant once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from azure.cosmos.partition_key import PartitionKey, _Undefined

from tests.fake_cosmos.epk_hash import component_hash
from tests.fake_cosmos.values import UNDEFINED

MIN_EPK = ""
MAX_EPK = "FF"
_V2_SPAN = 0x40 << 56  # first byte of a V2 hash is 0x00..0x3F; boundaries use 16 hex digits


class KeyError400(ValueError):
    """A partition key value the service would reject (arrays, objects, bad header)."""


def _path_steps(path: str) -> tuple[str, ...]:
    steps = []
    for part in path.strip("/").split("/"):
        if len(part) >= 2 and part[0] == part[-1] == '"':
            part = json.loads(part)
        steps.append(part.replace("~1", "/").replace("~0", "~"))
    return tuple(steps)


def _cache_key(value: Any) -> tuple[Any, ...]:
    if value is UNDEFINED or isinstance(value, _Undefined):
        return ("undefined",)
    return (type(value).__name__, value)


@dataclass
class KeyDefinition:
    """A container's partition key definition, with memoised hashing."""

    paths: tuple[str, ...]
    kind: str = "Hash"
    version: int = 2
    _steps: tuple[tuple[str, ...], ...] = field(init=False, repr=False)
    _sdk: PartitionKey = field(init=False, repr=False)
    _component_cache: dict[tuple[Any, ...], str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in ("Hash", "MultiHash"):
            raise KeyError400(f"unknown partition key kind {self.kind!r}")
        if self.version != 2:
            raise KeyError400("the fake gateway hashes partition keys with version 2 only")
        self._steps = tuple(_path_steps(p) for p in self.paths)
        if self.kind == "MultiHash":
            self._sdk = PartitionKey(path=list(self.paths), kind="MultiHash", version=self.version)
        else:
            self._sdk = PartitionKey(path=self.paths[0], kind="Hash", version=self.version)

    @classmethod
    def from_resource(cls, definition: Mapping[str, Any]) -> KeyDefinition:
        paths = tuple(definition.get("paths") or ())
        if not paths:
            raise KeyError400("The partition key definition needs at least one path.")
        kind = definition.get("kind") or ("MultiHash" if len(paths) > 1 else "Hash")
        return cls(paths, kind, int(definition.get("version") or 2))

    def resource(self) -> dict[str, Any]:
        return {"paths": list(self.paths), "kind": self.kind, "version": self.version}

    @property
    def hierarchical(self) -> bool:
        return self.kind == "MultiHash"

    # -- values ---------------------------------------------------------------------------

    def values_of(self, doc: Mapping[str, Any]) -> tuple[Any, ...]:
        """The item's key components (UNDEFINED where the item lacks a path)."""
        out = []
        for steps in self._steps:
            value: Any = doc
            for step in steps:
                if not isinstance(value, Mapping) or step not in value:
                    value = UNDEFINED
                    break
                value = value[step]
            if isinstance(value, dict | list):
                raise KeyError400(
                    "The partition key value must be a string, number, boolean or null."
                )
            out.append(value)
        return tuple(out)

    def parse_header(self, header: str) -> tuple[Any, ...]:
        """``x-ms-documentdb-partitionkey`` (a JSON array; ``[{}]`` = undefined)."""
        try:
            raw = json.loads(header)
        except json.JSONDecodeError as exc:
            raise KeyError400(f"malformed partition key header {header!r}") from exc
        if not isinstance(raw, list) or not raw or len(raw) > len(self.paths):
            raise KeyError400(
                "Partition key provided either doesn't correspond to definition in the "
                "collection or doesn't match partition key field values specified in the document."
            )
        values = []
        for v in raw:
            if v == {}:
                values.append(UNDEFINED)
            elif isinstance(v, dict | list):
                raise KeyError400(f"malformed partition key component {v!r}")
            else:
                values.append(v)
        return tuple(values)

    # -- hashing --------------------------------------------------------------------------

    @staticmethod
    def _sdk_value(value: Any) -> Any:
        return _Undefined() if value is UNDEFINED else value

    def _component_hash(self, value: Any) -> str:
        key = _cache_key(value)
        found = self._component_cache.get(key)
        if found is None:
            found = component_hash(value)
            self._component_cache[key] = found
        return found

    def epk(self, values: Sequence[Any]) -> str:
        """The EPK of a full key (or of a prefix, for MultiHash: the prefix's hashes).

        A V2 Hash key has one component, whose EPK is that component's hash; a
        MultiHash EPK is the concatenation of its components' hashes."""
        if not self.hierarchical and len(values) != 1:
            return self.sdk_epk(values)
        return "".join(self._component_hash(v) for v in values)

    def is_prefix(self, values: Sequence[Any]) -> bool:
        return self.hierarchical and len(values) < len(self.paths)

    def prefix_range(self, values: Sequence[Any]) -> tuple[str, str]:
        """``[min, max)`` of every full key that starts with ``values``."""
        start = self.epk(values)
        return start, start + "FF"

    def sdk_epk(self, values: Sequence[Any]) -> str:
        """The SDK's answer without memoisation (tests compare it with ``epk``)."""
        return str(
            self._sdk._get_effective_partition_key_string([self._sdk_value(v) for v in values])
        )


# -- boundaries ---------------------------------------------------------------------------


def even_boundaries(count: int) -> list[str]:
    """``count - 1`` interior boundaries spreading V2 hashes evenly over ``count`` ranges."""
    if count < 1:
        raise ValueError("a container has at least one range")
    return [f"{(i * _V2_SPAN) // count:016X}" for i in range(1, count)]


def _position(epk: str) -> int:
    return int(epk[:16].ljust(16, "0"), 16)


def boundary_inside_prefix(key: KeyDefinition, prefix: Sequence[Any], at: str = "20") -> str:
    """A boundary inside a hierarchical prefix: the prefix's EPK followed by ``at``.

    The next component's hash starts with ``00``–``3F``, so ``"20"`` puts roughly half of
    the prefix's sub-keys on each side. ``boundary_between`` picks an exact point instead.
    """
    if not key.hierarchical or len(prefix) >= len(key.paths):
        raise ValueError("a boundary inside a prefix needs a hierarchical key and a true prefix")
    return key.epk(prefix) + at


def boundary_between(key: KeyDefinition, below: Sequence[Any], above: Sequence[Any]) -> str:
    """A boundary with the full key ``below`` on its left and ``above`` on its right."""
    low, high = sorted((key.epk(below), key.epk(above)))
    if low == high:
        raise ValueError("the two keys have the same EPK")
    return high  # ranges are [min, max): `high` starts the right-hand range


def layout(count: int, inside: Sequence[str] = ()) -> list[str]:
    """Even boundaries, each of ``inside`` replacing the nearest even one (count stays)."""
    bounds = even_boundaries(count)
    replaced: set[int] = set()
    for extra in inside:
        if not bounds:
            bounds.append(extra)
            continue
        free = [i for i in range(len(bounds)) if i not in replaced] or list(range(len(bounds)))
        nearest = min(free, key=lambda i: abs(_position(bounds[i]) - _position(extra)))
        bounds[nearest] = extra
        replaced.add(nearest)
    out = sorted(set(bounds))
    if any(not b or b >= MAX_EPK for b in out):
        raise ValueError(f"boundaries must lie strictly inside the EPK space: {out}")
    return out
