"""The advisor's rules about items and keys, as pure functions: evidence in, findings out.

Each rule reads container properties and a sample of item shapes (``ItemShape``:
measured where the items are, never the items), sometimes key counts or the
hot-keys report, and returns findings that name their rule, severity, evidence and
fix. Rule names are the seed's where it has one (``partition-avoid-hotspots``,
``model-avoid-2mb-limit`` …); the TTL rules, which the seed does not cover, are the
console's own (``ttl-*``, from the Cosmos TTL documentation). The indexing and vector
rules live in ``advice_index``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from cosmem_tui.core.hot_keys_notes import BUSY, SATURATED, partition_take
from cosmem_tui.model import MISSING, ContainerProperties, Key, Severity, TtlState, resolve_ttl
from cosmem_tui.model.advice import Finding, ItemShape
from cosmem_tui.model.telemetry import HotKeysReport, KeyUsage
from cosmem_tui.model.ttl import format_duration, ttl_invalid_reason, ttl_json
from cosmem_tui.schemas import Granularity, Schema
from cosmem_tui.schemas.mapping import parse_time

EXAMPLES = 3  # example ids per finding
REWRITE_LAG_S = 3_600  # _ts this much after the created field: the item was rewritten
HOT_SHARE = 0.2  # a first-level key with this share of the items …
HOT_FACTOR = 5.0  # … and this many times its fair share is a hotspot
HOT_LOAD_SHARE = 0.5  # a key taking half of the container's RU is skewed load …
HOT_PARTITION_TAKE = 0.5  # … and so is one taking half of its physical partition's RU
FEW_KEYS = 10  # a single-level key with fewer values than this is low-cardinality
MIN_SAMPLE = 20  # shares of a sample smaller than this prove nothing
SIZE_HIGH = 1_500_000  # the seed's warning threshold, well under the 2 MB limit
SIZE_WARN = 512 * 1024
GROWING_MESSAGES = 50  # a document holding this many messages grows with every turn
GROWING_SIZE = 256 * 1024
PK_MAX_BYTES = 2_048
PK_V1_MAX_BYTES = 101  # without large partition keys (partition key version 1)
ID_MAX_BYTES = 1_023
ID_RESERVED = re.compile(r"[/\\?#]")
_GUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I)


def examples(ids: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))[:EXAMPLES]


def _of(count: int, total: int) -> str:
    return f"{count:,} of {total:,} sampled items"


# -- TTL -----------------------------------------------------------------------------------


def ttl_container_off(container: ContainerProperties, shapes: Sequence[ItemShape]) -> list[Finding]:
    """Items carry a ttl the service ignores: the container's TTL is off."""
    if container.default_ttl is not None:
        return []
    carrying = [s for s in shapes if s.ttl is not MISSING]
    if not carrying:
        return []
    values = Counter(ttl_json(s.ttl, 20) for s in carrying).most_common(3)
    seen = ", ".join(f"{value} ×{n:,}" for value, n in values)
    return [
        Finding(
            "ttl-container-off",
            Severity.HIGH,
            "items carry a ttl but TTL is off on the container: nothing expires",
            f"the container has no DefaultTimeToLive, so every item ttl is ignored; "
            f"{_of(len(carrying), len(shapes))} carry one ({seen}): short-term memory is "
            "kept for ever",
            "turn TTL on with DefaultTimeToLive -1 (on, no default): items with a ttl then "
            "expire, items without one are kept; items already past _ts + ttl go at once",
            len(carrying),
            examples([s.id for s in carrying]),
        )
    ]


def ttl_invalid(shapes: Sequence[ItemShape]) -> list[Finding]:
    """``ttl: null``, ``0``, strings, fractions …: ignored by the service (the default applies)."""
    bad = [(s, ttl_invalid_reason(s.ttl)) for s in shapes]
    bad = [(s, why) for s, why in bad if why is not None]
    if not bad:
        return []
    kinds = Counter(f"{ttl_json(s.ttl, 20)} ({why})" for s, why in bad).most_common(3)
    seen = "; ".join(f"{value} ×{n:,}" for value, n in kinds)
    return [
        Finding(
            "ttl-invalid-value",
            Severity.WARN,
            "items with a ttl the service does not accept: the container default applies",
            f"{_of(len(bad), len(shapes))}: {seen}",
            "write an integer: -1 (never) or 1..2147483647 seconds; leave ttl out to use "
            'the container default (null and 0 are not valid, "3600" is a string)',
            len(bad),
            examples([s.id for s, _ in bad]),
        )
    ]


