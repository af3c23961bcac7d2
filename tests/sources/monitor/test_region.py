"""Which regional metrics host: the setting, else ARM's location of the resource, else
(ARM not readable) the Cosmos write region, said as such; an answer from another region
is followed — and a resource that is not a Cosmos account is refused."""

from __future__ import annotations

from azure.core.exceptions import ServiceRequestError

from cosmem_tui.model import FrozenClock, Kind, Scope
from cosmem_tui.model.telemetry import LogName, LogQuery, MetricQuery, ProblemKind, Span
from cosmem_tui.sources.monitor.settings import CLOUDS
from cosmem_tui.sources.monitor.telemetry import MIN_REFRESH_S
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.conftest import ANCHOR
from tests.sources.monitor.azure_fake import (
    RESOURCE_ID,
    AzureFake,
    FakeCredential,
    Reply,
    error_body,
    metric,
    metrics_body,
)
from tests.sources.monitor.conftest import Opener
from tests.sources.monitor.test_logs import Workspace

SPAN = Span(ANCHOR - 300, ANCHOR)
QUERY = MetricQuery("ru", ("TotalRequestUnits",), "Total", 60, SPAN)


def account(location: str = "East US", kind: str = "Microsoft.DocumentDB/databaseAccounts"):
    return Reply(
        200,
        {
            "id": RESOURCE_ID,
            "name": "agentmem",
            "location": location,
            "type": kind,
            "kind": "GlobalDocumentDB",
            "properties": {"documentEndpoint": "https://agentmem.documents.azure.com:443/"},
        },
    )


def ok_metrics(region: str = "eastus") -> Reply:
    return Reply(
        200,
        metrics_body(
            SPAN.start,
            SPAN.end,
            metric("TotalRequestUnits", "Count", [({}, [(SPAN.start, {"total": 1.0})])]),
            region=region,
        ),
    )


async def test_without_a_region_the_account_is_read_from_arm(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger, credential: FakeCredential
):
    fake.answer("arm", account("West Europe"))
    fake.answer("metrics", ok_metrics("westeurope"))
    source = await open_source(region=None)
    assert source.region == "westeurope" and source.problems() == []
    (arm,) = fake.requests_to("arm")
    assert arm.method == "GET"
    assert arm.url == f"https://management.azure.com{RESOURCE_ID}?api-version=2024-11-15"
    assert credential.scopes[0] == ("https://management.azure.com/.default",)
    (answer,) = await source.metrics([QUERY])
    assert answer.problem is None
    assert fake.requests_to("metrics")[0].host == "westeurope.metrics.monitor.azure.com"
    lookup = ledger.records()[0]
    assert (lookup.kind, lookup.scope, lookup.unit) == (Kind.MONITOR, Scope.METADATA, "call")
    assert lookup.operation == "arm: account" and lookup.status == 200


async def test_the_arm_location_wins_over_the_cosmos_write_region(
    open_source: Opener, fake: AzureFake
):
    # Microsoft's own example account: the resource in West US, writes in East US (or
    # any account after a failover). Metrics live where the resource is.
    fake.answer("arm", account("West US"))
    fake.answer("metrics", ok_metrics("westus"))
    source = await open_source(region=None, region_hint="East US")
    (answer,) = await source.metrics([QUERY])
    assert answer.problem is None
    assert len(fake.requests_to("arm")) == 1
    assert fake.requests_to("metrics")[0].host == "westus.metrics.monitor.azure.com"
    facts = await source.account(None, None)
    assert (facts.metrics_region, facts.metrics_region_from) == ("westus", "ARM location")


async def test_the_write_region_stands_in_only_when_arm_cannot_be_read_and_says_so(
    open_source: Opener, fake: AzureFake
):
    fake.answer("arm", Reply(403, error_body("AuthorizationFailed", "no read permission")))
    fake.answer("metrics", ok_metrics("eastus"))
    source = await open_source(region=None, region_hint="East US")
    (answer,) = await source.metrics([QUERY])
    assert answer.problem is None
    assert fake.requests_to("metrics")[0].host == "eastus.metrics.monitor.azure.com"
    (note,) = source.problems()
    assert note.kind is ProblemKind.FORBIDDEN
    assert "metrics asked of eastus, the Cosmos write region" in note.message
    assert "--region" in note.fix and "--query location" in note.fix
    facts = await source.account(None, None)
    assert facts.metrics_region == "eastus"
    assert facts.metrics_region_from == "the write region (ARM not readable)"
    assert facts.write_region == "eastus" and facts.regions == ("eastus",)
    assert facts.problems and "regions and throughput settings are unknown" in (
        facts.problems[0].message
    )


