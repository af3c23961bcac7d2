"""The fake's query engine without HTTP: Cosmos SQL semantics, exact paging, charges,
hashing, range layouts, and every query text the product ships."""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any

import pytest
from azure.cosmos.partition_key import PartitionKey

from tests.fake_cosmos.charges import QUERY_BASE_RU
from tests.fake_cosmos.clock import FakeCosmosClock
from tests.fake_cosmos.continuation import TokenError
from tests.fake_cosmos.epk_hash import component_hash, sdk_component_hash
from tests.fake_cosmos.query_exec import Scope, prepare, run_page
from tests.fake_cosmos.query_plan import build, needs_plan
from tests.fake_cosmos.ranges import KeyDefinition, boundary_inside_prefix, layout
from tests.fake_cosmos.sql_parser import SqlError, parse
from tests.fake_cosmos.sql_text import query_text
from tests.fake_cosmos.store import Container, Store

NOW = 1_795_996_800


def container(
    docs: list[dict[str, Any]], *, ranges: int = 1, key: tuple[str, ...] = ("/pk",), **options: Any
) -> Container:
    store = Store(FakeCosmosClock(NOW), default_ranges=ranges)
    store.create_database("db")
    made = store.create_container(
        "db", "c", KeyDefinition(key, "MultiHash" if len(key) > 1 else "Hash"), **options
    )
    made.seed(docs, NOW)
    return made


def pages(
    made: Container,
    text: str,
    params: dict[str, Any] | None = None,
    *,
    size: int = 1000,
    **scope: Any,
) -> list[list[Any]]:
    """Every page of a query over every range, resuming from each page's token."""
    prepared = prepare(text, params or {}, made)
    out: list[list[Any]] = []
    for rng in made.ranges:
        token = None
        while True:
            page = run_page(prepared, Scope(made, rng, NOW, **scope), size, token)
            out.append(page.rows)
            token = page.token
            if token is None:
                break
    return out


def rows(
    made: Container, text: str, params: dict[str, Any] | None = None, **kwargs: Any
) -> list[Any]:
    return [row for page in pages(made, text, params, **kwargs) for row in page]


def charge(made: Container, text: str, params: dict[str, Any] | None = None) -> float:
    prepared = prepare(text, params or {}, made)
    page = run_page(prepared, Scope(made, made.ranges[0], NOW), 1000, None)
    return page.meter.charge()


MIXED = [
    {"id": "a", "pk": "p", "v": "42"},
    {"id": "b", "pk": "p", "v": 42},
    {"id": "c", "pk": "p", "v": None},
    {"id": "d", "pk": "p", "v": True},
    {"id": "e", "pk": "p"},
    {"id": "f", "pk": "p", "v": [1, 2]},
    {"id": "g", "pk": "p", "v": {"k": 1}},
    {"id": "h", "pk": "p", "v": False},
    {"id": "i", "pk": "p", "v": 7.5},
    {"id": "j", "pk": "p", "v": "abc"},
]


# -- semantics ------------------------------------------------------------------------------


def test_comparisons_across_types_are_undefined_and_filter_rows_out() -> None:
    made = container(MIXED)
    assert rows(made, "SELECT VALUE c.id FROM c WHERE c.v = 42") == ["b"]
    assert rows(made, 'SELECT VALUE c.id FROM c WHERE c.v = "42"') == ["a"]
    assert rows(made, "SELECT VALUE c.id FROM c WHERE c.v > 10") == ["b"]
    assert rows(made, "SELECT VALUE c.id FROM c WHERE NOT (c.v = 42)") == ["i"]
    assert rows(made, "SELECT VALUE c.id FROM c WHERE c.v != 42") == ["i"]
    assert sorted(rows(made, "SELECT VALUE c.id FROM c WHERE NOT IS_DEFINED(c.v)")) == ["e"]
    assert rows(made, "SELECT VALUE c.id FROM c WHERE c.v = [1, 2]") == ["f"]
    assert rows(made, 'SELECT VALUE c.id FROM c WHERE c.v = {"k": 1}') == ["g"]
    assert sorted(rows(made, "SELECT VALUE c.id FROM c WHERE c.v IN (42, 'abc', null)")) == [
        "b",
        "c",
        "j",
    ]
    assert sorted(rows(made, "SELECT VALUE c.id FROM c WHERE c.v BETWEEN 0 AND 50")) == ["b", "i"]
    assert rows(made, "SELECT VALUE c.id FROM c WHERE c.v > 10 OR c.v = false") == ["b", "h"]
    assert rows(made, "SELECT VALUE c.id FROM c WHERE (c.v > 10 AND c.nope = 1)") == []


