"""The [retrieval] section: what each built-in schema says its system does, the guess for
the rest, the container's policy winning over the schema's distance, and errors."""

from __future__ import annotations

import pytest

from cosmem_tui.model.recall import Distance, FilterOp
from cosmem_tui.schemas import SchemaError, builtin_schemas, get_schema
from cosmem_tui.schemas.generic import generic_schema
from cosmem_tui.schemas.retrieval import RetrievalScope
from cosmem_tui.schemas.schema import schema_from_mapping
from tests.helpers import container


def test_every_builtin_schema_has_a_retrieval_section() -> None:
    for schema in builtin_schemas().values():
        assert schema.retrieval is not None, schema.name
        assert schema.retrieval.basis, schema.name


def test_amt_filters_type_and_superseded_for_one_user() -> None:
    retrieval = get_schema("amt").how_it_retrieves
    assert retrieval.scope is RetrievalScope.TENANT and not retrieval.guess
    assert [(f.path, f.op) for f in retrieval.filters] == [
        ("/type", FilterOp.IN),
        ("/superseded_by", FilterOp.ABSENT),
    ]
    assert retrieval.filters[0].values == ("fact", "procedural")


def test_lab_queries_one_thread_and_skips_the_demos_superseded_facts() -> None:
    retrieval = get_schema("lab").how_it_retrieves
    assert retrieval.scope is RetrievalScope.THREAD
    assert [f.path for f in retrieval.filters] == ["/superseded_by"]
    assert "demo" in retrieval.filters[0].label


def test_history_providers_and_generic_are_guesses() -> None:
    for name in ("maf-history", "maf-dotnet", "maf-dotnet-hpk", "langchain"):
        assert get_schema(name).how_it_retrieves.guess, name
    generic = generic_schema(("/threadId",), [{"threadId": "t", "text": "hi"}])
    guess = generic.how_it_retrieves
    assert guess.guess and "guess" in guess.basis
    assert [t.text for t in guess.texts] == ["/text"]


def test_the_containers_vector_policy_names_the_distance() -> None:
    retrieval = get_schema("lab").how_it_retrieves
    plain = container(("/tenantId", "/threadId"))
    assert retrieval.distance_for(plain)[0] is Distance.COSINE
    policy = {
        "vectorEmbeddings": [
            {"path": "/embedding", "dataType": "float32", "distanceFunction": "euclidean",
             "dimensions": 8}
        ]
    }  # fmt: skip
    import dataclasses

    with_policy = dataclasses.replace(plain, vector_embedding_policy=policy)
    distance, source = retrieval.distance_for(with_policy)
    assert distance is Distance.EUCLIDEAN and "vector policy" in source
    assert retrieval.vector_policy(with_policy).dimensions == 8


@pytest.mark.parametrize(
    ("section", "words"),
    [
        ({"colour": 1}, "unknown key"),
        ({"scope": "galaxy"}, "scope: must be one of"),
        ({"k": 0}, "k: a whole number"),
        ({"distance": "manhattan"}, "distance: must be one of"),
        ({"filter": [{"path": "/type", "op": "in"}]}, "needs at least one value"),
        ({"filter": [{"path": "/x", "op": "absent", "values": [1]}]}, "takes no values"),
        ({"embedding": "embedding"}, "field path"),
    ],
)
def test_errors_name_the_key(section: dict[str, object], words: str) -> None:
    data = {"name": "x", "partition_key": ["/t"], "thread": "/t", "granularity": "message",
            "retrieval": section}  # fmt: skip
    with pytest.raises(SchemaError, match=words):
        schema_from_mapping(data, "x.toml")
