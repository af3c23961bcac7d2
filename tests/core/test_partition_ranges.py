"""The physical partitions that share the RU/s now, from the per-range metric series."""

from __future__ import annotations

from cosmem_tui.core.partition_ranges import current_ranges
from cosmem_tui.model.telemetry import MetricPoint, Series


def ranged(range_id: str, *values: float | None) -> Series:
    points = tuple(MetricPoint(60.0 * n, v) for n, v in enumerate(values))
    return Series(
        "NormalizedRUConsumption",
        "Maximum",
        "Percent",
        (("partitionkeyrangeid", range_id),),
        points,
    )


def test_a_split_parent_no_longer_counts():
    parent = ranged("0", 50.0, 60.0, None, None)
    children = [ranged("1", None, None, 30.0, 35.0), ranged("2", None, None, 10.0, 12.0)]
    assert current_ranges([parent, *children]) == {"1", "2"}


def test_the_newest_minute_is_the_newest_with_data():
    # Metrics arrive a few minutes late: the last buckets are empty for every range.
    series = [ranged("0", 5.0, 6.0, None), ranged("1", 7.0, 8.0, None)]
    assert current_ranges(series) == {"0", "1"}


def test_ranges_without_data_say_nothing():
    assert current_ranges([ranged("0", None, None)]) == frozenset()
    assert current_ranges([]) == frozenset()
