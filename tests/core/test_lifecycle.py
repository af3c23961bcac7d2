"""The lifecycle use case over a real workspace with a frozen clock: counts, lists, idle
threads, naming a scope, and the container-wide fan-out that is asked for first."""

from __future__ import annotations

from typing import Any

import pytest

from cosmem_tui.compose import open_local_session
from cosmem_tui.core.errors import UnknownTenant
from cosmem_tui.core.lifecycle import REPORT_REUSE_S, LifecycleService, soonest_horizon
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.model import BudgetQuestion, FrozenClock, Key, Scope, ThreadRef, TtlClass
from cosmem_tui.model.lifecycle import DAY, HOUR, TtlScope, TtlSelection, TtlSummary
from tests.helpers import build_workspace, exchange


def items() -> list[dict[str, Any]]:
    return [
        exchange("acme", "t1", 0, ttl=600),
        exchange("acme", "t1", 1, ttl=2 * HOUR),
        exchange("acme", "t1", 2, ttl=-1, type="summary"),
        exchange("acme", "t1", 3, type="fact"),
        exchange("acme", "t2", 0, ttl="3600"),
        exchange(42, "n1", 0, ttl=3 * DAY),
        exchange("42", "s1", 0, ttl=600),
    ]


@pytest.fixture
def session(tmp_path, clock: FrozenClock) -> Session:
    path = build_workspace(tmp_path / "ttl.sqlite", items(), now=int(clock.now()))
    return open_local_session(SessionOptions(workspace=path), clock)


@pytest.fixture
def service(session: Session) -> LifecycleService:
    return LifecycleService(session.store, session.browse, idle_gap_s=1800)


async def test_a_tenant_report(service: LifecycleService, clock: FrozenClock) -> None:
    clock.advance(3600)  # every thread has been idle an hour: past the 30-minute gap
    report = await service.report(TtlScope.of_tenant(Key.of("acme")))
    summary = report.summary
    assert summary is not None and report.now == int(clock.now())
    # t1-0 (ttl 600) expired while the clock moved: it is gone from every number.
    assert dict(summary.classes) == {
        TtlClass.SHORT: 1,
        TtlClass.LONG: 1,
        TtlClass.DEFAULT: 1,
        TtlClass.INVALID: 1,
        TtlClass.IGNORED: 0,
    }
    assert summary.within(HOUR) == 1 and summary.expiring == 1 and summary.never == 3
    assert report.soonest is not None
    assert [i.item_id for i in report.soonest.items] == ["t1-1"]
    assert report.long_term is not None
    assert {i.item_id for i in report.long_term.items} == {"t1-2", "t1-3"}
    # The lab schema expects turns to live an hour: t1-1 lives two, t2-0 ("3600") never.
    assert report.drift is not None
    assert {i.item_id for i in report.drift.items} == {"t1-1", "t2-0"}
    assert {i.thread.name for i in report.idle} == {"t1", "t2"} and report.threads == 2
    assert all(i.idle_s == 3600 for i in report.idle)


async def test_threads_written_within_the_gap_are_not_idle(service: LifecycleService) -> None:
    report = await service.report(TtlScope.of_tenant(Key.of("acme")))
    assert report.idle == () and report.threads == 2
    thread = await service.report(TtlScope.of_thread(ThreadRef.of("acme", "t1")))
    assert thread.idle == ()


async def test_an_idle_thread_says_so(service: LifecycleService, clock: FrozenClock) -> None:
    clock.advance(1801)
    report = await service.report(TtlScope.of_thread(ThreadRef.of("acme", "t1")))
    assert [(i.thread.name, i.idle_s) for i in report.idle] == [("t1", 1801)]


def summary_with(within: dict[int, int], expiring: int) -> TtlSummary:
    forecast = {TtlClass.SHORT: within}
    return TtlSummary.of(TtlScope(), 0, -1, {TtlClass.SHORT: expiring}, forecast)


def test_the_soonest_are_read_from_the_smallest_horizon_that_holds_them() -> None:
    assert soonest_horizon(summary_with({}, 0), 20) is None
    assert soonest_horizon(summary_with({HOUR: 25, DAY: 40}, 90), 20) == HOUR
    assert soonest_horizon(summary_with({HOUR: 5, DAY: 40}, 90), 20) == DAY
    assert soonest_horizon(summary_with({HOUR: 3, DAY: 3, 7 * DAY: 3, 30 * DAY: 3}, 3), 20) == HOUR
    # Fewer than wanted within the month, more beyond it: read every item that expires.
    many = {HOUR: 1, DAY: 1, 7 * DAY: 1, 30 * DAY: 2}
    assert soonest_horizon(summary_with(many, 9), 20) == 2_147_483_647


