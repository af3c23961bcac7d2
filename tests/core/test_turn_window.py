"""TurnWindow joins a head walk and a tail walk without losing or repeating a turn.

The fake store below pages the way Cosmos may: it orders by the order value alone
(numbers compared as doubles), breaks ties in one arbitrary order ascending and in
a different arbitrary order descending, and resumes after the last item returned
(keyset continuation), so items may expire or be written between pages.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cosmem_tui.core.browse import TurnPage
from cosmem_tui.core.turn_window import Side, TurnWindow
from cosmem_tui.model import MISSING, Message, ThreadRef, Turn, resolve_ttl
from cosmem_tui.model.ordering import RANK_NUMBER, order_key, surely_after

REF = ThreadRef.of("acme", "t1")
TTL = resolve_ttl(MISSING, 0, None)

# Few distinct values, so ties are the rule; 1 and 1.0 are equal everywhere, 2**53 and
# 2**53 + 1 only as doubles (the way Cosmos compares them).
VALUES = [MISSING, None, False, True, 0, 1, 1.0, 2**53, 2**53 + 1, "", "a", "b", [1], {"k": 1}]
values = st.sampled_from(VALUES)


def store_key(value: Any) -> tuple[int, Any]:
    """How the fake store compares order values: Cosmos type order, numbers as doubles."""
    rank, key = order_key(value)
    return (rank, float(key)) if rank == RANK_NUMBER else (rank, key)


def _cmp(a: tuple[Any, ...], b: tuple[Any, ...]) -> int:
    return (a > b) - (a < b)


def turn(item_id: str, part: int | None, value: Any) -> Turn:
    return Turn(item_id, value, 0.0, "turn", (Message("user", item_id),), TTL, (), part)


@dataclass
class FakeStore:
    """One thread, paged by item like a store; an item with ``parts`` > 1 is a session."""

    rng: random.Random
    items: dict[str, tuple[Any, int]] = field(default_factory=dict)  # id → (value, parts)
    ties: dict[Side, dict[str, float]] = field(
        default_factory=lambda: {Side.HEAD: {}, Side.TAIL: {}}
    )
    tokens: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    created: int = 0

    def write(self, value: Any, parts: int = 1) -> str:
        item_id = f"i{self.created}"
        self.created += 1
        self.items[item_id] = (value, parts)
        for side in Side:  # each direction breaks ties its own arbitrary way
            self.ties[side][item_id] = self.rng.random()
        return item_id

    def expire(self, item_id: str) -> None:
        self.items.pop(item_id, None)

    def move(self, item_id: str, value: Any) -> None:
        """A write that changes an item's order value: a walk may meet it twice."""
        self.items[item_id] = (value, self.items[item_id][1])

    def position(self, side: Side, item_id: str) -> tuple[Any, ...]:
        return (store_key(self.items[item_id][0]), self.ties[side][item_id])

    def expected_turns(self, item_id: str) -> list[tuple[str, int | None]]:
        parts = self.items[item_id][1]
        return [(item_id, None)] if parts == 1 else [(item_id, p) for p in range(parts)]

    def page(self, side: Side, continuation: str | None, size: int) -> TurnPage:
        newest_first = side is Side.TAIL
        ordered = sorted(self.items, key=lambda i: self.position(side, i), reverse=newest_first)
        if continuation is not None:  # keyset: resume after the last item returned
            after = self.tokens[continuation]
            sign = -1 if newest_first else 1
            ordered = [i for i in ordered if _cmp(self.position(side, i), after) == sign]
        chosen, rest = ordered[:size], ordered[size:]
        turns: list[Turn] = []
        sort_values: list[Any] = []
        for item_id in chosen:
            value = self.items[item_id][0]
            expanded = [turn(i, part, value) for i, part in self.expected_turns(item_id)]
            turns.extend(reversed(expanded) if newest_first else expanded)
            sort_values.extend([value] * len(expanded))
        token = None
        if rest:  # like Cosmos, no continuation once nothing is left
            token = f"{side.value}-{len(self.tokens)}"
            self.tokens[token] = self.position(side, chosen[-1])
        return TurnPage(tuple(turns), token, tuple(sort_values))


def shown(window: TurnWindow) -> list[Turn]:
    return [t for t in (window.get(i) for i in range(len(window))) if t is not None]