def test_undefined_drops_value_rows_and_object_members() -> None:
    made = container(MIXED[3:5])
    assert rows(made, "SELECT VALUE c.v FROM c") == [True]
    assert rows(made, "SELECT c.id, c.v FROM c") == [{"id": "d", "v": True}, {"id": "e"}]
    assert rows(made, "SELECT c.id, c.v + 1 AS w, [c.v, 1] AS arr FROM c") == [
        {"id": "d", "arr": [True, 1]},
        {"id": "e", "arr": [1]},
    ]
    assert rows(made, "SELECT c.id, 1 + 2, c.id || '!' FROM c WHERE c.id = 'd'") == [
        {"id": "d", "$1": 3, "$2": "d!"}
    ]
    assert rows(made, "SELECT c FROM c WHERE c.id = 'e'")[0]["c"]["id"] == "e"


def test_operators_and_functions() -> None:
    made = container(
        [{"id": "x", "pk": "p", "n": 7, "s": "Hello", "arr": [1, 2, 3], "o": {"a": {"b": [5]}}}]
    )
    (row,) = rows(
        made,
        'SELECT VALUE {"div": c.n / 2, "mod": c.n % 4, "neg": -c.n, '
        '"t": c.n > 5 ? "big" : "small", "co": c.missing ?? "dflt", '
        '"low": LOWER(c.s), "up": UPPER(c.s), "len": LENGTH(c.s), "has": CONTAINS(c.s, "ell"), '
        '"sw": STARTSWITH(c.s, "he", true), "ew": ENDSWITH(c.s, "lo"), '
        '"al": ARRAY_LENGTH(c.arr), "ac": ARRAY_CONTAINS(c.arr, 2), "deep": c.o.a["b"][0], '
        '"num": IS_NUMBER(c.n), "str": IS_STRING(c.n), "obj": IS_OBJECT(c.o), '
        '"arrq": IS_ARRAY(c.arr), '
        '"nul": IS_NULL(c.missing), "bool": IS_BOOL(true), "zero": c.n / 0} FROM c',
    )
    assert row == {
        "div": 3.5,
        "mod": 3,
        "neg": -7,
        "t": "big",
        "co": "dflt",
        "low": "hello",
        "up": "HELLO",
        "len": 5,
        "has": True,
        "sw": True,
        "ew": True,
        "al": 3,
        "ac": True,
        "deep": 5,
        "num": True,
        "str": False,
        "obj": True,
        "arrq": True,
        "nul": False,
        "bool": True,
    }


def test_order_by_uses_the_cross_type_order_and_ties_by_rid_in_both_directions() -> None:
    made = container(MIXED)
    assert rows(made, "SELECT VALUE c.id FROM c ORDER BY c.v") == list("echdibajfg")
    assert rows(made, "SELECT VALUE c.id FROM c ORDER BY c.v DESC") == list("gfjabidhce")
    tied = container([{"id": f"i{n}", "pk": "p", "r": n % 2} for n in range(6)])
    assert rows(tied, "SELECT VALUE c.id FROM c ORDER BY c.r") == [
        "i0",
        "i2",
        "i4",
        "i1",
        "i3",
        "i5",
    ]
    assert rows(tied, "SELECT VALUE c.id FROM c ORDER BY c.r DESC") == [
        "i1",
        "i3",
        "i5",
        "i0",
        "i2",
        "i4",
    ]


def test_aggregates_over_nothing() -> None:
    made = container([{"id": "x", "pk": "p", "n": 1}])
    empty = "FROM c WHERE c.n > 5"
    assert rows(made, f"SELECT VALUE COUNT(1) {empty}") == [0]
    for fn in ("MAX", "MIN", "SUM", "AVG"):
        assert rows(made, f"SELECT VALUE {fn}(c.n) {empty}") == []
    assert rows(made, f"SELECT COUNT(1) AS n, MAX(c.n) AS m {empty}") == [{"n": 0}]
    assert rows(made, "SELECT VALUE AVG(c.n) FROM c") == [1]
    assert rows(made, "SELECT VALUE SUM(c.s) FROM c") == []  # only undefined inputs


