"""What the hot-keys report says beside its rows: the caveats and thresholds of its
columns, the headline, the 429 and console notes, and how late the logs arrive."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from cosmem_tui.model.key_usage import KeyUsageTable
from cosmem_tui.model.telemetry import (
    HotKeysReport,
    KeyUsage,
    PartitionUsage,
    ProblemKind,
    Span,
    TelemetryAbout,
    TelemetryProblem,
    Window,
)
from cosmem_tui.model.times import utc_text
from cosmem_tui.sources.agent import CONSOLE_MARK

STORAGE_CAVEAT = (
    "storage: the last 24 h's latest statistics, which log only each partition's largest "
    "keys (estimates), so a tenant's is a lower bound (≥); a blank is not zero"
)
BUDGET_CAVEAT = (
    "BUDGET: busiest second served ÷ the partition's RU/s; a 429 is not served, "
    "so it tops out at 100 %"
)
# BUDGET (``partition_share``) is RU *served* in a key's busiest second on its partition
# over that partition's share of the provisioned RU/s. A throttled request consumes no
# RU and is not in the RU log, so it cannot pass the budget: at SATURATED the partition
# was full in that second (429s are being answered); from BUSY on, near it. Below, a key
# can still be throttled by its neighbours, or by bursts shorter than the second.
SATURATED = 0.95
BUSY = 0.8
# A throttled request charges 0 RU and may have no row in the RU log at all, so a key's
# 429s are those the request log and the RU log share an activity id for: "where
# logged". The others are counted apart (REQUEST_TOTALS' Unattributed), never dropped.
LOGGED_429 = "429 LOGGED"
UNKNOWN_REGION_CAVEAT = (
    "region unknown: the logs of every region together, so BUDGET is left blank (RU/s "
    "is provisioned per region)"
)
SERVERLESS_CAVEAT = "serverless: no provisioned RU/s, so no BUDGET"


def _clock_text(at: float) -> str:
    return utc_text(at, "%H:%M:%S UTC")


def console_note(report: HotKeysReport) -> str:
    """The console's own RU beside the window's, which the RU log counts as any other
    client's: as the request log marks it (every cosmem console), else this session's
    own from its ledger; empty for a simulated account, which the console never reaches."""
    if report.source.simulated:
        return ""
    of = f"of the window's {report.total_ru:,.0f} RU"
    if report.console_ru is not None:
        requests = report.console_requests or 0
        return (
            f"the console's own requests: {requests:,}, {report.console_ru:,.0f} RU {of} "
            "(the per-key RU counts them; the 429s leave them out)"
        )
    if report.session_ru:
        return f"this session's own requests: {report.session_ru:,.0f} RU {of} (its ledger)"
    return ""


def unmarked_caveat(expected: int) -> str:
    return (
        f"the request log shows none of this session's {expected:,} "
        f"request{'s' if expected != 1 else ''} as the console's (UserAgent without "
        f"{CONSOLE_MARK!r}): its own load counts as the application's here"
    )


def throttle_note(throttled: int | None, unattributed: int | None) -> str:
    """What the per-key 429 column counts, and what it cannot: ``429 LOGGED: a key's 429s
    whose request the RU log names; 12 of the window's 33 429s name no key``."""
    text = f"{LOGGED_429}: a key's 429s whose request the RU log names (distinct requests)"
    if throttled is None or unattributed is None:
        return f"{text}; how many of the window's 429s name no key is not known"
    if not throttled:
        return f"{text}; no 429s in the window"
    if not unattributed:
        return f"{text}; every one of the window's {throttled:,} 429s names its key"
    return f"{text}; {unattributed:,} of the window's {throttled:,} 429s name no key"


def incomplete_from(span: Span, about: TelemetryAbout, data_as_of: float | None) -> float | None:
    """From when on the window's logs may not all have arrived: the source's usual
    longest delay before the window's end, or where the logs stop if that is earlier
    (None: the window ended longer ago than that, it is whole)."""
    since = span.end - about.log_delay_s[1]
    if data_as_of is not None:
        since = min(since, data_as_of)
    return max(span.start, since) if since < span.end else None