def check(
    window: TurnWindow,
    store: FakeStore,
    stable: set[str],
    seen_values: dict[str, Any],
    moved: frozenset[str] = frozenset(),
) -> None:
    """Invariants that hold after every page, whatever was fetched in whatever order.

    ``stable``: items there from the first page to the last, unchanged; ``moved``: items
    whose order value changed (shown at most once, in either place).
    """
    rows = shown(window)
    keys = [t.key for t in rows]
    assert len(keys) == len(set(keys)), "a turn is shown twice"
    assert window.loaded == len(rows) <= len(window)
    for index in range(len(window)):
        row = window.get(index)
        if row is not None:
            assert window.index_of(row.key) == index
    # A session's turns stay together and in order.
    for a, b in pairwise(rows):
        if a.item_id == b.item_id:
            assert b.part is not None and a.part is not None and b.part == a.part + 1
    if window.complete:
        ids = {t.item_id for t in rows}
        missing = stable - ids
        assert not missing, f"declared complete without {sorted(missing)}"
        for item_id in stable:
            assert [t.key for t in rows if t.item_id == item_id] == store.expected_turns(item_id)
        order = [store_key(seen_values[t.item_id]) for t in rows if t.item_id not in moved]
        assert all(a <= b for a, b in pairwise(order)), "out of order"
        assert len(window) == len(rows)
    else:
        assert window.can_fetch(Side.HEAD) or window.can_fetch(Side.TAIL)
        assert len(window) > window.loaded  # a placeholder always invites the next page


def fetch(window: TurnWindow, store: FakeStore, side: Side, size: int) -> None:
    window.apply(side, store.page(side, window.continuation(side), size))


@st.composite
def threads(draw: st.DrawFn) -> tuple[FakeStore, list[str]]:
    store = FakeStore(random.Random(draw(st.integers(0, 2**32))))
    pool = st.sampled_from(draw(st.lists(values, min_size=1, max_size=4)))  # dense ties
    count = draw(st.integers(0, 25))
    ids = [store.write(draw(pool), draw(st.sampled_from([1, 1, 1, 2, 3]))) for _ in range(count)]
    return store, ids


def drain(window, store, stable, seen, head_size, tail_size, rng, moved=frozenset()) -> None:
    for _ in range(500):
        if window.complete:
            return
        sides = [s for s in Side if window.can_fetch(s)]
        side = rng.choice(sides)
        fetch(window, store, side, head_size if side is Side.HEAD else tail_size)
        seen.update({i: v for i, (v, _) in store.items.items() if i not in moved})
        check(window, store, stable, seen, moved)
    raise AssertionError("the window never completed")