async def test_an_answer_from_another_region_is_said_and_followed(
    open_source: Opener, fake: AzureFake
):
    fake.answer("arm", Reply(403, error_body("AuthorizationFailed", "no read permission")))
    fake.answer("metrics", ok_metrics("westus"))  # the resource's data is kept in West US
    source = await open_source(region=None, region_hint="East US")
    (first,) = await source.metrics([QUERY])
    assert first.series  # the data came
    assert first.problem is not None and first.problem.about == "metrics: ru"
    assert "answered from westus, not from eastus" in first.problem.message
    (second,) = await source.metrics([QUERY])
    assert second.problem is None
    hosts = [sent.host for sent in fake.requests_to("metrics")]
    assert hosts == ["eastus.metrics.monitor.azure.com", "westus.metrics.monitor.azure.com"]
    facts = await source.account(None, None)
    assert facts.metrics_region == "westus"
    assert facts.metrics_region_from.startswith("the region Azure Monitor answered from")


async def test_the_region_setting_wins_over_the_accounts(open_source: Opener, fake: AzureFake):
    fake.answer("metrics", ok_metrics())
    source = await open_source(region="uksouth", region_hint="East US")
    await source.metrics([QUERY])
    assert fake.requests_to("metrics")[0].host == "uksouth.metrics.monitor.azure.com"


async def test_an_endpoint_override_keeps_the_default_audience(
    open_source: Opener, fake: AzureFake, credential: FakeCredential
):
    fake.answer("metrics", ok_metrics())
    source = await open_source(metrics_endpoint="https://{region}.privatelink.metrics.example")
    (answer,) = await source.metrics([QUERY])
    assert answer.problem is None
    assert fake.requests_to("metrics")[0].host == "eastus.privatelink.metrics.example"
    assert credential.scopes == [("https://metrics.monitor.azure.com/.default",)]


async def test_an_audience_set_on_its_own_is_used(
    open_source: Opener, fake: AzureFake, credential: FakeCredential
):
    fake.answer("metrics", ok_metrics())
    source = await open_source(
        metrics_endpoint="https://{region}.metrics.monitor.azure.us",
        metrics_audience="https://metrics.monitor.azure.us",
    )
    await source.metrics([QUERY])
    assert credential.scopes == [("https://metrics.monitor.azure.us/.default",)]


async def test_a_logs_endpoint_alone_keeps_the_logs_audience(
    open_source: Opener, fake: AzureFake, credential: FakeCredential
):
    # LogsQueryClient takes its audience from its endpoint when given none: a private
    # link's host would be asked for a token Entra ID does not issue.
    fake.answer("logs", Workspace().responder())
    source = await open_source(logs_endpoint="https://logs.privatelink.example")
    (answer,) = await source.logs([LogQuery(LogName.KEY_USAGE, SPAN)])
    assert answer.problem is None
    assert {sent.host for sent in fake.requests_to("logs")} == {"logs.privatelink.example"}
    assert credential.scopes == [("https://api.loganalytics.io/.default",)]


async def test_the_china_cloud_sends_every_call_to_its_hosts_with_its_audiences(
    open_source: Opener, fake: AzureFake, credential: FakeCredential
):
    fake.answer("arm", account("China East 2"))
    fake.answer("metrics", ok_metrics("chinaeast2"))
    fake.answer("logs", Workspace().responder())
    source = await open_source(region=None, cloud=CLOUDS["china"])
    await source.metrics([QUERY])
    await source.logs([LogQuery(LogName.KEY_USAGE, SPAN)])
    (arm,) = fake.requests_to("arm")
    assert arm.host == "management.chinacloudapi.cn"
    assert fake.requests_to("metrics")[0].host == "chinaeast2.metrics.monitor.azure.cn"
    assert {sent.host for sent in fake.requests_to("logs")} == {"api.loganalytics.azure.cn"}
    assert credential.scopes == [
        ("https://management.chinacloudapi.cn/.default",),
        ("https://metrics.monitor.azure.cn/.default",),
        ("https://api.loganalytics.azure.cn/.default",),
    ]


