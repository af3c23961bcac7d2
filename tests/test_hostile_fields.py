"""Every field of an item is data: none may reach a terminal as a control sequence.

A hostile value goes into *every* field of a tenant key, Thread and Turn (the builder
below fails on a field type it does not know, so a new field must be covered),
then through every surface that renders them: the row lists, the detail pane, and
the headless table, CSV and JSON.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import unicodedata
from typing import Any

import pytest

from cosmem_tui.core import records
from cosmem_tui.core.browse import TurnDetail
from cosmem_tui.core.directory import CountState
from cosmem_tui.core.output import Output
from cosmem_tui.model import (
    FrozenClock,
    Item,
    Key,
    KeyCounts,
    Message,
    Thread,
    ThreadRef,
    Turn,
    resolve_ttl,
)
from cosmem_tui.model.entities import MessageColumns
from cosmem_tui.ui.views.browse.detail import render_detail
from cosmem_tui.ui.views.browse.rows import KeyRows, ThreadRows, turn_cells
from tests.helpers import build_workspace
from tests.helpers import run_cli as run

# ANSI colour and OSC title sequences, C1 controls (CSI, NEL), bidi override and
# isolate, zero-width space, line separator, NUL, CR/LF/TAB, a lone surrogate, markup.
HOSTILE = (
    "\x1b[31mred\x1b[0m \x1b]0;title\x07 \x9b31m \x85 \u202egpj.exe \u2066iso\u2069 "
    "zero\u200bwidth \u2028 nul\x00 \r\n\t \ud800 [bold]markup[/bold]"
)
NOW = 1_795_996_800
DANGEROUS = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def dangerous(text: str, *, newlines: bool = False) -> list[str]:
    """The characters of ``text`` that could act on a terminal (newlines where allowed).

    With ``newlines``, CSV's own CRLF row ends are allowed too (a CR from the data is not).
    """
    if newlines:
        text = text.replace("\r\n", "\n")
    return [
        ch for ch in text if unicodedata.category(ch) in DANGEROUS and not (newlines and ch == "\n")
    ]


def hostile(cls: type, **given: Any) -> Any:
    """An instance of ``cls`` with the hostile value in every field that can hold text."""
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        kind = str(field.type)
        if field.name in given:
            values[field.name] = given[field.name]
        elif kind in ("str", "str | None", "JsonValue"):
            values[field.name] = HOSTILE
        elif kind == "tuple[str, ...]":
            values[field.name] = (HOSTILE, "second " + HOSTILE)
        elif kind == "ThreadRef":
            values[field.name] = hostile(ThreadRef)
        elif kind in ("Key", "Key | None"):
            values[field.name] = Key.of(HOSTILE)
        elif kind in ("tuple[Message, ...]", "Sequence[Message]"):
            values[field.name] = (hostile(Message), hostile(Message, role="user"))
        elif kind == "ItemTtl":
            values[field.name] = resolve_ttl(HOSTILE, NOW - 60, -1)  # an invalid string ttl
        elif kind in ("int", "int | None"):
            values[field.name] = 3
        elif kind in ("float", "float | None"):
            values[field.name] = float(NOW - 60)
        else:
            pytest.fail(f"{cls.__name__}.{field.name}: {kind} — teach this test the new field")
    return cls(**values)


TENANTS = [Key.of(HOSTILE), Key.of("second " + HOSTILE)]


class Counted:
    """What the directory knows of each key: the first has the most items (the ▲ marker)."""

    def __init__(self) -> None:
        self.states = {
            TENANTS[0]: CountState(KeyCounts(items=9, last_activity=NOW - 60, threads=3)),
            TENANTS[1]: CountState(KeyCounts(items=1, last_activity=NOW - 60, threads=1)),
        }

    def count_state(self, key: Key) -> CountState | None:
        return self.states.get(key)


COLUMNS = MessageColumns(
    [HOSTILE, "user"],
    [HOSTILE, "second " + HOSTILE],
    {},
    distinct_roles=(HOSTILE, "user"),
    text_bytes=len((HOSTILE * 2 + "second ").encode("utf-8", "surrogatepass")),
)
THREADS = [hostile(Thread), hostile(Thread, pseudo=None)]  # a sentinel and a conversation
TURNS = [
    hostile(Turn),
    hostile(Turn, kind="turn"),
    hostile(Turn, messages=()),  # the preview shows the first problem instead
    hostile(Turn, messages=COLUMNS),  # an item's array of messages, made on demand
    hostile(Turn, ttl=resolve_ttl(HOSTILE, NOW - 60, None)),  # container TTL off
    hostile(Turn, ttl=resolve_ttl(HOSTILE, NOW - 60, 3600)),  # the default applies
]


def test_every_row_cell_is_inert():
    clock = FrozenClock(NOW)
    cells: list[str] = []
    tenants = KeyRows(TENANTS, Counted(), clock, tenants=True)  # type: ignore[arg-type]
    threads = ThreadRows(THREADS, clock)
    cells += [text for i in range(len(tenants)) for text, _ in tenants.row(i)]
    cells += [text for i in range(len(threads)) for text, _ in threads.row(i)]
    for turn in TURNS:
        cells += [text for text, _ in turn_cells(turn, NOW)]
        cells += [text for text, _ in turn_cells(turn, NOW, position=7)]
    assert any("\\x1b[31mred" in c for c in cells)  # shown, as a visible escape
    assert {c: dangerous(c) for c in cells if dangerous(c)} == {}


def test_the_detail_pane_is_inert():
    for turn in TURNS:
        item = Item(HOSTILE, (HOSTILE, HOSTILE), NOW - 60, HOSTILE, {HOSTILE: HOSTILE})
        shown = [
            render_detail(turn, TurnDetail(hostile(ThreadRef), turn, item), NOW).plain,
            render_detail(turn, None, NOW, raw_status=HOSTILE).plain,
        ]
        for text in shown:
            assert "\\x1b[31mred" in text
            assert dangerous(text, newlines=True) == []
            # Every line is one the pane wrote: no item value brought its own line break.
            assert all(not line.startswith(("red", "\x1b")) for line in text.splitlines())


def record_lists() -> list[tuple[tuple[str, ...], list[dict[str, Any]]]]:
    return [
        (records.TENANT_FIELDS, [records.tenant_record(t, None) for t in TENANTS]),
        (records.THREAD_FIELDS, [records.thread_record(t) for t in THREADS]),
        (records.TURN_FIELDS, [records.turn_record(t, NOW) for t in TURNS]),
    ]


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_every_headless_format_is_inert(fmt):
    for fields, rows in record_lists():
        stream = io.StringIO()
        titles = {fields[0]: HOSTILE}  # a schema names the first column (tenant_label)
        with Output(fmt, fields, fields, stream, titles=titles) as output:
            for row in rows:
                output.write(row)
        out = stream.getvalue()
        assert "\\x1b[31mred" in out or "\\u001b[31mred" in out
        assert dangerous(out, newlines=True) == [], fields
        if fmt == "csv":
            for line in csv.reader(io.StringIO(out)):
                assert len(line) == len(fields)  # no value broke a row in two
        if fmt == "json":  # escaped for the terminal, yet decodes to the exact data
            assert json.loads(out) == [json.loads(json.dumps(row)) for row in rows]


def item(tenant: str, thread: str, value: str) -> dict[str, Any]:
    """A lab-schema item with ``value`` in its id, order, kind, ttl, role, text and metadata."""
    return {
        "id": value,
        "tenantId": tenant,
        "threadId": thread,
        "turnIndex": value,
        "type": value,
        "ttl": value,
        "note": value,
        "messages": [
            {"role": value, "content": value, "timestamp": "2026-11-29T10:00:00Z"},
            {"role": "agent", "content": "ok", "timestamp": "2026-11-29T10:00:05Z"},
        ],
    }


@pytest.mark.usefixtures("frozen_system_time")
def test_the_real_cli_prints_no_hostile_field_raw(capsys, tmp_path, clock):
    # The surrogate cannot be stored as UTF-8; everything else goes into a real workspace.
    value = HOSTILE.replace("\ud800", "")
    tenant, thread = "t" + value, "th" + value
    path = build_workspace(
        tmp_path / "h.sqlite",
        [item(tenant, thread, value)],
        now=int(clock.now()),
    )
    runs = [
        ("tenants",),
        ("threads", tenant),
        ("turns", tenant, thread),
        ("turns", tenant, thread, "--last", "1"),
    ]
    for args in runs:
        for fmt in ("--json", "--csv", None):
            code, out, err = run(capsys, *args, "--workspace", str(path), *([fmt] if fmt else []))
            assert code == 0, err
            assert "\\x1b[31mred" in out or "\\u001b[31mred" in out, (args, fmt)
            assert dangerous(out, newlines=True) == [], (args, fmt)
            assert dangerous(err, newlines=True) == [], (args, fmt)
