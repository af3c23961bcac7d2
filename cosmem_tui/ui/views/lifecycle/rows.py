"""What the lifecycle view shows, as text: the summary lines and the rows of its one list.

Pure functions of a ``LifecycleReport`` and the time: no widgets. The list holds
sections (the soonest to expire, the long-term records, the idle threads, the drift),
each a header row and its rows; every row is keyed, so the cursor stays on its item
when the report is counted again, and knows what ``enter`` opens. An item's row says
when it expires, which turn it is (its order value), why (its ttl, or its drift) and
what it says; its record (``v``, ``y``) has every field, and ``/`` matches every cell
the row shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cosmem_tui.core import records
from cosmem_tui.core.lifecycle import IdleThread, LifecycleReport
from cosmem_tui.core.text import one_line
from cosmem_tui.model import MISSING, JsonValue, ThreadRef, TtlClass
from cosmem_tui.model.keys import value_text
from cosmem_tui.model.lifecycle import (
    LifecycleItem,
    TtlItems,
    TtlSummary,
    horizon_label,
    lifetime,
    lifetime_words,
)
from cosmem_tui.model.ttl import container_ttl_words, format_duration
from cosmem_tui.ui.widgets.cells import SOON, safe_cells
from cosmem_tui.ui.widgets.row_list import Cell, Column, Tone

# At 80 columns a row keeps when, which turn, why and what it says; the thread, the
# class and the kind give way in that order (the row detail, v, has every field).
LIFECYCLE_COLUMNS = (
    Column("EXPIRES", 8, "right"),
    Column("THREAD", 14, drop_order=1),
    Column("#", 5, "right"),
    Column("WHY", 20),
    Column("TEXT", min_width=24),
    Column("CLASS", 10, drop_order=2),
    Column("KIND", 9, drop_order=3),
)
# Every lifecycle row as a record (v shows it, y copies it): an item's fields, or an idle
# thread's; what does not apply to the row is None.
LIFECYCLE_FIELDS = (
    "section",
    "tenant",
    "thread",
    "id",
    "order",
    "kind",
    "class",
    "expires_in",
    "expires_at",
    "ttl",
    "why",
    "text",
    "idle_for",
    "short_term",
    "long_term",
)

CLASS_SHORT = {  # the CLASS column is narrow: the class's own word where it fits
    TtlClass.SHORT: "short-term",
    TtlClass.LONG: "long-term",
    TtlClass.DEFAULT: "default",
    TtlClass.IGNORED: "ignored",
    TtlClass.INVALID: "⚠ invalid",
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One row: a section header, an item, or an idle thread."""

    key: tuple[str, str]  # (section, item id or thread) — where the cursor returns
    cells: tuple[Cell, ...]
    ref: ThreadRef | None = None  # what enter opens: the thread …
    item_id: str | None = None  # … and the item in it (None: the thread itself)
    search: str = ""  # what / matches: every cell shown, and the item id
    fields: Mapping[str, Any] | None = None  # the row's record (None: a section header)

    def record(self, fmt: str) -> dict[str, Any] | None:
        """The row as ``fmt`` writes it: keys keep their JSON type in JSON only."""
        if self.fields is None:
            return None
        record = dict(self.fields)
        ref = self.ref
        if ref is not None:
            typed = fmt == "json"
            tenant = ref.tenant
            record["tenant"] = (
                None if tenant is None else tenant.json_value() if typed else tenant.text
            )
            record["thread"] = ref.thread.json_value() if typed else ref.thread.text
        return record


def _searched(cells: list[Cell], *extra: str) -> str:
    return " ".join([*(text for text, _tone in cells), *extra])


def summary_lines(report: LifecycleReport, tenant_label: str) -> list[str]:
    """The lines above the list: the scope and container mode, classes, forecast."""
    where = report.scope.describe(tenant_label)
    mode = container_ttl_words(report.container.default_ttl)
    summary = report.summary
    if summary is None:
        return [
            f"{where} · {mode}",
            "not counted: the whole container is a fan-out over every physical partition",
            "f counts it (asks first, with its cost) · :ttl TENANT [THREAD] or browse "
            "a tenant for its lifecycle",
        ]
    return [f"{where} · {mode}", classes_line(summary), forecast_line(summary)]


