"""``-v`` says which schema reads the workspace and why, whichever way it was chosen."""

from __future__ import annotations

from tests.helpers import run_cli


def test_verbose_says_the_schema_was_recorded_in_the_workspace(capsys, demo_path):
    code, _, err = run_cli(capsys, "-v", "tenants", "--workspace", str(demo_path), "--json")
    assert code == 0
    assert err.splitlines()[0] == "cosmem: schema lab (recorded in the workspace)"


def test_verbose_says_the_schema_was_named(capsys, demo_path):
    args = ("-v", "tenants", "--workspace", str(demo_path), "--schema", "lab", "--json")
    code, _, err = run_cli(capsys, *args)
    assert code == 0
    assert err.splitlines()[0] == "cosmem: schema lab (named with --schema)"
