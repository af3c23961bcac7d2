"""Row sources for the browse lists: tenants, threads and (lazily paged) turns."""

from __future__ import annotations

import time
from collections.abc import Sequence

from cosmem_tui.core.text import one_line
from cosmem_tui.core.turn_window import TurnWindow
from cosmem_tui.model import MISSING, Clock, Tenant, Thread, TtlState, Turn
from cosmem_tui.model.ttl import format_duration
from cosmem_tui.ui.widgets.row_list import Cell, Column

SOON = 3600  # "expires within the hour" is what support gets asked about


def age(epoch: float | None, now: float) -> str:
    """How long ago, in the coarsest unit that fits a narrow column."""
    if epoch is None:
        return "—"
    seconds = int(now - epoch)
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


def clock_time(epoch: float | None) -> str:
    if epoch is None:
        return "—"
    return time.strftime("%m-%d %H:%M", time.gmtime(epoch))


TENANT_COLUMNS = (
    Column("TENANT"),
    Column("THREADS", 7, "right", drop_order=2),
    Column("ITEMS", 7, "right"),
    Column("ACTIVE", 6, "right", drop_order=1),
)


def tenant_columns(label: str) -> tuple[Column, ...]:
    """The tenant list's columns, headed by what the schema calls its top level (USER …)."""
    return (Column(label.upper()), *TENANT_COLUMNS[1:])


THREAD_COLUMNS = (
    Column("THREAD"),
    Column("TURNS", 6, "right"),
    Column("ACTIVE", 6, "right", drop_order=2),
    Column("SHORT/LONG", 10, "right", drop_order=1),
)

TURN_COLUMNS = (
    Column("#", 5, "right"),
    Column("TIME (UTC)", 11, drop_order=3),
    Column("ROLES", 10, drop_order=2),
    Column("TEXT", min_width=28),
    Column("EXPIRES", 8, "right", drop_order=1),
)


class TenantRows:
    def __init__(self, tenants: Sequence[Tenant], clock: Clock) -> None:
        self.tenants = list(tenants)
        self.clock = clock
        self.hot = max((t.items for t in self.tenants), default=0)

    def __len__(self) -> int:
        return len(self.tenants)

    def row(self, index: int) -> list[Cell]:
        t = self.tenants[index]
        hot = t.items == self.hot and len(self.tenants) > 1
        return [
            (("▲ " if hot else "") + one_line(t.name), "bad" if hot else ""),
            (f"{t.threads:,}", "dim"),
            (f"{t.items:,}", "bad" if hot else ""),
            (age(t.last_activity, self.clock.now()), "dim"),
        ]

    def search_text(self, index: int) -> str:
        return self.tenants[index].name


class ThreadRows:
    def __init__(self, threads: Sequence[Thread], clock: Clock) -> None:
        self.threads = list(threads)
        self.clock = clock

    def __len__(self) -> int:
        return len(self.threads)

    def row(self, index: int) -> list[Cell]:
        t = self.threads[index]
        name: Cell = (one_line(t.name), "")
        if t.pseudo is not None:  # a sentinel thread: user-wide records, not a conversation
            name = (f"◇ {one_line(t.pseudo)} · {one_line(t.name)}", "accent")
        return [
            name,
            (f"{t.items:,}", ""),
            (age(t.last_activity, self.clock.now()), "dim"),
            (f"{t.short_term}/{t.long_term}", "dim"),
        ]

    def search_text(self, index: int) -> str:
        thread = self.threads[index]
        return f"{thread.name} {thread.pseudo}" if thread.pseudo else thread.name


def order_text(turn: Turn) -> str:
    if turn.order is MISSING:
        return "—"
    return one_line(str(turn.order), 8)


def preview(turn: Turn) -> str:
    if turn.messages:
        return " · ".join(f"{m.role}: {one_line(m.text, 300)}" for m in turn.messages)
    return turn.problems[0] if turn.problems else "(no messages)"


def expires_cell(turn: Turn, now: float) -> Cell:
    ttl = turn.ttl
    if ttl.state is TtlState.OFF:
        return "ttl off", "dim"
    if ttl.state is TtlState.NEVER:
        return "never", "good"
    remaining = ttl.remaining(now) or 0
    if remaining <= 0:
        return "expired", "bad"
    return format_duration(remaining), "warn" if remaining <= SOON else ""


def turn_cells(turn: Turn, now: float, position: int | None = None) -> list[Cell]:
    """The row of one turn; ``position`` (1-based) replaces an order value that is a time."""
    marker = "⚠ " if turn.malformed else ("◆ " if turn.kind != "turn" else "")
    tone = "warn" if turn.malformed else ("accent" if turn.kind != "turn" else "")
    kind = "" if turn.kind == "turn" else f"[{one_line(turn.kind, 20)}] "
    return [
        (order_text(turn) if position is None else str(position), "dim"),
        (clock_time(turn.timestamp), "dim"),
        (one_line(",".join(turn.roles), 20), ""),
        (marker + kind + preview(turn), tone),
        expires_cell(turn, now),
    ]


class TurnRows:
    def __init__(self, window: TurnWindow, clock: Clock, *, positional: bool = False) -> None:
        self.window = window
        self.clock = clock
        # Schemas ordered by a time (created_at, sort_key…) number their rows instead:
        # the time already has its own column. Integer orders (turnIndex) show as stored,
        # so a malformed value stays visible. Until the thread is complete, rows read
        # from the newest end count back from it (-1 = newest): their place from the
        # oldest is not known yet, and a count from the end does not shift.
        self.positional = positional

    def __len__(self) -> int:
        return len(self.window)

    def row(self, index: int) -> list[Cell] | None:
        turn = self.window.get(index)
        if turn is None:
            return None
        number = self.window.number(index) if self.positional else None
        return turn_cells(turn, self.clock.now(), number)

    def search_text(self, index: int) -> str | None:
        turn = self.window.get(index)
        if turn is None:
            return None
        return " ".join([turn.item_id, turn.kind, *(m.text for m in turn.messages)])
