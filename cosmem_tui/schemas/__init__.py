"""Memory schemas: how a container's items map onto tenant → thread → turn."""

from cosmem_tui.schemas.mapping import turn_from_item, turns_from_item
from cosmem_tui.schemas.paths import FieldPath, Selector
from cosmem_tui.schemas.registry import all_schemas, builtin_schemas, get_schema
from cosmem_tui.schemas.schema import Granularity, Schema, SchemaError, ValueType

__all__ = [
    "FieldPath",
    "Granularity",
    "Schema",
    "SchemaError",
    "Selector",
    "ValueType",
    "all_schemas",
    "builtin_schemas",
    "get_schema",
    "turn_from_item",
    "turns_from_item",
]
