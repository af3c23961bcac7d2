"""Naming keys on the command line: the name a listing prints always opens its key.

Partition key values are JSON scalars, so a thread may be the number 7 and, beside it,
the string "7"; a string may look like JSON (``{"role": "system"}``), like a keyword
(``true``), or hold hostile text. Every listing prints each key's one text form
(``Key.text``); typed back, it must open that key and no other. Text that is no JSON
scalar is the string as typed, and where a text may mean two keys (``7``: the number,
or the string "7") the first reading that exists wins.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core.text import visible
from cosmem_tui.model import Key
from tests.helpers import build_workspace
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")

TENANT = "names"
# Every thread value of the tenant, by the shape it tests. Each holds ITEMS items.
THREADS: list[Any] = [
    7,  # a number …
    "7",  # … and the string "7" beside it
    1.5,
    True,
    "true",
    None,
    "null",
    '{"role": "system", "content": "x"}',  # JSON-looking strings
    '{"role": "system", "content": "x", "messages": [{"a": 1}]}',
    "[1, 2]",
    "[7]",
    '"quoted"',
    "NaN",
    "Infinity",
    "1e400",
    " padded ",
    "x y",
    "",
    "thr-[red]hostile[/red]",  # hostile, but printable
    "back\\slash \\x1b",
    'it\'s "both"',
    "ab\u202ecd",  # a right-to-left override
    "-starts-with-a-dash",
]
TENANTS: list[Any] = [42, "42", False, "false"]  # beside TENANT
ITEMS = 2


def item_id(value: Any, index: int) -> str:
    return f"{json.dumps(value)}#{index}".replace("/", "_")


def items() -> list[dict[str, Any]]:
    made = []

    def item(tenant: Any, thread: Any, index: int) -> dict[str, Any]:
        return {
            "id": item_id([tenant, thread], index),
            "tenantId": tenant,
            "threadId": thread,
            "turnIndex": index,
            "messages": [{"role": "user", "content": f"hello {index}"}],
        }

    for thread in THREADS:
        made.extend(item(TENANT, thread, i) for i in range(ITEMS))
    for tenant in TENANTS:
        made.extend(item(tenant, "t", i) for i in range(ITEMS))
    return made


@pytest.fixture
def workspace(tmp_path: Path, clock) -> Path:
    return build_workspace(tmp_path / "names.sqlite", items(), now=int(clock.now()))


def opened(capsys, workspace: Path, *names: str) -> set[str] | str:
    """The item ids ``cosmem turns NAMES`` prints, or its error line."""
    code, out, err = run(capsys, "turns", "--workspace", str(workspace), "--json", "--", *names)
    if code != 0:
        return err
    return {turn["id"] for turn in json.loads(out)}


def ids_of(tenant: Any, thread: Any) -> set[str]:
    return {item_id([tenant, thread], i) for i in range(ITEMS)}


def printed_threads(capsys, workspace: Path) -> dict[str, Any]:
    """Each thread's name as the table prints it → the thread value it stands for."""
    code, out, _ = run(capsys, "threads", TENANT, "--workspace", str(workspace))
    assert code == 0
    header, *lines = out.splitlines()
    width = header.index("TENANT")  # the THREAD column, padded to its width
    texts = [line[:width].rstrip() for line in lines]
    code, out, _ = run(capsys, "threads", TENANT, "--workspace", str(workspace), "--json")
    assert code == 0
    values = [row["thread"] for row in json.loads(out)]  # the same rows, the same order
    assert len(texts) == len(values) == len(THREADS)
    return dict(zip(texts, values, strict=True))


def test_every_printed_thread_name_opens_that_thread_and_no_other(capsys, workspace):
    printed = printed_threads(capsys, workspace)
    assert sorted(map(json.dumps, printed.values())) == sorted(map(json.dumps, THREADS))
    for text, value in printed.items():
        # Printed inert (a control character as \u202e, a backslash doubled), and still
        # the name that opens it; its JSON string form opens it too. A cell the table
        # cut at its width (…) is whole in --json and --csv, which is what to copy.
        whole = visible(Key.of(value).text, exact=True)
        if text != whole and text.endswith("…") and whole.startswith(text[:-1]):
            assert opened(capsys, workspace, TENANT, json.dumps(value)) == ids_of(TENANT, value)
            continue
        assert text == whole
        assert opened(capsys, workspace, TENANT, text) == ids_of(TENANT, value), (text, value)
        if isinstance(value, str):
            assert opened(capsys, workspace, TENANT, json.dumps(value)) == ids_of(TENANT, value)
    # The string "7" is quoted, the number is not; so are "true" and "null"; a plain
    # string is written as is, a JSON-looking one as a JSON string.
    assert {t: printed[t] for t in ("7", '"7"', "true", '"true"', "null", '"null"')} == {
        "7": 7,
        '"7"': "7",
        "true": True,
        '"true"': "true",
        "null": None,
        '"null"': "null",
    }
    assert printed["thr-[red]hostile[/red]"] == "thr-[red]hostile[/red]"
    role = visible(json.dumps('{"role": "system", "content": "x"}'), exact=True)
    assert printed[role].startswith('{"role"')


