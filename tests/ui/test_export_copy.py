"""``e`` exports the table a view shows (the CLI's records, the CLI's writer); ``y`` copies
the selected row, or a turn's raw item, to the clipboard over OSC 52."""

from __future__ import annotations

import asyncio
import base64
import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core import records
from cosmem_tui.core.demo.hostile import HOSTILE_THREAD
from cosmem_tui.core.ledger_file import FIELDS as LEDGER_FIELDS
from cosmem_tui.core.text import json_for_terminal
from cosmem_tui.model import Key
from cosmem_tui.ui.table_export import OSC52_LIMIT, copy_text
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.lifecycle.rows import LIFECYCLE_FIELDS
from tests.helpers import run_cli
from tests.ui.conftest import cells, settle

pytestmark = pytest.mark.usefixtures("frozen_system_time")

OSC52 = re.compile(r"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07")


@pytest.fixture
def exports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "exports"
    monkeypatch.setenv("COSMEM_EXPORT_DIR", str(where))
    return where


async def cli(capsys: Any, *args: str) -> str:
    """``cosmem ARGS``'s stdout (in a thread: the CLI runs its own event loop)."""
    code, out, _ = await asyncio.to_thread(run_cli, capsys, *args)
    assert code == 0, args
    return out


def notices(app: Any) -> str:
    return " | ".join(n.message for n in app._notifications)


def written(app: Any) -> list[str]:
    """Everything the app sends its terminal from now on (the headless driver drops it)."""
    out: list[str] = []
    driver = app._driver
    original = driver.write

    def write(data: str) -> None:
        out.append(data)
        original(data)

    driver.write = write
    return out


async def export(pilot: Any, fmt_key: str, exports: Path) -> Path:
    before = set(exports.glob("*")) if exports.exists() else set()
    await pilot.press("e", fmt_key)
    await settle(pilot)
    (new,) = set(exports.glob("*")) - before
    return new


async def test_turns_export_is_what_cosmem_turns_prints(
    make_app, demo_path, manifest, exports, capsys
):
    tenant, thread = manifest.malformed["tenant"], manifest.malformed["thread"]
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command(f"thread {tenant} {thread}")
        await settle(pilot)
        assert app.browse.level is Level.TURNS and app.browse.turn_column.window.complete
        as_json = await export(pilot, "j", exports)
        as_csv = await export(pilot, "c", exports)
        said = notices(app)
    args = ("turns", tenant, thread, "--workspace", str(demo_path))
    cli_json = await cli(capsys, *args, "--json")
    cli_csv = await cli(capsys, *args, "--csv")
    assert as_json.read_text() == cli_json  # byte for byte: the same records, the same writer
    assert as_csv.read_bytes().decode() == cli_csv
    assert re.fullmatch(r"cosmem-turns-\d{8}T\d{6}Z(-2)?\.(json|csv)", as_json.name)
    assert "exported 13 turns as JSON" in said and str(as_json) in said
    assert str(as_csv) in said


async def test_export_honours_the_filter_and_never_replaces_a_file(make_app, demo_path, exports):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"fab", "enter")  # tenants whose name has "fab"
        await settle(pilot)
        shown = [row[0] for row in cells(app, "tenants")]
        assert 0 < len(shown) < 48
        first = await export(pilot, "j", exports)
        second = await export(pilot, "j", exports)  # the same second: a name of its own
        await pilot.press("e", "escape")  # asked, then cancelled: nothing written
        await settle(pilot)
    assert first != second and first.read_text() == second.read_text()
    tenants = json.loads(first.read_text())
    assert [t["tenant"] for t in tenants] == shown
    assert list(tenants[0]) == list(records.TENANT_FIELDS)
    assert len(list(exports.glob("*"))) == 2


async def test_threads_export_is_what_cosmem_threads_prints(make_app, demo_path, exports, capsys):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("tenant contoso")
        await settle(pilot)
        assert app.browse.level is Level.THREADS
        path = await export(pilot, "c", exports)
    cli_csv = await cli(capsys, "threads", "contoso", "--workspace", str(demo_path), "--csv")
    assert path.read_bytes().decode() == cli_csv
    assert next(csv.reader(io.StringIO(cli_csv))) == list(records.THREAD_FIELDS)


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for v in value for s in strings(v)] if isinstance(value, list) else []


def copied(out: list[str]) -> list[str]:
    return [base64.b64decode(m).decode() for chunk in out for m in OSC52.findall(chunk)]


