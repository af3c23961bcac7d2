"""Ask before a foreground action takes the session past its RU budget, saying what it costs."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from cosmem_tui.core.text import one_line
from cosmem_tui.model import BudgetQuestion


class ConfirmBudget(ModalScreen[bool]):
    BINDINGS: ClassVar = [
        Binding("y", "answer(True)", "go on"),
        Binding("n,escape,q", "answer(False)", "don't"),
    ]

    DEFAULT_CSS = """
    ConfirmBudget { align: center middle; }
    ConfirmBudget > Vertical { width: 72; height: auto; max-width: 90%; padding: 1 2;
                               border: thick $warning; background: $surface; }
    ConfirmBudget #question { width: 100%; }
    ConfirmBudget #keys { margin-top: 1; color: $text-muted; }
    """

    def __init__(self, request: BudgetQuestion) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(one_line(self.request.describe())), id="question")
            go = "go on" if self.request.reason else "raise the budget and go on"
            yield Static(Text(f"y {go} · n / esc stop here"), id="keys")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