async def test_a_resource_that_is_not_a_cosmos_account_is_refused_everywhere(
    open_source: Opener, fake: AzureFake
):
    fake.answer("arm", account(kind="Microsoft.Web/sites"))
    source = await open_source(region=None)
    (problem,) = source.problems()
    assert problem.kind is ProblemKind.NOT_COSMOS
    assert "is a Microsoft.Web/sites, not a Cosmos DB account" in problem.message
    (metrics,) = await source.metrics([QUERY])
    (logs,) = await source.logs([LogQuery(LogName.KEY_USAGE, SPAN)])
    for answer, about in ((metrics, "metrics: ru"), (logs, "logs: key_usage")):
        assert answer.problem is not None and answer.problem.kind is ProblemKind.NOT_COSMOS
        assert answer.problem.about == about
    assert fake.requests_to("metrics") == [] and fake.requests_to("logs") == []


async def test_no_such_resource_is_not_cosmos_with_the_fix(open_source: Opener, fake: AzureFake):
    fake.answer("arm", Reply(404, error_body("ResourceNotFound", "The Resource was not found.")))
    source = await open_source(region=None)
    (problem,) = source.problems()
    assert problem.kind is ProblemKind.NOT_COSMOS
    assert "az cosmosdb show" in problem.fix


async def test_a_lookup_that_is_refused_leaves_metrics_unanswered_with_the_way_out(
    open_source: Opener, fake: AzureFake, ledger: RequestLedger
):
    fake.answer("arm", Reply(403, error_body("AuthorizationFailed", "no read permission")))
    source = await open_source(region=None)
    (answer,) = await source.metrics([QUERY])
    assert answer.problem is not None and answer.problem.kind is ProblemKind.FORBIDDEN
    assert "the account's region is unknown" in answer.problem.message
    assert "--region" in answer.problem.fix and "Reader on the account" in answer.problem.fix
    assert answer.problem.about == "metrics: ru"
    assert fake.requests_to("metrics") == []
    assert len(fake.requests_to("arm")) == 1  # a refusal is not asked again each refresh


async def test_an_unreachable_lookup_is_tried_again_on_a_later_refresh(
    open_source: Opener, fake: AzureFake, clock: FrozenClock
):
    fake.answer("arm", Reply(503, b"busy"), Reply(503, b"busy"), Reply(503, b"busy"), account())
    fake.answer("metrics", ok_metrics())
    source = await open_source(region=None)
    assert source.region is None and len(fake.requests_to("arm")) == 3  # azure-core's retries
    (soon,) = await source.metrics([QUERY])  # the same refresh: not asked again at once
    assert soon.problem is not None and len(fake.requests_to("arm")) == 3
    clock.advance(MIN_REFRESH_S)
    (answer,) = await source.metrics([QUERY])
    assert answer.problem is None and source.region == "eastus"


DNS = "Failed to resolve 'management.azure.com' ([Errno -2] Name or service not known)"


async def test_a_metrics_endpoint_without_a_region_needs_no_arm(
    open_source: Opener, fake: AzureFake
):
    fake.fail("arm", ServiceRequestError(DNS))  # a private network: ARM does not resolve
    fake.answer("metrics", ok_metrics())
    source = await open_source(region=None, metrics_endpoint="https://metrics.privatelink.example")
    assert source.problems() == []
    (answer,) = await source.metrics([QUERY])
    assert answer.problem is None and answer.series
    assert fake.requests_to("arm") == []
    assert fake.requests_to("metrics")[0].host == "metrics.privatelink.example"


async def test_without_arm_the_logs_answer_and_the_metrics_name_what_is_missing(
    open_source: Opener, fake: AzureFake
):
    fake.fail("arm", ServiceRequestError(DNS))
    fake.answer("logs", Workspace().responder())
    source = await open_source(region=None)
    (problem,) = source.problems()
    assert problem.kind is ProblemKind.UNREACHABLE and "management.azure.com" in problem.message
    (metrics,) = await source.metrics([QUERY])
    assert metrics.problem is not None and metrics.problem.about == "metrics: ru"
    assert "the account's region is unknown" in metrics.problem.message
    assert "--region" in metrics.problem.fix and "--metrics-endpoint" in metrics.problem.fix
    (logs,) = await source.logs([LogQuery(LogName.KEY_USAGE, SPAN)])
    assert logs.problem is None and logs.table is not None and logs.table.rows
    assert fake.requests_to("metrics") == []
