"""The session header: where the console is pointed and what the session has cost."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.widget import Widget

from cosmem_tui.core.text import one_line
from cosmem_tui.model import ContainerProperties, SessionTotals


class SessionHeader(Widget):
    DEFAULT_CSS = """
    SessionHeader { height: 1; background: $panel; color: $foreground; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source = "starting…"
        self.container: ContainerProperties | None = None
        self.schema = ""
        self.totals: SessionTotals | None = None
        self.throttle = ""  # "429 · holding off 0.6 s" while the account throttles us

    def show(
        self,
        *,
        source: str | None = None,
        schema: str | None = None,
        container: ContainerProperties | None = None,
        totals: SessionTotals | None = None,
        throttle: str | None = None,  # "" clears it
    ) -> None:
        if throttle is not None:
            self.throttle = throttle
        if source is not None:
            self.source = source
        if schema is not None:
            self.schema = schema
        if container is not None:
            self.container = container
        if totals is not None:
            self.totals = totals
        self.refresh()

    def _left(self) -> str:
        parts = [self.source]
        if self.container is not None:
            c = self.container
            parts.append(f"{c.database}/{c.container}")
            parts.append(f"pk {c.partition_key.describe()}")
            parts.append(f"ttl {c.default_ttl_display()}")
        if self.schema:
            parts.append(f"schema {self.schema}")
        return one_line(" · ".join(parts))

    def _right(self) -> str:
        t = self.totals
        if t is None:
            return ""
        sim = " sim" if t.simulated else ""
        throttled = f" · {t.throttled:,}×429" if t.throttled else ""
        # A real account shows the session's RU budget beside what has been spent.
        budget = f" / {t.budget_ru:,.0f}" if t.budget_ru is not None else ""
        state = f"⚠ {self.throttle} · " if self.throttle else ""
        return f"{state}{t.requests} req · {t.request_units:,.1f}{budget} RU{sim}{throttled} "

    def render(self) -> Text:
        width = self.size.width
        right = self._right()
        title = " cosmem "
        room = max(0, width - cell_len(title) - cell_len(right) - 1)
        left = self._left()
        if cell_len(left) > room:
            left = set_cell_size(left, max(0, room - 1)) + "…" if room > 1 else ""
        text = Text(no_wrap=True, overflow="crop")
        text.append(title, "bold reverse")
        text.append(" " + left)
        gap = max(1, width - cell_len(title) - 1 - cell_len(left) - cell_len(right))
        text.append(" " * gap)
        text.append(right, "bold")
        return text
