"""`cosmem search [TENANT] THREAD TEXT`: the turns of a whole thread that contain a text,
through the same writers and exit codes as `cosmem turns`."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tests.helpers import run_cli


def a_thread(capsys, demo_path: Path) -> str:  # type: ignore[no-untyped-def]
    _, out, _ = run_cli(capsys, "threads", "contoso", "--workspace", str(demo_path), "--json")
    return str(json.loads(out)[0]["thread"])


def test_search_json_lists_the_matching_turns_in_order(capsys, demo_path, tmp_path):  # type: ignore[no-untyped-def]
    thread = a_thread(capsys, demo_path)
    _, out, _ = run_cli(capsys, "turns", "contoso", thread, "--workspace", str(demo_path), "--json")
    turns = json.loads(out)
    word = turns[-1]["text"].split()[1].strip(",.?:").upper()  # a word of the newest turn
    expected = [t["id"] for t in turns if word.casefold() in t["text"].casefold()]
    ledger = tmp_path / "ledger.jsonl"
    code, out, err = run_cli(
        capsys, "search", "contoso", thread, word, "--workspace", str(demo_path), "--json",
        "--ledger", str(ledger),
    )  # fmt: skip
    assert code == 0, err
    found = json.loads(out)
    assert [t["id"] for t in found] == expected and expected
    assert set(found[0]) >= {"id", "order", "timestamp", "text", "ttl"}
    records = [json.loads(line) for line in ledger.read_text().splitlines()]
    searched = [r for r in records if r["operation"] == "search-turns"]
    assert searched and {r["scope"] for r in searched} == {"single-partition"}
    assert {r["cause"] for r in searched} == {"cosmem search"}


def test_search_csv_and_no_hits(capsys, demo_path):  # type: ignore[no-untyped-def]
    thread = a_thread(capsys, demo_path)
    code, out, _ = run_cli(
        capsys, "search", "contoso", thread, "zz no such text zz", "--workspace", str(demo_path),
        "--csv",
    )  # fmt: skip
    assert code == 0
    assert list(csv.DictReader(io.StringIO(out))) == []


def test_search_usage_errors(capsys, demo_path):  # type: ignore[no-untyped-def]
    code, _, err = run_cli(capsys, "search", "contoso", "--workspace", str(demo_path))
    assert code == 1 and "usage: cosmem search" in err
    thread = a_thread(capsys, demo_path)
    code, _, err = run_cli(capsys, "search", "contoso", thread, " ", "--workspace", str(demo_path))
    assert code == 1 and "search text is empty" in err
