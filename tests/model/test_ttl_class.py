"""The TTL classification against a reference table of every container × item case.

The table is written out by hand from the service's documented rules (Microsoft
Learn, "Time to Live"): for each container setting and each kind of item ttl, the
class the console reports and where the item's lifetime comes from. Hypothesis then
draws concrete values for every cell (any positive ttl, any timestamp, any default)
and checks the model against the cell.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cosmem_tui.model import MISSING, TtlClass, resolve_ttl
from cosmem_tui.model.lifecycle import TtlScope, TtlSummary, drifts, lifetime
from cosmem_tui.model.ttl import MAX_TTL, classify, container_ttl_words, ttl_json

OWN, DEFAULT, NEVER = "own", "default", "never"  # where the lifetime comes from

# item case -> (strategy for its ttl value, is it an invalid value?)
ITEM_CASES: dict[str, Any] = {
    "missing": st.just(MISSING),
    "-1": st.just(-1),
    "positive": st.integers(min_value=1, max_value=MAX_TTL),
    "null": st.just(None),
    "0": st.just(0),
    '"3600"': st.just("3600"),
    "1.5": st.just(1.5),
    "true": st.just(True),
    "-5": st.just(-5),
    "above max": st.integers(min_value=MAX_TTL + 1, max_value=10 * MAX_TTL),
}
INVALID_CASES = {"null", "0", '"3600"', "1.5", "true", "-5", "above max"}

# (container, item case) -> (class, lifetime source)
TABLE: dict[tuple[str, str], tuple[TtlClass, str]] = {}
for case in ITEM_CASES:
    TABLE["off", case] = (
        (TtlClass.DEFAULT, NEVER) if case == "missing" else (TtlClass.IGNORED, NEVER)
    )
    for container in ("-1", "N"):
        if case == "missing":
            cell = (TtlClass.DEFAULT, NEVER if container == "-1" else DEFAULT)
        elif case == "-1":
            cell = (TtlClass.LONG, NEVER)
        elif case == "positive":
            cell = (TtlClass.SHORT, OWN)
        else:  # invalid: treated as absent, the default applies
            cell = (TtlClass.INVALID, NEVER if container == "-1" else DEFAULT)
        TABLE[container, case] = cell

CONTAINERS = {
    "off": st.just(None),
    "-1": st.just(-1),
    "N": st.integers(min_value=1, max_value=MAX_TTL),
}


def test_the_table_covers_every_case():
    assert len(TABLE) == len(CONTAINERS) * len(ITEM_CASES) == 30


@st.composite
def cells(draw: st.DrawFn) -> tuple[str, str, int | None, Any]:
    container = draw(st.sampled_from(sorted(CONTAINERS)))
    case = draw(st.sampled_from(sorted(ITEM_CASES)))
    return container, case, draw(CONTAINERS[container]), draw(ITEM_CASES[case])


@given(cells(), st.integers(min_value=0, max_value=4_000_000_000))
def test_every_case_classifies_as_the_table_says(cell, ts):
    container, case, default, raw = cell
    expected_class, source = TABLE[container, case]
    ttl = resolve_ttl(raw, ts, default)
    assert classify(raw, default) is expected_class
    assert ttl.ttl_class is expected_class
    assert (ttl.invalid_reason is not None) == (case in INVALID_CASES)
    if source == OWN:
        assert ttl.expires_at == ts + raw and ttl.expires
    elif source == DEFAULT:
        assert ttl.expires_at == ts + default and ttl.expires
    else:
        assert ttl.expires_at is None and not ttl.expires and lifetime(ttl) == -1
    # The same words everywhere: the class, when, and the raw ttl as JSON.
    line = ttl.describe(ts)
    assert line.startswith(expected_class.label + ":")
    if raw is not MISSING:
        assert ttl_json(raw) in line  # "3600" keeps its quotes, 1.5 its fraction
    if expected_class is TtlClass.INVALID:
        assert ttl.invalid_reason in line and "applies" in line
    if expected_class is TtlClass.IGNORED:
        assert "TTL is off" in line


@given(cells(), st.integers(min_value=0, max_value=4_000_000_000), st.integers(0, 10**8))
def test_when_counts_down_from_the_last_write(cell, ts, later):
    _, _, default, raw = cell
    ttl = resolve_ttl(raw, ts, default)
    now = ts + later
    when = ttl.when(now)
    if default is None:
        assert when == "ttl off"
    elif ttl.expires_at is None:
        assert when == "never"
    elif now >= ttl.expires_at:
        assert when == "expired" and "expired" in ttl.describe(now)
    else:
        assert "expires in" in ttl.describe(now)


@given(st.lists(cells(), max_size=30), st.integers(min_value=0, max_value=10**9))
def test_a_summary_adds_up(found, now):
    counts = {c: 0 for c in TtlClass}
    defaults = {d for _, _, d, _ in found}
    default = next(iter(defaults)) if len(defaults) == 1 else -1
    for _, _, _, raw in found:
        counts[classify(raw, default)] += 1
    expiring = sum(1 for _, _, _, raw in found if resolve_ttl(raw, now, default).expires)
    summary = TtlSummary.of(TtlScope.container(), now, default, counts, {})
    assert summary.total == len(found)
    assert summary.expiring == expiring and summary.never == len(found) - expiring


def test_drift_compares_the_effective_lifetime():
    assert not drifts(resolve_ttl(3600, 0, -1), 3600)
    assert drifts(resolve_ttl(7200, 0, -1), 3600)
    assert drifts(resolve_ttl(MISSING, 0, -1), 3600)  # lives forever, should go in an hour
    assert not drifts(resolve_ttl(MISSING, 0, 3600), 3600)  # the default gives it the hour
    assert drifts(resolve_ttl(3600, 0, None), 3600)  # TTL off: it never goes
    assert not drifts(resolve_ttl(-1, 0, 3600), -1)
    assert not drifts(resolve_ttl(5, 0, 3600), None)  # no expectation for the kind


def test_container_modes_in_words():
    assert container_ttl_words(None).startswith("TTL off")
    assert container_ttl_words(-1).startswith("TTL on, no default")
    assert container_ttl_words(3600).startswith("TTL on, default 3,600 s (1h00m)")
