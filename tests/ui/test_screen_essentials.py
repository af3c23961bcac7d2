"""What every view must keep at 80×24, read from the rendered screen: the header's schema
and cost, the turn list's time column; and the schema's reason on demand."""

from __future__ import annotations

import re

import pytest

from tests.ui.conftest import screen_text, settle

AFTER_BURST_S = 240
VIEWS = {
    "tenants": [],
    "turns": ["enter", "enter"],
    "detail": ["enter", "enter", "enter"],
    "requests": ["R"],
    "advise": ["A"],
    "ttl": ["enter", "L"],
    "throttle": ["T"],
    "hot": ["H"],
    "recall": ["enter", "enter", "m"],
}


@pytest.mark.parametrize("view", VIEWS)
async def test_the_header_keeps_the_schema_and_the_cost_at_80x24(make_app, demo_path, view):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in VIEWS[view]:
            await pilot.press(key)
            await settle(pilot)
        header = screen_text(app).splitlines()[0]
        assert "schema lab" in header, header
        assert header.rstrip().endswith(" RU sim"), header  # what the session has cost


@pytest.mark.parametrize("level", ["turns", "detail"])
async def test_the_turn_list_keeps_its_time_column_at_80x24(make_app, demo_path, level):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in VIEWS[level]:
            await pilot.press(key)
            await settle(pilot)
        lines = screen_text(app).splitlines()
        assert any("TIME (UTC)" in line for line in lines), "\n".join(lines)
        times = [line for line in lines if re.search(r"│ +\d+ \d\d-\d\d \d\d:\d\d ", line)]
        assert len(times) >= 5, "\n".join(lines)  # and the times themselves


async def test_the_schema_command_says_why_the_schema_was_chosen(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "recorded in the workspace" not in screen_text(app).splitlines()[0]  # no room at 80
        await pilot.press("colon", *"schema", "enter")
        await settle(pilot)
        shown = [n.message for n in app._notifications]
        assert shown == ["schema lab: recorded in the workspace"]


async def test_the_header_gives_the_reason_when_wide(make_app, demo_path):
    app = make_app(demo_path, schema="lab")
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert "schema lab (named with --schema)" in screen_text(app).splitlines()[0]


async def test_nothing_is_cut_in_the_header_at_120(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        header = screen_text(app).splitlines()[0]
        assert "…" not in header and "schema lab" in header and "req" in header, header


async def test_at_200x60_the_detail_sits_beside_the_threads_and_the_turns(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        for key in VIEWS["detail"]:
            await pilot.press(key)
            await settle(pilot)
        shown = {w.id: w.size.width for w in app.screen.query_one("#columns").children if w.display}
        assert set(shown) == {"threads", "turns", "detail"}
        assert shown["detail"] >= 80  # the rest goes to the item itself
        lines = screen_text(app).splitlines()
        assert any("TIME (UTC)" in line and "TEXT" in line for line in lines)  # roles: in TEXT
        assert any("thr-" in line and "…" not in line.split("│")[1] for line in lines[4:10])
