"""Rows of the hot-keys table: keys by RU, sortable, filterable, drawn only when shown.

A report can hold 100,000 keys. Nothing here walks them all on a refresh: a row's
cells are formatted when the list draws it, the sort is one ``sorted`` over indices,
and the texts ``/`` filters on are asked once a row by the list, which keeps them.
Key names and partition ids come from the logs: every cell leaves through
``safe_cells``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cosmem_tui.core.hot_keys_notes import BUSY, LOGGED_429, SATURATED
from cosmem_tui.core.text import one_line
from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.model.key_usage import KeyUsageTable
from cosmem_tui.model.keys import key_texts
from cosmem_tui.model.telemetry import KeyLevel, KeyUsage
from cosmem_tui.schemas import Schema
from cosmem_tui.ui.widgets.cells import safe_cells
from cosmem_tui.ui.widgets.charts import short_number
from cosmem_tui.ui.widgets.row_list import Cell, Column, Tone


@dataclass(frozen=True)
class Sort:
    title: str  # the column it sorts by
    key: Callable[[KeyUsage], object]
    description: str


def _missing_last(value: float | int | None) -> float:
    return -float(value) if value is not None else float("inf")


SORTS = (
    Sort("RU", lambda u: -u.ru, "RU in the window"),
    Sort("PEAK/S", lambda u: -u.peak_ru_s, "the busiest second"),
    Sort(
        "BUDGET",
        lambda u: _missing_last(u.partition_share),
        "busiest second served against its partition's RU/s",
    ),
    Sort(LOGGED_429, lambda u: _missing_last(u.throttled), "429s where logged"),
    Sort("STORAGE", lambda u: _missing_last(u.storage_kb), "storage"),
    Sort("", lambda u: u.key.sort_key(), "name"),  # "" stands for the key column
)


def key_columns(label: str, sort: Sort) -> tuple[Column, ...]:
    """The table's columns; the one it is sorted by is marked ``▼``."""

    def title(text: str) -> str:
        return f"{text}▼" if text == (sort.title or label) else text

    return (
        Column(title(label), min_width=16),
        Column(title("RU"), 9, "right"),
        Column(title("PEAK/S"), 7, "right", drop_order=2),
        Column("RU%", 6, "right"),
        Column(title("BUDGET"), 7, "right", drop_order=1),
        # "where logged": a 429 whose request has no RU-log row names no key (the notes
        # count those apart).
        Column(title(LOGGED_429), 10, "right"),
        Column(title("STORAGE"), 9, "right", drop_order=3),
        Column("PARTITION", PARTITION_WIDTH, drop_order=4),
    )


def ru_text(ru: float) -> str:
    return f"{ru:,.0f}" if ru < 1_000_000 else short_number(ru)


def storage_text(kb: int | None, lower_bound: bool = False) -> str:
    """A blank when unknown: only the largest keys are logged (the caveat says so);
    ``≥`` before a lower bound (a tenant's logged keys, not all of them)."""
    if kb is None:
        return ""
    size = float(kb)
    bound = "≥" if lower_bound else ""
    for unit in ("KB", "MB", "GB", "TB"):
        if size < 1024 or unit == "TB":
            number = f"{size:,.0f}" if size >= 100 or unit == "KB" else f"{size:.1f}"
            return f"{bound}{number} {unit}"
        size /= 1024
    return ""


PARTITION_WIDTH = 9


def partition_text(usage: KeyUsage, width: int = PARTITION_WIDTH) -> str:
    """Every partition the key touched, its main one first ("1,2"); what does not fit
    (or the logs did not name) is counted ("1,2,3+5"), never a bare "+1"."""
    ids = [one_line(p) for p in (usage.partition_ids or (usage.partition,))]
    total = max(usage.partitions, len(ids))
    shown: list[str] = []
    for i, pid in enumerate(ids):
        rest = total - i - 1
        text = ",".join([*shown, pid])
        if len(text) + (len(f"+{rest}") if rest else 0) > width and shown:
            break
        shown.append(pid)
    left = total - len(shown)
    return ",".join(shown) + (f"+{left}" if left else "")


def saturated(share: float | None) -> bool:
    """Its busiest second took the partition's whole budget (served RU stops there)."""
    return (share or 0.0) >= SATURATED


def budget_cell(share: float | None) -> Cell:
    if share is None:
        return "—", "dim"
    tone: Tone = "bad" if saturated(share) else "warn" if share >= BUSY else ""
    return f"{share * 100:,.0f}%", tone


