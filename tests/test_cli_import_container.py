"""`cosmem import --container-properties FILE`: the container's own settings, as Azure
prints them, recorded in the workspace exactly as a live container's are read."""

from __future__ import annotations

import copy
import json

import pytest

from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.container import container_properties
from cosmem_tui.sources.local import LocalStore
from tests.fixtures import SCHEMAS
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")

ARM_ID = (
    "/subscriptions/0000/resourceGroups/rg-memory/providers/Microsoft.DocumentDB/"
    "databaseAccounts/memacct/sqlDatabases/agentmemory/containers/turns"
)
# What `az cosmosdb sql container show` prints: the Resource Manager answer with its
# properties flattened (resource, options), unset settings as null.
RESOURCE = {
    "_etag": '"00005900-0000-0000-0000-56f9a2630000"',
    "_rid": "PD5DALigDgw=",
    "_self": "dbs/PD5DAA==/colls/PD5DALigDgw=/",
    "_ts": 1795990000,
    "analyticalStorageTtl": None,
    "clientEncryptionPolicy": None,
    "computedProperties": None,
    "conflictResolutionPolicy": {
        "conflictResolutionPath": "/_ts",
        "conflictResolutionProcedure": "",
        "mode": "lastWriterWins",
    },
    "createMode": None,
    "defaultTtl": 86400,
    "fullTextPolicy": {
        "defaultLanguage": "en-US",
        "fullTextPaths": [{"language": "en-US", "path": "/content"}],
    },
    "id": "turns",
    "indexingPolicy": {
        "automatic": True,
        "compositeIndexes": None,
        "excludedPaths": [{"path": "/embedding/*"}, {"path": '/"_etag"/?'}],
        "fullTextIndexes": [{"path": "/content"}],
        "includedPaths": [{"indexes": None, "path": "/*"}],
        "indexingMode": "consistent",
        "spatialIndexes": None,
        "vectorIndexes": [{"path": "/embedding", "quantizationByteSize": None, "type": "diskANN"}],
    },
    "partitionKey": {
        "kind": "MultiHash",
        "paths": ["/tenantId", "/threadId"],
        "systemKey": None,
        "version": 2,
    },
    "restoreParameters": None,
    "uniqueKeyPolicy": {"uniqueKeys": []},
    "vectorEmbeddingPolicy": {
        "vectorEmbeddings": [
            {
                "dataType": "float32",
                "dimensions": 8,
                "distanceFunction": "cosine",
                "path": "/embedding",
            }
        ]
    },
}
CLI_ANSWER = {
    "id": ARM_ID,
    "location": None,
    "name": "turns",
    "options": None,
    "resource": RESOURCE,
    "resourceGroup": "rg-memory",
    "tags": None,
    "type": "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers",
}
REST_ANSWER = {
    "id": ARM_ID,
    "name": "turns",
    "type": "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/sqlContainers",
    "properties": {"resource": RESOURCE, "options": {"throughput": 400}},
}
# What container.read() answers (the data plane): the same settings, no nulls.
LIVE = {
    "id": "turns",
    "partitionKey": {"kind": "MultiHash", "paths": ["/tenantId", "/threadId"], "version": 2},
    "defaultTtl": 86400,
    "indexingPolicy": {
        "automatic": True,
        "excludedPaths": [{"path": "/embedding/*"}, {"path": '/"_etag"/?'}],
        "fullTextIndexes": [{"path": "/content"}],
        "includedPaths": [{"path": "/*"}],
        "indexingMode": "consistent",
        "vectorIndexes": [{"path": "/embedding", "type": "diskANN"}],
    },
    "vectorEmbeddingPolicy": RESOURCE["vectorEmbeddingPolicy"],
    "fullTextPolicy": RESOURCE["fullTextPolicy"],
    "_ts": 1795990000,
}


async def imported_container(path):
    store = LocalStore.open(path, get_schema("lab"))
    try:
        return await store.container_properties()
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("answer", "database"),
    [(CLI_ANSWER, "agentmemory"), (REST_ANSWER, "agentmemory"), (RESOURCE, "import")],
    ids=["az-cli-answer", "rest-answer", "resource-object"],
)
async def test_the_container_properties_are_recorded_as_a_live_container_reads_them(
    capsys, tmp_path, answer, database
):
    props = tmp_path / "turns.json"
    props.write_text(json.dumps(answer))
    ws = tmp_path / "w.sqlite"
    code, out, err = run(
        capsys,
        "import",
        str(SCHEMAS / "lab.jsonl"),
        "--container-properties",
        str(props),
        "--workspace",
        str(ws),
    )
    assert (code, err) == (0, "")
    assert f"container {database}/turns, pk [/tenantId,/threadId], " in out
    assert "default ttl 86400, from turns.json" in out
    recorded = await imported_container(ws)
    assert recorded == container_properties(database, LIVE)
    assert recorded.vector_embedding_policy == RESOURCE["vectorEmbeddingPolicy"]


