"""Plain data shared by every layer (standard library only).

The names below load their module on first use (PEP 562), so importing one name (a
``Key``) does not import them all: the start-up path reads a few and the advisor's,
the doctor's and the telemetry's models load with the views that use them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cosmem_tui.model.advice import AdviceReport, Finding, ItemShape, Severity
    from cosmem_tui.model.charges import (
        BudgetQuestion,
        Meter,
        Overrun,
        SessionTotals,
        Silence,
        Throttling,
    )
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
    from cosmem_tui.model.substatus import ThrottleCause, sub_status_name, throttle_cause
    from cosmem_tui.model.ttl import MISSING, ItemTtl, TtlClass, TtlState, resolve_ttl

_HOMES = {
    "AdviceReport": "cosmem_tui.model.advice",
    "BudgetQuestion": "cosmem_tui.model.charges",
    "Clock": "cosmem_tui.model.clock",
    "ContainerProperties": "cosmem_tui.model.entities",
    "Finding": "cosmem_tui.model.advice",
    "FrozenClock": "cosmem_tui.model.clock",
    "InvalidKey": "cosmem_tui.model.keys",
    "Item": "cosmem_tui.model.entities",
    "ItemShape": "cosmem_tui.model.advice",
    "ItemTtl": "cosmem_tui.model.ttl",
    "JsonValue": "cosmem_tui.model.entities",
    "Key": "cosmem_tui.model.keys",
    "KeyCounts": "cosmem_tui.model.entities",
    "KeyPage": "cosmem_tui.model.entities",
    "Kind": "cosmem_tui.model.entities",
    "MISSING": "cosmem_tui.model.ttl",
    "Message": "cosmem_tui.model.entities",
    "Meter": "cosmem_tui.model.charges",
    "Overrun": "cosmem_tui.model.charges",
    "Page": "cosmem_tui.model.entities",
    "PartitionKeyDefinition": "cosmem_tui.model.entities",
    "PartitionKeyValue": "cosmem_tui.model.entities",
    "RequestCharge": "cosmem_tui.model.entities",
    "Scalar": "cosmem_tui.model.keys",
    "Scope": "cosmem_tui.model.entities",
    "SessionTotals": "cosmem_tui.model.charges",
    "Severity": "cosmem_tui.model.advice",
    "Silence": "cosmem_tui.model.charges",
    "SystemClock": "cosmem_tui.model.clock",
    "Tenant": "cosmem_tui.model.entities",
    "Thread": "cosmem_tui.model.entities",
    "ThreadRef": "cosmem_tui.model.entities",
    "ThrottleCause": "cosmem_tui.model.substatus",
    "Throttling": "cosmem_tui.model.charges",
    "TtlClass": "cosmem_tui.model.ttl",
    "TtlState": "cosmem_tui.model.ttl",
    "Turn": "cosmem_tui.model.entities",
    "key_text": "cosmem_tui.model.keys",
    "resolve_ttl": "cosmem_tui.model.ttl",
    "sub_status_name": "cosmem_tui.model.substatus",
    "throttle_cause": "cosmem_tui.model.substatus",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # once: later reads are plain lookups
    return value


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
    "Overrun",
    "Page",
    "PartitionKeyDefinition",
    "PartitionKeyValue",
    "RequestCharge",
    "Scalar",
    "Scope",
    "SessionTotals",
    "Severity",
    "Silence",
    "SystemClock",
    "Tenant",
    "Thread",
    "ThreadRef",
    "ThrottleCause",
    "Throttling",
    "TtlClass",
    "TtlState",
    "Turn",
    "key_text",
    "resolve_ttl",
    "sub_status_name",
    "throttle_cause",
]
