"""The RU budget, confirmation before unbudgeted fan-outs, and the DISTINCT fallback."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from cosmem_tui.model import FanOutRequest, Scope
from cosmem_tui.profiles.schema import schema_from_mapping
from cosmem_tui.sources.errors import CrossPartitionDeclined
from tests.helpers import exchange


def many_tenants(count: int) -> list[dict]:
    return [exchange(f"tenant-{n:02d}", "t", 0) for n in range(count)]


async def test_the_peer_rejects_distinct_so_listings_fall_back(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings())
    tenants = await store.list_tenants()
    assert [(t.name, t.threads, t.items) for t in tenants] == [
        ("acme", 2, 10),
        ("globex", 3, 6),
        ("initech", 1, 1),
    ]
    assert store.distinct_fallback
    rejected = [r for r in store.gateway.records() if r.status == 400]
    assert len(rejected) == 1 and rejected[0].scope is Scope.CROSS_PARTITION
    before = len(store.gateway.records())
    await store.list_tenants()  # DISTINCT is not tried again on this service
    assert all(r.status == 200 for r in store.gateway.records()[before:])


async def test_a_scan_stops_at_the_budget_without_a_confirmer(containers, open_store):
    seeded = await containers(many_tenants(12))
    store = open_store(seeded.settings(ru_budget=4, scan_page_size=4))
    with pytest.raises(CrossPartitionDeclined) as caught:
        await store.list_tenants()
    assert caught.value.message.startswith("stopped list-tenants (all tenants)")
    assert "RU budget of 4 RU is spent" in caught.value.message


async def test_a_confirmed_scan_goes_on_with_one_more_budget(containers, open_store):
    seeded = await containers(many_tenants(12))
    store = open_store(seeded.settings(ru_budget=4, scan_page_size=4))
    asked: list[FanOutRequest] = []

    async def confirm(request: FanOutRequest) -> bool:
        asked.append(request)
        return True

    store.gateway.set_confirmer(confirm)
    tenants = await store.list_tenants()
    assert len(tenants) == 12
    assert asked and all(r.budget_reached for r in asked)
    assert "used up the session's RU budget" in asked[0].describe()
    assert store.gateway.budget_ru is not None and store.gateway.budget_ru > 4


def tenant_without_prefix_schema():
    """The lab item shape in a container keyed by thread only: a tenant has no key prefix."""
    text = (resources.files("cosmem_tui.profiles") / "builtin" / "lab.toml").read_text()
    table = tomllib.loads(text)
    table.update(name="lab-by-thread", partition_key=["/threadId"])
    table.pop("detect", None)
    return schema_from_mapping(table, "test")


async def test_an_unbudgeted_fan_out_is_asked_about_once(containers, open_store):
    schema = tenant_without_prefix_schema()
    seeded = await containers(paths=("/threadId",))
    store = open_store(seeded.settings(), schema)
    with pytest.raises(CrossPartitionDeclined) as caught:
        await store.list_threads("acme")
    assert "cross-partition query and was not confirmed" in caught.value.message
    asked: list[FanOutRequest] = []

    async def confirm(request: FanOutRequest) -> bool:
        asked.append(request)
        return True

    store.gateway.set_confirmer(confirm)
    assert {t.name for t in await store.list_threads("acme")} == {"t1", "t2"}
    assert {t.name for t in await store.list_threads("acme")} == {"t1", "t2"}
    assert len(asked) == 1 and not asked[0].budget_reached
    assert asked[0].target == "tenant acme"
    assert store.gateway.records()[-1].scope is Scope.CROSS_PARTITION


async def test_allow_cross_partition_confirms_up_front(containers, open_store):
    schema = tenant_without_prefix_schema()
    seeded = await containers(paths=("/threadId",))
    store = open_store(seeded.settings(allow_cross_partition=True), schema)
    assert {t.name for t in await store.list_threads("globex")} == {"g0", "g1", "g2"}
