"""The workload model: deterministic, conserving, throttling only above the budget."""

from __future__ import annotations

import math
import random

import pytest

from cosmem_tui.model import Key
from cosmem_tui.sources.simulated import Workload, WorkloadKey, WorkloadShape, synthetic_keys
from cosmem_tui.sources.simulated.cells import Cell
from cosmem_tui.sources.simulated.operations import latency_factor
from cosmem_tui.sources.simulated.placement import place
from cosmem_tui.sources.simulated.usage import ClassSums, KeyTable, SpanSums, SpanTotals
from tests.sources.simulated.conftest import BURST, START, main_partition

MINUTE = START // 60
FIELDS = ("seconds", "served", "throttled", "peak", "load", "throttled_seconds", "latency")
UNITS = ("unit_served", "unit_throttled", "unit_peak")


def snapshot(cells: tuple[Cell, ...] | None) -> tuple[object, ...]:
    assert cells is not None
    return tuple(
        (*(getattr(c, f) for f in FIELDS), *(getattr(c, u) for u in UNITS), c.ok, c.rejected, c.ru)
        for c in cells
    )


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def test_the_same_inputs_give_the_same_numbers_asked_in_any_order(demo_keys: list[WorkloadKey]):
    minutes = [MINUTE + k for k in (-1440, -700, -61, -1, 0, 1, 3, 20, 21, 95)]
    first = Workload(demo_keys, hot_tenant="contoso", anchor=START)
    again = Workload(list(reversed(demo_keys)), hot_tenant="contoso", anchor=START)
    forward = [snapshot(first.cells(m)) for m in minutes]
    backward = [snapshot(again.cells(m)) for m in reversed(minutes)]
    assert forward == list(reversed(backward))
    assert forward == [snapshot(first.cells(m)) for m in minutes]  # from the cache: the same


def test_another_seed_or_anchor_gives_other_numbers(demo_keys: list[WorkloadKey]):
    base = Workload(demo_keys, hot_tenant="contoso", anchor=START)
    seeded = Workload(demo_keys, hot_tenant="contoso", anchor=START, seed=1)
    later = Workload(demo_keys, hot_tenant="contoso", anchor=START + 3600)
    assert snapshot(base.cells(MINUTE - 5)) != snapshot(seeded.cells(MINUTE - 5))
    # The burst follows the anchor: anchored an hour later, minute +2 is quiet.
    assert sum(c.throttled for c in base.cells(MINUTE + 2)) > 0  # type: ignore[union-attr]
    assert sum(c.throttled for c in later.cells(MINUTE + 2)) == 0  # type: ignore[union-attr]


@pytest.mark.parametrize("offset", [-1440, -600, -30, -1, 0, 1, 2, 3, 4, 5, 19, 20, 21, 24])
def test_the_bisection_agrees_with_the_second_by_second_walk(demo_workload: Workload, offset):
    whole = demo_workload.cells(MINUTE + offset)
    walked = demo_workload.walked_cells(MINUTE + offset)
    assert whole is not None
    for a, b in zip(whole, walked, strict=True):
        for name in FIELDS:
            assert close(getattr(a, name), getattr(b, name)), (offset, name)
        for name in UNITS:
            for x, y in zip(getattr(a, name), getattr(b, name), strict=True):
                assert close(x, y), (offset, name)
        assert a.ok == b.ok and a.rejected == b.rejected


def test_minutes_are_their_seconds_added_up(demo_workload: Workload):
    for minute in (MINUTE - 3, MINUTE, MINUTE + 2):
        whole = demo_workload.cells(minute)
        parts = [demo_workload.partial_cells(minute, lo, hi) for lo, hi in ((0, 13), (13, 60))]
        assert whole is not None and all(parts)
        for p, cell in enumerate(whole):
            assert close(cell.served, sum(part[p].served for part in parts))  # type: ignore[index]
            assert close(cell.throttled, sum(part[p].throttled for part in parts))  # type: ignore[index]
            seconds = [demo_workload.second(p, minute * 60 + s) for s in range(60)]
            assert close(cell.served, sum(s.served for s in seconds))
            assert close(cell.peak, max(s.served for s in seconds))