def test_group_by_distinct_top_offset_and_subqueries() -> None:
    docs = [{"id": f"i{n}", "pk": "p", "t": f"t{n % 3}", "n": n, "_ts": 100 + n} for n in range(10)]
    made = container(docs)
    grouped = rows(
        made, "SELECT c.t AS thread, COUNT(1) AS items, MAX(c._ts) AS last FROM c GROUP BY c.t"
    )
    assert grouped == [
        {"thread": "t0", "items": 4, "last": 109},
        {"thread": "t1", "items": 3, "last": 107},
        {"thread": "t2", "items": 3, "last": 108},
    ]
    assert rows(made, "SELECT DISTINCT VALUE c.t FROM c") == ["t0", "t1", "t2"]
    assert rows(made, 'SELECT DISTINCT VALUE {"t": c.t} FROM c') == [
        {"t": "t0"},
        {"t": "t1"},
        {"t": "t2"},
    ]
    assert rows(made, "SELECT TOP @k VALUE c.n FROM c ORDER BY c.n DESC", {"@k": 3}) == [9, 8, 7]
    assert rows(made, "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 2 LIMIT 3") == [2, 3, 4]
    assert rows(made, "SELECT DISTINCT TOP 2 VALUE c.t FROM c WHERE c.t > 't0' ORDER BY c.t") == [
        "t1",
        "t2",
    ]
    query = (
        'SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE {"t": c.t} FROM c WHERE c.n > @m) AS s'
    )
    assert rows(made, query, {"@m": 2}) == [3]
    assert rows(
        made, "SELECT VALUE s.n FROM (SELECT c.n FROM c WHERE c.n < 3) s WHERE s.n > 0"
    ) == [1, 2]


def test_invalid_queries_are_refused() -> None:
    made = container([])
    for bad in (
        "SELECT",
        "SELECT * FROM c WHERE",
        "SELECT * FROM c JOIN t IN c.tags",
        "SELECT c.a, COUNT(1) FROM c",
        "SELECT * FROM c GROUP BY c.a",
        "SELECT * FROM c WHERE COUNT(1) > 1",
        "SELECT VALUE NOPE(c.a) FROM c",
        "SELECT VALUE x.a FROM c",
        "SELECT VALUE c.a FROM c WHERE c.a = @missing",
        "SELECT VALUE c.a FROM c ORDER BY c.a, c.b",  # no composite index
    ):
        with pytest.raises(SqlError):
            rows(made, bad)


def test_excluded_paths_cannot_be_ordered_and_cost_a_scan() -> None:
    policy = {
        "indexingMode": "consistent",
        "includedPaths": [{"path": "/*"}],
        "excludedPaths": [{"path": "/n/?"}],
    }
    made = container(
        [{"id": f"i{n}", "pk": "p", "n": n} for n in range(50)], indexing_policy=policy
    )
    with pytest.raises(SqlError, match="range index"):
        rows(made, "SELECT VALUE c.id FROM c ORDER BY c.n")
    indexed = container([{"id": f"i{n}", "pk": "p", "n": n} for n in range(50)])
    assert charge(made, "SELECT VALUE COUNT(1) FROM c WHERE c.n = 3") > charge(
        indexed, "SELECT VALUE COUNT(1) FROM c WHERE c.n = 3"
    )
    composite = {
        **policy,
        "compositeIndexes": [[{"path": "/a"}, {"path": "/n", "order": "descending"}]],
    }
    made = container(
        [{"id": f"i{n}", "pk": "p", "a": n % 2, "n": n} for n in range(6)],
        indexing_policy=composite,
    )
    assert rows(made, "SELECT VALUE c.n FROM c ORDER BY c.a, c.n DESC") == [4, 2, 0, 5, 3, 1]


# -- paging ---------------------------------------------------------------------------------

