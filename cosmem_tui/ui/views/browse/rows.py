"""Row sources for the browse lists: tenants, threads and (lazily paged) turns.

Every cell these produce passes through ``safe_cells``: tenant and thread keys, ids,
order values, kinds, roles, problems and message text all come from items, so no
cell may reach the terminal without ``core.text`` escaping, whichever field it shows.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.core.text import one_line
from cosmem_tui.core.turn_gaps import Gap, find_gaps
from cosmem_tui.core.turn_window import TurnWindow
from cosmem_tui.model import MISSING, Clock, Key, Thread, TtlClass, TtlState, Turn
from cosmem_tui.model.keys import value_text
from cosmem_tui.model.times import in_calendar, seconds_between, utc_text
from cosmem_tui.ui.widgets.cells import SOON, safe_cells
from cosmem_tui.ui.widgets.row_list import Cell, Column, Tone

if TYPE_CHECKING:  # the telemetry model loads when the tenants' load is first asked
    from cosmem_tui.model.telemetry import HotKeysReport, KeyUsage


def age(epoch: float | None, now: float) -> str:
    """How long ago, in the coarsest unit that fits a narrow column."""
    if epoch is None:
        return "—"
    seconds = seconds_between(now, epoch)
    if seconds is None or not in_calendar(epoch):
        return "?"  # a last write off the calendar: the detail says which value it was
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


def clock_time(epoch: float | None) -> str:
    if epoch is not None and not in_calendar(epoch):
        return "⚠ bad time"  # the row is marked malformed; the detail has the number
    return utc_text(epoch, "%m-%d %H:%M")


TENANT_COLUMNS = (
    Column("TENANT"),
    Column("THREADS", 7, "right", drop_order=2),
    Column("ITEMS", 7, "right"),
    Column("ACTIVE", 6, "right", drop_order=1),
    Column("RU", 6, "right", drop_order=3),
)


@dataclass(frozen=True)
class TenantLoad:
    """Each tenant's share of the container's RU in a window: the hot-keys report's own
    rows (100,000 keys a report, not copied into a dict of 100,000); a list asks for the
    keys it lists (``among``)."""

    window: str  # "15m"
    rows: Sequence[KeyUsage] = ()  # by RU, most first
    complete: bool = True  # every tenant that spent RU is in ``rows`` (none was cut)

    @classmethod
    def of(cls, report: HotKeysReport) -> TenantLoad | None:
        """None when the report cannot say (no per-key usage, or no container total to
        take shares of): the list then marks storage, and says so."""
        rows = report.rows
        if not rows or report.total_ru <= 0:
            return None
        cut = report.keys_total is not None and report.keys_total > len(rows)
        failed = [p for p in report.problems if p.about.strip().startswith("logs: key_usage")]
        return cls(report.window.label, rows, complete=not cut and not failed)

    def among(self, keys: Iterable[Key]) -> tuple[dict[Key, float], Key | None]:
        """The shares of ``keys`` (those the report has), and the one of them that spent
        the most RU (None: none did): one pass over the report."""
        listed = set(keys)
        shares: dict[Key, float] = {}
        rows = self.rows
        if listed:  # a report's table by its keys' column (no row made for the others)
            from cosmem_tui.model.key_usage import KeyUsageTable  # with the telemetry model

            by_key = rows.keys if isinstance(rows, KeyUsageTable) else [r.key for r in rows]
            for i, key in enumerate(by_key):
                if key in listed:
                    shares[key] = rows[i].share
                    if len(shares) == len(listed):
                        break
        return shares, next(iter(shares), None)

    def share(self, key: Key) -> float | None:
        """One key's share (a pass over the report: ``among`` for a list's keys)."""
        return self.among((key,))[0].get(key)

    def cell(self, share: float | None) -> Cell:
        """A share as the RU% column shows it (``among`` gives them)."""
        if share is None:
            # Absent from a complete report: no RU in the window; from a cut or partial
            # one: not known (never shown as 0).
            return ("0%", "dim") if self.complete else ("—", "dim")
        if 0 < share < 0.005:
            return "<1%", "dim"
        return f"{share * 100:.0f}%", "bad" if share >= 0.5 else ""


LOAD_COLUMN = Column("RU%", 4, "right")


def legend(load: TenantLoad | None) -> str:
    """What ``▲`` marks, said where the list is: load when it is known, else storage."""
    return f"▲ most RU, {load.window}" if load is not None else "▲ most items"


def tenant_columns(label: str, load: TenantLoad | None = None) -> tuple[Column, ...]:
    """The tenant list's columns, headed by what the schema calls its top level (USER …)
    and what ``▲`` marks; with telemetry, each tenant's share of the RU (``RU%``)."""
    first = Column(f"{label.upper()}  {legend(load)}")
    if load is None:
        return (first, *TENANT_COLUMNS[1:])
    return (first, LOAD_COLUMN, *TENANT_COLUMNS[1:])


