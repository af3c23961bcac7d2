"""The help screen: every key and command of the current view, generated from the registry."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cosmem_tui.ui.actions import Registry, show_keys
from cosmem_tui.ui.hot_rows import COLUMNS_HELP

NUMBERING = (
    "Turns are named by their order value as stored: turn 0 is the item whose order field "
    "(turnIndex) is 0, in the # column, the breadcrumbs and the detail alike; "
    "'turn — (no order value)' is an item without one. Threads ordered by a time number "
    "their rows instead: #1 the oldest (-1 the newest, until the thread is loaded)."
)


def help_text(registry: Registry, view: str | None) -> Text:
    """The actions that apply to ``view`` (with their current keys), then the commands."""
    text = Text()
    group = None
    for action in registry.for_view(view):
        keys = registry.keys(action.id)
        if not keys:
            continue  # command-only actions are listed below
        if action.group != group:
            group = action.group
            text.append(f"{'' if text.plain == '' else chr(10)}{group}\n", "bold underline")
        text.append(f"  {show_keys(keys):<22}", "bold")
        text.append(f"{action.description}\n")
    text.append("\nCommands (after :)\n", "bold underline")
    for command, _ in registry.commands(view):
        text.append(f"  {command.usage:<22}", "bold")
        text.append(f"{command.help}\n")
    if view == "browse":
        text.append(f"\n{NUMBERING}\n", "dim")
    if view == "hot":
        text.append(f"\n{COLUMNS_HELP}\n", "dim")
    text.append(
        "\nRequest charges marked 'sim' are modelled (local workspace), not measured.\n", "dim"
    )
    return text


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar = [
        Binding("escape,q,question_mark,f1", "dismiss", "close help"),
        Binding("down,j", "scroll_down", show=False),
        Binding("up,k", "scroll_up", show=False),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 80; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1; }
    """

    def __init__(self, registry: Registry, view: str | None) -> None:
        super().__init__()
        self.registry = registry
        self.view = view

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "keys — Esc closes"
            yield Static(help_text(self.registry, self.view))

    # Keys sent with the ? that opened the help arrive before its first layout: each
    # scroll waits for the layout, so none is lost to a scroll range not known yet.
    def action_scroll_down(self) -> None:
        self.call_after_refresh(self._scroll, 1)

    def action_scroll_up(self) -> None:
        self.call_after_refresh(self._scroll, -1)

    def _scroll(self, lines: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=lines, animate=False, immediate=True)
