"""What the recall view shows, as text: the probe's lines, the ranked hits and the why-not
lines. Pure functions of a ``RecallReport``: no widgets.

Every cell that quotes item data (an id, a thread key, a reason's evidence) leaves
through ``safe_cells`` (ids and keys escaped ``exact``, so ESC and the text ``\\x1b``
never print alike); the query vector is summarised (dimensions, norm, first values),
never printed whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cosmem_tui.core import records
from cosmem_tui.core.text import one_line
from cosmem_tui.model import ThreadRef
from cosmem_tui.model.recall import WhyNot
from cosmem_tui.ui.widgets.cells import safe_cells
from cosmem_tui.ui.widgets.row_list import Cell, Column, Tone

if TYPE_CHECKING:
    from cosmem_tui.core.recall_report import (
        ExpectedVerdict,
        RankedHit,
        RecallReport,
        VectorSummary,
    )

# At 80 columns a hit keeps its rank, score, id, signal ranks and exact mark; the thread
# and the fused score give way (v shows every field).
HIT_COLUMNS = (
    Column("#", 3, "right"),
    Column("SCORE", 7, "right"),
    Column("ID", min_width=12),
    Column("THREAD", 16, drop_order=2),
    Column("VEC", 4, "right"),
    Column("TXT", 4, "right"),
    Column("FUSED", 6, "right", drop_order=1),
    Column("EXACT", 5),
)
# One line per expected item: which, where it ranked, the reason, its evidence, the cost.
# The whole evidence of the selected line is written out below the list (why_detail).
WHY_COLUMNS = (
    Column("EXPECTED", 16),
    Column("REASON", 16),
    Column("WHY", min_width=20),
    Column("RU", 5, "right"),
)
# A row's record (v shows it, y copies it, e writes them) is the one cosmem recall prints:
# a hit's fields, or an expected item's; a file of both has every field.
RECALL_FIELDS = records.RECALL_FIELDS
HIT_FIELDS = ("rank", "id", "score", "thread", "signals")
WHY_FIELDS = ("id", "expected", "rank", "why", "reason")

INDEX_IS_EXACT = "index = exact search (local workspace)"
REASON_WORDS = {
    WhyNot.OUT_OF_SCOPE: "out of scope",
    WhyNot.EXPIRED: "expired",
    WhyNot.FILTERED: "filtered out",
    WhyNot.NO_EMBEDDING: "no embedding",
    WhyNot.WRONG_PATH: "wrong path",
    WhyNot.WRONG_DIMENSIONS: "wrong dimensions",
    WhyNot.RANKED_BELOW_K: "ranked below k",
    WhyNot.INDEX_MISSED: "index missed",
    WhyNot.FOUND: "found",
}


def _rank(value: object) -> Cell:
    return (f"{value}", "") if isinstance(value, int) else ("—", "dim")


def score_text(score: float | None) -> str:
    return "—" if score is None else f"{score:.4f}"


def _exact_mark(in_exact: bool | None) -> Cell:
    """Is an index hit in the exact (brute-force) top k too?"""
    if in_exact is None:
        return "—", "dim"
    return ("✓", "good") if in_exact else ("✗", "warn")


def thread_text(ref: ThreadRef) -> str:
    return one_line(ref.thread.text, exact=True)


def reason_tone(reason: WhyNot) -> Tone:
    if reason is WhyNot.FOUND:
        return "good"
    return "warn" if reason is WhyNot.INDEX_MISSED else "bad"


@dataclass(frozen=True, slots=True)
class Row:
    """One row of either list: its cells, what ``/`` matches, its record, what enter opens."""

    key: str
    cells: tuple[Cell, ...]
    search: str
    record: Callable[[str], dict[str, Any]]  # as cosmem recall writes it, in a format
    ref: ThreadRef | None = None


def hit_row(hit: RankedHit, expected: frozenset[str]) -> Row:
    signals = hit.signals
    is_expected = hit.id in expected
    cells = safe_cells(
        [
            (f"{hit.rank}", ""),
            (score_text(hit.score), ""),
            (one_line(hit.id, 200, exact=True), "accent" if is_expected else ""),
            (thread_text(hit.thread), "dim"),
            _rank(signals.vector),
            _rank(signals.text),
            ("—", "dim") if signals.fused is None else (f"{signals.fused:.4f}", "dim"),
            _exact_mark(hit.in_exact),
        ]
    )
    search = " ".join([*(text for text, _ in cells), hit.id])
    return Row(
        hit.id, tuple(cells), search, lambda fmt: records.recall_hit_row(hit, fmt), hit.thread
    )


def why_row(verdict: ExpectedVerdict) -> Row:
    reason = verdict.reason
    cells = safe_cells(
        [
            (one_line(verdict.id, 200, exact=True), "accent"),
            (REASON_WORDS[reason], reason_tone(reason)),
            (one_line(verdict.why, 400), ""),
            (f"{verdict.request_units:,.1f}", "dim"),
        ]
    )
    search = " ".join([*(text for text, _ in cells), verdict.id, reason.value])
    return Row(
        verdict.id, tuple(cells), search, lambda fmt: records.recall_expected_row(verdict, fmt)
    )


def why_detail(verdict: ExpectedVerdict) -> str:
    """One expected item's verdict in full, to be wrapped: the line above it is cut."""
    return one_line(
        f"{one_line(verdict.id, 200, exact=True)}: {REASON_WORDS[verdict.reason]} — "
        f"{verdict.why} · {verdict.request_units:,.1f} RU to find out"
    )


