"""Partition merge on the account: an SDK that does not declare merge support is blocked.

learn "Merge partitions" says requests from any Python SDK are blocked once an account
has merge on. azure-cosmos 4.17.1 says otherwise: it has "merge support" since 4.14.2
(its changelog) and sends ``x-ms-cosmos-sdk-supportedcapabilities: 1`` (PartitionMerge)
on every request (``_base.GetHeaders``). The fake gateway with ``partition_merge=True``
blocks what does not declare it, answering as a blocked Go SDK was answered
(azure-sdk-for-go#20709: 400 BadRequest); the real message text was not found, so the
console recognises a 400/403 that speaks of a partition merge, and says what to do.
"""

from __future__ import annotations

from typing import Any

import pytest
from azure.core.pipeline.transport import AioHttpTransport

from cosmem_tui.model import Key
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.failures import CAPABILITIES_HEADER
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from cosmem_tui.sources.errors import BadRequest, StoreError
from tests.fake_cosmos import FakeCosmos
from tests.fake_cosmos.faults import MERGE_BLOCKED
from tests.helpers import all_keys, exchange

LAB = get_schema("lab")


class WithoutMergeSupport(AioHttpTransport):
    """What an SDK without merge support (or a proxy that drops the header) sends."""

    async def send(self, request: Any, **kwargs: Any) -> Any:
        request.headers.pop(CAPABILITIES_HEADER, None)
        return await super().send(request, **kwargs)


@pytest.fixture
def merged():
    with FakeCosmos(partition_merge=True) as fake:
        fake.create_container(
            "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=2, default_ttl=-1
        )
        fake.seed("db", "memory", [exchange(f"t{n}", "th", 0) for n in range(5)])
        yield fake


def open_store(fake: FakeCosmos, transport: Any = None) -> CosmosStore:
    settings = CosmosSettings(
        endpoint=fake.endpoint,
        database="db",
        container="memory",
        auth=AuthMode.KEY,
        key=fake.key,
        timeout_s=10.0,
    )
    return CosmosStore.open(settings, LAB, transport=transport)


async def test_the_console_declares_merge_support_and_is_served(merged):
    store = open_store(merged)
    try:
        assert [k.value for k in await all_keys(store)] == [f"t{n}" for n in range(5)]
        assert len(await store.list_threads(Key.of("t1"))) == 1
    finally:
        await store.close()
    entries = merged.log.entries()
    assert entries and all(e.status < 400 or e.status == 404 for e in entries)
    assert {e.headers.get(CAPABILITIES_HEADER) for e in entries} == {"1"}  # PartitionMerge


async def test_a_blocked_client_is_told_why_in_one_line_with_what_to_do(merged):
    store = open_store(merged, transport=WithoutMergeSupport())
    try:
        with pytest.raises(StoreError) as caught:
            await store.list_threads(Key.of("t1"))
    finally:
        await store.close()
    error = caught.value
    text = error.message
    assert "\n" not in text and len(text) < 500
    assert error.status == 400 and not isinstance(error, BadRequest)  # not "a bad query"
    assert "partition merge is on and the account refuses this client" in text
    assert MERGE_BLOCKED[1][:40] in text  # what the service said, as evidence
    assert f"no proxy drops the {CAPABILITIES_HEADER} header" in text
    assert "az cosmosdb update -g GROUP -n" in text and "--enable-partition-merge false" in text
    blocked = merged.log.entries()
    assert blocked and all(e.status == 400 for e in blocked)  # every request, from the first
    assert store.ledger.records()[-1].status == 400  # in the ledger like any answer
