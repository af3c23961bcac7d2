"""The UI themes (``themes/*.toml``): where they live, their tables and names, read once
here without Textual, so a name is checked before the UI loads; ``ui/themes.py`` turns
the same tables into Textual themes."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from cosmem_tui.config.files import ConfigError

DEFAULT_THEME = "cosmem-dark"  # the console's skin when nothing names one

# Shipped inside the wheel, or at the top of a checkout.
_PACKAGED = Path(__file__).resolve().parent.parent / "themes"
_CHECKOUT = Path(__file__).resolve().parent.parent.parent / "themes"


def themes_dir() -> Path:
    for candidate in (_PACKAGED, _CHECKOUT):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"themes not found in {_PACKAGED} or {_CHECKOUT}")


@cache
def theme_tables() -> dict[str, dict[str, Any]]:
    """Every theme file's table by theme name (read once)."""
    tables = {}
    for path in sorted(themes_dir().glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        tables[str(data["name"])] = data
    return tables


def theme_names() -> list[str]:
    """Each theme's ``name`` as the UI registers it (not the file's stem)."""
    try:
        return sorted(theme_tables())
    except FileNotFoundError:
        return []


def check_theme(name: str, where: str = "--theme") -> str:
    names = theme_names()
    if name not in names:
        raise ConfigError(f"{where}: no theme {name!r}; the themes are {', '.join(names)}")
    return name