def test_429s_only_in_seconds_whose_demand_passed_the_budget(demo_workload: Workload):
    throttled_seconds = 0
    for at in range(BURST - 60, BURST + 240):
        for p in range(demo_workload.partitions):
            second = demo_workload.second(p, at)
            assert second.served <= second.budget + 1e-9
            if second.demand > second.budget:
                assert close(second.throttled, second.demand - second.budget)
                throttled_seconds += 1
            else:
                assert second.throttled == 0
    assert throttled_seconds > 100  # the burst did throttle
    for offset in range(-30, 30):
        for cell in demo_workload.cells(MINUTE + offset) or ():
            if sum(cell.rejected):
                assert cell.throttled_seconds > 0 and cell.throttled > 0
            if cell.throttled_seconds == 0:
                assert cell.throttled == 0 and sum(cell.rejected) == 0


def test_the_hot_tenant_bursts_from_45_s_after_the_anchor(demo_workload: Workload):
    assert demo_workload.burst_ru_s(BURST - 1) == 0
    assert 0 < demo_workload.burst_ru_s(BURST) < demo_workload.burst_ru_s(BURST + 30)
    assert demo_workload.burst_ru_s(BURST + 60) == 2 * demo_workload.budget_ru_s  # its plateau
    assert demo_workload.burst_ru_s(BURST + 600) == 0  # over after a few minutes …
    assert demo_workload.burst_ru_s(BURST + 900 + 60) > 0  # … and back fifteen minutes on
    earlier = [at for at in range(START - 86_400, START, 60) if demo_workload.burst_ru_s(at)]
    assert earlier and max(earlier) < START - 3600  # the day before has bursts, not the hour


def test_every_15_minute_window_after_the_anchor_holds_a_burst(demo_workload: Workload):
    """Whenever the console or ``cosmem hot`` looks — a minute, a day, a month after the
    demo was built — its default window holds the hot tenant's burst."""
    for day in (0, 1, 9, 30):
        for offset in range(0, 86_400, 613):  # no multiple of the cadence: every phase
            end = START + day * 86_400 + offset + 900
            seconds = range(end - 900, end, 15)
            assert any(demo_workload.burst_ru_s(at) > 0 for at in seconds), (day, offset)


def test_the_hot_tenants_partition_throttles_once_its_burst_starts(
    demo_workload: Workload, hot: Key
):
    before = SpanSums(demo_workload).totals(START - 900, BURST)
    quiet = demo_workload.span(START - 900, BURST)
    assert all(c.throttled == 0 for _, cells in quiet for c in cells)
    assert before.rejected == 0

    home = main_partition(demo_workload, hot)
    touched = set(demo_workload.tenant_partitions(hot))
    refused = [0.0] * demo_workload.partitions
    peak_load = [0.0] * demo_workload.partitions
    for _, cells in demo_workload.span(BURST, BURST + 180):
        for p, cell in enumerate(cells):
            refused[p] += cell.throttled
            peak_load[p] = max(peak_load[p], cell.load)
    assert refused[home] > 0
    assert max(range(len(refused)), key=refused.__getitem__) == home
    assert all(refused[p] == 0 for p in range(demo_workload.partitions) if p not in touched)
    assert peak_load[home] >= 1.0  # NormalizedRUConsumption 100 %


def test_latency_rises_with_utilisation(demo_workload: Workload):
    cells = [c for offset in range(-20, 10) for c in demo_workload.cells(MINUTE + offset) or ()]
    ordered = sorted(cells, key=lambda c: c.utilisation)
    assert [c.latency for c in ordered] == sorted(c.latency for c in ordered)
    assert ordered[-1].latency > 2 * ordered[0].latency  # a saturated partition is much slower
    assert latency_factor(0.2) < latency_factor(0.6) < latency_factor(0.9) < latency_factor(1.0)


def test_keys_share_their_partition_exactly(demo_workload: Workload):
    w = demo_workload
    for minute in (MINUTE - 100, MINUTE + 2):
        cells = w.cells(minute)
        assert cells is not None
        served = [0.0] * w.partitions
        peaks = [0.0] * w.partitions
        for i, share in enumerate(w.key_shares):
            p, cls = w.key_partitions[i], w.key_classes[i]
            units = cells[p].unit_served
            served[p] += share * (units[cls] + (units[-1] if cls == w.hot_class else 0.0))
            peaks[p] = max(peaks[p], share * cells[p].unit_peak[cls])
        for p, cell in enumerate(cells):
            assert math.isclose(served[p], cell.served, rel_tol=1e-9)
            assert peaks[p] <= cell.peak * (1 + 1e-9)  # no key peaks above its partition


