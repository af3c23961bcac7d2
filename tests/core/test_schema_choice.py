"""Which schema a session reads with: named, recorded, or detected under an RU budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosmem_tui.compose import open_local_session as open_session
from cosmem_tui.core.importer import ImportSettings, import_export
from cosmem_tui.core.schema_choice import (
    SAMPLE_BUDGET_RU,
    SAMPLE_SIZE,
    choose_schema,
    decided_by_metadata,
    facts_of,
    run_sync,
)
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition, Scope
from cosmem_tui.schemas import SchemaError, all_schemas, get_schema
from cosmem_tui.schemas.generic import generic_schema
from cosmem_tui.sources.local import LocalStore, Workspace
from cosmem_tui.sources.request_ledger import RequestLedger
from tests.fixtures import SCHEMAS, fixture_items
from tests.helpers import all_keys


def workspace_of(
    path: Path,
    items,
    *,
    schema_name: str,
    container: str = "data",
    database: str = "db",
    record: bool = False,
    keys_for: str | None = None,
    now: int,
) -> Path:
    """A workspace of ``schema_name``'s container; derived columns for ``keys_for`` if given."""
    schema = get_schema(schema_name)
    paths = schema.partition_key
    props = ContainerProperties(
        database,
        container,
        PartitionKeyDefinition(paths, "MultiHash" if len(paths) > 1 else "Hash"),
        -1,
    )
    keys_schema = get_schema(keys_for or schema_name)
    with Workspace.building(path, props, keys_schema) as ws:
        ws.upsert_items(items, keys_schema, now)
        if record:
            ws.set_meta("schema", schema.name)
    return path


def shown_schema(session: Session) -> str:
    """The schema and why, as ``cosmem --verbose`` prints it (no --schema given)."""
    return f"{session.schema.name} ({session.schema_why(None)})"


def test_a_workspace_without_a_recorded_schema_is_detected_from_a_sample(tmp_path, clock):
    path = workspace_of(
        tmp_path / "w.sqlite",
        fixture_items("maf-history.jsonl"),
        schema_name="maf-history",
        now=int(clock.now()),
    )
    session = open_session(SessionOptions(workspace=path), clock)
    try:
        assert session.schema.name == "maf-history"
        assert session.schema_reason.startswith("matched: pk /session_id, fields 3/3")
        assert shown_schema(session) == f"maf-history ({session.schema_reason})"
        sample = [r for r in session.ledger.records() if r.operation == "sample-items"]
        assert len(sample) == 1 and sample[0].scope is Scope.CROSS_PARTITION
        assert 0 < sample[0].request_units <= SAMPLE_BUDGET_RU
        assert sample[0].item_count == len(fixture_items("maf-history.jsonl"))
    finally:
        run_sync(session.close())


def test_container_properties_alone_can_decide_without_reading_items(tmp_path, clock):
    path = workspace_of(
        tmp_path / "w.sqlite",
        fixture_items("amt/memories_turns.jsonl"),
        schema_name="amt",
        container="memories_turns",
        database="ai_memory",
        now=int(clock.now()),
    )
    session = open_session(SessionOptions(workspace=path), clock)
    try:
        assert session.schema.name == "amt"
        assert session.schema_reason == (
            "matched: pk [/user_id,/thread_id], container memories_turns, database ai_memory"
        )
        assert [r.operation for r in session.ledger.records()] == ["read-container"]
    finally:
        run_sync(session.close())
    facts = facts_of(ContainerProperties("db", "c", PartitionKeyDefinition(("/threadId",)), -1))
    assert decided_by_metadata(all_schemas(), facts) is None  # thread and learn both fit


