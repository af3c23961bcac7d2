"""The start-up budget, held by counts that do not depend on the machine.

The modules loaded before the first frame are what start-up costs; a view that is not on
screen must not be among them. ``first_frame_modules.txt`` is the list the real entrance
(``cosmem`` with no arguments, the embedded demo) loads today: a module joining it fails
this test, and so does one leaving it (so the list stays true). After a change that
rightly moves the line, rewrite the list with

    python -m tests.perf.first_frame --write
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

LIST = Path(__file__).with_name("first_frame_modules.txt")
VIEWS = "cosmem_tui.ui.views."
LANDING = "browse"  # the view on the first screen
# What the registry reads of every view at start: its declarations, plain data.
DECLARATIONS = ("", ".spec", ".commands")
# Machinery that is never on the first screen.
NOT_AT_START = (
    "cosmem_tui.core.advice_rules",
    "cosmem_tui.core.doctor_checks",
    "cosmem_tui.core.erase",
    "cosmem_tui.core.importer",
    # What only an open session needs: it opens on Ready, after the first frame.
    "cosmem_tui.compose",
    "cosmem_tui.sources.local",
    "cosmem_tui.core.ledger_file",
    # The writes, the doctor, the dialogs: loaded when first used.
    "cosmem_tui.core.writes",
    "cosmem_tui.core.write_log",
    "cosmem_tui.core.audit",
    "cosmem_tui.model.writes",
    "cosmem_tui.model.doctor",
    "cosmem_tui.ui.write_flow",
    "cosmem_tui.ui.confirm_write",
    "cosmem_tui.ui.help",
    "cosmem_tui.ui.failure",
    "cosmem_tui.ui.confirm",
    "cosmem_tui.core.lifecycle",
    "cosmem_tui.core.hot_keys",
    "cosmem_tui.core.hot_keys_notes",
    "cosmem_tui.core.hot_keys_report",
    "cosmem_tui.core.throughput",
    # The recall probe's use case: loaded when a probe first runs (its vocabulary,
    # model.recall, is the schemas' retrieval section's too).
    "cosmem_tui.core.recall",
    # The models of what is not on the first screen (the tenant list asks for its load
    # after the session opens).
    "cosmem_tui.model.telemetry",
    "cosmem_tui.model.advice",
    "cosmem_tui.ui.telemetry.reports",
    # Export and copy (e, y): on their first use.
    "cosmem_tui.core.table_export",
    "cosmem_tui.ui.table_export",
    "cosmem_tui.ui.views.browse.export",
)
# Packages the first frame never needs: the Azure SDKs and their HTTP stack, settings
# validation (only with a config file), the KQL and SQL texts' renderers.
PACKAGES_NOT_AT_START = ("azure", "aiohttp", "pydantic", "pydantic_settings", "msal")


def run_to_first_frame(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The real entrance in a fresh interpreter, quitting at its first frame."""
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path),
        "COSMEM_CONFIG": str(tmp_path / "absent.toml"),
    }
    for name in [k for k in env if k.startswith(("COSMOS_", "COSMEM_")) and k != "COSMEM_CONFIG"]:
        del env[name]
    return subprocess.run(
        [sys.executable, "-m", "tests.perf.first_frame"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=Path(__file__).parents[2],
        check=True,
    )


def first_frame(tmp_path: Path) -> dict[str, Any]:
    result = run_to_first_frame(tmp_path)
    seen: dict[str, Any] = json.loads(result.stdout.splitlines()[0])
    return seen


def not_at_start(module: str) -> bool:
    """One of NOT_AT_START or inside it (``model.telemetry`` is not ``model.telemetry_choices``)."""
    return any(module == name or module.startswith(name + ".") for name in NOT_AT_START)


def off_screen_view(module: str) -> bool:
    """A view's code (not its declarations) loaded while another view is on screen."""
    if not module.startswith(VIEWS):
        return False
    view, _, rest = module[len(VIEWS) :].partition(".")
    return view != LANDING and ("." + rest if rest else "") not in DECLARATIONS


def test_the_first_frame_loads_the_listed_modules_and_no_view_off_screen(tmp_path: Path):
    seen = first_frame(tmp_path)
    own = set(seen["own"])
    assert own, "the probe saw no first frame"
    assert "cosmem_tui.ui.app" in own  # the probe went through the real entrance
    off_screen = sorted(m for m in own if not_at_start(m) or off_screen_view(m))
    assert not off_screen, f"loaded before the first frame but not on it: {off_screen}"
    heavy = sorted(set(seen["packages"]) & set(PACKAGES_NOT_AT_START))
    assert not heavy, f"packages loaded before the first frame: {heavy}"
    listed = {line for line in LIST.read_text().split() if line}
    joined, left = sorted(own - listed), sorted(listed - own)
    assert not joined and not left, (
        f"modules joining the first frame: {joined}; no longer loaded: {left} "
        "(rewrite the list with: python -m tests.perf.first_frame --write)"
    )


def test_quitting_at_the_first_frame_is_quiet(tmp_path: Path):
    """Quitting before browse mounts its hidden columns (ctrl+c at once) prints no traceback:
    the deferred mount does nothing once the app is closing."""
    result = run_to_first_frame(tmp_path)
    assert "Traceback" not in result.stderr and "Error" not in result.stderr, result.stderr


def test_the_stylesheet_is_parsed_whole_at_most_twice_before_the_first_frame(tmp_path: Path):
    """Textual parses every CSS source again from scratch when the theme is applied at
    start and when the first screen is made; a default screen made and switched away
    from, or a view screen with CSS of its own (a new source), each cost another whole
    parse and restyle before anything is on the terminal (four in all before)."""
    assert first_frame(tmp_path)["css_reparses"] <= 2
