"""The session header: where the console is pointed and what the session has cost.

It belongs to the app, not to a view: every view shows one, and each shows the app's
``Chrome`` (a reactive on the app) the moment it changes, so switching views never
shows a stale or a different header.

When the line is too narrow, whole parts are dropped in ``DROP_ORDER`` (never cut in
the middle); the title, a theme's badge (PRODUCTION), WRITES ON, the schema's name and
the session's cost are never dropped.

The 429s in the header are the console's own (``3×429 to cosmem``), each hold-off
named by its cause (``429 metadata rate · holding off 0.6 s``); the
account's 429s are the throughput view's, from Azure Monitor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.widget import Widget

from cosmem_tui.core.text import one_line
from cosmem_tui.model import ContainerProperties, SessionTotals, Throttling, throttle_cause
from cosmem_tui.ui.themes import theme_badge


@dataclass(frozen=True)
class Chrome:
    """What the header shows; the app replaces it, the headers redraw."""

    source: str = "starting…"
    container: ContainerProperties | None = None
    schema: str = ""
    totals: SessionTotals | None = None
    # "429 RU budget · holding off 0.6 s" while the account throttles us
    throttle: str = ""
    view: str = ""  # the view's title, shown when there is room
    writes: bool = False  # the session allows writes (--allow-writes): shown in red
    schema_reason: str = ""  # why this schema: "detected: …", "recorded in the workspace"


# The one priority order: the first named part goes first when the line is too narrow.
# A part with a short form takes it the first time it is named and goes the second
# time ("ttl on (no default)" → "ttl on" → gone).
DROP_ORDER = (
    "schema_reason",
    "ttl",
    "throttled",  # "3×429 to cosmem" → "3×429"
    "requests",
    "ttl",
    "pk",
    "container",
    "throttled",
    "source",
)


def throttle_mark(pause_s: float, last: Throttling | None) -> str:
    """The hold-off countdown, named by the cause of the 429 that set it ("" once over)."""
    if pause_s <= 0:
        return ""
    cause = throttle_cause(last.sub_status if last is not None else None)
    why = f" {cause.brief}" if cause.brief else ""
    return f"429{why} · holding off {pause_s:.1f} s"


def throttled_part(totals: SessionTotals) -> str:
    """The console's own 429s, said as its own: :throttle's are the account's."""
    return f"{totals.throttled:,}×429 to cosmem"


@dataclass(frozen=True)
class Part:
    name: str  # a DROP_ORDER name, or anything else for a part that is never dropped
    text: str
    side: str = "left"  # "left": after the title, " · " between; "right": the totals
    joiner: str = " · "  # what goes before it on its side (the reason: " (")
    closer: str = ""  # what goes after it (the reason: ")")
    short: str = ""  # a shorter form taken before the part is dropped


def header_parts(chrome: Chrome) -> list[Part]:
    c = chrome
    parts = [Part("source", c.source)]
    if c.container is not None:
        p = c.container
        parts.append(Part("container", f"{p.database}/{p.container}"))
        parts.append(Part("pk", f"pk {p.partition_key.describe()}"))
        ttl = p.default_ttl_display()
        parts.append(Part("ttl", f"ttl {ttl}", short=f"ttl {ttl.split(' (')[0]}"))
    if c.schema:
        parts.append(Part("schema", f"schema {c.schema}"))
        if c.schema_reason:
            parts.append(Part("schema_reason", c.schema_reason, joiner=" (", closer=")"))
    t = c.totals
    if t is not None:
        if c.throttle:
            parts.append(Part("throttle", f"⚠ {c.throttle}", "right", joiner=""))
        parts.append(Part("requests", f"{t.requests} req", "right"))
        # A real account shows the session's RU budget beside what has been spent.
        budget = f" / {t.budget_ru:,.0f}" if t.budget_ru is not None else ""
        sim = " sim" if t.simulated else ""
        over = " ⚠ over" if t.overruns else ""  # passed without a question: never hidden
        parts.append(Part("cost", f"{t.request_units:,.1f}{budget} RU{sim}{over}", "right"))
        if t.silent:  # the account stopped answering: background work is stopped
            parts.append(Part("silent", "⚠ no answer", "right"))
        if t.throttled:
            count = f"{t.throttled:,}×429"
            parts.append(Part("throttled", throttled_part(t), "right", short=count))
    return parts


def join_parts(parts: Sequence[Part], side: str) -> str:
    out = ""
    for part in (p for p in parts if p.side == side):
        out += (part.joiner if out else "") + one_line(part.text) + part.closer
    return out


def fit_parts(parts: Sequence[Part], room: int) -> tuple[str, str]:
    """The left and right texts within ``room`` cells (with at least one space between),
    dropping whole parts in ``DROP_ORDER``; what is never dropped is cut last."""
    kept = list(parts)

    def width() -> int:
        return cell_len(join_parts(kept, "left")) + 1 + cell_len(join_parts(kept, "right"))

    for name in DROP_ORDER:
        if width() <= room:
            break
        kept = [
            p if p.name != name else replace(p, text=p.short, short="")
            for p in kept
            if p.name != name or p.short
        ]
    left, right = join_parts(kept, "left"), join_parts(kept, "right")
    if cell_len(left) + 1 + cell_len(right) > room:  # a very narrow terminal: cut the left
        space = max(0, room - 1 - cell_len(right))
        left = set_cell_size(left, space - 1) + "…" if space > 1 else ""
    return left, right


class SessionHeader(Widget):
    DEFAULT_CSS = """
    SessionHeader { height: 1; background: $panel; color: $foreground; }
    SessionHeader.-badge { background: $error-darken-2; color: white; text-style: bold; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chrome = Chrome()
        self.badge = ""

    def on_mount(self) -> None:
        if hasattr(self.app, "chrome"):
            self.watch(self.app, "chrome", self._show, init=True)
        self.watch(self.app, "theme", self._theme, init=True)

    def _show(self, chrome: Chrome) -> None:
        if chrome != self.chrome:
            self.chrome = chrome
            self.refresh()

    def _theme(self, name: str) -> None:
        # A theme may carry a badge (the production skin's PRODUCTION): written in
        # text, so it reads without colour too.
        self.badge = theme_badge(name)
        self.set_class(bool(self.badge), "-badge")
        self.refresh()

    # Kept for callers that only have a header at hand (and for tests).
    @property
    def throttle(self) -> str:
        return self.chrome.throttle

    def render(self) -> Text:
        width = self.size.width
        title = " cosmem "
        badge = f" {self.badge} " if self.badge else ""
        writes = " WRITES ON " if self.chrome.writes else ""
        fixed = cell_len(title) + cell_len(badge) + cell_len(writes) + 1
        left, right = fit_parts(header_parts(self.chrome), max(0, width - fixed - 1))
        text = Text(no_wrap=True, overflow="crop")
        text.append(title, "bold reverse")
        if badge:  # never dropped: nobody should mistake production for a test account
            text.append(badge, "bold white on red")
        if writes:  # never dropped: whoever looks at the screen must see it
            text.append(writes, "bold white on red")
        text.append(" " + left)
        gap = max(1, width - fixed - cell_len(left) - cell_len(right) - 1)
        text.append(" " * gap)
        text.append(right + " ", "bold")
        return text
