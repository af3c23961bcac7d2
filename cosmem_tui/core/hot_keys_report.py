"""The hot-keys report joined from its answers: the logs' usage per key and per
partition, 429s and storage per key, and the provisioned throughput from metrics, into
the rows of the hot-keys table (``KeyUsageTable``) and the report around them.

The logs are data, not trusted: keys and partition sets are parsed as they came.
"""

from __future__ import annotations

import json
from array import array
from dataclasses import dataclass
from typing import Any

from cosmem_tui.core.hot_keys_notes import (
    BUDGET_CAVEAT,
    SERVERLESS_CAVEAT,
    STORAGE_CAVEAT,
    UNKNOWN_REGION_CAVEAT,
    incomplete_from,
    lag_note,
    skew_headline,
    throttle_note,
    unmarked_caveat,
)
from cosmem_tui.core.partition_ranges import current_ranges
from cosmem_tui.core.regions import RegionView
from cosmem_tui.core.throughput import CAPACITY, NORMALIZED_BY_RANGE, latest_value
from cosmem_tui.model import InvalidKey, Key
from cosmem_tui.model.key_usage import KeyUsageTable
from cosmem_tui.model.telemetry import (
    AUTOSCALE_MAX_THROUGHPUT,
    PROVISIONED_THROUGHPUT,
    AccountFacts,
    HotKeysReport,
    KeyLevel,
    LogAnswer,
    MetricAnswer,
    PartitionUsage,
    Span,
    TelemetryAbout,
    TelemetryProblem,
    ThroughputMode,
    Window,
)

_DECODER = json.JSONDecoder()


def _json_or_none(text: str) -> Any:
    """``json.loads`` without its wrappers for the usual exact text (100,000 keys a
    report): the decoder straight, and ``json.loads`` only for what that did not take."""
    try:
        value, end = _DECODER.raw_decode(text)
        if end == len(text):
            return value
    except ValueError:
        pass
    try:
        return json.loads(text)  # surrounding whitespace, or not JSON at all
    except ValueError:
        return None


def parse_key(text: object) -> Key:
    """A key from the logs' JSON-array text; anything else stays one string value (the
    logs are data, not trusted: a malformed key is shown as it came). A ``Key`` is
    itself (a kept report's table, made into the answer's rows again)."""
    if isinstance(text, Key):
        return text
    if isinstance(text, str):
        values = _json_or_none(text)
        if isinstance(values, list) and values:
            try:
                return Key(values)
            except InvalidKey:
                pass
        return Key.of(text)
    try:
        return Key.of(text)
    except InvalidKey:
        return Key.of(str(text))


@dataclass(frozen=True, slots=True)
class _Logs:
    usage: LogAnswer
    partitions: LogAnswer
    throttles: LogAnswer
    storage: LogAnswer
    totals: LogAnswer  # the container's requests and 429s, and the 429s of no known key


def _number(value: Any) -> float:
    if type(value) is float:  # nearly always: the logs' reals
        return value
    return float(value) if isinstance(value, int | float) else 0.0


def _count(value: Any) -> int | None:
    return round(value) if isinstance(value, int | float) else None