SHAPES = [
    ("SELECT VALUE c.id FROM c", {}),
    ("SELECT VALUE c.id FROM c WHERE c.t = @t", {"@t": "t1"}),
    ("SELECT VALUE c.n FROM c ORDER BY c.n DESC", {}),
    ("SELECT VALUE c.id FROM c ORDER BY c.g", {}),
    ("SELECT VALUE c.id FROM c ORDER BY c.g DESC", {}),
    ("SELECT DISTINCT VALUE c.t FROM c", {}),
    ("SELECT DISTINCT VALUE c.t FROM c WHERE c.n > 5 ORDER BY c.t DESC", {}),
    ('SELECT DISTINCT VALUE {"t": c.t, "g": c.g} FROM c', {}),
    ("SELECT TOP 13 VALUE c.id FROM c WHERE c.n > 3", {}),
    ("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 5 LIMIT 11", {}),
    ("SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g", {}),
    ('SELECT DISTINCT c.t, c.g FROM c WHERE STARTSWITH(c.t, "t") ORDER BY c.t', {}),
]


@pytest.mark.parametrize(("text", "params"), SHAPES)
@pytest.mark.parametrize("size", [1, 3, 7])
def test_every_page_size_resumes_exactly(text: str, params: dict[str, Any], size: int) -> None:
    docs = [
        {"id": f"i{n:02d}", "pk": f"p{n % 5}", "t": f"t{n % 4}", "g": n % 3, "n": n}
        for n in range(40)
    ]
    made = container(docs, ranges=3)
    whole = pages(made, text, params, size=1000)
    paged = pages(made, text, params, size=size)
    assert [row for page in paged for row in page] == [row for page in whole for row in page]
    assert all(len(page) <= size for page in paged)


def test_a_token_is_refused_by_another_range_and_another_query() -> None:
    made = container([{"id": f"i{n}", "pk": f"p{n}", "n": n} for n in range(60)], ranges=2)
    prepared = prepare("SELECT VALUE c.n FROM c", {}, made)
    first = run_page(prepared, Scope(made, made.ranges[0], NOW), 5, None)
    assert first.token is not None
    with pytest.raises(TokenError, match="partition key range"):
        run_page(prepared, Scope(made, made.ranges[1], NOW), 5, first.token)
    other = prepare("SELECT VALUE c.id FROM c", {}, made)
    with pytest.raises(TokenError, match="different query"):
        run_page(other, Scope(made, made.ranges[0], NOW), 5, first.token)
    with pytest.raises(TokenError):
        run_page(prepared, Scope(made, made.ranges[0], NOW), 5, "garbage")


def test_a_parent_token_is_accepted_by_its_split_children() -> None:
    """After a split the SDK hands the parent's continuation to each child range."""
    made = container([{"id": f"i{n}", "pk": f"p{n}", "n": n} for n in range(60)], ranges=1)
    prepared = prepare("SELECT VALUE c.n FROM c", {}, made)
    first = run_page(prepared, Scope(made, made.ranges[0], NOW), 5, None)
    seen = list(first.rows)
    for child in made.split(made.ranges[0].id, "20"):
        token = first.token
        while token is not None:
            page = run_page(prepared, Scope(made, child, NOW), 5, token)
            seen += page.rows
            token = page.token
    assert sorted(seen) == list(range(60))


# -- charges --------------------------------------------------------------------------------


def test_charges_grow_with_the_work() -> None:
    docs = [
        {"id": f"i{n}", "pk": "p", "t": f"t{n % 10}", "n": n, "text": "x" * 500} for n in range(500)
    ]
    made = container(docs)
    count = charge(made, "SELECT VALUE COUNT(1) FROM c WHERE c.t = 't3'")
    projection = charge(made, 'SELECT VALUE {"n": c.n, "text": c.text} FROM c WHERE c.t = \'t3\'')
    residual = charge(made, "SELECT VALUE COUNT(1) FROM c WHERE LOWER(c.t) = 't3'")
    seek = charge(made, "SELECT TOP 1 VALUE c.n FROM c WHERE c.n > 400 ORDER BY c.n")
    distinct = charge(made, "SELECT DISTINCT VALUE c.t FROM c")
    everything = charge(made, "SELECT * FROM c")
    assert seek == QUERY_BASE_RU < count < projection < everything  # a seek reads one entry
    assert count < residual  # a filter the index cannot serve loads every document
    assert QUERY_BASE_RU < distinct < residual


# -- hashing and layouts ---------------------------------------------------------------------


