"""Run one query page inside one physical range (optionally narrowed to an EPK
sub-range or one logical partition), as a partition of the real service does.

Everything a range-targeted request asks for is computed range-locally: filters,
projections, ORDER BY, DISTINCT, TOP, OFFSET/LIMIT, aggregates and GROUP BY. A page
stops after ``max_items`` rows and hands back a continuation that names this range,
this query and the exact position, so resuming repeats and skips nothing.

How a page is produced (and therefore what it costs, see ``charges``) was decided by
``query_prepare``:

* ``plain`` — documents in ``(epk, seq)`` order, resumed after the last one visited.
* ``index`` — an ORDER BY, or a DISTINCT whose rows depend on one path only, walks
  that path's sorted index (descending keeps ties in ascending ``_rid`` order, so DESC
  is *not* the reverse of ASC); a range filter on the same path seeks, so a
  ``TOP 1 … WHERE p > @x ORDER BY p`` touches one entry.
* ``sorted`` / ``group`` / ``aggregate`` / ``subquery`` — everything else is computed
  from all candidates and paged by a sort key; such pages pay for all candidates.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tests.fake_cosmos import continuation
from tests.fake_cosmos.charges import Meter
from tests.fake_cosmos.query_prepare import Bound, Prepared, prepare, prepared_for
from tests.fake_cosmos.sql_eval import new_accumulator
from tests.fake_cosmos.store import INF, Container, Doc, PartitionRange
from tests.fake_cosmos.values import UNDEFINED, Descending, SortKey, sort_key

__all__ = ["Scope", "prepare", "prepared_for", "run_page"]

SKIP: Any = object()  # a visited document that yields no row
DEFAULT_PAGE = 100  # the service's page size when x-ms-max-item-count is absent
DYNAMIC_PAGE = 1000  # x-ms-max-item-count: -1 (the service picks; at most 1000 here)


# -- scope ----------------------------------------------------------------------------------


@dataclass
class Scope:
    """What one backend request may see: a range, narrowed by EPK bounds or to a point."""

    container: Container
    range: PartitionRange
    now: float
    lo: str = ""  # inclusive EPK lower bound
    hi: str | None = None  # exclusive EPK upper bound (None: the range's end)
    point: str | None = None  # one logical partition's EPK

    def contains(self, epk: str) -> bool:
        if self.point is not None:
            return epk == self.point
        return epk >= self.lo and (self.hi is None or epk < self.hi)

    def docs(self, after: tuple[str, int] | None = None) -> Iterator[Doc]:
        """Visible documents in scope, in ``(epk, seq)`` order, after ``after``."""
        keys, docs = self.range.ordered()
        start_epk = self.point if self.point is not None else self.lo
        start = bisect.bisect_left(keys, (start_epk, -1)) if start_epk else 0
        if after is not None:
            start = max(start, bisect.bisect_right(keys, after))
        container, now = self.container, self.now
        for i in range(start, len(docs)):
            doc = docs[i]
            if self.point is not None:
                if doc.epk != self.point:
                    break
            elif self.hi is not None and doc.epk >= self.hi:
                break
            if container.visible(doc, now):
                yield doc


# -- cursors --------------------------------------------------------------------------------


@dataclass
class Visit:
    key: tuple[Any, ...]  # position in the stream (what a continuation resumes after)
    doc: Doc | None = None
    row: Any = SKIP  # already-evaluated rows (materialised modes)
    walked: bool = False


class Cursor:
    def next(self) -> Visit | None:
        raise NotImplementedError

    def has_more(self) -> bool:
        raise NotImplementedError

    def skip_value(self) -> tuple[Any, ...] | None:
        """After a DISTINCT row: jump past every entry with the same value."""
        return None


class DocCursor(Cursor):
    """Documents in (epk, seq) order."""

    def __init__(self, scope: Scope, after: tuple[str, int] | None) -> None:
        self._it = scope.docs(after)
        self._peeked: Doc | None = None

    def next(self) -> Visit | None:
        doc = self._peeked if self._peeked is not None else next(self._it, None)
        self._peeked = None
        return None if doc is None else Visit(doc.key, doc)

    def has_more(self) -> bool:
        if self._peeked is None:
            self._peeked = next(self._it, None)
        return self._peeked is not None


class IndexCursor(Cursor):
    """One path's index, ascending, or descending by value with ties by ascending seq."""

    def __init__(
        self,
        scope: Scope,
        path: tuple[str | int, ...],
        desc: bool,
        bounds: tuple[Bound | None, Bound | None],
        after: tuple[Any, Any] | None,
        meter: Meter,
    ) -> None:
        index = scope.range.index(path)
        self.entries, self.keys = index.descending() if desc else (index.entries, index.keys)
        self.scope, self.desc, self.meter = scope, desc, meter
        self.lo, self.hi = bounds
        start = 0
        seek = self.hi if desc else self.lo
        if seek is not None:
            probe = self._wrap(seek.key)
            start = bisect.bisect_left(self.keys, (probe,) if seek.inclusive else (probe, INF))
        if after is not None:
            value_key, seq = after
            probe_after = (self._wrap(value_key), INF if seq is None else seq)
            start = max(start, bisect.bisect_right(self.keys, probe_after))
        self.pos = start

    def _wrap(self, key: SortKey) -> Any:
        return Descending(key) if self.desc else key

    def _past_end(self, value_key: SortKey) -> bool:
        if self.desc:
            lo = self.lo
            return lo is not None and (
                value_key < lo.key or (not lo.inclusive and value_key == lo.key)
            )
        hi = self.hi
        return hi is not None and (value_key > hi.key or (not hi.inclusive and value_key == hi.key))

    def _advance(self) -> int | None:
        """Position of the next entry in scope (without consuming it)."""
        scope, container, now = self.scope, self.scope.container, self.scope.now
        while self.pos < len(self.entries):
            value_key, _seq, doc = self.entries[self.pos]
            if self._past_end(value_key):
                self.pos = len(self.entries)
                return None
            if scope.contains(doc.epk) and container.visible(doc, now):
                return self.pos
            self.pos += 1
        return None

    def next(self) -> Visit | None:
        at = self._advance()
        if at is None:
            return None
        self.pos += 1
        value_key, seq, doc = self.entries[at]
        self.meter.index_entries += 1
        return Visit((value_key, seq), doc, walked=True)

    def has_more(self) -> bool:
        return self._advance() is not None

    def skip_value(self) -> tuple[Any, ...] | None:
        """Past the rest of the last value's entries — still read, so still charged."""
        if self.pos == 0:
            return None
        value_key = self.entries[self.pos - 1][0]
        end = bisect.bisect_right(self.keys, (self._wrap(value_key), INF), lo=self.pos)
        scope, container, now = self.scope, self.scope.container, self.scope.now
        for _key, _seq, doc in self.entries[self.pos : end]:
            if scope.contains(doc.epk) and container.visible(doc, now):
                self.meter.index_entries += 1
        self.pos = end
        return (value_key, None)


