"""Query texts: one parameterised query per file, schema fields quoted, values never inlined."""

from __future__ import annotations

import re

import pytest

from cosmem_tui.model.advice import VECTOR_NAMES
from cosmem_tui.schemas import FieldPath, all_schemas
from cosmem_tui.schemas.paths import Fan
from cosmem_tui.sources.cosmos.query_slots import query_slots
from cosmem_tui.sources.cosmos.sql import object_of, prop, render
from cosmem_tui.sources.query_texts import queries_root


def test_field_paths_become_quoted_references():
    assert prop("/tenantId") == 'c["tenantId"]'
    assert prop("/messages/0/timestamp") == 'c["messages"][0]["timestamp"]'
    hostile = FieldPath.parse('/a"] OR 1=1 --')
    assert prop(hostile) == 'c["a\\"] OR 1=1 --"]'  # stays one quoted name
    assert object_of(["id", "_ts"]) == '{"id": c["id"], "_ts": c["_ts"]}'


def test_every_cosmos_query_renders_for_every_schema_with_parameters_only():
    names = sorted(p.stem for p in (queries_root() / "cosmos").glob("*.sql"))
    assert "keys_distinct" in names and "turns_oldest_first" in names
    for schema in all_schemas().values():
        slots = query_slots(schema)
        for name in names:
            if "tenant" in name and schema.tenant is None:
                with pytest.raises(KeyError):
                    render(name, slots)
                continue
            # Lifecycle queries take their condition per call (sources/cosmos/ttl_sql.py),
            # recall probes their scope, filters and paths (sources/cosmos/recall_sql.py).
            per_call = {"where": "true"} if name.startswith(("ttl_", "recall_")) else {}
            if name.startswith("recall_"):
                per_call |= {"vector": prop("/embedding"), "brute": ", true"}
                per_call |= {"text": prop("/messages"), "terms": "@t0, @t1"}
            text = render(name, {**slots, **per_call})
            assert "{{" not in text and "--" not in text and ";" not in text
            # values only ever arrive as @parameters: no quoted literal but property names
            literals = re.findall(r'"((?:[^"\\]|\\.)*)"', text)
            tops = {p.top for p in (*schema.thread_paths, FieldPath.parse("/_ts"))}
            tops |= {"ttl", "_ts", "_etag", "__cosmem_messages", *schema.list_projection()}
            tops.add("key")  # keys_unlisted names its one output property
            # sample_shapes and thread_items name their measures, and the vector candidates
            tops |= {"id", "ts", "size", "created", "kind", "messages", "etag", *VECTOR_NAMES}
            tops |= {f"{p}{i}" for p in ("pk", "v", "n") for i in range(16)}
            for field in schema.timestamps:
                tops |= set(field.path.parts)
            tops |= {FieldPath.parse(p).top for p in schema.partition_key}
            if schema.tenant is not None:
                tops.add(schema.tenant.top)
            if schema.order is not None:
                tops |= set(schema.order.path.parts)
            if schema.messages is not None:
                tops |= set(schema.messages.parts)
            # turns_matching names where the text is (selector steps; guard values are @g…)
            tops |= {s for t in schema.texts for s in t.steps if isinstance(s, str)}
            tops |= {f.key for t in schema.texts for f in t.steps if isinstance(f, Fan) and f.key}
            assert set(literals) <= tops, (schema.name, name, set(literals) - tops)


def test_turn_lists_project_the_list_fields_and_order_by_one_field():
    schema = all_schemas()["lab"]
    text = render("turns_newest_first", query_slots(schema))
    assert text == (
        'SELECT VALUE {"id": c["id"], "threadId": c["threadId"], "tenantId": c["tenantId"], '
        '"type": c["type"], "messages": c["messages"], "turnIndex": c["turnIndex"], '
        '"ttl": c["ttl"], "_ts": c["_ts"], "_etag": c["_etag"]} FROM c '
        'WHERE c["tenantId"] = @pk0 AND c["threadId"] = @pk1 ORDER BY c["turnIndex"] DESC'
    )
    assert "embedding" not in text
