"""Every advisor rule with a case that fires and one that must not.

The rules are pure: container properties and item shapes in, findings out. Each
finding must name its rule, carry evidence with counts and example ids, and a fix.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cosmem_tui.core import advice_index as ix
from cosmem_tui.core import advice_rules as rules
from cosmem_tui.core.advisor import findings
from cosmem_tui.model import (
    MISSING,
    ContainerProperties,
    Key,
    PartitionKeyDefinition,
    Severity,
)
from cosmem_tui.model.advice import ItemShape
from cosmem_tui.model.telemetry import (
    HotKeysReport,
    KeyLevel,
    KeyUsage,
    PartitionUsage,
    Span,
    TelemetryAbout,
    Window,
)
from cosmem_tui.schemas import get_schema
from tests.conftest import ANCHOR

LAB = get_schema("lab")
AMT = get_schema("amt")
LANGCHAIN = get_schema("langchain")
DEMO_POLICY = {
    "indexingMode": "consistent",
    "includedPaths": [{"path": "/*"}],
    "excludedPaths": [{"path": "/embedding/*"}, {"path": '/"_etag"/?'}],
    "vectorIndexes": [{"path": "/embedding", "type": "diskANN"}],
    "compositeIndexes": [
        [{"path": "/threadId", "order": "ascending"}, {"path": "/turnIndex", "order": "ascending"}]
    ],
}
VECTORS = {
    "vectorEmbeddings": [
        {"path": "/embedding", "dataType": "float32", "dimensions": 8, "distanceFunction": "cosine"}
    ]
}


def box(
    paths: tuple[str, ...] = ("/tenantId", "/threadId"),
    default_ttl: int | None = -1,
    policy: dict[str, Any] | None = None,
    vectors: dict[str, Any] | None = VECTORS,
    version: int = 2,
) -> ContainerProperties:
    kind = "MultiHash" if len(paths) > 1 else "Hash"
    return ContainerProperties(
        "db",
        "turns",
        PartitionKeyDefinition(paths, kind, version),
        default_ttl,
        indexing_policy=DEMO_POLICY if policy is None else policy,
        vector_embedding_policy=vectors,
    )


def shape(n: int = 0, tenant: str = "acme", **changes: Any) -> ItemShape:
    base = ItemShape(
        id=f"item-{n}",
        partition_key=(tenant, f"t{n % 5}"),
        ts=ANCHOR - 60,
        ttl=MISSING,
        size=900,
        created="2026-11-29T23:59:00Z",
        kind=MISSING,
        messages=2,
        vectors=(("/embedding", 8),),
    )
    return replace(base, **changes)


def many(count: int, **changes: Any) -> list[ItemShape]:
    return [shape(i, **changes) for i in range(count)]


def one(found: list[Any], rule: str) -> Any:
    assert [f.rule for f in found] == [rule], found
    finding = found[0]
    assert finding.evidence and finding.fix and finding.title
    return finding


# -- TTL ---------------------------------------------------------------------------------


def test_item_ttl_while_container_ttl_is_off():
    items = [*many(4), shape(9, ttl=3600), shape(10, ttl=3600)]
    finding = one(rules.ttl_container_off(box(default_ttl=None), items), "ttl-container-off")
    assert finding.severity is Severity.HIGH and finding.count == 2
    assert finding.examples == ("item-9", "item-10")
    assert "3600 ×2" in finding.evidence and "2 of 6 sampled" in finding.evidence


def test_item_ttl_with_container_ttl_on_or_no_item_ttl_is_fine():
    assert rules.ttl_container_off(box(default_ttl=-1), [shape(ttl=3600)]) == []
    assert rules.ttl_container_off(box(default_ttl=None), many(5)) == []


def test_invalid_item_ttls_are_named_by_reason():
    items = [shape(1, ttl=None), shape(2, ttl=0), shape(3, ttl="3600"), shape(4, ttl=1.5)]
    finding = one(rules.ttl_invalid([*items, *many(3), shape(8, ttl=-1)]), "ttl-invalid-value")
    assert finding.count == 4 and finding.severity is Severity.WARN
    assert "null" in finding.evidence and '"3600" (a string' in finding.evidence
    assert finding.examples == ("item-1", "item-2", "item-3")


def test_valid_item_ttls_raise_nothing():
    assert rules.ttl_invalid([shape(ttl=-1), shape(ttl=3600), shape(ttl=MISSING)]) == []


def test_rewrites_that_reset_the_ttl_clock():
    rewritten = shape(1, ttl=86_400, created="2026-11-29T20:00:00Z")  # _ts 4 h later
    finding = one(
        rules.ttl_reset_by_rewrites(box(), LAB, [rewritten, *many(3, ttl=86_400)]),
        "ttl-reset-by-rewrites",
    )
    assert finding.count == 1 and finding.examples == ("item-1",)
    assert "/messages/0/timestamp" in finding.evidence and "3h59m" in finding.evidence


def test_rewrites_of_items_that_never_expire_or_fresh_writes_are_fine():
    long_term = shape(1, ttl=-1, created="2026-11-20T00:00:00Z")
    fresh = shape(2, ttl=3600)  # created a minute before _ts
    assert rules.ttl_reset_by_rewrites(box(), LAB, [long_term, fresh]) == []
    off = box(default_ttl=None)
    assert rules.ttl_reset_by_rewrites(off, LAB, [replace(long_term, ttl=3600)]) == []


# -- partition keys ------------------------------------------------------------------------


def test_a_key_of_one_item_per_partition():
    per_item = [shape(i, partition_key=(f"{i:08x}-0000-4000-8000-000000000000",)) for i in range(6)]
    per_item = [replace(s, id=str(s.partition_key[0])) for s in per_item]
    finding = one(
        rules.partition_query_patterns(box(("/pk",)), per_item), "partition-query-patterns"
    )
    assert finding.severity is Severity.HIGH and "6 of them GUIDs" in finding.evidence
    by_id = one(rules.partition_query_patterns(box(("/id",)), []), "partition-query-patterns")
    assert "partitioned by /id" in by_id.evidence


def test_a_key_shared_by_a_thread_is_aligned():
    assert rules.partition_query_patterns(box(("/threadId",)), many(10)) == []


def test_one_tenant_with_most_of_the_counted_items():
    counts = {Key.of(f"t{i}"): 100 for i in range(20)} | {Key.of("contoso"): 4000}
    finding = one(rules.partition_hotspots(box(), LAB, [], counts), "partition-avoid-hotspots")
    assert finding.examples == ("contoso",) and "67% of the items counted" in finding.evidence
    assert "hierarchical key spreads" in finding.fix


def test_one_tenant_writing_most_of_the_recent_items():
    sample = many(30, tenant="contoso") + [shape(i, tenant=f"t{i}") for i in range(20)]
    finding = one(
        rules.partition_hotspots(box(("/tenantId",)), LAB, sample, {}), "partition-avoid-hotspots"
    )
    assert "contoso wrote 60%" in finding.evidence and "second level" in finding.fix


def test_most_of_the_ru_from_the_hot_keys_report_is_high():
    row = KeyUsage(Key.of("contoso"), 900.0, 40.0, 0.8, "2", 1, 880.0, 1.3, 12, None)
    report = HotKeysReport(
        Window.M15,
        Span(ANCHOR - 900, ANCHOR),
        TelemetryAbout("simulated workload", True),
        KeyLevel.TENANT,
        None,
        (row,),
        1125.0,
        40,  # the container's keys in the window; the report's top rows only here
        400.0,
        (),
        "contoso = 80 %",
        ANCHOR,
    )
    finding = one(rules.partition_hotspots(box(), LAB, [], {}, report), "partition-avoid-hotspots")
    assert finding.severity is Severity.HIGH and "80% of the container's RU" in finding.evidence


def load_report(*rows: KeyUsage, partitions: dict[str, float], keys: int = 40) -> HotKeysReport:
    """A hot-keys report whose top rows are ``rows`` (of ``keys`` in the window);
    ``partitions``: RU per partition in the window."""
    return HotKeysReport(
        Window.M15,
        Span(ANCHOR - 900, ANCHOR),
        TelemetryAbout("simulated workload", True),
        KeyLevel.TENANT,
        None,
        rows,
        sum(partitions.values()),
        keys,
        4000.0,
        tuple(PartitionUsage(p, ru, ru / 300, 1000.0, 10) for p, ru in partitions.items()),
        "",
        ANCHOR,
    )


def tenant_load(
    name: str, share: float, partition_ru: float, budget: float, throttled: int
) -> KeyUsage:
    return KeyUsage(
        Key.of(name), share * 10_000, 1.0, share, "1", 1, partition_ru, budget, throttled, None
    )


def test_a_tenant_that_fills_its_partition_is_high_whatever_its_share_of_the_container():
    # 48 % of the container, but 93 % of partition 1, at its budget, with 429s: it was
    # not reported at all when only a container share of 50 % counted.
    report = load_report(
        tenant_load("contoso", 0.48, 4650.0, 0.99, 1211),
        tenant_load("fabrikam", 0.10, 350.0, 0.05, 0),
        partitions={"1": 5000.0, "2": 5000.0},
    )
    finding = one(rules.partition_hotspots(box(), LAB, [], {}, report), "partition-avoid-hotspots")
    assert finding.severity is Severity.HIGH and finding.examples == ("contoso",)
    assert "contoso took 93% of partition 1's RU (48% of the container's)" in finding.evidence
    assert "busiest second 99% of the partition's RU/s" in finding.evidence
    assert "1,211 of its requests answered 429" in finding.evidence


def test_half_the_container_on_a_quiet_partition_is_a_warning_not_high():
    report = load_report(
        tenant_load("contoso", 0.56, 3000.0, 0.30, 0), partitions={"1": 5000.0, "2": 5000.0}
    )
    finding = one(rules.partition_hotspots(box(), LAB, [], {}, report), "partition-avoid-hotspots")
    assert finding.severity is Severity.WARN
    assert "56% of the container's" in finding.evidence and "429" not in finding.evidence


def test_most_of_a_quiet_partition_is_no_hotspot_and_the_throttled_tenant_is_named():
    quiet = load_report(
        tenant_load("big", 0.20, 1800.0, 0.20, 0), partitions={"1": 2000.0, "2": 8000.0}
    )
    assert rules.partition_hotspots(box(), LAB, [], {}, quiet) == []
    both = load_report(
        tenant_load("skewed", 0.56, 3000.0, 0.30, 0),
        tenant_load("throttled", 0.30, 2800.0, 0.97, 500),
        partitions={"1": 3000.0, "2": 7000.0},
    )
    finding = one(rules.partition_hotspots(box(), LAB, [], {}, both), "partition-avoid-hotspots")
    assert finding.severity is Severity.HIGH and finding.examples == ("throttled",)
    alone = load_report(  # a one-tenant container: all of it, and no skew to speak of
        tenant_load("only", 1.0, 10_000.0, 0.99, 300), partitions={"1": 10_000.0}, keys=1
    )
    assert rules.partition_hotspots(box(), LAB, [], {}, alone) == []


def test_an_even_spread_is_no_hotspot():
    counts = {Key.of(f"t{i}"): 100 + i for i in range(20)}
    sample = [shape(i, tenant=f"t{i % 10}") for i in range(50)]
    assert rules.partition_hotspots(box(), LAB, sample, counts) == []
    two = {Key.of("a"): 10, Key.of("b"): 1000}  # two keys prove nothing
    assert rules.partition_hotspots(box(), LAB, [], two) == []


def test_a_single_level_key_with_few_values():
    finding = one(
        rules.partition_high_cardinality(box(("/tenantId",)), [], keys_listed=3),
        "partition-high-cardinality",
    )
    assert finding.count == 3 and "20 GB" in finding.evidence
    sample = [shape(i, partition_key=(f"t{i % 4}",)) for i in range(60)]
    from_sample = one(
        rules.partition_high_cardinality(box(("/tenantId",)), sample, None),
        "partition-high-cardinality",
    )
    assert "4 distinct /tenantId values among 60 sampled items" in from_sample.evidence


def test_many_values_or_a_hierarchical_key_are_fine():
    assert rules.partition_high_cardinality(box(("/threadId",)), [], keys_listed=5000) == []
    assert rules.partition_high_cardinality(box(), [], keys_listed=3) == []


def test_partition_key_values_over_the_limit():
    long_key = shape(1, partition_key=("t" * 2100, "x"))
    finding = one(rules.partition_key_length(box(), [long_key, *many(3)]), "partition-key-length")
    assert finding.severity is Severity.HIGH and "2,100 bytes" in finding.evidence
    v1 = one(
        rules.partition_key_length(box(version=1), [shape(2, tenant="t" * 120)]),
        "partition-key-length",
    )
    assert "101-byte" in v1.title


def test_short_partition_keys_are_fine():
    assert rules.partition_key_length(box(), many(5)) == []


def test_ids_too_long_or_with_reserved_characters():
    bad = [shape(1, id="a" * 1100), shape(2, id="best#42"), shape(3, id="a/b")]
    finding = one(rules.id_constraints([*bad, *many(2)]), "model-id-constraints")
    assert finding.severity is Severity.HIGH and finding.count == 3
    assert "1 ids over 1,023 bytes, 2 ids with" in finding.evidence


def test_plain_ids_are_fine():
    assert rules.id_constraints([shape(1, id="thread:1:turn-3"), shape(2)]) == []


# -- size ------------------------------------------------------------------------------------


def test_items_near_the_2mb_limit():
    big = [shape(1, size=1_700_000), shape(2, size=600_000)]
    finding = one(rules.item_size([*big, *many(3)]), "model-avoid-2mb-limit")
    assert finding.severity is Severity.HIGH and finding.examples[0] == "item-1"
    assert "1.7 MB" in finding.evidence
    warn = one(rules.item_size([shape(2, size=600_000)]), "model-avoid-2mb-limit")
    assert warn.severity is Severity.WARN


def test_small_items_are_fine():
    assert rules.item_size(many(10)) == []


def test_one_document_per_thread_that_grows():
    sessions = [shape(1, messages=212, size=480_000), shape(2, messages=4, size=3000)]
    finding = one(rules.growing_thread_document(LANGCHAIN, sessions), "model-reference-large")
    assert finding.severity is Severity.WARN and "212 messages" in finding.evidence
    small = one(
        rules.growing_thread_document(LANGCHAIN, [shape(2, messages=4)]), "model-reference-large"
    )
    assert small.severity is Severity.INFO  # the design, before it hurts


def test_short_exchanges_and_message_items_are_fine():
    assert rules.growing_thread_document(LAB, many(5)) == []
    assert rules.growing_thread_document(AMT, many(5, messages=None)) == []


# -- vectors and indexing ------------------------------------------------------------------


def test_embeddings_nested_inside_messages():
    nested = many(3, vectors=(("/messages/0/embedding", 1536),))
    finding = one(ix.vector_embedding_policy(box(), nested), "vector-embedding-policy")
    assert "/messages/0/embedding" in finding.title and "1536-d" in finding.evidence


def test_top_level_embeddings_without_a_policy_or_with_other_dimensions():
    missing = one(ix.vector_embedding_policy(box(vectors=None), many(4)), "vector-embedding-policy")
    assert "no vector policy" in missing.title and "dimensions: 8" in missing.fix
    other = one(
        ix.vector_embedding_policy(box(), many(4, vectors=(("/embedding", 1536),))),
        "vector-embedding-policy",
    )
    assert "declares 8 dimensions" in other.evidence


def test_declared_top_level_embeddings_of_the_right_size_are_fine():
    assert ix.vector_embedding_policy(box(), many(4)) == []
    assert ix.vector_embedding_policy(box(vectors=None), many(4, vectors=())) == []


def test_a_vector_policy_without_a_vector_index():
    policy = {k: v for k, v in DEMO_POLICY.items() if k != "vectorIndexes"}
    finding = one(ix.vector_index(box(policy=policy)), "vector-index-type")
    assert finding.examples == ("/embedding",)
    assert ix.vector_index(box()) == []


def test_embeddings_that_are_range_indexed():
    policy = {"indexingMode": "consistent", "includedPaths": [{"path": "/*"}], "excludedPaths": []}
    finding = one(ix.index_exclude_vectors(box(policy=policy), many(3)), "index-exclude-unused")
    assert "/embedding/*" in finding.fix
    nested = many(2, vectors=(("/messages/0/embedding", 8),))
    nested_finding = one(
        ix.index_exclude_vectors(box(policy=policy, vectors=None), nested), "index-exclude-unused"
    )
    assert "/messages/[]/embedding/*" in nested_finding.fix


def test_excluded_or_unindexed_embeddings_are_fine():
    assert ix.index_exclude_vectors(box(), many(3)) == []
    by_parent = {"includedPaths": [{"path": "/*"}], "excludedPaths": [{"path": "/messages/*"}]}
    nested = many(2, vectors=(("/messages/0/embedding", 8),))
    assert ix.index_exclude_vectors(box(policy=by_parent, vectors=None), nested) == []
    assert ix.index_exclude_vectors(box(policy={"indexingMode": "none"}), many(3)) == []
    only_some = {"includedPaths": [{"path": "/threadId/?"}], "excludedPaths": [{"path": "/*"}]}
    assert ix.index_exclude_vectors(box(policy=only_some), many(3)) == []


def test_no_composite_index_for_the_turn_order():
    policy = {k: v for k, v in DEMO_POLICY.items() if k != "compositeIndexes"}
    finding = one(ix.index_composite_order(box(policy=policy), LAB), "index-composite")
    assert finding.severity is Severity.INFO and '"/turnIndex"' in finding.fix


def test_a_composite_index_for_the_order_is_enough():
    assert ix.index_composite_order(box(), LAB) == []
    just_order = {"compositeIndexes": [[{"path": "/turnIndex"}, {"path": "/id"}]]}
    assert ix.index_composite_order(box(policy=just_order), LAB) == []


# -- all together --------------------------------------------------------------------------


def test_findings_come_worst_first_each_naming_a_rule():
    items = [shape(1, ttl=3600, size=1_800_000), shape(2, ttl=None)]
    found = findings(box(default_ttl=None, policy={}), LAB, items)
    rules_seen = [f.rule for f in found]
    assert rules_seen[:2] == ["model-avoid-2mb-limit", "ttl-container-off"]  # high first
    assert {"ttl-invalid-value", "index-exclude-unused", "index-composite"} <= set(rules_seen)
    ranks = [f.severity.rank for f in found]
    assert ranks == sorted(ranks)


def test_a_well_designed_container_has_nothing_to_fix():
    assert findings(box(), LAB, many(30, ttl=3600)) == ()
