"""The headless table: columns keep their place however long the listing runs."""

from __future__ import annotations

import io
import json
import sys

from rich.cells import cell_len

from cosmem_tui.core.output import COLUMN_CAP, TABLE_BATCH, Output

FIELDS = ("tenant", "threads", "items")


def table(rows: list[dict[str, object]], titles: dict[str, str] | None = None) -> list[str]:
    stream = io.StringIO()
    with Output("table", FIELDS, FIELDS, stream, titles=titles) as output:
        for row in rows:
            output.write(row)
    return stream.getvalue().splitlines()


def by_cell(line: str) -> dict[int, str]:
    """Each character of ``line`` by the terminal column it starts at."""
    found, at = {}, 0
    for ch in line:
        found[at] = ch
        at += cell_len(ch)
    return found


def column_starts(header: str) -> list[int]:
    """Where each header word starts, in terminal cells (these headers hold no spaces)."""
    cells = by_cell(header)
    return [at for at, ch in cells.items() if ch != " " and cells.get(at - 1, " ") == " "]


def assert_aligned(lines: list[str]) -> None:
    starts = column_starts(lines[0])
    assert len(starts) == len(FIELDS)
    for number, line in enumerate(lines):
        cells = by_cell(line)
        for start in starts[1:]:
            # Every column begins where its header does, after a two-space gutter
            # (a wide character ending in the gutter would leave a hole in ``cells``).
            assert cells.get(start - 2) == cells.get(start - 1) == " ", (number, line)
            assert start in cells, (number, line)


def test_rows_after_the_first_batch_keep_the_first_batch_widths():
    narrow = [{"tenant": f"t-{n:03d}", "threads": n, "items": n * 10} for n in range(TABLE_BATCH)]
    wide = [
        {"tenant": "a-tenant-with-a-much-longer-name", "threads": 123_456_789, "items": 5},
        {"tenant": "你好你好你好你好", "threads": 1, "items": 12_345_678_901},  # wide cells
        {"tenant": "t-x", "threads": 2, "items": 3},
    ]
    lines = table(narrow + wide)
    assert len(lines) == 1 + TABLE_BATCH + len(wide)  # one header, then every row
    assert lines[0].split() == ["TENANT", "THREADS", "ITEMS"]
    assert_aligned(lines)
    later = lines[1 + TABLE_BATCH :]
    assert later[0].startswith("a-ten…  ")  # cropped to the column, with an ellipsis
    assert later[1].startswith("你好 …  ")  # a wide character never straddles the edge
    assert later[2].startswith("t-x     2")


def test_a_column_is_capped_and_its_header_always_fits():
    wide_text = "你" * 60  # within the preview's 72 characters, but 120 cells
    lines = table(
        [{"tenant": wide_text, "threads": 1, "items": 2}, {"tenant": "a", "threads": 3}],
        titles={"threads": "threads-of-the-tenant"},
    )
    assert lines[0].split() == ["TENANT", "THREADS-OF-THE-TENANT", "ITEMS"]
    assert_aligned(lines)
    first = lines[1].split("  ")[0]
    assert cell_len(first) == COLUMN_CAP and first.endswith("…")


def test_json_and_csv_never_carry_nan_or_infinity_and_say_so():
    """Python writes NaN as the bare word NaN, which jq and JSON.parse refuse."""
    record = {"tenant": float("nan"), "threads": [1, float("inf")], "items": -float("inf")}
    for fmt in ("json", "csv"):
        stream, notes = io.StringIO(), io.StringIO()
        with Output(fmt, FIELDS, FIELDS, stream, notes=notes) as output:
            output.write(record)
        text = stream.getvalue()
        assert "NaN" not in text and "Infinity" not in text
        assert output.not_finite == 3
        assert notes.getvalue() == (
            "cosmem: 3 numbers NaN or infinite, written as null (JSON has no such number)\n"
        )
    stream = io.StringIO()
    with Output("json", FIELDS, FIELDS, stream, notes=io.StringIO()) as output:
        output.write(record)
    assert json.loads(stream.getvalue()) == [{"tenant": None, "threads": [1, None], "items": None}]


def test_a_file_written_through_output_gets_no_note_on_stderr(capsys):
    with Output("json", FIELDS, FIELDS, io.StringIO()) as output:
        output.write({"tenant": float("nan")})
    assert output.not_finite == 1 and capsys.readouterr().err == ""  # its writer says it
    with Output("json", FIELDS, FIELDS, sys.stdout) as output:  # the CLI: stdout
        output.write({"tenant": float("nan")})
    assert "1 number NaN or infinite" in capsys.readouterr().err
