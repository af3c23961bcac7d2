"""Which region's load a view shows: provisioned RU/s is reserved per region, so RU is
read one region at a time and never summed over regions against one region's RU/s.

A view shows the region it was asked for (``z`` in the throughput and hot-tenant
views, ``--region-view`` on the command line), else the account's write region (where
the writes are, and what the RU/s was sized for), else — when the account could not be
read — the busiest region the metrics name, saying why. The regions come from the
account (ARM, failover priority) and from the metrics (``Region`` split), so a region
the account lists but that had no traffic is still one to choose, and one the metrics
name is too. Names are compared by ``region_key`` ("East US" is "eastus"), and a
metrics filter is spelt as the metrics spell the region.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cosmem_tui.model.telemetry import (
    REGION,
    AccountFacts,
    MetricAnswer,
    ProblemKind,
    Series,
    TelemetryProblem,
    region_key,
)

WRITE = "write region"
CHOSEN = "chosen"
BUSIEST = "busiest region: the write region is unknown"
ONLY = "the only region the metrics name"


@dataclass(frozen=True, slots=True)
class RegionView:
    """The region a report is read in (``name`` None: not known, every region at once)."""

    name: str | None
    why: str
    choices: tuple[str, ...]  # every region known, the write region first
    metric_value: str | None = None  # how the metrics spell it (their ``Region`` values)
    problem: TelemetryProblem | None = None  # an asked region the account does not have

    @property
    def key(self) -> str | None:
        return region_key(self.name) if self.name is not None else None

    def describe(self) -> str:
        if self.name is None:
            return "region unknown"
        return f"{self.name} ({self.why})"


def region_of(series: Series) -> str | None:
    return series.dimension(REGION)


def seen_regions(answers: Iterable[MetricAnswer]) -> dict[str, str]:
    """The regions the answers' series name: ``region_key`` → the metrics' spelling."""
    seen: dict[str, str] = {}
    for answer in answers:
        for series in answer.series:
            name = region_of(series)
            if name:
                seen.setdefault(region_key(name), name)
    return seen


def busiest(answers: Iterable[MetricAnswer], metric: str) -> str | None:
    """The region whose ``metric`` series add up to the most (None: none named)."""
    totals: dict[str, float] = {}
    for answer in answers:
        for series in answer.series:
            name = region_of(series)
            if name and series.metric == metric:
                totals[name] = totals.get(name, 0.0) + (series.total() or 0.0)
    if not totals:
        return None
    return max(sorted(totals), key=lambda name: totals[name])


def choose(
    facts: AccountFacts,
    asked: str | None,
    seen: dict[str, str],
    busiest_seen: str | None = None,
) -> RegionView:
    """The region to show: ``asked``, else the write region, else the busiest seen."""
    choices: list[str] = []
    keys: set[str] = set()
    for name in (*([facts.write_region] if facts.write_region else []), *facts.regions):
        if region_key(name) not in keys:
            keys.add(region_key(name))
            choices.append(name)
    for key, name in sorted(seen.items()):
        if key not in keys:
            keys.add(key)
            choices.append(name)
    by_key = {region_key(name): name for name in choices}

    def view(name: str, why: str, problem: TelemetryProblem | None = None) -> RegionView:
        spelt = seen.get(region_key(name), name)
        return RegionView(by_key.get(region_key(name), name), why, tuple(choices), spelt, problem)

    problem = None
    if asked is not None and asked.strip():
        if region_key(asked) in by_key or not choices:
            return view(asked.strip(), CHOSEN)
        problem = TelemetryProblem(
            ProblemKind.QUERY_ERROR,
            f"{asked.strip()!r} is not a region of this account ({', '.join(choices)})",
            "choose one of them (z in the view, --region-view on the command line)",
            "regions",
        )
    if facts.write_region:
        return view(facts.write_region, WRITE, problem)
    if busiest_seen is not None:
        return view(busiest_seen, BUSIEST, problem)
    if len(choices) == 1:
        return view(choices[0], ONLY, problem)
    return RegionView(None, "", tuple(choices), None, problem)


def next_region(view: RegionView | None, choices: Sequence[str]) -> str | None:
    """The region after the one shown (wrapping round); None when there is no other."""
    if not choices:
        return None
    shown = view.key if view is not None else None
    keys = [region_key(name) for name in choices]
    if shown not in keys:
        return choices[0]
    return choices[(keys.index(shown) + 1) % len(choices)]


def in_region(series: Series, key: str | None) -> bool:
    """Does the series belong to the region shown? A series that names no region is the
    account's only one (a source without a ``Region`` dimension)."""
    name = region_of(series)
    return key is None or name is None or region_key(name) == key