def build_report(
    window: Window,
    span: Span,
    about: TelemetryAbout,
    level: KeyLevel,
    tenant: Key | None,
    logs: _Logs,
    capacity: list[MetricAnswer],
    *,
    key_levels: int | None = None,
    own: tuple[tuple[float, float], ...] = (),
    facts: AccountFacts | None = None,
    view: RegionView | None = None,
    asked: str | None = None,
) -> HotKeysReport:
    """``key_levels``: the paths of the container's partition key (None: not known);
    ``own``: this session's own requests to the account in the window, ``(at, RU)``
    each, from its ledger (``own_requests``); ``facts``, ``view``: the account's regions
    and offer, and the region these logs are of; ``asked``: the region the user chose."""
    facts = facts or AccountFacts()
    problems: list[TelemetryProblem] = list(facts.problems)
    if view is not None and view.problem is not None:
        problems.append(view.problem)
    for answer in (logs.usage, logs.partitions, logs.throttles, logs.storage, logs.totals):
        if answer.problem is not None and answer.problem not in problems:
            problems.append(answer.problem)
    for metric in capacity:
        if metric.problem is not None:
            problems.append(metric.problem)

    offer = facts.offer
    provisioned_ru_s = offer.ru_s if offer.ru_s is not None else _provisioned(capacity)
    if offer.mode is ThroughputMode.SERVERLESS:
        provisioned_ru_s = None
    region_known = view is not None and view.name is not None
    if not region_known:
        # The logs of several regions cannot be held against one region's RU/s.
        provisioned_ru_s = None
    partition_rows = logs.partitions.table.records() if logs.partitions.table else []
    # The partitions that share the RU/s now: after a split its parent no longer does.
    # The logs have no time to tell a parent from its children: all they name count.
    live = current_ranges(
        s for answer in capacity if answer.query.name == NORMALIZED_BY_RANGE for s in answer.series
    )
    count = len(live) or len({str(r["Partition"]) for r in partition_rows})
    budget = provisioned_ru_s / count if provisioned_ru_s and count else None
    partitions = tuple(
        sorted(
            (
                PartitionUsage(
                    partition=str(r["Partition"]),
                    ru=_number(r["RU"]),
                    peak_ru_s=_number(r["PeakRUps"]),
                    budget_ru_s=budget,
                    keys=_count(r["Keys"]) or 0,
                )
                for r in partition_rows
            ),
            key=lambda p: (-p.ru, p.partition),
        )
    )
    partition_ru = {p.partition: p.ru for p in partitions}
    total_ru = sum(partition_ru.values())

    throttled = _by_key(logs.throttles, "Throttled")
    storage = _by_key(logs.storage, "SizeKb")
    # A tenant of a hierarchical key is many keys, of which the statistics log only the
    # largest: its storage is their sum, a lower bound (it was shown as if whole, "1.5
    # MB" for a tenant holding 15 MB). A whole key's is its own estimate.
    partial = level is KeyLevel.TENANT and key_levels != 1
    keys: list[Key] = []
    ru_of, peak_of, part_ru_of, part_peak_of = array("d"), array("d"), array("d"), array("d")
    part_of: list[str] = []
    touched_of: list[int] = []
    ids_of: list[tuple[str, ...]] = []
    keys_total: int | None = None
    # A key absent from a complete 429 answer had none; from a partial or failed one,
    # it is not known.
    throttles_known = logs.throttles.table is not None and logs.throttles.problem is None
    usage = logs.usage.table
    if usage is not None and usage.rows:
        # Cells by position, not ``records()`` (a dict a row is 100,000 dicts at this
        # size), and nothing looked up twice in the loop: this runs once a key. The
        # rows are kept by column (``KeyUsageTable``): a row is made when it is read.
        at = {name: n for n, name in enumerate(usage.columns)}
        i_key, i_ru, i_peak = at["Key"], at["RU"], at["PeakRUps"]
        i_part, i_parts = at["Partition"], at["Partitions"]
        i_part_ru, i_part_peak = at["PartitionRU"], at["PartitionPeakRUps"]
        i_keys = at["Keys"]  # every row carries the total: the first that has one
        i_ids = at["PartitionIds"]
        keys_total = next((n for r in usage.rows if (n := _count(r[i_keys])) is not None), None)
        # A few partitions, 100,000 keys: each partition's id, and the ids of a key that
        # touched only its own, are one object for every key (not 10 MB of copies).
        shared: dict[str, str] = {}
        alone: dict[str, tuple[str, ...]] = {}
        for r in usage.rows:
            key = parse_key(r[i_key])
            touched = r[i_parts]
            main = str(r[i_part])
            main = shared.setdefault(main, main)
            ids = touched_partitions(main, r[i_ids])
            if len(ids) == 1:
                ids = alone.setdefault(main, ids)
            keys.append(key)
            ru_of.append(_number(r[i_ru]))
            peak_of.append(_number(r[i_peak]))
            part_of.append(main)
            touched_of.append(
                touched if type(touched) is int and touched > 0 else (_count(touched) or 1)
            )
            part_ru_of.append(_number(r[i_part_ru]))
            # A partition's budget is its own: BUDGET compares what the key asked of
            # that partition alone, not its busiest second over all of them.
            part_peak_of.append(_number(r[i_part_peak]))
            ids_of.append(ids)
        order = _by_ru(ru_of, keys)
        if order is not None:
            keys = [keys[i] for i in order]
            ru_of, peak_of = _taken(ru_of, order), _taken(peak_of, order)
            part_ru_of, part_peak_of = _taken(part_ru_of, order), _taken(part_peak_of, order)
            part_of = [part_of[i] for i in order]
            touched_of = [touched_of[i] for i in order]
            ids_of = [ids_of[i] for i in order]
    rows = KeyUsageTable(
        keys=keys,
        ru=ru_of,
        peak_ru_s=peak_of,
        partition=part_of,
        partitions=touched_of,
        partition_ru=part_ru_of,
        partition_peak=part_peak_of,
        throttled=throttled,
        unthrottled=0 if throttles_known else None,
        storage_kb=storage,
        partition_ids=ids_of,
        total_ru=total_ru,
        budget=budget,
        partial=partial,
    )
    if keys_total is None and logs.usage.table is not None:
        keys_total = 0

    throttled_total, unattributed = _throttle_totals(logs.totals)
    console_requests, console_ru = _console_totals(logs.totals)
    note = throttle_note(throttled_total, unattributed)
    caveats = [note, BUDGET_CAVEAT, STORAGE_CAVEAT]
    if offer.mode is ThroughputMode.SHARED:
        owner = offer.owner or "the database"
        caveats.insert(
            0,
            f"shared throughput: {owner}'s RU/s and partitions, which its other "
            "containers spend too (their load is not in these rows)",
        )
    if offer.mode is ThroughputMode.SERVERLESS:
        caveats.insert(0, SERVERLESS_CAVEAT)
    elif not region_known:
        caveats.insert(0, UNKNOWN_REGION_CAVEAT)
    elif view is not None and len(view.choices) > 1:
        caveats.insert(0, f"region {view.describe()}: that region's logs only")
    if keys_total is not None and keys_total > len(rows):
        caveats.insert(0, f"top {len(rows):,} of {keys_total:,} keys by RU")
    as_of = [a.as_of for a in (logs.usage, logs.partitions) if a.as_of is not None]
    data_as_of = max(as_of) if as_of else None
    incomplete = incomplete_from(span, about, data_as_of)
    # What of this session's own requests the logs should hold by now: those older than
    # the incomplete tail. If the request log shows none as the console's, its UserAgent
    # does not carry the mark, and the console's load is counted as the application's.
    logged_until = incomplete if incomplete is not None else span.end
    expected = sum(1 for at, _ in own if at < logged_until)
    if console_requests == 0 and expected:
        caveats.insert(0, unmarked_caveat(expected))

    return HotKeysReport(
        window=window,
        span=span,
        source=about,
        level=level,
        tenant=tenant,
        rows=rows,
        total_ru=total_ru,
        keys_total=keys_total,
        provisioned_ru_s=provisioned_ru_s,
        partitions=partitions,
        headline=skew_headline(rows, partitions, window, problems),
        data_as_of=data_as_of,
        caveats=tuple(caveats),
        problems=tuple(problems),
        incomplete_from=incomplete,
        lag_note=lag_note(span, about, data_as_of, incomplete),
        throttled_total=throttled_total,
        unattributed=unattributed,
        throttle_note=note,
        console_requests=console_requests,
        console_ru=console_ru,
        session_ru=sum(ru for _, ru in own),
        region=view.name if view is not None else None,
        region_note=view.why if view is not None else "",
        region_asked=asked,
        regions=view.choices if view is not None else (),
        offer=offer,
    )


