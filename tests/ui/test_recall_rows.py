"""What the recall view writes of a report, as text (pure: no app): every cell and line
escaped, the vector summarised, the cost note apart, records as ``cosmem recall``'s."""

from __future__ import annotations

import math

from cosmem_tui.core import records
from cosmem_tui.core.recall_report import (
    ExpectedVerdict,
    RankedHit,
    RecallReport,
    Signals,
    VectorSummary,
)
from cosmem_tui.core.text import visible
from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import ProbeMode, WhyNot
from cosmem_tui.ui.views.recall.rows import (
    HIT_FIELDS,
    INDEX_IS_EXACT,
    WHY_FIELDS,
    hit_rows,
    note_lines,
    summary_lines,
    why_detail,
    why_rows,
)

# Rich markup, an ANSI colour, an OSC 8 link and its BEL, a right-to-left override, a C1 CSI.
HOSTILE = "[bold red]x[/bold red]\x1b[31mred\x1b]8;;http://evil\x07\u202e\x9b2J"
RAW = ("\x1b", "\x07", "\u202e", "\x9b")


def report(**changes) -> RecallReport:  # type: ignore[no-untyped-def]
    ref = ThreadRef.of(HOSTILE, HOSTILE)
    fields = {
        "mode": ProbeMode.HYBRID,
        "k": 2,
        "scope": TtlScope.of_tenant(Key.of(HOSTILE)),
        "hits": (
            RankedHit(1, HOSTILE, ref, 0.91234, Signals(1, 2, 0.032522, 1), True),
            RankedHit(2, "plain", ref, None, Signals(None, 1, 0.016393, None), False),
        ),
        "expected": (
            ExpectedVerdict(HOSTILE, 1, WhyNot.FOUND, f"ranked 1 ({HOSTILE})", 0.0),
            ExpectedVerdict(
                "gone", None, WhyNot.EXPIRED, f"expired {HOSTILE}", 1.25, cost_note=HOSTILE
            ),
        ),
        "recall_at_k": 0.5,
        "index_is_exact": False,
        "query_vector": VectorSummary.of(tuple(float(i) for i in range(1536))),
        "notes": (f"a guess: {HOSTILE}", "fused: an approximation"),
        "request_units": 12.345,
        "requests": 7,
        "terms": (HOSTILE,),
    }
    fields.update(changes)
    return RecallReport(**fields)


def test_every_cell_and_line_is_inert_whatever_the_item_says():
    shown = report()
    texts = [text for row in hit_rows(shown).rows + why_rows(shown).rows for text, _ in row.cells]
    texts += summary_lines(shown, "query: the embedding of item " + HOSTILE, "tenant")
    texts += note_lines(shown, ("extra " + HOSTILE,))
    texts += [why_detail(v) for v in shown.expected]
    for text in texts:
        assert not any(ch in text for ch in RAW), repr(text)
        assert "\n" not in text
    ids = [row.cells[2][0] for row in hit_rows(shown).rows]
    assert ids[0] == visible(HOSTILE, exact=True)  # the id, every character shown
    assert "[bold red]x[/bold red]" in ids[0]  # markup stays text (cells are never parsed)


def test_hits_show_their_signal_ranks_and_exact_mark():
    rows = hit_rows(report()).rows
    assert [text for text, _ in rows[0].cells][4:] == ["1", "2", "0.0325", "✓"]
    assert [text for text, _ in rows[1].cells][1] == "—"  # no score selected (text rank)
    assert [text for text, _ in rows[1].cells][4:] == ["—", "1", "0.0164", "✗"]
    assert rows[0].cells[2][1] == "accent"  # an expected item among the hits is marked


def test_the_vector_is_summarised_never_whole():
    line = summary_lines(report(), "q", "tenant")[2]
    norm = math.sqrt(sum(i * i for i in range(1536)))
    assert (
        line
        == f"query vector: 1536 dimensions, norm {norm:.4f}, [0.0000, 1.0000, 2.0000, 3.0000, …]"
    )
    assert "1535" not in line


def test_outcome_recall_at_k_and_cost_and_the_local_index_said_once():
    assert summary_lines(report(), "q", "tenant")[3] == (
        "2 hits · recall@2 of the index vs exact search 0.50 · cost 7 requests, 12.3 RU"
    )
    local = report(
        index_is_exact=True,
        recall_at_k=None,
        notes=(f"{INDEX_IS_EXACT}: no approximate index to measure", "demo embeddings"),
    )
    assert INDEX_IS_EXACT in summary_lines(local, "q", "tenant")[3]
    notes = note_lines(local)
    assert not any(INDEX_IS_EXACT in n for n in notes) and "note: demo embeddings" in notes


def test_a_cost_note_is_flagged_apart_from_the_reasons_once():
    shown = report(
        expected=(
            ExpectedVerdict("a", None, WhyNot.RANKED_BELOW_K, "ranked 3", 1.0, "in the index"),
            ExpectedVerdict("b", None, WhyNot.EXPIRED, "expired", 1.0, "in the index"),
        )
    )
    notes = note_lines(shown)
    assert notes.count("cost note (not a recall reason): in the index") == 1
    assert [row.cells[1][0] for row in why_rows(shown).rows] == ["ranked below k", "expired"]


def test_records_are_what_cosmem_recall_prints():
    shown = report()
    hits, whys = hit_rows(shown), why_rows(shown)
    assert hits.record(0, "json") == records.recall_hit_row(shown.hits[0], "json")
    assert hits.record(1, "table") == records.recall_hit_row(shown.hits[1], "table")
    assert whys.record(1, "json") == records.recall_expected_row(shown.expected[1], "json")
    assert tuple(hits.record(0, "json")) == HIT_FIELDS
    assert tuple(whys.record(0, "json")) == WHY_FIELDS
    assert set(HIT_FIELDS) | set(WHY_FIELDS) == set(records.RECALL_FIELDS)
