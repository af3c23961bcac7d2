"""The doctor's data-plane probes on the fake gateway: the real azure-cosmos SDK, its real
403s (sub-status and message as Cosmos DB words them), and no item ever read."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from cosmem_tui.model import Kind, Scope
from cosmem_tui.model.doctor import (
    ALL_VERSIONS_MODE,
    EXECUTE_QUERY,
    ITEMS_READ,
    READ_CHANGE_FEED,
    READ_METADATA,
    Access,
)
from cosmem_tui.sources.cosmos.access_probe import PROBE_VALUE, CosmosAccessProbe, named_action
from cosmem_tui.sources.cosmos.account import CosmosAccount
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.fake_cosmos import Fault
from tests.helpers import exchange


def denial(action: str, resource: str = "dbs/db/colls/memory") -> str:
    """A 403's message as Cosmos DB's RBAC words it (learn "troubleshoot forbidden")."""
    return (
        "Request blocked by Auth fake-gateway : Request is blocked because principal "
        "[00000000-0000-0000-0000-00000000abcd] does not have required RBAC permissions to "
        f"perform action [{action}] on resource [{resource}]. Learn more: "
        "https://aka.ms/cosmos-native-rbac."
    )


@pytest.fixture
async def probe(fake_cosmos) -> AsyncIterator[Callable[..., CosmosAccessProbe]]:
    """A probe of a seeded [/tenantId, /threadId] container over four ranges."""
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=4, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", [exchange("acme", "t1", i) for i in range(20)])
    accounts: list[CosmosAccount] = []

    def make(**changes: Any) -> CosmosAccessProbe:
        settings = CosmosSettings(
            endpoint=fake_cosmos.endpoint,
            database="db",
            container="memory",
            auth=AuthMode.KEY,
            key=fake_cosmos.key,
            **changes,
        )
        account = CosmosAccount(settings, RequestLedger(budget_ru=400), fake_cosmos.key)
        accounts.append(account)
        return CosmosAccessProbe(account)

    yield make
    for account in accounts:
        await account.close()


async def test_every_action_is_tried_without_reading_an_item(probe, fake_cosmos):
    prober = probe()
    report = await prober.probe()
    actions = [(p.action, p.access, p.status) for p in report.probes]
    assert actions == [
        (READ_METADATA, Access.ALLOWED, 200),  # the account document
        (READ_METADATA, Access.ALLOWED, 200),  # the container's properties
        (ITEMS_READ, Access.ALLOWED, 404),  # an absent item: reads are allowed
        (EXECUTE_QUERY, Access.ALLOWED, 200),  # a count of an absent key
        (READ_CHANGE_FEED, Access.ALLOWED, 200),  # its change feed from now: a 304
        (ALL_VERSIONS_MODE, Access.ALLOWED, 200),  # … and in all-versions mode
    ]
    feeds = [e for e in fake_cosmos.log.of("feed") if e.operation == "change-feed"]
    assert {e.status for e in feeds} == {304} and {e.priority for e in feeds} == {"Low"}
    assert report.container is not None
    assert report.container.partition_key.paths == ("/tenantId", "/threadId")
    # Nothing an agent wrote crossed the wire: the point read found nothing, the query
    # was scoped to the absent key and counted.
    points = fake_cosmos.log.of("point")
    assert [e.status for e in points] == [404] and PROBE_VALUE in points[0].path
    queries = fake_cosmos.log.queries()
    assert queries and all("COUNT(1)" in (e.query or "") for e in queries)
    assert all(PROBE_VALUE in (e.partition_key or "") for e in queries)  # one partition
    assert sum(e.item_count for e in queries) <= 1  # one VALUE row: the count, 0
    assert {e.priority for e in [*points, *queries]} == {"Low"}  # as every console read
    # Each request is in the ledger, with its scope, and the RU it cost.
    records = prober._account.ledger.records()
    assert {r.operation for r in records} >= {
        "doctor: read-account",
        "doctor: read-container",
        "doctor: read-item",
        "doctor: count",
    }
    point = next(r for r in records if r.operation == "doctor: read-item")
    assert (point.scope, point.kind, point.status) == (Scope.POINT, Kind.POINT, 404)
    # Each probe's cost counts its own requests (and, if it came in time, the SDK's own
    # refresh that the account read started).
    own = [r for r in records if r.operation != "sdk-background"]
    assert len(own) <= sum(p.cost.requests for p in report.probes) <= len(records)


async def test_a_container_without_all_versions_mode_answers_400(probe, fake_cosmos):
    fake_cosmos.container("db", "memory").feed.all_versions = False
    report = await probe().probe()
    refused = report.probe(ALL_VERSIONS_MODE)
    assert refused is not None and refused.access is Access.DENIED and refused.status == 400
    assert "not enabled" in refused.message
    latest = report.probe(READ_CHANGE_FEED)
    assert latest is not None and latest.access is Access.ALLOWED


async def test_a_403_with_sub_status_5301_names_the_missing_metadata_action(probe, fake_cosmos):
    fake_cosmos.faults.add(
        Fault(status=403, sub_status=5301, kind="metadata", message=denial(READ_METADATA, "/"))
    )
    report = await probe().probe()
    (account,) = report.probes  # nothing else can go before the account is read
    assert account.access is Access.DENIED
    assert (account.status, account.sub_status) == (403, 5301)
    assert account.named_action == READ_METADATA
    assert "does not have required RBAC permissions" in account.message
    assert report.container is None and report.container_failure is not None
    assert not fake_cosmos.log.of("point") and not fake_cosmos.log.queries()


async def test_a_query_refused_by_rbac_is_told_apart_from_reads_that_work(probe, fake_cosmos):
    fake_cosmos.faults.add(
        Fault(status=403, sub_status=5302, kind="query", message=denial(EXECUTE_QUERY))
    )
    report = await probe().probe()
    by_action = {p.action: p for p in report.probes}
    assert by_action[ITEMS_READ].access is Access.ALLOWED
    query = by_action[EXECUTE_QUERY]
    assert (query.access, query.sub_status, query.named_action) == (
        Access.DENIED,
        5302,
        EXECUTE_QUERY,
    )


async def test_an_unanswered_probe_is_no_verdict_not_a_denial(probe, fake_cosmos):
    fake_cosmos.faults.add(Fault(status=None, hang=True, kind="point", count=1))
    report = await probe(timeout_s=0.5).probe()
    point = next(p for p in report.probes if p.action == ITEMS_READ)
    assert point.access is Access.FAILED and point.status == 0
    assert "did not answer" in point.message
    fake_cosmos.faults.release()


def test_the_action_is_read_from_the_message_as_cosmos_words_it():
    assert named_action(denial(EXECUTE_QUERY)) == EXECUTE_QUERY
    escaped = denial(READ_METADATA).replace("/", "\\/")  # the .NET SDK's JSON escapes
    assert named_action(escaped) == READ_METADATA
    assert named_action("Request originated from client IP 1.2.3.4 through public internet") is None
