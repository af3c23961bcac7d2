"""Gap markers: where an integer turn sequence jumps, among loaded neighbours only."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cosmem_tui.core.browse import TurnPage
from cosmem_tui.core.turn_gaps import Gap, find_gaps, missing_total
from cosmem_tui.core.turn_window import Side, TurnWindow
from cosmem_tui.model import MISSING, Message, ThreadRef, Turn, resolve_ttl

REF = ThreadRef.of("acme", "t1")
TTL = resolve_ttl(MISSING, 0, None)


def turn(item_id: str, value: Any) -> Turn:
    return Turn(item_id, value, 0.0, "turn", (Message("user", item_id),), TTL)


def page(values: list[Any], *, more: bool, prefix: str = "i") -> TurnPage:
    turns = tuple(turn(f"{prefix}{n}-{v}", v) for n, v in enumerate(values))
    return TurnPage(turns, "next" if more else None, tuple(values))


def window_of(values: list[Any]) -> TurnWindow:
    window = TurnWindow(REF)
    window.apply(Side.HEAD, page(values, more=False))
    return window


def test_a_jump_is_a_gap_of_the_turns_between():
    gaps = find_gaps(window_of([0, 1, 2, 5, 6, 17]))
    assert gaps == [Gap(3, 2), Gap(5, 10)]
    assert gaps[1].describe() == "⋯ 10 turns missing — expired or deleted"
    assert Gap(1, 1).describe() == "⋯ 1 turn missing — expired or deleted"
    assert (gaps[1].low, gaps[1].high) == (6, 17)  # the history looks between them
    assert gaps[1].describe("deleted 5 min ago") == "⋯ 10 turns missing — deleted 5 min ago"
    assert missing_total(gaps) == (12, False)


def test_ties_are_no_gap():
    assert find_gaps(window_of([0, 1, 1, 1, 2, 2, 3])) == []
    assert find_gaps(window_of([0, 2, 2, 4])) == [Gap(1, 1), Gap(3, 1)]


def test_only_integers_make_a_claim():
    # A string, a fraction, a boolean, null or no value says nothing on either side.
    assert find_gaps(window_of([MISSING, None, True, 0, 1, 2.5, 9, "12"])) == []
    assert find_gaps(window_of([0, 1, "7", 9])) == []


def test_a_value_spelled_as_text_is_not_missing():
    # The string "7" is listed — after every number, as stores order them — so the jump
    # from 6 to 8 is no turn missing, though "7" is not in the sequence either.
    assert find_gaps(window_of([0, 1, 2, 3, 4, 5, 6, 8, 9, "7"])) == []
    assert find_gaps(window_of([0, 1, 5, " 2", "3", "3"])) == [Gap(2, 1)]  # only 4 is gone
    assert find_gaps(window_of([3, 4, "1"])) == [Gap(0, 1, at_least=True)]  # 2, or 0 and 2
    assert find_gaps(window_of([2, 3, "1"])) == []
    # Text that spells no integer takes nothing off.
    assert find_gaps(window_of([0, 3, "1.0", "one", "1e0", True])) == [Gap(1, 2)]


def test_a_spelled_value_in_another_loaded_run_counts_too():
    window = TurnWindow(REF, expected_total=500)
    window.apply(Side.HEAD, page([0, 1, 3], more=True, prefix="h"))
    assert find_gaps(window) == [Gap(2, 1)]
    window.apply(Side.TAIL, page(["2", 499], more=True, prefix="t"))  # newest first
    assert find_gaps(window) == []


def test_before_the_oldest_turn_only_a_lower_bound():
    # The sequence may start at 0 or at 1: a first value of 12 means at least 11 are gone.
    gaps = find_gaps(window_of([12, 13]))
    assert gaps == [Gap(0, 11, at_least=True)]
    assert gaps[0].describe() == "⋯ ≥11 earlier turns missing — expired or deleted"
    assert missing_total(gaps) == (11, True)
    assert find_gaps(window_of([1, 2])) == []  # 0- or 1-based: nothing sure is missing


def test_never_a_gap_across_rows_not_loaded():
    window = TurnWindow(REF, expected_total=500)
    window.apply(Side.HEAD, page([0, 1, 2], more=True, prefix="h"))
    window.apply(Side.TAIL, page([900, 899, 880], more=True, prefix="t"))
    assert not window.complete
    gaps = find_gaps(window)
    # Inside the tail's own run 880 → 899 is a gap; between 2 and 880 nothing is said.
    tail_start = len(window) - 3
    assert gaps == [Gap(tail_start + 1, 18)]
    assert all(window.get(g.before) is not None for g in gaps)
    assert all(window.get(g.before - 1) is not None for g in gaps if not g.at_least)


def test_the_tail_alone_says_nothing_about_what_came_first():
    window = TurnWindow(REF, expected_total=100)
    window.apply(Side.TAIL, page([99, 98, 50], more=True))
    gaps = find_gaps(window)
    assert [g.missing for g in gaps] == [47] and not gaps[0].at_least


@given(st.lists(st.integers(min_value=0, max_value=60), min_size=1, max_size=40))
def test_gaps_count_exactly_the_missing_values_of_a_complete_thread(values):
    values.sort()
    gaps = find_gaps(window_of(values))
    inside = set(range(values[0], values[-1] + 1)) - set(values)
    missing, lower_bound = missing_total([g for g in gaps if not g.at_least])
    assert missing == len(inside)
    leading = [g for g in gaps if g.at_least]
    assert leading == ([Gap(0, values[0] - 1, at_least=True)] if values[0] >= 2 else [])
    assert not lower_bound
