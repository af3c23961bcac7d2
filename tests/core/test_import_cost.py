"""What an import costs, counted, never timed: Python calls and SQL statements per item.

The machine is shared and noisy, so nothing here reads a clock. What makes an import
slow shows as counts that do not depend on the machine: Python functions entered per
item (the per-item validation, key texts and parsing were ~70 before the bulk load),
values the standard library decodes when orjson could, SQL statements and transactions
per item, and where the indexes are built. ``benchmarks/import_throughput.py`` has the
seconds.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core import import_files
from cosmem_tui.core.importer import ImportSettings, import_export
from cosmem_tui.model import FrozenClock
from cosmem_tui.sources.local import builder
from cosmem_tui.sources.query_texts import load_query

ANCHOR = 1_795_996_800
INSERT_ITEM = re.compile(r"^\s*INSERT (OR \w+ )?INTO items\b", re.IGNORECASE | re.MULTILINE)
CALLS_PER_ITEM = 8  # now 5: the row, and the reader's generators handing the item up


def amt_export(path: Path, count: int, threads: int = 50) -> Path:
    """AMT turn items as an export has them: many turns per thread, every field set."""
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            item = {
                "id": f"{n:032x}",
                "user_id": f"user-{n % 7}",
                "thread_id": f"thread-{n % threads}",
                "role": ("user", "agent")[n % 2],
                "type": "turn",
                "content": f"message {n}: could you check the renewal date?",
                "metadata": {},
                "created_at": f"2026-11-29T10:{n // 60 % 60:02d}:{n % 60:02d}.000000+00:00",
                "tags": [],
                "ttl": 2592000,
                "embedding": [0.25, -0.5, 0.125],
                "_rid": "pMYBAKP3nAA=",
                "_etag": f'"{n:08x}"',
                "_ts": ANCHOR - 86_400 + n,
            }
            out.write(json.dumps(item) + "\n")
    return path


def run(source: Path, workspace: Path) -> None:
    problems: list[str] = []
    import_export(
        ImportSettings(source=source, workspace=workspace),
        clock=FrozenClock(ANCHOR),
        user_dir=None,
        on_problem=lambda p: problems.append(str(p)),
    )
    assert problems == []


def python_calls(source: Path, workspace: Path) -> Counter[str]:
    """Python functions entered during one import (generator resumptions included)."""
    calls: Counter[str] = Counter()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            calls[f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}"] += 1

    sys.setprofile(profile)
    try:
        run(source, workspace)
    finally:
        sys.setprofile(None)
    return calls


def test_python_calls_per_item_stay_a_handful(tmp_path):
    """The difference between 1,000 and 3,000 items is what each item costs; the fixed
    cost (detection, schema, the workspace's set-up) cancels out."""
    small = python_calls(amt_export(tmp_path / "a.jsonl", 1000), tmp_path / "a.sqlite")
    large = python_calls(amt_export(tmp_path / "b.jsonl", 3000), tmp_path / "b.sqlite")
    per_item = {k: (large[k] - small[k]) / 2000 for k in large if large[k] > small[k]}
    heavy = {k: v for k, v in sorted(per_item.items(), key=lambda kv: -kv[1]) if v >= 0.05}
    assert sum(per_item.values()) <= CALLS_PER_ITEM, heavy


def test_json_lines_are_read_by_orjson_not_value_by_value(tmp_path, monkeypatch):
    assert import_files.FAST_LOADS is not None, "orjson is a dependency of cosmem"
    decoded: list[int] = []
    original = import_files._Splitter.decode_value

    def counted(self: Any) -> Any:
        decoded.append(self.pos)
        return original(self)

    monkeypatch.setattr(import_files._Splitter, "decode_value", counted)
    run(amt_export(tmp_path / "a.jsonl", 2000), tmp_path / "a.sqlite")
    assert decoded == []


class Traced:
    """Every SQL statement the workspace's connection runs, as SQLite reports it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.statements: list[str] = []
        connect = sqlite3.connect

        def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            db = connect(*args, **kwargs)
            db.set_trace_callback(self.statements.append)
            return db

        monkeypatch.setattr(builder.sqlite3, "connect", traced)

    def count(self, prefix: str) -> int:
        return sum(1 for s in self.statements if s.lstrip().upper().startswith(prefix))


@pytest.mark.parametrize("items", [1000, 5000])
def test_one_statement_per_item_in_one_transaction_with_the_indexes_after(
    tmp_path, monkeypatch, items
):
    """executemany runs one INSERT per row (SQLite traces each); nothing else may run per
    row or per batch that grows with the file: a BEGIN and COMMIT per batch wrote the
    key index's pages again each time."""
    traced = Traced(monkeypatch)
    run(amt_export(tmp_path / "a.jsonl", items), tmp_path / "a.sqlite")
    inserts = [n for n, s in enumerate(traced.statements) if INSERT_ITEM.search(s)]
    assert len(inserts) == items
    per_thousand = (len(traced.statements) - 60) * 1000 / items  # 60: set-up and the end
    assert per_thousand <= 1001
    assert traced.count("BEGIN") == 1 and traced.count("COMMIT") == 1
    indexes = [n for n, s in enumerate(traced.statements) if "CREATE INDEX" in s]
    # Every index of workspace_indexes.sql (the items' and the change log's), after.
    expected = load_query("local", "workspace_indexes").count("CREATE INDEX")
    assert len(indexes) == expected and min(indexes) > max(inserts)


def test_the_workspace_schema_is_the_one_its_files_define(tmp_path):
    """The bulk load creates the indexes late and runs without a journal: what is left
    is exactly the schema of workspace_schema.sql and workspace_indexes.sql (plus
    ANALYZE's table), in a file with a rollback journal, as a build always wrote it."""
    run(amt_export(tmp_path / "a.jsonl", 300), tmp_path / "a.sqlite")
    reference = sqlite3.connect(tmp_path / "reference.sqlite")
    reference.executescript(load_query("local", "workspace_schema"))
    reference.executescript(load_query("local", "workspace_indexes"))
    reference.execute("ANALYZE")
    query = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
    expected = reference.execute(query).fetchall()
    reference.close()
    db = sqlite3.connect(f"file:{tmp_path / 'a.sqlite'}?mode=ro", uri=True)
    try:
        assert db.execute(query).fetchall() == expected
        assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        stats = db.execute("SELECT idx FROM sqlite_stat1 WHERE tbl = 'items' ORDER BY 1").fetchall()
        assert stats == [("items_by_tenant",), ("items_by_thread",), ("sqlite_autoindex_items_1",)]
    finally:
        db.close()
    header = (tmp_path / "a.sqlite").read_bytes()[:20]
    assert header[18:20] == b"\x01\x01"  # read and write versions: rollback journal, not WAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "a.sqlite", "reference.sqlite"]