TOP_THREAD_COLUMNS = (
    Column(f"THREAD  {legend(None)}"),
    Column("TURNS", 6, "right"),
    Column("ACTIVE", 6, "right", drop_order=2),
    Column("SHORT/LONG", 10, "right", drop_order=1),
    Column("RU", 6, "right", drop_order=3),
)

THREAD_COLUMNS = (
    Column("THREAD"),
    Column("TURNS", 6, "right"),
    Column("ACTIVE", 6, "right", drop_order=2),
    Column("SHORT/LONG", 10, "right", drop_order=1),
)

# The time is never dropped: at 80 columns a turn list without it cannot be read
# against the request ledger or an incident's timeline.
TURN_COLUMNS = (
    Column("#", 5, "right"),
    Column("TIME (UTC)", 11),
    Column("ROLES", 10, drop_order=2),
    Column("TEXT", min_width=40),  # the preview names the roles: ROLES goes first
    Column("EXPIRES", 8, "right", drop_order=1),
)

PENDING: Cell = ("…", "dim")
MISSING_COUNT: Cell = ("—", "dim")


class KeyRows:
    """Top-level keys (tenants, or threads without a tenant level), counted on demand.

    Names are known; counts arrive per row as the rows are shown (``KeyDirectory``).
    A row not yet counted shows ``…``; one whose count failed or would pass the RU
    budget shows ``—`` (the status line says why). ``▲`` marks load when the session
    has telemetry (``load``: the tenant that spent the most RU in the window), else the
    most items among the rows counted so far (storage); the column title says which.
    """

    def __init__(
        self,
        keys: Sequence[Key],
        directory: KeyDirectory,
        clock: Clock,
        *,
        tenants: bool,
        load: TenantLoad | None = None,
    ) -> None:
        self.keys = list(keys)
        self.directory = directory
        self.clock = clock
        self.tenants = tenants
        self.hot: Key | None = None
        self.counted = 0
        self.set_load(load)

    def set_load(self, load: TenantLoad | None) -> None:
        self.load = load if self.tenants else None
        # The listed keys' shares and the one that spent the most, once per load.
        self.shares, self.hot_load = self.load.among(self.keys) if self.load else ({}, None)
        self.counts_changed()

    def __len__(self) -> int:
        return len(self.keys)

    def counts_changed(self) -> None:
        """Counts arrived: find the row with the most items among those counted."""
        best, most, counted = None, -1, 0
        for key in self.keys:
            state = self.directory.count_state(key)
            if state is not None and state.counts is not None:
                counted += 1
                if state.counts.items > most:
                    best, most = key, state.counts.items
        self.counted = counted
        if self.load is not None:
            self.hot = self.hot_load
        else:
            self.hot = best if counted > 1 else None

    def index_of(self, key: Key) -> int | None:
        try:
            return self.keys.index(key)
        except ValueError:
            return None

    def row(self, index: int) -> list[Cell]:
        key = self.keys[index]
        state = self.directory.count_state(key)
        hot = key == self.hot
        name: Cell = (("▲ " if hot else "") + one_line(key.text, exact=True), "bad" if hot else "")
        lead = [name] if self.load is None else [name, self.load.cell(self.shares.get(key))]
        if state is None or (state.counts is None and state.error is None):
            return safe_cells([*lead, PENDING, PENDING, PENDING, PENDING])
        cost: Cell = (f"{state.request_units:,.1f}", "dim")
        counts = state.counts
        if counts is None:
            return safe_cells([*lead, MISSING_COUNT, MISSING_COUNT, MISSING_COUNT, cost])
        active: Cell = (age(counts.last_activity, self.clock.now()), "dim")
        if self.tenants:
            threads = f"{counts.threads:,}" if counts.threads is not None else "—"
            most = hot and self.load is None  # the items are what ▲ marks
            return safe_cells(
                [
                    *lead,
                    (threads, "dim"),
                    (f"{counts.items:,}", "bad" if most else ""),
                    active,
                    cost,
                ]
            )
        mix = f"{counts.short_term or 0}/{counts.long_term or 0}"
        return safe_cells([name, (f"{counts.items:,}", ""), active, (mix, "dim"), cost])

    def search_text(self, index: int) -> str:
        return self.keys[index].text


