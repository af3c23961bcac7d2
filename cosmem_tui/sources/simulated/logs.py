"""The simulated log aggregations: one table per ``LogName``, as the KQL returns them.

What each aggregation returns (columns exactly ``LOG_COLUMNS``; rows sorted, then cut
to ``query.top``):

* ``key_usage``: keys (tenant level: the first value; key level: the whole key; a
  ``tenant`` keeps only its keys) by RU, most first, then by key text;
* ``partition_usage``: physical partitions by RU, most first, then by id;
* ``throttles``: 429s per minute, operation and physical partition (named by a GUID,
  as the request log names it: ``physical_partition_id``, never the range id), newest
  minute first (a cut keeps the newest), then most 429s first, then by operation and
  partition; only rows with 429s;
* ``key_throttles``: keys by 429s where logged, most first, then by requests, most
  first, then by key text (keys with no 429s are listed too, with 0). Of each key's
  429s, ``UNKEYED_429_SHARE`` are taken as never logged with a key (their requests gave
  up throttled: no RU-log row), as Azure's RU log leaves them out;
* ``request_totals``: one row, the container's requests and 429s in the window, the
  429s no key was logged for, and the console's own requests and RU — none: the
  simulated account serves only the workload (always one row, zeros where nothing
  happened);
* ``key_storage``: like Azure's PartitionKeyStatistics, only the largest keys — the
  three with most storage on each physical partition — by size, largest first; at
  tenant level their sizes summed per tenant (so a tenant whose storage is spread over
  many small threads reports only what its largest threads hold: a lower bound). Sizes
  are what the keys hold at the end of the window (``storage``: items expire), so a
  reported size never exceeds what the workspace still stores;
* ``tables``: the resource-specific tables the console reads (requests, RU per key,
  key statistics) that hold rows in the window, most rows first, then by name.

Logs arrive late: an answer covers the window up to ``LOG_LAG_S`` before now, and its
``as_of`` says where it stops. Cells are plain values: key texts are JSON array text,
``TimeGenerated`` epoch seconds.
"""

from __future__ import annotations

import heapq
import math
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cosmem_tui.model.telemetry import (
    LOG_COLUMNS,
    PARTITION_IDS,
    KeyLevel,
    LogAnswer,
    LogName,
    LogQuery,
    LogTable,
    region_key,
)
from cosmem_tui.sources.simulated.metrics import SIMULATED_REGION
from cosmem_tui.sources.simulated.operations import BURST, OPERATIONS, REQUESTS_PER_RU, STEADY
from cosmem_tui.sources.simulated.problems import bad_logs_request
from cosmem_tui.sources.simulated.rhythm import LOG_LAG_S, MINUTE_S
from cosmem_tui.sources.simulated.usage import ClassSums, KeyTable, SpanSums
from cosmem_tui.sources.simulated.workload import Workload

STORAGE_KEYS_PER_PARTITION = 3  # PartitionKeyStatistics: the largest keys of each partition
# Simulated, not measured: the share of 429s whose request has no row in the RU log
# (it charged nothing and was never served), so no key can be named for them.
UNKEYED_429_SHARE = 0.2

Row = tuple[Any, ...]


