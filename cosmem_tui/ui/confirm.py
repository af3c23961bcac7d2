"""Ask before a cross-partition query the session has not budgeted (or once the budget is spent)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from cosmem_tui.core.text import one_line
from cosmem_tui.model import FanOutRequest


class ConfirmFanOut(ModalScreen[bool]):
    BINDINGS: ClassVar = [
        Binding("y", "answer(True)", "run it"),
        Binding("n,escape,q", "answer(False)", "don't"),
    ]

    DEFAULT_CSS = """
    ConfirmFanOut { align: center middle; }
    ConfirmFanOut > Vertical { width: 72; height: auto; max-width: 90%; padding: 1 2;
                               border: thick $warning; background: $surface; }
    ConfirmFanOut #question { width: 100%; }
    ConfirmFanOut #keys { margin-top: 1; color: $text-muted; }
    """

    def __init__(self, request: FanOutRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(one_line(self.request.describe())), id="question")
            yield Static(Text("y run it · n / esc don't"), id="keys")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
