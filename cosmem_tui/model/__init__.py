"""Plain data shared by every layer (standard library only)."""

from cosmem_tui.model.advice import AdviceReport, Finding, ItemShape, Severity
from cosmem_tui.model.charges import BudgetQuestion, Meter, SessionTotals, Throttling
from cosmem_tui.model.clock import Clock, FrozenClock, SystemClock
from cosmem_tui.model.entities import (
    ContainerProperties,
    Item,
    JsonValue,
    KeyCounts,
    KeyPage,
    Kind,
    Message,
    Page,
    PartitionKeyDefinition,
    PartitionKeyValue,
    RequestCharge,
    Scope,
    Tenant,
    Thread,
    ThreadRef,
    Turn,
)
from cosmem_tui.model.keys import InvalidKey, Key, Scalar, key_text
from cosmem_tui.model.ttl import MISSING, ItemTtl, TtlClass, TtlState, resolve_ttl

__all__ = [
    "MISSING",
    "AdviceReport",
    "BudgetQuestion",
    "Clock",
    "ContainerProperties",
    "Finding",
    "FrozenClock",
    "InvalidKey",
    "Item",
    "ItemShape",
    "ItemTtl",
    "JsonValue",
    "Key",
    "KeyCounts",
    "KeyPage",
    "Kind",
    "Message",
    "Meter",
    "Page",
    "PartitionKeyDefinition",
    "PartitionKeyValue",
    "RequestCharge",
    "Scalar",
    "Scope",
    "SessionTotals",
    "Severity",
    "SystemClock",
    "Tenant",
    "Thread",
    "ThreadRef",
    "Throttling",
    "TtlClass",
    "TtlState",
    "Turn",
    "key_text",
    "resolve_ttl",
]