def ttl_reset_by_rewrites(
    container: ContainerProperties, schema: Schema, shapes: Sequence[ItemShape]
) -> list[Finding]:
    """Expiring items whose last write (_ts) is long after their creation: every write
    restarts the TTL clock, so they outlive their ttl."""
    if container.default_ttl is None or not schema.timestamps:
        return []
    created_type = schema.timestamps[0].type
    rewritten: list[tuple[ItemShape, float]] = []
    for shape in shapes:
        ttl = resolve_ttl(shape.ttl, shape.ts, container.default_ttl)
        if ttl.state is not TtlState.EXPIRES:
            continue  # never expires: a rewrite changes nothing about when it goes
        created = parse_time(shape.created, created_type) if shape.created is not None else None
        if created is not None and shape.ts - created >= REWRITE_LAG_S:
            rewritten.append((shape, shape.ts - created))
    if not rewritten:
        return []
    longest = max(lag for _, lag in rewritten)
    field = schema.timestamps[0].path.text
    return [
        Finding(
            "ttl-reset-by-rewrites",
            Severity.WARN,
            "expiring items were rewritten after they were created: each write restarts "
            "their TTL clock",
            f"{_of(len(rewritten), len(shapes))} that expire were last written (_ts) at least "
            f"{format_duration(REWRITE_LAG_S)} after {field} (up to {format_duration(longest)}): "
            "they live that much longer than their ttl",
            "write short-term items once; put later annotations in another item, or when "
            "rewriting set ttl to what is left (created + retention − now)",
            len(rewritten),
            examples([s.id for s, _ in rewritten]),
        )
    ]


# -- partition keys ------------------------------------------------------------------------


def partition_query_patterns(
    container: ContainerProperties, shapes: Sequence[ItemShape]
) -> list[Finding]:
    """A key that puts every item in its own partition: a thread's turns are spread out."""
    paths = container.partition_key.paths
    per_item = [s for s in shapes if len(s.partition_key) == 1 and s.partition_key[0] == s.id]
    if paths == ("/id",):
        evidence = "the container is partitioned by /id"
    elif len(shapes) >= 5 and len(per_item) >= 0.9 * len(shapes):
        guids = sum(1 for s in per_item if _GUID.match(str(s.partition_key[0])))
        kind = f" ({guids:,} of them GUIDs)" if guids else ""
        evidence = (
            f"the partition key {paths[0]} equals the item id in "
            f"{_of(len(per_item), len(shapes))}{kind}"
        )
    else:
        return []
    return [
        Finding(
            "partition-query-patterns",
            Severity.HIGH,
            "one item per logical partition: reading a thread is a cross-partition query",
            f"{evidence}: a thread's turns are spread over the whole container, so listing "
            "them fans out to every physical partition",
            "re-key by what the reads filter on: the thread, or [/tenantId, /threadId] as a "
            "hierarchical key (the Change partition key feature copies the data over)",
            len(per_item) or None,
            examples([s.id for s in per_item]),
        )
    ]


def _first_level(shape: ItemShape) -> str | None:
    if not shape.partition_key:
        return None
    try:
        return Key.of(shape.partition_key[0]).text
    except ValueError:
        return None


def partition_hotspots(
    container: ContainerProperties,
    schema: Schema,
    shapes: Sequence[ItemShape],
    counts: Mapping[Key, int],
    load: HotKeysReport | None = None,
) -> list[Finding]:
    """One first-level key (a tenant) with most of the items, the writes or the RU."""
    label = schema.tenant_label if schema.tenant is not None else "key"
    evidence: list[str] = []
    hot: list[str] = []
    severity = Severity.WARN
    total = sum(counts.values())
    if len(counts) >= 3 and total:
        key, top = max(counts.items(), key=lambda kv: kv[1])
        share = top / total
        if share >= HOT_SHARE and share * len(counts) >= HOT_FACTOR:
            evidence.append(
                f"{key.text} holds {share:.0%} of the items counted ({top:,} of {total:,} "
                f"across {len(counts):,} {label}s counted)"
            )
            hot.append(key.text)
    firsts = [f for f in (_first_level(s) for s in shapes) if f is not None]
    if len(firsts) >= MIN_SAMPLE:
        tally = Counter(firsts)
        name, top = tally.most_common(1)[0]
        share = top / len(firsts)
        if len(tally) >= 3 and share >= HOT_SHARE and share * len(tally) >= HOT_FACTOR:
            evidence.append(
                f"{name} wrote {share:.0%} of the {len(firsts):,} most recently written items "
                f"sampled ({len(tally):,} {label}s among them)"
            )
            hot.append(name)
    if load is not None:
        found = hot_load(load)
        if found is not None:
            text, loaded, loud = found
            evidence.append(text)
            hot.append(loaded)
            severity = Severity.HIGH if loud else severity
    if not evidence:
        return []
    if container.partition_key.hierarchical:
        fix = (
            "the hierarchical key spreads a large tenant's threads over partitions; if its "
            "load still throttles others, give it its own container or throughput, or "
            "raise throughput only while it is busy (autoscale)"
        )
    else:
        first = container.partition_key.paths[0]
        fix = (
            f"add the thread as a second level: a hierarchical key [{first}, /threadId] "
            "spreads one tenant over many partitions (partition-hierarchical)"
        )
    return [
        Finding(
            "partition-avoid-hotspots",
            severity,
            f"one {label} takes an outsized share of the container: a hot partition",
            "; ".join(evidence),
            fix,
            None,
            examples(hot),
        )
    ]


