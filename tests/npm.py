"""The npm packages the test suite runs (the Cosmos peer, Microsoft's KQL parser).

Each lives in its own folder under ``tests/`` with a committed ``package.json`` and
``package-lock.json``; ``npm_ci`` installs it from the lock file the first time a test
needs it. Without ``node``/``npm`` the test fails with a message saying what to
install: these tests are never skipped.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

INSTALL_TIMEOUT_S = 300.0


def require_tool(tool: str, purpose: str) -> str:
    """``tool`` on PATH, or the test fails; ``purpose`` names the tests ('the … tests')."""
    found = shutil.which(tool)
    if found is None:
        pytest.fail(
            f"{purpose} need {tool!r} (Node.js >= 20) on PATH; install Node.js "
            "(e.g. apt-get install nodejs npm). These tests are never skipped.",
            pytrace=False,
        )
    return found


def npm_ci(folder: Path, marker: Path, purpose: str) -> None:
    """``npm ci`` in ``folder`` from its committed lock file, once: when ``marker`` (a file
    the package installs) is missing."""
    if marker.exists():
        return
    npm = require_tool("npm", purpose)
    result = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    if result.returncode != 0 or not marker.exists():
        pytest.fail(
            f"npm ci in {folder} failed (exit {result.returncode}): "
            f"{(result.stderr or result.stdout).strip()[-2000:]}",
            pytrace=False,
        )
