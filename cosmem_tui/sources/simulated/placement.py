"""Where each partition key lives: physical partitions as ranges of a hash ring.

Cosmos DB hashes a key's value to a point on a ring (for a hierarchical key, the hash
of the tenant followed by the hash of the thread, so one tenant's threads sit side by
side) and gives each physical partition a contiguous range of the ring. Partitions
split where their storage halves, so the ranges hold about equal storage; with a
hierarchical key a range boundary can fall inside a big tenant, which then spans two
(or more) partitions, while a single-level key always lives in exactly one.

The simulator does the same with a stable hash (BLAKE2b, not the service's own
MurmurHash3: the layout is plausible, not the one a real account would have): keys
are ordered on the ring, and the ring is cut into ``partitions`` ranges of equal
storage (by weight). A key belongs to the range its weight's midpoint falls in.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from hashlib import blake2b

from cosmem_tui.model import Scalar

# One encoder for every key: json.dumps with options builds a new one per call.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def key_json(values: Sequence[Scalar]) -> str:
    """A key as compact JSON array text (``["contoso","thr-1"]``), as the logs name it."""
    if all(type(v) is str and _plain(v) for v in values):
        return '["' + '","'.join(values) + '"]'  # type: ignore[arg-type]  # exactly the encoder's
    return _COMPACT.encode(list(values))


def _plain(text: str) -> bool:
    """Text JSON writes unchanged between quotes: printable ASCII without " or \\."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def ring_position(text: str) -> int:
    """A stable 64-bit hash of a JSON text (the same in every process and version)."""
    return int.from_bytes(blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def cut(
    positions: Sequence[tuple[int, int]], weights: Sequence[float], partitions: int
) -> list[int]:
    """The partition of each key from its ring position (tenant's, then its own): the
    ring cut into ``partitions`` ranges of equal weight."""
    if partitions < 1:
        raise ValueError("a container has at least one physical partition")
    placed = [0] * len(positions)
    total = sum(weights)
    if total <= 0:
        return placed
    before = 0.0
    for i in sorted(range(len(positions)), key=positions.__getitem__):
        middle = (before + weights[i] / 2) / total
        placed[i] = min(partitions - 1, int(middle * partitions))
        before += weights[i]
    return placed


def place(
    keys: Sequence[tuple[Scalar, ...]], weights: Sequence[float], partitions: int
) -> list[int]:
    """The physical partition (0..partitions-1) of each key, in the order given."""
    positions = [(ring_position(key_json(k[:1])), ring_position(key_json(k))) for k in keys]
    return cut(positions, weights, partitions)
