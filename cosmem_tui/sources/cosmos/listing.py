"""Top-level keys (tenants, or threads without a tenant level), one physical range at a time.

Cross-partition ``SELECT DISTINCT`` cannot be resumed in azure-cosmos 4.17: its
continuation is the header of whichever partition answered last, handed to every
partition on resume, so a listing stops short (at 1,000) or fails, silently. So the
listing never fans out: it reads the container's partition key ranges
(``read_feed_ranges``) and walks each range on its own, one call per page, with a
cursor that records every range's position. A listing can stop (budget, error) and
resume exactly where it was.

Two ways to walk a range, both index-served, both without a query plan:

* ``distinct``: ``SELECT DISTINCT VALUE key`` sent with ``feed_range=``, paged by that
  range's own continuation (many keys per request; charged by the entries it reads);
* ``seek``: a loose index scan, ``SELECT TOP 1 VALUE key … WHERE key > @after ORDER BY
  key`` (one key per request, each an index seek), for services without DISTINCT. It
  walks numbers, then strings; a range holding null, boolean or missing keys is
  reported (``unlisted``), never silently left out.

Keys come back in Cosmos order within a range; the caller merges ranges.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from cosmem_tui.model import Key, KeyPage, Scope
from cosmem_tui.sources.cosmos.calls import CosmosCalls, Route
from cosmem_tui.sources.cosmos.sql import render
from cosmem_tui.sources.errors import BadRequest

OPERATION = "list-keys"
DISTINCT_PAGE = 1000  # keys per DISTINCT request
# Before the session has measured what a key costs, a DISTINCT page asks for this many;
# later pages are sized from what each key cost and what is left of the budget.
FIRST_DISTINCT_PAGE = 200
_CURSOR_PREFIX = "K1."
_PHASES = ("numbers", "strings")  # Cosmos order: numbers before strings


class Strategy(StrEnum):
    AUTO = "auto"  # DISTINCT where the service has it, else the loose index scan
    DISTINCT = "distinct"
    SEEK = "seek"


@dataclass(frozen=True)
class RangeState:
    feed_range: Mapping[str, Any]
    done: bool = False
    continuation: str | None = None  # distinct: the range's own continuation
    phase: int = 0  # seek: index into _PHASES
    after: Any = None  # seek: the last key listed in this phase (None: none yet)
    checked_unlisted: bool = False  # seek: has the range been probed for other key types?


@dataclass(frozen=True)
class Cursor:
    strategy: Strategy
    ranges: tuple[RangeState, ...]
    unlisted: tuple[int, ...] = field(default=())  # ranges with keys the seek cannot list
    since: int | None = None  # a reload: only keys written after this (epoch seconds)
    spent_ru: float = 0.0  # what this listing has cost so far (for "what would finish it")

    def encode(self) -> str:
        data = {
            "s": self.strategy.value,
            "u": list(self.unlisted),
            "t": self.since,
            "c": self.spent_ru,
            "r": [
                {
                    "f": dict(r.feed_range),
                    "d": r.done,
                    "c": r.continuation,
                    "p": r.phase,
                    "a": r.after,
                    "x": r.checked_unlisted,
                }
                for r in self.ranges
            ],
        }
        raw = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return _CURSOR_PREFIX + base64.urlsafe_b64encode(raw).decode("ascii")

    @classmethod
    def decode(cls, text: str) -> Cursor:
        try:
            if not text.startswith(_CURSOR_PREFIX):
                raise ValueError("not a key-listing cursor")
            data = json.loads(base64.urlsafe_b64decode(text[len(_CURSOR_PREFIX) :]))
            ranges = tuple(
                RangeState(r["f"], r["d"], r["c"], r["p"], r["a"], r["x"]) for r in data["r"]
            )
            return cls(
                Strategy(data["s"]), ranges, tuple(data["u"]), data.get("t"), data.get("c", 0.0)
            )
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise BadRequest(f"invalid listing cursor ({exc})") from None

    @property
    def done(self) -> int:
        return sum(r.done for r in self.ranges)

    def with_range(self, index: int, state: RangeState) -> Cursor:
        ranges = list(self.ranges)
        ranges[index] = state
        return replace(self, ranges=tuple(ranges))


class KeyLister:
    """Lists a container's top-level keys range by range (see the module docstring)."""

    def __init__(
        self,
        calls: CosmosCalls,
        slots: Mapping[str, str],
        label: str,
        strategy: Strategy = Strategy.AUTO,
    ) -> None:
        self._calls = calls
        self._slots = slots
        self._label = label  # "tenants", "users", "threads"
        self._strategy = strategy
        self.distinct_rejected = False  # the service answered 400 to DISTINCT

    async def page(self, cursor: str | None, *, since: int | None = None) -> KeyPage:
        """One call's worth of keys: the next page of the first range not yet done."""
        state = Cursor.decode(cursor) if cursor is not None else await self._start(since)
        index = next((i for i, r in enumerate(state.ranges) if not r.done), None)
        if index is None:
            return KeyPage((), None, len(state.ranges), len(state.ranges))
        remaining = self._remaining(state)
        with self._calls.ledger.meter() as cost:
            keys, state = await self._next(state, index, remaining)
        state = replace(state, spent_ru=state.spent_ru + cost.request_units)
        next_cursor = None if state.done == len(state.ranges) else state.encode()
        return KeyPage(keys, next_cursor, state.done, len(state.ranges))

    async def _next(
        self, state: Cursor, index: int, remaining: float
    ) -> tuple[tuple[Key, ...], Cursor]:
        if state.strategy is Strategy.DISTINCT:
            try:
                keys, state = await self._distinct(state, index, remaining)
            except BadRequest:
                if self._strategy is not Strategy.AUTO:
                    raise
                self.distinct_rejected = True  # no DISTINCT here: walk the indexes instead
                fresh = tuple(RangeState(r.feed_range) for r in state.ranges)
                return (), Cursor(Strategy.SEEK, fresh, since=state.since, spent_ru=state.spent_ru)
            return keys, state
        return await self._seek(state, index, remaining)

    @staticmethod
    def unlisted_ranges(cursor: str | None) -> int:
        """How many ranges hold keys of other types that the seek walk does not list."""
        return 0 if cursor is None else len(Cursor.decode(cursor).unlisted)

    async def _start(self, since: int | None) -> Cursor:
        ranges = await self._calls.feed_ranges()
        strategy = self._strategy
        if strategy is Strategy.AUTO:
            strategy = Strategy.SEEK if self.distinct_rejected else Strategy.DISTINCT
        return Cursor(strategy, tuple(RangeState(r) for r in ranges), since=since)

    def _query(self, name: str, state: Cursor) -> str:
        if state.since is None:
            return render(name, self._slots)
        since = {"since_where": "WHERE c._ts > @since", "since_and": "AND c._ts > @since"}
        return render(name, {**self._slots, **since})

    @staticmethod
    def _parameters(state: Cursor, *more: dict[str, Any]) -> tuple[dict[str, Any], ...]:
        since = () if state.since is None else ({"name": "@since", "value": state.since},)
        return (*more, *since)

    def _target(self, index: int, state: Cursor) -> str:
        return f"{self._label}, range {index + 1} of {len(state.ranges)}"

    async def _distinct(
        self, state: Cursor, index: int, remaining: float
    ) -> tuple[tuple[Key, ...], Cursor]:
        current = state.ranges[index]
        size = self._page_size()
        page = await self._calls.page(
            self._query("keys_distinct", state),
            Route(Scope.RANGE, feed_range=current.feed_range),
            operation=OPERATION,
            target=self._target(index, state),
            parameters=self._parameters(state),
            page_size=size,
            continuation=current.continuation,
            remaining_ru=remaining,
            scanned=size if self._calls.ledger.known_cost(OPERATION) else None,
        )
        keys = tuple(_keys(page.rows))
        if keys:  # what a key cost: the next pages are sized by it
            self._calls.ledger.learn_scan(OPERATION, len(keys), page.cost_ru)
        done = page.continuation is None
        return keys, state.with_range(
            index, replace(current, done=done, continuation=page.continuation)
        )

    async def _seek(
        self, state: Cursor, index: int, remaining: float
    ) -> tuple[tuple[Key, ...], Cursor]:
        current = state.ranges[index]
        route = Route(Scope.RANGE, feed_range=current.feed_range)
        target = self._target(index, state)
        if not current.checked_unlisted:
            page = await self._calls.page(
                render("keys_unlisted", self._slots),
                route,
                operation=OPERATION,
                target=target,
                page_size=1,
                remaining_ru=remaining,
            )
            unlisted = state.unlisted + ((index,) if page.rows else ())
            state = replace(
                state.with_range(index, replace(current, checked_unlisted=True)), unlisted=unlisted
            )
            return (), state
        phase = _PHASES[current.phase]
        name = f"keys_seek_{'first' if current.after is None else 'after'}_{phase}"
        after = () if current.after is None else ({"name": "@after", "value": current.after},)
        page = await self._calls.page(
            self._query(name, state),
            route,
            operation=OPERATION,
            target=target,
            parameters=self._parameters(state, *after),
            page_size=1,
            remaining_ru=remaining,
        )
        keys = tuple(_keys(page.rows[:1]))
        if keys:
            return keys, state.with_range(index, replace(current, after=keys[0].value))
        if current.phase + 1 < len(_PHASES):
            return (), state.with_range(
                index, replace(current, phase=current.phase + 1, after=None)
            )
        return (), state.with_range(index, replace(current, done=True))

    def _page_size(self) -> int:
        """Keys to ask for: a page whose cost is bounded by what is left of the budget,
        at what a key has cost so far (a small first page, before anything is known)."""
        ledger = self._calls.ledger
        if not ledger.known_cost(OPERATION):
            return FIRST_DISTINCT_PAGE
        left = ledger.left_ru()
        if left is None:
            return DISTINCT_PAGE
        floor = ledger.estimate_ru(OPERATION, scanned=0)
        per_key = ledger.estimate_ru(OPERATION, scanned=1000) - floor
        if per_key <= 0:
            return DISTINCT_PAGE
        # A fifth kept back: what a key costs varies from one range to the next.
        fits = int(0.8 * (left - floor) * 1000 / per_key)
        return max(1, min(DISTINCT_PAGE, fits))

    def _remaining(self, state: Cursor) -> float:
        """What finishing the listing may still cost, from what its finished ranges cost.

        Before any range is finished, the range under way is assumed to be halfway done.
        """
        total = len(state.ranges)
        left = total - state.done
        page = self._calls.ledger.estimate_ru(OPERATION)
        per_range = state.spent_ru / state.done if state.done else max(2 * state.spent_ru, page)
        estimate = per_range * left - (0 if state.done else state.spent_ru)
        return max(page, estimate, state.spent_ru)  # a guess: at least what it took so far


def _keys(rows: list[Any]) -> list[Key]:
    """The rows of a key query as keys (skipping undefined/objects the service may return)."""
    keys = []
    for row in rows:
        if row is None or isinstance(row, str | int | float | bool):
            keys.append(Key.of(row))
    return keys
