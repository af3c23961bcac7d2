"""Charts in block characters: pure functions from numbers to lines of (text, tone).

Hand-drawn rather than plotext or Textual's ``Sparkline``: a minute with no data must
show as a gap (Azure Monitor's "no data" is not zero), the provisioned throughput must
run as a line across the bars, and an idle dashboard must cost nothing. A few block
characters per cell do all three, import nothing, and draw the same characters on
every run (snapshot tests compare them). The tiles (``tile.py``) turn these
lines into styled text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len

from cosmem_tui.model.times import utc_text
from cosmem_tui.ui.widgets.row_list import Tone

Seg = tuple[str, Tone]
Line = list[Seg]

EIGHTHS = " ▁▂▃▄▅▆▇█"
GAP = "·"  # a bucket with no data (never drawn as zero)
CAPACITY = "╌"  # the provisioned throughput, where no bar covers it


def resample(values: Sequence[float | None], width: int) -> list[float | None]:
    """``values`` spread over ``width`` columns.

    Fewer values than columns: each value takes a run of columns. More: each column
    keeps the largest value of its buckets, so a one-minute spike never vanishes from
    a 24-hour chart. A column whose buckets are all empty stays None.
    """
    n = len(values)
    if n == 0 or width <= 0:
        return []
    if n <= width:
        return [values[c * n // width] for c in range(width)]
    out: list[float | None] = []
    for c in range(width):
        known = [v for v in values[c * n // width : (c + 1) * n // width] if v is not None]
        out.append(max(known) if known else None)
    return out


def short_number(value: float) -> str:
    """``950``, ``9.5``, ``1.2k``, ``12k``, ``3.4M``: fits a five-cell label."""
    magnitude = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            scaled = value / limit
            return f"{scaled:.1f}{suffix}" if abs(scaled) < 10 else f"{scaled:.0f}{suffix}"
    if magnitude >= 10 or value == int(value):
        return f"{value:.0f}"
    return f"{value:.1f}"


def block(fraction: float) -> str:
    """One cell for a level between 0 and 1 (anything above 0 shows at least ▁)."""
    if fraction <= 0:
        return EIGHTHS[0]
    return EIGHTHS[max(1, min(8, round(fraction * 8)))]


def joined(cells: Sequence[Seg]) -> Line:
    """Adjacent cells of one tone as one segment (fewer, longer segments to draw)."""
    line: Line = []
    for text, tone in cells:
        if line and line[-1][1] == tone:
            line[-1] = (line[-1][0] + text, tone)
        else:
            line.append((text, tone))
    return line


def spark(
    values: Sequence[float | None],
    width: int,
    *,
    top: float | None = None,
    tone_of: Callable[[float], Tone] = lambda _v: "accent",
) -> Line:
    """One line of bars scaled to ``top`` (default: the largest value); gaps as ``·``."""
    columns = resample(values, width)
    known = [v for v in columns if v is not None]
    top = top if top is not None else max(known, default=0.0)
    cells: list[Seg] = []
    for value in columns:
        if value is None:
            cells.append((GAP, "dim"))
        elif value <= 0 or not top:
            cells.append((" ", ""))
        else:
            cells.append((block(value / top), tone_of(value)))
    return joined(cells)


def bar_chart(
    values: Sequence[float | None],
    width: int,
    height: int,
    *,
    ceiling: float,
    line: Sequence[float | None] = (),
    tone_of: Callable[[float, float | None], Tone] = lambda _v, _c: "accent",
) -> list[Line]:
    """``height`` rows of vertical bars in eighths, top row first.

    ``line`` (one value per column, e.g. the provisioned RU/s) is drawn as ``╌`` in the
    row it falls in wherever no bar covers it; ``tone_of(value, line value)`` colours a
    bar. Empty buckets are ``·`` on the bottom row.
    """
    if width <= 0 or height <= 0:
        return []
    columns = resample(values, width)
    limits = resample(line, width) if line else [None] * width
    step = ceiling / height if ceiling > 0 else 1.0
    rows: list[Line] = []
    for row in range(height):
        bottom = (height - 1 - row) * step
        top = bottom + step
        cells: list[Seg] = []
        for value, limit in zip(columns, limits, strict=True):
            if value is None:
                cells.append((GAP if row == height - 1 else " ", "dim"))
                continue
            if value >= top:
                cells.append(("█", tone_of(value, limit)))
            elif value > bottom:
                cells.append((block((value - bottom) / step), tone_of(value, limit)))
            elif limit is not None and bottom <= limit < top:
                cells.append((CAPACITY, "warn"))
            else:
                cells.append((" ", ""))
        rows.append(joined(cells))
    return rows


def clock(epoch: float) -> str:
    return utc_text(epoch, "%H:%M")


def time_axis(start: float, end: float, width: int, *, back: str = "") -> Line:
    """``10:00 (−15m) ……… 10:15 UTC`` across ``width`` cells."""
    left = f"{clock(start)}{f' (−{back})' if back else ''}"
    right = f"{clock(end)} UTC"
    gap = width - cell_len(left) - cell_len(right)
    if gap < 1:
        return [(right.rjust(width)[:width], "dim")]
    return [(left + " " * gap + right, "dim")]


def wrap(text: str, width: int) -> list[str]:
    """Words on lines of at most ``width`` cells (a word longer than that is cut)."""
    if width <= 1:
        return [text[:1]]
    lines: list[str] = []
    for paragraph in text.split("\n"):
        while cell_len(paragraph) > width:
            cut = paragraph.rfind(" ", 0, width + 1)
            cut = cut if cut > 0 else width
            lines.append(paragraph[:cut].rstrip())
            paragraph = paragraph[cut:].lstrip()
        lines.append(paragraph)
    return lines
