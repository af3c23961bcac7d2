"""Themes are data: ``themes/*.toml`` (shipped in the wheel) become Textual themes.

Besides Textual's colours a theme may carry a ``badge``: text the header always shows
(the production skin's ``PRODUCTION``), so a skin is never told by colour alone.
"""

from __future__ import annotations

from textual.theme import Theme

from cosmem_tui.config.themes import DEFAULT_THEME, theme_tables

__all__ = ["DEFAULT_THEME", "load_themes", "theme_badge"]
_OURS = ("badge",)  # keys Textual's Theme does not take


def load_themes() -> list[Theme]:
    return [
        Theme(**{k: v for k, v in data.items() if k not in _OURS})
        for data in theme_tables().values()
    ]


def theme_badge(name: str) -> str:
    """The text the header shows for a theme ("" for most)."""
    return str(theme_tables().get(name, {}).get("badge", ""))
