"""Where a thread's turn numbers jump: turns that expired or were deleted.

Schemas that order turns by an integer sequence (``turnIndex``) say how many turns a
thread had: when the value jumps from 4 to 16 between two neighbouring turns, eleven
are gone (expired, or deleted). Only neighbours that are both loaded and adjacent in
the thread count (``TurnWindow.loaded_runs``): nothing is claimed across rows not read
yet. Equal values (ties) are no gap, and a value that is not an integer (a malformed
item) makes no claim on either side. Before the oldest turn only a lower bound is
known, since a sequence may start at 0 or at 1: a first value of 12 means at least 11
earlier turns are gone.

A malformed value that spells an integer (the string ``"7"``) is not in the sequence —
stores order strings after every number, so it is no neighbour of 6 or 8 — but its
turn is not missing either: a loaded one is taken off the gap it would fill. (One not
loaded yet — strings sort last, so at the newest end — is taken off once it is.)
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from cosmem_tui.core.turn_window import TurnWindow
from cosmem_tui.model import Turn


@dataclass(frozen=True, slots=True)
class Gap:
    """Turns missing just before the row at window index ``before``."""

    before: int
    missing: int  # how many (at least that many when ``at_least``)
    at_least: bool = False  # before the oldest turn: the sequence's start is not known
    # The order values on either side (``low`` None: before the oldest turn), so the
    # history of the thread can say which of its removals fall in the gap.
    low: int | None = field(default=None, compare=False)
    high: int | None = field(default=None, compare=False)

    def describe(self, fate: str | None = None) -> str:
        """The marker's text; ``fate``: what the thread's history says happened to
        them (``core/history_timeline.py``), instead of "expired or deleted"."""
        turns = "turn" if self.missing == 1 else "turns"
        why = fate or "expired or deleted"
        if self.at_least:
            return f"⋯ ≥{self.missing:,} earlier {turns} missing — {why}"
        return f"⋯ {self.missing:,} {turns} missing — {why}"


def _integer(turn: Turn) -> int | None:
    value = turn.order
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_SPELLED = re.compile(r"\s*-?\d{1,18}\s*")  # an integer written as text (within int64)


def _spelled_integer(turn: Turn) -> int | None:
    """The integer a malformed order value spells (``"7"``), None for anything else."""
    value = turn.order
    if isinstance(value, str) and _SPELLED.fullmatch(value):
        return int(value)
    return None


def find_gaps(window: TurnWindow) -> list[Gap]:
    """Every gap between loaded neighbours, in window order (the caller checks the schema)."""
    runs = window.loaded_runs()
    spelled = sorted(
        {n for _, turns in runs for turn in turns if (n := _spelled_integer(turn)) is not None}
    )

    def missing(low: int, high: int) -> int:
        """Values strictly between ``low`` and ``high`` that no loaded turn holds."""
        listed = bisect.bisect_left(spelled, high) - bisect.bisect_right(spelled, low)
        return high - low - 1 - listed

    gaps: list[Gap] = []
    for start, turns in runs:
        first = _integer(turns[0]) if start == 0 and turns else None
        if first is not None and first >= 2 and (count := missing(0, first)) > 0:
            gaps.append(Gap(0, count, at_least=True, high=first))
        for offset in range(1, len(turns)):
            before, after = _integer(turns[offset - 1]), _integer(turns[offset])
            if before is None or after is None or after - before <= 1:
                continue
            if (count := missing(before, after)) > 0:
                gaps.append(Gap(start + offset, count, low=before, high=after))
    return gaps


def missing_total(gaps: list[Gap]) -> tuple[int, bool]:
    """How many turns are missing in what is loaded, and whether that is a lower bound."""
    return sum(g.missing for g in gaps), any(g.at_least for g in gaps)
