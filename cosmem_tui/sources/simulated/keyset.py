"""A container's keys as the workload sees them: one canonical order, tenants, partitions.

Everything per key is computed once here (its JSON text, its tenant, its ring
position and partition), so building a workload over hundreds of thousands of keys
stays linear, and answers work on plain parallel lists indexed by key or by tenant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cosmem_tui.model import Key, Scalar
from cosmem_tui.sources.simulated.placement import cut, key_json, ring_position

AVERAGE_ITEM_BYTES = 1_400  # the storage of a key that does not say: its weight in items


@dataclass(frozen=True, slots=True)
class WorkloadKey:
    """One logical partition key and its weight (e.g. its item count)."""

    values: tuple[Scalar, ...]  # the key's values: (tenant,) or (tenant, thread, …)
    weight: float
    size_bytes: int | None = None  # its storage (None: its weight in average items)


class KeySet:
    """Keys ordered by their JSON text (the order they came in changes nothing, not even
    the last bit of a sum), each with its tenant (index) and physical partition."""

    def __init__(self, keys: Sequence[WorkloadKey], partitions: int) -> None:
        texts = [key_json(k.values) for k in keys]
        order = sorted(range(len(keys)), key=texts.__getitem__)
        self.texts = [texts[i] for i in order]
        self.values = [tuple(keys[i].values) for i in order]
        self.weights = [max(0.0, float(keys[i].weight)) for i in order]
        self.sizes = [_size(keys[i], w) for i, w in zip(order, self.weights, strict=True)]
        total = sum(self.weights) or 1.0
        self.shares = [w / total for w in self.weights]

        # Tenants: the first value of each key, compared as Keys (42 and "42" stay apart).
        self.tenants: list[Key] = []
        self.tenant_texts: list[str] = []
        self.tenant_positions: list[int] = []
        self.tenant_of: list[int] = []
        self.by_tenant: dict[Key, int] = {}
        seen: dict[tuple[type, Scalar], int] = {}  # one Key per distinct first value
        for values in self.values:
            first = values[0]
            t = seen.get((first.__class__, first))
            if t is None:
                tenant = Key.of(first)
                t = self.by_tenant.get(tenant)
                if t is None:
                    t = self.by_tenant[tenant] = len(self.tenants)
                    text = key_json(values[:1])
                    self.tenants.append(tenant)
                    self.tenant_texts.append(text)
                    self.tenant_positions.append(ring_position(text))
                seen[(first.__class__, first)] = t
            self.tenant_of.append(t)

        positions = [
            (self.tenant_positions[t], ring_position(text))
            for t, text in zip(self.tenant_of, self.texts, strict=True)
        ]
        self.partition_of = cut(positions, self.weights, partitions)
        self.members: list[list[int]] = [[] for _ in self.tenants]
        spread: list[dict[int, float]] = [{} for _ in self.tenants]
        self.keys_on = [0] * partitions  # keys with demand on each partition
        tenants_on: list[set[int]] = [set() for _ in range(partitions)]
        for i, (t, p) in enumerate(zip(self.tenant_of, self.partition_of, strict=True)):
            self.members[t].append(i)
            spread[t][p] = spread[t].get(p, 0.0) + self.shares[i]
            if self.shares[i] > 0:
                self.keys_on[p] += 1
                tenants_on[p].add(t)
        # (partition, share of the container's demand) of each tenant, by partition
        self.tenant_shares = [tuple(sorted(s.items())) for s in spread]
        self.tenants_on = [len(ts) for ts in tenants_on]

    def __len__(self) -> int:
        return len(self.texts)


def _size(key: WorkloadKey, weight: float) -> int:
    return key.size_bytes if key.size_bytes is not None else round(weight * AVERAGE_ITEM_BYTES)
