"""The layers import one way, and the headless core loads neither textual, rich nor Azure.

The rules are import-linter contracts in pyproject.toml ([tool.importlinter]): cli →
ui → compose → core → sources → schemas → model, the UI reaching stores only through
core and compose, textual only in ui, Azure SDKs only in sources, rich only in ui and
cli, and no import cycle between the modules of any package. Function-level imports
count like the others; what loads at import time is checked by the subprocess test.
"""

from __future__ import annotations

import json
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import cosmem_tui

PACKAGE = Path(cosmem_tui.__file__).parent
REPO = PACKAGE.parent

# importlinter.cli.lint_imports is the function behind `lint-imports`. It runs in a
# subprocess: it reconfigures logging for the whole process (disabling loggers other
# tests rely on) and puts the working directory on sys.path, which picks the package.
LINT = (
    "import sys\n"
    "from importlinter.cli import lint_imports\n"
    "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))\n"
)


def lint(root: Path) -> tuple[int, str]:
    """Check the contracts of ``root``/pyproject.toml on the ``cosmem_tui`` in ``root``."""
    result = subprocess.run(
        [sys.executable, "-c", LINT], cwd=root, capture_output=True, text=True, timeout=120
    )
    return result.returncode, result.stdout + result.stderr


def test_the_import_contracts_hold():
    status, report = lint(REPO)
    assert status == 0, report
    assert "0 broken" in report, report


def test_the_contracts_catch_each_kind_of_breach(tmp_path: Path):
    """Each contract fails on a copy of the package with one breach of it added."""
    shutil.copytree(PACKAGE, tmp_path / "cosmem_tui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    breaches = {
        # lazy imports count: the rules are about dependencies, not load time
        "core/text.py": "def _cycle():\n    from cosmem_tui.core import output\n",
        "sources/local/keys.py": "def _cycle():\n    from cosmem_tui.sources.local import store\n",
        "ui/views/browse/rows.py": (
            "import cosmem_tui.sources.errors\n\n\ndef _up():\n    import cosmem_tui.cli\n"
        ),
        "schemas/paths.py": "import textual\n",
        "core/records.py": "import azure.cosmos\n",
        "sources/errors.py": "import rich\n",
        "ui/views/lifecycle/spec.py": "import cosmem_tui.ui.views.browse.spec\n",
    }
    for module, code in breaches.items():
        path = tmp_path / "cosmem_tui" / module
        path.write_text(path.read_text(encoding="utf-8") + "\n\n" + code, encoding="utf-8")
    status, report = lint(tmp_path)
    assert status == 1, report
    for contract in (
        "Layers import one way, top to bottom",
        "The UI reaches stores only through core (use cases) and compose (opening)",
        "textual only in ui",
        "Azure SDKs only in sources",
        "rich only in ui and cli",
        "No import cycle between the modules of any package",
        "Views talk to each other only through the app (ui/host.py), never by import",
    ):
        assert f"{contract} BROKEN" in report, report
    assert "7 broken" in report, report
    assert "No cycles are allowed in cosmem_tui.core." in report, report
    assert "No cycles are allowed in cosmem_tui.sources.local." in report, report
    assert "cosmem_tui.ui.views.browse.rows -> cosmem_tui.cli" in report, report


# The Azure backends are the places allowed to load an SDK; their plain-data modules
# (settings the CLI resolves, query texts, region names) must still load without one.
AZURE_BACKENDS = ("cosmem_tui.sources.cosmos", "cosmem_tui.sources.monitor")
SDK_FREE = {
    "cosmem_tui.sources.cosmos",
    "cosmem_tui.sources.cosmos.settings",
    "cosmem_tui.sources.cosmos.region",
    "cosmem_tui.sources.monitor",
    "cosmem_tui.sources.monitor.backend",  # the opener the telemetry registry names
    "cosmem_tui.sources.monitor.settings",
    "cosmem_tui.sources.monitor.kql",
}


def headless_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="cosmem_tui."):
        if info.name.startswith("cosmem_tui.ui") or info.name == "cosmem_tui.__main__":
            continue
        if info.name.startswith(AZURE_BACKENDS) and info.name not in SDK_FREE:
            continue
        names.append(info.name)
    return names


def test_importing_the_headless_core_loads_no_ui_and_no_azure():
    modules = headless_modules()
    assert "cosmem_tui.cli" in modules and "cosmem_tui.core.browse" in modules
    assert "cosmem_tui.core.output" in modules  # its rich.cells import waits for a table
    assert set(modules) >= SDK_FREE  # settings and query texts load no Azure SDK
    probe = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True)  # fmt: skip
    loaded = set(json.loads(result.stdout))
    assert "textual" not in loaded
    assert "azure" not in loaded
    assert "rich" not in loaded  # the CLI imports rich only when it prints a table
