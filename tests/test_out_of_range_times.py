"""Times no calendar holds (epoch milliseconds stored as seconds, ``_ts`` 2**63 - 1, NaN,
a 5,000-digit number) are shown as out of range, never raised as a traceback."""

from __future__ import annotations

import json
import math

import pytest

from cosmem_tui.model import Item
from cosmem_tui.model.times import in_calendar, iso_utc, out_of_range, utc_text
from cosmem_tui.model.ttl import format_duration
from cosmem_tui.schemas import get_schema
from cosmem_tui.schemas.mapping import turn_from_item
from tests.conftest import ANCHOR
from tests.fixtures.odd_times import EPOCH_MS, LATE_TS, dotnet_message
from tests.helpers import build_workspace, run_cli

pytestmark = pytest.mark.usefixtures("frozen_system_time")

BAD_NUMBERS = [
    EPOCH_MS,
    2**63 - 1,
    -(2**63),
    10**5000,
    1e300,
    math.nan,
    math.inf,
    -math.inf,
    253_402_300_800,  # one second past 9999-12-31T23:59:59Z
]


@pytest.mark.parametrize("number", BAD_NUMBERS, ids=lambda n: out_of_range(n)[14:-1])
def test_a_time_off_the_calendar_is_written_out_of_range_and_never_raises(number):
    assert not in_calendar(number)
    assert iso_utc(number) is None
    assert utc_text(number, "%Y-%m-%d %H:%M:%S UTC").startswith("out of range (")
    assert format_duration(number - ANCHOR) != ""


def test_out_of_range_keeps_the_number_readable():
    assert out_of_range(EPOCH_MS) == "out of range (1700000000123)"
    assert out_of_range(float(EPOCH_MS)) == "out of range (1700000000123)"
    assert out_of_range(10**5000) == "out of range (a number too long to write)"
    assert len(out_of_range(10**300)) < 60  # one line, not 300 digits


def test_the_calendar_edges_are_written_in_full():
    assert iso_utc(-62_135_596_800) == "0001-01-01T00:00:00Z"
    assert iso_utc(253_402_300_799) == "9999-12-31T23:59:59Z"
    assert utc_text(-62_135_596_800, "%Y-%m-%d") == "0001-01-01"


@pytest.fixture
def odd_times(tmp_path):
    items = [
        dotnet_message(0, "in milliseconds", timestamp=EPOCH_MS),
        dotnet_message(1, "last write past the calendar", _ts=LATE_TS, ttl=3600),
        dotnet_message(2, "an ordinary turn"),
    ]
    return build_workspace(
        tmp_path / "times.sqlite",
        items,
        now=ANCHOR,
        schema=get_schema("maf-dotnet"),
        default_ttl=-1,
    )


def test_mapping_flags_the_time_with_its_raw_value():
    schema = get_schema("maf-dotnet")
    body = dotnet_message(0, "x", timestamp=EPOCH_MS)
    turn = turn_from_item(schema, Item("conv-1-0", ("conv-1",), ANCHOR, '"e"', body), -1)
    assert turn.timestamp == EPOCH_MS  # kept, not replaced by _ts
    assert any(
        "timestamp 1700000000123 is out of range as epoch-s" in p
        and "epoch milliseconds stored as seconds" in p
        for p in turn.problems
    )
    late = turn_from_item(schema, Item("conv-1-1", ("conv-1",), 2**63 - 1, '"e"', body), -1)
    assert any("_ts 9223372036854775807 is out of range" in p for p in late.problems)


def test_cosmem_turns_and_threads_print_every_format(capsys, odd_times):
    ws = str(odd_times)
    for fmt in ((), ("--json",), ("--csv",)):
        for args in (("turns", "conv-1"), ("threads",)):
            code, out, err = run_cli(capsys, *args, "--workspace", ws, *fmt)
            assert (code, err) == (0, ""), (args, fmt, err)
    code, out, _ = run_cli(capsys, "turns", "conv-1", "--workspace", ws, "--json")
    turns = {t["id"]: t for t in json.loads(out)}
    ms = turns["conv-1-0"]
    assert ms["timestamp"] is None and any("1700000000123" in p for p in ms["problems"])
    late = turns["conv-1-1"]
    assert late["expires_at"] is None and late["expires_in"] > 0
    assert any(f"_ts {LATE_TS} is out of range" in p for p in late["problems"])
    assert turns["conv-1-2"]["timestamp"] == "2026-11-29T23:50:02Z"
    code, out, _ = run_cli(capsys, "turns", "conv-1", "--workspace", ws)
    assert "out of range (1700000000123)" in out
    code, out, _ = run_cli(capsys, "threads", "--workspace", ws)
    assert f"out of range ({LATE_TS})" in out  # its last activity