def test_named_and_recorded_schemas_are_not_detected(tmp_path, clock):
    path = workspace_of(
        tmp_path / "w.sqlite",
        fixture_items("learn.json"),
        schema_name="thread",
        record=True,
        now=int(clock.now()),
    )
    session = open_session(SessionOptions(workspace=path), clock)
    try:
        assert session.schema.name == "thread"
        assert session.schema_why(None) == "recorded in the workspace"  # not detected
        assert session.ledger.records() == []
    finally:
        run_sync(session.close())
    session = open_session(SessionOptions(workspace=path, schema="auto"), clock)
    try:
        assert session.schema.name == "learn"  # --schema auto overrides the record
    finally:
        run_sync(session.close())
    with pytest.raises(SchemaError, match=r"known: .*auto, generic"):
        open_session(SessionOptions(workspace=path, schema="nope"), clock)


async def test_the_sample_stops_at_the_budget_and_keeps_at_least_one_item(tmp_path, clock):
    items = fixture_items("langchain.jsonl") * 1  # three session documents
    path = workspace_of(tmp_path / "w.sqlite", items, schema_name="langchain", now=int(clock.now()))
    workspace = Workspace.open(path)
    store = LocalStore(workspace, None, ledger=RequestLedger(), clock=clock)
    try:
        tiny = await store.sample_items(SAMPLE_SIZE, max_request_units=0.1)
        assert len(tiny) == 1
        some = await store.sample_items(2, max_request_units=SAMPLE_BUDGET_RU)
        assert len(some) == 2 and some[0].ts >= some[1].ts  # newest first
        assert "messages" in some[0].body  # whole items, not projections
        with pytest.raises(SchemaError, match="no schema chosen"):
            await store.list_keys()
        choice = await choose_schema("generic", store, None)
        assert choice.schema.name == "generic" and choice.definition is not None
    finally:
        await store.close()


def test_a_detected_schema_is_not_recorded_so_each_open_detects_it(tmp_path, clock):
    """Opening never writes: detection (here of another schema than the file's keys) repeats."""
    path = workspace_of(
        tmp_path / "w.sqlite",
        fixture_items("lab.jsonl"),
        schema_name="lab",
        keys_for="thread",
        now=int(clock.now()),
    )
    before = path.read_bytes()
    for _ in range(2):
        session = open_session(SessionOptions(workspace=path), clock)
        try:
            assert session.schema.name == "lab"
            assert [k.text for k in run_sync(all_keys(session.store))] == ["contoso", "fabrikam"]
            assert "sample-items" in [r.operation for r in session.ledger.records()]
        finally:
            run_sync(session.close())
    assert path.read_bytes() == before


def test_an_imported_workspace_reopens_with_the_schema_chosen_at_import(tmp_path, clock):
    settings = ImportSettings(source=SCHEMAS / "learn.json", workspace=tmp_path / "w.sqlite")
    problems: list[object] = []
    report = import_export(settings, clock=clock, user_dir=None, on_problem=problems.append)
    assert problems == []
    session = open_session(SessionOptions(workspace=settings.workspace), clock)
    try:
        assert shown_schema(session) == report.choice.label
        assert session.ledger.records() == []  # recorded at import: nothing to detect
    finally:
        run_sync(session.close())


def test_a_container_whose_messages_is_a_number_opens_with_the_generic_schema(tmp_path, clock):
    """Detection as every session runs it (a sample, then scoring): before, deriving the
    generic schema iterated the number and the session never opened."""
    items = [{"id": f"m{n}", "pk": "p", "messages": n, "content": "hi"} for n in range(4)]
    props = ContainerProperties("db", "data", PartitionKeyDefinition(("/pk",)), -1)
    keys_schema = generic_schema(("/pk",), [{"id": "x", "pk": "p"}])
    path = tmp_path / "w.sqlite"
    with Workspace.building(path, props, keys_schema) as ws:
        ws.upsert_items(items, keys_schema, int(clock.now()))
    session = open_session(SessionOptions(workspace=path), clock)
    try:
        assert session.schema.name == "generic"
        assert "messages is a number, not an array, in 4 of 4 sampled items" in (
            session.schema_reason
        )
    finally:
        run_sync(session.close())
