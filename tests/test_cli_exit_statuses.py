"""Every headless command's exit status for a name that finds nothing and for a result
that is empty, in every format.

An unknown tenant or thread is one ``cosmem:`` line on stderr, exit 1 and nothing on
stdout (no header, no ``[]`` beside the error). An empty result is not an error: exit
0, and the output still says what it is — the table's header, CSV's header row, JSON's
``[]``.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from cosmem_tui.core import records
from cosmem_tui.schemas import get_schema
from tests.helpers import build_workspace, exchange
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")

FORMATS = ("table", "json", "csv")
WRITE = ("--allow-writes", "--yes")
TENANT_GONE = "cosmem: no tenant 'nosuch' with visible items in workspace w.sqlite"
THREAD_GONE = "cosmem: no thread 'nosuch' with visible items in tenant 'acme'"

# (command line, the one stderr line) for every command that takes a name.
UNKNOWN = [
    (["threads", "nosuch"], TENANT_GONE),
    (["turns", "nosuch", "t1"], TENANT_GONE),
    (["turns", "acme", "nosuch"], THREAD_GONE),
    (["turns", "acme", "nosuch", "--last", "2"], THREAD_GONE),
    (["search", "nosuch", "t1", "hello"], TENANT_GONE),
    (["search", "acme", "nosuch", "hello"], THREAD_GONE),
    (["ttl", "nosuch"], "cosmem: no visible items in tenant nosuch (workspace w.sqlite)"),
    (
        ["ttl", "acme", "nosuch"],
        "cosmem: no visible items in tenant acme / thread nosuch (workspace w.sqlite)",
    ),
    (["hot", "nosuch"], TENANT_GONE),
]
# The writes stop at their plan: the name is checked before any item is read.
UNKNOWN_WRITES = [
    (["pin", "nosuch", "t1", "t1-0", *WRITE], TENANT_GONE),
    (["pin", "acme", "nosuch", "t1-0", *WRITE], THREAD_GONE),
    (["set-ttl", "nosuch", "t1", "t1-0", "60", *WRITE], TENANT_GONE),
    (["set-ttl", "acme", "nosuch", "t1-0", "60", *WRITE], THREAD_GONE),
    (["erase-thread", "nosuch", "t1", *WRITE], TENANT_GONE),
    (["erase-thread", "acme", "nosuch", *WRITE], THREAD_GONE),
]


@pytest.fixture
def workspace(tmp_path: Path, clock) -> Path:
    items = [exchange("acme", "t1", i) for i in range(3)]
    return build_workspace(tmp_path / "w.sqlite", items, now=int(clock.now()))


@pytest.fixture
def empty(tmp_path: Path, clock) -> Path:
    return build_workspace(tmp_path / "empty.sqlite", [], now=int(clock.now()))


def format_flag(fmt: str) -> list[str]:
    return [] if fmt == "table" else [f"--{fmt}"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("line", "said"), UNKNOWN, ids=[" ".join(c[0]) for c in UNKNOWN])
def test_an_unknown_name_is_one_line_and_exit_1(capsys, workspace, line, said, fmt):
    code, out, err = run(capsys, *line, *format_flag(fmt), "--workspace", str(workspace))
    assert (code, out, err) == (1, "", said + "\n")


@pytest.mark.parametrize(
    ("line", "said"), UNKNOWN_WRITES, ids=[" ".join(c[0][:3]) for c in UNKNOWN_WRITES]
)
def test_a_write_to_an_unknown_name_is_refused_at_its_plan(capsys, workspace, line, said):
    code, out, err = run(capsys, *line, "--workspace", str(workspace))
    assert (code, out, err) == (1, "", said + "\n")


def empty_output(fmt: str, fields: tuple[str, ...], table: tuple[str, ...], out: str) -> None:
    """The output of no rows: JSON's [], CSV's header row, the table's header line."""
    if fmt == "json":
        assert json.loads(out) == []
    elif fmt == "csv":
        assert list(csv.reader(io.StringIO(out))) == [list(fields)]
    else:
        assert out.split() == [f.upper() for f in table]


