"""Which physical partitions share the provisioned throughput now.

Cosmos DB splits provisioned RU/s evenly over a container's physical partitions
(PartitionKeyRangeIds). A split retires a range and hands its keys to two children
with new ids, so a window that spans one holds metric series and log rows for the
parent and for the children: counting every id seen divides the RU/s by one partition
too many, and each partition's budget comes out too low.

The partitions that exist now are the ranges that reported in the newest minute any
range reported in (NormalizedRUConsumption is per range and per minute; a retired
parent reports no more). That is the same moment the provisioned RU/s is read at (its
latest value), so the two make one budget.
"""

from __future__ import annotations

from collections.abc import Iterable

from cosmem_tui.model.telemetry import PARTITION_KEY_RANGE, Series


def current_ranges(series: Iterable[Series]) -> frozenset[str]:
    """The range ids of ``series`` (split by PartitionKeyRangeId) that have a value in
    the newest bucket any of them has one in; empty when none has data."""
    newest: float | None = None
    present: set[str] = set()
    for s in series:
        latest = s.latest()
        if latest is None:
            continue
        range_id = s.dimension(PARTITION_KEY_RANGE) or "?"
        if newest is None or latest.at > newest:
            newest, present = latest.at, {range_id}
        elif latest.at == newest:
            present.add(range_id)
    return frozenset(present)
