"""`cosmem recall`: the JSON/CSV contract (one record per table line), what stderr says,
and one-line errors; a container-wide probe is refused without --fan-out."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.schemas import get_schema
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange, run_cli

HIT_KEYS = {"rank", "id", "score", "thread", "signals"}
EXPECTED_KEYS = {"id", "expected", "rank", "why", "reason"}


def items() -> list[dict[str, Any]]:
    found = [
        exchange("acme", "t1", n, f"note {n}", embedding=[1.0, 0.1 * n, 0.0, 0.0]) for n in range(8)
    ]
    found.append(
        exchange("acme", "t1", 9, "old", embedding=[1.0, 0.0, 0.0, 0.0], superseded_by="x")
    )
    found.append(exchange("acme", "t2", 0, "elsewhere", embedding=[1.0, 0.0, 0.0, 0.0]))
    for item in found:
        item["content"] = item["messages"][0]["content"]
    return found


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return build_workspace(tmp_path / "w.sqlite", items(), now=ANCHOR, schema=get_schema("lab"))


def recall(capsys: Any, workspace: Path, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "recall", *args, "--workspace", str(workspace))


def test_json_records_hits_then_expected_items(capsys, workspace) -> None:  # type: ignore[no-untyped-def]
    code, out, err = recall(
        capsys, workspace, "acme", "t1", "--like", "t1-0", "--expect", "t1-6", "t1-9", "t2-0",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    records = json.loads(out)
    hits, expected = records[:5], records[5:]
    assert [h["rank"] for h in hits] == [1, 2, 3, 4, 5]  # the lab's k
    assert all(set(h) == HIT_KEYS for h in hits)
    assert hits[0] == {
        "rank": 1,
        "id": "t1-0",
        "score": pytest.approx(1.0),
        "thread": "t1",
        "signals": {"vector": 1, "text": None, "fused": None, "exact": 1},
    }
    assert all(set(e) == EXPECTED_KEYS and e["expected"] is True for e in expected)
    assert [(e["id"], e["reason"], e["rank"]) for e in expected] == [
        ("t1-6", "ranked_below_k", 7),
        ("t1-9", "filtered", None),
        ("t2-0", "out_of_scope", None),
    ]
    assert "embedding" not in out  # no vector leaves in the records
    assert "index = exact search (local workspace)" in err
    assert "query vector: 4 dimensions" in err
    assert "RU to find out" in err


def test_csv_has_every_column(capsys, workspace) -> None:  # type: ignore[no-untyped-def]
    code, out, err = recall(capsys, workspace, "acme", "t1", "--like", "t1-0", "--k", "2",
                            "--expect", "t1-5", "--csv")  # fmt: skip
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == [
        "rank",
        "id",
        "score",
        "thread",
        "signals",
        "expected",
        "why",
        "reason",
    ]
    assert [r["id"] for r in rows] == ["t1-0", "t1-1", "t1-5"]
    assert json.loads(rows[0]["signals"])["vector"] == 1
    assert rows[2]["reason"] == "ranked_below_k" and rows[2]["expected"] == "true"


def test_vector_file_and_text_modes(capsys, workspace, tmp_path) -> None:  # type: ignore[no-untyped-def]
    vector = tmp_path / "v.json"
    vector.write_text("[1, 0.75, 0, 0]")
    code, out, err = recall(capsys, workspace, "acme", "t1", "--vector", str(vector), "--json")
    assert code == 0, err
    assert json.loads(out)[0]["id"] == "t1-7"
    code, out, err = recall(capsys, workspace, "acme", "t1", "--text", "note 3", "--json")
    assert code == 0, err
    assert json.loads(out)[0]["id"] == "t1-3"
    assert "text top 5" in err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((), "give a query"),
        (("--like", "nope"), "no such item"),
        (("--like", "t1-0", "--mode", "text"), "needs key terms"),
        (("--text", "the of"), "no key terms"),
    ],
)
def test_usage_errors_are_one_line(capsys, workspace, args, words) -> None:  # type: ignore[no-untyped-def]
    code, out, err = recall(capsys, workspace, "acme", "t1", *args)
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and err.startswith("cosmem: ") and words in err


def test_bad_vector_files(capsys, workspace, tmp_path) -> None:  # type: ignore[no-untyped-def]
    for text, words in (("{}", "array of finite numbers"), ("[1,", "not JSON"), ("[]", "array")):
        path = tmp_path / "bad.json"
        path.write_text(text)
        code, _, err = recall(capsys, workspace, "acme", "t1", "--vector", str(path))
        assert code != 0 and words in err and err.count("\n") == 1
    code, _, err = recall(capsys, workspace, "acme", "t1", "--vector", str(tmp_path / "none"))
    assert code != 0 and "cannot read" in err


def test_a_container_scope_is_refused_without_fan_out(
    capsys, workspace, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    schemas = tmp_path / "config" / "cosmem" / "schemas"
    schemas.mkdir(parents=True)
    lab = (Path(__file__).parents[1] / "cosmem_tui/schemas/builtin/lab.toml").read_text()
    wide = lab.replace('name = "lab"', 'name = "lab-wide"').replace(
        'scope = "thread"', 'scope = "container"'
    )
    (schemas / "lab-wide.toml").write_text(wide)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    ledger = tmp_path / "ledger.jsonl"
    base = ("acme", "t1", "--like", "t1-0", "--schema", "lab-wide", "--json")
    code, out, err = recall(capsys, workspace, *base, "--ledger", str(ledger))
    assert code != 0 and out == ""
    assert "cross-partition" in err and "RU" in err and "--fan-out" in err
    sent = [json.loads(line)["operation"] for line in ledger.read_text().splitlines()]
    assert not [op for op in sent if op.startswith("recall-")]
    code, out, err = recall(capsys, workspace, *base, "--fan-out")
    assert code == 0, err
    assert "t2-0" in {h["id"] for h in json.loads(out)}
