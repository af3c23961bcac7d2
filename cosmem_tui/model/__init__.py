"""Plain data shared by every layer (standard library only)."""

from cosmem_tui.model.charges import FanOutRequest, Meter, SessionTotals, Throttling
from cosmem_tui.model.clock import Clock, FrozenClock, SystemClock
from cosmem_tui.model.entities import (
    ContainerProperties,
    Item,
    JsonValue,
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
from cosmem_tui.model.ttl import MISSING, ItemTtl, TtlClass, TtlState, resolve_ttl

__all__ = [
    "MISSING",
    "Clock",
    "ContainerProperties",
    "FanOutRequest",
    "FrozenClock",
    "Item",
    "ItemTtl",
    "JsonValue",
    "Message",
    "Meter",
    "Page",
    "PartitionKeyDefinition",
    "PartitionKeyValue",
    "RequestCharge",
    "Scope",
    "SessionTotals",
    "SystemClock",
    "Tenant",
    "Thread",
    "ThreadRef",
    "Throttling",
    "TtlClass",
    "TtlState",
    "Turn",
    "resolve_ttl",
]