async def test_y_copies_the_raw_item_of_a_turn_over_osc52(make_app, demo_path, manifest, exports):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command(f"thread {manifest.hostile['tenant']} {HOSTILE_THREAD}")
        await settle(pilot)
        column = app.browse.turn_column
        hostile = [
            display
            for display in range(len(column.rows))
            if (t := column.rows.turn_at(display)) and any("\x1b[2J" in m.text for m in t.messages)
        ]
        column.select_index(hostile[0])  # a turn whose text clears the screen
        turn = column.current_turn
        out = written(app)
        await pilot.press("y")  # from the list: one point read
        await settle(pilot)
        session = app.session
        detail = await session.browse.detail(app.browse.thread, turn.item_id, turn.part)
        expected = json_for_terminal(dict(detail.item.body), indent=2)
        sequence = "\x1b]52;c;" + base64.b64encode(expected.encode()).decode() + "\x07"
        assert sequence in out  # the exact OSC 52 sequence, the item's JSON in base64
        assert json.loads(copied(out)[0]) == dict(detail.item.body)
        assert any("\x1b[2J" in text for text in strings(json.loads(copied(out)[0])))  # hostile …
        assert all("\x1b[2J" not in chunk for chunk in out)  # … and never sent raw
        assert f"copied item {turn.item_id}"[:20] in notices(app)
        await pilot.press("enter")  # the detail: its point-read item, no second read
        await settle(pilot)
        out.clear()
        await pilot.press("y")
        await settle(pilot)
        assert copied(out) == [expected]


async def test_y_in_a_list_copies_the_row_as_its_record(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        out = written(app)
        await pilot.press("y")  # the first tenant, as cosmem tenants --json writes it
        await settle(pilot)
        (text,) = copied(out)
        record = json.loads(text)
        assert list(record) == list(records.TENANT_FIELDS)
        assert record["tenant"] == app.browse.top.current_key.json_value()
        assert record["items"] > 0  # counted: the row as shown


async def test_a_copy_too_large_for_osc52_is_refused_not_cut(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        out = written(app)
        copy_text(app.screen, "the big row", "x" * (OSC52_LIMIT * 3 // 4 + 3))
        await settle(pilot)
        assert copied(out) == []
        assert "nothing was copied" in notices(app) and "e exports it" in notices(app)
        copy_text(app.screen, "the small row", "x" * (OSC52_LIMIT * 3 // 4))
        await settle(pilot)
        assert copied(out) == ["x" * (OSC52_LIMIT * 3 // 4)]


def shown_rows(app: Any, list_id: str) -> int:
    return len(cells(app, list_id))


@pytest.mark.parametrize(
    ("key", "list_id", "fields", "stem"),
    [
        ("R", "ledger", LEDGER_FIELDS, "requests"),
        ("A", "findings", records.ADVICE_FIELDS, "findings"),
        ("H", "keys", records.HOT_FIELDS, "hot-tenants"),
        ("D", "capabilities", records.DOCTOR_FIELDS, "doctor"),
    ],
)
async def test_every_list_view_exports_its_rows(
    make_app, demo_path, exports, key, list_id, fields, stem
):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        if key == "R":
            await pilot.press("p")  # paused: the ledger holds still while it is exported
        rows = shown_rows(app, list_id)
        assert rows > 0
        path = await export(pilot, "j", exports)
        table = json.loads(path.read_text())
        out = written(app)
        await pilot.press("y")
        await settle(pilot)
    assert path.name.startswith(f"cosmem-{stem}-")
    assert len(table) == rows and list(table[0]) == list(fields)
    assert json.loads(copied(out)[0]) == table[0]  # y: the selected (first) row's record
    if key == "H":
        assert table[0]["tenant"] == "contoso"  # the hot tenant leads, by RU


async def test_lifecycle_exports_what_cosmem_ttl_prints(make_app, demo_path, exports, capsys):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("tenant contoso")
        await settle(pilot)
        await pilot.press("L")  # the lifecycle of what browse has open
        await settle(pilot)
        path = await export(pilot, "c", exports)
        out = written(app)
        await pilot.press("j", "y")  # the first item under the section's title
        await settle(pilot)
    cli_csv = await cli(capsys, "ttl", "contoso", "--workspace", str(demo_path), "--csv")
    assert path.read_bytes().decode() == cli_csv
    row = json.loads(copied(out)[0])
    assert tuple(row) == LIFECYCLE_FIELDS  # every field the row detail (v) shows
    assert row["tenant"] == "contoso" and row["id"] and row["text"]


async def test_throughput_exports_its_series(make_app, demo_path, exports):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        report = app.screen.report
        path = await export(pilot, "j", exports)
    from cosmem_tui.core.throughput import series_rows

    assert json.loads(path.read_text()) == json.loads(json.dumps(series_rows(report)))
    assert report.series


async def test_x_narrows_to_what_expires_and_e_no_longer_does(
    make_app, demo_path, manifest, exports
):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command(f"thread {manifest.malformed['tenant']} {manifest.malformed['thread']}")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert app.browse.turn_column.expiring_within == 3600
        await pilot.press("e", "escape")
        await settle(pilot)
        assert app.browse.turn_column.expiring_within == 3600  # e asked for a format instead
        assert Key.of("contoso")  # the registry's keys, as help shows them:
        assert app.registry.keys("table.export") == "e"
        assert app.registry.keys("browse.expiring") == "x"
