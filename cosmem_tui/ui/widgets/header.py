"""The session header: where the console is pointed and what the session has cost.

It belongs to the app, not to a view: every view shows one, and each shows the app's
``Chrome`` (a reactive on the app) the moment it changes, so switching views never
shows a stale or a different header.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.widget import Widget

from cosmem_tui.core.text import one_line
from cosmem_tui.model import ContainerProperties, SessionTotals


@dataclass(frozen=True)
class Chrome:
    """What the header shows; the app replaces it, the headers redraw."""

    source: str = "starting…"
    container: ContainerProperties | None = None
    schema: str = ""
    totals: SessionTotals | None = None
    throttle: str = ""  # "429 · holding off 0.6 s" while the account throttles us
    view: str = ""  # the view's title, shown when there is room
    writes: bool = False  # the session allows writes (--allow-writes): shown in red


class SessionHeader(Widget):
    DEFAULT_CSS = """
    SessionHeader { height: 1; background: $panel; color: $foreground; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chrome = Chrome()

    def on_mount(self) -> None:
        if hasattr(self.app, "chrome"):
            self.watch(self.app, "chrome", self._show, init=True)

    def _show(self, chrome: Chrome) -> None:
        if chrome != self.chrome:
            self.chrome = chrome
            self.refresh()

    # Kept for callers that only have a header at hand (and for tests).
    @property
    def throttle(self) -> str:
        return self.chrome.throttle

    def _left(self) -> str:
        c = self.chrome
        parts = [c.source]
        if c.container is not None:
            p = c.container
            parts.append(f"{p.database}/{p.container}")
            parts.append(f"pk {p.partition_key.describe()}")
            parts.append(f"ttl {p.default_ttl_display()}")
        if c.schema:
            parts.append(f"schema {c.schema}")
        return one_line(" · ".join(parts))

    def _right(self) -> str:
        t = self.chrome.totals
        if t is None:
            return ""
        sim = " sim" if t.simulated else ""
        throttled = f" · {t.throttled:,}×429" if t.throttled else ""
        # A real account shows the session's RU budget beside what has been spent.
        budget = f" / {t.budget_ru:,.0f}" if t.budget_ru is not None else ""
        state = f"⚠ {self.chrome.throttle} · " if self.chrome.throttle else ""
        return f"{state}{t.requests} req · {t.request_units:,.1f}{budget} RU{sim}{throttled} "

    def render(self) -> Text:
        width = self.size.width
        right = self._right()
        title = " cosmem "
        writes = " WRITES ON " if self.chrome.writes else ""
        title_cells = cell_len(title) + cell_len(writes)
        room = max(0, width - title_cells - cell_len(right) - 1)
        left = self._left()
        if cell_len(left) > room:
            left = set_cell_size(left, max(0, room - 1)) + "…" if room > 1 else ""
        text = Text(no_wrap=True, overflow="crop")
        text.append(title, "bold reverse")
        if writes:  # never cut: whoever looks at the screen must see it
            text.append(writes, "bold white on red")
        text.append(" " + left)
        gap = max(1, width - title_cells - 1 - cell_len(left) - cell_len(right))
        text.append(" " * gap)
        text.append(right, "bold")
        return text
