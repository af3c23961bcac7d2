"""Flat records of tenants, threads and turns for headless output (JSON, CSV, tables).

The keys are a runbook-facing contract (documented in the README): add keys freely,
never rename or remove one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cosmem_tui.model import MISSING, JsonValue, Key, KeyCounts, Thread, Turn
from cosmem_tui.model.keys import value_text
from cosmem_tui.model.lifecycle import FORECAST_HORIZONS, TtlSummary, horizon_label
from cosmem_tui.model.telemetry_choices import KeyLevel
from cosmem_tui.model.times import in_calendar, iso_utc, out_of_range
from cosmem_tui.model.ttl import ItemTtl, format_duration

if TYPE_CHECKING:  # annotations only: these models load with the commands that use them
    from cosmem_tui.core.recall_report import ExpectedVerdict, RankedHit
    from cosmem_tui.model import Finding
    from cosmem_tui.model.doctor import CapabilityRow, CheckResult
    from cosmem_tui.model.telemetry import KeyUsage

TENANT_FIELDS = ("tenant", "threads", "items", "last_activity")
# Every list's FIELDS are its record's keys, in order: CSV has the same columns as JSON.
THREAD_TABLE_FIELDS = ("thread", "tenant", "turns", "last_activity", "short_term", "long_term")
THREAD_FIELDS = (*THREAD_TABLE_FIELDS, "pseudo")
TOP_THREAD_FIELDS = tuple(f for f in THREAD_FIELDS if f != "tenant")
TURN_FIELDS = (
    "id",
    "order",
    "timestamp",
    "kind",
    "roles",
    "text",
    "ttl",
    "ttl_state",
    "ttl_class",
    "ttl_effective",
    "expires_at",
    "expires_in",
    "problems",
    "part",
    "messages",
)
TURN_TABLE_FIELDS = ("order", "timestamp", "kind", "roles", "text", "ttl", "expires_in")


def iso(epoch: float | None) -> str | None:
    """ISO-8601 UTC; None also for a time off the calendar (the item's problems say it)."""
    return iso_utc(epoch)


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
        "ttl_class": turn.ttl.ttl_class.value,  # short-term, long-term, default, ignored, invalid
        "ttl_effective": turn.ttl.effective
        if turn.ttl.effective is not None
        else (-1 if turn.ttl.state.value == "never" else None),
        "expires_at": iso(turn.ttl.expires_at),
        "expires_in": None if remaining is None else int(remaining),
        "problems": list(turn.problems),
        "part": turn.part,  # session documents: the message's index inside item "id"
        "messages": [{"role": m.role, "text": m.text} for m in turn.messages],
    }


# -- the same records as each format writes them (the CLI's lists and the console's export)


def tenant_row(tenant: Key, counts: KeyCounts | None, fmt: str) -> dict[str, Any]:
    record = tenant_record(tenant, counts)
    if fmt != "json":
        record["tenant"] = tenant.text  # 42 and "42" stay apart in text too
    if fmt == "table" and counts is not None:
        _show_off_calendar(record, "last_activity", counts.last_activity)
    return record


def thread_row(thread: Thread, fmt: str) -> dict[str, Any]:
    record = thread_record(thread)
    if fmt != "json":
        record["thread"] = thread.ref.thread.text
        record["tenant"] = thread.ref.tenant.text if thread.ref.tenant else None
    if fmt == "table":
        _show_off_calendar(record, "last_activity", thread.last_activity)
    return record


def top_thread_row(thread: Key, counts: KeyCounts | None, fmt: str) -> dict[str, Any]:
    record = top_thread_record(thread, counts)
    if fmt != "json":
        record["thread"] = thread.text
    if fmt == "table" and counts is not None:
        _show_off_calendar(record, "last_activity", counts.last_activity)
    return record


def turn_row(turn: Turn, now: float, fmt: str) -> dict[str, Any]:
    record = turn_record(turn, now)
    if fmt != "json":  # JSON keeps the exact value: "3600" stays a string
        record["ttl"] = ttl_text(turn.ttl, flag=fmt == "table")
        # … and so does the order: the string "7" is written "7" with its quotes.
        record["order"] = None if turn.order is MISSING else value_text(turn.order)
    if fmt == "table":
        record["text"] = ("⚠ " if turn.malformed else "") + record["text"]
        record["expires_in"] = expires_in_text(record["expires_in"], record["ttl_state"])
        _show_off_calendar(record, "timestamp", turn.timestamp)
    return record