class ListCursor(Cursor):
    """Materialised rows, sorted by key, resumed after a key."""

    def __init__(
        self, rows: list[tuple[tuple[Any, ...], Any]], after: tuple[Any, ...] | None
    ) -> None:
        self.rows = rows
        self.pos = 0
        if after is not None:
            keys = [k for k, _ in rows]
            self.pos = bisect.bisect_right(keys, after)

    def next(self) -> Visit | None:
        if self.pos >= len(self.rows):
            return None
        key, row = self.rows[self.pos]
        self.pos += 1
        return Visit(key, row=row)

    def has_more(self) -> bool:
        return self.pos < len(self.rows)


# -- running a page -------------------------------------------------------------------------


@dataclass
class PageResult:
    rows: list[Any]
    token: str | None
    meter: Meter
    visited: int = 0


class _Run:
    def __init__(self, prepared: Prepared, scope: Scope, meter: Meter) -> None:
        self.p = prepared
        self.scope = scope
        self.meter = meter

    # -- filtering with accounting --------------------------------------------------------

    def admit(self, doc: Doc, walked: bool) -> bool:
        p, body, meter = self.p, doc.body, self.meter
        for f in p.index_filters:
            if f.fn(body, None) is not True:
                return False
        loaded = False
        if not walked and (p.index_filters or not (p.residual or p.needs_doc)):
            meter.index_entries += 1
        if p.residual:
            meter.load(doc.size)
            loaded = True
            for fn in p.residual:
                if fn(body, None) is not True:
                    return False
        if p.needs_doc and not loaded:
            meter.load(doc.size)
        return True

    def row_of(self, visit: Visit) -> Any:
        if visit.doc is None:
            return visit.row
        if not self.admit(visit.doc, visit.walked):
            return SKIP
        row = self.p.projection(visit.doc.body, None)
        return SKIP if row is UNDEFINED else row

    def candidates(self) -> list[Doc]:
        return [d for d in self.scope.docs() if self.admit(d, walked=False)]

    # -- materialised modes -----------------------------------------------------------------

    def materialise(self, bodies: list[tuple[int, Any]]) -> list[tuple[tuple[Any, ...], Any]]:
        """Rows with their stream keys for the sorted / group / aggregate modes."""
        p = self.p
        q = p.query
        if p.agg_args and not q.group_by:
            accs = [new_accumulator(name) for name, _ in p.agg_args]
            for _seq, body in bodies:
                for acc, (_name, fn) in zip(accs, p.agg_args, strict=True):
                    acc.add(fn(body, None))
            row = p.projection({}, [a.result() for a in accs])
            return [] if row is UNDEFINED else [((0,), row)]
        if q.group_by:
            groups: dict[SortKey, tuple[list[Any], Any, list[Any]]] = {}
            for _seq, body in bodies:
                values = [fn(body, None) for fn in p.group_fns]
                gkey = tuple(sort_key(v) for v in values)
                if gkey not in groups:
                    groups[gkey] = (values, body, [new_accumulator(n) for n, _ in p.agg_args])
                for acc, (_name, fn) in zip(groups[gkey][2], p.agg_args, strict=True):
                    acc.add(fn(body, None))
            out = []
            for gkey in sorted(groups):
                values, first, accs = groups[gkey]
                row = p.projection(first, [a.result() for a in accs])
                if row is not UNDEFINED:
                    out.append(((gkey,), row))
            return self._distinct(out) if q.distinct else out
        if q.order_by:
            keyed = []
            for seq, body in bodies:
                row = p.projection(body, None)
                if row is UNDEFINED:
                    continue
                okey = tuple(
                    Descending(sort_key(fn(body, None))) if desc else sort_key(fn(body, None))
                    for fn, desc in p.order_fns
                )
                keyed.append(((okey, seq), row))
            keyed.sort(key=lambda kr: kr[0])
            if q.distinct:
                seen: set[SortKey] = set()
                unique = []
                for key, row in keyed:
                    rk = sort_key(row)
                    if rk not in seen:
                        seen.add(rk)
                        unique.append((key, row))
                return unique
            return keyed
        rows = []
        for seq, body in bodies:
            row = p.projection(body, None)
            if row is not UNDEFINED:
                rows.append(((seq,), row))
        return self._distinct(rows) if q.distinct else rows

    @staticmethod
    def _distinct(rows: list[tuple[tuple[Any, ...], Any]]) -> list[tuple[tuple[Any, ...], Any]]:
        unique: dict[SortKey, Any] = {}
        for _key, row in rows:
            unique.setdefault(sort_key(row), row)
        return [((k,), unique[k]) for k in sorted(unique)]


