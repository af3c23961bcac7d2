"""An item's own ttl is shown as stored JSON, and an invalid one says why it is ignored.

The string "3600" used to print as ``item ttl 3600 … never expires``: the quotes
were lost, so an ignored value read like a valid one. Every surface that shows the
raw ttl is checked here over the same table of values.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from cosmem_tui.model import MISSING, Item
from cosmem_tui.schemas import get_schema
from cosmem_tui.schemas.mapping import turn_from_item
from cosmem_tui.ui.views.browse.detail import render_detail
from cosmem_tui.ui.views.browse.rows import turn_cells
from tests.helpers import build_workspace
from tests.helpers import run_cli as run

NOW = 1_795_996_800
WRITTEN = NOW - 600

# (the item's ttl, how it is shown, why it is ignored)
INVALID: list[tuple[Any, str, str]] = [
    ("3600", '"3600"', "a string, not an integer"),
    ("-1", '"-1"', "a string, not an integer"),  # reads like "never" without its quotes
    (None, "null", "not supported"),
    (0, "0", "not valid (use -1 for never, or a positive number of seconds)"),
    (1.5, "1.5", "not an integer"),
    (3600.0, "3600.0", "a decimal, not an integer"),
    (True, "true", "a boolean, not an integer"),
    (-5, "-5", "negative (only -1, for never, is valid)"),
    (2_147_483_648, "2147483648", "above the maximum 2147483647"),
    (10**20, "100000000000000000000", "above the maximum 2147483647"),
    ([3600], "[3600]", "an array, not an integer"),
    ({"seconds": 3600}, '{"seconds": 3600}', "an object, not an integer"),
]
VALID: list[tuple[Any, str]] = [(3600, "3600"), (-1, "-1")]


def body(raw: Any, index: int = 1) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": f"turn-{index}",
        "tenantId": "acme",
        "threadId": "t1",
        "turnIndex": index,
        "messages": [{"role": "user", "content": f"case {index}"}],
    }
    if raw is not MISSING:
        item["ttl"] = raw
    return item


def detail_text(raw: Any, default: int | None) -> tuple[str, str]:
    """The detail pane and the EXPIRES cell of an item with ``raw`` as its ttl."""
    doc = {**body(raw), "_ts": WRITTEN}
    item = Item(doc["id"], ("acme", "t1"), WRITTEN, '"etag"', doc)
    turn = turn_from_item(get_schema("lab"), item, default)
    return render_detail(turn, None, NOW).plain, turn_cells(turn, NOW)[-1][0]


@pytest.mark.parametrize(("raw", "shown", "reason"), INVALID)
@pytest.mark.parametrize("default", [-1, 86_400])
def test_the_detail_shows_an_invalid_ttl_as_json_and_why(raw, shown, reason, default):
    text, expires = detail_text(raw, default)
    lifecycle = text.split("── transcript")[0]
    assert f"⚠ item ttl {shown} is {reason}: ignored" in lifecycle
    assert f"item ttl {shown} ignored; container default {default}" in lifecycle
    assert f"ttl: {shown} is {reason}: ignored, the container default applies" in lifecycle
    assert expires.startswith("⚠ ")  # the list says the lifetime is not the item's own


@pytest.mark.parametrize(("raw", "shown", "reason"), INVALID)
def test_with_container_ttl_off_the_invalid_ttl_is_still_named_as_stored(raw, shown, reason):
    text, expires = detail_text(raw, None)
    assert f"TTL is off on the container (item ttl {shown} is ignored)" in text
    assert f"⚠ item ttl {shown} is {reason}: ignored" in text
    assert expires == "ttl off"  # nothing expires: the item's ttl changes nothing


@pytest.mark.parametrize(("raw", "shown"), VALID)
def test_a_valid_ttl_is_not_flagged(raw, shown):
    text, expires = detail_text(raw, 86_400)
    assert f"(item ttl {shown})" in text
    assert "⚠" not in text and "⚠" not in expires
    text, _ = detail_text(MISSING, 86_400)
    assert "no item ttl; container default 86400 applies" in text and "⚠" not in text


@pytest.fixture
def workspace(tmp_path, clock):
    cases = [*(raw for raw, _, _ in INVALID), *(raw for raw, _ in VALID), MISSING]
    items = [body(raw, index) for index, raw in enumerate(cases, 1)]
    return build_workspace(tmp_path / "ttl.sqlite", items, now=int(clock.now()))


def turns(capsys, workspace, *fmt: str) -> str:
    code, out, err = run(capsys, "turns", "acme", "t1", "--workspace", str(workspace), *fmt)
    assert code == 0, err
    return out


@pytest.mark.usefixtures("frozen_system_time")
def test_the_cli_shows_the_stored_ttl_in_every_format(capsys, workspace):
    expected = [*INVALID, *((raw, shown, None) for raw, shown in VALID)]
    as_json = json.loads(turns(capsys, workspace, "--json"))
    as_csv = list(csv.DictReader(io.StringIO(turns(capsys, workspace, "--csv"))))
    table = turns(capsys, workspace)
    assert table.splitlines()[0].split() == [
        "ORDER", "TIMESTAMP", "KIND", "ROLES", "TEXT", "TTL", "EXPIRES_IN"
    ]  # fmt: skip
    assert len(as_json) == len(as_csv) == len(expected) + 1
    for (raw, shown, reason), record, row in zip(expected, as_json, as_csv, strict=False):
        # JSON keeps the exact value: "3600" is still a string, 1.5 a number, true a boolean.
        assert record["ttl"] == raw and type(record["ttl"]) is type(raw)
        assert row["ttl"] == shown  # CSV: the value written as JSON, quotes and all
        if reason is None:
            assert record["problems"] == [] and json.loads(row["problems"]) == []
            assert f"{shown} ⚠" not in table
            continue
        problem = f"ttl: {shown} is {reason}: ignored, the container default applies"
        assert record["problems"] == [problem] and json.loads(row["problems"]) == [problem]
        assert record["ttl_state"] == "never"  # the container default -1 applies
        assert f"{shown} ⚠ {reason}" in table
    # An item without ttl: null in JSON (as documented), an empty CSV field, "—" in the table.
    assert as_json[-1]["ttl"] is None and as_csv[-1]["ttl"] == ""
