"""Every headless command in every format over the hostile workspace: inert, and shown.

stdout and stderr may carry no character from data that could act on a terminal
(only the writers' own newlines), the markup is printed as its literal text, JSON
decodes, and a CSV row stays one row.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from cosmem_tui.model import Key
from tests.helpers import run_cli
from tests.hostile.corpus import BY_NAME, STORABLE, dangerous, leaks
from tests.hostile.workspace import EVERYTHING, THREAD

FORMATS = (None, "--json", "--csv")


def commands() -> list[tuple[str, ...]]:
    """Each command, with hostile names as its arguments where it takes names."""
    runs: list[tuple[str, ...]] = [("tenants",), ("ttl",), ("advise",), ("throttle",), ("hot",)]
    runs += [("hot", "--level", "key"), ("turns", EVERYTHING, THREAD, "--last", "3")]
    runs += [("doctor",), ("doctor", "--checks")]
    runs += [("threads", EVERYTHING), ("turns", EVERYTHING, THREAD), ("ttl", EVERYTHING)]
    runs += [("threads", "42"), ("turns", "42", "7"), ("ttl", "true", "-0.5")]
    for h in STORABLE:
        tenant = Key.of(h.value).text  # the names as a user types them
        runs += [("threads", tenant), ("turns", tenant, Key.of(f"thread {h.value}").text)]
        runs += [("ttl", tenant), ("hot", tenant)]
    return runs


def check(out: str, err: str, fmt: str | None, where: object) -> None:
    assert dangerous(out, newlines=True) == [], where
    assert dangerous(err, newlines=True) == [], where
    assert leaks(out.encode()) == [] and leaks(err.encode()) == [], where
    if fmt == "--json":
        json.loads(out)
    if fmt == "--csv" and out:
        csv.field_size_limit(1 << 24)  # the 1 MB message is one field
        widths = {len(row) for row in csv.reader(io.StringIO(out))}
        assert len(widths) == 1, where  # no value broke a row in two


@pytest.mark.usefixtures("frozen_system_time")
def test_every_command_in_every_format_is_inert(
    hostile_workspace: Path, capsys: pytest.CaptureFixture[str]
):
    printed = []
    for args in commands():
        for fmt in FORMATS:
            code, out, err = run_cli(
                capsys, *args, "--workspace", str(hostile_workspace), *([fmt] if fmt else [])
            )
            assert code == 0, (args, fmt, err)
            check(out, err, fmt, (args, fmt))
            printed.append(out)
    everything = "\n".join(printed)
    # Shown as data: the literal markup, each escape as text, in table and JSON alike.
    assert BY_NAME["markup"].value in everything
    for h in STORABLE:
        assert h.shown in everything or h.shown.replace("\\x", "\\u00") in everything, h.name


def test_the_import_report_is_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    from tests.hostile.workspace import REJECTED, import_hostile

    _, code = import_hostile(tmp_path)
    captured = capsys.readouterr()
    assert code == 1
    check(captured.out, captured.err, None, "import")
    problems = [line for line in captured.err.splitlines() if "hostile.jsonl:" in line]
    assert len(problems) == REJECTED
    assert "not UTF-8 text (byte 0xff" in problems[0]
    assert "nested too deeply" in problems[1]
    assert "lone surrogate" in problems[2]