class ThreadRows:
    def __init__(self, threads: Sequence[Thread], clock: Clock) -> None:
        self.threads = list(threads)
        self.clock = clock

    def __len__(self) -> int:
        return len(self.threads)

    def row(self, index: int) -> list[Cell]:
        t = self.threads[index]
        name: Cell = (one_line(t.name, exact=True), "")
        if t.pseudo is not None:  # a sentinel thread: user-wide records, not a conversation
            name = (f"◇ {one_line(t.pseudo)} · {one_line(t.name, exact=True)}", "accent")
        return safe_cells(
            [
                name,
                (f"{t.items:,}", ""),
                (age(t.last_activity, self.clock.now()), "dim"),
                (f"{t.short_term}/{t.long_term}", "dim"),
            ]
        )

    def search_text(self, index: int) -> str:
        thread = self.threads[index]
        return f"{thread.name} {thread.pseudo}" if thread.pseudo else thread.name


def order_text(turn: Turn) -> str:
    """The order value as stored, its JSON type kept: the string "7" is ``"7"``."""
    if turn.order is MISSING:
        return "—"
    return one_line(value_text(turn.order), 8, exact=True)


def turn_name(turn: Turn) -> str:
    """A turn's name wherever it is shown (list ``#``, breadcrumbs, detail title and body):
    its order value as stored, so ``turn 0`` is turnIndex 0; an item without one says so."""
    if turn.order is MISSING:
        return "turn — (no order value)"
    return f"turn {order_text(turn)}"


PREVIEW = 300  # characters of a row's preview: wider than any terminal row


def preview(turn: Turn) -> str:
    """``ROLE: text · ROLE: text`` on one line; a role name is item data like the text.

    Only the messages that fit ``PREVIEW`` are read: a turn of 50,000 messages costs a
    row what a turn of two does, however often the row is drawn."""
    if not turn.messages:
        return one_line(turn.problems[0]) if turn.problems else "(no messages)"
    parts: list[str] = []
    length = 0
    for message in turn.messages:
        part = f"{one_line(message.role, PREVIEW, exact=True)}: {one_line(message.text, PREVIEW)}"
        parts.append(part)
        length += len(part) + 3
        if length > PREVIEW:
            break
    return " · ".join(parts)


def expires_cell(turn: Turn, now: float) -> Cell:
    """When the item goes (``ItemTtl.when``), toned; ``⚠`` when its own ttl is invalid."""
    ttl = turn.ttl
    text = ttl.when(now)
    if ttl.state is TtlState.OFF:
        return text, "dim"  # any item ttl is ignored anyway: nothing to flag here
    tone: Tone
    if text == "expired":
        return text, "bad"
    if ttl.state is TtlState.NEVER:
        tone = "good"
    else:
        tone = "warn" if (ttl.remaining(now) or 0) <= SOON else ""
    if ttl.ttl_class is TtlClass.INVALID:
        # The item asks for a lifetime (ttl "3600") that is ignored: this is the default's.
        return f"⚠ {text}", "warn"
    return text, tone