def classes_line(summary: TtlSummary) -> str:
    # The classes' own words (as cosmem ttl writes them); "ignored" only when TTL is off.
    parts = [f"{c.value} {n:,}" for c, n in summary.classes if n or c is not TtlClass.IGNORED]
    return f"{summary.total:,} items: " + " · ".join(parts)


def forecast_line(summary: TtlSummary) -> str:
    buckets = " · ".join(f"{horizon_label(h)} {n:,}" for h, n in summary.forecast)
    return f"expiring within {buckets} · {summary.expiring:,} expire, {summary.never:,} never"


def _when(item: LifecycleItem, now: float) -> Cell:
    ttl = item.ttl
    text = ttl.when(now)
    tone: Tone = "dim"
    if text == "expired":
        tone = "bad"
    elif ttl.expires:
        tone = "warn" if (ttl.remaining(now) or 0) <= SOON else ""
    elif text == "never":
        tone = "good"
    return text, tone


def _thread_cell(ref: ThreadRef | None) -> Cell:
    return (one_line(ref.thread.text, exact=True) if ref is not None else "(no thread)"), "dim"


def order_cell(order: JsonValue) -> Cell:
    """The order value as stored, as browse's ``#`` column writes it."""
    return ("—", "dim") if order is MISSING else (one_line(value_text(order), 8, exact=True), "")


def item_entry(section: str, item: LifecycleItem, now: float, why: str = "") -> Entry:
    ttl = item.ttl
    cls = ttl.ttl_class
    tone: Tone = "warn" if cls is TtlClass.INVALID else ("accent" if item.kind != "turn" else "")
    reason = why or ttl.source()  # why it expires then (or drifts): the ttl's own words
    cells = safe_cells(
        [
            _when(item, now),
            _thread_cell(item.ref),
            order_cell(item.order),
            (one_line(reason, 200), "warn" if cls is TtlClass.INVALID else "dim"),
            (one_line(item.text, 300) or "(no text)", "" if item.text else "dim"),
            (CLASS_SHORT[cls], "warn" if cls is TtlClass.INVALID else "dim"),
            (one_line(item.kind, 20), tone),
        ]
    )
    fields: dict[str, Any] = dict.fromkeys(LIFECYCLE_FIELDS)
    fields.update(
        {
            "section": section,
            "id": item.item_id,
            "order": None if item.order is MISSING else item.order,
            "kind": item.kind,
            "class": cls.value,
            "expires_in": cells[0][0],  # as the row shows it: "42m", "never", "expired"
            "expires_at": records.iso(ttl.expires_at),
            "ttl": ttl.raw_display if ttl.raw is not MISSING else None,  # JSON: "3600" ≠ 3600
            "why": reason,
            "text": item.text,
        }
    )
    search = _searched(cells, item.item_id, cls.value)
    return Entry((section, item.item_id), tuple(cells), item.ref, item.item_id, search, fields)


def header_entry(section: str, title: str) -> Entry:
    # One cell across the whole line (the list spans it), so no width cuts the title
    # short that the row could hold.
    return Entry((section, ""), tuple(safe_cells([(f"── {title}", "accent")])), search=title)


def _count_title(title: str, found: TtlItems) -> str:
    if found.complete:
        return f"{title}: {found.count:,}"
    return f"{title}: {len(found.items):,} of {found.count:,}"