@settings(max_examples=600, deadline=None)
@given(
    thread=threads(),
    head_size=st.integers(1, 6),
    tail_size=st.integers(1, 6),
    schedule=st.lists(st.sampled_from(Side), max_size=30),
    expected=st.sampled_from(["exact", "unknown", "stale", "short"]),
    seed=st.integers(0, 2**16),
)
def test_both_walks_together_show_every_turn_once(
    thread, head_size, tail_size, schedule, expected, seed
):
    store, ids = thread
    turns = sum(len(store.expected_turns(i)) for i in ids)
    total = {"exact": turns, "unknown": None, "stale": turns + 7, "short": turns // 2}[expected]
    window = TurnWindow(REF, total)
    stable = set(ids)
    seen = {i: v for i, (v, _) in store.items.items()}
    for side in schedule:  # any interleaving of head and tail pages
        if window.can_fetch(side):
            fetch(window, store, side, head_size if side is Side.HEAD else tail_size)
            check(window, store, stable, seen)
    drain(window, store, stable, seen, head_size, tail_size, random.Random(seed))
    assert {t.item_id for t in shown(window)} == stable
    assert window.loaded == turns


@settings(max_examples=400, deadline=None)
@given(
    thread=threads(),
    head_size=st.integers(1, 5),
    tail_size=st.integers(1, 5),
    schedule=st.lists(
        st.one_of(
            st.sampled_from(Side),
            st.tuples(st.sampled_from(["write", "move"]), values),
            st.just("expire"),
        ),
        max_size=40,
    ),
    seed=st.integers(0, 2**16),
)
def test_expiry_and_writes_between_pages_lose_and_repeat_nothing(
    thread, head_size, tail_size, schedule, seed
):
    store, ids = thread
    rng = random.Random(seed)
    window = TurnWindow(REF, None)
    stable = set(ids)  # items there from the first page to the last, unchanged
    moved: set[str] = set()
    seen = {i: v for i, (v, _) in store.items.items()}
    for step in schedule:
        if step == "expire" and store.items:
            victim = rng.choice(sorted(store.items))
            store.expire(victim)
            stable.discard(victim)
        elif isinstance(step, tuple) and step[0] == "write":
            seen[store.write(step[1])] = step[1]
        elif isinstance(step, tuple) and store.items:
            victim = rng.choice(sorted(store.items))
            store.move(victim, step[1])
            stable.discard(victim)
            moved.add(victim)
        elif isinstance(step, Side) and window.can_fetch(step):
            fetch(window, store, step, head_size if step is Side.HEAD else tail_size)
            check(window, store, stable, seen, frozenset(moved))
    drain(window, store, stable, seen, head_size, tail_size, rng, frozenset(moved))


def test_twelve_turns_with_ten_ties_paged_by_three_from_both_ends():
    """The reported case: the old window met on a tied item and showed 4 rows."""
    store = FakeStore(random.Random(7))
    ids = [store.write(0)] + [store.write(5) for _ in range(10)] + [store.write(9)]
    window = TurnWindow(REF, 12)
    seen = {i: v for i, (v, _) in store.items.items()}
    sides = iter([Side.HEAD, Side.TAIL] * 10)
    while not window.complete:
        side = next(sides)
        if window.can_fetch(side):
            fetch(window, store, side, 3)
            check(window, store, set(ids), seen)
    rows = [t.item_id for t in shown(window)]
    assert (rows[0], rows[-1]) == (ids[0], ids[-1])
    assert len(window) == window.loaded == 12


def test_integers_equal_as_doubles_are_a_tie():
    """Cosmos compares numbers as doubles: 2**53 and 2**53 + 1 tie, in any order."""
    store = FakeStore(random.Random(3))
    first, big, last = store.write(2**53 + 1), store.write(2**53), store.write(2**53)
    store.ties = {Side.HEAD: {first: 0, big: 1, last: 2}, Side.TAIL: {first: 1, big: 2, last: 0}}
    window = TurnWindow(REF, 3)
    fetch(window, store, Side.HEAD, 1)  # 2**53 + 1
    fetch(window, store, Side.TAIL, 1)  # 2**53, the same double: nothing is proven yet
    assert not window.complete and window.loaded == 2
    fetch(window, store, Side.TAIL, 2)
    assert window.complete and {t.item_id for t in shown(window)} == {first, big, last}


def test_an_item_a_walk_meets_twice_is_shown_once():
    """A write moves an item past the head walk's position: the next page returns it again."""
    store = FakeStore(random.Random(4))
    ids = [store.write(n) for n in range(4)]
    window = TurnWindow(REF, None)
    fetch(window, store, Side.HEAD, 2)
    store.move(ids[0], 9)
    fetch(window, store, Side.HEAD, 5)
    assert window.complete
    assert [t.item_id for t in shown(window)] == ids
    assert window.loaded == len(window) == 4


def test_unknown_total_keeps_a_placeholder_until_the_thread_ends():
    store = FakeStore(random.Random(1))
    for n in range(10):
        store.write(n)
    window = TurnWindow(REF, None)
    assert len(window) == 0  # nothing asked yet: the list says "loading"
    fetch(window, store, Side.HEAD, 4)
    assert (len(window), window.loaded, window.estimated_total) == (5, 4, None)
    assert window.get(4) is None and window.side_for(4) is Side.HEAD
    fetch(window, store, Side.TAIL, 3)
    assert len(window) == 8 and window.get(7) is not None and window.get(7).item_id == "i9"
    assert [window.number(i) for i in (0, 3, 5, 7)] == [1, 4, -3, -1]
    fetch(window, store, Side.HEAD, 4)  # head reaches 7, tail's last is 7: tied, not proven
    assert not window.complete
    fetch(window, store, Side.HEAD, 4)
    assert window.complete and len(window) == 10 and window.estimated_total == 10
    assert [t.item_id for t in shown(window)] == [f"i{n}" for n in range(10)]
    assert [window.number(i) for i in (0, 9)] == [1, 10]


def test_rows_keep_their_key_when_a_merge_moves_them():
    store = FakeStore(random.Random(2))
    for n in range(10):
        store.write(n)
    window = TurnWindow(REF, 14)  # a stale count: four items expired since the list
    fetch(window, store, Side.HEAD, 3)
    fetch(window, store, Side.TAIL, 3)
    newest = ("i9", None)
    assert window.index_of(newest) == 13
    fetch(window, store, Side.HEAD, 6)  # reaches i8, past the tail's last (i7)
    assert window.complete and window.index_of(newest) == 9
    assert window.anchor(9) == (Side.TAIL, 0) and window.at_anchor(Side.TAIL, 0) == 9


def test_surely_after_is_cautious_where_stores_differ():
    assert surely_after(None, MISSING) and surely_after(True, False) and surely_after(0, True)
    assert surely_after("", 10**400) and surely_after([], "z") and surely_after({}, [])
    assert surely_after(2, 1.5) and not surely_after(1, 1.0)
    assert not surely_after(2**53 + 1, 2**53)  # equal as doubles: Cosmos may tie them
    assert not surely_after(MISSING, MISSING) and not surely_after(None, None)
    assert not surely_after([2], [1]) and not surely_after({"b": 1}, {"a": 1})
    assert not surely_after(float("nan"), 1) and not surely_after(1, float("nan"))
    assert surely_after("b", "a") and not surely_after("a", "a")
    # U+FFFF sorts after U+1F600 by UTF-16 code units (Cosmos, the JS peer), before it by
    # code points (SQLite): neither is surely after the other.
    assert not surely_after("\U0001f600", "\uffff") and not surely_after("\uffff", "\U0001f600")
