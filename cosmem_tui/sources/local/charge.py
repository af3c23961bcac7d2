"""The modelled request charge of the local workspace.

A local workspace has no RU meter, but the console must still show what a
navigation step would cost, so the numbers are modelled on published Cosmos DB
behaviour and every record is marked simulated:

* point read: 1 RU per started KB of the item (a 1 KB point read costs 1 RU);
* query: 2.8 RU per partition range visited (the fixed cost of a small query),
  plus 0.35 RU per item returned, plus 0.1 RU per KB returned, plus 0.005 RU per
  item an aggregate reads;
* a cross-partition query visits every physical partition range of the
  container (``physical_partitions``, 4 in the demo workspace); single-partition
  and prefix queries visit one.

* change feed read: 1 RU per partition range answered (an empty answer, a 304, is a
  small read, not a query), plus 1 RU per KB of the changes returned (they are read
  like the items they are);

* write (a ttl change rewrites the item): 10 RU for the first KB, 2 RU per further KB;
  delete: 5 RU plus 1 RU per further KB; a write refused by its condition (412) or
  finding nothing (404): 1 RU.

These figures are deliberately round: they are for comparing navigation steps
("a fan-out costs 4× a prefix query"), not for capacity planning.
"""

from __future__ import annotations

import math

from cosmem_tui.model import Scope

QUERY_BASE_RU = 2.8
PER_ITEM_RETURNED_RU = 0.35
PER_KB_RETURNED_RU = 0.1
PER_ITEM_SCANNED_RU = 0.005
DEFAULT_PHYSICAL_PARTITIONS = 4
WRITE_BASE_RU = 10.0
WRITE_PER_KB_RU = 2.0
DELETE_BASE_RU = 5.0
DELETE_PER_KB_RU = 1.0
REFUSED_RU = 1.0


FEED_RANGE_RU = 1.0
FEED_PER_KB_RU = 1.0


def feed_charge(
    scope: Scope, *, returned_bytes: int, physical_partitions: int = DEFAULT_PHYSICAL_PARTITIONS
) -> float:
    ranges = physical_partitions if scope is Scope.CROSS_PARTITION else 1
    return round(FEED_RANGE_RU * ranges + FEED_PER_KB_RU * returned_bytes / 1024, 2)


def point_read_charge(size_bytes: int) -> float:
    return float(max(1, math.ceil(size_bytes / 1024)))


def query_charge(
    scope: Scope,
    *,
    returned: int,
    returned_bytes: int,
    scanned: int = 0,
    physical_partitions: int = DEFAULT_PHYSICAL_PARTITIONS,
) -> float:
    ranges = physical_partitions if scope is Scope.CROSS_PARTITION else 1
    charge = (
        QUERY_BASE_RU * ranges
        + PER_ITEM_RETURNED_RU * returned
        + PER_KB_RETURNED_RU * returned_bytes / 1024
        + PER_ITEM_SCANNED_RU * scanned
    )
    return round(charge, 2)


def _extra_kb(size_bytes: int) -> int:
    return max(0, math.ceil(size_bytes / 1024) - 1)


def write_charge(size_bytes: int) -> float:
    return WRITE_BASE_RU + WRITE_PER_KB_RU * _extra_kb(size_bytes)


def delete_charge(size_bytes: int) -> float:
    return DELETE_BASE_RU + DELETE_PER_KB_RU * _extra_kb(size_bytes)