def _console_totals(answer: LogAnswer) -> tuple[int | None, float | None]:
    """The console's own requests and RU in the window, as the request log counts them
    (every cosmem console's, the mark in UserAgent); None: not known."""
    if answer.table is None or answer.problem is not None or len(answer.table.rows) != 1:
        return None, None
    (record,) = answer.table.records()
    ru = record.get("ConsoleRU")
    return _count(record.get("ConsoleRequests")), float(ru) if isinstance(ru, int | float) else None


def _throttle_totals(answer: LogAnswer) -> tuple[int | None, int | None]:
    """The window's 429s and those no key is logged for (None: not known — the question
    failed or came back cut)."""
    if answer.table is None or answer.problem is not None or len(answer.table.rows) != 1:
        return None, None
    (record,) = answer.table.records()
    return _count(record.get("Throttled")), _count(record.get("Unattributed"))


def touched_partitions(main: str, cell: Any) -> tuple[str, ...]:
    """The partitions a key touched, its main one first, the others in id order: the
    logs' set (a list, or its JSON text) as they came — data, so anything else is only
    the main one."""
    if isinstance(cell, str):
        cell = _json_or_none(cell)
    if not isinstance(cell, list | tuple) or len(cell) < 2:  # the usual: one partition
        return (main,)
    others = {str(p) for p in cell if isinstance(p, str | int) and not isinstance(p, bool)}
    others.discard(main)
    return (main, *sorted(others, key=lambda p: (len(p), p)))  # "2" before "10"


def _by_ru(ru: array[float], keys: list[Key]) -> list[int] | None:
    """The order of the rows, most RU first and equal RU in Cosmos key order (a stable
    table), as positions; None when they are in it already (the logs come sorted by
    RU, ties are few: each run of them is sorted alone, not every key by a tuple)."""
    count = len(ru)
    if all(ru[i] > ru[i + 1] for i in range(count - 1)):
        return None
    if all(ru[i] >= ru[i + 1] for i in range(count - 1)):
        order = list(range(count))
    else:
        order = sorted(range(count), key=ru.__getitem__, reverse=True)  # stable
    start = 0
    while start < count:
        end = start + 1
        while end < count and ru[order[end]] == ru[order[start]]:
            end += 1
        if end - start > 1:
            order[start:end] = sorted(order[start:end], key=lambda i: keys[i].sort_key())
        start = end
    return order


def _taken(values: array[float], order: list[int]) -> array[float]:
    return array(values.typecode, map(values.__getitem__, order))


def _provisioned(capacity: list[MetricAnswer]) -> float | None:
    for answer in capacity:
        if answer.query.name != CAPACITY:
            continue
        autoscale = [s for s in answer.series if s.metric == AUTOSCALE_MAX_THROUGHPUT]
        fixed = [s for s in answer.series if s.metric == PROVISIONED_THROUGHPUT]
        for group in (autoscale, fixed):
            values = [latest_value(s.points) for s in group]
            known = [v for v in values if v]
            if known:
                return sum(known)
    return None


def _by_key(answer: LogAnswer, column: str) -> dict[Key, int]:
    if answer.table is None:
        return {}
    found: dict[Key, int] = {}
    for record in answer.table.records():
        value = _count(record.get(column))
        if value is not None:
            key = parse_key(record.get("Key"))
            found[key] = found.get(key, 0) + value
    return found