def _encode_key(key: tuple[Any, ...]) -> Any:
    """A stream key as JSON for the token (values, not their sort keys)."""
    return json.loads(json.dumps(key, default=_key_default))


def _key_default(obj: Any) -> Any:
    if isinstance(obj, Descending):
        return {"d": obj.key}
    raise TypeError(type(obj).__name__)


def _decode_key(raw: Any) -> Any:
    if isinstance(raw, dict) and set(raw) == {"d"}:
        return Descending(_decode_key(raw["d"]))
    if isinstance(raw, list):
        return tuple(_decode_key(v) for v in raw)
    return raw


def run_page(
    prepared: Prepared,
    scope: Scope,
    max_items: int | None,
    token: str | None,
    *,
    max_visits: int | None = None,
) -> PageResult:
    """One page of ``prepared`` in ``scope``; ``token`` resumes a previous page."""
    meter = Meter()
    produced = 0
    after: Any = None
    rng = scope.range
    if token:
        payload = continuation.decode(token)
        continuation.check(
            payload, range_id=rng.id, lo=rng.min, hi=rng.max, query=prepared.fingerprint
        )
        produced = int(payload.get("n", 0))
        after = _decode_key(payload.get("k"))
    page_size = (
        DEFAULT_PAGE if max_items is None else (DYNAMIC_PAGE if max_items < 0 else max_items)
    )
    page_size = max(page_size, 1)
    run = _Run(prepared, scope, meter)
    cursor = _cursor(run, after)
    cap = prepared.cap
    offset = prepared.offset or 0
    distinct_walk = prepared.mode == "index" and prepared.query.distinct
    rows: list[Any] = []
    last_key: tuple[Any, ...] | None = None
    visited = 0
    exhausted = False
    while True:
        if cap is not None and produced >= cap:
            exhausted = True
            break
        if max_visits is not None and visited >= max_visits:
            break
        visit = cursor.next()
        if visit is None:
            exhausted = True
            break
        visited += 1
        last_key = visit.key
        row = run.row_of(visit)
        if row is SKIP:
            continue
        if distinct_walk:
            last_key = cursor.skip_value() or last_key
        if produced < offset:
            produced += 1
            continue
        rows.append(row)
        produced += 1
        if len(rows) >= page_size:
            break
    more = not exhausted and cursor.has_more() and (cap is None or produced < cap)
    out_token = None
    if more and last_key is not None:
        out_token = continuation.encode(
            {
                "v": 1,
                "r": rng.id,
                "lo": rng.min,
                "hi": rng.max,
                "q": prepared.fingerprint,
                "m": prepared.mode,
                "n": produced,
                "k": _encode_key(last_key),
            }
        )
    return PageResult(rows, out_token, meter, visited)