def _show_off_calendar(record: dict[str, Any], field: str, epoch: float | None) -> None:
    """A table writes a time no calendar holds as ``out of range (N)``, not as "—" (none).

    JSON and CSV keep null there: the field stays a time or nothing, and a turn's
    ``problems`` name the value."""
    if epoch is not None and not in_calendar(epoch):
        record[field] = out_of_range(epoch)


def ttl_text(ttl: ItemTtl, *, flag: bool) -> str | None:
    """The item's own ttl written as JSON, so the string "3600" never reads as 3600.

    The table adds why an invalid one is ignored; CSV has the reason in ``problems``.
    """
    if ttl.raw is MISSING:
        return None
    reason = ttl.invalid_reason
    return f"{ttl.raw_display} ⚠ {reason}" if flag and reason else ttl.raw_display


def expires_in_text(seconds: int | None, state: str) -> str:
    if seconds is None:
        return "never" if state == "never" else "ttl off"
    return "expired" if seconds <= 0 else format_duration(seconds)


# -- telemetry ------------------------------------------------------------------------

THROUGHPUT_FIELDS = ("time", "metric", "dimension", "value")
HOT_FIELDS = (
    "tenant",
    "key",
    "ru",
    "peak_ru_s",
    "share",
    "partition_share",
    "throttled",
    "storage_kb",
    "storage_lower_bound",
    "partition",
    "partitions",
    "partition_ids",
)


def hot_record(usage: KeyUsage, level: KeyLevel, *, typed: bool) -> dict[str, Any]:
    """One row of the hot-keys table. ``tenant`` is the first level of the key; ``key``
    the whole key at key level (None at tenant level). ``share`` is of the container's
    RU in the window, ``partition_share`` (BUDGET) the RU served in the key's busiest
    second on its physical partition against that partition's RU/s budget: served RU
    stops at the budget (a 429 is not served), so near 1 the partition was full."""
    key = usage.key
    tenant = Key.of(key.values[0])

    def shown(value: Key) -> Any:
        return value.json_value() if typed else value.text

    return {
        "tenant": shown(tenant),
        "key": shown(key) if level is KeyLevel.KEY else None,
        "ru": round(usage.ru, 2),
        "peak_ru_s": round(usage.peak_ru_s, 2),
        "share": round(usage.share, 4),
        "partition_share": (
            round(usage.partition_share, 4) if usage.partition_share is not None else None
        ),
        "throttled": usage.throttled,
        "storage_kb": usage.storage_kb,
        # True: only the tenant's largest keys are logged, so it holds at least that much.
        "storage_lower_bound": usage.storage_lower_bound if usage.storage_kb is not None else None,
        "partition": usage.partition,
        "partitions": usage.partitions,
        "partition_ids": list(usage.partition_ids or (usage.partition,)),
    }


# -- the advisor ----------------------------------------------------------------------

ADVICE_FIELDS = ("rule", "severity", "title", "evidence", "fix", "count", "examples")


def advice_record(finding: Finding) -> dict[str, Any]:
    """One finding: the rule it comes from, how bad, what was seen, what to change."""
    return {
        "rule": finding.rule,
        "severity": finding.severity.value,
        "title": finding.title,
        "evidence": finding.evidence,
        "fix": finding.fix,
        "count": finding.count,
        "examples": list(finding.examples),  # item ids or key texts: data, escaped on output
    }


# -- lifecycle (cosmem ttl) ------------------------------------------------------------

TTL_FIELDS = (
    "scope",
    "tenant",
    "thread",
    "class",
    "count",
    "expiring",
    *(f"within_{horizon_label(h)}" for h in FORECAST_HORIZONS),
)
TTL_TABLE_FIELDS = ("class", "count", "expiring", *TTL_FIELDS[6:])


