"""The help screen: every key and command, generated from the one key registry."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from cosmem_tui.ui.keys import ALL_KEYS, COMMANDS


def help_text() -> Text:
    text = Text()
    group = None
    for key in ALL_KEYS:
        if key.group != group:
            group = key.group
            text.append(f"{'' if text.plain == '' else chr(10)}{group}\n", "bold underline")
        text.append(f"  {key.shown:<22}", "bold")
        text.append(f"{key.description}\n")
    text.append("\nCommands (after :)\n", "bold underline")
    for command, description in COMMANDS:
        text.append(f"  {command:<22}", "bold")
        text.append(f"{description}\n")
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
    HelpScreen > VerticalScroll { width: 74; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "keys — Esc closes"
            yield Static(help_text())

    def action_scroll_down(self) -> None:
        self.query_one(VerticalScroll).scroll_down()

    def action_scroll_up(self) -> None:
        self.query_one(VerticalScroll).scroll_up()
