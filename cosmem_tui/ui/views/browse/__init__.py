"""The browse view: tenants → threads → turns → one turn (screen.py; a module per column)."""

from cosmem_tui.ui.views.browse.screen import BrowseScreen, Level

__all__ = ["BrowseScreen", "Level"]
