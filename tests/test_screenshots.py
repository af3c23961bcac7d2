"""The README's screenshots: the script writes one for every view, deterministically, and
the committed files are what it writes today (rerun it after a UI change)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from cosmem_tui.ui.views import VIEWS
from tests.conftest import ANCHOR

REPO = Path(__file__).resolve().parents[1]


def script():
    spec = importlib.util.spec_from_file_location(
        "export_screenshots", REPO / "scripts" / "export_screenshots.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_view_has_a_screenshot_at_120x40_and_the_readme_links_each():
    names = set(script().shots())
    browse_levels = {"tenants", "threads", "turns", "detail"}
    for view in {spec.name for spec in VIEWS} - {"browse"} | browse_levels | {"help"}:
        assert f"{view}-120x40" in names, view
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\(screenshots/([\w-]+)\.svg\)", readme))
    assert linked == names  # every shot shown, and no link to a file the script drops
    committed = {p.stem for p in (REPO / "screenshots").glob("*.svg")}
    assert committed == names


# One of each kind: a small terminal, a view after the clock ran on, a theme, 200×60.
SAMPLE = ["turns-80x24", "throttle-120x40", "production-80x24", "detail-200x60"]


@pytest.mark.parametrize("name", SAMPLE)
async def test_the_committed_screenshot_is_what_the_script_writes(tmp_path, demo_path, name):
    exporter = script()
    assert exporter.ANCHOR == ANCHOR  # the shared demo workspace is the one it would build
    (written,) = await exporter.export(tmp_path, [name], png=False, workspace=demo_path)
    fresh = written.read_text(encoding="utf-8")
    assert fresh == (REPO / "screenshots" / f"{name}.svg").read_text(encoding="utf-8")


async def test_two_runs_write_identical_files(tmp_path, demo_path):
    exporter = script()
    runs = [
        await exporter.export(tmp_path / run, ["requests-80x24"], png=False, workspace=demo_path)
        for run in ("a", "b")
    ]
    first, second = runs[0][0], runs[1][0]
    assert first.read_bytes() == second.read_bytes()
