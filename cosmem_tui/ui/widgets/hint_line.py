"""One rule for a line that may not fit: whole parts, never a word cut in half.

The footer's key hints keep the hints that fit, in order, and drop the rest whole (a
cut ``e`` reads as a key). Status and summary lines are made of ``·``-separated parts
too: they keep the parts that fit and cut the next one after its last whole word,
with ``…``, when at least half of it fits (else it goes whole, and `` …`` says so).
So "Esc clo…" is never drawn: a narrow terminal shows "Esc closes" or nothing of it.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text
from textual.widgets import Static

SEPARATOR = " · "
MORE = " …"


def fit_hints(parts: Iterable[str], width: int) -> str:
    """As many hints as fit in ``width`` cells, in order (a cut ``e`` reads as a key)."""
    line = ""
    for part in parts:
        longer = f"{line}{SEPARATOR}{part}" if line else part
        if cell_len(longer) > width:
            break
        line = longer
    return line


def cut_words(text: str, width: int, *, mid_word: bool = True) -> str:
    """``text`` in ``width`` cells: whole if it fits, else cut after its last whole word
    with ``…``. A first word longer than that is cut inside only with ``mid_word``
    (the line's first part: nothing else could show); otherwise it is just ``…``."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[: max(0, width)]
    head = set_cell_size(text, width - 1).rstrip()
    if text[len(head) : len(head) + 1] in (" ", ""):
        return f"{head}…"  # the last word shown is whole
    cut = head.rfind(" ")
    if cut > 0:
        return head[:cut].rstrip(" ·,;:(") + "…"
    return f"{head}…" if mid_word else "…"


def fit_line(text: str, width: int) -> str:
    """A status or summary line in ``width`` cells: the ``·`` parts that fit whole, then
    the next one cut after its last whole word (``…``) if at least half of it (two words
    or more) fits, else `` …`` where the rest was left out."""
    if cell_len(text) <= width:
        return text
    parts = text.split(SEPARATOR)
    kept: list[str] = []
    for part in parts:
        if cell_len(SEPARATOR.join([*kept, part])) <= width:
            kept.append(part)
            continue
        lead = SEPARATOR.join(kept) + SEPARATOR if kept else ""
        room = width - cell_len(lead)
        piece = cut_words(part, room, mid_word=False) if room > 1 else ""
        kept_words, words = len(piece.rstrip("…").split()), len(part.split())
        if kept_words >= 2 and 2 * kept_words >= words:  # enough of it to say something
            return lead + piece
        break  # "Esc…" or "G…" says nothing: the part goes whole, and "…" says so
    while kept and cell_len(SEPARATOR.join(kept) + MORE) > width:
        kept.pop()  # room for the mark that says more was left out
    return SEPARATOR.join(kept) + MORE if kept else cut_words(text, width)


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


class Fitted:
    """Lines as a renderable that fits them to the width it is drawn at (``fit_line``);
    ``plain`` is what they say whole, as a ``Text``'s would be."""

    def __init__(self, lines: tuple[str, ...]) -> None:
        self.lines = lines

    @property
    def plain(self) -> str:
        return "\n".join(self.lines)

    def __str__(self) -> str:
        return self.plain

    def fitted(self, width: int) -> str:
        return "\n".join(fit_line(line, width) for line in self.lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(self.fitted(options.max_width), no_wrap=True, end="")


class FittedLine(Static):
    """Lines of text (a status, a summary) fitted to the width by ``fit_line`` as they
    are drawn, so a narrow terminal drops whole parts instead of cutting a word."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """What the lines say, whole (before fitting)."""
        return "\n".join(self._lines)

    def shown(self) -> str:
        """What the lines show at the widget's width now."""
        return Fitted(self._lines).fitted(max(0, self.content_size.width))

    def show(self, text: str) -> None:
        lines = tuple(text.split("\n")) if text else ()
        if lines != self._lines:  # unchanged lines must not redraw (idle views)
            self._lines = lines
            self.refresh(layout=True)

    def render(self) -> Fitted:
        return Fitted(self._lines)
