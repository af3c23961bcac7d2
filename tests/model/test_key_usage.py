"""A hot-keys report's rows by column: read, sliced, iterated and compared as the tuple of
the rows it stands for, each row made when it is read."""

from __future__ import annotations

from array import array

import pytest

from cosmem_tui.model import Key
from cosmem_tui.model.key_usage import KeyUsageTable
from cosmem_tui.model.telemetry import KeyUsage


def three(*, budget: float | None = 1000.0, known: bool = True) -> KeyUsageTable:
    keys = [Key.of("contoso"), Key.of("fabrikam"), Key.of(42)]
    return KeyUsageTable(
        keys=keys,
        ru=array("d", [6300.0, 2000.0, 1000.0]),
        peak_ru_s=array("d", [1200.0, 120.0, 80.0]),
        partition=["2", "1", "2"],
        partitions=[2, 1, 1],
        partition_ru=array("d", [5800.0, 2000.0, 1000.0]),
        partition_peak=array("d", [950.0, 120.0, 80.0]),
        throttled={keys[0]: 42},
        unthrottled=0 if known else None,
        storage_kb={keys[0]: 2_500_000},
        partition_ids=[("2", "1"), ("1",), ("2",)],
        total_ru=10_000.0,
        budget=budget,
        partial=True,
    )


ROWS = (
    KeyUsage(
        Key.of("contoso"),
        6300.0,
        1200.0,
        0.63,
        "2",
        2,
        5800.0,
        0.95,
        42,
        2_500_000,
        True,
        ("2", "1"),
    ),
    KeyUsage(Key.of("fabrikam"), 2000.0, 120.0, 0.2, "1", 1, 2000.0, 0.12, 0, None, False, ("1",)),
    KeyUsage(Key.of(42), 1000.0, 80.0, 0.1, "2", 1, 1000.0, 0.08, 0, None, False, ("2",)),
)


def test_it_is_the_tuple_of_its_rows():
    table = three()
    assert len(table) == 3 and bool(table) and not KeyUsageTable.empty()
    assert tuple(table) == ROWS and list(table) == list(ROWS)
    assert table[0] == ROWS[0] and table[-1] == ROWS[2] and table[1:] == ROWS[1:]
    assert table[:1] == ROWS[:1] and table[5:] == ()
    assert table == ROWS and table == three() and table != ROWS[:2]
    assert ROWS.__eq__(table) is NotImplemented and table.__eq__(ROWS)  # either way round
    assert hash(table) == hash(ROWS)
    assert table.index(ROWS[1]) == 1 and ROWS[2] in table
    with pytest.raises(IndexError):
        table[3]
    with pytest.raises(IndexError):
        table[-4]


def test_what_a_row_derives_is_computed_when_read():
    unknown = three(budget=None, known=False)
    assert [u.partition_share for u in unknown] == [None, None, None]  # no budget, no BUDGET
    assert [u.throttled for u in unknown] == [42, None, None]  # 429s not known: not 0
    assert [u.storage_lower_bound for u in three()] == [True, False, False]


def test_columns_have_one_entry_a_key():
    table = three()
    with pytest.raises(ValueError, match="one entry a key"):
        KeyUsageTable(
            keys=table.keys[:2],
            ru=table.ru,
            peak_ru_s=table.peak_ru_s,
            partition=table.partition,
            partitions=table.partitions,
            partition_ru=table.partition_ru,
            partition_peak=table.partition_peak,
            throttled={},
            unthrottled=0,
            storage_kb={},
            partition_ids=table.partition_ids,
            total_ru=1.0,
            budget=None,
            partial=False,
        )


def test_as_the_rows_of_the_answer_it_was_joined_from():
    columns = ("PartitionIds", "Key", "RU", "Keys", "Partition")  # any order, by name
    rows = three().log_rows(columns, 7)
    assert len(rows) == 3
    assert list(rows) == [
        (("2", "1"), Key.of("contoso"), 6300.0, 7, "2"),
        (("1",), Key.of("fabrikam"), 2000.0, 7, "1"),
        (("2",), Key.of(42), 1000.0, 7, "2"),
    ]
    first, second, third = list(rows)
    assert rows[1] == second and rows[-1] == third and rows[:1] == (first,)


def test_two_tables_are_equal_when_their_rows_are():
    from dataclasses import dataclass

    assert three() == three() and three() != three(budget=None)
    doubled = three(budget=2000.0)  # each key's busiest second twice as high: same BUDGET
    doubled.partition_peak = array("d", [2 * p for p in doubled.partition_peak])
    assert doubled == three() and tuple(doubled) == ROWS
    other = three()
    other.keys = [Key.of("contoso"), Key.of("fabrikam"), Key.of("42")]  # "42" is not 42
    assert other != three()

    @dataclass(frozen=True)
    class Shown:
        rows: KeyUsageTable

    assert Shown(three()) == Shown(three())  # a report compared with the one on screen