def test_component_hashes_equal_the_sdk_for_many_values() -> None:
    rnd = random.Random(4)
    values: list[Any] = [
        True,
        False,
        None,
        0,
        -0.0,
        1,
        -1,
        2**53,
        1e300,
        42.5,
        "",
        "ümlaut",
        "漢字🙂",
    ]
    values += ["".join(rnd.choices(string.printable, k=rnd.randint(0, 40))) for _ in range(300)]
    values += [rnd.randint(-(10**15), 10**15) for _ in range(100)] + [
        rnd.uniform(-1e9, 1e9) for _ in range(100)
    ]
    for value in values:
        assert component_hash(value) == sdk_component_hash(value), value
    hashed = KeyDefinition(("/a",))
    nested = KeyDefinition(("/a", "/b"), "MultiHash")
    sdk_nested = PartitionKey(path=["/a", "/b"], kind="MultiHash")
    for value in values[:60]:
        assert hashed.epk([value]) == PartitionKey(path="/a")._get_effective_partition_key_string(
            [value]
        )
        assert nested.epk([value, "t"]) == sdk_nested._get_effective_partition_key_string(
            [value, "t"]
        )
        low, high = nested.prefix_range([value])
        sdk_range = sdk_nested._get_epk_range_for_prefix_partition_key([value])
        assert (low, high) == (sdk_range.min, sdk_range.max)


def test_layouts_spread_evenly_and_can_split_a_tenant() -> None:
    assert layout(4) == ["1000000000000000", "2000000000000000", "3000000000000000"]
    key = KeyDefinition(("/tenantId", "/threadId"), "MultiHash")
    inside = boundary_inside_prefix(key, ["acme"])
    bounds = layout(4, [inside])
    assert len(bounds) == 3 and inside in bounds
    made = container(
        [{"id": f"i{n}", "tenantId": "acme", "threadId": f"th{n}"} for n in range(40)],
        ranges=4,
        key=("/tenantId", "/threadId"),
        split_inside=[inside],
    )
    holding = [r.id for r in made.ranges if r.docs]
    assert len(holding) == 2


# -- query plans -----------------------------------------------------------------------------


def test_plans_rewrite_as_the_service_does() -> None:
    key = KeyDefinition(("/tenantId",))
    plan = build(parse("SELECT TOP @n * FROM c WHERE c.x > 1 ORDER BY c._ts DESC"), {"@n": 5}, key)
    info = plan["queryInfo"]
    assert info["top"] == 5 and info["orderBy"] == ["Descending"]
    assert info["rewrittenQuery"].startswith(
        'SELECT TOP @n c._rid, [{"item": c._ts}] AS orderByItems, c AS payload'
    )
    assert "{documentdb-formattableorderbyquery-filter}" in info["rewrittenQuery"]
    assert plan["queryRanges"] == [
        {"min": "", "max": "FF", "isMinInclusive": True, "isMaxInclusive": False}
    ]
    count = build(parse("SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = 'a'"), {}, key)
    assert count["queryInfo"]["aggregates"] == ["Count"]
    assert count["queryInfo"]["rewrittenQuery"].startswith('SELECT VALUE [{"item": COUNT(1)}]')
    epk = key.epk(["a"])
    assert count["queryRanges"] == [
        {"min": epk, "max": epk, "isMinInclusive": True, "isMaxInclusive": True}
    ]
    distinct = build(parse("SELECT DISTINCT VALUE c.t FROM c ORDER BY c.t"), {}, key)["queryInfo"]
    assert distinct["distinctType"] == "Ordered"
    assert "c._rid" not in distinct["rewrittenQuery"]
    assert not needs_plan(parse("SELECT VALUE c.id FROM c WHERE c.x = 1"))
    rewritten = parse(
        info["rewrittenQuery"].replace("{documentdb-formattableorderbyquery-filter}", "true")
    )
    assert query_text(rewritten).startswith("SELECT TOP @n c._rid")


# -- the product's own query texts --------------------------------------------------------


