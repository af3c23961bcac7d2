"""One import, two readers: orjson where it is installed, the standard library where it
is not (and wherever orjson would read a value otherwise). Every file of a corpus of
edge cases must give the same workspace, row for row and column for column, the same
problems word for word (FILE:LINE included) and the same report, either way.

The corpus is also what a change to the import is checked against by hand: it is files
only, so an older checkout can import the same files and its workspaces be compared.
"""

from __future__ import annotations

import json
import random
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core import import_files, importer
from cosmem_tui.core.importer import ImportFailed, ImportSettings, import_export
from cosmem_tui.model import FrozenClock
from tests.fixtures import SCHEMAS
from tests.hostile.workspace import export_lines

ANCHOR = 1_795_996_800


def _item(n: int, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"i{n}",
        "tenantId": f"t{n % 3}",
        "threadId": f"th{n % 5}",
        "turnIndex": n,
        "messages": [{"role": "user", "content": f"message {n}"}],
        "_ts": ANCHOR - 3600 + n,
        "_etag": f'"e{n}"',
        **fields,
    }


def _line(item: dict[str, Any]) -> bytes:
    """UTF-8 as an export writes it; a lone surrogate (not UTF-8) as a JSON escape."""
    try:
        return json.dumps(item, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return json.dumps(item).encode()


def _raw(n: int, rest: bytes = b"") -> bytes:
    """An item written by hand (for JSON no encoder writes), ``rest`` before its ``}``."""
    return (
        b'{"_ts": 1, "_etag": "x", "id": "i%d", "tenantId": "t", "threadId": "t"' % n + rest + b"}"
    )


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _edge_lines() -> list[bytes]:
    """Each line a case where a reader could go wrong; the number is its item id."""
    raw: list[bytes] = [_line(_item(n)) for n in range(5)]
    numbers = [
        # integers around 64 bits, where orjson turns to floats: as keys, order, _ts, ttl
        ("turnIndex", 2**63 - 1),
        ("turnIndex", 2**63),
        ("turnIndex", 2**64),
        ("turnIndex", -(2**63) - 1),
        ("turnIndex", 10**18),
        ("turnIndex", 10**19),
        ("turnIndex", 10**25),
        ("_ts", 10**19),
        ("_ts", 2**70),
        ("ttl", 10**20),
        ("ttl", 2**31 - 1),
        ("tenantId", 12345678901234567890),
        ("tenantId", 1234567890123456789),
        ("threadId", -98765432109876543210),
        ("note", 10**30),
        ("note", [1.5, -0.0, 5e-324, 1e308, 2.5e-300, 0.1, 123456789012345678901234.5]),
        ("turnIndex", 1.5),
        ("turnIndex", -0.0),
    ]
    for n, (field, value) in enumerate(numbers, start=100):
        raw.append(_line(_item(n, **{field: value})))
    literals = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1" + "0" * 400, "9" * 5000]
    for n, literal in enumerate(literals, start=200):
        for field in ("turnIndex", "ttl", "note"):
            text = _line(_item(n, **{field: "X"})).replace(b'"X"', literal.encode())
            raw.append(text.replace(f'"i{n}"'.encode(), f'"i{n}-{field}"'.encode()))
    depths = [100, 255, 256, 300, 511, 512, 513, 700, 900, 990, 1000, 1010, 1023, 1024, 2000]
    for n, depth in enumerate(depths, 300):
        raw.append(_line(_item(n)).replace(b'"_ts"', f'"deep": {_nested(depth)}, "_ts"'.encode()))
    raw.append(_line(_item(320, note=[[] for _ in range(600)])))  # many brackets, shallow
    raw += [
        # lone surrogates: kept in content (escaped), refused in keys
        _line(_item(400, note="lone \ud800 and \udfff")),
        _line(_item(401, threadId="th\udc80")),
        _line(_item(402, tenantId="\ud83d\ude00 pair")),  # a pair is a character
        # bytes that are not UTF-8, in content and in a key
        _line(_item(403)).replace(b"message 403", b"message \xff\xfe"),
        _line(_item(404)).replace(b'"t1"', b'"t\xc3"'),
        # system properties missing or of the wrong type
        _line({k: v for k, v in _item(410).items() if k != "_ts"}),
        _line({k: v for k, v in _item(411).items() if k != "_etag"}),
        _line(_item(412, _ts="1700000000")),
        _line(_item(413, _ts=True)),
        _line(_item(414, _ts=1.7e9)),
        _line(_item(415, _etag=7)),
        # ids and keys
        _line(_item(420, id="")),
        _line(_item(421, id=421)),
        _line({k: v for k, v in _item(422).items() if k != "id"}),
        _line({k: v for k, v in _item(423).items() if k != "threadId"}),
        _line(_item(424, tenantId=42)),
        _line(_item(425, tenantId="42")),
        _line(_item(426, tenantId=True)),
        _line(_item(427, tenantId=None)),
        _line(_item(428, tenantId=1.5)),
        _line(_item(429, tenantId="true")),
        _line(_item(430, tenantId=" padded ")),
        _line(_item(431, tenantId="")),
        _line(_item(432, tenantId="[1]")),
        _line(_item(433, tenantId={"an": "object"})),
        _line(_item(434, threadId=["a", "list"])),
        _line(_item(435, tenantId='quote " and \\ backslash')),
        _line(_item(436, tenantId="ünïcödé", id="ïd-436")),
        _line(_item(437, tenantId="tab\there")),
        _line(_item(438, turnIndex="a string order")),
        _line(_item(439, turnIndex=None)),
        _line(_item(440, turnIndex=True)),
        _line(_item(441, turnIndex=[1, 2])),
        _line(_item(442, ttl=-1)),
        _line(_item(443, ttl=0)),
        _line(_item(444, ttl=60)),
        _line(_item(445, ttl="60")),
        _line(_item(446, ttl=True)),
        # duplicates: within a batch, and of an item of an earlier batch
        _line(_item(1)),
        _line(_item(2, note="second copy")),
        # JSON that is odd but valid, and not valid (each with its system properties, so
        # the text as read is what is stored)
        _raw(450, b', "a": 1, "a": 2'),  # a key twice: the last one counts
        b"[1, 2]",
        b"5",
        b'"just a string"',
        b"null",
        b"{not json",
        _raw(451) + b" " + _raw(452),  # two values on a line
        _raw(453) + b" trailing words",
        _raw(454, b', "x": "raw \x01 control"'),
        _raw(455, b', "x": [1,]'),
        b"",
        b"   \t ",
        b"   " + _raw(456),  # indented
        b"\t" + _raw(457) + b"   \t",
        _raw(458) + b"\r",
        _raw(459, b',\n "x": "on two lines"'),
        _raw(460, b', "x": "\\u00e9\\ud83d\\ude00"'),
        _raw(461) + _raw(462),  # two values, nothing between
        _raw(463, b', "x": 00'),
        _raw(464, b', "x": -'),
        _raw(465, b', "x": 1.'),
        _raw(466, b', "x": .5'),
        _raw(467, b', "x": 1e5, "y": 1E-5, "z": -0, "w": 1E+2'),
        _raw(468, b', "x": "\\x41"'),
        _raw(469, b', "x": tru'),
        _raw(470, b', "x": "\xc2\xa0nbsp \xe2\x80\xa8"'),
        b"\xc2\xa0" + _raw(471),  # a no-break space is not JSON whitespace
        b"\x0c" + _raw(472),  # nor is a form feed
        _raw(473, b', "x": "' + b"a" * 40 + b'"') + b" " * 3,
    ]
    raw += [_line(_item(n)) for n in range(500, 520)]  # after every odd line, plain again
    return raw


def _long_lines() -> list[bytes]:
    """Lines longer than a read (64 KiB), one of them broken, between plain ones."""
    return [
        _line(_item(0)),
        _line(_item(1, note="x" * 200_000)),
        _line(_item(2)),
        _line(_item(3, note="y" * 100_000))[:-1] + b" oops",  # a long line that is no item
        _line(_item(4)),
        _line(_item(5, note="z" * 70_000)),
    ]


def write_corpus(folder: Path) -> list[tuple[str, Path, dict[str, Any]]]:
    """The corpus: (name, file or folder, ImportSettings fields) for each import."""
    folder.mkdir(parents=True, exist_ok=True)
    cases: list[tuple[str, Path, dict[str, Any]]] = []

    def add(name: str, content: bytes, **settings: Any) -> None:
        path = folder / name
        path.write_bytes(content)
        cases.append((name, path, settings))

    edges = _edge_lines()
    add("edges.jsonl", b"\n".join(edges) + b"\n", schema="lab")
    add("edges-crlf.jsonl", b"\r\n".join(edges) + b"\r\n", schema="lab")
    add("edges-bom.jsonl", b"\xef\xbb\xbf" + b"\n".join(edges), schema="lab")  # no last \n
    add("edges-cr.jsonl", b"\r".join(edges[:40]), schema="lab")  # no newline at all
    add("hostile.jsonl", b"\n".join(export_lines()) + b"\n", schema="lab")
    add("long.jsonl", b"\n".join(_long_lines()) + b"\n", schema="lab")
    pretty = b"".join(json.dumps(_item(n), indent=2).encode() + b"\n" for n in range(30))
    add("pretty.jsonl", pretty, schema="lab")
    array = [_item(n) for n in range(30)] + [_item(1)]
    add("array.json", json.dumps(array, indent=2).encode(), schema="lab")
    add("array-compact.json", json.dumps(array).encode(), schema="lab")
    add(
        "nested-key.jsonl",
        b"\n".join(_line({**_item(n), "who": {"t": f"w{n % 4}"}}) for n in range(40)) + b"\n",
        schema="generic",
        partition_key=("/who/t",),
    )
    late = [_item(n) for n in range(60)]
    late[50]["ttl"] = 30  # the guess (no ttl) is corrected: every expiry recomputed
    add("late-ttl.jsonl", b"".join(_line(i) + b"\n" for i in late), schema="thread")
    add("bad-only.jsonl", b"{oops\nnot json\n", schema="lab")
    add("empty.jsonl", b"", schema="lab")
    add("blank.jsonl", b"  \n\n", schema="lab")
    add("not-utf8.jsonl", b"\xff\xfe{}\n", schema="lab")
    rng = random.Random(7)
    amt = []
    for n in range(3000):
        amt.append(
            {
                "id": f"{rng.getrandbits(64):016x}",
                "user_id": f"user-{n % 37}",
                "thread_id": f"thread-{n % 211}",
                "role": ("user", "agent")[n % 2],
                "type": "turn",
                "content": f"message {n} " + "é" * (n % 3),
                "created_at": f"2026-11-29T{n % 24:02d}:00:00.{n:06d}+00:00",
                "ttl": 2592000,
                "embedding": [round(rng.uniform(-1, 1), 4) for _ in range(4)],
                "_ts": ANCHOR - 86_400 + n,
                "_etag": f'"{n:08x}"',
            }
        )
    amt[2500] = amt[10]  # a duplicate of an item of an earlier batch
    add("memories_turns.jsonl", b"".join(_line(i) + b"\n" for i in amt))
    for fixture in sorted(SCHEMAS.iterdir()):
        cases.append((f"fixture {fixture.name}", fixture, {}))
    return cases


def dump(workspace: Path) -> list[Any]:
    """What the import decided, all of it: schema objects, container, meta, every row."""
    db = sqlite3.connect(f"file:{workspace}?mode=ro", uri=True)
    try:
        return [
            db.execute(
                "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
            ).fetchall(),
            db.execute("SELECT * FROM container").fetchall(),
            db.execute("SELECT * FROM meta ORDER BY key").fetchall(),
            db.execute("SELECT rowid, * FROM items ORDER BY rowid").fetchall(),
            db.execute("SELECT * FROM sqlite_stat1 ORDER BY tbl, idx").fetchall(),
        ]
    finally:
        db.close()


def import_once(source: Path, workspace: Path, settings: dict[str, Any]) -> dict[str, Any]:
    """Everything one import shows: report, problems, and the workspace it wrote."""
    problems: list[str] = []
    try:
        report = import_export(
            ImportSettings(source=source, workspace=workspace, **settings),
            clock=FrozenClock(ANCHOR),
            user_dir=None,
            on_problem=lambda p: problems.append(str(p)),
        )
    except ImportFailed as exc:
        return {"failed": str(exc), "problems": problems, "written": workspace.exists()}
    shown = (report.imported, report.rejected, report.expired, report.files, report.ttl_note)
    return {
        "report": shown,
        "schema": report.choice.label,
        "problems": problems,
        "workspace": dump(workspace),
    }


def _fresh_etags(monkeypatch: pytest.MonkeyPatch) -> None:
    """Items without an _etag get a new one: the same sequence for every import."""
    counter = iter(range(1, 1 << 30))
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=next(counter)))