def hot_load(load: HotKeysReport) -> tuple[str, str, bool] | None:
    """The key whose load makes a hot partition, from the hot-keys report: (evidence,
    key, whether it is high), or None.

    Throttling is per physical partition, so the container's share alone misses it: a
    tenant with 48 % of the container can be 93 % of its partition and get its 429s. A
    key counts when it takes half of its partition's RU (or of the container's), and
    its partition is full (429s on its requests, or its busiest second at the
    partition's budget: high) or near full (warn); half of the container on a quiet
    partition is skew (warn). Half of a partition that is far from its budget is not
    a hotspot. Like the item counts, fewer than three keys prove nothing (one tenant
    is all of a one-tenant container)."""
    keys = load.keys_total if load.keys_total is not None else len(load.rows)
    if keys < 3:
        return None
    partition_ru = {p.partition: p.ru for p in load.partitions}
    best: tuple[tuple[int, float, float], KeyUsage, float | None, bool] | None = None
    for row in load.rows:
        take = partition_take(row, partition_ru)
        if (take or 0.0) < HOT_PARTITION_TAKE and row.share < HOT_LOAD_SHARE:
            continue
        throttled = row.throttled or 0
        budget = row.partition_share or 0.0
        loud = throttled > 0 or budget >= SATURATED
        if not loud and budget < BUSY and row.share < HOT_LOAD_SHARE:
            continue
        rank = (1 if loud else 0, float(throttled), take or row.share)
        if best is None or rank > best[0]:
            best = (rank, row, take, loud)
    if best is None:
        return None
    _, row, take, loud = best
    window = load.window.label
    parts = [
        f"{row.key.text} took {take:.0%} of partition {row.partition}'s RU"
        f" ({row.share:.0%} of the container's) in the last {window}"
        if take is not None
        else f"{row.key.text} took {row.share:.0%} of the container's RU in the last {window}"
    ]
    if row.partition_share is not None:
        parts.append(f"its busiest second {row.partition_share:.0%} of the partition's RU/s")
    if row.throttled:
        parts.append(f"{row.throttled:,} of its requests answered 429")
    return f"{', '.join(parts)} ({load.source.label})", row.key.text, loud


def partition_high_cardinality(
    container: ContainerProperties, shapes: Sequence[ItemShape], keys_listed: int | None
) -> list[Finding]:
    """A single-level key with few values: few logical partitions, each capped."""
    if container.partition_key.hierarchical:
        return []  # a low-cardinality first level is the point of a hierarchical key
    firsts = {f for f in (_first_level(s) for s in shapes) if f is not None}
    if keys_listed is not None:
        distinct, where = keys_listed, "listed"
    elif len(shapes) >= MIN_SAMPLE * 2:
        distinct, where = len(firsts), f"among {len(shapes):,} sampled items"
    else:
        return []
    if distinct >= FEW_KEYS:
        return []
    path = container.partition_key.paths[0]
    return [
        Finding(
            "partition-high-cardinality",
            Severity.WARN,
            f"partitioned by {path} with only {distinct:,} values",
            f"{distinct:,} distinct {path} values {where}: each is one logical partition, "
            "capped at 20 GB and at one physical partition's throughput",
            f"use a key with many values, or make {path} the first level of a hierarchical "
            f"key [{path}, /threadId] (partition-hierarchical)",
            distinct,
            examples(sorted(firsts)),
        )
    ]


def _bytes(value: object) -> int:
    text = value if isinstance(value, str) else repr(value)
    return len(text.encode("utf-8"))