# (command line, its JSON/CSV keys, its table columns) whose result is empty. On the
# workspace: a search that finds nothing. On a workspace without items: the listings.
EMPTY = [
    (
        ["search", "acme", "t1", "no such text"],
        records.TURN_FIELDS,
        records.TURN_TABLE_FIELDS,
        "workspace",
    ),
    (["tenants"], records.TENANT_FIELDS, records.TENANT_FIELDS, "empty"),
    (["tenants", "--no-counts"], records.TENANT_FIELDS, records.TENANT_FIELDS, "empty"),
    (["hot"], records.HOT_FIELDS, records.HOT_FIELDS, "empty"),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("line", "fields", "table", "where"), EMPTY, ids=[" ".join(c[0]) for c in EMPTY]
)
def test_an_empty_result_exits_0_and_still_says_what_it_is(
    capsys, workspace, empty, line, fields, table, where, fmt
):
    path = workspace if where == "workspace" else empty
    code, out, err = run(capsys, *line, *format_flag(fmt), "--workspace", str(path))
    assert code == 0, err
    empty_output(fmt, fields, table, out)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_threads_of_an_empty_workspace_without_tenants(capsys, tmp_path, clock, fmt):
    path = build_workspace(
        tmp_path / "e.sqlite", [], now=int(clock.now()), schema=get_schema("thread")
    )
    code, out, _ = run(capsys, "threads", *format_flag(fmt), "--workspace", str(path))
    assert code == 0
    fields = records.TOP_THREAD_FIELDS
    empty_output(fmt, fields, tuple(f for f in fields if f != "pseudo"), out)


async def test_hot_without_a_store_says_it_cannot_check_a_name(capsys):
    """Azure Monitor alone knows no tenant names: a tenant without requests in the window
    is an empty result (exit 0, ``[]``), said to be unchecked."""
    from cosmem_tui import cli
    from cosmem_tui.cli import telemetry
    from cosmem_tui.model.telemetry import LogName
    from tests.sources.monitor.azure_fake import AzureFake, Reply
    from tests.sources.monitor.test_logs import Workspace, result
    from tests.test_cli_telemetry import args, metrics_answer, session_over

    fake = AzureFake()
    fake.answer("metrics", metrics_answer)
    logs = Workspace()
    logs.special[LogName.KEY_USAGE] = lambda: Reply(200, result(LogName.KEY_USAGE, []))
    fake.answer("logs", logs.responder())
    session = await session_over(fake)
    try:
        assert not session.has_store
        out = io.StringIO()
        status = await telemetry.run_hot(session, args("hot", tenant="nosuch"), out)
    finally:
        await session.close()
    assert status == cli.EXIT_OK and json.loads(out.getvalue()) == []
    err = capsys.readouterr().err
    assert (
        "cosmem: no requests of tenant nosuch logged in the window; without a Cosmos "
        "container the name cannot be checked\n"
    ) in err


@pytest.mark.parametrize(("tenant", "status"), [("acme", 0), ("nosuch", 1)])
async def test_hot_tells_an_idle_tenant_from_an_unknown_one(
    capsys, workspace, clock, tenant, status
):
    """With a store, a tenant that sent nothing in the window is an empty result; one the
    store does not know is an error (the logs alone cannot tell them apart)."""
    from cosmem_tui import cli
    from cosmem_tui.cli import telemetry
    from cosmem_tui.compose import open_session
    from cosmem_tui.core.errors import UnknownTenant
    from cosmem_tui.core.hot_keys import HotKeysService
    from cosmem_tui.core.session import SessionOptions
    from cosmem_tui.core.telemetry_reader import TelemetryReader
    from cosmem_tui.core.throughput import Container
    from tests.core.scripted_telemetry import ScriptedTelemetry
    from tests.test_cli_telemetry import args

    session = await open_session(SessionOptions(workspace=workspace), clock)
    quiet = TelemetryReader(ScriptedTelemetry(), clock)  # no request logged at all
    session.hot_keys = HotKeysService(quiet, clock, Container())
    out = io.StringIO()
    try:
        if status:
            with pytest.raises(UnknownTenant, match="no tenant 'nosuch' with visible items"):
                await telemetry.run_hot(session, args("hot", tenant=tenant), out)
            assert out.getvalue() == ""
        else:
            assert await telemetry.run_hot(session, args("hot", tenant=tenant), out) == cli.EXIT_OK
            assert json.loads(out.getvalue()) == []
    finally:
        await session.close()