async def test_names_are_read_as_browse_reads_them(service: LifecycleService) -> None:
    assert await service.scope_named([]) == TtlScope.container()
    assert await service.scope_named(["42"]) == TtlScope.of_tenant(Key.of(42))
    assert await service.scope_named(['"42"']) == TtlScope.of_tenant(Key.of("42"))
    scope = await service.scope_named(["acme", "t1"])
    assert scope == TtlScope.of_thread(ThreadRef.of("acme", "t1"))
    report = await service.report(await service.scope_named(["nobody"]), lists=False)
    with pytest.raises(UnknownTenant):
        service.check_found(report)


async def test_the_container_is_asked_for_then_fans_out(
    session: Session, service: LifecycleService
) -> None:
    report = await service.report(TtlScope.container())
    assert report.summary is None  # nothing sent for the container on the way
    asked: list[BudgetQuestion] = []

    async def no(question: BudgetQuestion) -> bool:
        asked.append(question)
        return False

    session.ledger.set_confirmer(no)
    assert not await service.ask_container()
    assert "fan-out" in asked[0].describe() and asked[0].estimate_ru > 0
    before = len(session.ledger.records())
    report = await service.container_report()
    assert report.summary is not None and report.summary.total == len(items())
    scopes = {r.scope for r in session.ledger.records()[before:]}
    assert Scope.CROSS_PARTITION in scopes


async def test_lists_follow_the_model(service: LifecycleService, session: Session) -> None:
    scope = TtlScope.of_tenant(Key.of(42))
    found = await session.store.ttl_items(
        scope, service.now(), TtlSelection.EXPIRING, limit=5, within=7 * DAY
    )
    assert [i.ref for i in found.items] == [ThreadRef.of(42, "n1")]
    assert found.items[0].ttl.describe(service.now()).startswith("short-term: expires in 3d00h")


async def test_a_report_asked_again_within_its_age_costs_nothing(
    session: Session, service: LifecycleService, clock: FrozenClock
) -> None:
    acme = TtlScope.of_tenant(Key.of("acme"))
    ledger = session.ledger
    first = await service.report(acme)
    assert not first.reused and first.has_lists
    sent = len(ledger.records())
    await service.report(TtlScope.of_tenant(Key.of(42)))  # another tenant in between
    between = len(ledger.records())
    clock.advance(120)
    again = await service.report(acme)  # reopened two minutes later
    assert len(ledger.records()) == between > sent  # nothing sent for it
    assert again.reused and again.now == first.now and again.age_s(clock.now()) == 120
    assert again.summary == first.summary and again.soonest == first.soonest
    fresh = await service.report(acme, fresh=True)  # r: counted again
    assert not fresh.reused and fresh.now == int(clock.now()) and len(ledger.records()) > between
    clock.advance(REPORT_REUSE_S + 1)  # too old to show again: counted again
    recounted = len(ledger.records())
    assert not (await service.report(acme)).reused and len(ledger.records()) > recounted
    # The whole container: counted once, shown again without a question or a request.
    counted = await service.container_report()
    before = len(ledger.records())
    assert (await service.container_report(fresh=False)).reused
    assert (await service.report(TtlScope.container())).summary == counted.summary
    assert len(ledger.records()) == before


async def test_the_lists_agree_with_the_counts(service: LifecycleService) -> None:
    for scope in (
        TtlScope.of_tenant(Key.of("acme")),
        TtlScope.of_thread(ThreadRef.of("acme", "t1")),
    ):
        report = await service.report(scope)
        summary = report.summary
        assert summary is not None and report.soonest is not None and report.long_term is not None
        # The soonest are every item expiring within their horizon, as the forecast counts.
        assert report.soonest_within is not None
        assert report.soonest.count == summary.within(report.soonest_within)
        # The long-term kinds (a fact, a summary) are not the long-term TTL class (ttl -1):
        # the fact has no ttl, so the class counts one item and the list two.
        assert report.long_term_kinds == ("fact", "summary")
        assert report.long_term.count == 2 and summary.count(TtlClass.LONG) == 1
    container = await service.container_report()
    assert container.summary is not None and not container.has_lists  # counts only


@pytest.mark.parametrize(
    "scope",
    [
        TtlScope.container(),
        TtlScope.of_tenant(Key.of("acme")),
        TtlScope.of_thread(ThreadRef.of("acme", "t1")),
    ],
)
async def test_the_estimate_of_a_summary_is_within_half_again_of_its_cost(
    session: Session, service: LifecycleService, scope: TtlScope
) -> None:
    estimate = await session.store.ttl_summary_estimate(scope, service.now())
    with session.ledger.meter() as cost:
        await session.store.ttl_summary(scope, service.now())
    assert cost.request_units / 1.5 <= estimate <= cost.request_units * 1.5
