"""Storage per physical partition and the account's region, from Cosmos alone (no Log
Analytics): one container read with statistics and quota info, one account read — each
through the call runner and in the ledger like every Cosmos call."""

from __future__ import annotations

from cosmem_tui.model import Key, Kind, Scope
from cosmem_tui.model.telemetry import ContainerStorage, RangeStorage
from cosmem_tui.sources.cosmos.storage import container_storage, resource_usage
from tests.peer.spy import SpyTransport


async def test_the_container_read_answers_storage_per_range_with_its_largest_keys(
    containers, open_store
):
    seeded = await containers()
    spy = SpyTransport()
    store = open_store(seeded.settings(), transport=spy)
    await store.container_properties()  # the session opens with this (and the SDK's set-up)
    mark, before = spy.mark(), len(store.ledger.records())
    storage = await store.range_storage()

    # one request: the container read (the SDK may refresh the account in the background)
    (read,) = [s for s in spy.since(mark) if s.path != "/"]
    assert read.path.rstrip("/").endswith(f"/colls/{seeded.container}")
    assert read.method == "GET"
    assert read.headers["x-ms-documentdb-populatepartitionstatistics"].lower() == "true"
    assert read.headers["x-ms-documentdb-populatequotainfo"].lower() == "true"

    (only,) = storage.ranges
    assert only.range_id == "0" and only.documents == 17  # the lab dataset's items
    assert only.size_kb > 0
    keys = [key for key, _ in only.top_keys]
    assert len(keys) == 3 and keys[0] == Key.of("acme", "t1")  # the one with embeddings
    sizes = [size for _, size in only.top_keys]
    assert sizes == sorted(sizes, reverse=True)
    assert storage.documents == 17
    assert storage.size_kb is not None and storage.size_kb >= only.size_kb
    assert storage.documents_size_kb is not None and storage.documents_size_kb > 0

    (record,) = [r for r in store.ledger.records()[before:] if r.operation == "read-storage"]
    assert (record.kind, record.scope, record.status) == (Kind.METADATA, Scope.METADATA, 200)
    assert record.request_units == 1.0 and record.unit == "RU"  # the peer charges 1 RU
    assert record.target == f"{seeded.database}/{seeded.container}"


async def test_the_accounts_write_region_names_its_metrics_host(containers, open_store):
    seeded = await containers()
    store = open_store(seeded.settings())
    assert await store.account_region() == "southcentralus"  # the peer's "South Central US"
    records = [r for r in store.ledger.records() if r.operation == "read-account"]
    assert records and all(r.scope is Scope.METADATA and r.status == 200 for r in records)


def test_storage_is_parsed_as_the_service_writes_it():
    body = {
        "id": "turns",
        "statistics": [
            {
                "id": "1",
                "sizeInKB": 3803113,
                "documentCount": 150530,
                "partitionKeys": [{"partitionKey": ["4009696"], "sizeInKB": 3731654}],
            },
            '{"id":"0","sizeInKB":1410184,"documentCount":42807,"partitionKeys":[]}',
            {
                "id": "2",
                "sizeInKB": 1447855,
                "documentCount": 59056,
                "partitionKeys": [
                    {"partitionKey": [42, "t-1"], "sizeInKB": 22},
                    {"partitionKey": ["4009633"], "sizeInKB": 2861210},
                    {"partitionKey": [{}], "sizeInKB": 5},
                ],
            },
        ],
    }
    headers = {
        "x-ms-resource-usage": "functions=0;storedProcedures=0;triggers=0;documentSize=6500;"
        "documentsSize=6661152;documentsCount=252393;collectionSize=6900000;"
    }
    assert container_storage(body, headers) == ContainerStorage(
        ranges=(
            RangeStorage("0", 1410184, 42807, ()),
            RangeStorage("1", 3803113, 150530, ((Key.of("4009696"), 3731654),)),
            RangeStorage(
                "2", 1447855, 59056, ((Key.of("4009633"), 2861210), (Key.of(42, "t-1"), 22))
            ),
        ),
        size_kb=6900000,
        documents_size_kb=6661152,
        documents=252393,
    )
    assert container_storage({"id": "turns"}, {}) == ContainerStorage(ranges=())
    assert resource_usage("documentsCount=3;bogus;collectionSize=x") == {"documentsCount": 3}
