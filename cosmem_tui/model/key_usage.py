"""The rows of a hot-keys report, held by column: a row is made when it is read.

A report can hold 100,000 keys, and a screen shows forty of them. As 100,000
``KeyUsage`` tuples it held 36 MB (a tuple of twelve, two new floats and the key, each
row) beside the logs' own answer while it was joined; by column it holds each key, a
few arrays of numbers and references to the partition ids, which every key of a
partition shares: some 24 MB. What a row derives (its share of the container, of its
partition's budget, whether its storage is a lower bound) is computed when it is
read, the same float from the same operands as the join computed it.

``KeyUsageTable`` is a ``Sequence[KeyUsage]``: it is indexed, sliced, iterated and
compared as the tuple of rows it stands for. Its columns are there for the callers
that read one field of every row (the keys a list looks up, the partition a headline
names) without making 100,000 tuples.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from cosmem_tui.model.keys import Key
from cosmem_tui.model.telemetry import KeyUsage


class KeyUsageTable(Sequence[KeyUsage]):
    """Rows by RU, most first. Columns (one entry a row): ``keys``, ``ru``,
    ``peak_ru_s``, ``partition`` (the busiest one's id), ``partitions`` (how many it
    touched), ``partition_ru``, ``partition_peak`` (its busiest second on that
    partition, in RU/s), ``partition_ids``; by key, for the few keys the logs name:
    ``throttled`` (429s; any other key has ``unthrottled``: 0, or None when the 429s
    are not known) and ``storage_kb``; and for all rows: the container's RU
    (``total_ru``), a partition's budget (``budget``, None: not known) and whether a
    logged storage is a lower bound (``partial``)."""

    __slots__ = (
        "budget",
        "keys",
        "partial",
        "partition",
        "partition_ids",
        "partition_peak",
        "partition_ru",
        "partitions",
        "peak_ru_s",
        "ru",
        "storage_kb",
        "throttled",
        "total_ru",
        "unthrottled",
    )

    def __init__(
        self,
        *,
        keys: list[Key],
        ru: array[float],
        peak_ru_s: array[float],
        partition: list[str],
        partitions: list[int],  # a list: counts are small ints, shared (and never too big)
        partition_ru: array[float],
        partition_peak: array[float],
        throttled: Mapping[Key, int],
        unthrottled: int | None,
        storage_kb: Mapping[Key, int],
        partition_ids: list[tuple[str, ...]],
        total_ru: float,
        budget: float | None,
        partial: bool,
    ) -> None:
        count = len(keys)
        columns = (ru, peak_ru_s, partition, partitions, partition_ru, partition_peak)
        if any(len(c) != count for c in (*columns, partition_ids)):
            raise ValueError("every column of a key usage table has one entry a key")
        self.keys = keys
        self.ru = ru
        self.peak_ru_s = peak_ru_s
        self.partition = partition
        self.partitions = partitions
        self.partition_ru = partition_ru
        self.partition_peak = partition_peak
        self.throttled = throttled
        self.unthrottled = unthrottled
        self.storage_kb = storage_kb
        self.partition_ids = partition_ids
        self.total_ru = total_ru
        self.budget = budget
        self.partial = partial

    @classmethod
    def empty(cls) -> KeyUsageTable:
        return cls(
            keys=[],
            ru=array("d"),
            peak_ru_s=array("d"),
            partition=[],
            partitions=[],
            partition_ru=array("d"),
            partition_peak=array("d"),
            throttled={},
            unthrottled=None,
            storage_kb={},
            partition_ids=[],
            total_ru=0.0,
            budget=None,
            partial=False,
        )

    def __len__(self) -> int:
        return len(self.keys)

    @overload
    def __getitem__(self, index: int) -> KeyUsage: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[KeyUsage, ...]: ...

    def __getitem__(self, index: int | slice) -> KeyUsage | tuple[KeyUsage, ...]:
        if isinstance(index, slice):
            return tuple(self.row(i) for i in range(*index.indices(len(self))))
        count = len(self.keys)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("key usage index out of range")
        return self.row(index)

    def row(self, i: int) -> KeyUsage:
        key, ru, budget, total = self.keys[i], self.ru[i], self.budget, self.total_ru
        size = self.storage_kb.get(key)
        return KeyUsage(
            key,
            ru,
            self.peak_ru_s[i],
            ru / total if total else 0.0,
            self.partition[i],
            self.partitions[i],
            self.partition_ru[i],
            self.partition_peak[i] / budget if budget else None,
            self.throttled.get(key, self.unthrottled),
            size,
            self.partial and size is not None,
            self.partition_ids[i],
        )

    def __iter__(self) -> Iterator[KeyUsage]:
        return (self.row(i) for i in range(len(self.keys)))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, KeyUsageTable):  # a refresh's report against the one shown
            if len(self) != len(other) or self._fields() != other._fields():
                return False  # a field of some row differs
            if self._derived_from() == other._derived_from():
                return True  # and what the rows derive is derived from the same
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def _fields(self) -> tuple[object, ...]:
        """The columns that are fields of the rows as they are."""
        return (
            self.keys,
            self.ru,
            self.peak_ru_s,
            self.partition,
            self.partitions,
            self.partition_ru,
            self.partition_ids,
        )

    def _derived_from(self) -> tuple[object, ...]:
        return (
            self.partition_peak,
            self.throttled,
            self.unthrottled,
            self.storage_kb,
            self.total_ru,
            self.budget,
            self.partial,
        )

    def __hash__(self) -> int:
        return hash(tuple(self))  # as the tuple of its rows (equal to it)

    def __repr__(self) -> str:
        return f"KeyUsageTable({len(self):,} keys)"

    def log_rows(self, columns: Sequence[str], keys_total: int | None) -> LogRows:
        """This table as the rows of the key-usage answer it was joined from (in the
        answer's ``columns``; ``Key`` as the parsed key): what a later join of the same
        answer needs, sharing these columns rather than keeping the answer's own."""
        return LogRows(self, tuple(columns), keys_total)


class LogRows(Sequence[tuple[Any, ...]]):
    """A key-usage answer's rows made from a ``KeyUsageTable`` (``log_rows``)."""

    __slots__ = ("_cells", "_count")

    def __init__(self, table: KeyUsageTable, columns: tuple[str, ...], keys_total: int | None):
        by_name: dict[str, Sequence[Any]] = {
            "Key": table.keys,
            "Partition": table.partition,
            "Partitions": table.partitions,
            "RU": table.ru,
            "PeakRUps": table.peak_ru_s,
            "PartitionRU": table.partition_ru,
            "PartitionPeakRUps": table.partition_peak,
            "Keys": _Repeated(keys_total, len(table)),
            "PartitionIds": table.partition_ids,  # tuples, the main one first
        }
        self._cells = tuple(by_name[name] for name in columns)
        self._count = len(table)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> tuple[Any, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[tuple[Any, ...], ...]: ...

    def __getitem__(self, index: int | slice) -> tuple[Any, ...] | tuple[tuple[Any, ...], ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._count)))
        return tuple(column[index] for column in self._cells)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return zip(*self._cells, strict=True)


class _Repeated(Sequence[Any]):
    """One value ``count`` times (every usage row carries the keys' total)."""

    __slots__ = ("_count", "_value")

    def __init__(self, value: Any, count: int) -> None:
        self._value, self._count = value, count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._value] * len(range(*index.indices(self._count)))
        if not -self._count <= index < self._count:
            raise IndexError("index out of range")
        return self._value
