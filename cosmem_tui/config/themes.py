"""Where the UI themes live (``themes/*.toml``) and their names, for checking a name
before the UI (and Textual) loads; ``ui/themes.py`` reads the same folder."""

from __future__ import annotations

import tomllib
from pathlib import Path

from cosmem_tui.config.files import ConfigError

# Shipped inside the wheel, or at the top of a checkout.
_PACKAGED = Path(__file__).resolve().parent.parent / "themes"
_CHECKOUT = Path(__file__).resolve().parent.parent.parent / "themes"


def themes_dir() -> Path:
    for candidate in (_PACKAGED, _CHECKOUT):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"themes not found in {_PACKAGED} or {_CHECKOUT}")


def theme_names() -> list[str]:
    """Each theme's ``name`` as the UI registers it (not the file's stem)."""
    try:
        folder = themes_dir()
    except FileNotFoundError:
        return []
    return sorted(
        str(tomllib.loads(path.read_text(encoding="utf-8"))["name"])
        for path in folder.glob("*.toml")
    )


def check_theme(name: str, where: str = "--theme") -> str:
    names = theme_names()
    if name not in names:
        raise ConfigError(f"{where}: no theme {name!r}; the themes are {', '.join(names)}")
    return name