def vector_line(summary: VectorSummary | None) -> str:
    """The query vector in a few numbers (its dimensions, norm, first values): never whole."""
    if summary is None:
        return "no query vector: full-text only"
    return f"query vector: {summary.describe()}"


def probe_line(report: RecallReport, tenant_label: str) -> str:
    """What the system's own query is: the mode, k, and the scope it covers."""
    return f"{report.mode.value} probe · top {report.k} · in {report.scope.describe(tenant_label)}"


def query_line(report: RecallReport, query: str) -> str:
    """Where the query came from (a turn's embedding, text), and its key terms."""
    if report.terms:
        return f"{query} · key terms: {' '.join(report.terms)}"
    return query


def outcome_line(report: RecallReport) -> str:
    """How good the index is here, and what the whole probe cost."""
    parts = [f"{len(report.hits):,} hits"]
    if report.index_is_exact:
        parts.append(INDEX_IS_EXACT)
    elif report.recall_at_k is not None:
        parts.append(f"recall@{report.k} of the index vs exact search {report.recall_at_k:.2f}")
    plural = "" if report.requests == 1 else "s"
    parts.append(f"cost {report.requests:,} request{plural}, {report.request_units:,.1f} RU")
    return " · ".join(parts)


def note_lines(report: RecallReport, extra: Sequence[str] = ()) -> list[str]:
    """Each note on its own line (a guess, an approximation, what made the vectors),
    wrapped rather than cut: a narrow terminal must not drop one. ``extra``: notes the
    view adds. A cost finding (the vector path still in the
    regular index) is flagged apart from the reasons: it costs RU, it does not hide an
    item."""
    said_exact = report.index_is_exact
    lines = [
        f"note: {note}"
        for note in (*report.notes, *extra)
        if not (said_exact and note.startswith(INDEX_IS_EXACT))  # the outcome line says it
    ]
    costs = dict.fromkeys(v.cost_note for v in report.expected if v.cost_note)
    lines += [f"cost note (not a recall reason): {note}" for note in costs]
    return [one_line(line) for line in lines]


def summary_lines(report: RecallReport, query: str, tenant_label: str) -> list[str]:
    """The lines above the hits: the probe, its query, the query vector, the outcome."""
    lines = [
        probe_line(report, tenant_label),
        query_line(report, query),
        vector_line(report.query_vector),
        outcome_line(report),
    ]
    return [one_line(line) for line in lines]


class Rows:
    """The rows of one list (``RowList`` source), keyed by item id."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = list(rows)

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, index: int) -> list[Cell]:
        return list(self.rows[index].cells)

    def search_text(self, index: int) -> str:
        return self.rows[index].search

    def record(self, index: int, fmt: str) -> dict[str, Any] | None:
        return self.rows[index].record(fmt)

    def index_of(self, key: str) -> int | None:
        for index, row in enumerate(self.rows):
            if row.key == key:
                return index
        return None


def hit_rows(report: RecallReport) -> Rows:
    expected = frozenset(v.id for v in report.expected)
    return Rows([hit_row(hit, expected) for hit in report.hits])


def why_rows(report: RecallReport) -> Rows:
    return Rows([why_row(verdict) for verdict in report.expected])