@pytest.mark.parametrize(
    "value",
    [
        '{"role": "system", "content": "x"}',
        '{"role": "system", "content": "x", "messages": [{"a": 1}]}',
        "[1, 2]",
        "[7]",
        "NaN",
        "Infinity",
        "1e400",
        "x y",
        "thr-[red]hostile[/red]",
        "back\\slash \\x1b",
        "-starts-with-a-dash",
    ],
)
def test_a_string_that_is_no_json_scalar_opens_as_typed(capsys, workspace, value):
    """The value as ``--json`` prints it, typed raw: no JSON scalar, so the string."""
    assert opened(capsys, workspace, TENANT, value) == ids_of(TENANT, value)
    assert opened(capsys, workspace, TENANT, json.dumps(value)) == ids_of(TENANT, value)


def test_a_number_and_the_string_beside_it_stay_apart(capsys, workspace):
    assert opened(capsys, workspace, TENANT, "7") == ids_of(TENANT, 7)
    assert opened(capsys, workspace, TENANT, '"7"') == ids_of(TENANT, "7")
    assert opened(capsys, workspace, TENANT, "true") == ids_of(TENANT, True)
    assert opened(capsys, workspace, TENANT, "null") == ids_of(TENANT, None)
    assert opened(capsys, workspace, TENANT, "1.5") == ids_of(TENANT, 1.5)
    assert opened(capsys, workspace, TENANT, '""') == ids_of(TENANT, "")
    # Tenants the same way: 42 the number, "42" the string, false the boolean.
    assert opened(capsys, workspace, "42", "t") == ids_of(42, "t")
    assert opened(capsys, workspace, '"42"', "t") == ids_of("42", "t")
    assert opened(capsys, workspace, "false", "t") == ids_of(False, "t")
    assert opened(capsys, workspace, '"false"', "t") == ids_of("false", "t")


def test_a_text_that_may_mean_two_keys_opens_the_one_that_exists(capsys, tmp_path, clock):
    """``8`` names the number 8; with only the string "8" stored, that is what it opens."""
    rows = [
        {"id": f"i{n}", "tenantId": "t", "threadId": "8", "turnIndex": n, "messages": []}
        for n in range(2)
    ]
    path = build_workspace(tmp_path / "eight.sqlite", rows, now=int(clock.now()))
    assert opened(capsys, path, "t", "8") == {"i0", "i1"}
    code, out, _ = run(capsys, "threads", '"t"', "--workspace", str(path), "--json")
    assert code == 0 and [t["thread"] for t in json.loads(out)] == ["8"]


def test_a_name_that_opens_nothing_is_one_line(capsys, workspace):
    for names in ((TENANT, "{not json"), (TENANT, "8"), (TENANT, '{"role": "user"}')):
        said = opened(capsys, workspace, *names)
        assert isinstance(said, str) and said.startswith("cosmem: no thread ")
        assert said.count("\n") == 1


def test_the_other_commands_read_names_the_same_way(capsys, workspace):
    name = '{"role": "system", "content": "x"}'
    code, out, _ = run(capsys, "ttl", TENANT, name, "--workspace", str(workspace), "--json")
    assert code == 0
    rows = json.loads(out)
    assert {r["thread"] for r in rows} == {name}
    assert next(r["count"] for r in rows if r["class"] == "all") == ITEMS
    code, out, _ = run(
        capsys, "search", TENANT, name, "hello 1", "--workspace", str(workspace), "--json"
    )
    assert code == 0 and [t["id"] for t in json.loads(out)] == [item_id([TENANT, name], 1)]


def test_a_turn_numbered_by_text_keeps_its_quotes_in_tables_and_csv(capsys, demo_path, manifest):
    """The demo's malformed thread holds turnIndex "7" (a string): tables and CSV write
    the order as the key rule does, so it never reads as turn 7; JSON keeps the value."""
    m = manifest.malformed
    base = ["turns", m["tenant"], m["thread"], "--workspace", str(demo_path)]
    code, out, _ = run(capsys, *base, "--csv")
    assert code == 0
    orders = [row["order"] for row in csv.DictReader(io.StringIO(out))]
    assert orders == ["", "0", "3", "4", "5", "6", "8", "9", "10", "11", "12", "13", '"7"']
    code, out, _ = run(capsys, *base)
    assert code == 0 and out.splitlines()[-1].startswith('"7" ')
    code, out, _ = run(capsys, *base, "--json")
    assert [t["order"] for t in json.loads(out)][-1] == "7"