def partition_key_length(
    container: ContainerProperties, shapes: Sequence[ItemShape]
) -> list[Finding]:
    """Partition key values near or over the length the service accepts."""
    limit = PK_V1_MAX_BYTES if container.partition_key.version < 2 else PK_MAX_BYTES
    over = [s for s in shapes if any(_bytes(v) > limit for v in s.partition_key)]
    near = [
        s for s in shapes if s not in over and any(_bytes(v) > limit // 2 for v in s.partition_key)
    ]
    if not over and not near:
        return []
    longest = max(_bytes(v) for s in over + near for v in s.partition_key)
    version = "" if limit == PK_MAX_BYTES else " (partition key version 1: no large keys)"
    return [
        Finding(
            "partition-key-length",
            Severity.HIGH if over else Severity.WARN,
            f"partition key values {'over' if over else 'near'} the {limit:,}-byte limit{version}",
            f"{len(over):,} sampled items over {limit:,} bytes, {len(near):,} over half of it; "
            f"the longest is {longest:,} bytes",
            "key by short ids (a tenant or thread id), never by free text; hash a long "
            "natural key if it must be the key",
            len(over) + len(near),
            examples([s.id for s in over + near]),
        )
    ]


def id_constraints(shapes: Sequence[ItemShape]) -> list[Finding]:
    """Ids over 1,023 bytes, or with / \\ ? # (point reads, writes and deletes fail)."""
    long_ids = [s for s in shapes if _bytes(s.id) > ID_MAX_BYTES]
    reserved = [s for s in shapes if ID_RESERVED.search(s.id)]
    if not long_ids and not reserved:
        return []
    parts = []
    if long_ids:
        parts.append(f"{len(long_ids):,} ids over {ID_MAX_BYTES:,} bytes")
    if reserved:
        parts.append(f"{len(reserved):,} ids with / \\ ? or #")
    return [
        Finding(
            "model-id-constraints",
            Severity.HIGH if long_ids else Severity.WARN,
            "item ids the service cannot address reliably",
            f"among {len(shapes):,} sampled items: {', '.join(parts)}; reads, replaces and "
            "deletes by id fail for them (401/404), deletion requests included",
            "use ids of letters, digits, '-', '_' or ':' under 1,023 bytes (a GUID, or "
            "base64url of a natural key)",
            len(long_ids) + len(reserved),
            examples([s.id for s in long_ids + reserved]),
        )
    ]


# -- item size -----------------------------------------------------------------------------


def _size(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n / 1000:.0f} KB"


def item_size(shapes: Sequence[ItemShape]) -> list[Finding]:
    """Items approaching the 2 MB item limit."""
    sized = [s for s in shapes if s.size is not None]
    big = [s for s in sized if s.size is not None and s.size >= SIZE_WARN]
    if not big:
        return []
    worst = max(big, key=lambda s: s.size or 0)
    over = [s for s in big if (s.size or 0) >= SIZE_HIGH]
    return [
        Finding(
            "model-avoid-2mb-limit",
            Severity.HIGH if over else Severity.WARN,
            "items approaching the 2 MB item limit",
            f"{len(big):,} of {len(sized):,} sampled items over {_size(SIZE_WARN)} "
            f"({len(over):,} over {_size(SIZE_HIGH)}); the largest is {_size(worst.size or 0)} "
            f"({worst.id})",
            "keep items well under 2 MB: one item per message or exchange, large payloads "
            "in Blob Storage with a reference (model-reference-large)",
            len(big),
            examples([worst.id, *(s.id for s in big)]),
        )
    ]


def growing_thread_document(schema: Schema, shapes: Sequence[ItemShape]) -> list[Finding]:
    """One document per thread that every turn rewrites (session stores, long exchanges)."""
    with_messages = [s for s in shapes if s.messages is not None]
    grown = [
        s
        for s in with_messages
        if (s.messages or 0) >= GROWING_MESSAGES or (s.size or 0) >= GROWING_SIZE
    ]
    session = schema.granularity is Granularity.SESSION
    if not grown and not (session and with_messages):
        return []
    most = max(with_messages, key=lambda s: (s.messages or 0, s.size or 0))
    size = f", {_size(most.size)}" if most.size is not None else ""
    what = (
        "every turn rewrites the whole session document"
        if session
        else "documents hold a growing messages array"
    )
    return [
        Finding(
            "model-reference-large",
            Severity.WARN if grown else Severity.INFO,
            f"one document per thread that grows with every turn: {what}",
            f"{len(grown):,} of {len(with_messages):,} sampled documents hold "
            f"{GROWING_MESSAGES}+ messages or {_size(GROWING_SIZE)}+; the largest holds "
            f"{most.messages:,} messages{size} ({most.id}); each save costs more RU, and "
            "one ttl covers the whole conversation",
            "store one item per message or exchange in the thread's partition (a single-"
            "partition query reads it back in order) and keep summaries as their own items",
            len(grown) or None,
            examples([most.id, *(s.id for s in grown)]),
        )
    ]
