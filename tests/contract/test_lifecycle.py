"""The lifecycle half of the MemoryStore contract: TTL classes, forecasts and lists.

Every backend must give the numbers the model gives (``model/ttl.py`` is the
reference): items are seeded with ttls far from every forecast boundary, ``now`` is
the newest ``_ts`` the store reports (a frozen clock locally and on the fake gateway,
the peer's real clock), and the expected counts come from ``resolve_ttl`` and
``classify`` applied to the seeded items with that ``now``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from cosmem_tui.model import MISSING, Key, Scope, ThreadRef, TtlClass, resolve_ttl
from cosmem_tui.model.lifecycle import (
    DAY,
    FORECAST_HORIZONS,
    TtlScope,
    TtlSelection,
    drifts,
)
from cosmem_tui.model.ttl import classify
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.store import MemoryStore
from tests.contract.backends import Backend
from tests.helpers import exchange

LAB = get_schema("lab")
INVALID_TTLS: list[Any] = ["3600", None, 0, 1.5, True, -5, 2_147_483_648, [3600], {"s": 60}]


def seeded() -> list[dict[str, Any]]:
    items = [
        exchange("acme", "t1", 0, ttl=600),  # within the hour
        exchange("acme", "t1", 1, ttl=7200),  # within the day
        exchange("acme", "t1", 2, ttl=3 * DAY),  # within the week
        exchange("acme", "t1", 3, ttl=20 * DAY),  # within the month
        exchange("acme", "t1", 4, ttl=60 * DAY),  # later
        exchange("acme", "t1", 5, ttl=-1, type="summary"),  # long-term
        exchange("acme", "t1", 6, type="fact"),  # the container default
        exchange("acme", "t1", 7),  # the container default
        exchange("globex", "g1", 0, ttl=600),
        exchange("globex", "g1", 1, ttl=-1, type="fact"),
        exchange("globex", "g1", 2),
    ]
    items += [exchange("acme", "t2", i, ttl=raw) for i, raw in enumerate(INVALID_TTLS)]
    return items


def in_scope(item: dict[str, Any], scope: TtlScope) -> bool:
    if scope.thread is not None:
        return (item["tenantId"], item["threadId"]) == (
            scope.thread.tenant.value if scope.thread.tenant else None,
            scope.thread.thread.value,
        )
    if scope.tenant is not None:
        return bool(item["tenantId"] == scope.tenant.value)
    return True


def expected_summary(
    items: list[dict[str, Any]], scope: TtlScope, now: int, default: int | None
) -> tuple[dict[TtlClass, int], dict[int, int], dict[TtlClass, tuple[int, ...]]]:
    """Counts by class, the forecast, and each class's forecast, from the model."""
    classes: Counter[TtlClass] = Counter()
    by_class = {c: [0] * len(FORECAST_HORIZONS) for c in TtlClass}
    for item in items:
        if not in_scope(item, scope):
            continue
        raw = item.get("ttl", MISSING)
        ttl = resolve_ttl(raw, now, default)
        if ttl.is_expired(now):
            continue
        ttl_class = classify(raw, default)
        classes[ttl_class] += 1
        for n, horizon in enumerate(FORECAST_HORIZONS):
            if ttl.expires_at is not None and now < ttl.expires_at <= now + horizon:
                by_class[ttl_class][n] += 1
    forecast = {
        h: sum(counts[n] for counts in by_class.values()) for n, h in enumerate(FORECAST_HORIZONS)
    }
    return (
        {c: classes[c] for c in TtlClass},
        forecast,
        {c: tuple(v) for c, v in by_class.items()},
    )


async def newest_write(store: MemoryStore) -> int:
    stamps = []
    for ref in (
        ThreadRef.of("acme", "t1"),
        ThreadRef.of("acme", "t2"),
        ThreadRef.of("globex", "g1"),
    ):
        stamps += [i.ts for i in (await store.page_turns(ref, page_size=100)).items]
    return max(stamps)


SCOPES = [
    TtlScope.container(),
    TtlScope.of_tenant(Key.of("acme")),
    TtlScope.of_tenant(Key.of("globex")),
    TtlScope.of_thread(ThreadRef.of("acme", "t1")),
    TtlScope.of_thread(ThreadRef.of("acme", "t2")),
]


@pytest.mark.parametrize("default", [-1, 5 * DAY, None], ids=["no-default", "default-5d", "off"])
async def test_ttl_summary_agrees_with_the_model(backend: Backend, default: int | None) -> None:
    items = seeded()
    store = await backend.make_store(items, schema=LAB, default_ttl=default)
    store.ledger.set_budget(None)  # every scope of every class: more than one budget's worth
    now = await newest_write(store)
    for scope in SCOPES:
        summary = await store.ttl_summary(scope, now)
        classes, forecast, by_class = expected_summary(items, scope, now, default)
        assert dict(summary.classes) == classes, scope
        assert dict(summary.forecast) == forecast, scope
        assert {r.ttl_class: r.within for r in summary.rows} == by_class, scope
        assert summary.default_ttl == default and summary.now == now
        assert summary.last_write is not None and now - 5 <= summary.last_write <= now
    assert (await store.ttl_summary(TtlScope.container(), now)).last_write == now
    nobody = await store.ttl_summary(TtlScope.of_tenant(Key.of("nobody")), now)
    assert nobody.total == 0 and nobody.last_write is None


