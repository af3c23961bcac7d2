"""Block charts, the hot-keys rows and the telemetry commands, without a terminal."""

from __future__ import annotations

import pytest

from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.model.telemetry import KeyLevel, KeyUsage, ProblemKind, TelemetryProblem, Window
from cosmem_tui.schemas import get_schema
from cosmem_tui.ui.actions import Registry
from cosmem_tui.ui.commands import Mistake, SwitchView
from cosmem_tui.ui.help import help_text
from cosmem_tui.ui.registry import the_registry
from cosmem_tui.ui.telemetry.commands import SetWindow
from cosmem_tui.ui.telemetry.reports import claimed, next_window
from cosmem_tui.ui.views.hot.rows import (
    SORTS,
    HotRows,
    browse_target,
    budget_cell,
    partition_text,
    storage_text,
)
from cosmem_tui.ui.widgets.charts import (
    CAPACITY,
    GAP,
    bar_chart,
    resample,
    short_number,
    spark,
    time_axis,
    wrap,
)


def text(line) -> str:  # type: ignore[no-untyped-def]
    return "".join(t for t, _ in line)


# -- charts ---------------------------------------------------------------------------------


def test_a_one_minute_spike_survives_a_24_hour_chart():
    minutes = [10.0] * 1440
    minutes[700] = 900.0
    columns = resample(minutes, 100)
    assert len(columns) == 100 and max(c for c in columns if c is not None) == 900.0