def test_every_product_query_runs_on_the_fake() -> None:
    """Each ``queries/cosmos/*.sql`` with every built-in schema's slots parses, plans and
    runs range-locally (a query the fake cannot run is a gap to close here)."""
    from cosmem_tui.schemas.registry import builtin_schemas
    from cosmem_tui.sources.cosmos.query_slots import query_slots
    from cosmem_tui.sources.cosmos.sql import render

    names = sorted(p.stem for p in Path("queries/cosmos").glob("*.sql"))
    assert names
    ran = 0
    for schema in builtin_schemas().values():
        paths = tuple(schema.partition_key)
        made = container(
            [{"id": f"i{n}", **{p.strip("/"): f"v{n % 3}" for p in paths}} for n in range(12)],
            ranges=2,
            key=paths,
        )
        slots = query_slots(schema)
        for name in names:
            # recall_vector: its per-probe slots (ORDER BY RANK probes run only from a plan)
            probe = {"where": "true", "vector": 'c["v"]', "brute": ", true"}
            try:
                text = render(name, {**slots, **probe} if name == "recall_vector" else slots)
            except KeyError:
                continue  # the query needs a slot this schema does not have
            params = {p: "v1" for p in ("@tenant", "@pk0", "@pk1", "@pk2", "@th0", "@after")}
            params |= {"@id": "i1", "@k": 3, "@v": [1, 0]}  # recall lookups and probes
            params["@limit"] = 5
            params["@skip"] = ["v1"]  # thread_items: the ids an erase could not delete
            params.update({"@text": "V1", "@g0": "text", "@g1": "text"})  # turns_matching
            rows(made, text, params)
            query = parse(text)
            if needs_plan(query):
                build(query, params, made.key)
            ran += 1
    assert ran > len(names)


# -- vector and full-text search -----------------------------------------------------------

SEARCH_POLICIES = {
    "vectorEmbeddingPolicy": {
        "vectorEmbeddings": [
            {"path": "/v", "dataType": "float32", "distanceFunction": "cosine", "dimensions": 2},
            {"path": "/e", "dataType": "float32", "distanceFunction": "euclidean", "dimensions": 2},
        ]
    },
    "fullTextPolicy": {"defaultLanguage": "en-US", "fullTextPaths": [{"path": "/text"}]},
}


def searchable(docs: list[dict[str, Any]], quantum: float | None = None) -> Container:
    made = container(docs, extra=SEARCH_POLICIES)
    made.vector_quantum = quantum
    return made


def rows_of(made: Container, text: str, params: dict[str, Any] | None = None) -> list[Any]:
    return [row for page in pages(made, text, params) for row in page]


def test_vector_distance_follows_the_policy_and_ranks_closest_first() -> None:
    docs = [
        {"id": "a", "pk": "p", "v": [1, 0], "e": [0, 0]},
        {"id": "b", "pk": "p", "v": [0.6, 0.8], "e": [3, 4]},
        {"id": "c", "pk": "p", "v": [0, 1], "e": [1, 0]},
    ]
    made = searchable(docs)
    cosine = "SELECT c.id, VectorDistance(c.v, @q) AS s FROM c ORDER BY VectorDistance(c.v, @q)"
    got = rows_of(made, cosine, {"@q": [1, 0]})
    assert [r["id"] for r in got] == ["a", "b", "c"]  # larger similarity first
    assert [round(r["s"], 6) for r in got] == [1.0, 0.6, 0.0]
    euclid = "SELECT VALUE c.id FROM c ORDER BY VectorDistance(c.e, [0, 0])"
    assert rows_of(made, euclid) == ["a", "c", "b"]  # smaller distance first
    dot = "SELECT VALUE VectorDistance(c.v, [2, 0], false, {distanceFunction: 'dotproduct'}) FROM c"
    assert rows_of(made, dot) == [2, 1.2, 0]


def test_vector_distance_has_no_value_for_what_is_not_a_vector_of_the_policy() -> None:
    docs = [
        {"id": "ok", "pk": "p", "v": [1, 0]},
        {"id": "short", "pk": "p", "v": [1]},  # 1 of the policy's 2 dimensions
        {"id": "nested", "pk": "p", "v": [[1, 0]]},
        {"id": "text", "pk": "p", "v": "1,0"},
        {"id": "none", "pk": "p"},
    ]
    made = searchable(docs)
    scores = rows_of(made, "SELECT c.id, VectorDistance(c.v, [1, 0]) AS s FROM c")
    assert {r["id"]: "s" in r for r in scores} == {
        "ok": True,
        "short": False,
        "nested": False,
        "text": False,
        "none": False,
    }
    ranked = "SELECT TOP 10 VALUE c.id FROM c ORDER BY VectorDistance(c.v, [1, 0])"
    assert rows_of(made, ranked) == ["ok"]  # an item without a score is not ranked


