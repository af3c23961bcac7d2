"""Themes are data: ``themes/*.toml`` (shipped in the wheel) become Textual themes."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.theme import Theme

_PACKAGED = Path(__file__).resolve().parent.parent / "themes"
_CHECKOUT = Path(__file__).resolve().parent.parent.parent / "themes"
DEFAULT_THEME = "cosmem-dark"


def themes_dir() -> Path:
    for candidate in (_PACKAGED, _CHECKOUT):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"themes not found in {_PACKAGED} or {_CHECKOUT}")


def load_themes() -> list[Theme]:
    themes = []
    for path in sorted(themes_dir().glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        themes.append(Theme(**data))
    return themes