def test_a_big_tenant_spans_two_partitions_and_a_single_level_key_never(
    demo_workload: Workload, demo_keys: list[WorkloadKey]
):
    spans = {t: len(demo_workload.tenant_partitions(t)) for t in demo_workload.tenant_keys}
    assert 2 in spans.values()
    assert max(spans.values()) <= demo_workload.partitions
    # The same keys named by tenant alone: every tenant is one logical partition.
    tenants: dict[object, float] = {}
    for key in demo_keys:
        tenants[key.values[0]] = tenants.get(key.values[0], 0.0) + key.weight
    single = [WorkloadKey((t,), w) for t, w in tenants.items()]
    workload = Workload(single, hot_tenant="contoso", anchor=START)
    assert all(len(workload.tenant_partitions(t)) == 1 for t in workload.tenant_keys)


def test_placement_follows_the_key_not_the_order_it_was_given_in(demo_keys: list[WorkloadKey]):
    values = [k.values for k in demo_keys]
    weights = [k.weight for k in demo_keys]
    placed = dict(zip(values, place(values, weights, 4), strict=True))
    order = list(range(len(values)))
    random.Random(3).shuffle(order)
    shuffled = place([values[i] for i in order], [weights[i] for i in order], 4)
    assert all(placed[values[i]] == p for i, p in zip(order, shuffled, strict=True))
    # Storage is balanced: each partition holds about a quarter of the items.
    totals = [0.0] * 4
    for v, w in zip(values, weights, strict=True):
        totals[placed[v]] += w
    assert max(totals) / sum(totals) < 0.3


def test_the_budget_is_the_throughput_split_over_the_partitions(demo_keys: list[WorkloadKey]):
    manual = Workload(demo_keys, hot_tenant=None, anchor=START)
    assert manual.budget_ru_s == 1000.0 and manual.partition_ids == ("0", "1", "2", "3")
    assert manual.hot_tenant == Key.of("contoso")  # none named: the largest tenant bursts
    shape = WorkloadShape(autoscale_max_ru_s=10_000, partitions=5)
    scaled = Workload(demo_keys, hot_tenant="contoso", anchor=START, shape=shape)
    assert scaled.budget_ru_s == 2000.0
    cells = scaled.cells(MINUTE - 10)
    assert cells is not None and 1000 <= scaled.provisioned_ru_s(cells) <= 10_000
    assert scaled.cells(MINUTE - 32 * 1440) is None  # before the simulated history


def test_a_synthetic_key_set_of_any_size_conserves_usage():
    keys = synthetic_keys(20_000)
    assert len({k.values for k in keys}) == len(keys)
    workload = Workload(keys, hot_tenant="tenant-000001", anchor=START)
    spans = SpanSums(workload)
    for start, end in ((START, START + 900), (START - 86_400 + 17, START + 900)):
        totals = spans.totals(start, end)
        table = KeyTable(workload, ClassSums(workload, totals), by_tenant=True, tenant=None)
        assert len(table.ru) == 20_000
        assert math.isclose(sum(table.ru), sum(totals.partition_served), rel_tol=1e-9)
        assert min(range(20_000), key=lambda t: -table.ru[t]) == 0  # tenant-000001 leads
        by_key = KeyTable(workload, ClassSums(workload, totals), by_tenant=False, tenant=None)
        assert math.isclose(sum(by_key.ru), sum(table.ru), rel_tol=1e-9)


def test_whole_hours_kept_add_up_like_their_minutes(demo_workload: Workload):
    start, end = START - 3 * 3600 - 17, START + 600 + 5  # ragged ends around whole hours
    kept = SpanSums(demo_workload)
    kept.totals(START - 2 * 3600, START)  # leaves whole hours behind
    w = demo_workload
    fresh = SpanTotals(w.partitions, w.profiles + 2, w.profiles + 1)
    for minute, cells in demo_workload.span(start, end):
        fresh.add(minute, cells)
    summed = kept.totals(start, end)
    assert summed.minutes == fresh.minutes and summed.requests == fresh.requests
    for p in range(demo_workload.partitions):
        assert math.isclose(summed.partition_served[p], fresh.partition_served[p], rel_tol=1e-12)
        assert summed.partition_peak[p] == fresh.partition_peak[p]
        for a, b in zip(summed.served[p], fresh.served[p], strict=True):
            assert math.isclose(a, b, rel_tol=1e-12)
