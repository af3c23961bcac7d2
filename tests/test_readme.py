"""The README's Quickstart is two commands, and CI runs the second one verbatim."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def quickstart_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.S)]


def test_quickstart_has_exactly_two_one_line_commands():
    commands = quickstart_commands()
    assert len(commands) == 2 and all("\n" not in c for c in commands)
    run, test = commands
    assert run.endswith("cosmem") and "pip install ." in run
    assert "pytest" in test and "[test]" in test


def test_ci_runs_the_readme_test_command():
    printed = subprocess.run(
        [str(REPO / ".ci" / "run"), "--print-command"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert printed == quickstart_commands()[1]