def delay_text(seconds: float) -> str:
    """``30 s``, ``3 min``, ``2 h``: a delay as a person says it."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{math.ceil(seconds / 60):.0f} min"
    return f"{seconds / 3600:.0f} h"


def arrival_text(about: TelemetryAbout) -> str:
    """How late the source's logs arrive: ``3–10 min`` (Azure), ``30 s`` (the simulator)."""
    least, most = about.log_delay_s
    if least == most:
        return delay_text(most)
    if least >= 60 and most < 3600:
        return f"{math.ceil(least / 60):.0f}–{math.ceil(most / 60):.0f} min"
    return f"{delay_text(least)} – {delay_text(most)}"


def lag_note(
    span: Span, about: TelemetryAbout, data_as_of: float | None, incomplete: float | None
) -> str:
    """``logs arrive 3–10 min after the requests: the newest 10 min (67 % of the
    window) may be incomplete; data as of 07:59:50 UTC`` — said beside every logs
    window, so a quiet tail is not read as the load going away."""
    text = f"logs arrive {arrival_text(about)} after the requests"
    if incomplete is not None:
        missing = span.end - incomplete
        share = missing / span.seconds if span.seconds else 1.0
        text += (
            f": the newest {delay_text(missing)} ({share * 100:.0f} % of the window) "
            "may be incomplete"
        )
    if data_as_of is not None:
        text += f"; data as of {_clock_text(data_as_of)}"
    return text


def skew_headline(
    rows: Sequence[KeyUsage],
    partitions: tuple[PartitionUsage, ...],
    window: Window,
    problems: list[TelemetryProblem],
) -> str:
    """The table's first row — the key that spent the most — with its share of its own
    partition and of the container ("contoso = 95 % of RU on partition 1, 57 % of the
    container's RU in 15m"). When another partition is the busy one (its busiest second
    at BUSY of its budget or more), the key that takes most of it is named after it, so
    the headline never names a row the table does not show first without saying why."""
    if not rows:
        if any(p.kind is not ProblemKind.NO_DATA for p in problems):
            return "no per-key usage: see below"
        return f"no keyed requests logged in the last {window.label}"
    top = rows[0]
    container = f"{top.share * 100:.0f} % of the container's RU in {window.label}"
    headline = f"{_label(top)} = {container}"
    partition_ru = {p.partition: p.ru for p in partitions}
    take = partition_take(top, partition_ru)
    if take is not None:
        headline = (
            f"{_label(top)} = {take * 100:.0f} % of RU on partition {top.partition}, {container}"
        )
    hottest = max(partitions, key=lambda p: (p.peak_ru_s, p.ru), default=None)
    if (
        hottest is None
        or hottest.partition == top.partition
        or not hottest.budget_ru_s
        or hottest.peak_ru_s < BUSY * hottest.budget_ru_s
    ):
        return headline
    there = _on_partition(rows, hottest.partition)
    busiest = f"partition {hottest.partition} is the busiest"
    if not there or not hottest.ru:
        return f"{headline}; {busiest}"
    owner = max(there, key=lambda r: r.partition_ru)
    mine = owner.partition_ru / hottest.ru * 100
    return f"{headline}; {busiest}: {_label(owner)} = {mine:.0f} % of its RU"


def _on_partition(rows: Sequence[KeyUsage], partition: str) -> list[KeyUsage]:
    """The rows whose busiest partition is ``partition`` (a table's by its column)."""
    if isinstance(rows, KeyUsageTable):
        return [rows.row(i) for i, p in enumerate(rows.partition) if p == partition]
    return [r for r in rows if r.partition == partition]


def partition_take(row: KeyUsage, partition_ru: Mapping[str, float]) -> float | None:
    """What share of its main partition's RU a key spent (None: the partition's total is
    not known). ``partition_ru``: RU per partition id, the report's ``partitions``. A
    tenant with half the container can be all of one partition: that is where its load
    throttles others."""
    total = partition_ru.get(row.partition)
    return min(1.0, row.partition_ru / total) if total else None


def _label(row: KeyUsage) -> str:
    label = row.key.text
    return label if len(label) <= 40 else label[:39] + "…"
