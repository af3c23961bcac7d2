"""``cosmem ttl``: counts by TTL class and the forecast, in every format, as the view has them."""

from __future__ import annotations

import csv
import io
import json

import pytest

from cosmem_tui.compose import open_local_session
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model.lifecycle import DAY, HOUR
from tests.helpers import build_workspace, exchange
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")

WITHIN = ["within_1h", "within_24h", "within_7d", "within_30d"]


@pytest.fixture
def workspace(tmp_path, clock):
    items = [
        exchange("acme", "t1", 0, ttl=600),
        exchange("acme", "t1", 1, ttl=2 * HOUR),
        exchange("acme", "t1", 2, ttl=10 * DAY),
        exchange("acme", "t1", 3, ttl=-1, type="summary"),
        exchange("acme", "t1", 4),
        exchange("acme", "t2", 0, ttl="3600"),
        exchange(42, "n1", 0, ttl=3 * DAY),
    ]
    return build_workspace(tmp_path / "ttl.sqlite", items, now=int(clock.now()), default_ttl=DAY)


def ttl(capsys, workspace, *args: str) -> tuple[int, str, str]:
    return run(capsys, "ttl", *args, "--workspace", str(workspace))


def test_json_rows_per_class_then_all(capsys, workspace):
    code, out, err = ttl(capsys, workspace, "acme", "--json")
    assert code == 0
    rows = {r["class"]: r for r in json.loads(out)}
    assert list(rows) == ["short-term", "long-term", "default", "ignored", "invalid", "all"]
    assert rows["short-term"]["count"] == 3
    assert [rows["short-term"][w] for w in WITHIN] == [1, 2, 2, 3]
    # Items without a valid ttl of their own live the container default (a day).
    assert [rows["default"][w] for w in WITHIN] == [0, 1, 1, 1]
    assert [rows["invalid"][w] for w in WITHIN] == [0, 1, 1, 1]
    assert rows["all"]["count"] == 6 and rows["all"]["expiring"] == 5
    assert [rows["all"][w] for w in WITHIN] == [1, 4, 4, 5]
    assert {r["scope"] for r in rows.values()} == {"tenant"}
    assert rows["all"]["tenant"] == "acme" and rows["all"]["thread"] is None
    assert "tenant acme: TTL on, default 86,400 s" in err and "requests" in err


def test_the_same_numbers_as_the_view(capsys, workspace, clock):
    session = open_local_session(SessionOptions(workspace=workspace), clock)
    service = session.lifecycle  # the one the view reads through

    async def view_numbers() -> dict[str, int]:
        report = await service.report(await service.scope_named(["acme", "t1"]))
        assert report.summary is not None
        return {c.value: n for c, n in report.summary.classes}

    import asyncio

    expected = asyncio.run(view_numbers())
    asyncio.run(session.close())
    code, out, _ = ttl(capsys, workspace, "acme", "t1", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and {r["class"]: int(r["count"]) for r in rows[:-1]} == expected
    assert rows[0]["scope"] == "thread" and rows[0]["thread"] == "t1"


def test_the_table_and_the_whole_container(capsys, workspace):
    code, out, err = ttl(capsys, workspace)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["CLASS", "COUNT", "EXPIRING", *(w.upper() for w in WITHIN)]
    assert lines[-1].split()[:2] == ["all", "7"]
    assert "the whole container (a fan-out over every physical partition)" in err


def test_keys_keep_their_type(capsys, workspace):
    code, out, _ = ttl(capsys, workspace, "42", "--json")
    assert code == 0 and json.loads(out)[0]["tenant"] == 42
    code, out, _ = ttl(capsys, workspace, "42", "--csv")
    assert next(csv.DictReader(io.StringIO(out)))["tenant"] == "42"


def test_a_name_that_finds_nothing_is_an_error(capsys, workspace):
    code, out, err = ttl(capsys, workspace, "nobody")
    assert code == 1 and out == "" and "no visible items in tenant nobody" in err
    code, out, err = ttl(capsys, workspace, "acme", "nothread")
    assert code == 1 and "no visible items in tenant acme / thread nothread" in err
