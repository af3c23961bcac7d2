"""Reading export files value by value: arrays, JSON Lines, folders, and broken input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosmem_tui.core import import_files
from cosmem_tui.core.import_files import ExportFileError, read_records

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
items = st.lists(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=5),
        max_size=5,
    ),
    max_size=12,
)


def read(path: Path) -> list:
    return list(read_records(path))


@pytest.fixture(params=["orjson", "stdlib"], autouse=True)
def reader(request, monkeypatch):
    """Every test here runs with both readers of JSON Lines: they must not differ."""
    assert import_files.FAST_LOADS is not None, "orjson is a dependency of cosmem"
    if request.param == "stdlib":
        monkeypatch.setattr(import_files, "FAST_LOADS", None)
    return request.param


@settings(max_examples=60, deadline=None)
@given(values=items, chunk=st.integers(1, 64), layout=st.sampled_from(["jsonl", "array", "pretty"]))
def test_every_value_comes_back_whatever_the_chunking(tmp_path_factory, values, chunk, layout):
    path = tmp_path_factory.mktemp("hyp") / "x.json"
    if layout == "jsonl":
        path.write_text("".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values))
    else:
        path.write_text(json.dumps(values, indent=2 if layout == "pretty" else None))
    original = import_files.CHUNK
    import_files.CHUNK = chunk
    try:
        records = read(path)
    finally:
        import_files.CHUNK = original
    assert [r.error for r in records] == [None] * len(values)
    assert [r.value for r in records] == values
    assert [r.number for r in records] == list(range(1, len(values) + 1))


def test_jsonl_reports_bad_lines_and_goes_on(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "1"}\n\nnot json\n{"id": "2"}\n{"id": "3", "x": [1,\n2]}\n{"id":"4"}')
    records = read(path)
    assert [(r.where, r.value) for r in records if r.error is None] == [
        (f"{path}:1", {"id": "1"}),
        (f"{path}:4", {"id": "2"}),
        (f"{path}:5", {"id": "3", "x": [1, 2]}),
        (f"{path}:7", {"id": "4"}),
    ]
    bad = [r for r in records if r.error]
    assert len(bad) == 1 and bad[0].line == 3 and bad[0].error.startswith("not valid JSON")
    assert not bad[0].fatal
    assert records[0].text == '{"id": "1"}'  # one-line source kept for the importer
    assert records[3].text is None  # spans two lines: re-encoded instead


def test_array_items_are_numbered_and_a_syntax_error_stops_the_file(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('[\n {"id": "a"},\n {"id": "b" "c"},\n {"id": "d"}\n]')
    records = read(path)
    assert records[0].where == f"{path}:2: item 1"
    assert records[1].where == f"{path}:3: item 2" and records[1].fatal
    assert "rest of file skipped" in (records[1].error or "")
    assert len(records) == 2


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        (b"hello", "not JSON"),
        (b'[{"id": "1"}] trailing', "after the closing ']'"),
        (b'[{"id": "1"} {"id": "2"}]', "expected ',' or ']'"),
        (b'[{"id": "1"},', "not valid JSON"),
    ],
)
def test_unreadable_content_is_one_fatal_record(tmp_path, content, complaint):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    records = read(path)
    assert records[-1].fatal and complaint in (records[-1].error or "")


@pytest.mark.parametrize(
    "content",
    [
        b'{"id": "1"}\n{"id": "\xff\xfe"} {"id": "2"}\n{"id": "3"}\n',
        b'[{"id": "1"},\n {"id": "\xff\xfe"}, {"id": "2"},\n {"id": "3"}]',
    ],
)
def test_bytes_that_are_not_utf8_cost_only_their_value(tmp_path, monkeypatch, content):
    monkeypatch.setattr(import_files, "CHUNK", 5)  # a bad byte split across reads too
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    records = read(path)
    assert [r.value for r in records if r.error is None] == [{"id": i} for i in "123"]
    (bad,) = [r for r in records if r.error is not None]
    assert bad.line == 2 and not bad.fatal
    assert bad.error == "not UTF-8 text (byte 0xff on line 2)"


def test_an_escaped_surrogate_is_json_not_a_bad_byte(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"id": "\\udcff\\ud800"}\n')
    assert [r.value for r in read(path)] == [{"id": "\udcff\ud800"}]


def test_a_utf8_bom_and_an_empty_file(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": "x"}\n')
    assert [r.value for r in read(path)] == [{"id": "x"}]
    empty = tmp_path / "empty.json"
    empty.write_text("  \n")
    assert read(empty) == []
    assert read(tmp_path / "nothing.json")[0].error.startswith("cannot read")


def test_an_oversized_value_is_reported_not_buffered(tmp_path, monkeypatch):
    monkeypatch.setattr(import_files, "CHUNK", 8)
    monkeypatch.setattr(import_files, "MAX_VALUE_CHARS", 32)
    path = tmp_path / "big.json"
    path.write_text('[{"id": "1", "text": "' + "x" * 200 + '"}]')
    records = read(path)
    assert len(records) == 1 and records[0].fatal and "not valid JSON" in (records[0].error or "")


def test_a_folder_is_its_export_files_in_order(tmp_path):
    (tmp_path / "b.jsonl").write_text("{}\n")
    (tmp_path / "a.json").write_text("[]")
    (tmp_path / "notes.txt").write_text("ignored")
    assert [p.name for p in import_files.exported_files(tmp_path)] == ["a.json", "b.jsonl"]
    with pytest.raises(ExportFileError, match="no such file"):
        import_files.exported_files(tmp_path / "missing.json")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ExportFileError, match=r"no \.json"):
        import_files.exported_files(empty)


def test_json_nested_too_deeply_is_reported_not_a_crash(tmp_path):
    deep = "[" * 10_000 + "]" * 10_000
    path = tmp_path / "deep.jsonl"
    path.write_text(f'{{"id": "1", "note": {deep}}}\n{{"id": "2"}}\n')
    first, second = read(path)
    assert first.error == "not an item: JSON nested too deeply to read (line 1)"
    assert second.value == {"id": "2"}
    array = tmp_path / "deep.json"
    array.write_text(f'[{{"id": "1"}}, {{"id": "2", "note": {deep}}}, {{"id": "3"}}]')
    records = read(array)
    assert records[0].value == {"id": "1"} and records[-1].fatal and len(records) == 2


def test_each_unreadable_value_carries_its_own_reason(tmp_path):
    deep = "[" * 10_000 + "]" * 10_000
    path = tmp_path / "mixed.jsonl"
    path.write_text(f'{{oops}}\n{{"id": "1", "note": {deep}}}\n')
    broken, nested = read(path)
    assert broken.reason == "line 1: Expecting property name enclosed in double quotes"
    assert nested.reason == "line 2: nested too deeply"


NOT_NUMBERS = [
    ("NaN", "NaN at /x is not a JSON number"),
    ("Infinity", "Infinity at /x is not a JSON number"),
    ("-Infinity", "-Infinity at /x is not a JSON number"),
    ('[1, {"y": 1e400}]', "the number at /x/1/y is past what Cosmos DB stores"),
    ("1" + "0" * 400, "a 401-digit number at /x is past what Cosmos DB stores"),
    ("9" * 5000, "a 5,000-digit number at /x is past what Cosmos DB stores"),
    ("-" + "9" * 5000, "a 5,000-digit number at /x is past what Cosmos DB stores"),
]


@pytest.mark.parametrize("layout", ["jsonl", "array"])
def test_numbers_json_and_cosmos_have_not_cost_only_their_item(tmp_path, layout):
    """Python's json reads NaN and Infinity, 1e400 as inf, and raises on an integer of
    5,000 digits; each is one refused item, and the items after it are read."""
    lines = [f'{{"id": "{n}", "x": {literal}}}' for n, (literal, _) in enumerate(NOT_NUMBERS)]
    lines += ['{"id": "fine", "x": "NaN 1e400 Infinity", "y": 1e-400, "z": 1.5e308}']
    path = tmp_path / f"n.{layout}"
    if layout == "jsonl":
        path.write_text("\n".join(lines) + "\n")
    else:
        path.write_text("[\n" + ",\n".join(lines) + "\n]\n")
    records = read(path)
    assert len(records) == len(NOT_NUMBERS) + 1
    for record, (_, complaint) in zip(records, NOT_NUMBERS, strict=False):
        assert record.error is not None and complaint in record.error, record.error
        assert not record.fatal and record.error.startswith("not an item: ")
    assert records[-1].error is None
    assert records[-1].value == {"id": "fine", "x": "NaN 1e400 Infinity", "y": 0.0, "z": 1.5e308}
    first = 1 if layout == "jsonl" else 2  # FILE:LINE of each, after the "[" line
    assert [r.line for r in records] == [first + n for n in range(len(records))]


def test_integers_past_64_bits_stay_integers(tmp_path, reader):
    """orjson reads them as floats; the standard library, and so the import, as ints:
    after a colon, a comma, a space or a bracket, negative or not, alone on a line."""
    big = [2**63, 2**64, -(2**63) - 1, 10**25, -(10**19), 12345678901234567890]
    forms = ['{{"x":{n}}}', '{{"x": {n}}}', '{{"x":[0,{n}]}}', "[{n}]", "{n}", '{{"x":\t{n}}}']
    lines = [form.format(n=n) for n in big for form in forms]
    path = tmp_path / "big.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    records = read(path)
    assert [r.value for r in records] == [json.loads(line) for line in lines]
    assert all(type(n) is int for r in records for n in _numbers(r.value))
    assert [r.text for r in records] == lines


def _numbers(value: object) -> list[object]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [value]


def test_a_json_lines_value_too_long_to_buffer_is_reported_alike(tmp_path, monkeypatch):
    monkeypatch.setattr(import_files, "CHUNK", 8)
    monkeypatch.setattr(import_files, "MAX_VALUE_CHARS", 64)
    path = tmp_path / "big.jsonl"
    path.write_text('{"id": "1"}\n{"id": "2", "text": "' + "x" * 200 + '"}\n{"id": "3"}\n')
    records = read(path)
    assert records[0].value == {"id": "1"}
    assert records[1].error is not None and records[1].error.startswith("not valid JSON")
    assert records[-1].value == {"id": "3"}


def test_lines_that_are_not_one_value_each_are_read_value_by_value(tmp_path):
    """A long line orjson refuses (here: two values on it) turns the fast reader off for
    the rest of the file; every value is still read, with its own line."""
    long = "z" * 70_000
    lines = [
        json.dumps({"id": "a"}),
        json.dumps({"id": "b", "t": long}) + " " + json.dumps({"id": "c"}),
        json.dumps({"id": "d"}),
        "",
        json.dumps({"id": "e"}),
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    records = read(path)
    assert [(r.value["id"], r.line, r.number) for r in records] == [
        ("a", 1, 1),
        ("b", 2, 2),
        ("c", 2, 3),
        ("d", 3, 4),
        ("e", 5, 5),
    ]
