"""The names of the UI themes (``themes/*.toml``), for checking a name before the UI loads."""

from __future__ import annotations

from pathlib import Path

from cosmem_tui.config.files import ConfigError

# As in ui/themes.py: shipped inside the wheel, or at the top of a checkout.
_PACKAGED = Path(__file__).resolve().parent.parent / "themes"
_CHECKOUT = Path(__file__).resolve().parent.parent.parent / "themes"


def theme_names() -> list[str]:
    for candidate in (_PACKAGED, _CHECKOUT):
        if candidate.is_dir():
            return sorted(path.stem for path in candidate.glob("*.toml"))
    return []


def check_theme(name: str, where: str = "--theme") -> str:
    names = theme_names()
    if name not in names:
        raise ConfigError(f"{where}: no theme {name!r}; the themes are {', '.join(names)}")
    return name
