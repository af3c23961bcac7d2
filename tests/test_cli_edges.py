"""The CLI's rough edges: a mistake in a file or an argument is named as such, once."""

from __future__ import annotations

import pytest

from tests.fixtures import SCHEMAS
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        (b"", "{file} is empty"),
        (b"  \n\n", "{file} is empty"),
        (b"[]", "{file}: no items in it (an empty array)"),
        (b"hello\nworld\n", "{file}: not JSON or JSON Lines (line 1: Expecting value)"),
        (b"\n\nxx\n", "{file}: not JSON or JSON Lines (line 3: Expecting value)"),
        (b"{oops}\n", "{file}: not JSON or JSON Lines (line 1: Expecting property name"),
        (b"\xff\xfe{}", "{file}: not UTF-8 text (byte 0xff on line 1)"),
        (b"\xef\xbb\xbf\xff", "{file}: not UTF-8 text (byte 0xff on line 1)"),
        (b'\n{"a": "\xc3("}', "{file}: not UTF-8 text (byte 0xc3 on line 2)"),
        (b'{"a": 1\xc3}', "{file}: not UTF-8 text (byte 0xc3 on line 1)"),
        (b'"a lone \xff string"', "{file}: not UTF-8 text (byte 0xff on line 1)"),
        (
            b'{"a": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
            "{file}: not JSON or JSON Lines (line 1: nested too deeply)",
        ),
        (b"[1, 2]", "{file}:1: item 1: items are JSON objects, not number values"),
    ],
)
def test_an_unusable_file_is_blamed_not_the_schema(capsys, tmp_path, content, complaint):
    source = tmp_path / "export.jsonl"
    source.write_bytes(content)
    ws = tmp_path / "w.sqlite"
    code, out, err = run(capsys, "import", str(source), "--workspace", str(ws))
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert err.startswith("cosmem: " + complaint.format(file=source))
    assert "schema" not in err and not ws.exists()


def test_a_folder_of_empty_files_says_so(capsys, tmp_path):
    for name in ("a.json", "b.jsonl"):
        (tmp_path / name).write_bytes(b"")
    code, _, err = run(capsys, "import", str(tmp_path), "--workspace", str(tmp_path / "w.sqlite"))
    assert (code, err) == (1, f"cosmem: {tmp_path}: every file in this folder is empty\n")


def test_only_valid_json_of_an_unknown_shape_blames_the_schema(capsys, tmp_path):
    source = tmp_path / "export.json"
    source.write_text('[{"foo": 1}]')
    code, _, err = run(capsys, "import", str(source), "--workspace", str(tmp_path / "w.sqlite"))
    assert code == 1 and err.startswith("cosmem: no schema matches these items")


@pytest.mark.parametrize("value", ["abc", "0", "-3", "1.5"])
def test_last_must_be_a_whole_number_of_at_least_one(capsys, demo_path, value):
    with pytest.raises(SystemExit) as exit_:
        run(capsys, "turns", "contoso", "t", "--last", value, "--workspace", str(demo_path))
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert f"argument --last: must be a whole number of at least 1, not '{value}'" in err


@pytest.mark.parametrize("command", [["tenants"], ["turns", "a", "b"], ["demo"]])
def test_a_workspace_directory_is_named_with_the_file_to_give(capsys, tmp_path, command):
    code, out, err = run(capsys, *command, "--workspace", str(tmp_path))
    assert (code, out) == (1, "")
    assert err == (
        f"cosmem: {tmp_path} is a directory; give a workspace file "
        f"(e.g. {tmp_path / 'workspace.sqlite'})\n"
    )


def test_a_directory_holding_one_workspace_suggests_it(capsys, tmp_path):
    code, _, _ = run(
        capsys, "import", str(SCHEMAS / "learn.json"), "--workspace", str(tmp_path / "learn.sqlite")
    )
    assert code == 0
    code, _, err = run(capsys, "tenants", "--workspace", str(tmp_path))
    assert code == 1 and err.endswith(f"(e.g. {tmp_path / 'learn.sqlite'})\n")
