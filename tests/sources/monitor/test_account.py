"""What ARM says about the account, through the real azure-core pipeline: its regions by
failover priority, serverless, and the container's offer — its own, else its database's
(shared), with autoscale — each read once in a while, ledgered, and a failure a problem.

Answers are shaped after the REST spec's examples (2024-11-15:
CosmosDBDatabaseAccountGet, CosmosDBSqlContainerThroughputGet,
CosmosDBSqlContainerMigrateToAutoscale).
"""

from __future__ import annotations

from typing import Any

from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import MetricQuery, ProblemKind, Span, ThroughputMode
from cosmem_tui.sources.monitor.telemetry import ACCOUNT_REUSE_S
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.conftest import ANCHOR
from tests.sources.monitor.azure_fake import (
    RESOURCE_ID,
    AzureFake,
    Reply,
    Sent,
    error_body,
    metrics_body,
)
from tests.sources.monitor.conftest import Opener

SPAN = Span(ANCHOR - 300, ANCHOR)
CONTAINER_OFFER = f"{RESOURCE_ID}/sqlDatabases/memory/containers/turns/throughputSettings/default"
DATABASE_OFFER = f"{RESOURCE_ID}/sqlDatabases/memory/throughputSettings/default"


def location(name: str, priority: int) -> dict[str, Any]:
    return {"locationName": name, "failoverPriority": priority, "id": f"agentmem-{priority}"}


def account_body(*, serverless: bool = False) -> dict[str, Any]:
    """A two-region account after a failover: the resource lives in East US, West US
    takes the writes now (failover priority 0)."""
    return {
        "id": RESOURCE_ID,
        "name": "agentmem",
        "location": "East US",
        "type": "Microsoft.DocumentDB/databaseAccounts",
        "kind": "GlobalDocumentDB",
        "properties": {
            "writeLocations": [location("West US", 0)],
            "readLocations": [location("East US", 1), location("West US", 0)],
            "locations": [location("East US", 1), location("West US", 0)],
            "capabilities": [{"name": "EnableServerless"}] if serverless else [],
        },
    }


def offer_body(throughput: int, maximum: int | None = None) -> dict[str, Any]:
    resource: dict[str, Any] = {"throughput": throughput, "minimumThroughput": "400"}
    if maximum is not None:
        resource["autoscaleSettings"] = {"maxThroughput": maximum}
    return {"name": "default", "properties": {"resource": resource}}


def not_found() -> Reply:
    return Reply(404, error_body("NotFound", "Throughput settings do not exist for the resource"))


def arm(routes: dict[str, Reply]) -> Any:
    def respond(sent: Sent) -> Reply:
        return routes.get(sent.path, Reply(404, error_body("NotFound", sent.path)))

    return respond


def paths(fake: AzureFake) -> list[str]:
    return [sent.path for sent in fake.requests_to("arm")]


