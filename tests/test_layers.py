"""The layers import one way, and the headless core loads neither textual nor Azure.

ui → core → sources → schemas → model; the CLI sits on top and reaches the UI only
lazily. textual lives only in ui/, Azure SDKs only in sources/.
"""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import cosmem_tui

PACKAGE = Path(cosmem_tui.__file__).parent
ALLOWED = {
    "model": {"model"},
    "schemas": {"schemas", "model"},
    "sources": {"sources", "schemas", "model"},
    "core": {"core", "sources", "schemas", "model"},
    "compose": {"compose", "core", "sources", "schemas", "model"},
    "ui": {"ui", "compose", "core", "schemas", "model"},
    "cli": {"cli", "ui", "compose", "core", "schemas", "model", "sources"},
    "root": {"root"},
}
THIRD_PARTY_HOME = {"textual": {"ui"}, "azure": {"sources"}, "rich": {"ui", "cli"}}
# The headless writers measure table cells with rich.cells, imported inside the function
# that prints a table (the subprocess test below proves rich never loads at import).
LAZY_THIRD_PARTY = {"core/output.py": {"rich.cells"}}


def layer_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    if len(parts) == 1:
        return {"cli.py": "cli", "__main__.py": "cli", "compose.py": "compose"}.get(
            parts[0], "root"
        )
    return parts[0]


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(("cosmem_tui", *path.relative_to(PACKAGE).parent.parts))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                found.add(".".join([*base, node.module] if node.module else base))
            elif node.module:
                found.add(node.module)
    return found


def internal_layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "cosmem_tui":
        return None
    if len(parts) == 1:
        return "root"
    return {"cli": "cli", "__main__": "cli", "compose": "compose"}.get(parts[1], parts[1])


def test_every_module_imports_only_downwards():
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = layer_of(path)
        for module in imports_of(path):
            target = internal_layer(module)
            if target is not None and target != "root" and target not in ALLOWED[layer]:
                problems.append(f"{path.relative_to(PACKAGE)} ({layer}) imports {module}")
            top = module.split(".")[0]
            lazy = LAZY_THIRD_PARTY.get(path.relative_to(PACKAGE).as_posix(), set())
            if module in lazy:
                continue
            if top in THIRD_PARTY_HOME and layer not in THIRD_PARTY_HOME[top]:
                problems.append(f"{path.relative_to(PACKAGE)} ({layer}) imports {module}")
    assert problems == []


def headless_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="cosmem_tui."):
        if info.name.startswith("cosmem_tui.ui") or info.name == "cosmem_tui.__main__":
            continue
        if info.name.startswith("cosmem_tui.sources.cosmos"):
            continue  # the Cosmos backend is the one place allowed to load the SDK
        names.append(info.name)
    return names


def test_importing_the_headless_core_loads_no_ui_and_no_azure():
    modules = headless_modules()
    assert "cosmem_tui.cli" in modules and "cosmem_tui.core.browse" in modules
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
