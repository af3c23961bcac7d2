"""The TTL conditions as Cosmos SQL: flat, parameterised, and named parameters only."""

from __future__ import annotations

import re

import pytest

from cosmem_tui.model import TtlClass
from cosmem_tui.schemas import all_schemas
from cosmem_tui.sources.cosmos import ttl_sql

DEFAULTS = [None, -1, 3600, 2_592_000]
CALL = re.compile(r"\b[A-Z_]+\([^()]*\)")  # IS_NUMBER(c["ttl"]), FLOOR(…), LENGTH(…)
IN_LIST = re.compile(r"IN \([^()]*\)")


def conditions(default: int | None) -> list[ttl_sql.Condition]:
    found = [ttl_sql.Condition(ttl_sql.class_condition(c, default)) for c in TtlClass]
    found.append(ttl_sql.expiring_between(default, 100, 200))
    found += [ttl_sql.class_expiring_between(c, default, 100, 200) for c in TtlClass]
    for schema in all_schemas().values():
        found.append(ttl_sql.kind_condition(schema, schema.long_term_kinds, "lk"))
        found.append(ttl_sql.drift_condition(schema, default))
    return found


@pytest.mark.parametrize("default", DEFAULTS)
def test_conditions_are_flat(default):
    """An OR of ANDs without nested parentheses: some engines parse nesting exponentially."""
    for condition in conditions(default):
        text = IN_LIST.sub("IN ()", CALL.sub("f", condition.text))
        assert "(" not in text.replace("IN ()", ""), condition.text


@pytest.mark.parametrize("default", DEFAULTS)
def test_every_parameter_named_is_given_and_no_value_is_inlined(default):
    for condition in conditions(default):
        named = set(re.findall(r"@\w+", condition.text))
        assert named == {p["name"] for p in condition.parameters}, condition.text
        literals = re.findall(r'"((?:[^"\\]|\\.)*)"', condition.text)
        # Only property names (c["ttl"], c["type"]) and the empty kind "" are quoted.
        assert set(literals) <= {"ttl", "type", "kind", "Type", ""}, literals


def test_ttl_off_leaves_only_default_and_ignored():
    assert ttl_sql.class_condition(TtlClass.IGNORED, None) == 'IS_DEFINED(c["ttl"])'
    for ttl_class in (TtlClass.SHORT, TtlClass.LONG, TtlClass.INVALID):
        assert ttl_sql.class_condition(ttl_class, None) == "false"
    assert ttl_sql.expiring_between(None, 0, 10).never


def test_kinds_map_to_their_stored_values():
    amt = all_schemas()["amt"]
    condition = ttl_sql.kind_condition(amt, frozenset({"fact", "counter"}), "k")
    values = {p["value"] for p in condition.parameters}
    assert values == {"fact", "counter"}
    assert 'NOT IS_STRING(c["type"])' in condition.text  # counters have no type at all