def _first_difference(fast: dict[str, Any], slow: dict[str, Any]) -> str:
    for key in fast.keys() | slow.keys():
        if key == "workspace" and key in fast and key in slow:
            for part, (a, b) in enumerate(zip(fast[key], slow[key], strict=True)):
                rows = [(x, y) for x, y in zip(a, b, strict=False) if x != y]
                if rows or len(a) != len(b):
                    return f"workspace part {part}: {rows[:1]} ({len(a)} vs {len(b)} rows)"
        elif fast.get(key) != slow.get(key):
            return f"{key}: {fast.get(key)!r} vs {slow.get(key)!r}"
    return "?"


def test_orjson_and_the_standard_library_import_the_corpus_alike(tmp_path, monkeypatch):
    assert import_files.FAST_LOADS is not None, "orjson is a dependency of cosmem"
    monkeypatch.setattr(importer, "BATCH", 100)  # duplicates across batches too
    cases = write_corpus(tmp_path / "corpus")
    fast = import_files.FAST_LOADS
    differ = []
    for n, (name, source, settings) in enumerate(cases):
        readings = []
        for reader in (fast, None):
            monkeypatch.setattr(import_files, "FAST_LOADS", reader)
            _fresh_etags(monkeypatch)
            readings.append(
                import_once(source, tmp_path / f"{n}-{reader is None}.sqlite", settings)
            )
        if readings[0] != readings[1]:
            differ.append((name, _first_difference(*readings)))
    assert differ == []
    assert len(cases) > 20
