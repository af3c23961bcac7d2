"""Flat records of tenants, threads and turns for headless output (JSON, CSV, tables).

The keys are a runbook-facing contract (documented in the README): add keys freely,
never rename or remove one.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from cosmem_tui.model import MISSING, JsonValue, Key, KeyCounts, Thread, Turn

TENANT_FIELDS = ("tenant", "threads", "items", "last_activity")
THREAD_FIELDS = ("thread", "tenant", "turns", "last_activity", "short_term", "long_term")
TURN_FIELDS = (
    "id",
    "order",
    "timestamp",
    "kind",
    "roles",
    "text",
    "ttl",
    "ttl_state",
    "ttl_effective",
    "expires_at",
    "expires_in",
    "problems",
)


def iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def tenant_record(tenant: Key, counts: KeyCounts | None) -> dict[str, Any]:
    """A tenant with its JSON-typed key; counts are None when they were not fetched."""
    return {
        "tenant": tenant.json_value(),
        "threads": counts.threads if counts is not None else None,
        "items": counts.items if counts is not None else None,
        "last_activity": iso(counts.last_activity) if counts is not None else None,
    }


def top_thread_record(thread: Key, counts: KeyCounts | None) -> dict[str, Any]:
    """A thread of a schema without tenants (a top-level key); counts may be None."""
    return {
        "thread": thread.json_value(),
        "turns": counts.items if counts is not None else None,
        "last_activity": iso(counts.last_activity) if counts is not None else None,
        "short_term": counts.short_term if counts is not None else None,
        "long_term": counts.long_term if counts is not None else None,
        "pseudo": None,
    }


def thread_record(thread: Thread) -> dict[str, Any]:
    return {
        "thread": thread.ref.thread.json_value(),
        "tenant": thread.ref.tenant.json_value() if thread.ref.tenant is not None else None,
        "turns": thread.items,
        "last_activity": iso(thread.last_activity),
        "short_term": thread.short_term,
        "long_term": thread.long_term,
        "pseudo": thread.pseudo,  # the label of a sentinel thread, None for conversations
    }


def _stored(value: JsonValue) -> JsonValue:
    return None if value is MISSING else value


def turn_text(turn: Turn) -> str:
    return "\n".join(f"{m.role}: {m.text}" for m in turn.messages)


def turn_record(turn: Turn, now: float) -> dict[str, Any]:
    remaining = turn.ttl.remaining(now)
    return {
        "id": turn.item_id,
        "order": _stored(turn.order),
        "timestamp": iso(turn.timestamp),
        "kind": turn.kind,
        "roles": list(turn.roles),
        "text": turn_text(turn),
        "ttl": _stored(turn.ttl.raw),
        "ttl_state": turn.ttl.state.value,
        "ttl_effective": turn.ttl.effective
        if turn.ttl.effective is not None
        else (-1 if turn.ttl.state.value == "never" else None),
        "expires_at": iso(turn.ttl.expires_at),
        "expires_in": None if remaining is None else int(remaining),
        "problems": list(turn.problems),
        "part": turn.part,  # session documents: the message's index inside item "id"
        "messages": [{"role": m.role, "text": m.text} for m in turn.messages],
    }