class LogAnswers:
    """Answers log queries over one workload of one container."""

    def __init__(
        self,
        workload: Workload,
        *,
        database: str,
        container: str,
        storage: Callable[[float], Mapping[str, int]] | None = None,
    ) -> None:
        """``storage``: bytes per key text at a time (None: the key set's sizes, fixed)."""
        self.workload = workload
        self.database = database
        self.container = container
        self.sums = SpanSums(workload)
        self._storage = storage
        # The sizes and largest keys of one minute (statistics move slowly; a refresh
        # every 2 s must not read the workspace again each time).
        self._largest: tuple[int | None, list[int], list[int]] | None = None

    def answer(self, query: LogQuery, now: float) -> LogAnswer:
        name = query.name.value
        if not query.span.end > query.span.start:
            return LogAnswer(query, problem=bad_logs_request(name, "the timespan is empty"))
        if query.top < 1:
            return LogAnswer(
                query,
                problem=bad_logs_request(name, f"'take' needs a positive count, not {query.top}"),
            )
        available = math.floor(now) - LOG_LAG_S
        as_of = float(min(query.span.end, available))
        start, end = math.ceil(query.span.start), min(math.ceil(query.span.end), available)
        rows: list[Row] = []
        if end > start and self._matches(query):
            rows = self._rows(query, start, end)
        elif query.name is LogName.REQUEST_TOTALS:  # a summarize without a group-by
            rows = [(0, 0, 0, 0, 0.0)]
        table = LogTable(LOG_COLUMNS[query.name], tuple(rows[: query.top]))
        return LogAnswer(query, table=table, as_of=as_of)

    def _matches(self, query: LogQuery) -> bool:
        database, container = query.database, query.container
        region = query.region in (None, region_key(SIMULATED_REGION))  # its only region
        return database in (None, self.database) and container in (None, self.container) and region

    def _rows(self, query: LogQuery, start: int, end: int) -> list[Row]:
        handler = {
            LogName.KEY_USAGE: self._key_usage,
            LogName.PARTITION_USAGE: self._partition_usage,
            LogName.THROTTLES: self._throttles,
            LogName.KEY_THROTTLES: self._key_throttles,
            LogName.REQUEST_TOTALS: self._request_totals,
            LogName.KEY_STORAGE: self._key_storage,
            LogName.TABLES: self._tables,
        }[query.name]
        return handler(query, start, end)

    def _table(self, query: LogQuery, start: int, end: int) -> KeyTable:
        sums = ClassSums(self.workload, self.sums.totals(start, end))
        by_tenant = query.level is KeyLevel.TENANT
        return KeyTable(self.workload, sums, by_tenant=by_tenant, tenant=query.tenant)

    # -- usage ----------------------------------------------------------------------------

    def _key_usage(self, query: LogQuery, start: int, end: int) -> list[Row]:
        table = self._table(query, start, end)
        ru, texts = table.ru, table.texts
        spent = [row for row, value in enumerate(ru) if value > 0]
        chosen = heapq.nsmallest(query.top, spent, key=lambda row: (-ru[row], texts[row]))
        ids, keys = self.workload.partition_ids, len(spent)
        rows: list[Row] = []
        for row in chosen:
            f = table.figures(row)
            main = f.partition
            touched = [ids[p] for p, spent in sorted(f.ru_by_partition.items()) if spent > 0]
            rows.append(
                (
                    f.text,
                    ids[main],
                    f.partitions,
                    f.ru,
                    f.peak,
                    f.ru_by_partition[main],
                    f.peak_by_partition[main],
                    keys,
                    touched[:PARTITION_IDS],
                )
            )
        return rows

    def _partition_usage(self, query: LogQuery, start: int, end: int) -> list[Row]:
        w = self.workload
        totals = self.sums.totals(start, end)
        if not totals.minutes:
            return []
        by_tenant = query.level is KeyLevel.TENANT
        rows: list[Row] = []
        if query.tenant is None:
            counts = w.keys.tenants_on if by_tenant else w.keys.keys_on
            for p in range(w.partitions):
                served, peak = totals.partition_served[p], totals.partition_peak[p]
                rows.append((w.partition_ids[p], served, peak, counts[p]))
        else:
            t = w.keys.by_tenant.get(query.tenant)
            if t is not None:
                cls, members = w.tenant_classes[t], w.keys.members[t]
                sums = ClassSums(w, totals)
                for p, share in w.keys.tenant_shares[t]:
                    keys = 1 if by_tenant else sum(1 for i in members if w.key_partitions[i] == p)
                    ru, peak = share * sums.ru[p][cls], share * totals.peak[p][cls]
                    rows.append((w.partition_ids[p], ru, peak, keys))
        rows = [row for row in rows if row[1] > 0]
        rows.sort(key=lambda row: (-row[1], int(row[0])))
        return rows

    # -- throttling -----------------------------------------------------------------------

    def _throttles(self, query: LogQuery, start: int, end: int) -> list[Row]:
        w = self.workload
        spread: dict[int, float] | None = None
        cls, hot = 0, False
        if query.tenant is not None:
            t = w.keys.by_tenant.get(query.tenant)
            if t is None:
                return []
            spread, cls = dict(w.keys.tenant_shares[t]), w.tenant_classes[t]
            hot = cls == w.hot_class
        rows: list[Row] = []
        for minute, cells in w.span(start, end):
            at = float(minute * MINUTE_S)
            for p, cell in enumerate(cells):
                if spread is None:
                    counts: Sequence[int] = cell.rejected
                else:
                    share = spread.get(p, 0.0)
                    if share <= 0:
                        continue
                    lost = share * cell.unit_throttled[cls]
                    burst = share * cell.unit_throttled[w.burst_component] if hot else 0.0
                    counts = [
                        round(lost * steady + burst * storm)
                        for steady, storm in zip(
                            REQUESTS_PER_RU[STEADY], REQUESTS_PER_RU[BURST], strict=True
                        )
                    ]
                guid = physical_partition_id(self.database, self.container, w.partition_ids[p])
                for i, count in enumerate(counts):
                    if count > 0:
                        rows.append((at, OPERATIONS[i], guid, count, 1))
        rows.sort(key=lambda row: (-row[0], -row[3], row[1], row[2]))
        return rows

    def _key_throttles(self, query: LogQuery, start: int, end: int) -> list[Row]:
        table = self._table(query, start, end)
        requests, throttled = table.requests()
        asked = [round(value) for value in requests]
        refused = [round(value * (1 - UNKEYED_429_SHARE)) for value in throttled]
        texts = table.texts
        keep = [row for row, n in enumerate(asked) if n > 0]
        chosen = heapq.nsmallest(
            query.top, keep, key=lambda row: (-refused[row], -asked[row], texts[row])
        )
        return [(texts[row], asked[row], refused[row]) for row in chosen]

    def _request_totals(self, query: LogQuery, start: int, end: int) -> list[Row]:
        totals = self.sums.totals(start, end)
        unkeyed = round(totals.rejected * UNKEYED_429_SHARE)
        # The workload is the application's alone: the console's own requests go to the
        # local workspace, not to this simulated account.
        return [(totals.requests, totals.rejected, unkeyed, 0, 0.0)]

    # -- storage and tables ---------------------------------------------------------------

    def sizes(self, at: float) -> list[int]:
        """Bytes per key (the key set's order) at ``at``."""
        return self._at(at)[1]

    def largest_keys(self, at: float | None = None) -> list[int]:
        """The keys PartitionKeyStatistics would report at ``at``: the largest on each
        partition (``at`` None: with the key set's own sizes)."""
        return self._at(at)[2]

    def _at(self, at: float | None) -> tuple[int | None, list[int], list[int]]:
        minute = None if at is None or self._storage is None else math.floor(at) // MINUTE_S
        cached = self._largest
        if cached is not None and cached[0] == minute:
            return cached
        keys = self.workload.keys
        sizes = keys.sizes
        if minute is not None and self._storage is not None:
            held = self._storage(minute * MINUTE_S)
            sizes = [held.get(text, 0) for text in keys.texts]
        by_partition: dict[int, list[int]] = {}
        for i, p in enumerate(keys.partition_of):
            by_partition.setdefault(p, []).append(i)
        largest: list[int] = []
        for members in by_partition.values():
            top = heapq.nsmallest(
                STORAGE_KEYS_PER_PARTITION, members, key=lambda i: (-sizes[i], keys.texts[i])
            )
            largest.extend(i for i in top if sizes[i] > 0)
        self._largest = (minute, sizes, largest)
        return self._largest

    def _key_storage(self, query: LogQuery, start: int, end: int) -> list[Row]:
        w = self.workload
        if end <= max(start, w.first_second):  # no statistics before the history
            return []
        keys = w.keys
        _, sizes, largest = self._at(end)
        by_key: dict[str, int] = {}
        for i in largest:
            t = keys.tenant_of[i]
            if query.tenant is not None and keys.tenants[t] != query.tenant:
                continue
            text = keys.tenant_texts[t] if query.level is KeyLevel.TENANT else keys.texts[i]
            by_key[text] = by_key.get(text, 0) + sizes[i]
        rows: list[Row] = [(text, round(size / 1024)) for text, size in by_key.items()]
        rows.sort(key=lambda row: (-row[1], row[0]))
        return rows

    def _tables(self, query: LogQuery, start: int, end: int) -> list[Row]:
        totals = self.sums.totals(start, end)
        if not totals.minutes:
            return []
        per_emission = sum(min(n, STORAGE_KEYS_PER_PARTITION) for n in self.workload.keys.keys_on)
        counts = {
            "CDBDataPlaneRequests": totals.requests,
            "CDBPartitionKeyRUConsumption": totals.requests - totals.rejected,
            "CDBPartitionKeyStatistics": per_emission * len(totals.hours),  # hourly (assumed)
        }
        # Every table is ingested up to the same lag here (Azure's differ a little).
        newest = float(end - 1)  # the last second the answer covers
        rows = [(table, n, newest) for table, n in counts.items() if n > 0]
        return sorted(rows, key=lambda row: (-row[1], row[0]))


def physical_partition_id(database: str, container: str, range_id: str) -> str:
    """The simulated physical partition's GUID (the request log's ``PartitionId``): the
    same every time for one range of one container, and never equal to the range id,
    as on Azure, where the two cannot be matched to each other."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"cosmem-sim/{database}/{container}/{range_id}"))
