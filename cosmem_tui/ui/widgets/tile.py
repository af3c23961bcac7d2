"""Tile: one bordered panel of a dashboard that redraws only when its data changed.

A tile holds a value (frozen data, compared by equality) and draws it at its current
size as lines of ``(text, tone)`` segments. ``show`` with an equal value does nothing,
so a dashboard refreshing every few seconds over data that moves once a minute writes
nothing to the terminal in between. Every segment passes through ``visible`` on its
way out (the one exit of a tile): operation names, range ids and problem messages
come from the monitoring service and are data, never markup or escape sequences.
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual.widget import Widget

from cosmem_tui.core.text import visible
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.widgets.charts import Line

T = TypeVar("T")

TILE_CSS = """
Tile { border: round $panel-lighten-2; border-title-color: $text;
       border-subtitle-color: $text-muted; padding: 0 1; height: 1fr; }
Tile > .tile--dim { color: $text-muted; }
Tile > .tile--warn { color: $warning; }
Tile > .tile--bad { color: $error; text-style: bold; }
Tile > .tile--good { color: $success; }
Tile > .tile--accent { color: $accent; }
"""


class Tile(Widget, Generic[T]):
    DEFAULT_CSS = TILE_CSS
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tile--dim",
        "tile--warn",
        "tile--bad",
        "tile--good",
        "tile--accent",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data: T | None = None
        self.draws = 0  # how many times it was drawn (tests read it)
        self._titles: tuple[str, str] = ("", "")

    def show(self, data: T) -> bool:
        """Draw ``data`` unless it is what is shown already; True when it redrew."""
        if data == self.data:
            return False
        self.data = data
        self.refresh()
        return True

    def set_titles(self, title: str, subtitle: str = "") -> None:
        if (title, subtitle) == self._titles:
            return  # an unchanged title must not redraw the border
        self._titles = (title, subtitle)
        self.border_title = plain(title)
        self.border_subtitle = plain(subtitle)

    def draw(self, data: T, width: int, height: int) -> list[Line]:
        raise NotImplementedError

    def render(self) -> Text:
        self.draws += 1
        size = self.content_size
        if self.data is None or size.width <= 0 or size.height <= 0:
            return Text()
        lines = self.draw(self.data, size.width, size.height)[: size.height]
        return self.styled(lines, size.width)

    def styled(self, lines: list[Line], width: int) -> Text:
        out = Text(no_wrap=True, overflow="crop", end="")
        for n, line in enumerate(lines):
            row = Text(no_wrap=True, overflow="crop", end="")
            for text, tone in line:
                style = self.get_component_rich_style(f"tile--{tone}") if tone else ""
                row.append(visible(text), style)
            row.truncate(width, overflow="ellipsis")
            if n:
                out.append("\n")
            out.append_text(row)
        return out
