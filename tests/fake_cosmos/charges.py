"""Request charges (RU) that grow with the work a request makes the service do.

Not Azure's exact numbers — those depend on document size, index layout and the
query engine's plan — but the same *shape*, so a test can tell a cheap request from an
expensive one and a change that makes the product scan more shows up as more RU.

The model (every charge rounded to 2 decimals, as the service reports them):

* **Point read**: ``POINT_READ_RU_PER_KB`` per started KB of the document (a 1 KB item
  costs 1 RU, as on Azure). A read that finds nothing still costs ``NOT_FOUND_RU``.
* **Write** (create / upsert / replace / patch / delete): ``WRITE_BASE_RU`` plus
  ``WRITE_RU_PER_KB`` per started KB, roughly Azure's ~5.5 RU for a 1 KB item with the
  default (index everything) policy.
* **Query page** (one backend request for one range):
  ``QUERY_BASE_RU`` (Azure's floor is ~2.3–2.8 RU for any query page)
  + ``INDEX_ENTRY_RU`` × index entries touched — work the index serves: documents
  yielded by an equality / range / IN / STARTSWITH filter on one property path, entries
  walked by an ORDER BY or DISTINCT of one indexed path (a ``TOP 1 … WHERE p > @x ORDER
  BY p`` seek touches only the entries it reads), COUNT(1) counted from the index;
  + ``DOC_LOAD_RU`` × documents loaded — documents the engine had to read: to check a
  filter the index cannot serve, or to build a row that needs more than the walked
  index value (a projection, ``SELECT *``, an aggregate over a property) —
  + ``DOC_LOAD_RU_PER_KB`` × KB of those documents;
  + ``RESULT_RU_PER_KB`` × KB of the page returned.
  Results that need every candidate at once (GROUP BY, DISTINCT or ORDER BY that no
  single-path index serves, aggregates, subqueries) pay for all candidates on *every*
  page: like the service, the fake keeps no state between pages, so it re-reads.
* **Query plan** and **partition key ranges** reads: ``QUERY_PLAN_RU`` and
  ``PKRANGES_RU`` — 0: the gateway computes plans itself and reads routing metadata from
  its own cache, and the SDK's accounting shows no charge for either.
* **Metadata** (account, database and container reads and writes): ``METADATA_RU``.
* **Errors**: 429 (throttled) and 400 answers cost 0; a 404 point read costs
  ``NOT_FOUND_RU`` as on Azure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

QUERY_BASE_RU = 2.3
INDEX_ENTRY_RU = 0.002
DOC_LOAD_RU = 0.03
DOC_LOAD_RU_PER_KB = 0.02
RESULT_RU_PER_KB = 0.1
POINT_READ_RU_PER_KB = 1.0
NOT_FOUND_RU = 1.0
WRITE_BASE_RU = 4.76
WRITE_RU_PER_KB = 1.0
QUERY_PLAN_RU = 0.0
PKRANGES_RU = 0.0
METADATA_RU = 1.0
THROTTLED_RU = 0.0


def _kb(size: int) -> int:
    """Started kilobytes (at least one)."""
    return max(1, math.ceil(size / 1024))


def point_read(size: int) -> float:
    return round(POINT_READ_RU_PER_KB * _kb(size), 2)


def write(size: int) -> float:
    return round(WRITE_BASE_RU + WRITE_RU_PER_KB * _kb(size), 2)


@dataclass
class Meter:
    """The work one query page did, accumulated while it runs."""

    index_entries: int = 0
    docs_loaded: int = 0
    loaded_bytes: int = 0
    result_bytes: int = 0

    def load(self, size: int) -> None:
        self.docs_loaded += 1
        self.loaded_bytes += size

    def add(self, other: Meter) -> None:
        self.index_entries += other.index_entries
        self.docs_loaded += other.docs_loaded
        self.loaded_bytes += other.loaded_bytes
        self.result_bytes += other.result_bytes

    def charge(self) -> float:
        return round(
            QUERY_BASE_RU
            + INDEX_ENTRY_RU * self.index_entries
            + DOC_LOAD_RU * self.docs_loaded
            + DOC_LOAD_RU_PER_KB * self.loaded_bytes / 1024
            + RESULT_RU_PER_KB * self.result_bytes / 1024,
            2,
        )
