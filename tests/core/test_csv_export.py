"""CSV: the JSON record's columns, every cell decodable, no cell a spreadsheet runs as a formula;
export files: the CLI's writer, a file of their own, never one replaced."""

from __future__ import annotations

import csv
import io
import json
import stat
from pathlib import Path

import pytest

from cosmem_tui.core import records
from cosmem_tui.core.demo.hostile import HOSTILE_THREAD
from cosmem_tui.core.output import Output, csv_guard, csv_value
from cosmem_tui.core.table_export import ExportTable, export_name, write_export
from cosmem_tui.core.text import visible
from cosmem_tui.model import Key
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")


@pytest.mark.parametrize("cell", ["=1+1", "+1+1", "-1+cmd|' /C calc'!A0", "@SUM(A1)", "\tx", "\rx"])
def test_a_formula_start_gets_a_leading_quote(cell):
    assert csv_guard(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["-1", "-0.5", "-1e-05", "3600", "plain", "", "a=b", "'=x"])
def test_plain_numbers_and_other_text_are_left_alone(cell):
    # A negative number is a number to a spreadsheet, never a formula: ttl -1 stays -1.
    assert csv_guard(cell) == cell


def test_values_are_written_so_they_decode_back():
    assert csv_value(None) == ""
    assert csv_value(-1) == "-1" and csv_value(2.5) == "2.5" and csv_value(True) == "true"
    assert json.loads(csv_value([{"role": "user", "text": "hi"}])) == [
        {"role": "user", "text": "hi"}
    ]
    assert csv_value('=HYPERLINK("http://x")') == '\'=HYPERLINK("http://x")'
    assert csv_value("\x1b[2J=") == "\\x1b[2J="  # escaped, and no longer a formula start
    assert csv_value(["=cmd"]) == '["=cmd"]'  # JSON text starts with [ : inert


def decoded(key: str, cell: str, value: object) -> object:
    """What a CSV cell says, read back by the rule ``csv_value`` writes it by."""
    if cell.startswith("'") and cell[1:2] in ("=", "+", "-", "@"):
        cell = cell[1:]
    if key == "order" and cell != "":  # written as a key is: the string "7" quoted
        return Key.parse(cell).value
    if isinstance(value, str) and key != "ttl":  # the CSV ttl is the item's value as JSON
        return cell  # an empty cell is "" for a text column (CSV has no null)
    if cell == "":
        return None
    return json.loads(cell)


def json_and_csv(capsys, *args: str) -> tuple[list[dict[str, object]], list[list[str]]]:
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0, args
    as_json = json.loads(out)
    code, out, _ = run(capsys, *args, "--csv")
    assert code == 0, args
    return as_json, list(csv.reader(io.StringIO(out)))


COMMANDS = {
    "tenants": (("tenants",), records.TENANT_FIELDS),
    "threads": (("threads", "contoso"), records.THREAD_FIELDS),
    "turns": (None, records.TURN_FIELDS),  # the malformed thread: every odd value
    "hostile": (None, records.TURN_FIELDS),  # the hostile thread
    "ttl": (("ttl", "contoso"), records.TTL_FIELDS),
    "advise": (("advise", "--no-counts"), records.ADVICE_FIELDS),
    "hot": (("hot",), records.HOT_FIELDS),
    "throttle": (("throttle",), records.THROUGHPUT_FIELDS),
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_csv_has_the_json_keys_and_each_row_reads_back(capsys, demo_path, manifest, name):
    args, fields = COMMANDS[name]
    if name == "turns":
        args = ("turns", manifest.malformed["tenant"], manifest.malformed["thread"])
    if name == "hostile":
        args = ("turns", manifest.hostile["tenant"], HOSTILE_THREAD)
    as_json, rows = json_and_csv(capsys, *args, "--workspace", str(demo_path))
    assert as_json, name
    assert rows[0] == list(fields) == list(as_json[0])  # same columns, same order
    assert len(rows) == 1 + len(as_json)
    for record, row in zip(as_json, rows[1:], strict=True):
        for key, cell in zip(fields, row, strict=True):
            value = record[key]
            if isinstance(value, str) and key not in ("ttl", "order"):
                value = visible(value)  # CSV shows control characters as escapes
            assert decoded(key, cell, record[key]) == value, (name, key, cell)


def table(rows: list[dict[str, object]]) -> ExportTable:
    return ExportTable("turns", ("id", "text"), lambda _fmt: rows)


def test_an_export_never_replaces_a_file(tmp_path: Path):
    at = 1_795_996_800.0
    first = write_export(table([{"id": "a", "text": "one"}]), "json", tmp_path, at)
    second = write_export(table([{"id": "b", "text": "two"}]), "json", tmp_path, at)
    assert (
        first.path.name == export_name("turns", "json", at) == "cosmem-turns-20261130T000000Z.json"
    )
    assert second.path.name == "cosmem-turns-20261130T000000Z-2.json"
    assert json.loads(first.path.read_text()) == [{"id": "a", "text": "one"}]
    assert json.loads(second.path.read_text()) == [{"id": "b", "text": "two"}]
    assert (first.rows, second.rows) == (1, 1) and first.size == first.path.stat().st_size


def test_an_export_is_the_writer_output_and_a_failure_leaves_no_file(tmp_path: Path):
    rows = [{"id": "=1+1", "text": "hi\nthere"}]
    done = write_export(table(rows), "csv", tmp_path, 0.0)
    stream = io.StringIO(newline="")
    with Output("csv", ("id", "text"), ("id", "text"), stream) as output:
        output.write(rows[0])
    assert done.path.read_bytes().decode() == stream.getvalue()
    assert list(csv.reader(io.StringIO(stream.getvalue()))) == [
        ["id", "text"],
        ["'=1+1", "hi\\x0athere"],
    ]

    def broken(_fmt: str):
        yield {"id": "x", "text": "y"}
        raise OSError("disk full")

    with pytest.raises(OSError):
        write_export(ExportTable("bad", ("id", "text"), broken), "csv", tmp_path, 0.0)
    assert not list(tmp_path.glob("cosmem-bad-*"))


def test_an_export_is_readable_by_its_owner_alone(tmp_path: Path):
    """Exports hold tenant names, ids and transcripts (the audit log is 0600 too)."""
    for fmt in ("csv", "json"):
        done = write_export(table([{"id": "a", "text": "secret"}]), fmt, tmp_path, 0.0)
        assert stat.S_IMODE(done.path.stat().st_mode) == 0o600


def test_an_id_with_esc_and_one_with_the_text_backslash_x1b_print_apart():
    """Both printed as \\x1b before: a backslash itself is written \\\\ now, in CSV and
    tables (JSON escapes it already)."""
    rows = [{"id": "id\x1b", "text": "a"}, {"id": "id\\x1b", "text": "C:\\temp"}]
    shown = {}
    for fmt in ("csv", "table", "json"):
        stream = io.StringIO(newline="")
        with Output(fmt, ("id", "text"), ("id", "text"), stream) as output:
            for row in rows:
                output.write(row)
        shown[fmt] = stream.getvalue()
    assert [r[0] for r in csv.reader(io.StringIO(shown["csv"]))][1:] == ["id\\x1b", "id\\\\x1b"]
    assert "C:\\\\temp" in shown["csv"]
    table_ids = [line.split()[0] for line in shown["table"].splitlines()[1:]]
    assert table_ids == ["id\\x1b", "id\\\\x1b"]
    assert [r["id"] for r in json.loads(shown["json"])] == ["id\x1b", "id\\x1b"]  # exact
