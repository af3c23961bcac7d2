"""Recall on a workspace with its vectors table answers exactly as without it.

A build keeps long embeddings apart from their items (``sources/local/vector_table.py``)
so a probe need not parse them. That is only an optimisation: every probe mode must rank
the same items with the same scores, ties and charge whether the table is there or not
(a workspace built before it), including embeddings that are not vectors, of another
length, nested, missing, expired or filtered out. The workspace without the table is
the same file with the table dropped, as an older build left it.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import (
    Distance,
    FilterOp,
    ProbeMode,
    RecallAnswer,
    RecallFilter,
    RecallQuery,
)
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local import LocalStore, vector_scores
from cosmem_tui.sources.local.vector_table import MIN_DIMS
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange

LAB = get_schema("lab")
DIMS = 2 * MIN_DIMS
NOT_SUPERSEDED = RecallFilter("/superseded_by", FilterOp.ABSENT, label="not superseded")
HAS_EMBEDDING = RecallFilter("/embedding", FilterOp.PRESENT)  # reads the embedding's field
PADDING = "tea and biscuits " * 120  # every planted item is large enough for a stored vector


def _vector(rng: random.Random, dims: int = DIMS) -> list[float]:
    return [rng.uniform(-1, 1) for _ in range(dims)]


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def planted() -> tuple[list[dict[str, Any]], tuple[float, ...]]:
    rng = random.Random(19)
    query = tuple(_vector(rng))

    def item(thread: str, n: int, text: str, tenant: str = "acme", **extra: Any) -> dict[str, Any]:
        return exchange(tenant, thread, n, text, content=f"{text} {PADDING}", **extra)

    items = [item("t1", n, f"note {n}", embedding=_vector(rng)) for n in range(30)]
    items[3]["content"] = "the invoice number is 4471 " + PADDING
    twin = _vector(rng)
    items += [
        item("t1", 30, "twin a", embedding=twin),  # the same vector twice: a tie, by id
        item("t1", 31, "twin b", embedding=list(twin)),
        item("t1", 32, "the query itself", embedding=list(query)),
        item("t1", 33, "integers", embedding=[rng.randint(-9, 9) for _ in range(DIMS)]),
        item("t1", 34, "mixed", embedding=[1, *_vector(rng, DIMS - 1)]),
        item("t1", 35, "zero", embedding=[0.0] * DIMS),  # cosine of no direction: 0.0
        item("t1", 36, "shorter", embedding=_vector(rng, DIMS - 1)),
        item("t1", 37, "longer", embedding=_vector(rng, DIMS + 40)),
        item("t1", 38, "a bool", embedding=[True, *_vector(rng, DIMS - 1)]),
        item("t1", 39, "a string", embedding=["1", *_vector(rng, DIMS - 1)]),
        item("t1", 40, "a null", embedding=[None, *_vector(rng, DIMS - 1)]),
        item("t1", 41, "an array", embedding=[[0.5], *_vector(rng, DIMS - 1)]),
        item("t1", 42, "no embedding true false"),
        item("t1", 43, "not an array", embedding={"values": _vector(rng)}),
        item(
            "t1",
            44,
            "nested",
            messages=[{"role": "user", "content": "x", "embedding": list(query)}],
        ),
        item("t1", 45, "old fact", embedding=list(query), superseded_by="t1-46"),
        item("t1", 46, "short-lived", embedding=_vector(rng), ttl=2),  # expired when probed
        item("t1", 47, "true story", embedding=_vector(rng), flag=True),
        item("t1", 49, "deep", embedding=_vector(rng), deep=_nested(300)),  # read, not written
        item("t2", 0, "other thread", embedding=list(twin)),
        item("t1", 0, "other tenant", tenant="umbrella", embedding=_vector(rng)),
    ]
    small = exchange("acme", "t1", 48, "small", embedding=[rng.randint(0, 9) for _ in range(DIMS)])
    items.append(small)  # under MIN_BYTES: read from its body
    return items, query


def without_table(path: Path, into: Path) -> Path:
    """The workspace as a build before the vectors table left it."""
    shutil.copyfile(path, into)
    db = sqlite3.connect(into, isolation_level=None)
    db.execute("DROP TABLE vectors")
    db.execute("DELETE FROM meta WHERE key = 'vectors_path'")
    db.close()
    return into


def stored_ids(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT i.id FROM vectors AS v JOIN items AS i ON i.rowid = v.item_rowid")
        return {row[0] for row in rows}
    finally:
        db.close()


@pytest.fixture
def workspaces(tmp_path: Path) -> tuple[Path, Path, tuple[float, ...]]:
    items, query = planted()
    path = build_workspace(tmp_path / "table.sqlite", items, now=ANCHOR, schema=LAB)
    return path, without_table(path, tmp_path / "older.sqlite"), query


def open_store(path: Path) -> LocalStore:
    return LocalStore.open(path, LAB, clock=FrozenClock(ANCHOR + 60))


def answer_of(answer: RecallAnswer) -> list[tuple[Any, ...]]:
    return [(h.rank, h.id, h.thread, h.score) for h in answer.hits] + [answer.request_units]


SCOPES = {
    "thread": TtlScope.of_thread(ThreadRef.of("acme", "t1")),
    "tenant": TtlScope.of_tenant(Key.of("acme")),
    "container": TtlScope(),
}


def probes(query_vector: tuple[float, ...]) -> list[RecallQuery]:
    found = []
    for scope in SCOPES.values():
        for filters in ((), (NOT_SUPERSEDED,), (HAS_EMBEDDING,)):
            for k in (3, 60):
                for distance in Distance:
                    for mode in (ProbeMode.EXACT, ProbeMode.VECTOR, ProbeMode.HYBRID):
                        found.append(
                            RecallQuery(
                                scope=scope,
                                mode=mode,
                                k=k,
                                vector_path="/embedding",
                                vector=query_vector,
                                distance=distance,
                                filters=filters,
                                text_paths=("/content",) if mode is ProbeMode.HYBRID else (),
                                terms=("invoice", "twin") if mode is ProbeMode.HYBRID else (),
                            )
                        )
                found.append(
                    RecallQuery(
                        scope=scope,
                        mode=ProbeMode.TEXT,
                        k=k,
                        filters=filters,
                        text_paths=("/content",),
                        terms=("invoice", "twin", "note"),
                    )
                )
    return found


@pytest.mark.parametrize("chunk", [vector_scores.CHUNK, 5])
async def test_every_probe_answers_alike_with_and_without_the_table(
    workspaces: tuple[Path, Path, tuple[float, ...]], chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Also with the vectors scored a few at a time: they then share chunks differently.
    monkeypatch.setattr(vector_scores, "CHUNK", chunk)
    path, older, query_vector = workspaces
    # The table holds the plain vectors only; the others are read from their bodies.
    assert stored_ids(path) == {
        *(f"t1-{n}" for n in range(38)),
        "t1-45",
        "t1-46",
        "t1-47",
        "t2-0",
    }
    table, reference = open_store(path), open_store(older)
    try:
        queries = probes(query_vector)
        for query in queries:
            got = answer_of(await table.recall(query))
            assert got == answer_of(await reference.recall(query)), query
        # The cases the table must not change are in the answers being compared.
        everything = await table.recall(
            RecallQuery(
                scope=SCOPES["tenant"],
                mode=ProbeMode.EXACT,
                k=60,
                vector_path="/embedding",
                vector=query_vector,
            )
        )
        ids = [h.id for h in everything.hits]
        assert ids[0] == "t1-32" and everything.hits[0].score == pytest.approx(1.0)
        assert "t1-45" in ids and "t1-46" not in ids  # superseded kept, expired gone
        assert ids.index("t1-30") + 1 == ids.index("t1-31")  # a tie, ordered by id
        assert {"t1-33", "t1-34", "t1-35", "t1-48", "t1-49", "t2-0"} <= set(ids)
        assert not {"t1-36", "t1-37", "t1-38", "t1-39", "t1-40", "t1-41"} & set(ids)
        assert not {"t1-42", "t1-43", "t1-44"} & set(ids)
        assert len(ids) == 30 + 6 + 2 + 3  # t2-0, the small and the deep; not umbrella's t1-0
    finally:
        await table.close()
        await reference.close()


async def test_probes_read_the_table_where_it_serves(
    workspaces: tuple[Path, Path, tuple[float, ...]], tmp_path: Path
) -> None:
    """Tamper with the stored rows: the answers that use them change (so the comparison
    above compared the table's answers), those that must not use them do not."""
    path, older, query_vector = workspaces
    tampered = tmp_path / "tampered.sqlite"
    shutil.copyfile(path, tampered)
    db = sqlite3.connect(tampered, isolation_level=None)
    db.execute("UPDATE vectors SET norm = norm * 2")
    db.execute("UPDATE vectors SET slim = replace(slim, 'note', 'memo')")
    db.close()
    scope = SCOPES["tenant"]
    exact = RecallQuery(
        scope=scope, mode=ProbeMode.EXACT, k=5, vector_path="/embedding", vector=query_vector
    )
    text = RecallQuery(
        scope=scope, mode=ProbeMode.TEXT, k=5, text_paths=("/content",), terms=("note",)
    )
    overlapping = RecallQuery(
        scope=scope,
        mode=ProbeMode.EXACT,
        k=5,
        vector_path="/embedding",
        vector=query_vector,
        filters=(HAS_EMBEDDING,),
    )
    elsewhere = RecallQuery(
        scope=scope,
        mode=ProbeMode.EXACT,
        k=5,
        vector_path="/messages/0/embedding",
        vector=query_vector,
    )
    broken, reference = open_store(tampered), open_store(older)
    try:
        for uses_table in (exact, text):
            assert answer_of(await broken.recall(uses_table)) != answer_of(
                await reference.recall(uses_table)
            )
        for reads_bodies in (overlapping, elsewhere):
            assert answer_of(await broken.recall(reads_bodies)) == answer_of(
                await reference.recall(reads_bodies)
            )
    finally:
        await broken.close()
        await reference.close()