def turn_cells(turn: Turn, now: float, position: int | None = None) -> list[Cell]:
    """The row of one turn; ``position`` (1-based) replaces an order value that is a time."""
    marker = "⚠ " if turn.malformed else ("◆ " if turn.kind != "turn" else "")
    tone: Tone = "warn" if turn.malformed else ("accent" if turn.kind != "turn" else "")
    kind = "" if turn.kind == "turn" else f"[{one_line(turn.kind, 20, exact=True)}] "
    return safe_cells(
        [
            (order_text(turn) if position is None else str(position), "dim"),
            (clock_time(turn.timestamp), "dim"),
            (one_line(",".join(turn.roles), 20, exact=True), ""),
            (marker + kind + preview(turn), tone),
            expires_cell(turn, now),
        ]
    )


class TurnRows:
    """A thread's turns (window rows), with a marker row where the turn numbers jump.

    Rows are *display* rows: the window's rows plus one marker before each gap
    (``core/turn_gaps.py``) when ``gaps`` is on (integer orders). ``window_index`` and
    ``display_index`` translate; a marker has no window index.
    """

    def __init__(
        self, window: TurnWindow, clock: Clock, *, positional: bool = False, gaps: bool = False
    ) -> None:
        self.window = window
        self.clock = clock
        # Schemas ordered by a time (created_at, sort_key…) number their rows instead:
        # the time already has its own column. Integer orders (turnIndex) show as stored,
        # so a malformed value stays visible. Until the thread is complete, rows read
        # from the newest end count back from it (-1 = newest): their place from the
        # oldest is not known yet, and a count from the end does not shift.
        self.positional = positional
        self.gaps_on = gaps
        self.gaps: list[Gap] = []
        self._befores: list[int] = []  # window index of the row after each gap
        self._markers: list[int] = []  # display index of each marker
        # What the thread's history says of a gap (``gap_history.py``), when it knows.
        self.gap_words: Callable[[Gap], str | None] | None = None
        self.gap_key = ""  # the key that opens the history, said on a marker it does not know
        self.refresh_gaps()

    def refresh_gaps(self) -> None:
        """Find the gaps again (pages arrived: runs grew or merged)."""
        self.gaps = find_gaps(self.window) if self.gaps_on else []
        self._befores = [g.before for g in self.gaps]
        self._markers = [g.before + k for k, g in enumerate(self.gaps)]

    def __len__(self) -> int:
        return len(self.window) + len(self.gaps)

    def display_index(self, index: int) -> int:
        """Where window row ``index`` is shown."""
        return index + bisect.bisect_right(self._befores, index)

    def window_index(self, display: int) -> int | None:
        """The window row shown at ``display`` (None: a gap marker)."""
        k = bisect.bisect_left(self._markers, display)
        if k < len(self._markers) and self._markers[k] == display:
            return None
        return display - k

    def gap_at(self, display: int) -> Gap | None:
        k = bisect.bisect_left(self._markers, display)
        if k < len(self._markers) and self._markers[k] == display:
            return self.gaps[k]
        return None

    def turn_at(self, display: int) -> Turn | None:
        index = self.window_index(display)
        return self.window.get(index) if index is not None else None

    def row(self, index: int) -> list[Cell] | None:
        gap = self.gap_at(index)
        if gap is not None:
            fate = self.gap_words(gap) if self.gap_words is not None else None
            text = gap.describe(fate)
            if fate is None and self.gap_key:
                text += f" · {self.gap_key} history"
            return safe_cells([("⋯", "warn"), ("", ""), ("", ""), (text, "warn")])
        window_index = self.window_index(index)
        assert window_index is not None
        turn = self.window.get(window_index)
        if turn is None:
            return None
        number = self.window.number(window_index) if self.positional else None
        return turn_cells(turn, self.clock.now(), number)

    def search_text(self, index: int) -> str | None:
        turn = self.turn_at(index)
        if turn is None:
            return None  # not loaded, or a marker: a text filter keeps turns only
        return " ".join([turn.item_id, turn.kind, *(m.text for m in turn.messages)])

    def expiring_within(self, index: int, seconds: int) -> bool:
        """Is the row a loaded turn that expires within ``seconds`` from now?"""
        turn = self.turn_at(index)
        if turn is None or not turn.ttl.expires:
            return False
        remaining = turn.ttl.remaining(self.clock.now()) or 0
        return 0 < remaining <= seconds
