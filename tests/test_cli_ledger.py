"""``--ledger FILE`` on the headless commands: one JSON line per request of the session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cosmem_tui import compose
from cosmem_tui.core.ledger_file import FIELDS
from cosmem_tui.core.session import Session
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> list[Session]:
    """Every session the CLI opens, to compare the file with the session's own ledger."""
    opened: list[Session] = []
    real = compose.open_session  # the CLI imports it when a session opens

    async def recording(*args, **kwargs) -> Session:
        session = await real(*args, **kwargs)
        opened.append(session)
        return session

    monkeypatch.setattr(compose, "open_session", recording)
    return opened


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


def test_every_request_of_a_headless_run_is_one_line(capsys, demo_path, tmp_path, sessions):
    ledger = tmp_path / "ledger.jsonl"
    code, out, err = run(
        capsys, "tenants", "--workspace", str(demo_path), "--json", "--ledger", str(ledger)
    )
    assert code == 0 and err == "" and len(json.loads(out)) == 48
    (session,) = sessions
    written = lines(ledger)
    assert len(written) == len(session.ledger.records()) == session.ledger.totals().requests
    assert len(written) > 48  # names, then counts per tenant
    for line, record in zip(written, session.ledger.records(), strict=True):
        assert tuple(line) == FIELDS
        assert line["operation"] == record.operation and line["call"] == record.call
        assert line["scope"] == record.scope.value and line["outcome"] == "200"
        assert line["kind"] == "local" and line["simulated"] is True
        assert line["at"] is not None and line["at"].endswith("Z")
    causes = {line["cause"] for line in written}
    assert causes == {"cosmem tenants: list tenants", "cosmem tenants: count tenants"}
    assert sum(line["request_units"] for line in written) == pytest.approx(
        session.ledger.totals().request_units
    )


def test_the_option_goes_before_or_after_the_command_and_appends(
    capsys, demo_path, manifest, tmp_path, sessions
):
    ledger = tmp_path / "ledger.jsonl"
    code, _, _ = run(capsys, "--ledger", str(ledger), "--workspace", str(demo_path), "tenants",
                     "--no-counts")  # fmt: skip
    assert code == 0
    first = len(lines(ledger))
    m = manifest.malformed
    code, _, err = run(capsys, "turns", m["tenant"], m["thread"], "--workspace", str(demo_path),
                       "--ledger", str(ledger))  # fmt: skip
    assert code == 0, err
    written = lines(ledger)
    assert first == len(sessions[0].ledger.records())
    assert len(written) == first + len(sessions[1].ledger.records())
    assert {line["cause"] for line in written[first:]} == {"cosmem turns"}


def test_a_ledger_that_cannot_be_written_stops_before_any_request(capsys, demo_path, sessions):
    code, out, err = run(capsys, "tenants", "--workspace", str(demo_path),
                         "--ledger", "/nonexistent/dir/ledger.jsonl")  # fmt: skip
    assert code == 1 and out == "" and sessions == []
    assert err.startswith("cosmem: --ledger /nonexistent/dir/ledger.jsonl: ")
    assert len(err.splitlines()) == 1


def test_the_tui_checks_the_ledger_path_before_it_starts(capsys, demo_path, monkeypatch):
    import cosmem_tui.ui.app as app

    monkeypatch.setattr(app, "run_app", lambda *a, **k: pytest.fail("the app started"))
    code, _, err = run(capsys, "--workspace", str(demo_path), "--ledger", "/nonexistent/x")
    assert code == 1 and "--ledger /nonexistent/x" in err


def test_the_tui_gets_the_ledger_path(capsys, demo_path, tmp_path, monkeypatch):
    import cosmem_tui.ui.app as app

    given = []
    monkeypatch.setattr(app, "run_app", lambda invocation: given.append(invocation) or 0)
    ledger = tmp_path / "ledger.jsonl"
    code, _, _ = run(capsys, "--workspace", str(demo_path), "--ledger", str(ledger))
    (invocation,) = given
    assert code == 0 and invocation.ledger == ledger and invocation.theme is None


def test_demo_refuses_a_ledger(capsys, tmp_path):
    code, _, err = run(capsys, "demo", "--workspace", str(tmp_path / "d.sqlite"),
                       "--ledger", str(tmp_path / "l.jsonl"))  # fmt: skip
    assert code == 1 and "--ledger" in err and not (tmp_path / "d.sqlite").exists()


def test_a_fifo_as_the_ledger_is_one_line_not_a_hang(demo_path, tmp_path):
    """The real entry point, bounded: before, it waited for a reader forever."""
    fifo = tmp_path / "ledger.fifo"
    os.mkfifo(fifo)
    for args in (["tenants", "--no-counts"], []):  # a command, and the console
        where = ["--workspace", str(demo_path), "--ledger", str(fifo)]
        done = subprocess.run(
            [sys.executable, "-m", "cosmem_tui", *args, *where],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr == (
            f"cosmem: --ledger {fifo}: a named pipe (FIFO), not a file: "
            "name a file to append the ledger to\n"
        )