async def test_flags_given_alongside_win_and_say_so_in_one_line(capsys, tmp_path):
    props = tmp_path / "turns.json"
    props.write_text(json.dumps(CLI_ANSWER))
    ws = tmp_path / "w.sqlite"
    code, _, err = run(
        capsys,
        "import",
        str(SCHEMAS / "lab.jsonl"),
        "--container-properties",
        str(props),
        "--default-ttl",
        "off",
        "--container",
        "turns-copy",
        "--workspace",
        str(ws),
    )
    assert code == 0 and err.count("\n") == 1
    assert err == (
        f"cosmem: given flags win over {props}: --default-ttl off (the file: 86400); "
        "--container turns-copy (the file: turns)\n"
    )
    recorded = await imported_container(ws)
    assert (recorded.container, recorded.default_ttl) == ("turns-copy", None)
    assert recorded.database == "agentmemory"  # not given: the file's
    assert recorded.full_text_policy == RESOURCE["fullTextPolicy"]  # the rest: the file's


def test_a_flag_equal_to_the_file_is_no_override(capsys, tmp_path):
    props = tmp_path / "turns.json"
    props.write_text(json.dumps(CLI_ANSWER))
    code, _, err = run(
        capsys,
        "import",
        str(SCHEMAS / "lab.jsonl"),
        "--container-properties",
        str(props),
        "--partition-key",
        "/tenantId,/threadId",
        "--workspace",
        str(tmp_path / "w.sqlite"),
    )
    assert (code, err) == (0, "")


def broken(change) -> dict:
    answer = copy.deepcopy(CLI_ANSWER)
    change(answer["resource"])
    return answer


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "no container resource with a partitionKey"),
        (json.dumps({"id": ARM_ID, "name": "turns"}), "no container resource"),
        (json.dumps([{"id": "x"}]), "no container resource"),
        (
            json.dumps(broken(lambda r: r["partitionKey"].update(paths=[]))),
            "partitionKey.paths",
        ),
        (json.dumps(broken(lambda r: r.update(defaultTtl=0))), "defaultTtl"),
        (json.dumps(broken(lambda r: r.update(indexingPolicy=[1]))), "indexingPolicy"),
        (
            json.dumps(
                broken(
                    lambda r: r["vectorEmbeddingPolicy"]["vectorEmbeddings"][0].update(
                        dimensions="8"
                    )
                )
            ),
            "vectorEmbeddings[0].dimensions",
        ),
        (json.dumps(broken(lambda r: r.pop("id"))), "resource.id"),
    ],
)
def test_a_file_that_is_not_container_properties_is_one_line_and_exit_2(
    capsys, tmp_path, content, complaint
):
    props = tmp_path / "props.json"
    props.write_text(content)
    ws = tmp_path / "w.sqlite"
    code, out, err = run(
        capsys,
        "import",
        str(SCHEMAS / "lab.jsonl"),
        "--container-properties",
        str(props),
        "--workspace",
        str(ws),
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"cosmem: {props}: ") and complaint in err
    assert "Traceback" not in err and not ws.exists()


def test_a_missing_file_is_one_line_and_exit_2(capsys, tmp_path):
    code, _, err = run(
        capsys,
        "import",
        str(SCHEMAS / "lab.jsonl"),
        "--container-properties",
        str(tmp_path / "nope.json"),
        "--workspace",
        str(tmp_path / "w.sqlite"),
    )
    assert code == 2 and err.startswith("cosmem: ") and "cannot read it" in err


def test_the_files_key_picks_the_schema_and_a_forced_schema_must_fit_it(capsys, tmp_path):
    props = tmp_path / "turns.json"
    props.write_text(json.dumps(broken(lambda r: r["partitionKey"].update(paths=["/userId"]))))
    code, out, err = run(
        capsys,
        "import",
        str(SCHEMAS / "lab.jsonl"),
        "--container-properties",
        str(props),
        "--schema",
        "lab",
        "--workspace",
        str(tmp_path / "w.sqlite"),
    )
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "not /userId: the key of turns.json: pick another --schema" in err
