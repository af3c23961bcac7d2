"""A plain wheel carries queries/ and themes/ and runs with no checkout around it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import cosmem_tui

REPO = Path(cosmem_tui.__file__).resolve().parent.parent


def test_the_wheel_runs_without_the_checkout(tmp_path: Path, demo_path: Path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = (tmp_path / "dist").glob("cosmem_tui-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for shipped in (
        "cosmem_tui/queries/local/list_keys_tenants.sql",
        "cosmem_tui/queries/kql/key_usage.kql",
        "cosmem_tui/queries/kql/azurediagnostics/key_usage.kql",
        "cosmem_tui/themes/cosmem-dark.toml",
        "cosmem_tui/schemas/builtin/lab.toml",
        "cosmem_tui/core/demo/words.toml",
    ):
        assert shipped in names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    probe = (
        "import json, cosmem_tui\n"
        "from cosmem_tui.sources.query_texts import queries_root\n"
        "from cosmem_tui.config.themes import themes_dir\n"
        "from cosmem_tui.core.demo.words import load_words\n"
        "assert len(load_words().tenants) == 48\n"
        "print(json.dumps([cosmem_tui.__file__, str(queries_root()), str(themes_dir())]))"
    )
    where = json.loads(
        subprocess.run(
            [sys.executable, "-c", probe],
            cwd=elsewhere,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    assert all(path.startswith(str(site)) for path in where), where
    result = subprocess.run(
        [sys.executable, "-m", "cosmem_tui", "tenants", "--workspace", str(demo_path), "--json"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)) == 48