async def test_summary_requests_stay_in_their_scope(backend: Backend) -> None:
    store = await backend.make_store(seeded(), schema=LAB, default_ttl=-1)
    now = await newest_write(store)
    for scope, allowed in [
        (TtlScope.of_thread(ThreadRef.of("acme", "t1")), {Scope.PARTITION}),
        (TtlScope.of_tenant(Key.of("acme")), {Scope.PREFIX}),
        # The whole container is a fan-out: one range at a time, or one cross-partition.
        (TtlScope.container(), {Scope.RANGE, Scope.CROSS_PARTITION}),
    ]:
        before = len(store.ledger.records())
        await store.ttl_summary(scope, now)
        records = store.ledger.records()[before:]
        scopes = {r.scope for r in records if r.scope is not Scope.METADATA}
        assert scopes and scopes <= allowed, (scope, scopes)
        assert all(r.operation.startswith("ttl-") for r in records if r.scope in allowed)


async def test_expired_items_leave_the_summary(backend: Backend) -> None:
    items = [*seeded(), exchange("acme", "t1", 9, ttl=2)]
    store = await backend.make_store(items, schema=LAB, default_ttl=-1)
    now = await newest_write(store)
    scope = TtlScope.of_thread(ThreadRef.of("acme", "t1"))
    before = await store.ttl_summary(scope, now)
    await backend.advance(3)
    after = await store.ttl_summary(scope, now + 3)
    assert before.count(TtlClass.SHORT) - after.count(TtlClass.SHORT) == 1
    assert before.within(3600) - after.within(3600) == 1
    expiring = await store.ttl_items(scope, now + 3, TtlSelection.EXPIRING, limit=50, within=DAY)
    assert "t1-9" not in {i.item_id for i in expiring.items}


@pytest.mark.parametrize("default", [-1, 5 * DAY], ids=["no-default", "default-5d"])
async def test_soonest_expiring_items_come_soonest_first(
    backend: Backend, default: int | None
) -> None:
    items = seeded()
    store = await backend.make_store(items, schema=LAB, default_ttl=default)
    now = await newest_write(store)
    scope = TtlScope.of_tenant(Key.of("acme"))
    found = await store.ttl_items(scope, now, TtlSelection.EXPIRING, limit=3, within=30 * DAY)
    _, forecast, _ = expected_summary(items, scope, now, default)
    assert found.count == forecast[30 * DAY]
    assert [i.item_id for i in found.items] == ["t1-0", "t1-1", "t1-2"]
    first = found.items[0]
    assert first.ref == ThreadRef.of("acme", "t1") and first.kind == "turn"
    assert first.ttl.ttl_class is TtlClass.SHORT and first.ttl.raw == 600
    # What the row says of the item: its order value and its text, as browse reads them.
    assert [i.order for i in found.items] == [0, 1, 2]
    assert first.text == "user: hello 0 · agent: reply 0"
    assert [i.ttl.expires_at for i in found.items] == sorted(
        i.ttl.expires_at or 0 for i in found.items
    )
    week = await store.ttl_items(scope, now, TtlSelection.EXPIRING, limit=50, within=7 * DAY)
    assert week.count == len(week.items) == forecast[7 * DAY]


async def test_long_term_kinds_and_drift(backend: Backend) -> None:
    items = seeded()
    store = await backend.make_store(items, schema=LAB, default_ttl=-1)
    now = await newest_write(store)
    scope = TtlScope.of_tenant(Key.of("acme"))
    long_term = await store.ttl_items(scope, now, TtlSelection.LONG_TERM, limit=50)
    assert {i.item_id for i in long_term.items} == {"t1-5", "t1-6"}
    assert long_term.count == 2
    assert {i.kind for i in long_term.items} == {"summary", "fact"}
    assert {(i.order, i.text) for i in long_term.items} == {
        (5, "user: hello 5 · agent: reply 5"),
        (6, "user: hello 6 · agent: reply 6"),
    }
    lifetimes = LAB.lifetimes()
    expected = {
        f"{i['threadId']}-{i['turnIndex']}"
        for i in items
        if in_scope(i, scope)
        and drifts(
            resolve_ttl(i.get("ttl", MISSING), now, -1), lifetimes.get(i.get("type", "turn"))
        )
    }
    drift = await store.ttl_items(scope, now, TtlSelection.DRIFT, limit=50)
    assert {i.item_id for i in drift.items} == expected and drift.count == len(expected)
    assert all(i.expected == 3600 for i in drift.items)  # only turns drift here
    first = await store.ttl_items(scope, now, TtlSelection.DRIFT, limit=2)
    assert first.count == len(expected) and len(first.items) == 2 and not first.complete


async def test_lists_are_scoped_to_a_tenant_or_a_thread(backend: Backend) -> None:
    store = await backend.make_store(seeded(), schema=LAB, default_ttl=-1)
    now = await newest_write(store)
    with pytest.raises(ValueError):
        await store.ttl_items(TtlScope.container(), now, TtlSelection.LONG_TERM, limit=5)
    thread = TtlScope.of_thread(ThreadRef.of("globex", "g1"))
    long_term = await store.ttl_items(thread, now, TtlSelection.LONG_TERM, limit=5)
    assert [i.item_id for i in long_term.items] == ["g1-1"]
    assert store.ledger.records()[-1].scope is Scope.PARTITION
