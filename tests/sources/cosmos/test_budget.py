"""One RU budget for every request: background work stops quietly, a foreground action asks once."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.model import BudgetQuestion, FrozenClock, Key, Scope, ThreadRef
from cosmem_tui.schemas.schema import schema_from_mapping
from cosmem_tui.sources.errors import BudgetSpent
from tests.conftest import ANCHOR
from tests.helpers import all_keys, exchange


def many_tenants(count: int) -> list[dict]:
    return [exchange(f"tenant-{n:02d}", "t", 0) for n in range(count)]


async def test_the_peer_rejects_distinct_so_keys_are_listed_by_index_seeks(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings())
    assert [k.text for k in await all_keys(store)] == ["acme", "globex", "initech"]
    notes = store.listing_notes()
    assert len(notes) == 1 and "loose index scan" in notes[0]
    rejected = [r for r in store.ledger.records() if r.status == 400]
    assert len(rejected) == 1 and "DISTINCT" not in rejected[0].target
    before = len(store.ledger.records())
    await all_keys(store)  # DISTINCT is not tried again on this service
    assert all(r.status in (200, 304) for r in store.ledger.records()[before:])


async def test_a_listing_stops_at_the_budget_says_so_and_resumes_exactly(containers, open_store):
    seeded = await containers(many_tenants(12))
    store = open_store(seeded.settings(ru_budget=12))  # the peer charges 1 RU a request
    directory = KeyDirectory(store, FrozenClock(ANCHOR))
    partial = await directory.list()
    assert not partial.complete and partial.stopped is not None
    assert "stopped at the session's RU budget of 12 RU" in partial.stopped
    assert partial.needed_ru is not None and partial.needed_ru > 0
    assert 0 < len(partial.keys) < 12
    assert store.ledger.spent_ru <= 12 + 1  # at most the page that was already on its way
    # More budget: the listing goes on from its cursor, and nothing is listed twice.
    store.ledger.set_budget(200.0)
    whole = await directory.list()
    assert whole.complete and whole.stopped is None
    assert [k.text for k in whole.keys] == [f"tenant-{n:02d}" for n in range(12)]


async def test_a_foreground_action_asks_once_saying_what_it_will_cost(containers, open_store):
    seeded = await containers(many_tenants(12))
    store = open_store(seeded.settings(ru_budget=8))
    asked: list[BudgetQuestion] = []

    async def confirm(question: BudgetQuestion) -> bool:
        asked.append(question)
        return True

    store.ledger.set_confirmer(confirm)
    keys = await all_keys(store)
    assert len(keys) == 12
    assert 1 <= len(asked) <= 2  # the estimate may prove short once, never once per page
    question = asked[0]
    assert question.estimate_ru > 0 and "RU more" in question.describe()
    assert store.ledger.budget_ru is not None and store.ledger.budget_ru > 8
    assert store.ledger.spent_ru <= store.ledger.budget_ru  # the budget on screen is enforced


async def test_a_declined_question_stops_the_action(containers, open_store):
    seeded = await containers(many_tenants(12))
    store = open_store(seeded.settings(ru_budget=8))

    async def decline(question: BudgetQuestion) -> bool:
        return False

    store.ledger.set_confirmer(decline)
    with pytest.raises(BudgetSpent) as caught:
        await all_keys(store)
    assert "not run" in caught.value.message


async def test_background_counts_stop_quietly_at_the_budget(containers, open_store):
    seeded = await containers(many_tenants(12))
    store = open_store(seeded.settings(ru_budget=30))
    asked: list[BudgetQuestion] = []

    async def confirm(question: BudgetQuestion) -> bool:
        asked.append(question)
        return True

    store.ledger.set_confirmer(confirm)
    directory = KeyDirectory(store, FrozenClock(ANCHOR))
    keys = (await directory.list()).keys
    states = await directory.count_all(keys)
    counted = [k for k, s in states.items() if s.counts is not None]
    stopped = [k for k, s in states.items() if s.error == "budget spent"]
    assert counted and stopped and len(counted) + len(stopped) == 12
    assert all(states[k].counts.items == 1 for k in counted)  # type: ignore[union-attr]
    assert not any("count" in q.operation for q in asked)  # counts never ask
    assert store.ledger.spent_ru <= store.ledger.budget_ru  # type: ignore[operator]


def tenant_without_prefix_schema():
    """The lab item shape in a container keyed by thread only: a tenant has no key prefix."""
    text = (resources.files("cosmem_tui.schemas") / "builtin" / "lab.toml").read_text()
    table = tomllib.loads(text)
    table.update(name="lab-by-thread", partition_key=["/threadId"])
    table.pop("detect", None)
    return schema_from_mapping(table, "test")


async def test_a_tenant_that_is_not_the_first_key_level_needs_no_dialog(containers, open_store):
    schema = tenant_without_prefix_schema()
    seeded = await containers(paths=("/threadId",))
    store = open_store(seeded.settings(), schema)
    asked: list[BudgetQuestion] = []

    async def confirm(question: BudgetQuestion) -> bool:
        asked.append(question)
        return True

    store.ledger.set_confirmer(confirm)
    assert {k.text for k in await all_keys(store)} == {"acme", "globex", "initech"}
    counts = await store.key_counts(Key.of("acme"))
    assert (counts.items, counts.threads) == (10, 2)
    assert {t.name for t in await store.list_threads(Key.of("acme"))} == {"t1", "t2"}
    # Each range is asked explicitly (one request per physical partition), never in a
    # blind fan-out, and within the budget nobody is asked anything.
    assert asked == []
    scopes = {r.scope for r in store.ledger.records()}
    assert Scope.RANGE in scopes and Scope.CROSS_PARTITION not in scopes


async def test_every_request_counts_against_the_budget(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings(ru_budget=5))
    with pytest.raises(BudgetSpent):
        for _ in range(10):  # point reads too: nothing is free
            await store.read_item(ThreadRef.of("acme", "t1"), "t1-0")
    assert store.ledger.spent_ru <= 6
