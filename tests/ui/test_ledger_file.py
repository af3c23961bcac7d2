"""``cosmem --ledger FILE``: the console appends every request as the user browses."""

from __future__ import annotations

import json
from pathlib import Path

from cosmem_tui.core.ledger_file import FIELDS
from tests.ui.conftest import settle


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


async def test_browsing_writes_one_line_per_request(make_app, demo_path, tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    app = make_app(demo_path, ledger=ledger)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        request_ledger = app.session.ledger
        first_screen = lines(ledger)
        assert first_screen and len(first_screen) == len(request_ledger.records())
        await pilot.press("slash", *"contoso", "enter", "enter")  # a tenant's threads
        await settle(pilot)
        await pilot.press("enter")  # a thread's turns
        await settle(pilot)
        browsed = lines(ledger)
        assert len(browsed) == len(request_ledger.records()) > len(first_screen)
        assert all(tuple(line) == FIELDS for line in browsed)
        assert [line["call"] for line in browsed] == [r.call for r in request_ledger.records()]
        assert {line["scope"] for line in browsed[len(first_screen) :]} & {
            "prefix",
            "single-partition",
        }
        await pilot.press("q")
    assert app.ledger_file is not None and app.ledger_file.error is None
    assert len(lines(ledger)) == app.ledger_file.written  # closed with the app: all written


async def test_without_the_option_no_file_is_written(make_app, demo_path, tmp_path):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    assert app.ledger_file is None and list(tmp_path.iterdir()) == []