def ttl_records(summary: TtlSummary, *, typed: bool) -> list[dict[str, Any]]:
    """One record per TTL class, then ``all``: counts and how many expire by each horizon.

    ``typed``: keys keep their JSON type (JSON); otherwise their text form (42 vs "42")."""

    def key(value: Key | None) -> Any:
        if value is None:
            return None
        return value.json_value() if typed else value.text

    scope = summary.scope
    base = {
        "scope": scope.level.value,
        "tenant": key(scope.tenant),
        "thread": key(scope.thread.thread) if scope.thread is not None else None,
    }
    rows = []
    for row in summary.rows:
        record = {
            **base,
            "class": row.ttl_class.value,
            "count": row.items,
            "expiring": summary.expiring_in(row.ttl_class),
        }
        for n, horizon in enumerate(FORECAST_HORIZONS):
            record[f"within_{horizon_label(horizon)}"] = row.within[n]
        rows.append(record)
    total = {**base, "class": "all", "count": summary.total, "expiring": summary.expiring}
    for horizon, count in summary.forecast:
        total[f"within_{horizon_label(horizon)}"] = count
    rows.append(total)
    return rows


# -- the doctor (cosmem doctor) -----------------------------------------------------------

DOCTOR_FIELDS = (
    "capability",
    "title",
    "verdict",
    "asked",
    "upcoming",
    "simulated",
    "evidence",
    "fix",
    "checks",
)
DOCTOR_TABLE_FIELDS = ("title", "verdict", "asked", "evidence")
CHECK_FIELDS = (
    "check",
    "title",
    "need",
    "needs",
    "status",
    "evidence",
    "requests",
    "request_units",
    "fix",
)
CHECK_TABLE_FIELDS = ("check", "status", "needs", "evidence")


def check_record(check: CheckResult) -> dict[str, Any]:
    """One check: the need, what was found, what reading it cost, the fix."""
    return {
        "check": check.check,
        "title": check.title,
        "need": check.need.value,
        "needs": check.needs,
        "status": check.status.value,
        "evidence": check.evidence,
        "requests": check.cost.requests,
        "request_units": round(check.cost.request_units, 2),
        "fix": check.fix or None,
    }


def doctor_record(row: CapabilityRow) -> dict[str, Any]:
    """One capability: its verdict, the evidence that decides it, the fix, its checks."""
    return {
        "capability": row.capability,
        "title": row.title,
        "verdict": row.verdict.value,
        "asked": row.asked,
        "upcoming": row.upcoming,
        "simulated": row.simulated,
        "evidence": row.evidence,
        "fix": row.fix or None,
        "checks": [check_record(c) for c in row.checks],
    }


# -- recall probes (cosmem recall) ---------------------------------------------------------

# One record per line of the table: the ranked hits, then one per expected item.
RECALL_FIELDS = ("rank", "id", "score", "thread", "signals", "expected", "why", "reason")
RECALL_TABLE_FIELDS = ("rank", "id", "score", "thread", "signals", "reason", "why")


def recall_hit_record(hit: RankedHit) -> dict[str, Any]:
    """A hit as the memory system's query ranked it, with its per-signal ranks."""
    return {
        "rank": hit.rank,
        "id": hit.id,
        "score": hit.score,
        "thread": hit.thread.thread.json_value(),
        "signals": hit.signals.record(),
    }


def recall_expected_record(verdict: ExpectedVerdict) -> dict[str, Any]:
    """An item the user expected: its rank (None outside the top k) and the one reason."""
    return {
        "id": verdict.id,
        "expected": True,
        "rank": verdict.rank,
        "why": verdict.why,
        "reason": verdict.reason.value,
    }


def recall_hit_row(hit: RankedHit, fmt: str) -> dict[str, Any]:
    record = recall_hit_record(hit)
    if fmt == "table":
        record["thread"] = hit.thread.thread.text
        record["score"] = None if hit.score is None else f"{hit.score:.4f}"
        record["signals"] = _signals_text(hit)
    return record


def recall_expected_row(verdict: ExpectedVerdict, fmt: str) -> dict[str, Any]:
    record = recall_expected_record(verdict)
    if fmt == "table":
        record["rank"] = "expected" if verdict.rank is None else f"{verdict.rank} (expected)"
    return record


def _signals_text(hit: RankedHit) -> str:
    s = hit.signals
    parts = [
        f"{name} {value}"
        for name, value in (("vector", s.vector), ("text", s.text), ("exact", s.exact))
        if value is not None
    ]
    if s.fused is not None:
        parts.append(f"fused≈{s.fused:.4f}")
    if hit.in_exact is False:
        parts.append("not in exact top k")
    return ", ".join(parts)
