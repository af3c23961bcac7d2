"""What a recall probe answers, as plain data for the view and the CLI (``core/recall.py``).

A report holds the ranked hits as the memory system's own query returned them, each
with its per-signal ranks, the verdict on every item the user expected, recall@k of
the index against exact search, and a summary of the query vector — never the vector
itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from cosmem_tui.model import ThreadRef
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import ProbeMode, RecallQuery, WhyNot

SUMMARY_VALUES = 4  # first values of the query vector shown


@dataclass(frozen=True, slots=True)
class VectorSummary:
    """The query vector, summarised: it is never printed whole."""

    dims: int
    norm: float
    first: tuple[float, ...]

    @classmethod
    def of(cls, vector: tuple[float, ...]) -> VectorSummary:
        return cls(len(vector), math.hypot(*vector), tuple(vector[:SUMMARY_VALUES]))

    def describe(self) -> str:
        shown = ", ".join(f"{v:.4f}" for v in self.first)
        more = ", …" if self.dims > len(self.first) else ""
        return f"{self.dims} dimensions, norm {self.norm:.4f}, [{shown}{more}]"


@dataclass(frozen=True, slots=True)
class Signals:
    """A hit's rank in each signal's own top k (None: not in it, or not probed), and the
    locally fused RRF score (an approximation: the service's constant is not documented)."""

    vector: int | None = None
    text: int | None = None
    fused: float | None = None
    exact: int | None = None

    def record(self) -> dict[str, Any]:
        return {"vector": self.vector, "text": self.text, "fused": self.fused, "exact": self.exact}


@dataclass(frozen=True, slots=True)
class RankedHit:
    rank: int
    id: str
    thread: ThreadRef
    score: float | None
    signals: Signals
    in_exact: bool | None  # in the exact top k; None when no exact ranking was made


@dataclass(frozen=True, slots=True)
class ExpectedVerdict:
    """Why an expected item is or is not in the top k: one reason, its evidence, its cost."""

    id: str
    rank: int | None
    reason: WhyNot
    why: str
    request_units: float
    cost_note: str | None = None  # a cost finding beside the reason, never the reason


@dataclass(frozen=True, slots=True)
class PlannedProbe:
    """One query the run sends: the system's own, or a signal or exact one beside it."""

    role: str  # "system", "vector signal", "text signal", "exact"
    query: RecallQuery


@dataclass(frozen=True, slots=True)
class RecallPlan:
    """What ``RecallService.run`` will send, before anything of the probes is sent.

    ``fan_out``: the scope is the whole container, a cross-partition query per probe: it
    is sent only once confirmed (``RecallService.confirm`` or ``allow_fan_out``), and
    ``estimate_ru`` says about what it costs."""

    scope: TtlScope
    mode: ProbeMode
    k: int
    probes: tuple[PlannedProbe, ...]
    expect: tuple[str, ...]
    query_vector: tuple[float, ...] | None
    notes: tuple[str, ...]
    fan_out: bool
    estimate_ru: float | None
    confirmed: bool
    request_units: float  # what planning cost: the container's policies, the --like read
    requests: int
    vector_dims: int | None  # the policy's dimensions for the vector path, if it says
    cost_note: str | None  # the vector path is still in the regular index
    default_ttl: int | None = None  # the container's, for "expires in 3h" on expected items


@dataclass(frozen=True, slots=True)
class RecallReport:
    mode: ProbeMode
    k: int
    scope: TtlScope  # the scope the system queries
    hits: tuple[RankedHit, ...]
    expected: tuple[ExpectedVerdict, ...]
    recall_at_k: float | None
    index_is_exact: bool
    query_vector: VectorSummary | None
    notes: tuple[str, ...] = ()
    request_units: float = 0.0
    requests: int = 0
    terms: tuple[str, ...] = field(default=())
