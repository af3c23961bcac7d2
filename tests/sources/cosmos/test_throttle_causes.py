"""A 429 told by its cause: the sub-status the service sends is what the console says.

Microsoft separates an RU budget that ran out (3200: more RU/s, or a spread key,
helps) from the metadata rate (3201), transient service errors (3092), stored-procedure
concurrency (3084), throughput buckets (3212 full, 3213 changed too often) and hot
partition keys (3214), for which more RU/s does nothing. The fake gateway answers each
with its sub-status; the real azure-cosmos 4.17.1 reads it; the ledger, the session's
counts and the failure texts must name it and its own fix.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from azure.cosmos.exceptions import CosmosHttpResponseError

from cosmem_tui.core.ledger_file import ledger_line
from cosmem_tui.model import Key, throttle_cause
from cosmem_tui.model.substatus import THROTTLE_CAUSES
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.failures import translate
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from cosmem_tui.sources.errors import RequestTimedOut, Throttled
from tests.fake_cosmos import Fault
from tests.helpers import exchange

LAB = get_schema("lab")
CAUSES = sorted(THROTTLE_CAUSES)  # 3084, 3092, 3200, 3201, 3212, 3213, 3214
RU_ADVICE = "raise the container's RU/s"  # what every 429 used to be told


@pytest.fixture
async def store(fake_cosmos) -> AsyncIterator[Callable[..., CosmosStore]]:
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=2, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", [exchange(f"t{n}", "th", 0) for n in range(6)])
    opened: list[CosmosStore] = []

    def make(**settings: Any) -> CosmosStore:
        made = CosmosStore.open(
            CosmosSettings(
                endpoint=fake_cosmos.endpoint,
                database="db",
                container="memory",
                auth=AuthMode.KEY,
                key=fake_cosmos.key,
                **settings,
            ),
            LAB,
        )
        opened.append(made)
        return made

    yield make
    for made in opened:
        await made.close()


def test_the_table_names_what_the_sdks_name():
    names = {code: cause.name for code, cause in THROTTLE_CAUSES.items()}
    assert names == {
        3200: "RUBudgetExceeded",
        3201: "GatewayThrottled",
        3084: "StoredProcedureConcurrency",
        3092: "SystemResourceUnavailable",
        3212: "ThroughputBucketLimitExhausted",
        3213: "TooManyThroughputBucketUpdates",
        3214: "HotPartitionKeyThrottled",
    }
    # Only an RU budget that ran out is helped by more RU/s.
    assert [code for code, cause in THROTTLE_CAUSES.items() if cause.ru_helps] == [3200]
    assert all(len(cause.tag) <= 6 for cause in THROTTLE_CAUSES.values())  # STATUS column
    unknown = throttle_cause(3999)
    assert (unknown.label, unknown.ru_helps) == ("sub-status 3999", False)
    assert throttle_cause(None).describe() == "429 too many requests"


@pytest.mark.parametrize("code", CAUSES)
async def test_each_429_is_recorded_and_counted_by_its_cause(store, fake_cosmos, code):
    made = store()
    await made.container_properties()
    fake_cosmos.faults.add(Fault(status=429, sub_status=code, count=1, kind="query"))
    assert len(await made.list_threads(Key.of("t1"))) == 1  # retried after the hold-off
    ledger = made.ledger
    throttled = [r for r in ledger.records() if r.status == 429]
    assert [r.sub_status for r in throttled] == [code]
    line = json.loads(ledger_line(throttled[0]))
    assert (line["sub_status"], line["sub_status_name"]) == (code, THROTTLE_CAUSES[code].name)
    totals = ledger.totals()
    assert (totals.throttled, totals.throttled_by) == (1, {code: 1})
    last = ledger.last_throttle()
    assert last is not None and last.cause is THROTTLE_CAUSES[code]


async def test_the_counts_keep_causes_apart(store, fake_cosmos):
    made = store()
    await made.container_properties()
    for code in (3201, 3200, 3201):
        fake_cosmos.faults.add(Fault(status=429, sub_status=code, count=1, kind="query"))
    await made.list_threads(Key.of("t1"))
    totals = made.ledger.totals()
    assert totals.throttled == 3
    assert totals.throttled_by == {3201: 2, 3200: 1}  # most first
    assert [(c.name, n) for c, n in totals.throttle_causes()] == [
        ("GatewayThrottled", 2),
        ("RUBudgetExceeded", 1),
    ]


@pytest.mark.parametrize("code", CAUSES)
async def test_the_failure_text_names_the_cause_and_its_own_fix(store, fake_cosmos, code):
    """The SDK's own exception for the fake's 429, translated: one line, this cause."""
    made = store()
    await made.container_properties()
    fake_cosmos.faults.add(Fault(status=429, sub_status=code, retry_after_ms=40, kind="point"))
    container: Any = made._calls.container
    with pytest.raises(CosmosHttpResponseError) as caught:
        await container.read_item("th-0", partition_key=["t1", "th"])
    error = translate(caught.value, made.settings)
    assert isinstance(error, Throttled) and error.sub_status == code
    cause = THROTTLE_CAUSES[code]
    assert error.message.startswith(f"429/{code} {cause.label}: ")
    assert "retry after 40 ms" in error.message and cause.fix in error.message
    assert "\n" not in error.message
    if cause.ru_helps:
        assert "more RU/s helps only when every partition is busy" in error.message
    else:
        assert RU_ADVICE not in error.message and "more RU/s" in error.message


@pytest.mark.parametrize(
    ("code", "says"),
    [
        (3201, "metadata requests throttled); the account's system-reserved rate"),
        (3092, "transient service error); a transient service error, not your throughput"),
        (3200, "RU budget exceeded); the container or one of its physical partitions"),
    ],
)
async def test_a_storm_that_outlasts_the_deadline_is_told_by_its_cause(
    store, fake_cosmos, code, says
):
    made = store(timeout_s=1.0)
    await made.container_properties()
    fake_cosmos.faults.storm(1.0, kind="query", retry_after_ms=5, sub_status=code)
    with pytest.raises(RequestTimedOut) as caught:
        await made.list_threads(Key.of("t1"))
    text = caught.value.message
    assert f"(the account kept answering 429/{code} " in text and says in text
    assert RU_ADVICE not in text  # the old advice, given for every cause
    assert ("more RU/s does nothing" in text) == (code != 3200)