def _cursor(run: _Run, after: Any) -> Cursor:
    p, scope = run.p, run.scope
    if p.mode == "plain":
        return DocCursor(scope, tuple(after) if after is not None else None)
    if p.mode == "index":
        assert p.walk_path is not None
        walk_after = None
        if after is not None:
            value_key, seq = after
            walk_after = (value_key, seq)
        return IndexCursor(scope, p.walk_path, p.walk_desc, p.walk_bounds(), walk_after, run.meter)
    if p.mode == "subquery":
        assert p.inner is not None
        inner_rows = all_rows(p.inner, scope, run.meter)
        outer = _Run(p, scope, run.meter)
        bodies = []
        for i, row in enumerate(inner_rows):
            if all(fn(row, None) is True for fn in p.residual):
                bodies.append((i, row))
        return ListCursor(outer.materialise(bodies), after)
    bodies = [(d.seq, d.body) for d in run.candidates()]
    return ListCursor(run.materialise(bodies), after)


def all_rows(prepared: Prepared, scope: Scope, meter: Meter) -> list[Any]:
    """Every row of a query in a scope (a subquery's input), charged to ``meter``."""
    rows: list[Any] = []
    token: str | None = None
    while True:
        page = run_page(prepared, scope, DYNAMIC_PAGE, token)
        meter.add(page.meter)
        rows.extend(page.rows)
        token = page.token
        if token is None:
            return rows
