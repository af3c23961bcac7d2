"""Synthetic key sets of any size, for benchmarks and scale tests of the simulator."""

from __future__ import annotations

from cosmem_tui.sources.simulated.keyset import WorkloadKey
from cosmem_tui.sources.simulated.rhythm import mix


def synthetic_keys(
    tenants: int, *, threads: int = 3, zipf: float = 1.07, seed: int = 7
) -> list[WorkloadKey]:
    """``tenants`` tenants (``tenant-000001`` is the largest) with about ``threads``
    threads each (1 to 2 × threads), sized by a Zipf law over tenant rank:
    hierarchical keys ``[tenant, thread]``."""
    keys: list[WorkloadKey] = []
    for rank in range(1, tenants + 1):
        tenant = f"tenant-{rank:06d}"
        size = 50_000.0 / rank**zipf
        count = 1 + mix(seed, rank) % (2 * threads)
        for t in range(count):
            keys.append(
                WorkloadKey((tenant, f"thr-{mix(seed, rank, t) % 16**10:010x}"), size / count)
            )
    return keys