def throttled_cell(count: int | None) -> Cell:
    if count is None:
        return "—", "dim"  # not known (the 429 log failed or was cut): never shown as 0
    return f"{count:,}", "bad" if count else "dim"


def key_label(usage: KeyUsage | Key, tenant: Key | None) -> str:
    """At the key level under a tenant, the key without the tenant's own value."""
    key = usage if isinstance(usage, Key) else usage.key
    if tenant is not None and key.composite and key.values[0] == tenant.value:
        rest = key.values[1:]
        return Key(rest).text
    return key.text


class HotRows:
    """The keys of one report in one order; rows are keyed by ``Key``."""

    def __init__(
        self, rows: Sequence[KeyUsage], tenant: Key | None, sort: Sort, *, shares: bool = True
    ) -> None:
        self.rows = rows
        self.tenant = tenant
        self.sort = sort
        self.shares = shares  # False: no container total (the partition log failed)
        if sort is SORTS[0]:
            self.order: list[int] | range = range(len(rows))  # reports come sorted by RU
        else:
            self.order = sorted(range(len(rows)), key=lambda i: sort.key(rows[i]))  # type: ignore[arg-type,return-value]

    def __len__(self) -> int:
        return len(self.rows)

    def usage(self, index: int) -> KeyUsage:
        return self.rows[self.order[index]]

    def key(self, index: int) -> Key:
        """Row ``index``'s key, read from a report's table without making its row."""
        rows, at = self.rows, self.order[index]
        return rows.keys[at] if isinstance(rows, KeyUsageTable) else rows[at].key

    def label(self, index: int) -> str:
        return key_label(self.key(index), self.tenant)

    def row(self, index: int) -> list[Cell]:
        u = self.usage(index)
        hot = (u.throttled or 0) > 0 or saturated(u.partition_share)
        return safe_cells(
            [
                (one_line(self.label(index), exact=True), "bad" if hot else ""),
                (ru_text(u.ru), ""),
                (f"{u.peak_ru_s:,.0f}", "dim"),
                (f"{u.share * 100:.1f}%", "bad" if u.share >= 0.5 else "")
                if self.shares
                else ("—", "dim"),
                budget_cell(u.partition_share),
                throttled_cell(u.throttled),
                (storage_text(u.storage_kb, u.storage_lower_bound), "dim"),
                (partition_text(u), "dim"),
            ]
        )

    def search_text(self, index: int) -> str:
        return self.label(index)  # the list keeps what it asked (the key's own text)

    def search_texts(self) -> list[str]:
        """Every row's ``search_text``, in one pass over the keys (the first ``/``)."""
        rows, tenant = self.rows, self.tenant
        keys = rows.keys if isinstance(rows, KeyUsageTable) else [r.key for r in rows]
        if self.sort is not SORTS[0]:
            keys = [keys[i] for i in self.order]
        if tenant is None:
            return key_texts(keys)
        return [key_label(key, tenant) for key in keys]

    def index_of(self, key: Key) -> int | None:
        """Where ``key`` is shown (one key a refresh, the selected one): a scan, not a
        dict of every key (10 MB at 100,000 keys, kept for one lookup)."""
        rows = self.rows
        keys = rows.keys if isinstance(rows, KeyUsageTable) else [r.key for r in rows]
        for position, i in enumerate(self.order):
            if keys[i] == key:
                return position
        return None


# -- from a key in the logs to what browse can open -------------------------------------------


def browse_target(schema: Schema, level: KeyLevel, key: Key) -> Key | ThreadRef | None:
    """What a hot key is in browse terms: a tenant, a thread, or None when the
    container's partition key does not line up with the schema's tenant and thread."""
    paths = schema.partition_key
    thread_paths = tuple(p.text for p in schema.thread_paths)
    if level is KeyLevel.TENANT or not key.composite:
        if schema.tenant is not None and paths[:1] == (schema.tenant.text,):
            return Key((key.value,))
        if schema.tenant is None and paths == thread_paths and len(key.values) == len(paths):
            return ThreadRef(None, key)
        return None
    if len(key.values) != len(paths):
        return None
    by_path = dict(zip(paths, key.values, strict=True))
    tenant = None
    if schema.tenant is not None:
        if schema.tenant.text not in by_path:
            return None
        tenant = Key((by_path[schema.tenant.text],))
    if not all(p in by_path for p in thread_paths):
        return Key((key.value,)) if tenant is not None else None
    return ThreadRef(tenant, Key(by_path[p] for p in thread_paths))
