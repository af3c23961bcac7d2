"""The help screen: every key and command of the current view, generated from the registry."""

from __future__ import annotations

import textwrap
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cosmem_tui.ui.actions import CommandSpec, Registry, show_keys
from cosmem_tui.ui.views import view as view_spec

KEYS_WIDTH = 22  # the keys (or the command) column; the description wraps beside it
INDENT = 2


def _entry(text: Text, left: str, description: str, width: int) -> None:
    """One key or command: the left column, then the description wrapped under itself
    (a wrapped line keeps the indent; a left side too wide for its column gets a line
    of its own)."""
    indent = " " * (INDENT + KEYS_WIDTH)
    lines = textwrap.wrap(description, max(20, width - len(indent)), break_on_hyphens=False)
    lines = lines or [""]
    text.append(f"{' ' * INDENT}{left:<{KEYS_WIDTH}}", "bold")
    if len(left) >= KEYS_WIDTH:
        text.append(f"\n{indent}")
    text.append(f"\n{indent}".join(lines) + "\n")


def listed_commands(registry: Registry, view: str | None) -> list[CommandSpec]:
    """The commands of ``view``, each once: ``:ttl`` (the view) is left out where
    ``:ttl [TENANT [THREAD]]`` says the same and more."""
    commands = [command for command, _ in registry.commands(view)]
    shown: list[CommandSpec] = []
    for command in commands:
        covered = not command.args and any(
            other is not command
            and other.names[0] == command.names[0]
            and all(arg.startswith("[") for arg in other.args)
            for other in commands
        )
        if not covered and command not in shown:
            shown.append(command)
    return shown


def help_text(registry: Registry, view: str | None, width: int = 76) -> Text:
    """The actions that apply to ``view`` (with their current keys), then the commands,
    laid out for ``width`` cells."""
    text = Text()
    group = None
    for action in registry.for_view(view):
        keys = registry.keys(action.id)
        if not keys:
            continue  # command-only actions are listed below
        if action.group != group:
            group = action.group
            text.append(f"{'' if text.plain == '' else chr(10)}{group}\n", "bold underline")
        _entry(text, show_keys(keys), action.description, width)
    text.append("\nCommands (after :)\n", "bold underline")
    for command in listed_commands(registry, view):
        _entry(text, command.usage, command.help, width)
    note = view_spec(view).help_note if view is not None else ""
    if note:  # what the view's columns or names mean (its spec.py): the pane wraps it
        text.append(f"\n{note}\n", "dim")
    sim = "Request charges marked 'sim' are modelled (local workspace), not measured."
    text.append("\n" + "\n".join(textwrap.wrap(sim, width)) + "\n", "dim")
    return text


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar = [
        Binding("escape,q,question_mark,f1", "dismiss", "close help"),
        Binding("down,j", "scroll_down", show=False),
        Binding("up,k", "scroll_up", show=False),
        Binding("pagedown,space,ctrl+f", "scroll_page(1)", show=False),
        Binding("pageup,ctrl+b", "scroll_page(-1)", show=False),
        Binding("home,g", "scroll_to_end(False)", show=False),
        Binding("end,G", "scroll_to_end(True)", show=False),
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
            yield Static(help_text(self.registry, self.view, self._width()))

    def _width(self) -> int:
        """The text's width: the box is 80 columns at most (border, padding, scrollbar)."""
        return max(30, min(80, self.app.size.width) - 5)

    def on_resize(self) -> None:
        self.query_one(Static).update(help_text(self.registry, self.view, self._width()))

    # Keys sent with the ? that opened the help arrive before its first layout: each
    # scroll waits for the layout, so none is lost to a scroll range not known yet.
    def action_scroll_down(self) -> None:
        self.call_after_refresh(self._scroll, 1)

    def action_scroll_up(self) -> None:
        self.call_after_refresh(self._scroll, -1)

    def action_scroll_page(self, pages: int) -> None:
        self.call_after_refresh(self._scroll, pages * max(1, self.size.height - 3))

    def action_scroll_to_end(self, end: bool) -> None:
        scroll = self.query_one(VerticalScroll)
        self.call_after_refresh(scroll.scroll_end if end else scroll.scroll_home, animate=False)

    def _scroll(self, lines: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=lines, animate=False, immediate=True)