def test_the_approximate_index_ranks_by_quantised_vectors_unless_brute_force() -> None:
    docs = [
        {"id": "near", "pk": "p", "v": [1.0, 0.24]},  # truly closer to [1, 0.3]
        {"id": "far", "pk": "p", "v": [1.0, 0.6]},
    ]
    made = searchable(docs, quantum=0.5)
    index = "SELECT TOP 1 VALUE c.id FROM c ORDER BY VectorDistance(c.v, [1, 0.3])"
    brute = "SELECT TOP 1 VALUE c.id FROM c ORDER BY VectorDistance(c.v, [1, 0.3], true)"
    assert rows_of(made, brute) == ["near"]
    # rounded to halves the query is [1, 0.5]: "far" is [1, 0.5] too, "near" is [1, 0]
    assert rows_of(made, index) == ["far"]
    assert rows_of(searchable(docs), index) == ["near"]  # no approximate index: exact


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SELECT FullTextScore(c.text, 'tea') AS s FROM c", "cannot be part of a projection"),
        (
            "SELECT * FROM c WHERE RRF(FullTextScore(c.text, 'a'), FullTextScore(c.text, 'b')) > 1",
            "cannot be part",
        ),
        ("SELECT TOP 5 c.id FROM c ORDER BY RANK c.id", "requires a scoring function"),
        ("SELECT TOP 5 c.id FROM c ORDER BY FullTextScore(c.text, 'tea')", "ORDER BY RANK"),
        ("SELECT TOP 5 c.id FROM c ORDER BY RANK FullTextScore(c.body, 'tea')", "full-text policy"),
        ("SELECT * FROM c WHERE FullTextContains(c.body, 'tea')", "full-text policy"),
    ],
)
def test_search_queries_the_service_refuses(text: str, message: str) -> None:
    made = searchable([{"id": "a", "pk": "p", "text": "tea"}])
    with pytest.raises(SqlError, match=message):
        prepare(text, {}, made)


def test_order_by_rank_prints_back_and_needs_the_hybrid_plan() -> None:
    text = (
        "SELECT TOP @k c.id FROM c WHERE c.pk = @p "
        "ORDER BY RANK RRF(VectorDistance(c.v, @q), FullTextScore(c.text, @t0, @t1))"
    )
    query = parse(text)
    assert query.order_by[0].rank
    assert parse(query_text(query)) == query
    made = searchable([])
    params = {"@k": 3, "@p": "p", "@q": [1, 0], "@t0": "tea", "@t1": "ferry"}
    from tests.fake_cosmos.routes_query import search_context

    plan = build(query, params, made.key, search_context(made))
    info = plan["hybridSearchQueryInfo"]
    assert "queryInfo" not in plan and info["take"] == 3 and info["requiresGlobalStatistics"]
    assert [c["orderBy"] for c in info["componentQueryInfos"]] == [["Descending"], ["Descending"]]
    assert "COUNTIF(FullTextContains(c.text, @t0))" in info["globalStatisticsQuery"]
    assert plan["queryRanges"][0]["min"] == plan["queryRanges"][0]["max"]  # the key pins it


def test_full_text_statistics_and_bm25_scores() -> None:
    docs = [
        {"id": "a", "pk": "p", "text": "Tea, tea and more tea"},
        {"id": "b", "pk": "p", "text": "a cup of tea"},
        {"id": "c", "pk": "p", "text": "coffee"},
        {"id": "d", "pk": "p"},
    ]
    made = searchable(docs)
    stats = rows_of(
        made,
        "SELECT COUNT(1) AS n, SUM(_FullTextWordCount(c.text)) AS words, "
        "COUNTIF(FullTextContains(c.text, 'tea')) AS hits FROM c",
    )
    assert stats == [{"n": 4, "words": 10, "hits": 2}]
    ranked = rows_of(
        made,
        "SELECT VALUE c.id FROM c ORDER BY _FullTextScore(c.text, ['tea'], 4, 10, [2]) DESC",
    )
    assert ranked == ["a", "b"]  # items without the term are not ranked
