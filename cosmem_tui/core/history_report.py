"""A history in words and records: the panel's lines and ``cosmem history``'s output.

Events and notes become plain text here (item text included, raw: every surface
escapes it on the way out, the panel through ``safe_cells``, the CLI through
``Output``); records are the runbook-facing contract of ``cosmem history --json``.
"""

from __future__ import annotations

from typing import Any, Final

from cosmem_tui.core.history_timeline import span_words
from cosmem_tui.model.changes import ChangeOp
from cosmem_tui.model.history import CONTENT, TTL, History, HistoryEvent, ItemState
from cosmem_tui.model.keys import value_text
from cosmem_tui.model.times import iso_utc
from cosmem_tui.model.ttl import ttl_json

HISTORY_FIELDS: Final = (
    "time",
    "op",
    "id",
    "lsn",
    "order",
    "ttl",
    "ttl_effective",
    "expires_at",
    "expired_at",
    "purged_at",
    "purge_lag_s",
    "changed",
    "ttl_before",
    "ttl_reset",
    "role",
    "kind",
    "text",
)
HISTORY_TABLE_FIELDS: Final = ("time", "op", "id", "order", "ttl", "changed", "text")

_OP_WORDS: Final = {
    ChangeOp.CREATE: "created",
    ChangeOp.REPLACE: "replaced",
    ChangeOp.WRITE: "written",
    ChangeOp.DELETE: "deleted",
    ChangeOp.EXPIRED: "expired (TTL)",
}


def op_words(op: ChangeOp) -> str:
    return _OP_WORDS[op]


def _ttl(raw: Any) -> str:
    return "—" if raw is None else ttl_json(raw)


def _at(epoch: int | None) -> str:
    return iso_utc(epoch) or "never"


def event_words(event: HistoryEvent) -> str:
    """One event in a sentence (item text left out: the row shows it apart)."""
    if event.op is ChangeOp.EXPIRED:
        purged = f"purged {_at(event.purged_at)}"
        if event.expires_at is None:
            return f"removed by the TTL purge, {purged} (no version seen: expiry unknown)"
        lag = event.purge_lag
        later = ""
        if lag is not None and lag > 0:
            later = f", {span_words(lag)} later"
        elif lag is not None and lag < 0:  # the ttl read or a clock disagrees with the purge
            later = f", {span_words(-lag)} before its computed expiry"
        return (
            f"expired {_at(event.expires_at)} (TTL {event.ttl_effective}, from the last "
            f"version seen) · {purged}{later}"
        )
    if event.op is ChangeOp.DELETE:
        return "deleted by a request"
    parts = [op_words(event.op)]
    if event.op is ChangeOp.WRITE:
        parts[0] += " (created or replaced: latest-version mode does not say which)"
    if event.op is ChangeOp.REPLACE and event.previous_seen:
        changed = [f for f in event.changed if f not in (TTL, CONTENT)]
        words = []
        if CONTENT in event.changed:
            words.append("content edited")
        if TTL in event.changed:
            words.append(f"ttl {_ttl(event.ttl_before)} → {_ttl(event.ttl)}")
        words.extend(f"{name} changed" for name in changed)
        parts.append(", ".join(words) if words else "no mapped field changed")
    if event.ttl_reset:
        parts.append(
            f"ttl reset: expires {_at(event.expires_at)} (was {_at(event.expires_before)})"
        )
    elif event.expires_at is not None and not event.previous_seen:
        parts.append(f"expires {_at(event.expires_at)}")
    return " · ".join(parts)


def item_words(history: History) -> str | None:
    """What the item itself says now (a point read), or None for a thread's history."""
    item = history.item
    if item is None or history.item_id is None:
        return None
    if item.state is ItemState.PRESENT:
        due = (
            f"expires {_at(item.expires_at)} (TTL {item.ttl_effective})"
            if item.expires_at is not None
            else "never expires"
        )
        return f"the item is there now: last written {_at(item.ts)}, {due}"
    if item.state is ItemState.UNKNOWN:
        return f"the item could not be read now: {item.detail}"
    if history.item_id in history.gone:
        return "the item is gone now"
    last = history.events[-1] if history.events else None
    if last is not None and last.expires_at is not None and last.expires_at <= history.read_at:
        # latest-version mode holds no purge at all; all versions, none yet (purges lag)
        purge = (
            "not purged yet (the purge uses spare throughput and can lag)"
            if history.mode.sees_deletes
            else "its purge is not in this feed"
        )
        return (
            f"the item is not there now: it expired {_at(last.expires_at)} (TTL "
            f"{last.ttl_effective}, from the last version the feed holds); {purge}"
        )
    if not history.events:
        return (
            "the item is not there now, and the feed holds nothing of it: it was never "
            "written, or it went before the history begins"
        )
    return "the item is not there now"


def note_lines(history: History) -> list[str]:
    """The notes (silence, retention, what is invisible, a short read) and the item's."""
    lines = [note.text for note in history.notes]
    words = item_words(history)
    if words is not None:
        lines.append(words)
    return lines


def history_record(event: HistoryEvent) -> dict[str, Any]:
    """One event (JSON keeps the exact order and ttl values: ``"3600"`` stays a string)."""
    return {
        "time": iso_utc(event.time),
        "op": event.op.value,
        "id": event.item_id,
        "lsn": event.lsn,
        "order": event.order,
        "ttl": event.ttl,
        "ttl_effective": event.ttl_effective,
        "expires_at": iso_utc(event.expires_at) if event.op is not ChangeOp.EXPIRED else None,
        "expired_at": iso_utc(event.expires_at) if event.op is ChangeOp.EXPIRED else None,
        "purged_at": iso_utc(event.purged_at),
        "purge_lag_s": event.purge_lag,
        "changed": list(event.changed),
        "ttl_before": event.ttl_before,
        "ttl_reset": event.ttl_reset,
        "role": event.role,
        "kind": event.kind,
        "text": event.preview,
    }


def history_row(event: HistoryEvent, fmt: str) -> dict[str, Any]:
    record = history_record(event)
    if fmt != "json":
        record["order"] = None if event.order is None else value_text(event.order)
        record["ttl"] = None if event.ttl is None else ttl_json(event.ttl)
        record["ttl_before"] = None if event.ttl_before is None else ttl_json(event.ttl_before)
    if fmt == "table":
        record["op"] = op_words(event.op)
        record["changed"] = ", ".join(event.changed)
        record["text"] = event.preview or event_words(event)
    return record