def idle_entry(idle: IdleThread, gap: int) -> Entry:
    thread = idle.thread
    why = (
        f"no write for {format_duration(idle.idle_s)} (gap {format_duration(gap)}): "
        "a resume starts a new episode"
    )
    cells = safe_cells(
        [
            (format_duration(idle.idle_s), "dim"),
            _thread_cell(thread.ref),
            ("—", "dim"),
            (why, ""),
            (
                f"{thread.items:,} items: {thread.short_term:,} short-term, "
                f"{thread.long_term:,} long-term",
                "dim",
            ),
            ("—", "dim"),
            ("thread", "dim"),
        ]
    )
    fields: dict[str, Any] = dict.fromkeys(LIFECYCLE_FIELDS)
    fields.update(
        {
            "section": "idle",
            "kind": "thread",
            "why": why,
            "idle_for": format_duration(idle.idle_s),
            "short_term": thread.short_term,
            "long_term": thread.long_term,
        }
    )
    search = _searched(cells, thread.name)
    return Entry(("idle", thread.ref.thread.text), tuple(cells), thread.ref, None, search, fields)


def drift_why(item: LifecycleItem) -> str:
    return (
        f"lives {lifetime_words(lifetime(item.ttl))}, {item.kind} expects "
        f"{lifetime_words(item.expected)}"
    )


def entries(report: LifecycleReport, now: float) -> list[Entry]:
    """The list: each section that has something to say, with its count."""
    rows: list[Entry] = []
    soonest = report.soonest
    if soonest is not None and soonest.items:
        title = _count_title("soonest to expire", soonest)
        summary = report.summary
        if report.soonest_within is not None and summary is not None:
            if report.soonest_within in dict(summary.forecast):
                title += f" within {horizon_label(report.soonest_within)}"
            if soonest.count < summary.expiring:
                title += f" ({summary.expiring:,} expire in all)"
        rows.append(header_entry("soonest", title))
        rows += [item_entry("soonest", i, now) for i in soonest.items]
    long_term = report.long_term
    if long_term is not None and long_term.items:
        title = _count_title(kinds_title(report.long_term_kinds), long_term)
        rows.append(header_entry("long", title))
        rows += [item_entry("long", i, now) for i in long_term.items]
    if report.idle:
        total = f" of {report.threads:,}" if report.threads is not None else ""
        rows.append(
            header_entry(
                "idle",
                f"idle threads: {len(report.idle):,}{total} (a resume starts a new episode)",
            )
        )
        rows += [idle_entry(i, report.idle_gap_s) for i in report.idle]
    drift = report.drift
    if drift is not None and drift.items:
        rows.append(header_entry("drift", _count_title("lifetime ≠ schema's", drift)))
        rows += [item_entry("drift", i, now, drift_why(i)) for i in drift.items]
    return rows


def kinds_title(kinds: tuple[str, ...]) -> str:
    """The long-term records section, by the kinds it lists ("fact, summary records"):
    not the long-term TTL class the summary counts (ttl -1), which it would seem to
    contradict under the same name."""
    return f"{', '.join(kinds)} records (long-term kinds)" if kinds else "long-term kinds"


def empty_text(report: LifecycleReport | None) -> str:
    if report is None:
        return "counting…"
    if report.summary is None:
        return "f counts the whole container (asks first)"
    if report.summary.total == 0:
        return "no visible items here"
    if not report.has_lists:  # the whole container: counts only, never "nothing"
        return (
            "the counts above cover the whole container; the lists (soonest to expire, "
            "records by kind, idle threads, drift) are per tenant or thread: "
            ":ttl TENANT [THREAD], or pick one in browse"
        )
    kinds = ", ".join(report.long_term_kinds) or "long-term kind"
    return f"nothing expires, no {kinds} records, no idle threads, no lifetime drift"


class LifecycleRows:
    """The rows of the list (``RowList`` source)."""

    def __init__(self, rows: list[Entry]) -> None:
        self.entries = rows

    def __len__(self) -> int:
        return len(self.entries)

    def row(self, index: int) -> list[Cell]:
        return list(self.entries[index].cells)

    def search_text(self, index: int) -> str:
        return self.entries[index].search

    def spans(self, index: int) -> bool:
        """A section header is one cell across the line."""
        return self.entries[index].fields is None

    def record(self, index: int, fmt: str) -> dict[str, Any] | None:
        return self.entries[index].record(fmt)

    def index_of(self, key: tuple[str, str]) -> int | None:
        for index, entry in enumerate(self.entries):
            if entry.key == key:
                return index
        return None