async def test_regions_by_failover_priority_and_the_containers_own_offer(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    fake.answer(
        "arm",
        arm(
            {RESOURCE_ID: Reply(200, account_body()), CONTAINER_OFFER: Reply(200, offer_body(4000))}
        ),
    )
    source = await open_source(region=None)
    facts = await source.account("memory", "turns")
    assert facts.regions == ("West US", "East US") and facts.write_region == "West US"
    assert (facts.metrics_region, facts.metrics_region_from) == ("eastus", "ARM location")
    offer = facts.offer
    assert (offer.mode, offer.ru_s, offer.autoscale) == (ThroughputMode.DEDICATED, 4000.0, False)
    assert offer.owner == "container memory/turns"
    assert facts.problems == ()
    assert paths(fake) == [RESOURCE_ID, CONTAINER_OFFER]
    sent = fake.requests_to("arm")[1]
    assert sent.params["api-version"] == "2024-11-15"
    operations = [r.operation for r in ledger.records()]
    assert operations == ["arm: account", "arm: container throughput"]


async def test_a_container_without_an_offer_shares_its_databases_autoscale_offer(
    open_source: Opener, fake: AzureFake
):
    fake.answer(
        "arm",
        arm(
            {
                RESOURCE_ID: Reply(200, account_body()),
                CONTAINER_OFFER: not_found(),
                DATABASE_OFFER: Reply(200, offer_body(2000, maximum=20_000)),
            }
        ),
    )
    source = await open_source()
    facts = await source.account("memory", "turns")
    offer = facts.offer
    assert (offer.mode, offer.ru_s, offer.autoscale) == (ThroughputMode.SHARED, 20_000.0, True)
    assert offer.owner == "database memory"
    assert facts.problems == ()  # a 404 here is an answer, not a fault
    assert paths(fake) == [RESOURCE_ID, CONTAINER_OFFER, DATABASE_OFFER]


async def test_a_serverless_account_has_no_offer_to_ask_for(open_source: Opener, fake: AzureFake):
    fake.answer("arm", arm({RESOURCE_ID: Reply(200, account_body(serverless=True))}))
    source = await open_source()
    facts = await source.account("memory", "turns")
    assert facts.offer.mode is ThroughputMode.SERVERLESS and facts.offer.ru_s is None
    assert paths(fake) == [RESOURCE_ID]  # no throughputSettings read at all


async def test_an_unreadable_offer_is_a_problem_and_the_metric_stands_in(
    open_source: Opener, fake: AzureFake
):
    fake.answer(
        "arm",
        arm(
            {
                RESOURCE_ID: Reply(200, account_body()),
                CONTAINER_OFFER: Reply(403, error_body("AuthorizationFailed", "no read")),
            }
        ),
    )
    source = await open_source()
    facts = await source.account("memory", "turns")
    assert facts.offer.mode is ThroughputMode.UNKNOWN
    (problem,) = facts.problems
    assert problem.kind is ProblemKind.FORBIDDEN and problem.about == "arm: throughput"
    assert "the provisioned throughput is unknown" in problem.message
    assert "ProvisionedThroughput metric stands in" in problem.message
    assert "Reader on the account agentmem" in problem.fix


async def test_the_account_and_its_offer_are_read_once_in_a_while(
    open_source: Opener, fake: AzureFake, clock: FrozenClock
):
    fake.answer(
        "arm",
        arm(
            {RESOURCE_ID: Reply(200, account_body()), CONTAINER_OFFER: Reply(200, offer_body(400))}
        ),
    )
    source = await open_source()  # --region given: opening reads nothing
    assert paths(fake) == []
    await source.account("memory", "turns")
    await source.account("memory", "turns")
    clock.advance(ACCOUNT_REUSE_S - 1)
    await source.account("memory", "turns")
    assert len(paths(fake)) == 2
    clock.advance(1)
    await source.account("memory", "turns")
    assert len(paths(fake)) == 4


async def test_a_shared_offers_metrics_are_asked_of_the_database_alone(
    open_source: Opener, fake: AzureFake
):
    fake.answer("metrics", Reply(200, metrics_body(SPAN.start, SPAN.end)))
    source = await open_source()
    query = MetricQuery(
        "normalized_by_range",
        ("NormalizedRUConsumption",),
        "Maximum",
        60,
        SPAN,
        database="memory",
        split=("PartitionKeyRangeId",),
        where=(("Region", "West US"),),
        database_level=True,
    )
    await source.metrics([query])
    (sent,) = fake.requests_to("metrics")
    assert sent.params["filter"] == (
        "DatabaseName eq 'memory' and Region eq 'West US' and PartitionKeyRangeId eq '*'"
    )


async def test_latency_asks_gateway_and_direct_in_one_call(open_source: Opener, fake: AzureFake):
    fake.answer("metrics", Reply(200, metrics_body(SPAN.start, SPAN.end)))
    source = await open_source()
    query = MetricQuery(
        "latency", ("ServerSideLatencyGateway", "ServerSideLatencyDirect"), "Average", 60, SPAN
    )
    await source.metrics([query])
    (sent,) = fake.requests_to("metrics")
    assert sent.params["metricnames"] == "ServerSideLatencyGateway,ServerSideLatencyDirect"
    assert sent.params["aggregation"] == "Average"