def test_few_buckets_are_stretched_over_the_width():
    assert resample([1.0, 2.0, 3.0], 6) == [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    assert resample([], 10) == [] and resample([1.0], 0) == []


def test_an_empty_minute_is_a_gap_never_a_zero():
    line = spark([None, 0.0, 4.0, 8.0], 4)
    assert text(line) == f"{GAP} ▄█"
    assert resample([None, None, 5.0, None], 2) == [None, 5.0]


def test_bars_cross_the_capacity_line_and_are_coloured_by_it():
    values = [50.0, 50.0, 150.0, None]
    rows = bar_chart(
        values,
        4,
        4,
        ceiling=200.0,
        line=[100.0] * 4,
        tone_of=lambda v, c: "bad" if c is not None and v >= c else "accent",
    )
    drawn = [text(r) for r in rows]
    assert drawn[0] == "    "  # 150-200: nothing reaches it
    assert drawn[1] == f"{CAPACITY}{CAPACITY}█ "  # 100-150: the line where no bar covers it
    assert drawn[3] == f"███{GAP}"  # the bottom row: the empty minute is a gap
    assert rows[1][1] == ("█", "bad") and rows[3][0] == ("██", "accent")  # over the line: red


def test_numbers_fit_a_label():
    assert [short_number(v) for v in (0, 9.5, 950, 1234, 12_345, 3_400_000)] == [
        "0",
        "9.5",
        "950",
        "1.2k",
        "12k",
        "3.4M",
    ]


def test_the_time_axis_says_where_the_window_starts_and_ends():
    line = text(time_axis(1_795_996_800 - 900, 1_795_996_800, 40, back="15m"))
    assert line.startswith("23:45 (−15m)") and line.endswith("00:00 UTC") and len(line) == 40


def test_wrap_keeps_words_and_cuts_what_cannot_fit():
    assert wrap("assign the Monitoring Reader role", 12) == [
        "assign the",
        "Monitoring",
        "Reader role",
    ]
    assert wrap("x" * 10, 4) == ["xxxx", "xxxx", "xx"]


# -- problems go to their tile ---------------------------------------------------------------


def test_a_problem_is_claimed_by_the_tile_its_question_feeds():
    latency = TelemetryProblem(ProblemKind.FORBIDDEN, "403", about="metrics: latency")
    logs = TelemetryProblem(ProblemKind.NO_WORKSPACE, "no workspace", about="logs: key_usage")
    anywhere = TelemetryProblem(ProblemKind.UNREACHABLE, "timeout")
    problems = (latency, logs, anywhere)
    assert claimed(problems, "metrics", ("latency",)) == (latency,)
    assert claimed(problems, "metrics", ("ru",)) == ()
    assert claimed(problems, "logs", ("key_usage",)) == (logs,)


def test_windows_cycle():
    assert [next_window(w) for w in Window] == [Window.H1, Window.H24, Window.M15]


# -- hot keys rows --------------------------------------------------------------------------


def usage(name: str, ru: float, **extra) -> KeyUsage:  # type: ignore[no-untyped-def]
    fields = dict(
        key=Key.of(name),
        ru=ru,
        peak_ru_s=ru / 10,
        share=ru / 1000,
        partition="0",
        partitions=1,
        partition_ru=ru,
        partition_share=None,
        throttled=None,
        storage_kb=None,
    )
    fields.update(extra)
    return KeyUsage(**fields)  # type: ignore[arg-type]


def test_unknowns_are_dashes_or_blanks_never_zero_and_sort_last():
    rows = (
        usage("a", 500.0, throttled=None, partition_share=None),
        usage("b", 300.0, throttled=7, partition_share=1.2, storage_kb=2048),
        usage("c", 100.0, throttled=0, partition_share=0.1),
    )
    by_429 = HotRows(rows, None, next(s for s in SORTS if s.title == "429 LOGGED"))
    assert [by_429.usage(i).key.text for i in range(3)] == ["b", "c", "a"]
    cells = HotRows(rows, None, SORTS[0]).row(0)
    assert cells[4] == ("—", "dim") and cells[5] == ("—", "dim") and cells[6][0] == ""
    assert HotRows(rows, None, SORTS[0]).row(1)[4] == ("120%", "bad")
    # Served RU stops at the partition's budget (a 429 is not served): 99 % is a full
    # partition, in red, as the 429s beside it say; 85 % is close to it.
    assert budget_cell(0.99) == ("99%", "bad") and budget_cell(0.85) == ("85%", "warn")
    assert budget_cell(0.5) == ("50%", "")
    assert storage_text(2048) == "2.0 MB" and storage_text(None) == ""
    assert storage_text(1536, lower_bound=True) == "≥1.5 MB"  # a tenant's logged keys only
    bounded = HotRows(
        (usage("d", 50.0, storage_kb=1536, storage_lower_bound=True),), None, SORTS[0]
    )
    assert bounded.row(0)[6][0] == "≥1.5 MB"
    unknown_shares = HotRows(rows, None, SORTS[0], shares=False).row(0)
    assert unknown_shares[3] == ("—", "dim")  # no container total: no share


def test_the_partition_column_names_every_partition_a_key_touched():
    both = usage("a", 10.0, partition="1", partitions=2, partition_ids=("1", "2"))
    assert HotRows((both,), None, SORTS[0]).row(0)[7][0] == "1,2"  # not "1 +1"
    many = usage("b", 1.0, partition="12", partitions=40, partition_ids=("12", "3", "45", "7"))
    assert partition_text(many) == "12,3+38"  # what fits in the column, the rest counted
    assert partition_text(usage("c", 1.0)) == "0"


def test_rows_are_found_by_key_and_filtered_by_their_shown_name():
    rows = tuple(usage(f"t{n}", 100.0 - n) for n in range(5))
    hot = HotRows(rows, None, SORTS[-1])  # by name
    assert hot.index_of(Key.of("t3")) == 3 and hot.search_text(3) == "t3"
    under = HotRows((usage("x", 1.0, key=Key.of("acme", "thr-1")),), Key.of("acme"), SORTS[0])
    assert under.row(0)[0][0] == "thr-1"  # the tenant is in the title, not in every row


def test_a_hot_key_maps_to_what_browse_opens():
    lab = get_schema("lab")  # [/tenantId, /threadId]
    assert browse_target(lab, KeyLevel.TENANT, Key.of("acme")) == Key.of("acme")
    assert browse_target(lab, KeyLevel.KEY, Key.of("acme", "t-1")) == ThreadRef(
        Key.of("acme"), Key.of("t-1")
    )
    assert browse_target(lab, KeyLevel.TENANT, Key.of(42)) == Key.of(42)  # 42 stays a number
    assert browse_target(lab, KeyLevel.KEY, Key.of("acme", "t", "x")) is None


# -- commands and the registry ---------------------------------------------------------------


@pytest.fixture
def registry() -> Registry:
    return the_registry()


def test_the_telemetry_views_and_their_window_command(registry):
    assert registry.parse("throttle", None) == SwitchView("throttle")
    assert registry.parse("hot", None) == SwitchView("hot")
    assert registry.parse("window", "hot") == SetWindow(None)
    assert registry.parse("window 24h", "throttle") == SetWindow(Window.H24)
    mistake = registry.parse("window 2d", "throttle")
    assert isinstance(mistake, Mistake) and "15m, 1h, 24h" in mistake.message
    assert isinstance(registry.parse("window 1h", "browse"), Mistake)
    keys = {a.id: registry.keys(a.id) for a in registry.actions}
    assert keys["view.throttle"] == "T" and keys["view.hot"] == "H"
    assert "w window" in registry.hints("hot") and "w window" in registry.hints("throttle")
    assert "p pause" in registry.hints("throttle") and "/ filter" in registry.hints("hot")


def test_the_number_beside_the_capacity_line_is_what_is_provisioned():
    from cosmem_tui.model.telemetry import MetricPoint, Span
    from cosmem_tui.ui.views.throughput.tiles import RuChart, RuData

    start = 1_795_996_800.0
    points = tuple(MetricPoint(start + 60 * n, 900.0 + 100 * n) for n in range(15))
    data = RuData(points, (), 4000.0, False, Span(start, start + 900), Window.M15, ())
    for height in (4, 6, 12):
        lines = [text(line) for line in RuChart().draw(data, 60, height)]
        with_line = [line for line in lines if "╌" in line]
        assert with_line and all(line.lstrip().startswith("4.0k ") for line in with_line)
        assert lines[-1].strip().startswith("00:00 (−15m)")  # the time axis, last


def test_the_help_says_what_each_hot_column_measures(registry):
    text = help_text(registry, "hot").plain
    assert "BUDGET: the RU it was served in its busiest second on its partition" in text
    assert "tops out at about 100 %" in text and "bursts shorter than a second" in text
    assert "a tenant's is a lower bound (≥)" in text
    assert "BUDGET" not in help_text(registry, "browse").plain


def test_latency_is_shown_for_each_connection_mode():
    from cosmem_tui.model.telemetry import MetricPoint
    from cosmem_tui.ui.views.throughput.tiles import LatencyData, LatencyTile

    start = 1_795_996_800.0
    gateway = tuple(MetricPoint(start + 60 * n, 5.0 + n) for n in range(15))
    direct = tuple(MetricPoint(start + 60 * n, 1.0 if n == 14 else None) for n in range(15))
    both = LatencyData(gateway, direct, Window.M15, ())
    lines = [text(line) for line in LatencyTile().draw(both, 70, 2)]
    assert lines[0].startswith("gateway ") and lines[0].endswith(
        "now 19.0 · avg 12.0 · peak 19.0 ms"
    )
    assert lines[1].startswith("direct ") and lines[1].endswith("now 1.0 · avg 1.0 · peak 1.0 ms")
    # Python and JS clients only: the direct line says why it is empty
    gateway_only = LatencyData(gateway, (), Window.M15, ())
    lines = [text(line) for line in LatencyTile().draw(gateway_only, 70, 2)]
    assert lines[1] == "direct  no requests (direct mode: .NET and Java SDKs only)"
    # one line: the mode with data, gateway first
    (line,) = [text(line) for line in LatencyTile().draw(both, 70, 1)]
    assert line.startswith("gateway ")
