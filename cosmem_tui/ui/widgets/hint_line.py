"""The footer's key hints: whole hints that fit the width, never one cut in half."""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

SEPARATOR = " · "


def fit_hints(parts: Iterable[str], width: int) -> str:
    """As many hints as fit in ``width`` cells, in order (a cut ``e`` reads as a key)."""
    line = ""
    for part in parts:
        longer = f"{line}{SEPARATOR}{part}" if line else part
        if cell_len(longer) > width:
            break
        line = longer
    return line


class HintLine(Static):
    """Laid out again at every width: an 80-column terminal drops the last hints whole."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._parts: list[str] = []

    def show(self, parts: Iterable[str]) -> None:
        parts = list(parts)
        if parts != self._parts:  # unchanged hints must not redraw (idle views)
            self._parts = parts
            self.refresh()

    def render(self) -> Text:
        width = self.content_size.width - 1  # one cell of margin, as before
        return Text(f" {fit_hints(self._parts, max(0, width))}", no_wrap=True)
