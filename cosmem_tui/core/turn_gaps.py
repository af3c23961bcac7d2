"""Where a thread's turn numbers jump: turns that expired or were deleted.

Schemas that order turns by an integer sequence (``turnIndex``) say how many turns a
thread had: when the value jumps from 4 to 16 between two neighbouring turns, eleven
are gone (expired, or deleted). Only neighbours that are both loaded and adjacent in
the thread count (``TurnWindow.loaded_runs``): nothing is claimed across rows not read
yet. Equal values (ties) are no gap, and a value that is not an integer (a malformed
item) makes no claim on either side. Before the oldest turn only a lower bound is
known, since a sequence may start at 0 or at 1: a first value of 12 means at least 11
earlier turns are gone.
"""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.core.turn_window import TurnWindow
from cosmem_tui.model import Turn


@dataclass(frozen=True, slots=True)
class Gap:
    """Turns missing just before the row at window index ``before``."""

    before: int
    missing: int  # how many (at least that many when ``at_least``)
    at_least: bool = False  # before the oldest turn: the sequence's start is not known

    def describe(self) -> str:
        turns = "turn" if self.missing == 1 else "turns"
        if self.at_least:
            return f"⋯ ≥{self.missing:,} earlier {turns} missing — expired or deleted"
        return f"⋯ {self.missing:,} {turns} missing — expired or deleted"


def _integer(turn: Turn) -> int | None:
    value = turn.order
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def find_gaps(window: TurnWindow) -> list[Gap]:
    """Every gap between loaded neighbours, in window order (the caller checks the schema)."""
    gaps: list[Gap] = []
    for start, turns in window.loaded_runs():
        if start == 0 and turns and (first := _integer(turns[0])) is not None and first >= 2:
            gaps.append(Gap(0, first - 1, at_least=True))
        for offset in range(1, len(turns)):
            before, after = _integer(turns[offset - 1]), _integer(turns[offset])
            if before is not None and after is not None and after - before > 1:
                gaps.append(Gap(start + offset, after - before - 1))
    return gaps


def missing_total(gaps: list[Gap]) -> tuple[int, bool]:
    """How many turns are missing in what is loaded, and whether that is a lower bound."""
    return sum(g.missing for g in gaps), any(g.at_least for g in gaps)
