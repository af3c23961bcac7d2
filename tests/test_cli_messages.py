"""What the command line says: each message names what is accepted, the usage lines
read as the commands are typed, the ``cosmem:`` prefix is written once, numbers are
worth reading, and ``config`` shows defaults as values."""

from __future__ import annotations

import json
import re

import pytest

from cosmem_tui.cli import build_parser
from cosmem_tui.config.files import DEFAULT_REFRESH_S
from cosmem_tui.core.throughput import measured
from cosmem_tui.sources.request_budget import DEFAULT_RU_BUDGET
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")


def usage_error(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as exited:
        run(capsys, *args)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    return err.strip().splitlines()[-1]


def test_a_bad_duration_says_what_is_accepted(capsys):
    said = usage_error(capsys, "throttle", "--window", "2h")
    assert said == (
        "cosmem throttle: error: argument --window: unknown window '2h': choose one of 15m, 1h, 24h"
    )
    said = usage_error(capsys, "hot", "--window", "1d")
    assert said.endswith("unknown window '1d': choose one of 15m, 1h, 24h")
    said = usage_error(capsys, "tenants", "--timeout", "2m")
    assert said.endswith(
        "argument --timeout: must be a positive number of seconds (e.g. 30 or 2.5), not '2m'"
    )
    said = usage_error(capsys, "tenants", "--ru-budget", "lots")
    assert said.endswith("argument --ru-budget: must be a positive number of RU, not 'lots'")


USAGES = {
    "turns": "[TENANT] THREAD",
    "search": "[TENANT] THREAD TEXT",
    "ttl": "[TENANT [THREAD]]",
    "pin": "[TENANT] THREAD ID",
    "set-ttl": "[TENANT] THREAD ID SECONDS",
    "erase-thread": "[TENANT] THREAD",
}


@pytest.mark.parametrize("command", list(USAGES))
def test_a_usage_line_shows_the_names_once(command):
    commands = next(a for a in build_parser()._actions if a.dest == "command")
    usage = " ".join(commands.choices[command].format_usage().split())
    assert usage.endswith(f" {USAGES[command]}")
    assert "..." not in usage and "[[" not in usage.replace("[[TENANT", "")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("pin", "acme", "t1", "i1"),
            "cosmem: pin changes data: add --allow-writes (the console is read-only without it)",
        ),
        (
            ("erase-thread", "acme", "t1", "--allow-writes"),
            "cosmem: erase-thread: no terminal to confirm on; add --yes to write from a script",
        ),
        (
            ("demo", "--ledger", "x.jsonl"),
            "cosmem: demo makes no requests: --ledger applies to a session",
        ),
    ],
)
def test_the_prefix_is_written_once(capsys, demo_path, args, said):
    code, out, err = run(capsys, *args, "--workspace", str(demo_path))
    assert (code, out, err) == (1, "", said + "\n")


def test_throttle_numbers_are_rounded_to_what_is_worth_reading(capsys, demo_path):
    code, out, _ = run(capsys, "throttle", "--workspace", str(demo_path), "--json")
    assert code == 0
    values = [r["value"] for r in json.loads(out) if r["value"] is not None]
    assert values and all(isinstance(v, int | float) for v in values)  # still numbers
    assert all(round(v, 2) == v for v in values if abs(v) >= 1)
    counts = [r["value"] for r in json.loads(out) if r["metric"] == "TotalRequests.Count"]
    assert counts and all(isinstance(v, int) for v in counts if v is not None)
    code, out, _ = run(capsys, "throttle", "--workspace", str(demo_path))
    assert code == 0
    cells = [line.split()[-1] for line in out.splitlines()[1:]]
    assert cells and not [c for c in cells if re.fullmatch(r"-?\d+\.\d{3,}", c)]


def test_measured_keeps_what_a_person_can_act_on():
    assert measured(56650.65333691331) == 56650.65
    assert measured(9035.0) == 9035 and isinstance(measured(9035.0), int)
    assert measured(0.012345) == 0.0123 and measured(0.0) == 0
    assert measured(None) is None  # a minute without data is never 0


def test_config_show_prints_each_default_as_its_value(capsys):
    code, out, _ = run(capsys, "config", "show")
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines()}
    for setting, value in (
        ("ru_budget", f"{DEFAULT_RU_BUDGET:g}"),
        ("refresh_s", f"{DEFAULT_REFRESH_S:g}"),
        ("theme", "cosmem-dark"),
        ("auth", "aad"),
        ("key_env", "COSMOS_KEY"),
        ("allow_writes", "false"),
    ):
        assert lines[setting].split()[1:] == [value, "default"], setting
    assert "(none: a local workspace is read)" in lines["endpoint"]
    assert lines["workspace"].split()[1].endswith("demo.sqlite")
    assert not [line for line in out.splitlines() if line.split()[1] == "-"]  # never a bare -
    code, out, _ = run(capsys, "config", "show", "--json")
    rows = {r["setting"]: (r["value"], r["source"]) for r in json.loads(out)}
    assert rows["ru_budget"] == ("400", "default") and rows["endpoint"] == ("", "default")


def test_the_defaults_shown_are_the_ones_the_console_applies():
    from cosmem_tui.ui.refresh import DEFAULT_INTERVAL_S
    from cosmem_tui.ui.themes import DEFAULT_THEME

    assert DEFAULT_INTERVAL_S == DEFAULT_REFRESH_S and DEFAULT_THEME == "cosmem-dark"


def test_config_validate_without_a_file_is_valid(capsys, isolated_user_dirs):
    code, out, err = run(capsys, "config", "validate")
    path = isolated_user_dirs / "config" / "cosmem" / "config.toml"
    assert (code, err) == (0, "")
    assert (
        out == f"{path}: ok: no config file, the defaults apply (cosmem config init writes one)\n"
    )
